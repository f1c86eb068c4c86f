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
 *   plus batches of several workspaces (OpenMP) against single calls, and bad input. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "check.h"
#include "internal.h"

static const double pi = 3.14159265358979323846;
static const double two_pi = 6.28318530717958647692;

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* ---- parameters built from the plugin's declaration -------------------------------- */

typedef struct test_params {
    mcf_params p;
    mcf_value values[16];
} test_params;

/* Values from the declared defaults, with overrides "key", "text", ... (NULL-terminated). */
static test_params *make_params(const mcf_plugin_info *info, ...)
{
    test_params *tp = calloc(1, sizeof *tp);
    tp->p.section = "evaluator";
    tp->p.origin = "test_ed.c";
    tp->p.specs = info->params;
    tp->p.n = mcf_spec_count(info->params);
    tp->p.values = tp->values;
    for (size_t k = 0; k < tp->p.n && k < 16; k++) {
        const mcf_param_spec *s = &info->params[k];
        const char *text = s->default_value;
        va_list ap;
        va_start(ap, info);
        for (const char *key = va_arg(ap, const char *); key; key = va_arg(ap, const char *)) {
            const char *val = va_arg(ap, const char *);
            if (!strcmp(key, s->name))
                text = val;
        }
        va_end(ap);
        int rc = mcf_value_parse(s, text, &tp->values[k]);
        CHECK(rc == MCF_OK, "parsing %s = %s: %s", s->name, text, mcf_last_error());
    }
    return tp;
}

static void free_params(test_params *tp)
{
    for (size_t k = 0; k < tp->p.n; k++)
        mcf_value_release(&tp->values[k]);
    free(tp);
}

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

static const mcf_fermion_ops *ops;
static const mcf_plugin_info *info;

