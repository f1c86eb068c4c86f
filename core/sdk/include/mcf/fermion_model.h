/* mcf/fermion_model.h — a fermion model's side of its evaluator: bind it once, make
 * workspaces, and call the evaluator's verbs for a whole batch with arrays from the core's
 * batch scratch (ABI 2; mcf/fermion.h).
 *
 * What every lattice-fermion model repeats, once:
 *
 *   create():  mcf_fermion_bind(services, params, "holstein", MCF_FERMION_CHANGE_ACTION |
 *              MCF_FERMION_OCCUPATION, &c->fermion) — refuses a missing evaluator, one of
 *              another kind, or one without the verbs asked for, with a message naming the
 *              configuration file and the fix; then mcf_fermion_workspace(&c->fermion, h,
 *              &c->ws) for the chain's Hamiltonian (mcf_fermion_release in destroy()).
 *   propose(): mcf_fermion_batch_get(b, n, &a), fill a.ws[k], a.changes[k], a.T[k],
 *              a.mu[k] per chain, mcf_fermion_change_action(&a, n): dS in a.dS,
 *              truncation bounds in a.err.
 *   measure(): fill a.ws, a.rngs, a.T, a.mu; mcf_fermion_occupation(&a, n): density and
 *              band energy per state in a.density, a.energy, whatever (mu, T) each chain has
 *              (mcf_fermion_occupation_dT: also their temperature derivatives, for C).
 *
 * The batched calls take no handle: the core's batch knows the run's evaluator.  The
 * evaluator never learns which model asked; the model never learns which hardware answered,
 * nor which ABI the evaluator has (one built for ABI 1 is adapted by the SDK).
 * mcf_fermion and mcf_fermion_batch are plain structs of this SDK version: a later version
 * that needs more fields adds new functions, never grows these.
 *
 * The helpers of ABI 1 (mcf 0.1-0.8) had the same names in the source; the ones declared
 * here are other symbols (mcf_fermion_bind_v2, ...: the #defines below), so a plugin built
 * against ABI 1 keeps the helpers it was built with. */
#ifndef MCF_FERMION_MODEL_H
#define MCF_FERMION_MODEL_H

#include "mcf/api.h"
#include "mcf/version.h"

#include <stddef.h>

#include "mcf/batch.h"
#include "mcf/change.h"
#include "mcf/fermion.h"
#include "mcf/hamiltonian.h"
#include "mcf/model.h"
#include "mcf/params.h"
#include "mcf/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a model needs of its evaluator (bits of mcf_fermion_bind's `needs`: the same values
 * as the MCF_PROVIDES_* bits of mcf/fermion.h). */
enum {
    MCF_FERMION_CHANGE_ACTION = 1u << 0, /* change_action: dS of any finite-rank change */
    MCF_FERMION_OCCUPATION = 1u << 1,    /* occupation: density and band energy */
    MCF_FERMION_DOS = 1u << 2,           /* spectra: the energy grid and the DOS */
    MCF_FERMION_LDOS = 1u << 3,          /* spectra: the energy grid and the LDOS */
    MCF_FERMION_GREEN = 1u << 4,         /* spectra: the energy grid and G_rr */
    /* 1u << 5: ABI 1's delta_action (the rank <= 2 change of mcf 0.2), none in ABI 2 */
    MCF_FERMION_ACTION = 1u << 6,        /* action: S_eff itself (parallel tempering) */
    MCF_FERMION_MOMENTS = 1u << 7,       /* spectra's Chebyshev moments and reconstruct:
                                            the moments in the results */
    MCF_FERMION_OCCUPATION_DT = 1u << 8, /* occupation's d(density)/dT and d(energy)/dT,
                                            for the specific heat (mcf 0.3) */
    MCF_FERMION_DENSITY_MATRIX = 1u << 9, /* density_matrix: f(H) on H's nonzero elements,
                                            the forces of a global sampler (mcf 1.1) */
    MCF_FERMION_PSEUDOFERMION = 1u << 10, /* pseudofermion: the exact weight of hybrid
                                            Monte Carlo and its forces (mcf 1.1) */
    MCF_FERMION_RESPONSE = 1u << 11,     /* response: two-dimensional Chebyshev moments of
                                            two operators, for conductivities (mcf 1.2) */
    MCF_FERMION_VECTOR_MOMENTS = 1u << 12 /* vector_moments: Chebyshev moments of given
                                            vectors, for spectral functions (mcf 1.2) */
};

