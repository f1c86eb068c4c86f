/* mcf/fermion.h — the table of a fermion evaluator (kind MCF_PLUGIN_FERMION_EVALUATOR).
 *
 * A fermion evaluator knows one piece of mathematics on one kind of hardware: spectral
 * functions of a tight-binding Hamiltonian (mcf/hamiltonian.h) — density of states, local
 * density of states, diagonal Green's functions, occupations.  It never knows which model
 * asked.  A model creates one workspace per chain, bound to that chain's Hamiltonian, and
 * calls the batched verbs with the workspaces of many chains at once, so that a GPU evaluator
 * gets enough independent work to fill the device; a CPU evaluator may simply loop.
 *
 * Curves are returned on the evaluator's energy grid (mcf_spectra's points values, ascending;
 * Chebyshev nodes for KPM).  The grid depends only on the evaluator's parameters and the
 * Hamiltonian's bounds, so with fixed bounds every realization shares one grid.
 * Normalization: per state, so that the DOS integrates to 1 and the LDOS of every row
 * integrates to 1; Green's functions are retarded, G_rr(E + i0+), with the kernel's
 * broadening, so that -Im G_rr / pi is the LDOS. */
#ifndef MCF_FERMION_H
#define MCF_FERMION_H

#include "mcf/api.h"

