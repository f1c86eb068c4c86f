/* kpm_core.h — the mathematics of the kernel polynomial method (KPM) as plain functions:
 * the static library mcf_kpm_core, linked into the kpm plugin (kpm.c) and into its tests.
 * The library also holds the fermion ops written once over a backend (kpm_ops.h), which
 * both kpm and kpm-cuda use.
 * Not part of the SDK: symbols carry the prefix kpm_ and hidden visibility.
 *
 * Reference: A. Weisse, G. Wellein, A. Alvermann, H. Fehske, "The kernel polynomial
 * method", Rev. Mod. Phys. 78, 275 (2006), Sec. II; the seed thesis, ch. 2 and 6.
 *
 * Rescaling.  H~ = (H - b) / a with a, b from mcf_hamiltonian_scaling(h, margin), so the
 * spectrum of H~ lies in [-1 + margin/2, 1 - margin/2].
 *
 * Moments.  mu_n = <a| T_n(H~) |b>, n = 0..M-1, by the recursion |r_0> = |b>,
 * |r_1> = H~|r_0>, |r_{n+1}> = 2 H~|r_n> - |r_{n-1}>.  For a = b two moments come from
 * each product: mu_{2n} = 2 <r_n|r_n> - mu_0, mu_{2n+1} = 2 <r_{n+1}|r_n> - mu_1,
 * so M moments cost floor(M/2) products.
 *
 * Vector blocks.  B complex vectors advance together, so the ELL table is read once per
 * step for all of them.  Layout of a block ("row-interleaved, split complex"): element
 * (row r, vector j) has its real part at v[2 B r + j] and its imaginary part at
 * v[2 B r + B + j], so the inner loop over the block is contiguous in memory.
 *
 * Threads and reproducibility.  Rows are cut into chunks of KPM_CHUNK rows, independent
 * of the thread count; OpenMP threads share the chunks, every chunk keeps its own partial
 * dot products, and the partials are added chunk by chunk in a fixed order.  So moments
 * are bit-for-bit the same on any number of threads and for any block size (each vector's
 * arithmetic does not depend on its neighbours in the block).
 *
 * Files: kpm_config.c (kpm_config, kpm_param_specs), kpm_kernel.c, kpm_engine.c (the
 * recursion and the stochastic trace on it), kpm_dct.c (reconstruction), kpm_occupation.c,
 * kpm_action.c, kpm_series_cache.c (their coefficients kept per workspace),
 * kpm_reconstruct.c (densities from stored moments), kpm_gfmc.c (GFMC on the real axis),
 * kpm_contour.c and kpm_contour_finish.c (GFMC on a contour: the ellipse; the integral on
 * it), kpm_moment_matrix.c, kpm_ops.c (the fermion ops over a backend).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message
 * (mcf_fail).  Pointers are borrowed unless said otherwise. */
#ifndef MCF_KPM_CORE_H
#define MCF_KPM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "mcf/fermion.h"
#include "mcf/hamiltonian.h"
#include "mcf/params.h"
#include "mcf/rng.h"

#include "kpm_series_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KPM_API __attribute__((visibility("hidden")))
#else
#define KPM_API
#endif

#define KPM_MAX_BLOCK 64   /* largest block of vectors advanced together */
#define KPM_MAX_MOMENTS (1L << 24) /* most Chebyshev moments ([evaluator] moments) */
#define KPM_MAX_POINTS (1L << 26)  /* most energy nodes ([evaluator] energy_points) */
#define KPM_CHUNK 2048     /* rows per chunk of the threaded row loop */

/* kernel, gfmc, random: in the order of their choices (kpm_config_read: mcf_params_choice) */
typedef enum kpm_kernel {
    KPM_KERNEL_JACKSON = 0, /* g_n of eq. (71): positive, resolution ~ pi / M */
    KPM_KERNEL_LORENTZ = 1, /* g_n = sinh(lambda (1 - n/M)) / sinh(lambda) */
    KPM_KERNEL_NONE = 2     /* g_n = 1 (Dirichlet: Gibbs oscillations) */
} kpm_kernel;

typedef enum kpm_gfmc_method {
    KPM_GFMC_CONTOUR = 0,   /* on a Bernstein ellipse around the spectrum (any change) */
    KPM_GFMC_REAL_AXIS = 1  /* Lorentz-damped, on the real axis (the seed thesis; only
                               changes that keep the spectrum inside H's bounds) */
} kpm_gfmc_method;

typedef enum kpm_random {
    KPM_RANDOM_PHASE = 0,   /* xi = exp(i phi), phi uniform in [0, 2 pi) */
    KPM_RANDOM_GAUSSIAN = 1 /* xi = (g1 + i g2) / sqrt(2), g1, g2 standard normal */
} kpm_random;

