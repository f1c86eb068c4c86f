/* mcf/orbital_model.h — a model's side of its orbital evaluator (mcf/orbital.h): bind it
 * once, make workspaces, and call the evaluator's verbs (ABI 2).  The orbital counterpart of
 * mcf/fermion_model.h:
 *
 *   create():  mcf_orbital_bind(services, params, "slater-jastrow", MCF_ORBITAL_VALUES,
 *              &c->orbital) — refuses a missing evaluator, one of another kind, or one
 *              without the bits asked for, with a message naming the configuration file,
 *              the evaluator and what it lacks; then mcf_orbital_has(&c->orbital,
 *              MCF_ORBITAL_DETERMINANTS) for optional features, and
 *              mcf_orbital_workspace(&c->orbital, &orbitals, &c->ws) for the chain's
 *              orbitals (mcf_orbital_release in destroy()).
 *   the sweep and measure(): mcf_orbital_evaluate, mcf_orbital_det_* and
 *              mcf_orbital_walker_sweep with the core's batch.
 *
 * What the evaluator provides is checked here, once: a model that asked for a bit, or was
 * told by mcf_orbital_has that the evaluator has it, may call its verbs without checking
 * again.  The model never calls the evaluator's table: every verb goes through a function
 * here, which works the same for an evaluator built for ABI 1 (the SDK adapts it).
 * mcf_orbital is a plain struct of this SDK version: a later version that needs more fields
 * adds new functions, never grows it.
 *
 * The helpers of ABI 1 (mcf 0.5-0.8) had the same names in the source; the ones declared
 * here are other symbols (mcf_orbital_bind_v2, ...: the #defines below), so a plugin built
 * against ABI 1 keeps the helpers it was built with. */
#ifndef MCF_ORBITAL_MODEL_H
#define MCF_ORBITAL_MODEL_H

#include "mcf/api.h"
#include "mcf/version.h"

#include <stddef.h>

#include "mcf/batch.h"
#include "mcf/model.h"
#include "mcf/orbital.h"
#include "mcf/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a model needs of its orbital evaluator: the MCF_ORBITAL_* bits of mcf/orbital.h.
 * Not declared for a file of the SDK that implements ABI 1's helpers (MCF_WANT_ABI 1, which
 * only the private headers of mcf allow: mcf/version.h). */
#if MCF_WANT_ABI >= 2
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

/* Binds the run's evaluator (services->evaluator) for `model`, checking it is an orbital
 * evaluator that provides every bit of `needs` (MCF_ORBITAL_*).  model_params gives the
 * configuration file for messages.  Errors: MCF_EINVAL "<model>: [run] evaluator = <name>
 * in <file> <what is wrong: not an orbital evaluator, or lacks which ops and what for>; set
 * [run] evaluator = planewave (exact) or blip".  mcf_orbital_has: 1 when the bound
 * evaluator provides every bit of `needs`, else 0 (no message), for optional features. */
MCF_API int mcf_orbital_bind(const mcf_services *services, const mcf_params *model_params,
                             const char *model, unsigned needs, mcf_orbital *out);
MCF_API int mcf_orbital_has(const mcf_orbital *o, unsigned needs);

/* A workspace (two empty determinants) for the orbitals (borrowed during the call); *ws
 * NULL after a failure.  Freed by mcf_orbital_release (NULL is ignored). */
MCF_API int mcf_orbital_workspace(const mcf_orbital *o, const mcf_pw_orbitals *orbitals,
                                  void **ws);
MCF_API void mcf_orbital_release(const mcf_orbital *o, void *ws);

/* The verbs of mcf_orbital_evaluator (mcf/orbital.h, where their meaning is), checked
 * (non-NULL arrays, spin 0 or 1, the bit provided) and passed on; the batched ones go to
 * the batch's evaluator (the run's: the core sets it), errors prefixed "<model>: evaluator
 * <name>: <op>". */
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
/* mcf 1.2: a drift-diffusion sweep (mcf/orbital.h's walker_drift_sweep); the evaluator must
 * provide MCF_ORBITAL_DRIFT_SWEEP (mcf_orbital_has). */
MCF_API int mcf_orbital_walker_drift_sweep(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                                           const mcf_pair_function u[2],
                                           const double cell[3]);
#endif /* MCF_WANT_ABI >= 2 */

#ifdef __cplusplus
}
#endif
#endif
