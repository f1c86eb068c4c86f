/* mcf/abi1_fermion.h — ABI 1's fermion evaluator table (mcf_fermion_ops), private to mcf.
 *
 * Not installed: since mcf 1.0 (ABI 2) the public headers describe ABI 2 only.  This is
 * what plugins built against mcf 0.1-0.8 have in their binaries, moved here verbatim from
 * the public header of mcf 0.8, so the layouts never change: the SDK's adapters (the
 * core/sdk files named abi1) call such an evaluator, and the tests that exist to check
 * that path build against these headers (docs/sdk-1.md, "The flip").  A new evaluator is
 * written for ABI 2; one that must stay ABI 1 builds against the frozen headers of an older
 * mcf. */
#ifndef MCF_ABI1_FERMION_H
#define MCF_ABI1_FERMION_H

#include "mcf/abi1_plugin.h"
#include "mcf/fermion.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_fermion_ops {
    uint32_t struct_size;  /* sizeof(mcf_fermion_ops) the plugin was built with */

    /* A workspace for h (borrowed: must outlive the workspace; the model changes it only
     * between calls) with validated [evaluator] params (borrowed likewise).  *ws is freed
     * with destroy().  Errors: MCF_EINVAL (e.g. h too large for an exact method), ENOMEM. */
    int (*create)(const mcf_params *params, const mcf_hamiltonian *h, void **ws);
    void (*destroy)(void *ws);

    /* The energy grid: number of points, and the energies (ascending) into E.  energies()
     * reads h's current bounds. */
    size_t (*energy_points)(const void *ws);
    int (*energies)(void *ws, double *E);

    /* For n workspaces: the DOS per state at the grid energies into dos[k] (points
     * values).  A stochastic evaluator draws its random vectors from rngs[k] (the chain's
     * stream); an exact one ignores rngs (which may then be NULL). */
    int (*dos)(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos);

    /* For n workspaces: the LDOS of rows[k][0..n_rows) into out[k][j * points + e]. */
    int (*ldos)(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                double *const *out);

    /* For n workspaces: G_rr(E + i0+) of rows[k][0..n_rows) at the grid energies, into
     * re[k][j * points + e] and im[k][...]. */
    int (*green)(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                 double *const *re, double *const *im);

    /* For n workspaces: electron density per state, n = integral rho(E) f(E), and band
     * energy per state, e = integral E rho(E) f(E), with the Fermi function
     * f = 1 / (1 + exp((E - mu) / T)) (T = 0: step); stochastic like dos(). */
    int (*occupation)(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                      double *density, double *energy);

    /* ---- appended in mcf 0.2: a caller checks struct_size covers the field AND that the
     * pointer is not NULL (an evaluator may leave an appended op out) ------------------
     *
     * For n workspaces: the change of the grand-canonical fermion action
     *
     *     dS[k] = S_eff(H_k + Delta_k) - S_eff(H_k),
     *     S_eff(H) = -sum_nu log(1 + exp(-(eps_nu - mu[k]) / T[k])),
     *
     * eps_nu the eigenvalues of H (every one-particle state, not per state), for the
     * change changes[k] (borrowed) of workspace k's Hamiltonian, at T[k] > 0 and chemical
     * potential mu[k].  The Hamiltonian is not changed.  exp(-dS) is the Metropolis
     * weight ratio of the change (seed thesis eq. 6.9).  An exact evaluator diagonalizes;
     * KPM uses the Green's functions of the change's vectors (GFMC, Weisse, PRL 102,
     * 150604 (2009)) and is approximate: its truncation error falls as 1/M.  Errors:
     * MCF_EINVAL (a change that fails mcf_local_change_check, T <= 0, non-finite input). */
    int (*delta_action)(void *const *ws, size_t n, const mcf_local_change *const *changes,
                        const double *T, const double *mu, double *dS);

    /* ---- appended for parallel tempering of fermion models (same rule: check struct_size
     * and NULL) --------------------------------------------------------------------------
     *
     * For n workspaces and m points each: the grand-canonical fermion action of workspace
     * k's current Hamiltonian,
     *
     *     S[k m + p] = S_eff(H_k) = -sum_nu log(1 + exp(-(eps_nu - mu[k m + p]) / T[k m + p])),
     *
     * every one-particle state counted (not per state), T > 0.  Deterministic: the same
     * Hamiltonian gives the same bits whatever the batch or thread count, and no random
     * stream is used; an evaluator that could only estimate it stochastically refuses
     * (MCF_EINVAL naming the setting that makes it exact).  When err is not NULL, err[k m + p]
     * receives a bound on |S - S_exact| from the method's truncation (0 for an exact
     * diagonalization; rounding not included).  The points of one workspace share its
     * spectrum, so an evaluator computes the spectral data once per workspace and call.
     * ed: from the eigenvalues.  kpm/kpm-cuda: the exact trace over the dim unit vectors
     * (needs [evaluator] vectors = 0) of the Chebyshev series of the function, no kernel;
     * err = dim times the sum of the dropped coefficients' magnitudes.  Errors: MCF_EINVAL
     * (T <= 0, non-finite input, a stochastic trace), ENOMEM. */
    int (*action)(void *const *ws, size_t n, size_t m, const double *T, const double *mu,
                  double *S, double *err);

    /* ---- appended for every finite-rank change (same rule: check struct_size and NULL;
     * every evaluator of this tree has it) ---------------------------------------
     *
     * For n workspaces: dS[k] = S_eff(H_k + Delta_k) - S_eff(H_k) as delta_action, for the
     * change changes[k] (borrowed; mcf/change.h: rank up to MCF_CHANGE_RANK, traceful or
     * traceless, on-site and hopping parts mixed), at T[k] > 0 and mu[k] (inside, at or
     * outside the spectrum).  When err is not NULL, err[k] receives a bound on the method's
     * truncation error of dS[k] (0 for an exact diagonalization; rounding not included).
     * ed diagonalizes H + Delta; kpm and kpm-cuda integrate T-weighted log det(1 - G Delta)
     * on a contour around the spectrum (docs/methods.md, "GFMC on a contour"): exact up to
     * a truncation error that falls exponentially with the moments.  The Hamiltonian is not
     * changed.  Errors: MCF_EINVAL (a change that fails mcf_change_check, T <= 0,
     * non-finite input; the message says what to change), MCF_ENOMEM. */
    int (*change_action)(void *const *ws, size_t n, const mcf_change *const *changes,
                         const double *T, const double *mu, double *dS, double *err);

    /* ---- appended for the Chebyshev moments of a run's results (issue 18; same rule:
     * check struct_size and NULL; all four or none: mcf_fermion_bind's MCF_FERMION_MOMENTS
     * checks them together; kpm and kpm-cuda have them, ed has none) --------------------
     *
     * Moments mu_m = <r| T_m(H~) |r>, H~ = (H - b) / a, m < M, with a, b the scaling of the
     * workspace's grid (E = a x + b; the same a, b as energies() uses), and NO kernel
     * applied: the densities are linear in them, so averages of moments over measurements
     * reconstruct averaged densities with any kernel and grid (reconstruct below).
     *
     * M, the number of moments per density of this workspace (> 0, fixed for its life). */
    size_t (*moment_count)(const void *ws);

    /* For n workspaces: the DOS and its moments from ONE trace, drawing from rngs[k]
     * exactly what dos() draws (so a model that calls this instead of dos() gets the same
     * DOS, bit for bit, and the moments of the very vectors behind it):
     *   mu[k][m]     (1/dim) Tr T_m(H~) estimated as the mean over the R random vectors of
     *                <r|T_m(H~)|r> / dim (the exact trace when the evaluator has no
     *                randomness, e.g. kpm's vectors = 0), m < M;
     *   var[k][m]    the per-vector sample variance of <r|T_m(H~)|r> / dim (denominator
     *                R - 1), so that sqrt(var / R) is the standard error of mu[k][m]; 0 for
     *                an exact trace, NaN with R = 1; var may be NULL;
     *   scale[k][0], scale[k][1]  a and b;
     *   dos[k]       the DOS on the grid exactly as dos() gives it (dos, or dos[k], may be
     *                NULL: not reconstructed).
     * Errors as dos(). */
    int (*dos_moments)(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *mu,
                       double *const *var, double *const *scale, double *const *dos);

    /* For n workspaces: the LDOS moments <j| T_m(H~) |j> of the rows rows[k][0..n_rows)
     * (exact, no randomness) into mu[k][j M + m], a and b into scale[k][0..1], and, when
     * ldos is not NULL, the LDOS exactly as ldos() gives it into ldos[k][j points + e].
     * Errors as ldos(). */
    int (*ldos_moments)(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                        double *const *mu, double *const *scale, double *const *ldos);

    /* No workspace (the run may be long over: `mcf dos`): the densities per unit energy of
     * `sets` sets of M moments mu[s M + m] that refer to the scaling a > 0, b, with the
     * kernel `kernel` and the [evaluator] values `params` of the run that measured them
     * (borrowed; the kernel's default parameters come from there):
     *   kernel   NULL: the kernel of params; otherwise a name of the evaluator's (kpm:
     *            "jackson", "lorentz" with params' lambda, "lorentz:LAMBDA", "none");
     *   E        NULL: the evaluator's own grid of `points` energies for (a, b) — the grid
     *            of energies() when points is its energy_points(), so that the moments of
     *            dos_moments() give back dos() to rounding — written to grid (points
     *            values, ascending; grid may be NULL); otherwise the `points` energies
     *            E[0..points) (0 outside the scaled interval (b - a, b + a));
     *   out      out[s points + i].
     * Errors: MCF_EINVAL (an unknown kernel name, a > 0 not finite, points or M zero,
     * non-finite moments), MCF_ENOMEM. */
    int (*reconstruct)(const mcf_params *params, const char *kernel, size_t M, size_t sets,
                       const double *mu, double a, double b, size_t points, const double *E,
                       double *grid, double *out);

    /* ---- appended for the specific heat of fermion models (issue 24; same rule: check
     * struct_size and NULL; ed, kpm and kpm-cuda have it) ---------------------------------
     *
     * For n workspaces: occupation() — density[k] and energy[k] per state, drawing from
     * rngs[k] exactly what occupation() draws, so the same bits — and, from the same trace,
     * their temperature derivatives at fixed mu, per state:
     *
     *     ddensity[k] = int rho(E) df/dT dE,     denergy[k] = int rho(E) E df/dT dE,
     *     df/dT = (E - mu) / T^2 f (1 - f),      f = 1 / (1 + exp((E - mu) / T)),
     *
     * at T > 0 (the derivative of the step at T = 0 is refused: MCF_EINVAL).  A fermion
     * model whose weight is exp(-S_eff(T)) needs them for d<E>/dT (mcf/model.h,
     * MCF_ROLE_ENERGY_DT).  Errors as occupation(), and MCF_EINVAL for T <= 0. */
    int (*occupation_dT)(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                         double *density, double *energy, double *ddensity, double *denergy);
} mcf_fermion_ops;

#ifdef __cplusplus
}
#endif
#endif
