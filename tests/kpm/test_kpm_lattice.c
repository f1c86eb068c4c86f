/* test_kpm_lattice.c — the stochastic KPM DOS of clean periodic lattices (hopping -t,
 * t = 1) against references that involve no random vectors:
 *
 * Square lattice, L = 256 (65536 sites), M = 256 moments, R = 8 random-phase vectors,
 * Jackson kernel, N = 512 nodes.
 *   (1) Exact moments from the Brillouin zone: mu_n = (1/L^2) sum_k T_n(eps_k / a) over the
 *       L x L grid of k, eps_k = -2t (cos kx + cos ky): the exact trace for this lattice.
 *       The same numbers are the moments of the infinite lattice — T_n(eps_k / a) is a
 *       trigonometric polynomial of degree n < L in kx and ky, which the L-point grid
 *       integrates exactly — so they must equal the moments of the analytic DOS
 *       rho(E) = K(sqrt(1 - E^2 / 16)) / (2 pi^2 t) (complete elliptic integral, GSL),
 *       computed here by adaptive quadrature (GSL qags in theta, E = a cos theta, on
 *       panels of half a period of cos(n theta)): an independent check of both, to 5e-9
 *       (the quadrature of the logarithmic van Hove singularity limits it to ~1e-9).
 *   (2) At E = -3, -1, 0.5, 2 (the nearest node) the stochastic DOS agrees with the
 *       Jackson-broadened exact DOS within 3 of its own standard errors (from the spread
 *       over the R vectors).
 *   (3) Away from the van Hove singularity at E = 0 the broadened DOS equals the analytic
 *       rho(E) within the kernel's resolution: a Jackson-broadened curve differs from the
 *       curve by sigma^2 rho'' / 2 + delta rho' to leading order, with sigma = a sigma_x
 *       the kernel's width (kpm_jackson_width) and delta = a (g_1 - 1) x the shift of the
 *       kernel's mean; the tolerance is twice that (plus 3 standard errors for the
 *       stochastic curve).
 *   (4) The DOS integrates to 1 (Chebyshev-Gauss quadrature on the nodes, exact here).
 *
 * Cubic lattice, L = 32 (32768 sites), M = 128, R = 8: the stochastic DOS against the
 * exact trace from the 32^3 Brillouin-zone grid at E = -4, -2, 0.5, 3 within 3 standard
 * errors. */
#include <stdio.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_ellint.h>

#include "kpm_core.h"
#include "kpm_test_util.h"

static double rho_square(double E)
{
    const double t = 1.0, q = E / (4.0 * t);
    if (fabs(q) >= 1.0)
        return 0.0;
    return gsl_sf_ellint_Kcomp(sqrt(1.0 - q * q), GSL_PREC_DOUBLE) / (2.0 * kt_pi * kt_pi * t);
}

typedef struct moment_args {
    double a;
    size_t n;
} moment_args;

/* in theta (E = a cos theta): rho(a cos theta) cos(n theta) a sin theta */
static double moment_integrand(double th, void *p)
{
    const moment_args *m = p;
    return rho_square(m->a * cos(th)) * cos((double)m->n * th) * m->a * sin(th);
}

/* Exact moments of a lattice from its Brillouin-zone grid (d = 2, 3) */
static void bz_moments(int d, size_t L, double a, double b, size_t M, double *mu)
{
    const size_t K = d == 2 ? L * L : L * L * L;
    double *x = malloc(K * sizeof *x), *w = malloc(K * sizeof *w);
    for (size_t s = 0; s < K; s++) {
        const size_t i = s % L, j = (s / L) % L, l = s / (L * L);
        double e = -2.0 * (cos(2.0 * kt_pi * (double)i / (double)L) +
                           cos(2.0 * kt_pi * (double)j / (double)L));
        if (d == 3)
            e -= 2.0 * cos(2.0 * kt_pi * (double)l / (double)L);
        x[s] = (e - b) / a;
        w[s] = 1.0 / (double)K;
    }
    kt_moments(K, x, w, NULL, M, mu, NULL);
    free(x);
    free(w);
}

static size_t nearest(const double *E, size_t N, double target)
{
    size_t best = 0;
    for (size_t i = 1; i < N; i++)
        if (fabs(E[i] - target) < fabs(E[best] - target))
            best = i;
    return best;
}