/* The evaluator's parameters (the [evaluator] section of the kpm plugin). */
typedef struct kpm_config {
    long moments;       /* M >= 2 */
    long vectors;       /* R >= 1 random vectors of the stochastic trace; 0: the exact
                           trace over all unit vectors (the plugin's choice) */
    kpm_kernel kernel;
    double lambda;      /* Lorentz kernel parameter, > 0 */
    long points;        /* N Chebyshev nodes of the energy grid, >= M; 0 means 2 M */
    kpm_random random;
    double margin;      /* rescaling margin in (0, 0.5) */
    long block;         /* vectors advanced together, 1..KPM_MAX_BLOCK */
    kpm_gfmc_method gfmc; /* how change_action computes dS */
    /* density_matrix (mcf 1.1; kpm_density.c) */
    long probing_distance;    /* rows closer than this in H's graph get different colours */
    long probes;              /* independent probings (each: one vector per colour) */
    double density_tolerance; /* the truncation bound the Fermi series is cut at */
    double pf_tolerance;      /* pseudofermion: the relative error its series are cut at */
} kpm_config;

/* The defaults of the plugin's declaration kpm_param_specs (both take the numbers from
 * one list in kpm_config.c): Jackson, N = 0 (2 M), random phases, GFMC on the contour. */
KPM_API void kpm_config_default(kpm_config *c);

/* Checks every field (ranges, for a config made in code: the declaration has them; N >= M)
 * and returns MCF_EINVAL with a message naming the key and how to fix it. */
KPM_API int kpm_config_check(const kpm_config *c);

/* N: the number of energy points, c->points or 2 M when 0. */
KPM_API size_t kpm_config_points(const kpm_config *c);

/* ---- kernels ----------------------------------------------------------------------- */

/* g[0..M) of the kernel; lambda is read by the Lorentz kernel only.  M >= 1. */
KPM_API void kpm_kernel_coefficients(kpm_kernel k, double lambda, size_t M, double *g);

/* The width sigma (standard deviation, rescaled units) of the Jackson-broadened delta
 * function at x, from its first two moments <y> = g_1 x and <y^2> = (1 + g_2 T_2(x)) / 2:
 * sigma^2 = (M - x^2 (M - 1)) / (2 (M + 1)) (1 - cos(2 pi/(M+1))) ~ (pi / M)^2 (1 - x^2)
 * for large M (the variance given by Weisse et al.). */
KPM_API double kpm_jackson_width(size_t M, double x);

/* ---- the Chebyshev recursion for a block of vectors ---------------------------------- */

typedef struct kpm_engine kpm_engine;

/* Scratch for vectors of dimension dim in blocks of up to `block` (1..KPM_MAX_BLOCK):
 * three blocks of 2 dim block doubles and the chunk partials.  *out owned by the caller:
 * kpm_engine_destroy().  Errors: MCF_EINVAL, MCF_ENOMEM. */
KPM_API int kpm_engine_create(size_t dim, size_t block, kpm_engine **out);
KPM_API void kpm_engine_destroy(kpm_engine *e);
KPM_API size_t kpm_engine_dim(const kpm_engine *e);
KPM_API size_t kpm_engine_block(const kpm_engine *e);

/* The start block |b_j> (j < nvec) of the next moments call, laid out with stride nvec
 * (see the top of this file).  Borrowed: owned by the engine; overwritten by the
 * recursion.  nvec <= the engine's block. */
KPM_API double *kpm_engine_start(kpm_engine *e);

/* Diagonal moments of the start block: mu[j M + n] = <b_j| T_n(H~) |b_j> for j < nvec,
 * n < M (M >= 1), with the two-moments-per-step identity.  h->dim must equal the
 * engine's dim.  Consumes the start block.  Refuses (MCF_EINVAL) moments with |mu_n| >
 * mu_0 (1 + 1e-8), the sign of a spectrum outside [b - a, b + a] (fixed bounds too
 * narrow), or non-finite moments. */
KPM_API int kpm_moments_diag(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                             size_t nvec, size_t M, double *mu);

/* General moments mu_n = <a_j| T_n(H~) |b_j>, one per step (M - 1 products): `left` holds
 * the a_j in the block layout with stride nvec (borrowed, not changed), the b_j are the
 * start block.  Complex output: mu[2 (j M + n)] real part, mu[2 (j M + n) + 1] imaginary.
 * Consumes the start block. */
KPM_API int kpm_moments_general(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                                size_t nvec, const double *left, size_t M, double *mu);

/* ---- vectors ----------------------------------------------------------------------- */

/* Fills vector j of a block of stride nvec with dim random entries drawn from rng in row
 * order (so a vector's entries do not depend on the block it lands in). */
KPM_API void kpm_random_vector(mcf_rng *rng, kpm_random kind, size_t dim, size_t nvec,
                               size_t j, double *v);

