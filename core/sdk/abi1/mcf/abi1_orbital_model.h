/* mcf/abi1_orbital_model.h — ABI 1's helpers of an orbital model (mcf 0.5-0.8), private to
 * mcf.
 *
 * Not installed: since mcf 1.0 the public mcf/orbital_model.h declares ABI 2's helpers
 * only, under the same names in the source (other symbols: mcf_orbital_bind_v2, ...).
 * libmcf still exports these, ABI 1's symbols, for the plugins built against mcf 0.5-0.8;
 * the declarations are those of mcf 0.8's public header, moved here verbatim.  A source
 * file that calls them (the SDK's own orbital_model.c; the tests of the ABI-1 path)
 * includes this header before any other mcf header: it selects ABI 1's names
 * (MCF_WANT_ABI 1), which the public headers no longer allow on their own. */
#ifndef MCF_ABI1_ORBITAL_MODEL_H
#define MCF_ABI1_ORBITAL_MODEL_H

/* a user of the private ABI-1 headers may select ABI 1's helper names (mcf/version.h) */
#define MCF_ABI1_PRIVATE 1
#ifndef MCF_WANT_ABI
#define MCF_WANT_ABI 1
#endif
#if MCF_WANT_ABI >= 2
#error "mcf/abi1_orbital_model.h (ABI 1's helpers) goes before any other mcf header"
#endif

#include "mcf/abi1_model.h"
#include "mcf/abi1_orbital.h"
#include "mcf/orbital_model.h"

#ifdef __cplusplus
extern "C" {
#endif

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