/* mcf 0.7: what evaluator e (a fermion evaluator's descriptor, either ABI) provides:
 * MCF_PROVIDES_* bits (mcf/fermion.h), 0 for anything else.  For the core and tools. */
MCF_API unsigned mcf_fermion_provides(const struct mcf_plugin_info *e);

/* mcf 0.7: the densities of moments measured with evaluator e (its reconstruct op, either
 * ABI; mcf/fermion.h), for `mcf dos`.  MCF_EINVAL when e has no MCF_PROVIDES_MOMENTS. */
MCF_API int mcf_fermion_reconstruct(const struct mcf_plugin_info *e, const mcf_params *params,
                                    const char *kernel, size_t M, size_t sets,
                                    const double *mu, double a, double b, size_t points,
                                    const double *E, double *grid, double *out);

/* ---- The specific heat without shared noise (mcf 0.4) -----------------------------------
 *
 * The core's specific heat of a weight exp(-S_eff) multiplies the ENERGY and ACTION_DT
 * observables of each measurement (<e s_T>, mcf/model.h).  Taken from one stochastic trace
 * (R random vectors), both carry that trace's noise, and the product's mean carries their
 * covariance: a bias of C of order 1/R that no number of sweeps removes and no lattice size
 * shrinks (2-5x the true C with kpm's 8 vectors on small clusters).  These two functions
 * give a model the density and energy twice, from two independent traces:
 *
 *     mcf_fermion_heat h;
 *     mcf_fermion_heat_get(b, n, &a, &h);        instead of mcf_fermion_batch_get
 *     ... fill a.ws, a.rngs, a.T, a.mu ...
 *     mcf_fermion_occupation_heat(&a, n, &h);
 *     ENERGY, density and ENERGY_DT from a.energy, a.density, h.denergy (the first trace);
 *     ACTION_DT = -(h.energy2 - mu h.density2) / T^2 (per state; the second trace), and
 *     ACTION_DT declared in another noise set than ENERGY (MCF_OBS_NOISE(2) and (1)).
 *
 * A fermion model's other products are its own: a measured square of a stochastic estimate
 * has the same bias. */
typedef struct mcf_fermion_heat {
    double *ddensity, *denergy; /* outputs: d(density)/dT and d(energy)/dT per state, from the
                                   trace of a->density and a->energy */
    double *density2, *energy2; /* outputs: density and energy per state from a second trace,
                                   independent of the first */
    mcf_rng *before;            /* scratch: the streams before the first trace */
} mcf_fermion_heat;

/* ---- Chebyshev moments in the results (issue 18) ---------------------------------------
 *
 * A model that measures a DOS curve adds its moments in a few lines, so that `mcf dos DIR`
 * can reconstruct the DOS later with another kernel or grid, with a jackknife error band:
 *
 *   observables[]:  ..., {"dos", ..., "E", 0, ...}, MCF_FERMION_MOMENT_OBSERVABLES, ...
 *   layout():       for the three curves q = index - (index of "dos_moments"):
 *                   points[index] = mcf_fermion_moment_points(&c->ev, c->ws, q, axis);
 *   measure():      mcf_fermion_dos_moments(&a, n, dos, moments) instead of the bare DOS,
 *                   moments[k] = values[k] + the offset of dos_moments.
 *
 * With an evaluator that has no moments (ed) the three curves have 0 points: not measured,
 * no file written (mcf/model.h, mcf_layout).  The moments refer to the scaling (a, b) of
 * the chain's Hamiltonian; averaging them over measurements makes sense only when (a, b)
 * stays put, i.e. with fixed spectral bounds (mcf_hamiltonian_fix_bounds): `mcf dos`
 * refuses a run whose moment_scale changed between measurements. */
#define MCF_FERMION_MOMENT_OBSERVABLES                                                     \
    {"dos_moments", MCF_ROLE_NONE, MCF_FERMION_DOS_MOMENTS_DOC_, "n", MCF_OBS_MOMENTS,      \
     NULL, NULL, NULL, NULL},                                                              \
    {"dos_moments_var", MCF_ROLE_NONE, MCF_FERMION_DOS_MOMENTS_VAR_DOC_, "n", 0, NULL,     \
     NULL, NULL, NULL},                                                                    \
    {"moment_scale", MCF_ROLE_NONE, MCF_FERMION_MOMENT_SCALE_DOC_, "k",                    \
     MCF_OBS_MOMENT_SCALE, NULL, NULL, NULL, NULL}

