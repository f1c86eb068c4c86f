/* kpm_series.h — the series of mcf 1.1's fermion ops in the KPM library (included by
 * kpm_core.h at its end, never on its own; part of mcf_kpm_core, not installed): the Fermi
 * series and the probing colours of density_matrix (kpm_density.c), the series of a block
 * on the host engine and the gradient of its quadratic form (kpm_engine.c), and the
 * pseudofermions' functions (kpm_density.c). */
#ifndef MCF_KPM_SERIES_H
#define MCF_KPM_SERIES_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- mcf 1.1's [evaluator] keys (the end of kpm_core.h's KPM_PARAM_SPEC_ENTRIES) ------- */
#define KPM_DEFAULT_PROBING_DISTANCE 2
#define KPM_DEFAULT_PROBES 2
#define KPM_DEFAULT_DENSITY_TOLERANCE 1e-8
#define KPM_DEFAULT_PF_TOLERANCE 1e-10
#define KPM_MAX_SERIES 1048576 /* the longest Chebyshev series these ops will sum */

#define KPM_PARAM_SPEC_FORCES                                                                     \
    {"probing_distance", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_PROBING_DISTANCE),                     \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 64, \
     NULL,                                                                                         \
     .doc = "density matrix (the forces of a global sampler): rows of the Hamiltonian within this " \
     "graph distance get different probing colours; larger: fewer correlated pairs left in the "   \
     "estimate (less noise), more colours (more cost); 0: one plain random vector per probe"},     \
    {"probes", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_PROBES),                                         \
     MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 1, 0, NULL,                \
     .doc = "density matrix: independent probings averaged (random phases from the chain's "      \
     "stream); 2 or more give an error estimate.  vectors = 0 instead makes it exact (unit "       \
     "vectors, no randomness)"},                                                                    \
    {"density_tolerance", MCF_PARAM_REAL, KPM_STR(KPM_DEFAULT_DENSITY_TOLERANCE),                  \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_NO_SCAN |         \
         MCF_PARAM_ECHO_IF_CHANGED,                                                                \
     0, 1, NULL,                                                                                   \
     .doc = "density matrix: the Chebyshev series of the Fermi function is summed until the "     \
     "bound on the rest, sum of |c_n|, is below this (the entries' truncation error)"},          \
    {"pseudofermion_tolerance", MCF_PARAM_REAL, KPM_STR(KPM_DEFAULT_PF_TOLERANCE),                 \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_NO_SCAN |         \
         MCF_PARAM_ECHO_IF_CHANGED,                                                                \
     0, 1e-3, NULL,                                                                                \
     .doc = "hybrid Monte Carlo's pseudofermions: the series of [2 cosh((E - mu)/2T)]^(-1/n) and " \
     "its -1/2 power are summed until their relative error on the bounds is below this; the "     \
     "sampled weight is then exact within a factor e^(n dim tolerance)"},


/* ---- the density matrix (kpm_density.c, mcf 1.1) -------------------------------------
 *
 * rho = f(H) on the diagonal and the nonzero elements of H (mcf/fermion.h), f the Fermi
 * function at (mu, T > 0), from its plain Chebyshev series P(x) = sum_{n<Mf} c_n T_n(x) in
 * H~ = (H - b) / a, applied to probing vectors:
 *
 *   colours   a greedy colouring of the rows (ascending) such that two rows within graph
 *             distance d = probing_distance of each other (H's nonzero pattern) differ;
 *   a probe   random phases z_r (|z_r| = 1, drawn from the chain's stream in row order) and
 *             one vector per colour c, xi_c = sum_{colour(r) = c} z_r |r>; then
 *             est(r, s) = <r| P(H~) xi_colour(s) |.> conj(z_s) for every entry (r, s) kept;
 *             its mean is P_rs + sum_{t != s, colour(t) = colour(s)} P_rt E[z_t conj(z_s)]
 *             = P_rs: unbiased, and its noise comes from rows t more than d from s (and
 *             at least d - 1 from r), where f(H)_rt has decayed;
 *   exact     with vectors = 0: every row its own colour and z = 1 (dim vectors): P_rs
 *             itself, no randomness;
 *   errors    `probes` independent probes averaged; the standard error of the mean from
 *             their spread (NaN for one probe);
 *   series    c_n by a DCT on K Chebyshev-Gauss nodes (K a power of 2 >= 8 Mf, >= 1024),
 *             Mf the smallest order with sum_{Mf <= n < K/2} |c_n| <= density_tolerance:
 *             since |<r|T_n(H~)|s>| <= 1, that sum bounds |P_rs - f(H)_rs| (the aliased tail
 *             beyond K/2 is smaller by rho^{-K/2}, rho the Bernstein ellipse through the
 *             Fermi poles (mu - b +- i pi T) / a). */

