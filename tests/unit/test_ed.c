/* test_ed.c — the exact-diagonalization fermion evaluator (plugins/ed), loaded with the
 * core's plugin loader and used only through its ops, against formulas computed here:
 *
 *   (a) a periodic chain of N sites, H_ij = -t for neighbours, eigenvalues
 *       -2t cos(2 pi k / N): the grid, the DOS point by point against the Gaussian sum over
 *       the analytic levels, its integral (1 when the grid covers the Gaussian tails, the
 *       exact Gaussian mass inside the grid otherwise), the density and band energy at
 *       T = 0 and T > 0 against sums over the analytic levels;
 *   (b) the LDOS of every row integrates to 1, and its average over rows is the DOS;
 *   (c) -Im G_rr / pi at the grid energies against the Lorentzian-broadened LDOS built here
 *       from an independent eigen-decomposition (GSL), Re G_rr likewise;
 *   (d) a Hamiltonian larger than max_dim is refused, naming the dimension;
 *   (e) after a change (set + version bump) the results follow the new Hamiltonian, and
 *       without a version bump the cached diagonalization is used;
 *   plus batches of several workspaces (OpenMP) against single calls, and bad input.
 * delta_action, dS = S_eff(H + Delta) - S_eff(H) with S_eff = -sum log(1 + exp(-(eps-mu)/T)):
 *   (f) random rank-1 and rank-2 changes of random Hamiltonians (dim 20..60, complex and
 *       real) against S_eff from eigenvalues computed here (H + Delta built by a loop of
 *       this file, GSL's complex solver, sums in long double), the cache of H's spectrum
 *       (a change without version bump is not seen; with one it is), H left unchanged;
 *   (g) one isolated level of a diagonal H moved by delta: the closed form
 *       log(1 + exp(-(e - mu)/T)) - log(1 + exp(-(e + delta - mu)/T));
 *   (h) T -> 0: dS -> delta / T for a level far below mu (T = 1e-3 and 1e-300, finite),
 *       0 for one far above, and an overflowing dS refused;
 *   (i) bad input refused with MCF_EINVAL and a message naming the problem and workspace;
 *   (j) a batch of three workspaces gives the single calls' numbers bit for bit.
 * occupation_dT, the T-derivatives dn/dT = (1/dim) sum_k g_k, de/dT = (1/dim) sum_k E_k g_k,
 * g = (E - mu) / T^2 f (1 - f):
 *   (k) density and energy bit for bit those of occupation() (chain, random complex H, at
 *       9 (mu, T)), a batch of three = single calls; two levels +-t (H_01 = -t) against g
 *       written here as (E - mu) / T^2 e^-|x| / (1 + e^-|x|)^2 (ed: y / (4 cosh^2(y/2)) / T)
 *       to 10 x [eps_E (1 + |x|) e^-|x| / T^2 + 20 eps |g|] per level, x = (E - mu) / T
 *       (|dg/dE| <= (1 + |x|) f (1 - f) / T^2; eps_E = 4 eps t, the eigenvalues' error;
 *       20 eps, the two formulas' rounding); a random complex H
 *       (dim 16) against the central difference (n(T + h) - n(T - h)) / 2h of occupation()
 *       (h = 2e-5) to twice [truncation h^2 |n_TTT| / 6, n_TTT from a second difference of
 *       occupation_dT itself at T -+ T/20, + rounding (dim + 2) eps max(1, |E|) / h: each
 *       of the dim terms and the sum rounds by ~eps]; T = 1e-300 gives exactly 0 (no level
 *       at mu); T = 0, -1, NaN, inf, mu = NaN and a NULL output refused (MCF_EINVAL). */
#include <complex.h>
#ifndef CMPLX /* clang before 15 with glibc's complex.h has no CMPLX */
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_sort_vector.h>
#include <gsl/gsl_vector.h>

#include "check.h"
#include "internal.h"
#include "test_params.h"

static const double pi = 3.14159265358979323846;
static const double two_pi = 6.28318530717958647692;

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* ---- parameters built from the plugin's declaration -------------------------------- */

/* The declared defaults of info, with overrides "key", "text", ... NULL; every value must
 * parse. */
static test_params *params_checked(test_params *tp)
{
    CHECK(tp->ok, "parameters: %s", mcf_last_error());
    return tp;
}
#define make_params(info_, ...) \
    params_checked(test_params_make((info_)->params, "test_ed.c", __VA_ARGS__))

/* ---- Hamiltonians ------------------------------------------------------------------ */

static mcf_hamiltonian *chain_w(size_t N, double t, int width)
{
    mcf_hamiltonian *h = NULL;
    int rc = mcf_hamiltonian_create(N, 1, width, &h);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < N; i++)
        CHECK(mcf_hamiltonian_set(h, i, (i + 1) % N, -t, 0.0) == MCF_OK, "%s",
              mcf_last_error());
    return h;
}

static mcf_hamiltonian *chain(size_t N, double t) { return chain_w(N, t, 2); }

/* sites x 2 orbitals, complex random hoppings between neighbouring sites of a ring and
 * between the orbitals of a site, random on-site energies. */
static mcf_hamiltonian *random_h(size_t sites, uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 1);
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(sites, 2, 5, &h) == MCF_OK, "%s", mcf_last_error());
    const size_t n = h->dim;
    for (size_t r = 0; r < n; r++)
        mcf_hamiltonian_set_onsite(h, r, 2.0 * mcf_rng_uniform(&rng) - 1.0);
    for (size_t s = 0; s < sites; s++) {
        mcf_hamiltonian_set(h, 2 * s, 2 * s + 1, mcf_rng_normal(&rng), mcf_rng_normal(&rng));
        for (size_t a = 0; a < 2; a++)
            for (size_t b = 0; b < 2; b++)
                CHECK(mcf_hamiltonian_set(h, 2 * s + a, 2 * ((s + 1) % sites) + b,
                                          mcf_rng_normal(&rng), mcf_rng_normal(&rng)) == MCF_OK,
                      "%s", mcf_last_error());
    }
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "%s", mcf_last_error());
    return h;
}

/* Independent eigen-decomposition: eval (ascending) and w[r * n + k] = |psi_k(r)|^2. */
static void eigen(const mcf_hamiltonian *h, double *eval, double *w)
{
    const size_t n = h->dim;
    double *a = malloc(2 * n * n * sizeof *a), *z = malloc(2 * n * n * sizeof *z);
    mcf_hamiltonian_dense(h, a);
    gsl_matrix_complex_view A = gsl_matrix_complex_view_array(a, n, n);
    gsl_matrix_complex_view Z = gsl_matrix_complex_view_array(z, n, n);
    gsl_vector_view ev = gsl_vector_view_array(eval, n);
    gsl_eigen_hermv_workspace *ws = gsl_eigen_hermv_alloc(n);
    gsl_eigen_hermv(&A.matrix, &ev.vector, &Z.matrix, ws);
    gsl_eigen_hermv_free(ws);
    gsl_eigen_hermv_sort(&ev.vector, &Z.matrix, GSL_EIGEN_SORT_VAL_ASC);
    for (size_t q = 0; q < n * n; q++)
        w[q] = z[2 * q] * z[2 * q] + z[2 * q + 1] * z[2 * q + 1];
    free(a);
    free(z);
}

static double gauss(double x, double s)
{
    return exp(-0.5 * x * x / (s * s)) / (sqrt(two_pi) * s);
}

static double trapezoid(const double *E, const double *y, size_t n)
{
    double s = 0.0;
    for (size_t e = 0; e + 1 < n; e++)
        s += 0.5 * (E[e + 1] - E[e]) * (y[e] + y[e + 1]);
    return s;
}

/* ---- the tests --------------------------------------------------------------------- */

static const mcf_plugin_info *info;

static void *workspace(test_params *tp, const mcf_hamiltonian *h)
{
    void *ws = NULL;
    int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK && ws, "create: %s", mcf_last_error());
    return ws;
}