/* their docs (written into the curve files) */
#define MCF_FERMION_DOS_MOMENTS_DOC_                                                       \
    "Chebyshev moments mu_n = Tr T_n((H - b) / a) / dim of the DOS, no kernel (mcf dos "   \
    "reconstructs the DOS from them)"
#define MCF_FERMION_DOS_MOMENTS_VAR_DOC_                                                   \
    "per-vector variance of the stochastic trace's moments: one measurement's mu_n has "   \
    "the error sqrt(var / vectors); 0 for an exact trace"
#define MCF_FERMION_MOMENT_SCALE_DOC_                                                      \
    "the scaling E = a x + b of the moments: a (k = 0) and b (k = 1), energy"

/* ---- The helpers ------------------------------------------------------------------------
 *
 * Not declared for a file of the SDK that implements ABI 1's helpers (MCF_WANT_ABI 1, which
 * only the private headers of mcf allow: mcf/version.h). */
#if MCF_WANT_ABI >= 2
#define mcf_fermion mcf_fermion_v2
#define mcf_fermion_bind mcf_fermion_bind_v2
#define mcf_fermion_has mcf_fermion_has_v2
#define mcf_fermion_workspace mcf_fermion_workspace_v2
#define mcf_fermion_batch mcf_fermion_batch_v2
#define mcf_fermion_batch_get mcf_fermion_batch_get_v2
#define mcf_fermion_change_action mcf_fermion_change_action_v2
#define mcf_fermion_occupation mcf_fermion_occupation_v2
#define mcf_fermion_occupation_dT mcf_fermion_occupation_dT_v2
#define mcf_fermion_heat_get mcf_fermion_heat_get_v2
#define mcf_fermion_occupation_heat mcf_fermion_occupation_heat_v2
#define mcf_fermion_moment_points mcf_fermion_moment_points_v2
#define mcf_fermion_dos_moments mcf_fermion_dos_moments_v2

/* A chain's handle on the run's evaluator (plain data; borrowed pointers). */
typedef struct mcf_fermion {
    const struct mcf_plugin_info *evaluator; /* the evaluator's descriptor (either ABI) */
    const char *name;            /* its name, for messages ("kpm") */
    const mcf_params *params;    /* this chain's validated [evaluator] values */
    const char *model;           /* the model's name, for messages */
    const char *origin;          /* the configuration file, for messages */
} mcf_fermion;

/* Binds the run's evaluator (services->evaluator) for `model`, checking it is a fermion
 * evaluator that provides every bit of `needs` (MCF_FERMION_*).  model_params gives the
 * configuration file for messages.  Errors: MCF_EINVAL "<model>: [run] evaluator = <name>
 * in <file> <what is wrong>; set [run] evaluator = kpm (or ed for small lattices)". */
MCF_API int mcf_fermion_bind(const mcf_services *services, const mcf_params *model_params,
                             const char *model, unsigned needs, mcf_fermion *out);

/* 1 when the bound evaluator provides every bit of `needs`, else 0 (no message): for
 * optional features (a DOS curve only when asked for, tempering only when the run
 * exchanges). */
MCF_API int mcf_fermion_has(const mcf_fermion *f, unsigned needs);

/* The evaluator's workspace for h (borrowed: must outlive the workspace; the model changes
 * h only between calls), with the [evaluator] values; errors prefixed "<model>: evaluator
 * <name>".  *ws is NULL after a failure.  Freed by mcf_fermion_release (NULL is ignored). */
MCF_API int mcf_fermion_workspace(const mcf_fermion *f, const mcf_hamiltonian *h, void **ws);
MCF_API void mcf_fermion_release(const mcf_fermion *f, void *ws);

/* The energy grid of ws: its number of points, and the energies (ascending; h's bounds
 * now) into E when E is not NULL.  0 with a message when the evaluator has no grid (no
 * MCF_FERMION_DOS, LDOS or GREEN) or fails. */
MCF_API size_t mcf_fermion_grid(const mcf_fermion *f, void *ws, double *E);

/* The arrays of one batched call for up to n chains, carved from the batch's scratch
 * (valid until the model's op returns; uninitialised), and the batch they came from.  A
 * model fills the inputs it needs per chain and calls one of the functions below. */
