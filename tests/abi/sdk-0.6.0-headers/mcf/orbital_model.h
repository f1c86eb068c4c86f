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

/* What a model needs of its orbital evaluator (bits of mcf_orbital_bind's `needs`; create,
 * destroy and orbitals are always checked). */
enum {
    MCF_ORBITAL_VALUES = 1u << 0,       /* values and vgl: orbitals, gradients, Laplacians */
    MCF_ORBITAL_DETERMINANTS = 1u << 1, /* the nine determinant ops, det_create .. det_local
                                           (struct_size >= MCF_ORBITAL_OPS_DET_SIZE) */
    MCF_ORBITAL_WALKER_SWEEP = 1u << 2  /* walker_sweep: whole sweeps where the determinants
                                           are (with the determinant ops) */
};

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

#ifdef __cplusplus
}
#endif
#endif