/* (a) the chain: grid, DOS, integral, occupations */
static void test_chain(void)
{
    const size_t N = 10; /* no level at 0: 2 pi k / N = pi / 2 has no integer k */
    const double t = 1.0, sigma = 0.05;
    mcf_hamiltonian *h = chain(N, t);
    test_params *tp = make_params(info, "energy_points", "4001", "broadening", "0.05", NULL);
    void *ws = workspace(tp, h);
    if (!ws)
        return;
    const size_t P = tev_energy_points(info, ws);
    CHECK(P == 4001, "energy_points %zu", P);
    double *E = malloc(P * sizeof *E), *dos = malloc(P * sizeof *dos);
    CHECK(tev_energies(info, ws, E) == MCF_OK, "%s", mcf_last_error());
    int asc = 1;
    for (size_t e = 0; e + 1 < P; e++)
        asc &= E[e] < E[e + 1];
    CHECK(E[0] == -2.0 * t && E[P - 1] == 2.0 * t && asc, "grid [%g, %g], ascending %d", E[0],
          E[P - 1], asc);
    CHECK(fabs(E[1] - E[0] - 4.0 * t / (double)(P - 1)) < 1e-15, "uniform step %g",
          E[1] - E[0]);

    double lev[64];
    for (size_t k = 0; k < N; k++)
        lev[k] = -2.0 * t * cos(two_pi * (double)k / (double)N);

    double *const outs[1] = {dos};
    void *const wss[1] = {ws};
    CHECK(tev_dos(info, wss, 1, NULL, outs) == MCF_OK, "dos: %s", mcf_last_error());
    double err = 0.0;
    for (size_t e = 0; e < P; e++) {
        double s = 0.0;
        for (size_t k = 0; k < N; k++)
            s += gauss(E[e] - lev[k], sigma);
        err = fmax(err, fabs(dos[e] - s / (double)N));
    }
    CHECK(err < 1e-11, "DOS vs analytic levels: max error %.3g", err);

    /* the Gaussian mass inside [E_0, E_P-1]: the levels at +-2t lose half of theirs */
    double mass = 0.0;
    for (size_t k = 0; k < N; k++)
        mass += gsl_cdf_gaussian_P(E[P - 1] - lev[k], sigma) -
                gsl_cdf_gaussian_P(E[0] - lev[k], sigma);
    mass /= (double)N;
    const double integral = trapezoid(E, dos, P);
    CHECK(fabs(integral - mass) < 1e-9, "DOS integral %.15g, Gaussian mass in the grid %.15g",
          integral, mass);
    CHECK(fabs(mass - 0.9) < 1e-9, "two of ten levels at the grid ends: mass %.15g", mass);
    printf("chain N = %zu: DOS integral over [emin, emax] = %.12f (Gaussian mass %.12f)\n", N,
           integral, mass);

    /* with bounds 12 sigma beyond the band, the grid holds all of every Gaussian */
    CHECK(mcf_hamiltonian_fix_bounds(h, -2.0 * t - 12 * sigma, 2.0 * t + 12 * sigma) == MCF_OK,
          "%s", mcf_last_error());
    CHECK(tev_energies(info, ws, E) == MCF_OK && E[0] == -2.0 * t - 12 * sigma, "grid follows fixed "
          "bounds: E0 %g", E[0]);
    CHECK(tev_dos(info, wss, 1, NULL, outs) == MCF_OK, "dos: %s", mcf_last_error());
    const double full = trapezoid(E, dos, P);
    CHECK(fabs(full - 1.0) < 1e-9, "DOS integral with covered tails %.15g", full);
    printf("chain N = %zu: DOS integral with tails covered = %.15f\n", N, full);

    /* occupations: T = 0 exactly, T > 0 against the Fermi sum over analytic levels */
    double dens, en;
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, 0.0, &dens, &en) == MCF_OK, "%s",
          mcf_last_error());
    size_t below = 0;
    double eband = 0.0;
    for (size_t k = 0; k < N; k++)
        if (lev[k] < 0) {
            below++;
            eband += lev[k];
        }
    CHECK(dens == (double)below / (double)N, "T = 0 density %.17g, expected %zu/%zu", dens,
          below, N);
    CHECK(fabs(en - eband / (double)N) < 1e-14, "T = 0 band energy %.17g, expected %.17g", en,
          eband / (double)N);
    printf("chain N = %zu: mu = 0, T = 0: density %.15g (= %zu/%zu), band energy %.15g "
           "(exact %.15g)\n", N, dens, below, N, en, eband / (double)N);
    const double mus[] = {-1.0, 0.3, 1.9}, Ts[] = {0.05, 0.5, 3.0};
    double worst = 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            CHECK(tev_occupation(info, wss, 1, NULL, mus[a], Ts[b], &dens, &en) == MCF_OK, "%s",
                  mcf_last_error());
            double sn = 0.0, se = 0.0;
            for (size_t k = 0; k < N; k++) {
                const double f = 1.0 / (1.0 + exp((lev[k] - mus[a]) / Ts[b]));
                sn += f;
                se += lev[k] * f;
            }
            worst = fmax(worst, fabs(dens - sn / (double)N) + fabs(en - se / (double)N));
        }
    CHECK(worst < 1e-13, "T > 0 occupations: max error %.3g", worst);
    /* huge |E - mu| / T: no overflow, the step */
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, 1e-300, &dens, &en) == MCF_OK &&
              dens == (double)below / (double)N && isfinite(en),
          "T = 1e-300: density %.17g", dens);
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, -1.0, &dens, &en) == MCF_EINVAL &&
              contains(mcf_last_error(), "T = -1"),
          "T < 0: %s", mcf_last_error());
    CHECK(tev_occupation(info, wss, 1, NULL, NAN, 1.0, &dens, &en) == MCF_EINVAL, "mu NaN accepted");

    tev_destroy(info, ws);
    free(E);
    free(dos);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* (b) LDOS normalization and average = DOS, (c) Green's functions, for one Hamiltonian */
