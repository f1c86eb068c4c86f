/* mcf/abi1_fermion_model.h — ABI 1's helpers of a fermion model (mcf 0.1-0.8), private to
 * mcf.
 *
 * Not installed: since mcf 1.0 the public mcf/fermion_model.h declares ABI 2's helpers
 * only, under the same names in the source (other symbols: mcf_fermion_bind_v2, ...).
 * libmcf still exports these, ABI 1's symbols, for the plugins built against mcf 0.1-0.8;
 * the declarations are those of mcf 0.8's public header, moved here verbatim.  A source
 * file that calls them (the SDK's own fermion_model.c; the tests of the ABI-1 path)
 * includes this header before any other mcf header: it selects ABI 1's names
 * (MCF_WANT_ABI 1), which the public headers no longer allow on their own. */
#ifndef MCF_ABI1_FERMION_MODEL_H
#define MCF_ABI1_FERMION_MODEL_H

/* a user of the private ABI-1 headers may select ABI 1's helper names (mcf/version.h) */
#define MCF_ABI1_PRIVATE 1
#ifndef MCF_WANT_ABI
#define MCF_WANT_ABI 1
#endif
#if MCF_WANT_ABI >= 2
#error "mcf/abi1_fermion_model.h (ABI 1's helpers) goes before any other mcf header"
#endif

#include "mcf/abi1_fermion.h"
#include "mcf/abi1_model.h"
#include "mcf/fermion_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ABI 1's need of delta_action (mcf_fermion_bind's `needs`; the bit no ABI-2 need takes) */
enum { MCF_FERMION_DELTA_ACTION = 1u << 5 /* delta_action: the rank <= 2 change of mcf 0.2 */ };

/* A model's handle on its fermion evaluator (static storage of the plugin; borrowed). */
typedef struct mcf_fermion {
    const mcf_fermion_ops *ops;  /* the evaluator's vtable */
    const char *name;            /* its name, for messages ("kpm") */
    const mcf_params *params;    /* its validated [evaluator] values */
    const char *model;           /* the model's name, for messages */
    const char *origin;          /* the configuration file, for messages */
} mcf_fermion;

/* Binds the run's evaluator (services->evaluator) for `model`, checking it is a fermion
 * evaluator with every op in `needs` (MCF_FERMION_* bits; create, destroy are always
 * checked).  model_params gives the configuration file for messages.  Errors: MCF_EINVAL
 * "<model>: [run] evaluator = <name> in <file> <what is wrong>; set [run] evaluator = kpm
 * (or ed for small lattices)". */
MCF_API int mcf_fermion_bind(const mcf_services *services, const mcf_params *model_params,
                             const char *model, unsigned needs, mcf_fermion *out);

/* 1 when the bound evaluator has every op in `needs`, else 0 (no message): for optional
 * features (a DOS curve only when asked for, tempering only when the run exchanges). */
MCF_API int mcf_fermion_has(const mcf_fermion *f, unsigned needs);

/* The evaluator's workspace for h (borrowed: must outlive the workspace): ops->create with
 * the [evaluator] values, errors prefixed "<model>: evaluator <name>".  Free it with
 * f->ops->destroy(ws).  *ws is NULL after a failure. */
MCF_API int mcf_fermion_workspace(const mcf_fermion *f, const mcf_hamiltonian *h, void **ws);

/* The arrays of one batched evaluator call for up to n chains, carved from the batch's
 * scratch (valid until the op returns; uninitialised).  A model fills the inputs it needs
 * per chain and calls one of the functions below. */
typedef struct mcf_fermion_batch {
    void **ws;                    /* inputs: the chains' workspaces */
    mcf_rng **rngs;               /*   their measurement streams (stochastic evaluators) */
    const mcf_change **changes;   /*   their proposed changes */
    double *T, *mu;               /*   their temperatures and chemical potentials */
    double *dS, *err;             /* outputs of mcf_fermion_change_action */
    double *density, *energy;     /* outputs of mcf_fermion_occupation */
    size_t *index;                /* n entries free for the model (e.g. which chain) */
} mcf_fermion_batch;

/* Carves the arrays for n chains from b.  MCF_ENOMEM with a message. */
MCF_API int mcf_fermion_batch_get(mcf_batch *b, size_t n, mcf_fermion_batch *out);

/* dS[k] = S_eff(H_k + changes[k]) - S_eff(H_k) and its truncation bound err[k] for k < n,
 * from ws, changes, T, mu: one change_action call.  Errors prefixed "<model>: evaluator
 * <name>: change_action". */
MCF_API int mcf_fermion_change_action(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n);