static void *workspace(test_params *tp, const mcf_hamiltonian *h)
{
    void *ws = NULL;
    int rc = ops->create(&tp->p, h, &ws);
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
    const size_t P = ops->energy_points(ws);
    CHECK(P == 4001, "energy_points %zu", P);
    double *E = malloc(P * sizeof *E), *dos = malloc(P * sizeof *dos);
    CHECK(ops->energies(ws, E) == MCF_OK, "%s", mcf_last_error());
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
    CHECK(ops->dos(wss, 1, NULL, outs) == MCF_OK, "dos: %s", mcf_last_error());
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
    CHECK(ops->energies(ws, E) == MCF_OK && E[0] == -2.0 * t - 12 * sigma, "grid follows fixed "
          "bounds: E0 %g", E[0]);
    CHECK(ops->dos(wss, 1, NULL, outs) == MCF_OK, "dos: %s", mcf_last_error());
    const double full = trapezoid(E, dos, P);
    CHECK(fabs(full - 1.0) < 1e-9, "DOS integral with covered tails %.15g", full);
    printf("chain N = %zu: DOS integral with tails covered = %.15f\n", N, full);

    /* occupations: T = 0 exactly, T > 0 against the Fermi sum over analytic levels */
    double dens, en;
    CHECK(ops->occupation(wss, 1, NULL, 0.0, 0.0, &dens, &en) == MCF_OK, "%s",
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
            CHECK(ops->occupation(wss, 1, NULL, mus[a], Ts[b], &dens, &en) == MCF_OK, "%s",
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
    CHECK(ops->occupation(wss, 1, NULL, 0.0, 1e-300, &dens, &en) == MCF_OK &&
              dens == (double)below / (double)N && isfinite(en),
          "T = 1e-300: density %.17g", dens);
    CHECK(ops->occupation(wss, 1, NULL, 0.0, -1.0, &dens, &en) == MCF_EINVAL &&
              contains(mcf_last_error(), "T = -1"),
          "T < 0: %s", mcf_last_error());
    CHECK(ops->occupation(wss, 1, NULL, NAN, 1.0, &dens, &en) == MCF_EINVAL, "mu NaN accepted");

    ops->destroy(ws);
    free(E);
    free(dos);
    free_params(tp);
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
    const size_t n = h->dim, P = ops->energy_points(ws);
    double *E = malloc(P * sizeof *E), *dos = malloc(P * sizeof *dos);
    double *ldos = malloc(n * P * sizeof *ldos);
    double *gre = malloc(n * P * sizeof *gre), *gim = malloc(n * P * sizeof *gim);
    size_t *rows = malloc(n * sizeof *rows);
    for (size_t r = 0; r < n; r++)
        rows[r] = r;
    ops->energies(ws, E);
    void *const wss[1] = {ws};
    const size_t *const rl[1] = {rows};
    double *const o1[1] = {dos}, *const o2[1] = {ldos}, *const ore[1] = {gre},
                  *const oim[1] = {gim};
    CHECK(ops->dos(wss, 1, NULL, o1) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->ldos(wss, 1, rl, n, o2) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->green(wss, 1, rl, n, ore, oim) == MCF_OK, "%s", mcf_last_error());

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
    int rc = ops->ldos(wss, 1, bl, 2, o2);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "out of range"), "row %zu: %s", n,
          mcf_last_error());
    rc = ops->green(wss, 1, bl, 2, ore, oim);
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
    ops->destroy(ws);
    free_params(tp);
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
        CHECK(ops->dos(&ws[k], 1, NULL, &single[k]) == MCF_OK, "%s", mcf_last_error());
        CHECK(ops->green(&ws[k], 1, &rl[k], 2, &gs[k], &is[k]) == MCF_OK, "%s",
              mcf_last_error());
        CHECK(ops->occupation(&ws[k], 1, NULL, 0.1, 0.2, &dens_s[k], &en_s[k]) == MCF_OK,
              "%s", mcf_last_error());
    }
    CHECK(ops->dos(ws, 3, NULL, batch) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->green(ws, 3, rl, 2, gb, ib) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->occupation(ws, 3, NULL, 0.1, 0.2, dens_b, en_b) == MCF_OK, "%s",
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
    int rc = ops->ldos(ws, 3, rl, 2, gb);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 14") &&
              contains(mcf_last_error(), "workspace 1 of 3"),
          "batch error: %s", mcf_last_error());
    void *const nulls[2] = {ws[0], NULL};
    CHECK(ops->dos(nulls, 2, NULL, batch) == MCF_EINVAL, "NULL workspace accepted");
    CHECK(ops->dos(ws, 0, NULL, NULL) == MCF_OK, "an empty batch is fine");
    for (int k = 0; k < 3; k++) {
        ops->destroy(ws[k]);
        free(single[k]);
        free(batch[k]);
        free(gs[k]);
        free(gb[k]);
        free(is[k]);
        free(ib[k]);
        mcf_hamiltonian_destroy(hs[k]);
    }
    free_params(tp);
}

