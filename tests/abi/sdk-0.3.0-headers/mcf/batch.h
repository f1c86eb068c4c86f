/* mcf/batch.h — the context the core hands a model's batched ops.
 *
 * The core steps chains in batches (one batch per thread, or all chains in one batch for a
 * device evaluator, mcf/plugin.h one_batch).  A batched op such as batch_log_ratio
 * (mcf/model.h) gathers the chains' workspaces, changes and temperatures into arrays for
 * one evaluator call; those arrays are per-batch scratch.  The core owns one mcf_batch per
 * batch and passes it to every batched op of that batch, so a model keeps no scratch of
 * its own (and never borrows the first chain of the batch for it).
 *
 * A batch is used by one thread at a time; its scratch is valid until the op returns and
 * its contents are not kept between calls.  mcf/fermion_model.h carves the arrays of a
 * fermion evaluator call from it (mcf_fermion_batch_get). */
#ifndef MCF_BATCH_H
#define MCF_BATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_batch mcf_batch;

/* At least `bytes` bytes of scratch, aligned for any type (grown on demand, kept by the
 * core for the next call; contents undefined).  A second call in the same op returns the
 * same memory (grown, its old contents lost): take all scratch of an op in one call.
 * NULL with an MCF_ENOMEM message when out of memory. */
void *mcf_batch_scratch(mcf_batch *b, size_t bytes);

/* For the core and for tests that call batched ops themselves: a new empty batch (NULL when
 * out of memory) and its release (NULL is ignored). */
mcf_batch *mcf_batch_create(void);
void mcf_batch_destroy(mcf_batch *b);

#ifdef __cplusplus
}
#endif
#endif
