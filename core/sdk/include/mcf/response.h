/* mcf/response.h — linear response of a tight-binding Hamiltonian (mcf 1.2): current
 * operators, and conductivities from two-dimensional Chebyshev moments (docs/methods.md,
 * "Conductivity from Chebyshev moments").
 *
 * Units: hbar = e = 1, lengths in lattice constants (mcf_lattice's positions), energies in
 * the Hamiltonian's.  A conductivity comes in e^2/hbar per length^(d-2) (in 2D plain
 * e^2/hbar, where the conductance quantum e^2/h is 1/(2 pi)).
 *
 * The current operator along axis a (0, 1, 2 for x, y, z) is J_a = i [H, X_a]:
 *
 *     (J_a)_rc = i (x_c - x_r)_a H_rc,
 *
 * x_r the position of row r's site and x_c - x_r the bond's displacement, taken as the
 * shortest image across periodic boundaries.  J_a is Hermitian, has no diagonal and H's
 * pattern, and carries H's phases (twisted boundaries, Peierls phases): it is stored as an
 * mcf_hamiltonian, which every fermion evaluator reads.
 *
 * The moments of an evaluator's response op (mcf/fermion.h) are per state,
 *
 *     mu_nm = (1/dim) Tr[A T_n(H~) B T_m(H~)],   H~ = (H - b) / a,   n, m < M,
 *
 * with A = J_a, B = J_b for sigma_ab.  With the kernel g_n and h_0 = 1, h_n = 2 (n > 0),
 * x = (E - b) / a and s(x) = sqrt(1 - x^2), the kernel's delta function is
 * delta(x - H~) = sum_n h_n g_n T_n(x) T_n(H~) / (pi s(x)), and (n_s = dim / volume, the
 * states per unit volume; f the Fermi function at T and mu; T = 0 a step):
 *
 *   Kubo-Greenwood, omega > 0:
 *     Re sigma_ab(omega) = (pi n_s / omega) int dE [f(E) - f(E + omega)] Re L(E, E + omega),
 *     L(E, E') = (1/a^2) sum_nm c_n(x) c_m(x') mu_nm,   c_n(x) = h_n g_n T_n(x) / (pi s(x));
 *   and its limit omega -> 0 (the DC conductivity of the symmetric part):
 *     sigma_ab = pi n_s int dE (-df/dE) Re L(E, E)   (T = 0: pi n_s Re L(mu, mu));
 *   Kubo-Bastin (the whole DC tensor, the Hall part included):
 *     sigma_ab = n_s / (pi a^2) int dx f(x) / (1 - x^2)^2 Re sum_nm h_n h_m g_n g_m mu_nm G_nm(x),
 *     G_nm(x) = T_n(x) e^{-i m t} (x + i m s) + T_m(x) e^{i n t} (x - i n s),  t = arccos x.
 * The integrals run over the spectrum's bounds [emin, emax] only (where the exact integrands
 * live), by Gauss-Legendre panels in t (16 points, at most pi / (M + 1) wide): Greenwood's
 * per omega, no wider than T / (2 a) within 40 T of mu; Bastin's integrand once on panels over
 * the whole bounds (no wider than T / (2 a) either when T > 0), reused for every mu. */
#ifndef MCF_RESPONSE_H
#define MCF_RESPONSE_H

#include "mcf/api.h"

#include <stddef.h>

#include "mcf/hamiltonian.h"
#include "mcf/lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* J_axis of h on `lattice` (lattice->sites == h->sites, row r on site r / h->orbitals):
 * a new Hamiltonian with h's pattern, (J)_rc = i d_rc H_rc, d_rc the axis' component of the
 * shortest displacement from site(r) to site(c), no diagonal, h's bounds not copied.  *out
 * is the caller's: mcf_hamiltonian_destroy().  Errors: MCF_EINVAL (axis outside the
 * lattice's dimensions, another number of sites, a periodic lattice with L < 3 whose
 * shortest image is ambiguous), MCF_ENOMEM. */
MCF_API int mcf_current_operator(const mcf_hamiltonian *h, const mcf_lattice *lattice,
                                 int axis, mcf_hamiltonian **out);

/* Rewrites J (made by mcf_current_operator for a Hamiltonian of h's sizes) from h's entries
 * now: for a Monte Carlo chain whose H changes.  MCF_EINVAL when the sizes differ, or as
 * mcf_current_operator. */
MCF_API int mcf_current_operator_update(mcf_hamiltonian *J, const mcf_hamiltonian *h,
                                        const mcf_lattice *lattice, int axis);