typedef struct mcf_fermion_batch {
    void **ws;                    /* inputs: the chains' workspaces */
    mcf_rng **rngs;               /*   their measurement streams (stochastic evaluators) */
    const mcf_change **changes;   /*   their proposed changes */
    double *T, *mu;               /*   their temperatures and chemical potentials */
    double *dS, *err;             /* outputs of mcf_fermion_change_action */
    double *density, *energy;     /* outputs of mcf_fermion_occupation */
    size_t *index;                /* n entries free for the model (e.g. which chain) */
    mcf_batch *batch;             /* the batch (set by mcf_fermion_batch_get) */
} mcf_fermion_batch;

/* Carves the arrays for n chains from b.  MCF_ENOMEM with a message. */
MCF_API int mcf_fermion_batch_get(mcf_batch *b, size_t n, mcf_fermion_batch *out);

/* The batched helpers call the batch's evaluator (the core sets it: mcf_batch_set_evaluator)
 * with the inputs of a; errors are prefixed "<model>: evaluator <name>: <op>".
 *
 * change_action: dS[k] = S_eff(H_k + changes[k]) - S_eff(H_k) and its truncation bound
 * err[k] for k < n from ws, changes, T, mu (mcf/fermion.h): one call. */
MCF_API int mcf_fermion_change_action(const mcf_fermion_batch *a, size_t n);

/* density[k] and energy[k] (per state) for k < n from ws, rngs, T, mu: one occupation call
 * per distinct (mu, T), in order of first appearance (results do not depend on the
 * grouping).  Refuses a non-finite result (MCF_EPLUGIN).  Uses a->index as scratch. */
MCF_API int mcf_fermion_occupation(const mcf_fermion_batch *a, size_t n);

/* The same (a->density, a->energy: the same bits, the same draws) and, from the same trace,
 * their temperature derivatives at fixed mu per state into ddensity[k] and denergy[k] (n
 * doubles each, the model's; a->dS and a->err are free during a measurement and may be
 * passed).  Needs MCF_FERMION_OCCUPATION_DT.  A model whose weight is exp(-S_eff) of its
 * fermions turns them into its ENERGY_DT and ACTION_DT observables (mcf/model.h):
 *     de/dT = denergy,   dS_eff/dT = -(energy - mu density) / T^2   (per state). */
MCF_API int mcf_fermion_occupation_dT(const mcf_fermion_batch *a, size_t n, double *ddensity,
                                      double *denergy);

/* mcf_fermion_batch_get, and h's arrays for n chains from the same scratch (valid until the
 * op returns).  MCF_ENOMEM with a message. */
MCF_API int mcf_fermion_heat_get(mcf_batch *b, size_t n, mcf_fermion_batch *a,
                                 mcf_fermion_heat *h);

/* mcf_fermion_occupation_dT into a->density, a->energy, h->ddensity, h->denergy (the same
 * bits and draws), then — when the evaluator drew random numbers for it (a stochastic trace:
 * a chain's stream moved) — the occupation again from the streams where they now stand
 * (fresh vectors, independent of the first) into h->density2, h->energy2; otherwise (an
 * exact trace) copies of a->density and a->energy, at no cost.  Needs
 * MCF_FERMION_OCCUPATION_DT (bind with that bit alone: it provides the occupation too). */
MCF_API int mcf_fermion_occupation_heat(const mcf_fermion_batch *a, size_t n,
                                        const mcf_fermion_heat *h);

/* The points of curve q of MCF_FERMION_MOMENT_OBSERVABLES (0 dos_moments, 1
 * dos_moments_var, 2 moment_scale) for a chain whose workspace is ws: M, M and 2 (axis
 * values n = 0..M-1, and k = 0, 1, into axis when it is not NULL), or 0 when the bound
 * evaluator has no MCF_FERMION_MOMENTS (the curves are then not measured) or q > 2. */
MCF_API size_t mcf_fermion_moment_points(const mcf_fermion *f, const void *ws, size_t q,
                                          double *axis);

/* The DOS of n chains (a->ws, a->rngs) into dos[k] (the grid's points).  When the evaluator
 * has MCF_FERMION_MOMENTS, from the same trace the curves of MCF_FERMION_MOMENT_OBSERVABLES
 * into moments[k] (M moments, M variances, a and b: the chain's values of the three
 * curves, declared together); otherwise moments (which may then be NULL) is not touched.
 * Refuses a non-finite moment, scale or variance (MCF_EPLUGIN, naming chain k of the batch;
 * the variance of a single vector is NaN by definition and passes); the DOS is the model's
 * to check. */