/* Stochastic trace: R vectors drawn one after the other from rng, advanced `block` at a
 * time; per-vector moments mu_vec[r M + n] = <r| T_n(H~) |r> / dim (r < R).  Their mean is
 * the estimate of the DOS moments Tr T_n(H~) / dim. */
KPM_API int kpm_stochastic_moments(kpm_engine *e, const mcf_hamiltonian *h, double a,
                                   double b, mcf_rng *rng, kpm_random kind, size_t R,
                                   size_t M, double *mu_vec);

/* LDOS moments of rows[0..n_rows): mu[j M + n] = <rows[j]| T_n(H~) |rows[j]> (unit
 * vectors; exact, no randomness), `block` rows at a time.  Errors: a row out of range. */
KPM_API int kpm_ldos_moments(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                             const size_t *rows, size_t n_rows, size_t M, double *mu);

/* Mean over R sets of M moments, and its standard error (sample standard deviation over
 * the sets / sqrt(R); NaN when R < 2) when err is not NULL. */
KPM_API void kpm_moments_mean(size_t R, size_t M, const double *mu_vec, double *mean,
                              double *err);

/* The per-vector sample variance of R sets of M moments about their mean (mean[0..M), as
 * kpm_moments_mean gives it): var[n] = sum_r (mu_vec[r M + n] - mean[n])^2 / (R - 1); NaN
 * when R = 1, 0 when R = 0 (the exact trace: no randomness). */
KPM_API void kpm_moments_variance(size_t R, size_t M, const double *mu_vec,
                                  const double *mean, double *var);

/* ---- reconstruction from stored moments (kpm_reconstruct.c) ----------------------------
 *
 * The density per unit energy at arbitrary energies E[i], x = (E[i] - b) / a, from real
 * moments mu[0..M) and kernel g: (g_0 mu_0 + 2 sum_{n>=1} g_n mu_n T_n(x)) /
 * (pi a sqrt(1 - x^2)) by Clenshaw's recurrence, 0 for |x| >= 1.  O(M) per energy. */
KPM_API void kpm_density_at(const double *mu, const double *g, size_t M, double a, double b,
                            const double *E, size_t points, double *out);

/* A kernel by name: "jackson", "none", "lorentz" (lambda from *lambda, unchanged) or
 * "lorentz:LAMBDA" (LAMBDA > 0 finite into *lambda).  MCF_EINVAL naming the text and the
 * names allowed. */
KPM_API int kpm_kernel_parse(const char *text, kpm_kernel *k, double *lambda);

/* ---- reconstruction on the Chebyshev nodes --------------------------------------------
 *
 * The N nodes x_k = cos(pi (k + 1/2) / N), k = 0..N-1, are returned ascending: grid index
 * i holds node k = N - 1 - i.  With theta_k = arccos x_k and the damped coefficients
 * c_0 = g_0 mu_0 / 2, c_n = g_n mu_n (n < M; 0 beyond), the sum
 *     chi_k = sum_n c_n exp(-i n theta_k)
 * is a DFT of length 2 N of c_n exp(-i pi n / (2 N)) (GSL mixed-radix FFT, any N):
 *     f(x_k) = [g_0 mu_0 + 2 sum g_n mu_n T_n(x_k)] / (pi sqrt(1 - x_k^2))
 *            = 2 Re chi_k / (pi sin theta_k),
 *     G(x_k + i0) = -2 i chi_k / sin theta_k      (G = (x + i0 - H~)^-1),
 * so Im G = -pi f and Re G = 2 Im chi_k / sin theta_k = -2 sum_{n>=1} g_n mu_n U_{n-1}(x_k),
 * the Hilbert transform P int f(y) / (x - y) dy.  In energy units (E = a x + b) both are
 * divided by a. */

typedef struct kpm_dct kpm_dct;

/* A plan for N points and up to M <= N moments (FFT wavetable and workspace of length
 * 2 N, the phase and 1/sin tables).  *out owned by the caller: kpm_dct_destroy().
 * Errors: MCF_EINVAL (M > N, N < 1), MCF_ENOMEM. */
KPM_API int kpm_dct_create(size_t N, size_t M, kpm_dct **out);
KPM_API void kpm_dct_destroy(kpm_dct *d);
KPM_API size_t kpm_dct_points(const kpm_dct *d);

/* The ascending nodes x[i] (rescaled units), and the energies E[i] = a x[i] + b. */
KPM_API void kpm_dct_nodes(const kpm_dct *d, double *x);
KPM_API void kpm_dct_energies(const kpm_dct *d, double a, double b, double *E);

/* The density (DOS or LDOS) per unit energy at the ascending grid, from real moments
 * mu[0..M) and kernel g[0..M): out[i] = f(x_i) / a.  M <= the plan's M. */