static void test_rows(mcf_hamiltonian *h, const char *what)
{
    const double sigma = 0.05;
    /* bounds wide enough for every Gaussian tail */
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    CHECK(mcf_hamiltonian_fix_bounds(h, lo - 12 * sigma, hi + 12 * sigma) == MCF_OK, "%s",
          mcf_last_error());
    const char *points = "6001";
    test_params *tp = make_params(info, "energy_points", points, "broadening", "0.05", NULL);
    void *ws = workspace(tp, h);
    if (!ws)
        return;
    const size_t n = h->dim, P = tev_energy_points(info, ws);
    double *E = malloc(P * sizeof *E), *dos = malloc(P * sizeof *dos);
    double *ldos = malloc(n * P * sizeof *ldos);
    double *gre = malloc(n * P * sizeof *gre), *gim = malloc(n * P * sizeof *gim);
    size_t *rows = malloc(n * sizeof *rows);
    for (size_t r = 0; r < n; r++)
        rows[r] = r;
    tev_energies(info, ws, E);
    void *const wss[1] = {ws};
    const size_t *const rl[1] = {rows};
    double *const o1[1] = {dos}, *const o2[1] = {ldos}, *const ore[1] = {gre},
                  *const oim[1] = {gim};
    CHECK(tev_dos(info, wss, 1, NULL, o1) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_ldos(info, wss, 1, rl, n, o2) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_green(info, wss, 1, rl, n, ore, oim) == MCF_OK, "%s", mcf_last_error());

    double worst_norm = 0.0, worst_avg = 0.0;
    for (size_t r = 0; r < n; r++)
        worst_norm = fmax(worst_norm, fabs(trapezoid(E, ldos + r * P, P) - 1.0));
    for (size_t e = 0; e < P; e++) {
        double s = 0.0;
        for (size_t r = 0; r < n; r++)
            s += ldos[r * P + e];
        worst_avg = fmax(worst_avg, fabs(s / (double)n - dos[e]));
    }
    CHECK(worst_norm < 1e-9, "%s: LDOS integrals deviate from 1 by up to %.3g", what,
          worst_norm);
    CHECK(worst_avg < 1e-12, "%s: LDOS averaged over rows differs from the DOS by %.3g", what,
          worst_avg);
    printf("%s (dim %zu): max |int LDOS - 1| = %.3g, max |avg LDOS - DOS| = %.3g\n", what, n,
           worst_norm, worst_avg);

    /* Green's functions against the Lorentzian formula from our own eigen-decomposition */
    double *eval = malloc(n * sizeof *eval), *w = malloc(n * n * sizeof *w);
    eigen(h, eval, w);
    double worst_im = 0.0, worst_re = 0.0, scale = 0.0, worst_g = 0.0;
    for (size_t r = 0; r < n; r++)
        for (size_t e = 0; e < P; e++) {
            double sl = 0.0, sr = 0.0, sg = 0.0;
            for (size_t k = 0; k < n; k++) {
                const double x = E[e] - eval[k], d = x * x + sigma * sigma;
                sl += w[r * n + k] * (sigma / pi) / d;
                sr += w[r * n + k] * x / d;
                sg += w[r * n + k] * gauss(x, sigma);
            }
            worst_im = fmax(worst_im, fabs(-gim[r * P + e] / pi - sl));
            worst_re = fmax(worst_re, fabs(gre[r * P + e] - sr));
            worst_g = fmax(worst_g, fabs(ldos[r * P + e] - sg));
            scale = fmax(scale, sl);
        }
    CHECK(worst_im < 1e-10 * scale, "%s: -Im G / pi vs Lorentzian LDOS: error %.3g (scale %g)",
          what, worst_im, scale);
    CHECK(worst_re < 1e-10 * scale, "%s: Re G vs formula: error %.3g", what, worst_re);
    CHECK(worst_g < 1e-10 * scale, "%s: LDOS vs Gaussian formula: error %.3g", what, worst_g);
    printf("%s: max |-Im G/pi - Lorentzian LDOS| = %.3g, max |Re G - formula| = %.3g (peak "
           "%.3g)\n", what, worst_im, worst_re, scale);

    /* bad rows */
    size_t bad[2] = {0, n};
    const size_t *const bl[1] = {bad};
    int rc = tev_ldos(info, wss, 1, bl, 2, o2);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "out of range"), "row %zu: %s", n,
          mcf_last_error());
    rc = tev_green(info, wss, 1, bl, 2, ore, oim);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "out of range"), "green row %zu: %s",
          n, mcf_last_error());
    free(eval);
    free(w);
    free(E);
    free(dos);
    free(ldos);
    free(gre);
    free(gim);
    free(rows);
    tev_destroy(info, ws);
    test_params_free(tp);
}

/* batches of three workspaces (OpenMP) give exactly the single-call results */
static void test_batch(void)
{
    mcf_hamiltonian *hs[3] = {random_h(5, 11), random_h(7, 12), chain(9, 0.7)};
    test_params *tp = make_params(info, "energy_points", "300", NULL);
    void *ws[3];
    double *single[3], *batch[3], *gs[3], *gb[3], *is[3], *ib[3];
    size_t rows[3][2] = {{0, 3}, {13, 2}, {8, 8}};
    const size_t *rl[3] = {rows[0], rows[1], rows[2]};
    double dens_s[3], en_s[3], dens_b[3], en_b[3];
    for (int k = 0; k < 3; k++) {
        ws[k] = workspace(tp, hs[k]);
        single[k] = calloc(300, sizeof(double));
        batch[k] = calloc(300, sizeof(double));
        gs[k] = calloc(600, sizeof(double));
        gb[k] = calloc(600, sizeof(double));
        is[k] = calloc(600, sizeof(double));
        ib[k] = calloc(600, sizeof(double));
    }
    for (int k = 0; k < 3; k++) {
        CHECK(tev_dos(info, &ws[k], 1, NULL, &single[k]) == MCF_OK, "%s", mcf_last_error());
        CHECK(tev_green(info, &ws[k], 1, &rl[k], 2, &gs[k], &is[k]) == MCF_OK, "%s",
              mcf_last_error());
        CHECK(tev_occupation(info, &ws[k], 1, NULL, 0.1, 0.2, &dens_s[k], &en_s[k]) == MCF_OK,
              "%s", mcf_last_error());
    }
    CHECK(tev_dos(info, ws, 3, NULL, batch) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_green(info, ws, 3, rl, 2, gb, ib) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_occupation(info, ws, 3, NULL, 0.1, 0.2, dens_b, en_b) == MCF_OK, "%s",
          mcf_last_error());
    for (int k = 0; k < 3; k++) {
        CHECK(!memcmp(single[k], batch[k], 300 * sizeof(double)), "batch DOS %d differs", k);
        CHECK(!memcmp(gs[k], gb[k], 600 * sizeof(double)) &&
                  !memcmp(is[k], ib[k], 600 * sizeof(double)),
              "batch Green %d differs", k);
        CHECK(dens_s[k] == dens_b[k] && en_s[k] == en_b[k], "batch occupation %d differs", k);
    }
    /* an error in one workspace of a batch is reported with its index */
    rows[1][0] = 14; /* dim of hs[1] is 14 */
    int rc = tev_ldos(info, ws, 3, rl, 2, gb);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 14") &&
              contains(mcf_last_error(), "workspace 1 of 3"),
          "batch error: %s", mcf_last_error());
    void *const nulls[2] = {ws[0], NULL};
    CHECK(tev_dos(info, nulls, 2, NULL, batch) == MCF_EINVAL, "NULL workspace accepted");
    CHECK(tev_dos(info, ws, 0, NULL, NULL) == MCF_OK, "an empty batch is fine");
    for (int k = 0; k < 3; k++) {
        tev_destroy(info, ws[k]);
        free(single[k]);
        free(batch[k]);
        free(gs[k]);
        free(gb[k]);
        free(is[k]);
        free(ib[k]);
        mcf_hamiltonian_destroy(hs[k]);
    }
    test_params_free(tp);
}

/* (d) max_dim */
static void test_max_dim(void)
{
    mcf_hamiltonian *h = chain(20, 1.0);
    test_params *tp = make_params(info, "max_dim", "16", NULL);
    void *ws = NULL;
    int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "dimension 20") &&
              contains(mcf_last_error(), "max_dim = 16"),
          "dim 20 > max_dim 16: rc %d, %s", rc, mcf_last_error());
    printf("refused: %s\n", mcf_last_error());
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
    /* the default limit, 4096 */
    CHECK(mcf_hamiltonian_create(4097, 1, 1, &h) == MCF_OK, "%s", mcf_last_error());
    tp = make_params(info, NULL);
    rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "dimension 4097") &&
              contains(mcf_last_error(), "max_dim = 4096"),
          "dim 4097 with defaults: %s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    /* exactly max_dim is fine */
    h = chain(16, 1.0);
    test_params *tq = make_params(info, "max_dim", "16", NULL);
    rc = tev_create(info, &tq->p, h, &ws);
    CHECK(rc == MCF_OK, "dim 16 = max_dim: %s", mcf_last_error());
    if (!rc)
        tev_destroy(info, ws);
    mcf_hamiltonian_destroy(h);
    test_params_free(tp);
    test_params_free(tq);
    /* parameter declaration: the defaults the brief names */
    const char *want[][2] = {{"energy_points", "512"}, {"broadening", "0.01"},
                             {"max_dim", "4096"}};
    for (int k = 0; k < 3; k++) {
        int found = 0;
        for (const mcf_param_spec *s = info->params; s->name; s++)
            found |= !strcmp(s->name, want[k][0]) && !strcmp(s->default_value, want[k][1]);
        CHECK(found, "parameter %s with default %s", want[k][0], want[k][1]);
    }
    mcf_value v;
    for (const mcf_param_spec *s = info->params; s->name; s++) {
        if (!strcmp(s->name, "broadening"))
            CHECK(mcfi_value_parse(s, "0", &v) == MCF_EINVAL, "broadening 0 accepted");
        if (!strcmp(s->name, "energy_points"))
            CHECK(mcfi_value_parse(s, "1", &v) == MCF_EINVAL, "energy_points 1 accepted");
    }
}