/* density[k] and energy[k] (per state) for k < n from ws, rngs, T, mu: one occupation call
 * per distinct (mu, T), in order of first appearance (results do not depend on the
 * grouping).  Refuses a non-finite result (MCF_EPLUGIN).  Uses a->index as scratch. */
MCF_API int mcf_fermion_occupation(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n);

/* The same as mcf_fermion_occupation (a->density, a->energy: the same bits, the same draws)
 * and, from the same trace, their temperature derivatives at fixed mu per state into
 * ddensity[k] and denergy[k] (n doubles each, the model's; a->dS and a->err, the outputs of
 * change_action, are free during a measurement and may be passed; mcf/fermion.h,
 * occupation_dT): one occupation_dT call per distinct (mu, T).  Needs
 * MCF_FERMION_OCCUPATION_DT (bind with it, or ask mcf_fermion_has).  A model whose weight
 * is exp(-S_eff) of its fermions turns them into its ENERGY_DT and ACTION_DT observables
 * (mcf/model.h), and the core into the specific heat:
 *     de/dT = denergy,   dS_eff/dT = -(energy - mu density) / T^2   (per state).
 * Errors as mcf_fermion_occupation, prefixed "<model>: evaluator <name>: occupation_dT". */
MCF_API int mcf_fermion_occupation_dT(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n,
                                      double *ddensity, double *denergy);

/* mcf_fermion_batch_get, and h's arrays for n chains from the same scratch (valid until the
 * op returns).  MCF_ENOMEM with a message. */
MCF_API int mcf_fermion_heat_get(mcf_batch *b, size_t n, mcf_fermion_batch *a, mcf_fermion_heat *h);

/* mcf_fermion_occupation_dT into a->density, a->energy, h->ddensity, h->denergy (the same
 * bits and draws), then — when the evaluator drew random numbers for it (a stochastic trace:
 * a chain's stream moved) — occupation() again from the streams where they now stand (fresh
 * vectors, independent of the first) into h->density2, h->energy2; otherwise (an exact
 * trace: nothing to be independent of) copies of a->density and a->energy, at no cost.  A
 * stochastic trace costs one more occupation() per measurement.  Needs
 * MCF_FERMION_OCCUPATION_DT (which provides plain occupation too: bind with that bit alone).
 * Errors as mcf_fermion_occupation_dT. */
MCF_API int mcf_fermion_occupation_heat(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n,
                                        const mcf_fermion_heat *h);

/* The three moment curves (mcf/fermion_model.h, "Chebyshev moments in the results") as ABI
 * 1's mcf_observable_spec entries. */
#define MCF_FERMION_MOMENT_CURVES                                                          \
    {"dos_moments", MCF_ROLE_NONE, MCF_FERMION_DOS_MOMENTS_DOC_, "n", MCF_OBS_MOMENTS},     \
    {"dos_moments_var", MCF_ROLE_NONE, MCF_FERMION_DOS_MOMENTS_VAR_DOC_, "n", 0},          \
    {"moment_scale", MCF_ROLE_NONE, MCF_FERMION_MOMENT_SCALE_DOC_, "k",                    \
     MCF_OBS_MOMENT_SCALE}


/* curve_points() of curve q of MCF_FERMION_MOMENT_CURVES (0 dos_moments, 1 dos_moments_var,
 * 2 moment_scale) for a chain whose workspace is ws: M, M and 2 points (axis values n =
 * 0..M-1, and k = 0, 1, into axis when it is not NULL), or 0 when the bound evaluator has no
 * MCF_FERMION_MOMENTS (the curves are then not measured) or q > 2. */
MCF_API size_t mcf_fermion_moment_points(const mcf_fermion *f, const void *ws, size_t q,
                                          double *axis);

/* The DOS of n chains (a->ws, a->rngs) into dos[k] (the grid's energy_points() values).
 * When the evaluator has MCF_FERMION_MOMENTS, one dos_moments call: the same DOS, and from
 * the same trace the curves of MCF_FERMION_MOMENT_CURVES into moments[k] (M moments, M
 * variances, a and b: the chain's values of the three curves, declared together);
 * otherwise one dos() call, and moments (which may then be NULL) is not touched.  Refuses a
 * non-finite moment, scale or variance (MCF_EPLUGIN, naming chain k of the batch; the
 * variance of a single vector is NaN by definition and passes); the DOS is the model's to
 * check.  Errors
 * prefixed "<model>: evaluator <name>: dos". */
MCF_API int mcf_fermion_dos_moments(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n,
                                    double *const *dos, double *const *moments);

#ifdef __cplusplus
}
#endif
#endif
