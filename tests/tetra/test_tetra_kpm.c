/* test_tetra_kpm.c — the tetrahedron method against the kernel polynomial method on a large
 * lattice: the same simple cubic band (t = 1) integrated two independent ways.
 *
 * (1) Chebyshev moments.  On the L^3 torus, mu_n = (1/L^3) sum_k T_n(eps_k / a) is a
 *     trigonometric polynomial of degree n < L in each k_d, which the L-point grid
 *     integrates exactly: for n < L these are the moments of the infinite lattice's DOS.
 *     The tetrahedron DOS rho of an n_k^3 grid gives its own moments, mu_n =
 *     int_0^pi rho(a cos th) a sin th cos(n th) dth (trapezoid on 4000 panels in th, 125
 *     per period of cos(31 th); mu_0 = 1 checks it).  Linear interpolation on the grid
 *     makes them converge as n_k^-2 while n < n_k (T_n varies slowly on the grid): the
 *     error of the moment vector falls by 2^p, p in [1.5, 2.5], from n_k = 32 to 64, and
 *     each moment of the 32^3 grid lies within 2 |mu(32) - mu(64)| of the exact one (its
 *     error is e/(1 - 2^-p) <= 2 |difference| for any order p >= 1).
 * (2) The stochastic KPM DOS of the L = 64 torus (262144 sites, M = 32 moments, R = 16
 *     random-phase vectors, Jackson kernel: resolution ~ pi a / M) against the 64^3
 *     tetrahedron DOS broadened with the same kernel (its moments through the same
 *     reconstruction), at every node with |E| < 6: within q standard errors of the
 *     stochastic trace plus the tetrahedron bound |rho(32) - rho(64)| (order >= 1).  The
 *     error is estimated from R vectors, so q is Student's t quantile with R - 1 degrees of
 *     freedom at a two-sided level of 1e-3 shared by the nodes compared (Bonferroni). */
#include "check.h"
#include "kpm_core.h"
#include "kpm_test_util.h"
#include "tetra.h"

#include <gsl/gsl_cdf.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { L = 64, M = 32, R = 16, NK = 32, PANELS = 4000 };

/* the simple cubic crystal: one orbital, hopping -1 to the 6 neighbours */
static mcf_cell *sc_cell(void)
{
    mcf_cell *c = NULL;
    mcf_cell_create(&c);
    const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcf_cell_shape(c, 3, 1, 1, id);
    mcf_cell_bond(c, 1, 0, 0, 0, 0, -1, 0);
    mcf_cell_bond(c, 0, 1, 0, 0, 0, -1, 0);
    mcf_cell_bond(c, 0, 0, 1, 0, 0, -1, 0);
    return c;
}

/* the moments of the tetrahedron DOS of an nk^3 grid, scaling (a, b = 0) */
static int tetra_moments(const mcf_periodic *p, size_t nk, double a, double *mu)
{
    const size_t n3[3] = {nk, nk, nk};
    tetra_grid *g = NULL;
    int rc = tetra_grid_create(p, n3, NULL, 0, &g);
    double *E = malloc((PANELS + 1) * sizeof *E), *rho = malloc((PANELS + 1) * sizeof *rho);
    if (rc || !E || !rho) {
        free(E);
        free(rho);
        tetra_grid_destroy(g);
        return rc ? rc : MCF_ENOMEM;
    }
    for (size_t i = 0; i <= PANELS; i++)
        E[i] = a * cos(kt_pi * (double)i / PANELS);
    rc = tetra_dos(g, PANELS + 1, E, 0, rho, NULL, NULL);
    for (size_t n = 0; n < M && !rc; n++) {
        double s = 0;
        for (size_t i = 0; i <= PANELS; i++) {
            const double th = kt_pi * (double)i / PANELS;
            const double w = (i == 0 || i == PANELS) ? 0.5 : 1.0;
            s += w * rho[i] * a * sin(th) * cos((double)n * th);
        }
        mu[n] = s * kt_pi / PANELS;
    }
    free(E);
    free(rho);
    tetra_grid_destroy(g);
    return rc;
}