/* (e) changes: the workspace re-diagonalizes when the version changed, and only then */
static void test_changes(void)
{
    const size_t N = 12;
    mcf_hamiltonian *h = chain_w(N, 1.0, 4); /* room for extra hoppings */
    CHECK(mcf_hamiltonian_fix_bounds(h, -4.0, 4.0) == MCF_OK, "%s", mcf_last_error());
    test_params *tp = make_params(info, "energy_points", "200", "broadening", "0.1", NULL);
    void *ws = workspace(tp, h);
    void *const wss[1] = {ws};
    const size_t P = 200;
    double a[200], b[200], c[200], E[200], g_re[200], g_im[200];
    double *const oa[1] = {a}, *const ob[1] = {b}, *const oc[1] = {c};
    double *const ore[1] = {g_re}, *const oim[1] = {g_im};
    size_t row0 = 0;
    const size_t *const rl[1] = {&row0};
    double d0, e0, d1, e1;
    tev_energies(info, ws, E);
    CHECK(tev_dos(info, wss, 1, NULL, oa) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, 0.0, &d0, &e0) == MCF_OK, "%s", mcf_last_error());

    /* a change behind the workspace's back (no version bump) is not seen: cached */
    for (size_t r = 0; r < N; r++)
        h->onsite[r] = 0.5;
    CHECK(tev_dos(info, wss, 1, NULL, ob) == MCF_OK && !memcmp(a, b, sizeof a),
          "without a version bump the DOS was recomputed");
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, 0.0, &d1, &e1) == MCF_OK && d1 == d0 && e1 == e0,
          "without a version bump the occupation was recomputed");

    /* through the API: every level moves up by 0.5 */
    for (size_t r = 0; r < N; r++)
        CHECK(mcf_hamiltonian_set_onsite(h, r, 0.5) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_dos(info, wss, 1, NULL, oc) == MCF_OK, "%s", mcf_last_error());
    double err = 0.0;
    size_t below = 0;
    double eband = 0.0, lev[12];
    for (size_t k = 0; k < N; k++) {
        lev[k] = 0.5 - 2.0 * cos(two_pi * (double)k / (double)N);
        if (lev[k] < 0) {
            below++;
            eband += lev[k];
        }
    }
    for (size_t e = 0; e < P; e++) {
        double s = 0.0;
        for (size_t k = 0; k < N; k++)
            s += gauss(E[e] - lev[k], 0.1);
        err = fmax(err, fabs(c[e] - s / (double)N));
    }
    CHECK(err < 1e-11, "shifted chain: DOS error %.3g", err);
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, 0.0, &d1, &e1) == MCF_OK, "%s", mcf_last_error());
    CHECK(d1 == (double)below / (double)N && fabs(e1 - eband / (double)N) < 1e-14,
          "shifted chain: density %g (expected %zu/%zu), energy %.17g (expected %.17g)", d1,
          below, N, e1, eband / (double)N);
    CHECK(d1 != d0, "the density did not change (%g)", d1);

    /* a new hopping: compare the Green's function with our own decomposition */
    CHECK(mcf_hamiltonian_set(h, 0, 6, 0.3, -0.4) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set(h, 0, 1, -1.2, 0.1) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_green(info, wss, 1, rl, 1, ore, oim) == MCF_OK, "%s", mcf_last_error());
    double eval[12], w[144];
    eigen(h, eval, w);
    err = 0.0;
    for (size_t e = 0; e < P; e++) {
        double sr = 0.0, si = 0.0;
        for (size_t k = 0; k < N; k++) {
            const double x = E[e] - eval[k], d = x * x + 0.01;
            sr += w[k] * x / d;
            si -= w[k] * 0.1 / d;
        }
        err = fmax(err, fabs(sr - g_re[e]) + fabs(si - g_im[e]));
    }
    CHECK(err < 1e-10, "after set(): Green's function error %.3g", err);
    /* eigenvalues only first, then eigenvectors of the same version */
    CHECK(mcf_hamiltonian_set(h, 3, 9, 0.2, 0.0) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_occupation(info, wss, 1, NULL, 0.0, 0.0, &d1, &e1) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_green(info, wss, 1, rl, 1, ore, oim) == MCF_OK, "%s", mcf_last_error());
    eigen(h, eval, w);
    err = 0.0;
    double sn = 0.0;
    for (size_t k = 0; k < N; k++)
        sn += eval[k] < 0 ? 1.0 : 0.0;
    for (size_t e = 0; e < P; e++) {
        double si = 0.0;
        for (size_t k = 0; k < N; k++) {
            const double x = E[e] - eval[k];
            si -= w[k] * 0.1 / (x * x + 0.01);
        }
        err = fmax(err, fabs(si - g_im[e]));
    }
    CHECK(err < 1e-10 && d1 == sn / (double)N, "values then vectors: error %.3g, density %g",
          err, d1);

    /* a corrupted table is refused, not diagonalized */
    const double keep = h->hop_im[0];
    h->hop_im[0] += 1.0;
    h->version++;
    int rc = tev_dos(info, wss, 1, NULL, oa);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "Hermitian"), "corrupt H: %s",
          mcf_last_error());
    h->hop_im[0] = keep;
    h->version++;
    CHECK(tev_dos(info, wss, 1, NULL, oa) == MCF_OK, "repaired: %s", mcf_last_error());
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* a degenerate spectrum (H = c 1, free bounds): the grid is widened around c */
static void test_degenerate(void)
{
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(4, 1, 1, &h) == MCF_OK, "%s", mcf_last_error());
    for (size_t r = 0; r < 4; r++)
        mcf_hamiltonian_set_onsite(h, r, 1.5);
    test_params *tp = make_params(info, "energy_points", "101", "broadening", "0.1", NULL);
    void *ws = workspace(tp, h);
    double E[101], d[101];
    double *const o[1] = {d};
    tev_energies(info, ws, E);
    CHECK(E[0] < 1.5 && E[100] > 1.5 && fabs(E[50] - 1.5) < 1e-14, "degenerate grid [%g, %g]",
          E[0], E[100]);
    CHECK(tev_dos(info, &ws, 1, NULL, o) == MCF_OK && fabs(d[50] - gauss(0.0, 0.1)) < 1e-12,
          "degenerate DOS peak %g", d[50]);
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* ---- delta_action ------------------------------------------------------------------ */

/* L(x) = log(1 + exp(-x)), each branch free of overflow. */
static double softplus_neg(double x)
{
    return x > 0 ? log1p(exp(-x)) : -x + log1p(exp(x));
}

/* S_eff = -sum_k L((eps_k - mu) / T), accumulated in long double. */
static long double action(const double *eval, size_t n, double mu, double T)
{
    long double s = 0.0L;
    for (size_t k = 0; k < n; k++)
        s -= (long double)softplus_neg((eval[k] - mu) / T);
    return s;
}

/* Eigenvalues (ascending) of the dense interleaved Hermitian a (destroyed): always GSL's
 * complex solver, whatever the evaluator picks. */
static void herm_values(double *a, size_t n, double *eval)
{
    gsl_matrix_complex_view A = gsl_matrix_complex_view_array(a, n, n);
    gsl_vector_view ev = gsl_vector_view_array(eval, n);
    gsl_eigen_herm_workspace *ws = gsl_eigen_herm_alloc(n);
    gsl_eigen_herm(&A.matrix, &ev.vector, ws);
    gsl_eigen_herm_free(ws);
    gsl_sort_vector(&ev.vector);
}