/* The Chebyshev coefficients of f(a x + b) at (mu, T > 0): Mf (at most max_terms) of them
 * into *c (malloc'd, the caller frees), and the bound on the rest into *tail.  When max_terms
 * cannot reach tol the series stops there and *tail says how far it is.  Errors:
 * MCF_EINVAL (non-finite input, a <= 0, T <= 0), MCF_ENOMEM. */
KPM_API int kpm_fermi_series(double a, double b, double T, double mu, double tol,
                             size_t max_terms, double **c, size_t *Mf, double *tail);

/* The pseudofermions' functions [2 cosh((E - mu) / 2T)]^power (mcf/fermion.h,
 * mcf_pseudofermion: power -1/n for the action, 1/(2n) for the heat bath) as a Chebyshev
 * series in x, E = a x + b, cut where the rest is below tol_rel times the function's
 * smallest value on [b - a, b + a]: *rel bounds |P/F - 1| there.  Errors as
 * kpm_fermi_series. */
KPM_API int kpm_pf_series(double a, double b, double T, double mu, double power, double tol_rel,
                          size_t max_terms, double **c, size_t *Mf, double *rel);

/* For nvec (2 nvec <= the engine's block) vectors phi in the start block (consumed): the
 * series y = P(H~) phi = sum_{n<Mf} c_n T_n(H~) phi (Mf >= 2; block layout, stride nvec) and
 * the gradient of sum_v phi_v^+ P(H~) phi_v in H, D_rc = d/dH_rc (an entry moved alone):
 * added to g_diag[r] (real part), g_re/g_im[slot] on every occupied slot of h's table.
 * From the forward vectors alpha_n = T_n phi and the backward Clenshaw vectors
 * psi_j = sum_{m>=j} c_m U_{m-j}(H~) phi (U of the second kind):
 *     D_rc = (1/a) [conj(psi_1(r)) alpha_0(c) + 2 sum_{2<=j<Mf} conj(psi_j(r)) alpha_{j-1}(c)],
 * the alpha_n regenerated backward from alpha_Mf, alpha_{Mf-1} (alpha_{n-1} = 2 H~ alpha_n -
 * alpha_{n+1}), so memory stays O(dim) at 3 Mf block products. */
KPM_API int kpm_series_gradient(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                                const double *c, size_t Mf, size_t nvec, double *y,
                                double *g_diag, double *g_re, double *g_im);

/* The probing colours of h's rows at distance d (d = 0: one colour): colour[r] for every
 * row, their number into *ncolours.  Deterministic.  Errors: MCF_ENOMEM. */
KPM_API int kpm_probe_colours(const mcf_hamiltonian *h, size_t d, int32_t *colour,
                              size_t *ncolours);

/* y = sum_{n<Mf} c_n T_n(H~) x for the nvec vectors of the engine's start block
 * (kpm_engine_start; consumed), y in the block layout with stride nvec (2 dim nvec
 * doubles).  Threads over row chunks: the same bits on any thread count. */
KPM_API int kpm_series_apply(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                             const double *c, size_t Mf, size_t nvec, double *y);

#ifdef __cplusplus
}
#endif
#endif