int main(void)
{
    mcf_hamiltonian *h = kt_lattice(3, L, 1.0);
    mcf_cell *cell = sc_cell();
    const mcf_periodic *p = mcf_cell_view(cell);
    CHECK(h && p, "the lattice and the crystal");
    if (!h || !p)
        return check_exit();
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);

    /* (1) exact moments from the L^3 grid */
    double mu_bz[M], mu_t[M], mu_t2[M];
    const size_t K = (size_t)L * L * L;
    double *x = malloc(K * sizeof *x), *w = malloc(K * sizeof *w);
    for (size_t s = 0; s < K; s++) {
        const size_t i = s % L, j = (s / L) % L, l = s / ((size_t)L * L);
        const double e = -2.0 * (cos(2 * kt_pi * i / L) + cos(2 * kt_pi * j / L) +
                                 cos(2 * kt_pi * l / L));
        x[s] = (e - b) / a;
        w[s] = 1.0 / (double)K;
    }
    kt_moments(K, x, w, NULL, M, mu_bz, NULL);
    free(x);
    free(w);
    int rc = tetra_moments(p, NK, a, mu_t);
    if (!rc)
        rc = tetra_moments(p, 2 * NK, a, mu_t2);
    CHECK(rc == MCF_OK, "tetrahedron moments: %s", mcf_last_error());
    if (rc)
        return check_exit();
    double worst = 0, worst_bound = 0;
    int within = 1;
    for (size_t n = 0; n < M; n++) {
        const double d = fabs(mu_t[n] - mu_bz[n]), bound = 2 * fabs(mu_t[n] - mu_t2[n]) + 1e-7;
        within &= d <= bound;
        if (d > worst) {
            worst = d;
            worst_bound = bound;
        }
    }
    double e1 = 0, e2 = 0;
    for (size_t n = 0; n < M; n++) {
        e1 += (mu_t[n] - mu_bz[n]) * (mu_t[n] - mu_bz[n]);
        e2 += (mu_t2[n] - mu_bz[n]) * (mu_t2[n] - mu_bz[n]);
    }
    const double order = 0.5 * log(e1 / e2) / log(2.0);
    CHECK(order >= 1.5 && order <= 2.5, "moment errors %.3g (%d^3) and %.3g (%d^3): order %.2f, "
          "want 2 +- 0.5", sqrt(e1), NK, sqrt(e2), 2 * NK, order);
    printf("moment error (l2 over n < %d): %.3g at %d^3 k, %.3g at %d^3: order %.2f\n", M,
           sqrt(e1), NK, sqrt(e2), 2 * NK, order);
    CHECK(fabs(mu_t[0] - 1) < 1e-7, "the tetrahedron DOS integrates to %.10f", mu_t[0]);
    CHECK(within, "tetrahedron (%d^3 k) vs exact moments of the %d^3 torus: largest "
          "difference %.3g (bound %.3g)", NK, L, worst, worst_bound);
    printf("moments n < %d: tetrahedron (%d^3 k points) vs Brillouin-zone sums of the %d^3 "
           "torus (exact for n < L): largest |diff| %.2e (its bound 2|mu(%d) - mu(%d)| "
           "%.2e)\n", M, NK, L, worst, NK, 2 * NK, worst_bound);

    /* (2) the stochastic KPM DOS of the torus against the broadened tetrahedron DOS */
    kpm_engine *eng = NULL;
    double *mu_vec = malloc(R * M * sizeof *mu_vec), g[M];
    rc = kpm_engine_create(h->dim, 4, &eng);
    mcf_rng rng;
    mcf_rng_init(&rng, 20261124, 0);
    if (!rc)
        rc = kpm_stochastic_moments(eng, h, a, b, &rng, KPM_RANDOM_PHASE, R, M, mu_vec);
    CHECK(rc == MCF_OK, "KPM moments: %s", mcf_last_error());
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
    const size_t N = 2 * M;
    kpm_dct *d = NULL;
    kpm_dct_create(N, M, &d);
    double E[2 * M], dos[2 * M], err[2 * M], dt[2 * M], dt2[2 * M];
    kpm_dct_energies(d, a, b, E);
    kpm_dct_density_stats(d, mu_vec, R, g, M, a, dos, err);
    kpm_dct_density(d, mu_t, g, M, a, dt);
    kpm_dct_density(d, mu_t2, g, M, a, dt2);
    size_t compared = 0;
    for (size_t i = 0; i < N; i++)
        compared += fabs(E[i]) < 6.0;
    const double q = gsl_cdf_tdist_Pinv(1.0 - 1e-3 / (2.0 * (double)compared), R - 1);
    double zmax = 0;
    int all = 1;
    for (size_t i = 0; i < N; i++) {
        if (fabs(E[i]) >= 6.0)
            continue;
        const double tol = q * err[i] + fabs(dt[i] - dt2[i]) + 1e-7;
        all &= fabs(dos[i] - dt2[i]) <= tol;
        zmax = fmax(zmax, fabs(dos[i] - dt2[i]) / tol);
    }
    CHECK(all, "KPM (L = %d, M = %d, R = %d) vs the broadened tetrahedron DOS: a node beyond "
          "%.2f standard errors + the tetrahedron bound (largest |diff| / tolerance %.2f)", L,
          M, R, q, zmax);
    const size_t i0 = N / 2;
    printf("DOS at E = %.4f: KPM %.6f +- %.6f, tetrahedron (%d^3) broadened %.6f; largest "
           "|diff| / tolerance over %zu nodes with |E| < 6: %.2f (q = %.2f)\n", E[i0], dos[i0],
           err[i0], 2 * NK, dt2[i0], compared, zmax, q);
    kpm_dct_destroy(d);
    kpm_engine_destroy(eng);
    free(mu_vec);
    mcf_hamiltonian_destroy(h);
    mcf_cell_destroy(cell);
    return check_exit();
}