/* Delta = sum_ab |u_a> C_ab <u_b| into d (2 n^2, interleaved, zeroed here), by a loop over
 * the pairs of entries in complex arithmetic; returns ||Delta||_F. */
static double change_dense(const mcf_local_change *c, size_t n, double *d)
{
    memset(d, 0, 2 * n * n * sizeof *d);
    for (int a = 0; a < c->rank; a++)
        for (int b = 0; b < c->rank; b++) {
            const double complex C = CMPLX(c->c_re[a][b], c->c_im[a][b]);
            for (int e = 0; e < c->entries[a]; e++)
                for (int f = 0; f < c->entries[b]; f++) {
                    const double complex ua = CMPLX(c->re[a][e], c->im[a][e]);
                    const double complex ub = CMPLX(c->re[b][f], c->im[b][f]);
                    const double complex v = ua * C * conj(ub);
                    const size_t q = (size_t)c->row[a][e] * n + (size_t)c->row[b][f];
                    d[2 * q] += creal(v);
                    d[2 * q + 1] += cimag(v);
                }
        }
    double f2 = 0.0;
    for (size_t q = 0; q < 2 * n * n; q++)
        f2 += d[q] * d[q];
    return sqrt(f2);
}

/* Reference dS for eigenvalues eval of H (ascending) and the current h + c; writes
 * ||Delta||_F into *fro. */
static double ref_delta(const mcf_hamiltonian *h, const double *eval, const mcf_local_change *c,
                        double T, double mu, double *fro)
{
    const size_t n = h->dim;
    double *a = malloc(2 * n * n * sizeof *a), *d = malloc(2 * n * n * sizeof *d);
    double *ev2 = malloc(n * sizeof *ev2);
    *fro = change_dense(c, n, d);
    mcf_hamiltonian_dense(h, a);
    for (size_t q = 0; q < 2 * n * n; q++)
        a[q] += d[q];
    herm_values(a, n, ev2);
    const double dS = (double)(action(ev2, n, mu, T) - action(eval, n, mu, T));
    free(a);
    free(d);
    free(ev2);
    return dS;
}

/* Eigenvalues of h alone, by the same complex solver. */
static void h_values(const mcf_hamiltonian *h, double *eval)
{
    const size_t n = h->dim;
    double *a = malloc(2 * n * n * sizeof *a);
    mcf_hamiltonian_dense(h, a);
    herm_values(a, n, eval);
    free(a);
}

/* A random change of the given rank: 1..min(16, dim) distinct rows per vector (the two
 * vectors may share rows), normal complex amplitudes (real ones when real_only), a random
 * Hermitian C. */
static void random_change(mcf_rng *rng, size_t dim, int rank, int real_only,
                          mcf_local_change *c)
{
    memset(c, 0, sizeof *c);
    c->rank = rank;
    const size_t most = dim < MCF_CHANGE_MAX_ENTRIES ? dim : MCF_CHANGE_MAX_ENTRIES;
    for (int a = 0; a < rank; a++) {
        c->entries[a] = 1 + (int)mcf_rng_below(rng, most);
        for (int e = 0; e < c->entries[a]; e++) {
            int fresh;
            do {
                c->row[a][e] = (int64_t)mcf_rng_below(rng, dim);
                fresh = 1;
                for (int f = 0; f < e; f++)
                    fresh &= c->row[a][f] != c->row[a][e];
            } while (!fresh);
            c->re[a][e] = mcf_rng_normal(rng);
            c->im[a][e] = real_only ? 0.0 : mcf_rng_normal(rng);
        }
        c->c_re[a][a] = mcf_rng_normal(rng);
        for (int b = 0; b < a; b++) {
            c->c_re[a][b] = c->c_re[b][a] = mcf_rng_normal(rng);
            c->c_im[a][b] = real_only ? 0.0 : mcf_rng_normal(rng);
            c->c_im[b][a] = -c->c_im[a][b];
        }
    }
}

static int delta1(void *ws, const mcf_local_change *c, double T, double mu, double *dS)
{
    void *const wss[1] = {ws};
    const mcf_local_change *const cs[1] = {c};
    return tev_delta_action(info, wss, 1, cs, &T, &mu, dS);
}

/* (f) random changes against eigenvalues computed here.  Both sides carry the eigensolvers'
 * errors, ~3e-15 ||H|| rms and below ~3e-14 ||H|| per level (GSL; measured in ed.c's
 * header), independently, which move dS by ~3e-15 ||H|| sqrt(2 dim) / T and at most
 * ~6e-14 ||H|| dim / T; with ||H|| < 20 and dim <= 60 that is ~1e-12 / T typically,
 * < 1e-10 / T at worst.  The scale of dS is ||Delta|| / T (|L'| <= 1 and Lidskii:
 * |dS| <= sum_k |eps'_k - eps_k| / T <= sqrt(rank) ||Delta||_F / T), and ||Delta||_F is
 * >= 0.1 in these draws (printed): 1e-10 of max(|dS|, ||Delta||_F / T) bounds the error
 * by ~100 times the typical size, not always the worst case. */
static void test_delta_random(void)
{
    test_params *tp = make_params(info, NULL);
    mcf_rng rng;
    mcf_rng_init(&rng, 2024, 7);
    const double Ts[] = {0.05, 0.3, 1.0, 4.0};
    double worst = 0.0, min_fro = INFINITY;
    int cases = 0;
    for (int s = 0; s < 12; s++) {
        const int real_h = s >= 10; /* the last two: the real chain, real / complex change */
        const size_t sites = 10 + (size_t)mcf_rng_below(&rng, 21);
        mcf_hamiltonian *h = real_h ? chain(2 * sites, 1.0) : random_h(sites, 100 + (uint64_t)s);
        const size_t n = h->dim;
        void *ws = workspace(tp, h);
        double *eval = malloc(n * sizeof *eval), *dense0 = malloc(2 * n * n * sizeof *dense0),
               *dense1 = malloc(2 * n * n * sizeof *dense1);
        h_values(h, eval);
        mcf_hamiltonian_dense(h, dense0);
        const uint64_t version = h->version;
        for (int r = 1; r <= 2; r++) {
            mcf_local_change c;
            random_change(&rng, n, r, real_h && s == 10, &c);
            const double T = Ts[mcf_rng_below(&rng, 4)], mu = 2.0 * mcf_rng_uniform(&rng) - 1.0;
            double dS = NAN, fro;
            int rc = delta1(ws, &c, T, mu, &dS);
            CHECK(rc == MCF_OK, "delta_action: %s", mcf_last_error());
            const double ref = ref_delta(h, eval, &c, T, mu, &fro);
            const double scale = fmax(fabs(ref), fro / T), err = fabs(dS - ref) / scale;
            CHECK(err < 1e-10, "%s H dim %zu, rank %d, T %g, mu %g: dS %.17g, reference %.17g "
                  "(relative error %.3g)", real_h ? "real" : "complex", n, r, T, mu, dS, ref,
                  err);
            worst = fmax(worst, err);
            min_fro = fmin(min_fro, fro);
            cases++;
        }
        mcf_hamiltonian_dense(h, dense1);
        CHECK(h->version == version && !memcmp(dense0, dense1, 2 * n * n * sizeof *dense0),
              "delta_action changed the Hamiltonian");

        /* the cache: an edit without version bump is not seen (dS pairs the cached spectrum
         * of H with the edited H + Delta), one through the API is */
        mcf_local_change c;
        random_change(&rng, n, 2, 0, &c);
        const double T = 0.5, mu = 0.1;
        double dS, fro, *eval_new = malloc(n * sizeof *eval_new);
        h->onsite[0] += 0.25;
        CHECK(delta1(ws, &c, T, mu, &dS) == MCF_OK, "%s", mcf_last_error());
        double ref = ref_delta(h, eval, &c, T, mu, &fro);
        double scale = fmax(fabs(ref), fro / T);
        CHECK(fabs(dS - ref) < 1e-10 * scale, "no version bump: dS %.17g, with the cached "
              "spectrum %.17g", dS, ref);
        CHECK(mcf_hamiltonian_set_onsite(h, 0, h->onsite[0]) == MCF_OK, "%s", mcf_last_error());
        h_values(h, eval_new);
        CHECK(delta1(ws, &c, T, mu, &dS) == MCF_OK, "%s", mcf_last_error());
        ref = ref_delta(h, eval_new, &c, T, mu, &fro);
        scale = fmax(fabs(ref), fro / T);
        CHECK(fabs(dS - ref) < 1e-10 * scale, "after a version bump: dS %.17g, reference "
              "%.17g", dS, ref);
        /* the other ops, now diagonalizing in change_action's scratch, are unaffected */
        double dens, en, sn = 0.0;
        CHECK(tev_occupation(info, &ws, 1, NULL, mu, T, &dens, &en) == MCF_OK, "%s",
              mcf_last_error());
        for (size_t k = 0; k < n; k++)
            sn += 1.0 / (1.0 + exp((eval_new[k] - mu) / T));
        CHECK(fabs(dens - sn / (double)n) < 1e-13, "occupation after delta_action: %.17g, "
              "expected %.17g", dens, sn / (double)n);
        free(eval_new);
        free(eval);
        free(dense0);
        free(dense1);
        tev_destroy(info, ws);
        mcf_hamiltonian_destroy(h);
    }
    CHECK(min_fro >= 0.1, "a change with ||Delta||_F = %g: the tolerance assumes >= 0.1",
          min_fro);
    printf("delta_action, %d random rank-1/2 changes (dim 20..60, ||Delta||_F >= %.3g): max "
           "error %.3g of max(|dS|, ||Delta||_F / T)\n", cases, min_fro, worst);
    test_params_free(tp);
}