/* (d) max_dim */
static void test_max_dim(void)
{
    mcf_hamiltonian *h = chain(20, 1.0);
    test_params *tp = make_params(info, "max_dim", "16", NULL);
    void *ws = NULL;
    int rc = ops->create(&tp->p, h, &ws);
    CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "dimension 20") &&
              contains(mcf_last_error(), "max_dim = 16"),
          "dim 20 > max_dim 16: rc %d, %s", rc, mcf_last_error());
    printf("refused: %s\n", mcf_last_error());
    free_params(tp);
    mcf_hamiltonian_destroy(h);
    /* the default limit, 4096 */
    CHECK(mcf_hamiltonian_create(4097, 1, 1, &h) == MCF_OK, "%s", mcf_last_error());
    tp = make_params(info, NULL);
    rc = ops->create(&tp->p, h, &ws);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "dimension 4097") &&
              contains(mcf_last_error(), "max_dim = 4096"),
          "dim 4097 with defaults: %s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    /* exactly max_dim is fine */
    h = chain(16, 1.0);
    test_params *tq = make_params(info, "max_dim", "16", NULL);
    rc = ops->create(&tq->p, h, &ws);
    CHECK(rc == MCF_OK, "dim 16 = max_dim: %s", mcf_last_error());
    if (!rc)
        ops->destroy(ws);
    mcf_hamiltonian_destroy(h);
    free_params(tp);
    free_params(tq);
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
            CHECK(mcf_value_parse(s, "0", &v) == MCF_EINVAL, "broadening 0 accepted");
        if (!strcmp(s->name, "energy_points"))
            CHECK(mcf_value_parse(s, "1", &v) == MCF_EINVAL, "energy_points 1 accepted");
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
    ops->energies(ws, E);
    CHECK(ops->dos(wss, 1, NULL, oa) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->occupation(wss, 1, NULL, 0.0, 0.0, &d0, &e0) == MCF_OK, "%s", mcf_last_error());

    /* a change behind the workspace's back (no version bump) is not seen: cached */
    for (size_t r = 0; r < N; r++)
        h->onsite[r] = 0.5;
    CHECK(ops->dos(wss, 1, NULL, ob) == MCF_OK && !memcmp(a, b, sizeof a),
          "without a version bump the DOS was recomputed");
    CHECK(ops->occupation(wss, 1, NULL, 0.0, 0.0, &d1, &e1) == MCF_OK && d1 == d0 && e1 == e0,
          "without a version bump the occupation was recomputed");

    /* through the API: every level moves up by 0.5 */
    for (size_t r = 0; r < N; r++)
        CHECK(mcf_hamiltonian_set_onsite(h, r, 0.5) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->dos(wss, 1, NULL, oc) == MCF_OK, "%s", mcf_last_error());
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
    CHECK(ops->occupation(wss, 1, NULL, 0.0, 0.0, &d1, &e1) == MCF_OK, "%s", mcf_last_error());
    CHECK(d1 == (double)below / (double)N && fabs(e1 - eband / (double)N) < 1e-14,
          "shifted chain: density %g (expected %zu/%zu), energy %.17g (expected %.17g)", d1,
          below, N, e1, eband / (double)N);
    CHECK(d1 != d0, "the density did not change (%g)", d1);

    /* a new hopping: compare the Green's function with our own decomposition */
    CHECK(mcf_hamiltonian_set(h, 0, 6, 0.3, -0.4) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set(h, 0, 1, -1.2, 0.1) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->green(wss, 1, rl, 1, ore, oim) == MCF_OK, "%s", mcf_last_error());
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
    CHECK(ops->occupation(wss, 1, NULL, 0.0, 0.0, &d1, &e1) == MCF_OK, "%s", mcf_last_error());
    CHECK(ops->green(wss, 1, rl, 1, ore, oim) == MCF_OK, "%s", mcf_last_error());
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
    int rc = ops->dos(wss, 1, NULL, oa);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "Hermitian"), "corrupt H: %s",
          mcf_last_error());
    h->hop_im[0] = keep;
    h->version++;
    CHECK(ops->dos(wss, 1, NULL, oa) == MCF_OK, "repaired: %s", mcf_last_error());
    ops->destroy(ws);
    free_params(tp);
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
    ops->energies(ws, E);
    CHECK(E[0] < 1.5 && E[100] > 1.5 && fabs(E[50] - 1.5) < 1e-14, "degenerate grid [%g, %g]",
          E[0], E[100]);
    CHECK(ops->dos(&ws, 1, NULL, o) == MCF_OK && fabs(d[50] - gauss(0.0, 0.1)) < 1e-12,
          "degenerate DOS peak %g", d[50]);
    ops->destroy(ws);
    free_params(tp);
    mcf_hamiltonian_destroy(h);
}

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcf_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_OK && p, "loading the ed plugin: %s", mcf_last_error());
    if (rc)
        return check_exit();
    info = p->info;
    ops = info->ops;
    CHECK(ops->struct_size >= offsetof(mcf_fermion_ops, occupation) + sizeof ops->occupation,
          "ops struct_size %u", ops->struct_size);
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
    mcf_plugin_close(p);
    return check_exit();
}