MCF_API int mcf_fermion_dos_moments(const mcf_fermion_batch *a, size_t n, double *const *dos,
                                    double *const *moments);

/* S[k m + p] = S_eff(H_k) at T[k m + p], mu[k m + p] for a->ws[0..n), m points each, and
 * the truncation bounds into err (may be NULL): the evaluator's action (mcf/fermion.h).
 * Needs MCF_FERMION_ACTION. */
MCF_API int mcf_fermion_action(const mcf_fermion_batch *a, size_t n, size_t m,
                               const double *T, const double *mu, double *S, double *err);

/* The curves of *s (mcf/fermion.h, mcf_spectra) for a->ws[0..n), a->rngs (for dos and
 * dos_moments): one spectra call, after checking that the evaluator provides every curve
 * asked for (MCF_EINVAL naming it) and, when the evaluator has moments, that the moments
 * and scales returned are finite (MCF_EPLUGIN). */
MCF_API int mcf_fermion_spectra(const mcf_fermion_batch *a, size_t n, mcf_spectra *s);

/* ---- Forces: the density matrix (mcf 1.1) ------------------------------------------------
 *
 * A sampler that moves the whole classical field at once (molecular dynamics, Langevin)
 * needs dS_eff/dx for every coordinate x of the field: by the chain rule from dOmega/dH,
 * the density matrix rho = f(H) on the nonzero elements of H (mcf/fermion.h,
 * mcf_density_matrix).  Bind with MCF_FERMION_DENSITY_MATRIX. */

/* The density matrix of n chains from a->ws, a->rngs, a->T, a->mu into out's arrays (per
 * chain, the model's; out->truncation, when not NULL, has n values): one call.  The
 * evaluator refuses a non-finite estimate (MCF_EPLUGIN); this helper a truncation bound
 * that is not a number >= 0. */
MCF_API int mcf_fermion_density_matrix(const mcf_fermion_batch *a, size_t n,
                                       const mcf_density_matrix *out);

/* mcf 1.2: the two-dimensional moments of n chains (mcf/fermion.h, mcf_response) from a->ws,
 * a->rngs (a stochastic trace's vectors): one call, r's arrays the caller's.  Bind with
 * MCF_FERMION_RESPONSE.  Errors, prefixed "<model>: evaluator <name>: response": the
 * evaluator's; MCF_EPLUGIN for a moment, error or scale it returned that is not finite. */
MCF_API int mcf_fermion_response(const mcf_fermion_batch *a, size_t n, const mcf_response *r);

/* mcf 1.2: a model's two curves of conductivity moments (MCF_OBS_RESPONSE_MOMENTS, mcf/model.h)
 * for n chains from a->ws, a->rngs: sigma_xx's moments of (jx[k], jx[k]) into xx[k] and
 * sigma_xy's of (jx[k], jy[k]) into xy[k], each MCF_RESPONSE_POINTS(M) values laid out as
 * mcf/model.h says, with the scaling the evaluator used and tail[k][0..3) (the chain's
 * spectral bounds emin, emax and its states per volume).  All arrays are the caller's
 * (borrowed); the helper keeps nothing.  Errors as mcf_fermion_response, prefixed with the
 * curve ("sigma_xx moments"); MCF_ENOMEM. */
MCF_API int mcf_fermion_response_curves(const mcf_fermion_batch *a, size_t n, size_t M,
                                        const mcf_hamiltonian *const *jx,
                                        const mcf_hamiltonian *const *jy, double *const *xx,
                                        double *const *xy, const double *const *tail);

/* mcf 1.2: the Chebyshev moments of given vectors for n chains (mcf/fermion.h,
 * mcf_vector_moments) from a->ws: one call, r's arrays the caller's.  Bind with
 * MCF_FERMION_VECTOR_MOMENTS.  Errors, prefixed "<model>: evaluator <name>: vector_moments":
 * the evaluator's; MCF_EPLUGIN for a moment or scale that is not finite. */
MCF_API int mcf_fermion_vector_moments(const mcf_fermion_batch *a, size_t n,
                                       const mcf_vector_moments *r);