/* A diagonal Hamiltonian, e_i = -2 + 0.1 i (levels 0.1 apart), dim 40. */
static mcf_hamiltonian *ladder(void)
{
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(40, 1, 1, &h) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < 40; i++)
        CHECK(mcf_hamiltonian_set_onsite(h, i, -2.0 + 0.1 * (double)i) == MCF_OK, "%s",
              mcf_last_error());
    return h;
}

static mcf_local_change level_change(size_t i, double delta)
{
    mcf_local_change c;
    memset(&c, 0, sizeof c);
    c.rank = 1;
    c.entries[0] = 1;
    c.row[0][0] = (int64_t)i;
    c.re[0][0] = 1.0;
    c.c_re[0][0] = delta;
    return c;
}

/* the closed form of (g): only level i moves, from e to e + delta */
static double level_dS(double e, double delta, double T, double mu)
{
    return softplus_neg((e - mu) / T) - softplus_neg((e + delta - mu) / T);
}

/* (g) one isolated level moved: every other level is the same in H and H' (a diagonal
 * matrix is diagonalized exactly), so dS is the closed form up to a few roundings. */
static void test_delta_level(void)
{
    mcf_hamiltonian *h = ladder();
    test_params *tp = make_params(info, NULL);
    void *ws = workspace(tp, h);
    const struct { size_t i; double delta, T, mu; } cs[] = {
        {17, 0.03, 0.2, 0.0}, {5, -0.04, 0.05, -1.3}, {30, 0.05, 1.0, 0.5},
        {39, 0.07, 0.3, -0.7}, {0, -0.5, 0.5, 0.0}, {22, 0.045, 0.02, 0.21}};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        const mcf_local_change c = level_change(cs[k].i, cs[k].delta);
        double dS = NAN;
        CHECK(delta1(ws, &c, cs[k].T, cs[k].mu, &dS) == MCF_OK, "%s", mcf_last_error());
        const double e = h->onsite[cs[k].i], want = level_dS(e, cs[k].delta, cs[k].T, cs[k].mu);
        const double err = fabs(dS - want) / fabs(want);
        CHECK(err < 1e-13, "level %zu (e = %g) moved by %g at T %g, mu %g: dS %.17g, closed "
              "form %.17g (relative error %.3g)", cs[k].i, e, cs[k].delta, cs[k].T, cs[k].mu,
              dS, want, err);
        worst = fmax(worst, err);
        printf("isolated level e = %+.2f moved by %+.3f, T = %g, mu = %+g: dS = %.15g (closed "
               "form %.15g)\n", e, cs[k].delta, cs[k].T, cs[k].mu, dS, want);
    }
    printf("isolated level: max relative error %.3g\n", worst);
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* (h) T -> 0.  A level e far below mu moved by delta (staying below): dS = delta / T +
 * O(exp(-|e - mu| / T)), equal to delta / T up to the rounding of e + delta (relative
 * u (|e| + |mu|) / |delta| per rounding, 4 of them). */
static void test_delta_cold(void)
{
    mcf_hamiltonian *h = ladder();
    test_params *tp = make_params(info, NULL);
    void *ws = workspace(tp, h);
    const double mu = 0.0, delta = 0.02;
    const double e = h->onsite[10]; /* -1 */
    const mcf_local_change below = level_change(10, delta);
    const double Ts[] = {1e-3, 1e-300};
    for (int k = 0; k < 2; k++) {
        double dS = NAN;
        int rc = delta1(ws, &below, Ts[k], mu, &dS);
        const double want = level_dS(e, delta, Ts[k], mu), lin = delta / Ts[k];
        const double tol = 4.0 * DBL_EPSILON * (fabs(e) + fabs(mu)) / delta;
        CHECK(rc == MCF_OK && isfinite(dS), "T = %g: rc %d, dS %g: %s", Ts[k], rc, dS,
              mcf_last_error());
        CHECK(fabs(dS - want) <= tol * fabs(want), "T = %g: dS %.17g, closed form %.17g", Ts[k],
              dS, want);
        CHECK(fabs(dS - lin) <= tol * lin, "T = %g: dS %.17g, delta / T = %.17g (relative "
              "%.3g, bound %.3g)", Ts[k], dS, lin, fabs(dS - lin) / lin, tol);
        printf("T = %g, level %g below mu moved by %g: dS = %.15g, delta/T = %.15g\n", Ts[k],
               mu - e, delta, dS, lin);
    }
    /* far above mu: exp(-1000) is 0 in double, as is the closed form */
    const mcf_local_change above = level_change(30, delta);
    double dS = NAN;
    CHECK(delta1(ws, &above, 1e-3, mu, &dS) == MCF_OK && dS == 0.0 &&
              level_dS(h->onsite[30], delta, 1e-3, mu) == 0.0,
          "level 1 above mu at T = 1e-3: dS %g", dS);
    /* a level moved across mu (0.005 below to 0.005 above): dS = 0.005 / T + ... */
    const mcf_local_change across = level_change(20, 0.01);
    CHECK(delta1(ws, &across, 1e-3, h->onsite[20] + 0.005, &dS) == MCF_OK, "%s",
          mcf_last_error());
    const double want = level_dS(h->onsite[20], 0.01, 1e-3, h->onsite[20] + 0.005);
    CHECK(fabs(dS - want) < 1e-13 * fabs(want), "across mu: dS %.17g, closed form %.17g", dS,
          want);
    printf("T = 1e-3, level moved across mu: dS = %.15g (closed form %.15g)\n", dS, want);
    /* delta / T beyond the double range: refused, not inf */
    int rc = delta1(ws, &below, 1e-310, mu, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "overflows"), "T = 1e-310: rc %d, %s",
          rc, mcf_last_error());
    printf("refused: %s\n", mcf_last_error());
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* (i) refusals */
static void test_delta_refusals(void)
{
    mcf_hamiltonian *h = chain(20, 1.0);
    test_params *tp = make_params(info, NULL);
    void *ws = workspace(tp, h);
    const mcf_local_change good = level_change(3, 0.1);
    double dS = 12345.0;
    int rc = delta1(ws, &good, 0.0, 0.0, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "temperature T = 0") &&
              contains(mcf_last_error(), "workspace 0 of 1"),
          "T = 0: rc %d, %s", rc, mcf_last_error());
    printf("refused: %s\n", mcf_last_error());
    rc = delta1(ws, &good, NAN, 0.0, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "temperature"), "T = NaN: rc %d, %s",
          rc, mcf_last_error());
    rc = delta1(ws, &good, -0.5, 0.0, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "temperature"), "T < 0: rc %d, %s",
          rc, mcf_last_error());
    rc = delta1(ws, &good, 1.0, INFINITY, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "chemical potential"),
          "mu = inf: rc %d, %s", rc, mcf_last_error());
    mcf_local_change c = good;
    c.row[0][0] = 20;
    rc = delta1(ws, &c, 1.0, 0.0, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 20 outside") &&
              contains(mcf_last_error(), "workspace 0 of 1"),
          "row 20 of dim 20: rc %d, %s", rc, mcf_last_error());
    printf("refused: %s\n", mcf_last_error());
    c = good;
    c.rank = 2;
    c.entries[1] = 1;
    c.row[1][0] = 4;
    c.re[1][0] = 1.0;
    c.c_re[0][1] = 1.0;
    c.c_re[1][0] = 0.5; /* C = [[0.1, 1], [0.5, 0]] */
    rc = delta1(ws, &c, 1.0, 0.0, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "not Hermitian"),
          "non-Hermitian C: rc %d, %s", rc, mcf_last_error());
    c.c_re[1][0] = 1.0;
    CHECK(delta1(ws, &c, 1.0, 0.0, &dS) == MCF_OK, "the same C made Hermitian: %s",
          mcf_last_error());
    c.rank = 3;
    rc = delta1(ws, &c, 1.0, 0.0, &dS);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "rank 3"), "rank 3: rc %d, %s", rc,
          mcf_last_error());
    /* NULL arrays and changes (ABI 2 takes every change as an mcf_change) */
    void *const wss[1] = {ws};
    const mcf_change *const none[1] = {NULL};
    mcf_change whole;
    CHECK(mcf_change_from_local(&good, &whole) == MCF_OK, "%s", mcf_last_error());
    const double T = 1.0, mu = 0.0;
    rc = tev_change_action(info, wss, 1, none, &T, &mu, &dS, NULL);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "NULL"), "NULL change: %s",
          mcf_last_error());
    rc = tev_change_action(info, wss, 1, NULL, &T, &mu, &dS, NULL);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "change array is NULL"),
          "NULL change array: %s", mcf_last_error());
    rc = tev_change_action(info, wss, 1, (const mcf_change *const[]){&whole}, &T, &mu, NULL,
                           NULL);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "dS array is NULL"),
          "NULL dS array: %s", mcf_last_error());
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* (j) a batch of three against three single calls, bit for bit; fresh workspaces for the
 * batch too, so that every thread diagonalizes H itself */