static void test_square(void)
{
    const size_t L = 256, M = 256, R = 8, N = 2 * M;
    mcf_hamiltonian *h = kt_lattice(2, L, 1.0);
    if (!h)
        return;
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    CHECK(fabs(b) < 1e-12 && fabs(a - 8.0 / 1.99) < 1e-12, "scaling a = %g b = %g", a, b);

    /* (1) exact moments: Brillouin zone vs the analytic DOS */
    double *mu_bz = malloc(M * sizeof *mu_bz), *mu_an = malloc(M * sizeof *mu_an);
    bz_moments(2, L, a, b, M, mu_bz);
    gsl_integration_workspace *iw = gsl_integration_workspace_alloc(4000);
    double worst_an = 0.0, abserr_max = 0.0;
    for (size_t n = 0; n < M; n++) {
        if (n % 2) { /* rho(E) = rho(-E) and b = 0: odd moments vanish */
            mu_an[n] = 0.0;
            continue;
        }
        /* mu_n = 2 int_0^4 rho(E) T_n(E / a) dE = 2 int_{theta_4}^{pi/2} ... dtheta, on
         * panels of about half a period of cos(n theta) (the last one holds the
         * logarithmic singularity of the van Hove point, which qags extrapolates) */
        moment_args ma = {a, n};
        gsl_function F = {moment_integrand, &ma};
        const double t0 = acos(4.0 / a), t1 = 0.5 * kt_pi;
        const size_t panels = 2 + n / 2;
        double v = 0, err = 0;
        for (size_t q = 0; q < panels; q++) {
            const double p0 = t0 + (t1 - t0) * (double)q / (double)panels;
            const double p1 = t0 + (t1 - t0) * (double)(q + 1) / (double)panels;
            double pv = 0, pe = 0;
            int st = gsl_integration_qags(&F, p0, p1, 1e-15, 1e-13, 4000, iw, &pv, &pe);
            CHECK(st == 0 || pe < 1e-9, "quadrature of moment %zu, panel %zu: status %d, "
                  "error %g", n, q, st, pe);
            v += pv;
            err += pe;
        }
        mu_an[n] = 2.0 * v;
        abserr_max = fmax(abserr_max, 2.0 * err);
    }
    gsl_integration_workspace_free(iw);
    for (size_t n = 0; n < M; n++)
        worst_an = fmax(worst_an, fabs(mu_an[n] - mu_bz[n]));
    CHECK(worst_an < 5e-9, "Brillouin-zone vs analytic-DOS moments differ by %.3e", worst_an);
    printf("square L = %zu: exact moments, Brillouin zone vs analytic DOS: max |diff| = %.2e "
           "(quadrature error estimate %.1e), mu_0 = %.15f\n",
           L, worst_an, abserr_max, mu_an[0]);

    /* the stochastic DOS */
    kpm_engine *eng = NULL;
    int rc = kpm_engine_create(h->dim, 8, &eng);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    double *mu_vec = malloc(R * M * sizeof *mu_vec);
    mcf_rng rng;
    mcf_rng_init(&rng, 20240601, 0);
    rc = kpm_stochastic_moments(eng, h, a, b, &rng, KPM_RANDOM_PHASE, R, M, mu_vec);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    double *g = malloc(M * sizeof *g);
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
    kpm_dct *d = NULL;
    kpm_dct_create(N, M, &d);
    double *E = malloc(N * sizeof *E), *x = malloc(N * sizeof *x);
    double *dos = malloc(N * sizeof *dos), *err = malloc(N * sizeof *err);
    double *dbz = malloc(N * sizeof *dbz), *dan = malloc(N * sizeof *dan);
    kpm_dct_energies(d, a, b, E);
    kpm_dct_nodes(d, x);
    kpm_dct_density_stats(d, mu_vec, R, g, M, a, dos, err);
    kpm_dct_density(d, mu_bz, g, M, a, dbz);
    kpm_dct_density(d, mu_an, g, M, a, dan);

    /* (4) normalization */
    double norm = 0.0;
    for (size_t i = 0; i < N; i++)
        norm += kt_pi / (double)N * a * sqrt(1.0 - x[i] * x[i]) * dos[i];
    CHECK(fabs(norm - 1.0) < 1e-12, "DOS integrates to %.15f", norm);

    printf("     E_node     KPM(R=%zu)    +-err    exact-trace  broadened-analytic  "
           "analytic rho   |KPM-exact|/err  tol(curv)\n", R);
    const double targets[4] = {-3.0, -1.0, 0.5, 2.0};
    for (int t = 0; t < 4; t++) {
        const size_t i = nearest(E, N, targets[t]);
        const double Ei = E[i];
        /* (2) */
        const double z = fabs(dos[i] - dbz[i]) / err[i];
        CHECK(z <= 3.0, "E = %g: KPM %.6f +- %.6f vs exact trace %.6f (%.2f sigma)", Ei,
              dos[i], err[i], dbz[i], z);
        CHECK(fabs(dan[i] - dbz[i]) < 1e-8, "E = %g: broadened analytic %.10f vs BZ %.10f",
              Ei, dan[i], dbz[i]);
        /* (3) */
        const double hh = 1e-3;
        const double r0 = rho_square(Ei), rp = rho_square(Ei + hh), rm = rho_square(Ei - hh);
        const double d1 = (rp - rm) / (2 * hh), d2 = (rp - 2 * r0 + rm) / (hh * hh);
        const double xs = (Ei - b) / a;
        const double sig = a * kpm_jackson_width(M, xs), shift = a * (g[1] - 1.0) * xs;
        const double tol = 2.0 * (0.5 * sig * sig * fabs(d2) + fabs(shift * d1));
        CHECK(fabs(dbz[i] - r0) <= tol, "E = %g: broadened exact DOS %.6f vs analytic %.6f, "
              "tolerance %.2e", Ei, dbz[i], r0, tol);
        CHECK(fabs(dos[i] - r0) <= tol + 3.0 * err[i],
              "E = %g: KPM %.6f +- %.6f vs analytic %.6f (tolerance %.2e + 3 err)", Ei, dos[i],
              err[i], r0, tol);
        printf("  %9.5f   %.6f   %.6f   %.6f    %.6f           %.6f      %5.2f          "
               "%.1e (|diff| %.1e)\n",
               Ei, dos[i], err[i], dbz[i], dan[i], r0, z, tol, fabs(dbz[i] - r0));
    }
    free(mu_bz);
    free(mu_an);
    free(mu_vec);
    free(g);
    free(E);
    free(x);
    free(dos);
    free(err);
    free(dbz);
    free(dan);
    kpm_dct_destroy(d);
    kpm_engine_destroy(eng);
    mcf_hamiltonian_destroy(h);
}

