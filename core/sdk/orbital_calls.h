/* orbital_calls.h — the SDK's one way of calling an orbital evaluator of either ABI
 * (docs/sdk-1.md, "ABI 1 keeps working: one adapter"): ABI 2's verbs over a descriptor.
 * An ABI-2 evaluator (mcf_orbital_evaluator) is called as it is; an ABI-1 one
 * (mcf_orbital_ops) through orbital_abi1.c, whose workspace wraps the evaluator's with a
 * determinant handle per spin and makes the calls an ABI-1 model made, in the same order.
 * Private to the SDK library. */
#ifndef MCF_ORBITAL_CALLS_H
#define MCF_ORBITAL_CALLS_H

#include "mcf/model.h"
#include "mcf/abi1_orbital.h"
#include "mcf/orbital.h"
#include "mcf/plugin.h"

/* 1 for an orbital evaluator of ABI 2 */
int mcfi_orbital_is_abi2(const mcf_plugin_info *e);

/* What a call goes to: an ABI-2 table with the batch its ops get, or an ABI-1 table (an
 * ABI-1 evaluator's); the names for messages. */
typedef struct mcfi_orbital_target {
    const mcf_orbital_evaluator *ops2;
    const mcf_orbital_ops *ops1;
    void *app_data;     /* the descriptor's (create of ABI 2) */
    mcf_batch *batch;   /* ABI 2's batch argument */
    const char *model, *name;
} mcfi_orbital_target;

/* the target of evaluator e (either ABI; none for another kind) in batch b */
mcfi_orbital_target mcfi_orbital_target_of(const mcf_plugin_info *e, mcf_batch *b,
                                           const char *model);

/* what t provides: MCF_ORBITAL_* bits whose every op is there (an ABI-1 table: by the ops
 * it has and its struct_size); 0 for a malformed table (no create, destroy, evaluate) */
unsigned mcfi_orbital_provides(const mcfi_orbital_target *t);

/* "lacks <op> (<what for>)" for the first of `needs` that t lacks, or NULL */
const char *mcfi_orbital_missing(const mcfi_orbital_target *t, unsigned needs);

/* ABI 2's verbs on t (no message prefixes: the helpers add them).  For an ABI-1 table the
 * workspace is orbital_abi1.c's wrapper. */
int mcfi_orbital_create(const mcfi_orbital_target *t, const mcf_params *params,
                        const mcf_pw_orbitals *o, void **ws);
void mcfi_orbital_destroy(const mcfi_orbital_target *t, void *ws);
int mcfi_orbital_evaluate(const mcfi_orbital_target *t, void *const *ws, size_t n,
                          const double *const *r, const size_t *n_points, double *const *phi,
                          double *const *grad, double *const *lap);
int mcfi_orbital_det_set(const mcfi_orbital_target *t, void *ws, int spin, size_t m,
                         const double *r, const double *A, const double *Ainv);
int mcfi_orbital_det_get(const mcfi_orbital_target *t, void *ws, int spin, double *r,
                         double *A, double *Ainv);
int mcfi_orbital_det_trial(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                           size_t n, const double *const *r_trial);
int mcfi_orbital_det_ratio(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                           size_t n, const size_t *electron, double *ratio);
int mcfi_orbital_det_accept(const mcfi_orbital_target *t, void *ws, int spin,
                            size_t electron);
int mcfi_orbital_det_refresh(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                             size_t n, double *drift);
int mcfi_orbital_det_local(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                           size_t n, double *const *grad_ratio, double *const *lap_ratio);
int mcfi_orbital_walker_sweep(const mcfi_orbital_target *t, const mcf_walker *w, size_t n,
                              const mcf_pair_function u[2], const double cell[3],
                              size_t delay);
int mcfi_orbital_walker_drift_sweep(const mcfi_orbital_target *t, const mcf_drift_walker *w,
                                    size_t n, const mcf_pair_function u[2],
                                    const double cell[3]);

/* orbital_abi1.c: the up adapter (an ABI-1 table called with ABI 2's verbs) */
unsigned mcfi_abi1_orbital_provides(const mcf_orbital_ops *ops);
int mcfi_abi1_orbital_create(const mcf_orbital_ops *ops, const mcf_params *params,
                             const mcf_pw_orbitals *o, void **ws);
void mcfi_abi1_orbital_destroy(const mcf_orbital_ops *ops, void *ws);
int mcfi_abi1_orbital_evaluate(const mcf_orbital_ops *ops, void *const *ws, size_t n,
                               const double *const *r, const size_t *n_points,
                               double *const *phi, double *const *grad, double *const *lap);
int mcfi_abi1_orbital_det_set(const mcf_orbital_ops *ops, void *ws, int spin, size_t m,
                              const double *r, const double *A, const double *Ainv);
int mcfi_abi1_orbital_det_get(const mcf_orbital_ops *ops, void *ws, int spin, double *r,
                              double *A, double *Ainv);
/* det_trial, det_ratio, det_refresh and det_local: one op over the dets of (ws, spin) */
typedef enum mcfi_abi1_det_op {
    MCFI_DET_TRIAL,
    MCFI_DET_RATIO,
    MCFI_DET_REFRESH,
    MCFI_DET_LOCAL
} mcfi_abi1_det_op;
/* the arguments of the batched op beyond the dets: r_trial (TRIAL), electron and ratio
 * (RATIO), drift (REFRESH), grad_ratio and lap_ratio (LOCAL) */
typedef struct mcfi_abi1_det_args {
    const double *const *r_trial;
    const size_t *electron;
    double *ratio, *drift;
    double *const *grad_ratio, *const *lap_ratio;
} mcfi_abi1_det_args;
int mcfi_abi1_orbital_dets(const mcf_orbital_ops *ops, mcfi_abi1_det_op op,
                           void *const *ws, const int *spin, size_t n,
                           const mcfi_abi1_det_args *a);
int mcfi_abi1_orbital_det_accept(const mcf_orbital_ops *ops, void *ws, int spin,
                                 size_t electron);
int mcfi_abi1_orbital_walker_sweep(const mcf_orbital_ops *ops, const mcf_walker *w, size_t n,
                                   const mcf_pair_function u[2], const double cell[3],
                                   size_t delay);

/* orbital_abi1_view.c: the down adapter.  An ABI-1 model that binds an ABI-2 evaluator gets
 * this ABI-1 table instead of the evaluator's: trampolines into e (recorded here with the
 * model's name: a run has one evaluator) with a batch per workspace. */
const mcf_orbital_ops *mcfi_orbital_abi1_view(const mcf_plugin_info *e, const char *model);

/* orbital_model.c: the binding of services->evaluator (mcf_orbital_bind of either ABI): its
 * descriptor, or NULL with the message of ABI 1's bind */
const mcf_plugin_info *mcfi_om_bind(const mcf_services *s,
                                    const mcf_params *model_params, const char *model,
                                    unsigned needs, const char **origin);

#endif