static void test_delta_batch(void)
{
    mcf_hamiltonian *hs[3] = {random_h(10, 31), random_h(15, 32), chain(24, 0.8)};
    test_params *tp = make_params(info, NULL);
    mcf_rng rng;
    mcf_rng_init(&rng, 99, 1);
    void *a[3], *b[3];
    mcf_local_change c[3];
    const mcf_local_change *cl[3];
    const double T[3] = {0.1, 0.7, 2.0}, mu[3] = {-0.3, 0.0, 0.4};
    double single[3], batch[3], again[3];
    for (int k = 0; k < 3; k++) {
        a[k] = workspace(tp, hs[k]);
        b[k] = workspace(tp, hs[k]);
        random_change(&rng, hs[k]->dim, 1 + (k != 1), k == 2, &c[k]);
        cl[k] = &c[k];
        CHECK(delta1(a[k], &c[k], T[k], mu[k], &single[k]) == MCF_OK, "%s", mcf_last_error());
    }
    CHECK(tev_delta_action(info, b, 3, cl, T, mu, batch) == MCF_OK, "%s", mcf_last_error());
    CHECK(tev_delta_action(info, a, 3, cl, T, mu, again) == MCF_OK, "%s", mcf_last_error());
    for (int k = 0; k < 3; k++) {
        CHECK(!memcmp(&single[k], &batch[k], sizeof(double)) &&
                  !memcmp(&single[k], &again[k], sizeof(double)),
              "workspace %d: single %.17g, batch %.17g, batch on used workspaces %.17g", k,
              single[k], batch[k], again[k]);
        printf("batch workspace %d (dim %zu): dS = %.15g (single call %.15g)\n", k,
               hs[k]->dim, batch[k], single[k]);
    }
    /* an error in one workspace names it */
    const double Tbad[3] = {0.1, 0.7, -1.0};
    int rc = tev_delta_action(info, b, 3, cl, Tbad, mu, batch);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "workspace 2 of 3"),
          "batch with T < 0 in workspace 2: %s", mcf_last_error());
    CHECK(tev_change_action(info, b, 0, NULL, NULL, NULL, NULL, NULL) == MCF_OK,
          "an empty batch is fine");
    for (int k = 0; k < 3; k++) {
        tev_destroy(info, a[k]);
        tev_destroy(info, b[k]);
        mcf_hamiltonian_destroy(hs[k]);
    }
    test_params_free(tp);
}

/* ---- (k) occupation_dT ------------------------------------------------------------- */

/* (E - mu) / T^2 f (1 - f), f (1 - f) = e^-|x| / (1 + e^-|x|)^2, x = (E - mu) / T */
static double dfdT(double E, double mu, double T)
{
    const double x = (E - mu) / T, q = exp(-fabs(x));
    return (E - mu) / (T * T) * q / ((1.0 + q) * (1.0 + q));
}

static int occ_dT1(void *ws, double mu, double T, double *v)
{
    void *const w[1] = {ws};
    return tev_occupation_dT(info, w, 1, NULL, mu, T, v, v + 1, v + 2, v + 3);
}