static void test_cubic(void)
{
    const size_t L = 32, M = 128, R = 8, N = 2 * M;
    mcf_hamiltonian *h = kt_lattice(3, L, 1.0);
    if (!h)
        return;
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    double *mu_bz = malloc(M * sizeof *mu_bz);
    bz_moments(3, L, a, b, M, mu_bz);
    kpm_engine *eng = NULL;
    kpm_engine_create(h->dim, 8, &eng);
    double *mu_vec = malloc(R * M * sizeof *mu_vec);
    mcf_rng rng;
    mcf_rng_init(&rng, 77, 1);
    int rc = kpm_stochastic_moments(eng, h, a, b, &rng, KPM_RANDOM_PHASE, R, M, mu_vec);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    double *g = malloc(M * sizeof *g);
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
    kpm_dct *d = NULL;
    kpm_dct_create(N, M, &d);
    double *E = malloc(N * sizeof *E), *dos = malloc(N * sizeof *dos);
    double *err = malloc(N * sizeof *err), *dbz = malloc(N * sizeof *dbz);
    kpm_dct_energies(d, a, b, E);
    kpm_dct_density_stats(d, mu_vec, R, g, M, a, dos, err);
    kpm_dct_density(d, mu_bz, g, M, a, dbz);
    const double targets[4] = {-4.0, -2.0, 0.5, 3.0};
    printf("cubic L = %zu, M = %zu, R = %zu:\n     E_node     KPM       +-err     exact-trace  "
           "|diff|/err\n", L, M, R);
    for (int t = 0; t < 4; t++) {
        const size_t i = nearest(E, N, targets[t]);
        const double z = fabs(dos[i] - dbz[i]) / err[i];
        CHECK(z <= 3.0, "cubic E = %g: KPM %.6f +- %.6f vs exact trace %.6f (%.2f sigma)",
              E[i], dos[i], err[i], dbz[i], z);
        printf("  %9.5f   %.6f   %.6f   %.6f    %5.2f\n", E[i], dos[i], err[i], dbz[i], z);
    }
    free(mu_bz);
    free(mu_vec);
    free(g);
    free(E);
    free(dos);
    free(err);
    free(dbz);
    kpm_dct_destroy(d);
    kpm_engine_destroy(eng);
    mcf_hamiltonian_destroy(h);
}

int main(void)
{
    gsl_set_error_handler_off(); /* quadrature status is checked, not fatal */
    test_square();
    test_cubic();
    return check_exit();
}