KPM_API int kpm_dct_density(kpm_dct *d, const double *mu, const double *g, size_t M,
                            double a, double *out);

/* The Green's function G(E_i + i0) = G~(x_i) / a at the ascending grid from moments
 * mu_re (+ i mu_im; mu_im NULL for real moments) with kernel g. */
KPM_API int kpm_dct_green(kpm_dct *d, const double *mu_re, const double *mu_im,
                          const double *g, size_t M, double a, double *re, double *im);

/* Per-vector densities and the standard error of their mean at every grid point, from
 * the R sets of moments mu_vec (R M values): mean[i] and err[i] (err NaN when R < 2). */
KPM_API int kpm_dct_density_stats(kpm_dct *d, const double *mu_vec, size_t R,
                                  const double *g, size_t M, double a, double *mean,
                                  double *err);

/* ---- integrated quantities ------------------------------------------------------------
 *
 * n = int rho(E) f(E) dE and e = int E rho(E) f(E) dE of the kernel-damped expansion
 * rho(E), with the Fermi function f = 1 / (1 + exp((E - mu) / T)) (T = 0: the step).
 * In theta (x = cos theta) the integrals are (1/pi) int_0^pi S(theta) F(theta) dtheta with
 * the trigonometric polynomial S = g_0 mu_0 + 2 sum g_n mu_n cos(n theta): for T = 0 they
 * are closed forms (int cos(n theta) over [theta_mu, pi]).  For T > 0, (1/pi) int_0^pi
 * cos(n theta) F(cos theta) dtheta are Chebyshev-Gauss sums (1/K) sum_j F(x_j) cos(n theta_j)
 * on K nodes (kpm_chebyshev_sums, f and E f in one FFT), exact for the damped series up to
 * aliases ~ e^{-gamma (2K - M)} of F's coefficients, gamma the Bernstein parameter of the
 * Fermi pole mu + i pi T (kpm_contour_pole_gamma): K is the power of 2 >= max(M, 512,
 * (40 / gamma + M) / 2), so the aliases stay below e^-40 of max|F|.  Where that would need
 * more than 2^16 nodes (T below ~1e-3 of the bandwidth) the difference f - step, localized
 * within ~40 T of mu, is added to the T = 0 closed form by composite 16-point
 * Gauss-Legendre quadrature on panels no wider than pi / (2 M) in theta nor than the width
 * of the Fermi edge.  No randomness; exact up to rounding for T = 0, ~1e-13 relative for
 * T > 0. */
KPM_API int kpm_occupation(const double *mu, const double *g, size_t M, double a, double b,
                           double mu_chem, double T, double *density, double *energy);
/* The same, the expansion's coefficients (which do not depend on H) kept in and reused from
 * cache (kpm_series_cache.h; NULL: computed every time): the same bits either way. */
KPM_API int kpm_occupation_cached(kpm_series_cache *cache, const double *mu, const double *g,
                                  size_t M, double a, double b, double mu_chem, double T,
                                  double *density, double *energy);
/* Their T-derivatives at fixed mu, T > 0: dn/dT = int rho G dE / T, de/dT = int E rho G dE / T,
 * G = y f (1 - f), y = (E - mu) / T, the same two ways (G's double poles need aliases below
 * e^-46 of max|G|; the panels cover |E - mu| <= 50 T, no step: kpm_occupation.c).  Cached as
 * KPM_SERIES_OCCUPATION_DT.  MCF_EINVAL for T <= 0. */
KPM_API int kpm_occupation_dT(const double *mu, const double *g, size_t M, double a, double b,
                              double mu_chem, double T, double *ddensity, double *denergy);
KPM_API int kpm_occupation_dT_cached(kpm_series_cache *cache, const double *mu,
                                     const double *g, size_t M, double a, double b,
                                     double mu_chem, double T, double *ddensity,
                                     double *denergy);

