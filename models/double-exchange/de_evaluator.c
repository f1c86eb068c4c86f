/* de_evaluator.c — the double-exchange model's fermion evaluator for a batched call
 * (de_moves.c's propose, de_measure.c's measure, de_tempering.c's exchange): one handle that
 * the batch keeps (mcf_batch_keep), taken from the chains' own copies.  A file of its own so
 * that the batched ops need not call into double_exchange.c, which calls them. */
#include "de_internal.h"

/* The key of the batch's slot for the evaluator handle (mcf_batch_keep). */
static const char de_evaluator_slot = 0;

int de_evaluator(mcf_batch *batch, void *const *chains, size_t n, const mcf_fermion **f)
{
    mcf_fermion *slot = mcf_batch_keep(batch, &de_evaluator_slot, sizeof *slot, NULL);
    *f = slot;
    if (!slot)
        return mcf_fail_prefix(MCF_ENOMEM, "double-exchange: the batch's evaluator");
    for (size_t k = 0; k < n; k++) {
        const de_chain *c = chains[k];
        if (!slot->ops)
            *slot = c->fermion;
        else if (c->fermion.ops != slot->ops)
            return mcf_fail(MCF_EINTERNAL, "double-exchange: chain %llu of a batch has "
                            "evaluator %s, the batch %s (a bug, please report it)",
                            (unsigned long long)c->chain_index, c->fermion.name, slot->name);
    }
    return MCF_OK;
}