#include <math.h>
#include <stddef.h>
#include "mcf/batch.h"
#include "mcf/change.h"
#include "mcf/hamiltonian.h"
#include "mcf/params.h"
#include "mcf/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A local change of the Hamiltonian, Delta = H' - H, written as a low-rank Hermitian
 * matrix
 *
 *     Delta = sum_{a,b < rank} |u_a> C_ab <u_b|,      C Hermitian (rank x rank),
 *
 * with sparse vectors u_a (at most MCF_CHANGE_MAX_ENTRIES nonzeros each, distinct rows).
 * A single-site move of a lattice model is such a change: with infinite Hund coupling the
 * hoppings between site o and its neighbours j change (not the on-site energy of o, and
 * v has no entry at o), Delta = |o><v| + |v><o| with |v> = sum_j (H'_jo - H_jo) |j> and
 * C = [[0, 1], [1, 0]]; with finite Hund coupling the
 * 2 x 2 spin block of site o changes, u = {|o up>, |o down>} and C that block's change.
 * By Sylvester's identity det(1 + A Delta) = det(1_rank + C U^+ A U), so an evaluator needs
 * only the rank x rank matrix <u_a| G(z) |u_b> of Green's functions (seed thesis ch. 6). */
#define MCF_CHANGE_MAX_RANK 2
#define MCF_CHANGE_MAX_ENTRIES 16

typedef struct mcf_local_change {
    int rank;                                     /* 1 or 2 */
    int entries[MCF_CHANGE_MAX_RANK];             /* nonzeros of u_a, 1..MAX_ENTRIES */
    int64_t row[MCF_CHANGE_MAX_RANK][MCF_CHANGE_MAX_ENTRIES];  /* distinct, < dim */
    double re[MCF_CHANGE_MAX_RANK][MCF_CHANGE_MAX_ENTRIES];    /* amplitudes of u_a */
    double im[MCF_CHANGE_MAX_RANK][MCF_CHANGE_MAX_ENTRIES];
    double c_re[MCF_CHANGE_MAX_RANK][MCF_CHANGE_MAX_RANK];     /* C, Hermitian */
    double c_im[MCF_CHANGE_MAX_RANK][MCF_CHANGE_MAX_RANK];
} mcf_local_change;

/* Checks a change (borrowed) against a Hamiltonian of dimension dim: rank, entry counts, rows in
 * range and distinct within a vector, finite values, C Hermitian (to 1e-12 of its largest
 * entry).  MCF_EINVAL with a message naming the first problem. */
MCF_API int mcf_local_change_check(const mcf_local_change *c, size_t dim);

/* Adds Delta to the dense row-major interleaved-complex matrix m (2 dim^2 doubles, as
 * written by mcf_hamiltonian_dense): for exact methods.  c must pass the check. */
MCF_API void mcf_local_change_add_dense(const mcf_local_change *c, size_t dim, double *m);

/* The same change as an mcf_change (mcf/change.h), which every evaluator's change_action
 * takes.  Overwrites *out.  MCF_EINVAL for a rank or entry count out of range (the rest is
 * mcf_change_check's). */
MCF_API int mcf_change_from_local(const mcf_local_change *in, mcf_change *out);

/* ==== The evaluator's table (ABI 2): mcf_fermion_evaluator, one operation per verb =======
 *
 * The descriptor has kind MCF_PLUGIN_FERMION_EVALUATOR and its ops is an
 * mcf_fermion_evaluator.  Every batched operation gets the core's batch (mcf/batch.h): what
 * the evaluator keeps per batch (job lists, device buffers, plans) lives in the batch's keep
 * slots, never in the first workspace.  The batch's scratch is the model's (the arrays of
 * the call may live there): an evaluator never calls mcf_batch_scratch.  b is NULL when
 * spectra is asked for nothing but its sizes and energies (a model's setup).  What an
 * evaluator has is its `provides` bits, not which pointers are NULL.  A model reaches these
 * through mcf/fermion_model.h, never directly.  ABI 1's table (mcf_fermion_ops, mcf
 * 0.1-0.8) is no longer declared here: evaluators built with it keep working through the
 * SDK's adapter.
 *
 * The grand-canonical fermion action of a Hamiltonian H at temperature T and chemical
 * potential mu, every one-particle state counted (not per state):
 *
 *     S_eff(H) = -sum_nu log(1 + exp(-(eps_nu - mu) / T)),     eps_nu the eigenvalues of H;
 *
 * exp(-dS) with dS = S_eff(H + Delta) - S_eff(H) is the Metropolis weight ratio of a change
 * Delta (seed thesis eq. 6.9). */

/* What an evaluator provides (mcf_fermion_evaluator.provides), the bits a model asks for
 * (mcf/fermion_model.h's MCF_FERMION_* needs have the same values). */
enum {
    MCF_PROVIDES_CHANGE_ACTION = 1u << 0, /* change_action */
    MCF_PROVIDES_OCCUPATION = 1u << 1,    /* occupation: density and band energy */
    MCF_PROVIDES_DOS = 1u << 2,           /* spectra: the grid and the DOS */
    MCF_PROVIDES_LDOS = 1u << 3,          /* spectra: the grid and the LDOS */
    MCF_PROVIDES_GREEN = 1u << 4,         /* spectra: the grid and G_rr */
    MCF_PROVIDES_ACTION = 1u << 6,        /* action: S_eff itself */
    MCF_PROVIDES_MOMENTS = 1u << 7,       /* spectra: Chebyshev moments; reconstruct */
    MCF_PROVIDES_OCCUPATION_DT = 1u << 8, /* occupation: ddensity and denergy */
    MCF_PROVIDES_DENSITY_MATRIX = 1u << 9, /* density_matrix (mcf 1.1): the forces */
    MCF_PROVIDES_PSEUDOFERMION = 1u << 10, /* pseudofermion (mcf 1.1): an exact global
                                              sampler's weight and forces */
    MCF_PROVIDES_RESPONSE = 1u << 11,      /* response (mcf 1.2): two-dimensional
                                              Chebyshev moments of two operators */
    MCF_PROVIDES_VECTOR_MOMENTS = 1u << 12 /* vector_moments (mcf 1.2): Chebyshev moments
                                              of given vectors (spectral functions) */
};

/* One spectra() call: the inputs, then the outputs, each NULL when not wanted (an output
 * the evaluator does not provide must be NULL).  Per workspace k; curves on the energy grid
 * (points values, ascending), normalized per state (see above).  The Chebyshev moments
 * mu_m = <r| T_m(H~) |r>, H~ = (H - b) / a, m < M, refer to the scaling E = a x + b of the
 * workspace's grid and carry NO kernel: the densities are linear in them, so averages of
 * moments over measurements reconstruct averaged densities with any kernel and grid
 * (reconstruct). */
typedef struct mcf_spectra {
    const size_t *const *rows;   /* in: rows[k][0..n_rows), for ldos, green, ldos_moments */
    size_t n_rows;
    size_t points;               /* out, always: the grid's number of energies */
    size_t moments;              /* out, always: M per density (fixed for a workspace's
                                    life; 0: none) */
    double *const *energies;     /* points values, ascending (h's bounds now) */
    double *const *dos;          /* points values; a stochastic evaluator draws its random
                                    vectors from rngs[k] (the chain's stream) */
    double *const *dos_moments;  /* M values: (1/dim) Tr T_m(H~) estimated as the mean over
                                    the R random vectors (the exact trace when the
                                    evaluator has no randomness), from dos's very trace */
    double *const *dos_moments_var; /* M values: the per-vector sample variance of
                                    <r|T_m(H~)|r> / dim (denominator R - 1; 0 for an exact
                                    trace, NaN with R = 1), with dos_moments only */
    double *const *moment_scale; /* 2 values: a, b (with dos_ or ldos_moments only) */
    double *const *ldos;         /* n_rows x points values: LDOS of row j at [j points + e] */
    double *const *ldos_moments; /* n_rows x M values: <j| T_m(H~) |j> (exact) */
    double *const *green_re;     /* n_rows x points values each: G_rr(E + i0+) */
    double *const *green_im;
} mcf_spectra;

/* One occupation() call's outputs per workspace k; density and energy always, the
 * derivatives (from the same trace) when not NULL. */
typedef struct mcf_occupation {
    double *density, *energy;    /* per state: n = int rho f, e = int E rho f */
    double *ddensity, *denergy;  /* NULL, or d/dT at fixed mu per state (T > 0) */
} mcf_occupation;

/* One density_matrix() call's outputs per workspace k (mcf 1.1), in the layout of the
 * workspace's Hamiltonian h (mcf/hamiltonian.h): the one-body density matrix
 *
 *     rho = f(H),   rho_rc = <r| f(H) |c> = <c_c^+ c_r>,   f(E) = 1 / (1 + exp((E - mu) / T)),
 *
 * on the diagonal and on every nonzero element of H, i.e. the derivative of the grand
 * potential Omega = T S_eff with respect to the Hamiltonian: for any real parameter x of H,
 *
 *     dOmega/dx = Tr[rho dH/dx] = sum_r rho_rr dH_rr/dx + sum_slots Re(conj(rho_rc) dH_rc/dx),
 *     dS_eff/dx = dOmega/dx / T,
 *
 * the sum over every occupied ELL slot (r, c = h->col[s]) of the table, both (r, c) and
 * (c, r) (mcf_density_matrix_force in mcf/fermion_model.h does this sum).  Arrays are NULL
 * when not wanted, except diag, bond_re and bond_im, which are always written. */
typedef struct mcf_density_matrix {
    double *const *diag;      /* dim values: rho_rr (real) */
    double *const *bond_re;   /* width x dim, slot-major like h->col: at slot s = j dim + r */
    double *const *bond_im;   /*   the entry rho_rc, c = h->col[s]; 0 where col[s] < 0 */
    double *const *diag_err;  /* NULL, or dim values: the standard error of diag's estimate
                                 (0 for an exact method; NaN from a single random draw) */
    double *const *bond_err;  /* NULL, or width x dim: the standard error of the complex
                                 estimate, sqrt(E|est - E est|^2) (0, NaN likewise) */
    double *truncation;       /* NULL, or n values: a bound on |rho_rc - f(H)_rc| of every
                                 entry from the method's truncation (0 for ed; a polynomial
                                 method's sup |f - P| on the spectrum's interval) */
} mcf_density_matrix;

/* The pseudofermion form of the fermion weight (mcf 1.1), for a sampler that moves the whole
 * field and accepts with the exact weight (hybrid Monte Carlo).  With K = H - mu and n
 * flavours,
 *
 *     det(1 + e^{-K/T}) = e^{-Tr K / (2T)} det(2 cosh(K / 2T))
 *                       = e^{-Tr K / (2T)} prod_{f<n} pi^{-dim} int dphi_f e^{-phi_f^+ F(H) phi_f},
 *     F(H) = [2 cosh((H - mu) / 2T)]^{-1/n},
 *
 * so the weight of a configuration is the average over Gaussian pseudofermions phi_f of
 * e^{-S_pf}, S_pf = Tr K / (2T) + sum_f phi_f^+ F(H) phi_f: a number computable in O(dim)
 * products with H, whose gradient in H is a sum over a polynomial's recursion; n =
 * mcf_pseudofermion_flavours(T, mu, emin, emax) (below: F's range shrinks as e^{-|K|max/2nT});
 * a polynomial method replaces F by P with a relative error below `bound` everywhere on the
 * Hamiltonian's fixed bounds, so the sampled weight is exact up to a factor within
 * e^{+-n dim bound}.  One call per workspace k, at T[k], mu[k]:
 *
 *   draw      phi_f = F(H)^{-1/2} chi_f with chi_f complex Gaussians (E|chi_r|^2 = 1) drawn
 *             from rngs[k] (flavour after flavour, row order): a heat bath of the
 *             pseudofermions for the current field;
 *   action    S_pf of the phi_f given (not changed), and when grad is not NULL its gradient
 *             in H on the table, written like the density matrix (mcf_density_matrix's
 *             diag, bond_re, bond_im; errors and truncation not written): dS_pf/dx =
 *             sum_r G_rr dH_rr/dx + sum_slots Re(conj(G_rc) dH_rc/dx), so
 *             mcf_density_matrix_force and mcf_hamiltonian_factors_gradient apply as they
 *             are. */
enum { MCF_PSEUDOFERMION_DRAW = 1, MCF_PSEUDOFERMION_ACTION = 2 };

typedef struct mcf_pseudofermion {
    int mode;                    /* MCF_PSEUDOFERMION_DRAW or _ACTION */
    size_t flavours;             /* out: n (a call with phi NULL asks for it alone) */
    double *const *phi_re;       /* per workspace: n x dim, flavour f at [f dim + r]: */
    double *const *phi_im;       /*   written by draw, read by action */
    double *action;              /* action: n values (one per workspace), S_pf */
    const struct mcf_density_matrix *grad; /* action: NULL, or the gradient's arrays */
    double *bound;               /* NULL, or n values: sup |P/F - 1| on the bounds (0: exact) */
} mcf_pseudofermion;

/* n, the flavours of the pseudofermion form at T, mu on the fixed bounds [emin, emax]: the
 * smallest n >= 1 with log(2 cosh(max|E - mu| / 2T)) / n <= log(1000), so that F varies by
 * at most 10^3 on the bounds (a polynomial then reaches a relative error near the rounding
 * with a few hundred terms at T ~ 0.01 of the bandwidth).  Every evaluator takes this n. */
static inline size_t mcf_pseudofermion_flavours(double T, double mu, double emin, double emax)
{
    const double far = fmax(fabs(emin - mu), fabs(emax - mu)) / (2.0 * T);
    const double l = far + log1p(exp(-2.0 * far)), n = ceil(l / log(1000.0));
    return n < 1.0 ? 1 : (size_t)n;
}

/* One response() call (mcf 1.2): the two-dimensional Chebyshev moments of two Hermitian
 * operators A, B per workspace k, per state,
 *
 *     mu_nm = (1/dim) Tr[A T_n(H~) B T_m(H~)],   H~ = (H - b) / a,   n, m < M,
 *
 * from which mcf/response.h forms conductivities (A, B current operators: mcf_current_operator).
 * A stochastic evaluator estimates the trace as the mean over R random vectors r drawn from
 * rngs[k] of <r| A T_n B T_m |r> / dim; an exact one sums over all of them. */
typedef struct mcf_response {
    size_t moments;                   /* in: M >= 2 */
    const double *scale;              /* in: NULL, the evaluator's own scaling of H; or a, b
                                         (the same for every workspace), a > 0, whose interval
                                         [b - a, b + a] must hold h's bounds */
    const mcf_hamiltonian *const *op_a; /* in: A of workspace k (h's dim; any pattern) */
    const mcf_hamiltonian *const *op_b; /* in: B of workspace k */
    double *const *mu_re;             /* out: M x M, mu_nm at [n M + m] */
    double *const *mu_im;
    double *const *mu_err;            /* NULL, or M x M: the standard error of the complex
                                         estimate, sqrt(E|est - E est|^2) (0 for an exact
                                         trace, NaN from a single vector) */
    double *const *moment_scale;      /* NULL, or 2 values: the a, b used */
} mcf_response;

/* One vector_moments() call (mcf 1.2): the Chebyshev moments of given vectors per workspace
 * k, the diagonal elements of T_n(H~) in them,
 *
 *     mu_jn = <v_j| T_n(H~) |v_j>,   H~ = (H - b) / a,   n < M,   j < nv,
 *
 * from which spectral functions follow: with v = |k> the Bloch state of wave vector k,
 * A(k, E) = -(1/pi) Im <k|G(E + i0)|k> (mcf_spectral_function).  Deterministic: no random
 * vectors. */
typedef struct mcf_vector_moments {
    size_t moments;               /* in: M >= 1 */
    size_t vectors;               /* in: nv >= 1 vectors a workspace */
    const double *scale;          /* in: NULL, the evaluator's own scaling; or a, b as in
                                     mcf_response */
    const double *const *v;       /* in: v[k], nv x dim interleaved complex (re, im), vector
                                     after vector; any norm (mu_j0 = |v_j|^2) */
    double *const *mu;            /* out: mu[k][j M + n] (real: H is Hermitian) */
    double *const *moment_scale;  /* NULL, or 2 values: the a, b used */
} mcf_vector_moments;

typedef struct mcf_fermion_evaluator {
    uint32_t struct_size;  /* sizeof(mcf_fermion_evaluator) the plugin was built with */
    unsigned provides;     /* MCF_PROVIDES_* bits */

    /* A workspace for h (borrowed: must outlive the workspace; the model changes h only
     * between calls) with the validated [evaluator] params (borrowed likewise) and the
     * descriptor's app_data.  Free with destroy().  Errors: MCF_EINVAL (e.g. h too large
     * for an exact method), MCF_ENOMEM. */
    int (*create)(const mcf_params *params, const mcf_hamiltonian *h, void *app_data,
                  void **ws);
    void (*destroy)(void *ws);

    /* The sizes (always) and the curves asked for in *s (mcf_spectra), for n workspaces.
     * With dos and dos_moments asked together the moments are those of the DOS's very
     * trace; without dos, dos_moments draws what the DOS would draw.  rngs may be NULL
     * unless dos or dos_moments is asked for.  n = 0 is not an error. */
    int (*spectra)(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                   mcf_spectra *s);

    /* For n workspaces at one (mu, T): the electron density per state n = int rho(E) f(E)
     * and the band energy per state e = int E rho(E) f(E), f = 1 / (1 + exp((E - mu) / T))
     * (T = 0: a step), stochastic like the DOS; when out->ddensity is not NULL, from the
     * same trace (the same bits and draws for density and energy) their derivatives at
     * fixed mu, int rho df/dT and int E rho df/dT, df/dT = (E - mu) / T^2 f (1 - f), at
     * T > 0 (MCF_EINVAL at T = 0). */
    int (*occupation)(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                      double T, const mcf_occupation *out);

    /* For n workspaces: dS[k] = S_eff(H_k + Delta_k) - S_eff(H_k) for the change changes[k]
     * (borrowed; mcf/change.h: rank up to MCF_CHANGE_RANK, traceful or traceless, on-site
     * and hopping parts mixed; a rank <= 2 mcf_local_change is passed as
     * mcf_change_from_local makes it) at T[k] > 0 and mu[k] (inside, at or outside the
     * spectrum).  When err is not NULL, err[k] receives a bound on the method's truncation
     * error of dS[k] (0 for an exact diagonalization; rounding not included).  The
     * Hamiltonian is not changed.  ed diagonalizes H + Delta; kpm and kpm-cuda integrate
     * T-weighted log det(1 - G Delta) on a contour around the spectrum (docs/methods.md,
     * "GFMC on a contour").  Errors: MCF_EINVAL (a change that fails mcf_change_check,
     * T <= 0, non-finite input; the message says what to change), MCF_ENOMEM. */
    int (*change_action)(mcf_batch *b, void *const *ws, size_t n,
                         const mcf_change *const *changes, const double *T, const double *mu,
                         double *dS, double *err);

    /* For n workspaces and m points each: S[k m + p] = S_eff(H_k) at T[k m + p] > 0 and
     * mu[k m + p].  Deterministic: the same Hamiltonian gives the same bits whatever the
     * batch or thread count, and no random stream is used; an evaluator that could only
     * estimate it stochastically refuses (MCF_EINVAL naming the setting that makes it
     * exact).  When err is not NULL, err[k m + p] receives a bound on |S - S_exact| from the
     * method's truncation (0 for an exact diagonalization).  For parallel tempering. */
    int (*action)(mcf_batch *b, void *const *ws, size_t n, size_t m, const double *T,
                  const double *mu, double *S, double *err);

    /* No workspace (the run may be long over: `mcf dos`): the densities per unit energy of
     * `sets` sets of M moments mu[s M + m] that refer to the scaling a > 0, b, with the
     * kernel `kernel` and the [evaluator] values `params` of the run that measured them:
     *   kernel   NULL: the kernel of params; otherwise a name of the evaluator's (kpm:
     *            "jackson", "lorentz" with params' lambda, "lorentz:LAMBDA", "none");
     *   E        NULL: the evaluator's own grid of `points` energies for (a, b), written
     *            to grid (may be NULL), so that the moments of spectra give back its DOS
     *            to rounding; otherwise the `points` energies E[0..points) (0 outside the
     *            scaled interval (b - a, b + a));
     *   out      out[s points + i].
     * Errors: MCF_EINVAL (an unknown kernel name, a > 0 not finite, points or M zero,
     * non-finite moments), MCF_ENOMEM. */
    int (*reconstruct)(void *app_data, const mcf_params *params, const char *kernel, size_t M,
                       size_t sets, const double *mu, double a, double b, size_t points,
                       const double *E, double *grid, double *out);

    /* ---- mcf 1.1: appended; the SDK calls it only when struct_size covers it and
     * `provides` has MCF_PROVIDES_DENSITY_MATRIX ---------------------------------------
     *
     * For n workspaces: the density matrix f(H_k) at T[k] > 0 and mu[k] on the diagonal and
     * the nonzero elements of H_k (mcf_density_matrix above), the forces of every sampler
     * that moves a classical field globally.  Exact on ed (eigenvectors).  A stochastic
     * evaluator (kpm, kpm-cuda) estimates it from the Chebyshev series of f applied to
     * probing vectors drawn from rngs[k] (the chain's stream; rngs may be NULL when the
     * evaluator draws nothing, e.g. kpm with vectors = 0), unbiased, with the standard errors
     * asked for; its truncation bound is out->truncation[k].  Errors: MCF_EINVAL (T <= 0 or
     * not finite, mu not finite, a NULL output array), MCF_ENOMEM. */
    int (*density_matrix)(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                          const double *T, const double *mu, const mcf_density_matrix *out);
    /* For n workspaces: the pseudofermion form of the weight (mcf_pseudofermion above):
     * draw or action, at T[k] > 0 and mu[k].  Needs fixed spectral bounds
     * (mcf_hamiltonian_fix_bounds: the form must be one smooth function of H through a
     * whole trajectory); n flavours the same for every call on a workspace with the same T,
     * mu and bounds.  ed evaluates F exactly (eigenvectors; the gradient by the
     * Daleckii-Krein formula), kpm and kpm-cuda by a Chebyshev series of F (draw: of
     * F^{-1/2}) with a stated relative error.  Errors: MCF_EINVAL (free bounds, T <= 0, a NULL
     * array), MCF_ENOMEM. */
    int (*pseudofermion)(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                         const double *T, const double *mu, mcf_pseudofermion *p);

    /* ---- mcf 1.2: appended; the SDK calls it only when struct_size covers it and
     * `provides` has MCF_PROVIDES_RESPONSE ----------------------------------------------
     *
     * For n workspaces: the two-dimensional moments of r->op_a[k], r->op_b[k] (mcf_response
     * above).  Exact on ed (eigenvectors); kpm estimates the trace with its `vectors` random
     * vectors (vectors = 0: every unit vector, exact) drawn from rngs[k].  Errors: MCF_EINVAL
     * (M < 2, an operator of another dimension, a scale whose interval misses h's bounds, a
     * NULL output array), MCF_ENOMEM. */
    int (*response)(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                    const mcf_response *r);

    /* ---- mcf 1.2: appended after response; the SDK calls it only when struct_size covers
     * it and `provides` has MCF_PROVIDES_VECTOR_MOMENTS ----------------------------------
     *
     * For n workspaces: the moments of r->v[k]'s vectors (mcf_vector_moments above).  Exact
     * on ed (eigenvectors) and on kpm (the recursion of each vector itself).  Errors:
     * MCF_EINVAL (M < 1, no vectors, a scale whose interval misses h's bounds, a NULL array),
     * MCF_ENOMEM. */
    int (*vector_moments)(mcf_batch *b, void *const *ws, size_t n,
                          const mcf_vector_moments *r);
} mcf_fermion_evaluator;

/* The size of ABI 2's table as mcf 1.0 froze it (without density_matrix): the loader accepts
 * tables from this size on. */
#define MCF_FERMION_EVALUATOR_1_0_SIZE offsetof(mcf_fermion_evaluator, density_matrix)

#ifdef __cplusplus
}
#endif
#endif