/* ---- the grand-canonical action from exact moments --------------------------------------
 *
 * S_eff / dim = (1/dim) Tr F(H~),  F(x) = -softplus(-(a x + b - mu) / T),
 * softplus(y) = log(1 + e^y) = max(y, 0) + log1p(e^-|y|) (no overflow for any y), from the
 * plain (undamped: no kernel) Chebyshev series F(x) = sum_n c_n T_n(x) truncated at M:
 *
 *   S / dim = sum_{n<M} c_n mu_n,     err / dim = sum_{M<=n<K/2} |c_n|,
 *
 * mu_n = (1/dim) Tr T_n(H~) the exact-trace moments (|mu_n| <= 1).  The coefficients are
 * Chebyshev-Gauss sums on K = max(8 M, 1024) nodes theta_j = pi (j + 1/2) / K,
 * c_n = (2 - delta_n0) / K sum_{j<K} F(cos theta_j) cos(n theta_j), computed as one DCT-II
 * (kpm_chebyshev_sums; deterministic: a fixed sequence of operations).
 * F is analytic inside the Bernstein ellipse through its nearest singularities
 * x = (mu - b -+ i pi T) / a (the poles of the Fermi function), so |c_n| ~ rho^-n with rho the
 * sum of that ellipse's semi-axes: the series converges exponentially for T > 0, the
 * discrete c_n differ from the exact ones by aliases ~ c_{2K-n} (negligible for n < K/2),
 * and err bounds the truncation |sum_{n>=M} c_n mu_n| when the coefficients decay (the
 * dropped tail beyond K/2 < rho^-(K/2 - M) of the counted part).  Rounding is not
 * included: each c_n carries ~1e-16 max|F| of FFT rounding, so err does not fall below
 * ~1e-16 max|F| (K/2 - M).  Sums in a fixed order (same bits for the same input).
 * Errors: MCF_EINVAL (M < 1, a <= 0, T <= 0, non-finite input), MCF_ENOMEM. */
KPM_API size_t kpm_action_nodes(size_t M);

/* Chebyshev sums by a DCT-II (kpm_chebyshev.c): z (4 K doubles, interleaved complex) holds
 * in its first K entries f_j + i g_j, two real functions at the Chebyshev-Gauss nodes
 * x_j = cos(pi (j + 1/2) / K); on return (z overwritten) cf[n] = sum_j f_j cos(n theta_j)
 * and, when cg is not NULL, cg[n] = sum_j g_j cos(n theta_j), n < nout <= K.  One complex
 * FFT of length 2 K of the even extension (GSL: radix 2 when 2 K is a power of 2, which
 * allocates nothing; else mixed radix).  Deterministic.  Errors: MCF_EINVAL, MCF_ENOMEM. */
KPM_API int kpm_chebyshev_sums(double *z, size_t K, size_t nout, double *cf, double *cg);
KPM_API int kpm_action_series(const double *mu, size_t M, double a, double b, double T,
                              double mu_chem, double *S, double *err);
/* The same, the coefficients and the tail bound kept in and reused from cache (NULL: none). */
KPM_API int kpm_action_series_cached(kpm_series_cache *cache, const double *mu, size_t M,
                                     double a, double b, double T, double mu_chem, double *S,
                                     double *err);

/* ---- GFMC: the change of the fermion action under a local change --------------------
 *
 * Green's-function Monte Carlo (A. Weisse, PRL 102, 150604 (2009); seed thesis ch. 6).
 * For a change Delta = sum_ab |u_a> C_ab <u_b| of rank k (mcf/fermion.h),
 *
 *   d(E) = det(1 - G(E + i0) Delta) = det(1_k - C W(E)),  W_ab = <u_a| G(E + i0) |u_b>,
 *
 * with the retarded G = (E + i0 - H)^-1, equals prod_nu (eps'_nu - z) / (eps_nu - z), so
 * Im log d(E + i0) = -pi [N'(E) - N(E)] (N the number of eigenvalues below E) and
 *
 *   dS = S_eff(H') - S_eff(H) = -(1/T) int f(E) [N'(E) - N(E)] dE
 *      = (1 / (pi T)) int f(E) Im log d(E + i0) dE,
 *
 * by parts from S_eff = -int log(1 + e^{-(E-mu)/T}) rho(E) dE.  W comes from k^2 diagonal
 * Green's functions: of u_a (k of them) and, for a < b, of u_a + u_b and u_a + i u_b,
 *   W_ab = (P - iQ)/2, W_ba = (P + iQ)/2,  P = G[u_a+u_b] - W_aa - W_bb,
 *                                           Q = G[u_a+iu_b] - W_aa - W_bb,
 * i.e. for rank 2 the four vectors o, v, o+v, o+iv of the thesis, advanced as one block
 * (two moments per step).  Each diagonal G is the kernel-damped Chebyshev series on the
 * N Chebyshev nodes by FFT (kpm_dct_green).  Im log d is unwrapped continuously from the
 * lowest node (where d ~ 1) and the energy integral uses weights exact for a piecewise
 * linear Im log d between nodes against the Fermi function (computed once per T, mu and
 * grid by Gauss-Legendre on sub-panels no wider than T/2 near mu).
 *
 * Truncation: the kernel broadens every level by ~lambda a / M (Lorentz) or pi a / M
 * (Jackson); the error of dS falls as 1/M, and with `extrapolate` the moments are
 * computed to 2M and dS = 2 dS(2M) - dS(M) (the two-point, truncation-free estimate of
 * the thesis, eq. 6.39). */