/* The values of a model's curve of response moments (MCF_OBS_RESPONSE_MOMENTS, mcf/model.h)
 * for M moments per index: Re mu (M^2), Im mu (M^2), a, b, emin, emax, n_s. */
#define MCF_RESPONSE_POINTS(M) (2 * (size_t)(M) * (size_t)(M) + 5)

/* A set of two-dimensional moments and what the conductivities need besides. */
typedef struct mcf_kubo {
    size_t M;                 /* moments per index (>= 2) */
    const double *mu_re;      /* M x M, mu_nm at [n M + m] (mcf/fermion.h's response) */
    const double *mu_im;      /* NULL: all 0 */
    double a, b;              /* the moments' scaling, a > 0 */
    double emin, emax;        /* the spectrum's bounds, inside (b - a, b + a) */
    const char *kernel;       /* "jackson" (NULL), "lorentz" (lambda 4), "lorentz:LAMBDA",
                                 "none" */
    double states_per_volume; /* n_s = dim / volume (> 0) */
} mcf_kubo;

/* The kernel coefficients g_0..g_{M-1} of `kernel` (as mcf_kubo's) into g.  MCF_EINVAL for
 * an unknown name or a lambda that is not positive and finite. */
MCF_API int mcf_kubo_kernel(const char *kernel, size_t M, double *g);

/* Kubo-Greenwood at T >= 0 and chemical potential mu: sigma[i] = Re sigma_ab(omega[i]) for
 * omega[i] > 0, and the DC limit where omega[i] = 0.  Errors: MCF_EINVAL (a bad mcf_kubo,
 * T < 0, a non-finite mu, omega < 0), MCF_ENOMEM. */
MCF_API int mcf_kubo_greenwood(const mcf_kubo *k, double T, double mu, size_t n,
                               const double *omega, double *sigma);

/* Kubo-Bastin at T >= 0: sigma[i] = sigma_ab at chemical potential mu[i].  When imag is not
 * NULL, imag[i] receives the integral's imaginary part, which is 0 for exact moments of
 * Hermitian A, B (rounding) and the size of a stochastic estimate's noise otherwise.
 * Errors as mcf_kubo_greenwood. */
MCF_API int mcf_kubo_bastin(const mcf_kubo *k, double T, size_t n, const double *mu,
                            double *sigma, double *imag);

/* ---- spectral functions from a vector's moments (spectral.c) -----------------------------
 *
 * For the moments mu_n = <v| T_n(H~) |v> of one vector (mcf/fermion.h's vector_moments; v = |k>
 * the Bloch state of wave vector k gives A(k, E)), in the scaling a, b:
 *
 *     A(E) = sum_n h_n g_n mu_n T_n(x) / (pi a sqrt(1 - x^2)),   x = (E - b) / a,
 *
 * h_0 = 1, h_n = 2, g_n the kernel's coefficients (mcf_kubo_kernel's names; NULL: Jackson).
 * A(E) at the n energies E[i] into A[i] (0 where |x| >= 1).  Errors: MCF_EINVAL (M < 1, a <= 0,
 * a bad kernel, a NULL array). */
MCF_API int mcf_spectral_function(size_t M, const double *mu, double a, double b,
                                  const char *kernel, size_t n, const double *E, double *A);

/* The occupied weight int A(E) f(E) dE of the same series, f the Fermi function at T >= 0 and
 * chemical potential mu_chem: at T = 0 in closed form (int_{-1}^{x_mu} T_n / (pi s) dx), at
 * T > 0 by Gauss-Chebyshev quadrature on max(8 M, 64 a / T) nodes (f is smooth on the scale
 * T / a).  For v = |k>: the momentum distribution n(k).  Errors as mcf_spectral_function. */
MCF_API int mcf_spectral_occupation(size_t M, const double *mu, double a, double b,
                                    const char *kernel, double T, double mu_chem,
                                    double *occupied);