static void test_occupation_dT(void)
{
    test_params *tp = make_params(info, "energy_points", "64", NULL);
    /* density and energy: occupation()'s bits */
    mcf_hamiltonian *hs[3] = {chain(10, 1.0), random_h(8, 3), random_h(5, 4)};
    void *ws[3];
    for (int k = 0; k < 3; k++)
        ws[k] = workspace(tp, hs[k]);
    const double mus[3] = {-0.9, 0.2, 1.0}, Ts[3] = {0.05, 0.3, 2.0};
    int same = 1;
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double v[4], n, e;
                CHECK(occ_dT1(ws[k], mus[a], Ts[b], v) == MCF_OK &&
                          tev_occupation(info, &ws[k], 1, NULL, mus[a], Ts[b], &n, &e) == MCF_OK,
                      "%s", mcf_last_error());
                same &= !memcmp(&n, v, sizeof n) && !memcmp(&e, v + 1, sizeof e);
            }
    CHECK(same, "occupation_dT's density or energy differs from occupation()'s");
    double bn[3], be[3], bdn[3], bde[3];
    CHECK(tev_occupation_dT(info, ws, 3, NULL, 0.1, 0.2, bn, be, bdn, bde) == MCF_OK, "%s",
          mcf_last_error());
    for (int k = 0; k < 3; k++) {
        double v[4];
        CHECK(occ_dT1(ws[k], 0.1, 0.2, v) == MCF_OK && v[0] == bn[k] && v[1] == be[k] &&
                  v[2] == bdn[k] && v[3] == bde[k],
              "batch occupation_dT %d differs from the single call", k);
    }

    /* two levels +-t */
    const double t = 1.0, eps = DBL_EPSILON;
    mcf_hamiltonian *h2 = NULL;
    CHECK(mcf_hamiltonian_create(2, 1, 1, &h2) == MCF_OK &&
              mcf_hamiltonian_set(h2, 0, 1, -t, 0.0) == MCF_OK,
          "%s", mcf_last_error());
    void *w2 = workspace(tp, h2);
    double worst = 0.0, worst_abs = 0.0; /* error / tolerance, error */
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            const double mu = mus[a], T = Ts[b], gp = dfdT(t, mu, T), gm = dfdT(-t, mu, T);
            const double dn = 0.5 * (gp + gm), de = 0.5 * (t * gp - t * gm);
            double tol = 0.0;
            for (int s = -1; s <= 1; s += 2) {
                const double x = fabs((s * t - mu) / T);
                tol += 10.0 * 0.5 * (4.0 * eps * t * (1.0 + x) * exp(-x) / (T * T) +
                                     20.0 * eps * fabs(dfdT(s * t, mu, T)));
            }
            double v[4];
            CHECK(occ_dT1(w2, mu, T, v) == MCF_OK, "%s", mcf_last_error());
            const double r = fmax(fabs(v[2] - dn), fabs(v[3] - de)) / tol;
            CHECK(r <= 1.0, "two levels, mu = %g, T = %g: dn/dT %.17g (closed form %.17g), "
                  "de/dT %.17g (%.17g), tolerance %.3g", mu, T, v[2], dn, v[3], de, tol);
            worst = fmax(worst, r);
            worst_abs = fmax(worst_abs, fmax(fabs(v[2] - dn), fabs(v[3] - de)));
            if (a == 1 && b == 0)
                printf("two levels +-1, mu = 0.2, T = 0.05: dn/dT = %.15g (closed form %.15g), "
                       "de/dT = %.15g (%.15g)\n", v[2], dn, v[3], de);
        }
    printf("two levels: largest |ed - closed form| = %.1e, %.3f of the tolerance\n",
           worst_abs, worst);

    /* central differences of occupation() in T */
    double wfd = 0.0;
    const double fd_mu[2] = {0.2, -0.5}, fd_T[2] = {0.4, 0.1};
    for (int q = 0; q < 2; q++) {
        const double mu = fd_mu[q], T = fd_T[q], h = 2e-5, k2 = 0.05 * T;
        double v[4], vp[4], vm[4], np, ep, nm, em;
        CHECK(occ_dT1(ws[1], mu, T, v) == MCF_OK && occ_dT1(ws[1], mu, T + k2, vp) == MCF_OK &&
                  occ_dT1(ws[1], mu, T - k2, vm) == MCF_OK &&
                  tev_occupation(info, &ws[1], 1, NULL, mu, T + h, &np, &ep) == MCF_OK &&
                  tev_occupation(info, &ws[1], 1, NULL, mu, T - h, &nm, &em) == MCF_OK,
              "%s", mcf_last_error());
        double lo, hi;
        mcf_hamiltonian_bounds(hs[1], &lo, &hi);
        const double emax = fmax(1.0, fmax(fabs(lo), fabs(hi)));
        const double round = (double)(hs[1]->dim + 2) * eps / h;
        for (int j = 0; j < 2; j++) {
            const double fd = j ? (ep - em) / (2.0 * h) : (np - nm) / (2.0 * h);
            const double d3 = (vp[2 + j] - 2.0 * v[2 + j] + vm[2 + j]) / (k2 * k2);
            const double tol = 2.0 * (h * h * fabs(d3) / 6.0 + round * (j ? emax : 1.0));
            CHECK(fabs(v[2 + j] - fd) <= tol, "mu = %g, T = %g: d%s/dT %.15g, central "
                  "difference %.15g, tolerance %.3g", mu, T, j ? "e" : "n", v[2 + j], fd, tol);
            wfd = fmax(wfd, fabs(v[2 + j] - fd) / tol);
        }
        printf("random H (dim 16), mu = %g, T = %g: dn/dT = %.12f (central difference %.12f), "
               "de/dT = %.12f (%.12f)\n", mu, T, v[2], (np - nm) / (2.0 * h), v[3],
               (ep - em) / (2.0 * h));
    }
    printf("central differences: largest deviation %.3f of the tolerance\n", wfd);

    /* T -> 0 without a level at mu: exactly 0 (chain N = 10 has none at 0) */
    double v[4];
    CHECK(occ_dT1(ws[0], 0.0, 1e-300, v) == MCF_OK && v[2] == 0.0 && v[3] == 0.0 &&
              v[0] == 0.5,
          "T = 1e-300: %.17g %.17g %.17g (%s)", v[0], v[2], v[3], mcf_last_error());

    /* refusals */
    const double bad_T[4] = {0.0, -1.0, NAN, INFINITY};
    const char *bad_text[4] = {"T = 0", "T = -1", "T = nan", "T = inf"};
    for (int k = 0; k < 4; k++) {
        int rc = occ_dT1(ws[0], 0.0, bad_T[k], v);
        CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), bad_text[k]) &&
                  contains(mcf_last_error(), "occupation_dT"),
              "T = %g: rc %d, %s", bad_T[k], rc, mcf_last_error());
    }
    CHECK(occ_dT1(ws[0], NAN, 0.1, v) == MCF_EINVAL && contains(mcf_last_error(), "mu"),
          "mu = NaN: %s", mcf_last_error());
    void *const w0[1] = {ws[0]};
    CHECK(tev_occupation_dT(info, w0, 1, NULL, 0.0, 0.1, v, v + 1, NULL, v + 3) == MCF_EINVAL,
          "a NULL output array accepted");
    CHECK(tev_occupation_dT(info, w0, 0, NULL, 0.0, 0.1, NULL, NULL, NULL, NULL) == MCF_OK,
          "an empty batch is fine");
    occ_dT1(ws[0], 0.0, 0.0, v);
    printf("occupation_dT at T = 0: %s\n", mcf_last_error());

    tev_destroy(info, w2);
    mcf_hamiltonian_destroy(h2);
    for (int k = 0; k < 3; k++) {
        tev_destroy(info, ws[k]);
        mcf_hamiltonian_destroy(hs[k]);
    }
    test_params_free(tp);
}

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_OK && p, "loading the ed plugin: %s", mcf_last_error());
    if (rc)
        return check_exit();
    info = p->info;
    const unsigned want = MCF_PROVIDES_CHANGE_ACTION | MCF_PROVIDES_OCCUPATION |
                          MCF_PROVIDES_DOS | MCF_PROVIDES_LDOS | MCF_PROVIDES_GREEN |
                          MCF_PROVIDES_ACTION | MCF_PROVIDES_OCCUPATION_DT |
                          MCF_PROVIDES_DENSITY_MATRIX | MCF_PROVIDES_PSEUDOFERMION |
                          MCF_PROVIDES_RESPONSE | MCF_PROVIDES_VECTOR_MOMENTS;
    CHECK(info->abi_version == MCF_ABI_2 &&
              ((const mcf_fermion_evaluator *)info->ops)->provides == want,
          "ed: ABI %u, provides 0x%x (want ABI 2, 0x%x: no moments)", info->abi_version,
          info->abi_version == MCF_ABI_2 ? ((const mcf_fermion_evaluator *)info->ops)->provides
                                         : 0u, want);
    CHECK(info->kind == MCF_PLUGIN_FERMION_EVALUATOR && !strcmp(info->name, "ed"),
          "descriptor kind %d name %s", (int)info->kind, info->name);

    test_chain();
    mcf_hamiltonian *h = chain(10, 1.0);
    test_rows(h, "chain N = 10");
    mcf_hamiltonian_destroy(h);
    h = random_h(8, 3);
    test_rows(h, "random complex H");
    mcf_hamiltonian_destroy(h);
    test_batch();
    test_max_dim();
    test_changes();
    test_degenerate();
    test_occupation_dT();
    test_delta_random();
    test_delta_level();
    test_delta_cold();
    test_delta_refusals();
    test_delta_batch();
    mcfe_plugin_close(p);
    return check_exit();
}