/* The quadrature weights of the energy integral: for ascending nodes E[0..N) (N >= 2),
 * w[i] such that int f(E) phi(E) dE = sum_i w_i phi(E_i) exactly for phi piecewise linear
 * between the nodes (and constant continuation nowhere: the integral runs over
 * [E_0, E_{N-1}]), f = 1 / (1 + exp((E - mu) / T)), by Gauss-Legendre on sub-panels no
 * wider than T/2 within 40 T of mu.  GFMC's dS is (1 / (pi T)) sum_i w_i phi_i with phi the
 * unwrapped Im log d at the nodes; the GPU evaluator uploads these weights.  Errors:
 * MCF_EINVAL (N < 2, T <= 0, non-finite), MCF_ENOMEM. */
KPM_API int kpm_fermi_weights(const double *E, size_t N, double T, double mu, double *w);

/* The Fermi function 1 / (1 + e^y), y = (E - mu) / T, without overflow for any y. */
KPM_API double kpm_fermi(double y);

typedef struct kpm_gfmc kpm_gfmc;

/* Scratch for Hamiltonians of dimension dim: M moments (2M with extrapolate), N >= the
 * number of moments computed nodes (0: twice that number), the kernel.  *out owned by
 * the caller: kpm_gfmc_destroy().  Errors: MCF_EINVAL, MCF_ENOMEM. */
KPM_API int kpm_gfmc_create(size_t dim, size_t M, size_t N, kpm_kernel kernel, double lambda,
                            int extrapolate, kpm_gfmc **out);
KPM_API void kpm_gfmc_destroy(kpm_gfmc *g);

/* dS of the change c (checked with mcf_local_change_check) to h, rescaled with a, b, at
 * T > 0 and chemical potential mu.  With extrapolate, dS = 2 dS_2M - dS_M and both parts
 * are written to dS_M and dS_2M when these are not NULL (otherwise dS_M = dS, dS_2M =
 * NAN). */
KPM_API int kpm_gfmc_delta_action(kpm_gfmc *g, const mcf_hamiltonian *h, double a, double b,
                                  const mcf_local_change *c, double T, double mu, double *dS,
                                  double *dS_M, double *dS_2M);

/* The energy resolution of the kernel in energy units for scale a: lambda a / M for
 * Lorentz, pi a / M for Jackson and none (M the smaller order with extrapolate). */
KPM_API double kpm_gfmc_resolution(const kpm_gfmc *g, double a);

/* Warns (once per T: *warned_T remembers the last; and once per process for a T, M and
 * extrapolate, however many workspaces ask) when the resolution res of a GFMC run
 * with M moments at temperature T biases dS by more than 0.05 (the measured 0.12 res/T, or
 * 0.006 (res/T)^2 with extrapolate), naming the moments that would do; `who` prefixes the
 * message (the plugin's name). */
KPM_API void kpm_gfmc_warn_resolution(double res, double T, size_t M, int extrapolate,
                                      double *warned_T, const char *who);


