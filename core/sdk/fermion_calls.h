/* fermion_calls.h — the SDK's one way of calling a fermion evaluator of either ABI
 * (docs/sdk-1.md, "ABI 1 keeps working: one adapter"): ABI 2's verbs over a descriptor.
 * An ABI-2 evaluator (mcf_fermion_evaluator) is called as it is; an ABI-1 one
 * (mcf_fermion_ops) through fermion_abi1.c, which makes the calls ABI 1's helpers made, in
 * the same order with the same draws.  Private to the SDK library. */
#ifndef MCF_FERMION_CALLS_H
#define MCF_FERMION_CALLS_H

#include "mcf/abi1_fermion.h"
#include "mcf/fermion.h"
#include "mcf/plugin.h"

/* 1 for a fermion evaluator of ABI 2 */
int mcfi_fermion_is_abi2(const mcf_plugin_info *e);

/* What a call goes to: an ABI-2 table with the batch its ops get, or an ABI-1 table (an
 * ABI-1 evaluator's, or the view of an ABI-2 one that an ABI-1 model holds); the names for
 * messages. */
typedef struct mcfi_fermion_target {
    const mcf_fermion_evaluator *ops2;
    const mcf_fermion_ops *ops1;
    void *app_data;     /* the descriptor's (create of ABI 2) */
    mcf_batch *batch;   /* ABI 2's batch argument */
    const char *model, *name;
} mcfi_fermion_target;

/* the target of evaluator e (either ABI) in batch b; the model's name for messages */
mcfi_fermion_target mcfi_fermion_target_of(const mcf_plugin_info *e, mcf_batch *b,
                                           const char *model);

/* what t provides: MCF_PROVIDES_* bits (an ABI-1 table: by the ops it has) */
unsigned mcfi_fermion_provides(const mcfi_fermion_target *t);

/* ABI 2's verbs on t (no message prefixes: the helpers add them) */
int mcfi_fermion_create(const mcfi_fermion_target *t, const mcf_params *params,
                        const mcf_hamiltonian *h, void **ws);
void mcfi_fermion_destroy(const mcfi_fermion_target *t, void *ws);
int mcfi_fermion_spectra(const mcfi_fermion_target *t, void *const *ws, size_t n,
                         mcf_rng *const *rngs, mcf_spectra *s);
int mcfi_fermion_occupation(const mcfi_fermion_target *t, void *const *ws, size_t n,
                            mcf_rng *const *rngs, double mu, double T,
                            const mcf_occupation *out);
int mcfi_fermion_change_action(const mcfi_fermion_target *t, void *const *ws, size_t n,
                               const mcf_change *const *changes, const double *T,
                               const double *mu, double *dS, double *err);
int mcfi_fermion_action(const mcfi_fermion_target *t, void *const *ws, size_t n, size_t m,
                        const double *T, const double *mu, double *S, double *err);

/* mcf 1.1: an ABI-2 table whose struct_size covers it and whose bits promise it (ABI 1 has
 * none): MCF_EINVAL otherwise */
int mcfi_fermion_density_matrix(const mcfi_fermion_target *t, void *const *ws, size_t n,
                                mcf_rng *const *rngs, const double *T, const double *mu,
                                const mcf_density_matrix *out);

int mcfi_fermion_pseudofermion(const mcfi_fermion_target *t, void *const *ws, size_t n,
                               mcf_rng *const *rngs, const double *T, const double *mu,
                               mcf_pseudofermion *p);

/* mcf 1.2: likewise for response */
int mcfi_fermion_response(const mcfi_fermion_target *t, void *const *ws, size_t n,
                          mcf_rng *const *rngs, const mcf_response *r);
int mcfi_fermion_vector_moments(const mcfi_fermion_target *t, void *const *ws, size_t n,
                                const mcf_vector_moments *r);

/* fermion_abi1.c: the up adapter (an ABI-1 table called with ABI 2's verbs) */
unsigned mcfi_abi1_fermion_provides(const mcf_fermion_ops *ops);
int mcfi_abi1_fermion_spectra(const mcf_fermion_ops *ops, void *const *ws, size_t n,
                              mcf_rng *const *rngs, mcf_spectra *s);

/* fermion_abi1_view.c: the down adapter.  An ABI-1 model that binds an ABI-2 evaluator gets
 * this ABI-1 table instead of the evaluator's: trampolines into e (recorded here: a run has
 * one evaluator) with a batch per workspace. */
const mcf_fermion_ops *mcfi_fermion_abi1_view(const mcf_plugin_info *e);

#endif