/* ---- spectral functions along a path (bloch.c; mcf 1.2, issue 47) -------------------------
 *
 * The wave vectors of the periodic torus of L cells with the twist theta (mcf/lattice.h) are
 * K_d = (2 pi n_d + theta_d) / L.  A path joins named points (units: radians per lattice
 * constant, the conventional cube for bcc):
 *     chain   G (0), X (pi)
 *     square  G, X (pi, 0), Y (0, pi), M (pi, pi)
 *     cubic   G, X (pi, 0, 0), Y, Z, M (pi, pi, 0), R (pi, pi, pi)
 *     bcc     G, H (2 pi, 0, 0), N (pi, pi, 0), P (pi, pi, pi)
 * written as their names separated by spaces or dashes ("G X M G", "G-X-M-G", case aside);
 * "auto" (or NULL, "") is the lattice's usual path (chain G X, square G X M G, cubic
 * G X M G R X, bcc G H N G P H), and "all" every wave vector of the torus, one per state of an
 * orbital (n_0 fastest; bcc: n_0 < 2 L, as its 2 L^3 sites have K and K + (2 pi, 0, 0)).  A
 * corner c pi is n = c L / 2 (rounded down for odd L); between two corners the path takes
 * the allowed n nearest to the segment, one per step of the longest component (on the
 * square's and cube's lines of symmetry exactly the wave vectors on the line), each point
 * once; the twist shifts every K by theta / L off the line. */
#define MCF_KPATH_CORNERS 32
typedef struct mcf_kpath {
    size_t points;          /* nk */
    double *k;              /* nk x 3: the wave vectors K (0 beyond the lattice's dim) */
    double *s;              /* nk: the length along the path (|K_j - K_{j-1}| summed); "all":
                               the index */
    size_t corners;         /* the named points (0 for "all") */
    size_t *corner;         /* their indices into k */
    char label[MCF_KPATH_CORNERS][8]; /* their names */
} mcf_kpath;

/* The path `text` (above) on lat with the twist theta (radians, 3 numbers; NULL: none) into
 * *out (mcf_kpath_destroy).  Errors: MCF_EINVAL (open boundaries, an unknown point, naming
 * the lattice's points; fewer than 2 or more than MCF_KPATH_CORNERS points; two neighbours
 * on the path that are one wave vector on this L), MCF_ENOMEM. */
MCF_API int mcf_kpath_create(const mcf_lattice *lat, const char *text, const double *theta,
                             mcf_kpath **out);
MCF_API void mcf_kpath_destroy(mcf_kpath *p);

/* The Bloch vector of wave vector K (3 numbers) on orbital `orbital` of `orbitals` per site
 * (row i orbitals + o, as mcf/hamiltonian.h lays sites out): component (i, orbital) =
 * w_i exp(i K . r_i) / sqrt(N), r_i the site's position, w_i = w[2 i] + i w[2 i + 1] (NULL:
 * 1), every other component 0; v holds 2 N orbitals doubles (re, im interleaved).  With the
 * twist's K and w = 1 it is an eigenvector of any translation-invariant hopping
 * (mcf_hamiltonian_set_hopping_twisted's phases).  A model whose states carry a local frame
 * sets w: the double exchange at J_H = inf, the spin sigma's amplitude <chi_i|sigma>.
 * MCF_EINVAL for orbital >= orbitals or a NULL array. */
MCF_API int mcf_bloch_vector(const mcf_lattice *lat, const double *K, size_t orbitals,
                             size_t orbital, const double *w, double *v);

/* The keys of a model that measures A(k, E) (its parameter array, after MCF_LATTICE_PARAMS):
 * spectral_moments = M (0: none) and spectral_path (the text above). */
#define MCF_SPECTRAL_PARAMS                                                                   \
    {"spectral_moments", MCF_PARAM_INT, "0",                                                  \
     MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,            \
     .doc = "Chebyshev moments M of the spectral function A(k, E) along spectral_path at every " \
     "measurement (curve spectral_function_moments; `mcf response DIR` turns them into "       \
     "A(k, E) and n(k) with errors); 0 = none"},                                              \
    {"spectral_path", MCF_PARAM_STRING, "auto", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, \
     0, 0, NULL,                                                                              \
     .doc = "the wave vectors of spectral_moments: named points joined (\"G X M G\"; square G " \
     "X Y M, cubic also Z R, bcc G H N P), auto (the lattice's usual path) or all (every k "  \
     "of the torus)"}

/* The values of a model's curve of spectral moments (MCF_OBS_SPECTRAL_MOMENTS, mcf/model.h)
 * for nk wave vectors and M moments: M, nk, a, b, then per wave vector K_x, K_y, K_z and s
 * (the path's length), then mu_n(K_j) at 4 + 4 nk + j M + n. */
#define MCF_SPECTRAL_POINTS(nk, M) (4 + 4 * (size_t)(nk) + (size_t)(nk) * (size_t)(M))

#ifdef __cplusplus
}
#endif
#endif