/* ---- GFMC on a contour: any finite-rank change ------------------------------------------
 *
 * For a change Delta = U C U^+ of rank k <= MCF_CHANGE_RANK (mcf/change.h) and
 * d(z) = det(1 - G(z) Delta) = det(z - H') / det(z - H), G = (z - H)^-1,
 *
 *   dS = S_eff(H') - S_eff(H) = -(1 / (2 pi i T)) contour-integral f(z) log d(z) dz
 *        - sum_{Fermi poles z_n inside the contour} 2 log|d(z_n)|
 *
 * over a closed contour around both spectra: by Cauchy, sum_nu [g(eps'_nu) - g(eps_nu)]
 * with g = log(1 + e^{-(E-mu)/T}), integrated by parts (log d is single-valued on the
 * contour: d has as many zeros as poles inside), f(z) = 1 / (1 + e^{(z-mu)/T}) with simple
 * poles z_n = mu +- i (2n + 1) pi T of residue -T, each conjugate pair adding 2 log|d(z_n)|
 * (the Matsubara sum: with the contour at infinity the formula becomes
 * dS = tr Delta / (2T) - 2 sum_n log|d(z_n)|).  Off the real axis d is smooth, so nothing is
 * ill conditioned: no phase to follow through the spectrum, no kernel, no bias.  The
 * contour is the Bernstein ellipse z = a cos(theta - i gamma) + b, theta in [0, 2 pi):
 *
 *   - G there is the undamped Chebyshev series times e^{-n gamma}: with the moment matrix
 *     mu_n^{pq} = <u_p|T_n(H~)|u_q>, W~_pq = (-2i / sin(theta - i gamma)) sum_n c_n e^{-i n
 *     theta}, c_0 = mu_0 / 2, c_n = mu_n e^{-n gamma}: one FFT of length L = 2N per pair
 *     p <= q gives all N + 1 nodes theta_j = pi j / N of the upper half and, through
 *     W_qp(z) = conj(W_pq(conj z)), the lower partners; at a pole W~ = 4 t chi / (1 - t^2),
 *     chi = sum_n c_n t^n undamped, t = z~ - sqrt(z~^2 - 1) (|t| < 1);
 *   - the moment matrix: rank 1 and 2 from the engine's diagonal moments of u_0 [, u_1,
 *     u_0 + u_1, u_0 + i u_1] (kpm_moments_diag: its fastest path, and what the GPU kernel
 *     computes), rank 3 to 8 from kpm_moment_matrix's pair sums;
 *   - the lower half of the ellipse is the mirror image (H Hermitian), so its integral is
 *     (a / (pi T)) int_0^pi Im[f(z) log d(z) sin(theta - i gamma)] dtheta, summed by the
 *     trapezoidal rule (spectrally accurate for a periodic analytic integrand);
 *   - log d = log det of the k x k matrix 1 - (C/a) W~ (closed forms for k <= 2, LU with
 *     partial pivoting beyond), its phase followed node by node from theta = 0 (z real above
 *     both spectra, d > 0) and back to 0 at theta = pi (else MCF_EINVAL naming
 *     energy_points);
 *   - where: the Bernstein parameters gamma_0 < gamma_1 < ... of the poles decide.  Either
 *     below the first pole, gamma = 2N gamma_0 / (M + 2N) (truncation e^{-M gamma} and
 *     quadrature e^{-2N (gamma_0 - gamma)} balanced), or in the middle of the gap between
 *     poles n - 1 and n (n <= 16), the n poles inside added as residues (the residue at the
 *     nearest pole converges as e^{-M gamma_0}, the ellipse as e^{-M gamma}, the quadrature
 *     as e^{-2N tau}, tau half the gap): the placement with the fastest rate wins, always
 *     with gamma >= 8 pi / N so that the nodes follow the phase.  With mu inside the band the
 *     first gap wins (rate M gamma_0 against 2/3 M gamma_0 below the pole at N = M); with mu
 *     outside at low T the poles crowd together and the ellipse below them wins;
 *   - a, b cover H and H': the Gershgorin discs of the changed rows of H' are added to H's
 *     bounds (kpm_contour_scaling; unchanged when they lie inside), so a change that moves
 *     a level out of H's band (a traceful on-site change) stays inside the ellipse.
 *
 * Error bound err = truncation + quadrature.  Truncation: |mu_n^{pq}| <= |u_p||u_q|, so on
 * the ellipse |dW~| <= 2 (sum_p |u_p|^2) e^{-M gamma} / ((1 - e^{-gamma}) |sin(theta - i
 * gamma)|) (at a pole: |t|^M / (1 - |t|) instead), propagated to first order through
 * |d log d| <= ||(1 - C~W~)^-1 C~||_F ||dW~||_F at every node and pole.  Quadrature: the
 * larger of the trapezoidal rule's bound 2 pi max|F| e^{-2N tau} / (1 - e^{-2N tau}) and
 * the difference from the rule on every other node (times e^{-N tau} once N tau >= 8).
 * Rounding is not included.  The bound is rigorous to first order and pessimistic: on
 * double-exchange flips it exceeds the actual error 10 to 1000 times (tests/kpm,
 * docs/benchmarks.md).  Cost per change: M/2 Chebyshev steps of 1, 4 (rank 2) or k vectors,
 * k(k+1)/2 FFTs of length 2N, N + 1 k x k determinants, k^2 M per enclosed pole. */

typedef struct kpm_contour kpm_contour;

/* Scratch for Hamiltonians of dimension dim, M moments, N >= M half-contour intervals (0:
 * M; rounded up to even), the rescaling margin.  *out owned by the caller:
 * kpm_contour_destroy().  Errors: MCF_EINVAL, MCF_ENOMEM. */
KPM_API int kpm_contour_create(size_t dim, size_t M, size_t N, double margin,
                               kpm_contour **out);
KPM_API void kpm_contour_destroy(kpm_contour *g);

/* dS (and, when err is not NULL, its bound) of the change c (checked here) to h, whose own
 * scaling is a, b, at T > 0 and mu.  Errors: MCF_EINVAL (a bad change, T, mu; a phase the
 * nodes cannot follow: the message names energy_points and moments that would do). */
KPM_API int kpm_contour_delta_action(kpm_contour *g, const mcf_hamiltonian *h, double a,
                                     double b, const mcf_change *c, double T, double mu,
                                     double *dS, double *err);

/* The same from diagonal moments computed elsewhere (a GPU): for a change of rank 1 or 2,
 * dmu holds M moments <v|T_n(H~)|v> of v = u_0 [, u_1, u_0 + u_1, u_0 + i u_1] (set j at
 * dmu[j M]) in the scaling a2, b2 of kpm_contour_scaling. */
