/* mcf/batch.h — the context the core hands a model's batched ops.
 *
 * The core steps chains in batches (one batch per thread, or all chains in one batch for a
 * device evaluator, mcf/plugin.h one_batch).  A batched op such as propose
 * (mcf/model.h) gathers the chains' workspaces, changes and temperatures into arrays for
 * one evaluator call; those arrays are per-batch scratch.  The core owns one mcf_batch per
 * batch and passes it to every batched op of that batch, so a model keeps no scratch of
 * its own (and never borrows the first chain of the batch for it).
 *
 * A batch is used by one thread at a time; its scratch is valid until the op returns and
 * its contents are not kept between calls; its keep slots (mcf_batch_keep) last as long as
 * the batch.  mcf/fermion_model.h carves the arrays of a
 * fermion evaluator call from it (mcf_fermion_batch_get). */
#ifndef MCF_BATCH_H
#define MCF_BATCH_H

#include "mcf/api.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_batch mcf_batch;

/* At least `bytes` bytes of scratch, aligned for any type (grown on demand, kept by the
 * core for the next call; contents undefined).  A second call in the same op returns the
 * same memory (grown, its old contents lost): take all scratch of an op in one call.
 * NULL with an MCF_ENOMEM message when out of memory. */
MCF_API void *mcf_batch_scratch(mcf_batch *b, size_t bytes);

/* mcf 0.5: a slot the batch keeps for `owner` across calls, for what a plugin keeps per
 * batch: device buffers, FFT plans, job lists, caches (docs/sdk-1.md).  `owner` is any
 * address the plugin owns (a static variable, its ops table), so the slots of a model and
 * of its evaluator cannot collide.  The first call for an owner returns `bytes` zeroed
 * bytes, aligned for any type, and remembers `release` (may be NULL); later calls return
 * the same memory (the plugin keeps its state there) as long as `bytes` is not larger than
 * the first call's — a larger request is refused with MCF_EINVAL (a slot never moves, so
 * pointers into it stay valid).  When the core destroys the batch (the run's end), it
 * calls release(slot) for every slot, newest first, then frees the slot's memory.  NULL
 * with a message (MCF_ENOMEM, MCF_EINVAL) on failure. */
MCF_API void *mcf_batch_keep(mcf_batch *b, const void *owner, size_t bytes,
                             void (*release)(void *slot));

/* For the core and for tests that call batched ops themselves: a new empty batch (NULL when
 * out of memory) and its release (NULL is ignored). */
MCF_API mcf_batch *mcf_batch_create(void);
MCF_API void mcf_batch_destroy(mcf_batch *b);

/* mcf 0.7: the run's evaluator (its descriptor, borrowed: static storage of the loaded
 * plugin) and the model's name, for messages, which the batched helpers of ABI 2
 * (mcf/fermion_model.h) reach through the batch; the core sets them on every batch it makes,
 * a test on the batches it makes.  evaluator NULL: none. */
struct mcf_plugin_info;
MCF_API void mcf_batch_set_evaluator(mcf_batch *b, const struct mcf_plugin_info *evaluator,
                                     const char *model);
MCF_API const struct mcf_plugin_info *mcf_batch_evaluator(const mcf_batch *b);
MCF_API const char *mcf_batch_model(const mcf_batch *b);

/* mcf 0.8: 1 while `mcf optimize` measures with this batch (a model's measure() then writes
 * the local energy and its derivatives in the variational parameters: mcf/model.h), else
 * 0.  Set by the core. */
MCF_API void mcf_batch_set_variational(mcf_batch *b, int on);
MCF_API int mcf_batch_variational(const mcf_batch *b);

#ifdef __cplusplus
}
#endif
#endif