/* mcf 1.2: a model's curve of spectral moments (MCF_OBS_SPECTRAL_MOMENTS, mcf/model.h) for n
 * chains from a->ws: v[k] holds path->points x per_k Bloch vectors of chain k (per wave
 * vector K_j the per_k vectors j per_k .. j per_k + per_k - 1: the spins, orbitals or frames
 * whose moments are summed, mcf_bloch_vector), out[k] receives MCF_SPECTRAL_POINTS(nk, M)
 * values as mcf/response.h lays them out, with the evaluator's scaling.  All arrays are the
 * caller's; the helper keeps nothing.  Errors as mcf_fermion_vector_moments, prefixed
 * "spectral moments"; MCF_EINVAL for M < 1, per_k < 1 or an empty path; MCF_ENOMEM. */
struct mcf_kpath;
MCF_API int mcf_fermion_spectral_curves(const mcf_fermion_batch *a, size_t n, size_t M,
                                        const struct mcf_kpath *path, size_t per_k,
                                        const double *const *v, double *const *out);

/* The pseudofermion form of n chains' weights (mcf/fermion.h, mcf_pseudofermion: draw or
 * action, with the gradient when p->grad is set) from a->ws, a->rngs (draw), a->T, a->mu:
 * one call.  p->flavours comes back set; p's arrays are the caller's (borrowed).  Bind with
 * MCF_FERMION_PSEUDOFERMION.  Errors, prefixed "<model>: evaluator <name>: pseudofermion":
 * MCF_EINVAL (free spectral bounds, T <= 0, mu not finite, workspaces needing different
 * flavours in one call, a NULL array), MCF_ENOMEM; MCF_EINTERNAL when bound without the bit. */
MCF_API int mcf_fermion_pseudofermion(const mcf_fermion_batch *a, size_t n,
                                      mcf_pseudofermion *p);

/* A fermion model under hybrid Monte Carlo ([run] sampler = hmc; mcf/model.h's
 * global_action): one of these per chain, zeroed at create, released at destroy
 * (mcf_fermion_hmc_release frees its arrays and zeroes it; NULL is ignored); it keeps the
 * chain's pseudofermions and the gradient of their action on the table, owned by it and
 * grown by mcf_fermion_hmc_action. */
typedef struct mcf_fermion_hmc {
    double *phi;   /* 2 flavours dim: the real parts, then the imaginary ones */
    double *grad;  /* dim + 2 slots: dS_pf/dH on the table as mcf_density_matrix writes it:
                      diag = grad, bond_re = grad + dim, bond_im = grad + dim + slots */
    size_t flavours, dim, slots;
} mcf_fermion_hmc;
MCF_API void mcf_fermion_hmc_release(mcf_fermion_hmc *pf);

/* global_action's fermion part for n chains (a->ws, a->T, a->mu filled by the model, a->rngs
 * with MCF_ACTION_REFRESH; h[k] each chain's Hamiltonian): with MCF_ACTION_REFRESH the
 * pseudofermions are drawn first, then S[k] = S_pf (mcf/fermion.h) and, with
 * MCF_ACTION_GRADIENT, its gradient on the table into pf[k]->grad for the model's chain rule
 * (mcf_hamiltonian_factors_gradient, mcf_density_matrix_force, or the model's own).  One
 * evaluator call per number of flavours among the chains.  Needs MCF_FERMION_PSEUDOFERMION
 * and fixed spectral bounds.  a's input arrays are restored on return (they are refilled
 * group by group).  Errors: mcf_fermion_pseudofermion's, MCF_ENOMEM naming the model. */
MCF_API int mcf_fermion_hmc_action(const mcf_fermion_batch *a, size_t n,
                                   mcf_fermion_hmc *const *pf, const mcf_hamiltonian *const *h,
                                   unsigned what, double *S);
#endif /* MCF_WANT_ABI >= 2 */

/* dOmega/dx = Tr[rho dH/dx] for one real parameter x whose derivative dH/dx is given in h's
 * layout: d_onsite (dim values, or NULL: no on-site part) and d_re, d_im (width x dim,
 * slot-major like h->col, both entries (r, c) and (c, r) of every pair; or NULL: no
 * hopping part), with rho from a density_matrix call on h (diag, bond_re, bond_im): the sum
 * sum_r rho_rr dH_rr + sum_slots Re(conj(rho_rc) dH_rc) in a fixed order.  For tests and for
 * parameters that touch much of H (a uniform hopping); a field on the sites has the O(1)
 * helpers below.  Divide by T for dS_eff/dx. */
MCF_API double mcf_density_matrix_force(const mcf_hamiltonian *h, const double *diag,
                                        const double *bond_re, const double *bond_im,
                                        const double *d_onsite, const double *d_re,
                                        const double *d_im);

#ifdef __cplusplus
}
#endif
#endif
