/* mcf/orbital_model.h — a model's side of its orbital evaluator (mcf/orbital.h): bind it
 * once, make workspaces (mcf 0.5).  The orbital counterpart of mcf/fermion_model.h:
 *
 *   create():  mcf_orbital_bind(services, params, "slater-jastrow", MCF_ORBITAL_VALUES,
 *              &c->orbital) — refuses a missing evaluator, one of another kind, or one
 *              without the ops asked for, with a message naming the configuration file, the
 *              evaluator and what it lacks; then mcf_orbital_has(&c->orbital,
 *              MCF_ORBITAL_DETERMINANTS) for optional features, and
 *              mcf_orbital_workspace(&c->orbital, &orbitals, &c->ws) for the chain's
 *              orbitals.
 *
 * The struct_size of the evaluator's vtable is checked here, once (an evaluator built
 * against an older SDK has no determinant ops, or no walker_sweep): a model that asked
 * for a bit, or was told by mcf_orbital_has that the evaluator has it, may call those ops
 * without checking again.  mcf_orbital is a plain struct of this SDK version: a later
 * version that needs more fields adds new functions, never grows it. */
#ifndef MCF_ORBITAL_MODEL_H
#define MCF_ORBITAL_MODEL_H

#include "mcf/api.h"

#include <stddef.h>

#include "mcf/model.h"
#include "mcf/orbital.h"
#include "mcf/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a model needs of its orbital evaluator: the MCF_ORBITAL_* bits of mcf/orbital.h
 * (for an ABI-1 evaluator: VALUES = values and vgl, DETERMINANTS = the nine determinant
 * ops det_create .. det_local, WALKER_SWEEP = walker_sweep; create, destroy and orbitals
 * are always checked). */

#if MCF_WANT_ABI < 2 /* ABI 1 (docs/sdk-1.md): the helpers of mcf 0.5-0.7 */

/* A model's handle on its orbital evaluator (static storage of the plugin; borrowed). */
typedef struct mcf_orbital {
    const mcf_orbital_ops *ops;  /* the evaluator's vtable */
    const char *name;            /* its name, for messages ("blip") */
    const mcf_params *params;    /* its validated [evaluator] values */
    const char *model;           /* the model's name, for messages */
    const char *origin;          /* the configuration file, for messages */
} mcf_orbital;

/* Binds the run's evaluator (services->evaluator) for `model`, checking it is an orbital
 * evaluator with every op in `needs` (MCF_ORBITAL_* bits).  model_params gives the
 * configuration file for messages.  Errors: MCF_EINVAL "<model>: [run] evaluator = <name>
 * in <file> <what is wrong: not an orbital evaluator, or lacks which ops and what for>; set
 * [run] evaluator = planewave (exact) or blip". */
MCF_API int mcf_orbital_bind(const mcf_services *services, const mcf_params *model_params,
                             const char *model, unsigned needs, mcf_orbital *out);

/* 1 when the bound evaluator has every op in `needs`, else 0 (no message): for optional
 * features (determinants on the evaluator only where it keeps them). */
MCF_API int mcf_orbital_has(const mcf_orbital *o, unsigned needs);

/* The evaluator's workspace for the orbitals (borrowed during the call only): ops->create
 * with the [evaluator] values, errors prefixed "<model>: evaluator <name>".  Free it with
 * o->ops->destroy(ws).  *ws is NULL after a failure. */
MCF_API int mcf_orbital_workspace(const mcf_orbital *o, const mcf_pw_orbitals *orbitals, void **ws);
#endif /* MCF_WANT_ABI < 2 */

#if MCF_WANT_ABI >= 2
/* ==== ABI 2 (docs/sdk-1.md) ==============================================================
 *
 * The helpers for a model of ABI 2, by the same names in the source (other symbols:
 * mcf_orbital_bind_v2, ...).  The model never calls the evaluator's table: every verb goes
 * through a function here, which works the same for an evaluator of ABI 1 (the SDK adapts
 * it).  The batched calls take the batch (whose evaluator is the run's: the core sets it)
 * and no handle; their errors are prefixed "<model>: evaluator <name>: <op>". */
#define mcf_orbital mcf_orbital_v2
#define mcf_orbital_bind mcf_orbital_bind_v2
#define mcf_orbital_has mcf_orbital_has_v2
#define mcf_orbital_workspace mcf_orbital_workspace_v2

/* A chain's handle on the run's orbital evaluator (plain data; borrowed pointers). */
typedef struct mcf_orbital {
    const struct mcf_plugin_info *evaluator; /* the evaluator's descriptor (either ABI) */
    const char *name;            /* its name, for messages ("blip") */
    const mcf_params *params;    /* its validated [evaluator] values */
    const char *model;           /* the model's name, for messages */
    const char *origin;          /* the configuration file, for messages */
} mcf_orbital;

/* As ABI 1's: binds services->evaluator, refusing one that lacks a bit of `needs`
 * (MCF_ORBITAL_*), with the same messages; mcf_orbital_has without a message. */
MCF_API int mcf_orbital_bind(const mcf_services *services, const mcf_params *model_params,
                             const char *model, unsigned needs, mcf_orbital *out);
MCF_API int mcf_orbital_has(const mcf_orbital *o, unsigned needs);

/* A workspace (two empty determinants) for the orbitals (borrowed during the call); *ws
 * NULL after a failure.  Freed by mcf_orbital_release (NULL is ignored). */
MCF_API int mcf_orbital_workspace(const mcf_orbital *o, const mcf_pw_orbitals *orbitals,
                                  void **ws);
MCF_API void mcf_orbital_release(const mcf_orbital *o, void *ws);

/* The verbs of mcf_orbital_evaluator (mcf/orbital.h), checked (non-NULL arrays, spin 0 or
 * 1, the bit provided) and passed on. */
MCF_API int mcf_orbital_evaluate(mcf_batch *b, void *const *ws, size_t n,
                                 const double *const *r, const size_t *n_points,
                                 double *const *phi, double *const *grad, double *const *lap);
MCF_API int mcf_orbital_det_set(const mcf_orbital *o, void *ws, int spin, size_t m,
                                const double *r, const double *A, const double *Ainv);
MCF_API int mcf_orbital_det_get(const mcf_orbital *o, void *ws, int spin, double *r,
                                double *A, double *Ainv);
MCF_API int mcf_orbital_det_trial(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                                  const double *const *r_trial);
MCF_API int mcf_orbital_det_ratio(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                                  const size_t *electron, double *ratio);
MCF_API int mcf_orbital_det_accept(mcf_batch *b, void *ws, int spin, size_t electron);
MCF_API int mcf_orbital_det_refresh(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                                    double *drift);
MCF_API int mcf_orbital_det_local(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                                  double *const *grad_ratio, double *const *lap_ratio);
MCF_API int mcf_orbital_walker_sweep(mcf_batch *b, const mcf_walker *w, size_t n,
                                     const mcf_pair_function u[2], const double cell[3],
                                     size_t delay);
#endif /* MCF_WANT_ABI >= 2 */

#ifdef __cplusplus
}
#endif
#endif