KPM_API int kpm_contour_finish_diag(kpm_contour *g, double a2, double b2, const mcf_change *c,
                                    const double *dmu, double T, double mu, double *dS,
                                    double *err);

/* The scaling a2, b2 that covers H (scaled by a, b with margin) and H + Delta (Gershgorin
 * discs of the rows c touches); a2 = a, b2 = b when those lie inside. */
KPM_API void kpm_contour_scaling(const mcf_hamiltonian *h, double a, double b, double margin,
                                 const mcf_change *c, double *a2, double *b2);

/* The Bernstein parameter of the pole (mu - b + i pi T) / a of the Fermi function. */
KPM_API double kpm_contour_pole_gamma(double a, double b, double T, double mu);

/* Where the contour goes for (T, mu) in the scaling a2, b2 (what a device finishing the
 * contour itself needs): the ellipse's Bernstein parameter gamma, the quadrature strip's
 * half-width tau, the rate of the error per moment, N (half-contour intervals), M, and the
 * enclosed Fermi poles t_k = z~_k - sqrt(z~_k^2 - 1) (|t| < 1), at most
 * KPM_CONTOUR_PLAN_POLES of them (poles = 0 with too_many = 1 when more are needed: finish
 * such a change on the host).  Sets g's rate for kpm_contour_moments_for.  Errors: as
 * kpm_contour_delta_action's for a T too low for the nodes. */
#define KPM_CONTOUR_PLAN_POLES 16
typedef struct kpm_contour_plan {
    double gamma, tau, rate;
    size_t N, M, poles;
    int too_many;
    double pole_re[KPM_CONTOUR_PLAN_POLES], pole_im[KPM_CONTOUR_PLAN_POLES];
} kpm_contour_plan;
KPM_API int kpm_contour_plan_for(kpm_contour *g, double a2, double b2, double T, double mu,
                                 kpm_contour_plan *out);

/* The moments that would bring a bound err of the last call down to target: err falls as
 * e^{-M r}, r the rate of the chosen placement per moment (gamma_0 or gamma); M itself when
 * err <= target. */
KPM_API double kpm_contour_moments_for(const kpm_contour *g, double err, double target);

/* Adds amplitude (re, im) at row r of the change's vector q (0 or 1) to the start block of
 * the nv = 1 or 4 combinations u_0 [, u_1, u_0 + u_1, u_0 + i u_1] in the engine's layout
 * (kpm_engine_start; vector j of row r: real part at v[2 nv r + j], imaginary at
 * v[2 nv r + nv + j]): the block whose diagonal moments give a rank-2 change's Green's
 * functions (GFMC on the real axis and on the contour). */
static inline void kpm_combo_add(double *v, size_t nv, int q, size_t r, double re, double im)
{
    double *row = v + 2 * nv * r;
    if (q == 0) {
        row[0] += re;
        row[nv] += im;
        if (nv > 1) {
            row[2] += re;
            row[nv + 2] += im;
            row[3] += re;
            row[nv + 3] += im;
        }
    } else {
        row[1] += re;
        row[nv + 1] += im;
        row[2] += re;
        row[nv + 2] += im;
        row[3] -= im; /* i (re + i im) = -im + i re */
        row[nv + 3] += re;
    }
}

/* The change c as the older mcf_local_change that the real-axis method and the GPU kernel
 * take (rank <= 2, <= MCF_CHANGE_MAX_ENTRIES entries a vector): 1 and *out written when it
 * fits, 0 (out untouched) when not. */
KPM_API int kpm_change_to_local(const mcf_change *c, mcf_local_change *out);

/* ---- moment matrices ------------------------------------------------------------------
 *
 * mu[2 ((p K + q) M + n)] (+1: imaginary part) = <u_p| T_n(H~) |u_q> for p, q < K <=
 * MCF_CHANGE_RANK, n < M, two moments per step (mu_2n = 2 <r_n^p|r_n^q> - mu_0,
 * mu_2n+1 = 2 <r_n+1^p|r_n^q> - mu_1, r_n = T_n(H~) u), pairs p <= q computed and the
 * rest filled by Hermiticity.  v0 holds the u_p on entry (row-major, split complex:
 * element (row r, vector p) at v0[2 K r + p], its imaginary part at v0[2 K r + K + p]) and
 * is consumed; v1 is scratch of the same size.  One thread, sums in row order.  Refuses (MCF_EINVAL) a diagonal moment beyond
 * mu_0 (a spectrum outside [b - a, b + a]). */
KPM_API int kpm_moment_matrix(const mcf_hamiltonian *h, double a, double b, size_t K,
                              size_t M, double *v0, double *v1, double *mu);

/* The [evaluator] parameters: kpm_params.h; mcf 1.1's series: kpm_series.h. */

#ifdef __cplusplus
}
#endif

#include "kpm_params.h"
#include "kpm_series.h"
#endif
