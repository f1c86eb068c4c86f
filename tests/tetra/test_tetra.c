/* test_tetra.c — the linear tetrahedron method (plugins/tetra, mcf_tetra_core) against exact
 * results for the simple cubic lattice (hopping -1, band [-6, 6]; references by quadrature,
 * tetra_ref.h):
 *
 *   (a) rho(0) on n = 16, 32, 64 grids: the error falls like n^-2 (the linear
 *       interpolation's error); observed orders from successive errors in [1.5, 2.5], and
 *       the finest error within the Richardson estimate |rho_64 - rho_32| / (2^1.5 - 1)
 *       of a method of order >= 1.5.
 *   (b) rho = N = 0 below the band, N = 1 above it, to rounding; rho(-E) = rho(E) (the grid
 *       maps to itself under k -> k + (pi,pi,pi), which negates the band); rho at the van
 *       Hove points +-2 and at +-0.5, +-1, +-3, +-4, +-5 on n = 64 within the envelope
 *       C / n^p of the errors on n = 12 .. 32 (p = 1 at the van Hove kinks, 2 elsewhere;
 *       see envelope() for the factor 2 it allows for the scatter of C).
 *   (c) an L^3 supercell at Gamma has the eigenvalues of the one-site crystal on the L^3
 *       Gamma-centred grid (1e-12); the half-filled band energy as a plain k sum and by
 *       tetrahedra approach each other as L grows.
 *   (d) the checkerboard CDW (+-delta) in the fcc primitive cell, 2 orbitals, non-orthogonal
 *       vectors: rho per site = |E| / sqrt(E^2 - delta^2) rho_sc(sqrt(E^2 - delta^2)) (the
 *       band eps folds to +-sqrt(eps^2 + delta^2), a monotone map eps -> E), the A-orbital
 *       DOS rho_A = rho_site (1 + delta / E) (|u_A|^2 = (1 + delta/E) / 2); no states in the
 *       gap; orbital DOS adds up to the total (1e-12); N = 2 per cell above the band.  The
 *       DOS on n = 32 within the envelope C / n^2 of the errors on n = 8 .. 24.
 *   (e) Bloechl's correction: the half-filled band energy, int_{-6}^0 E rho dE, converges
 *       faster with it (orders printed; the corrected error is the smaller on the finest grid).
 *   (f) the Fermi level: 1/2 electron per site gives E_F = 0 within the resolution of N(E);
 *       0.37 gives the E_F of the quadrature N(E) within the grid-to-grid change.
 *   (g) a non-Hermitian description and a grid with n = 0 are refused with a message.
 *   (h) dims 1 and 2 (chain, square lattice: the grid has n = 1 beyond dims, and the 6
 *       tetrahedra reduce to linear intervals / triangles): N(1) converges like n^-2; the
 *       chain's rho(1) like n^-1 (the DOS of a piecewise linear band is a step function);
 *       the square lattice's rho(1) is printed only (its C(n) scatters, see envelope()).
 *   (i) the results are the same bits on 1 and 3 threads. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <omp.h>

#include "check.h"
#include "mcf/error.h"
#include "tetra.h"
#include "tetra_ref.h"

static tetra_grid *grid(const mcf_periodic *p, size_t n, int weights)
{
    const size_t nn[3] = {n, n, n};
    tetra_grid *g = NULL;
    const int rc = tetra_grid_create(p, nn, NULL, weights, &g);
    CHECK(rc == MCF_OK, "tetra_grid_create (n = %zu): %s", n, mcf_last_error());
    return g;
}

static double order(double coarse, double fine) { return log2(coarse / fine); }

/* The error of the linear method at a fixed energy is C(n) / n^p (p = 2 where rho is
 * smooth, p = 1 at the square-root kinks of the van Hove points: an energy error O(n^-2)
 * of the interpolated band moves a kink's sqrt by O(n^-1)), with C(n) bounded but not
 * constant: it depends on where the grid's points fall relative to the surface of constant
 * energy (measured C(n) scatters by up to a factor 15 between n = 16 and 24 at E = 3).
 * The tolerance at the fine grid is the largest C over the coarse grids, times 2 for that
 * scatter, over n_fine^p. */
static double envelope(const double *err, const size_t *ns, int count, double p, size_t fine)
{
    double c = 0.0;
    for (int j = 0; j < count; j++)
        c = fmax(c, err[j] * pow((double)ns[j], p));
    return 2.0 * c / pow((double)fine, p);
}

/* rho, N (and the orbital DOS) at NE energies on grids ns[0..count) */
static int on_grids(const mcf_periodic *p, const size_t *ns, int count, size_t ne,
                    const double *E, double *rho, double *N, double *orb)
{
    for (int j = 0; j < count; j++) {
        tetra_grid *g = grid(p, ns[j], orb != NULL);
        if (!g)
            return 1;
        const int rc = tetra_dos(g, ne, E, 0, rho + j * ne, N + j * ne,
                                 orb ? orb + j * ne * p->orbitals : NULL);
        CHECK(rc == MCF_OK, "tetra_dos: %s", mcf_last_error());
        tetra_grid_destroy(g);
    }
    return 0;
}

/* (a) and (b) */
static void test_sc_dos(void)
{
    mcf_periodic sc = sc_crystal();
    enum { NE = 17, NG = 5 };
    const double E[NE] = {0, 2, -2, 1, -1, 3, -3, 5, -5, 0.5, -0.5, 4, -4, -6.25, -6, 6, 6.25};
    const size_t ns[NG] = {12, 16, 24, 32, 64};
    double rho[NG][NE], N[NG][NE], ref[NE];
    for (int i = 0; i < NE; i++)
        ref[i] = rho_sc(E[i]);
    printf("(a) rho_sc(0) by quadrature = %.10f (sanity: 0.1426730)\n", ref[0]);
    CHECK(fabs(ref[0] - 0.1426730) < 5e-7, "rho_sc(0) = %.10f", ref[0]);
    if (on_grids(&sc, ns, NG, NE, E, &rho[0][0], &N[0][0], NULL))
        return;
    const int use[3] = {1, 3, 4}; /* n = 16, 32, 64 */
    double err[3];
    for (int j = 0; j < 3; j++) {
        err[j] = fabs(rho[use[j]][0] - ref[0]);
        printf("    n = %2zu: rho(0) = %.10f, error %.3e\n", ns[use[j]], rho[use[j]][0], err[j]);
    }
    for (int j = 1; j < 3; j++) {
        const double p = order(err[j - 1], err[j]);
        printf("    order %zu -> %zu: %.3f (want 1.5 .. 2.5)\n", ns[use[j - 1]], ns[use[j]], p);
        CHECK(p > 1.5 && p < 2.5, "order of rho(0) from n = %zu to %zu: %g", ns[use[j - 1]],
              ns[use[j]], p);
    }
    const double rich = fabs(rho[4][0] - rho[3][0]) / (pow(2.0, 1.5) - 1.0);
    printf("    finest error %.3e <= Richardson bound |rho64 - rho32| / (2^1.5 - 1) = %.3e\n",
           err[2], rich);
    CHECK(err[2] <= rich, "error %g above the Richardson bound %g", err[2], rich);

    printf("(b) band edges, n = 64\n");
    for (int i = 13; i < NE; i++) {
        const double want = E[i] < 0 ? 0.0 : 1.0;
        printf("    E = %+.2f: rho = %g, N = %.17g (want %g)\n", E[i], rho[4][i], N[4][i], want);
        CHECK(fabs(N[4][i] - want) <= 1e-14, "N(%g) = %.17g, want %g", E[i], N[4][i], want);
        CHECK(rho[4][i] == 0.0, "rho(%g) = %g, want 0", E[i], rho[4][i]);
    }
    printf("    rho(E) at n = 64 vs the quadrature; tolerance 2 max_n C(n) / 64^p over n = 12 .. 32\n");
    for (int i = 1; i < 13; i++) {
        double e[NG];
        for (int j = 0; j < NG; j++)
            e[j] = fabs(rho[j][i] - ref[i]);
        const double p = fabs(fabs(E[i]) - 2.0) < 1e-12 ? 1.0 : 2.0;
        const double tol = envelope(e, ns, NG - 1, p, ns[NG - 1]);
        printf("    E = %+.2f: rho = %.9f, reference %.9f, error %.2e (orders %.2f %.2f %.2f "
               "%.2f), p = %g, tol %.2e\n", E[i], rho[4][i], ref[i], e[4], order(e[0], e[1]) /
               log2(16.0 / 12.0), order(e[1], e[2]) / log2(1.5), order(e[2], e[3]) /
               log2(32.0 / 24.0), order(e[3], e[4]), p, tol);
        CHECK(e[4] <= tol, "rho(%g) = %.10f, reference %.10f", E[i], rho[4][i], ref[i]);
        if (i % 2 == 1) /* E[i + 1] = -E[i] */
            CHECK(fabs(rho[4][i] - rho[4][i + 1]) <= 1e-13, "rho(%g) = %.17g, rho(%g) = %.17g",
                  E[i], rho[4][i], E[i + 1], rho[4][i + 1]);
    }
}

/* the L^3 eigenvalues of the supercell at Gamma, sorted; NULL on failure */
static double *supercell_gamma(int L)
{
    const size_t n = (size_t)L * L * L;
    mcf_cell_hopping *hops = malloc(6 * n * sizeof *hops);
    mcf_periodic p = sc_supercell(L, hops);
    tetra_grid *g = grid(&p, 1, 0);
    double *ev = g ? malloc(n * sizeof *ev) : NULL;
    for (size_t b = 0; ev && b < n; b++)
        ev[b] = tetra_grid_energy(g, 0, b);
    tetra_grid_destroy(g);
    free(hops);
    return ev;
}

/* (c) */
static void test_supercell(void)
{
    const int L = 4;
    const size_t n = (size_t)L * L * L;
    mcf_periodic sc = sc_crystal();
    double *ev = supercell_gamma(L);
    tetra_grid *g = grid(&sc, (size_t)L, 0);
    if (!ev || !g) {
        free(ev);
        tetra_grid_destroy(g);
        return;
    }
    double *ek = malloc(n * sizeof *ek), worst = 0.0;
    for (size_t k = 0; k < n; k++)
        ek[k] = tetra_grid_energy(g, k, 0);
    gsl_sort(ek, 1, n);
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(ek[i] - ev[i]));
    printf("(c) %d^3 supercell at Gamma vs the %d^3 grid: largest difference %.2e (tol 1e-12)\n",
           L, L, worst);
    CHECK(worst <= 1e-12, "supercell eigenvalues differ by %g", worst);
    free(ek);
    free(ev);
    tetra_grid_destroy(g);

    double prev = INFINITY;
    for (size_t m = 4; m <= 32; m *= 2) {
        if (!(g = grid(&sc, m, 0)))
            return;
        double sum = 0.0, et = 0.0;
        for (size_t k = 0; k < tetra_grid_points(g); k++)
            sum += fmin(tetra_grid_energy(g, k, 0), 0.0);
        sum /= (double)tetra_grid_points(g);
        tetra_band_energy(g, 0.0, 1, NULL, &et);
        const double diff = fabs(sum - et);
        printf("    L = %2zu: k sum %.10f, tetrahedra %.10f, difference %.3e\n", m, sum, et, diff);
        CHECK(diff < prev, "k sum and tetrahedra do not approach each other at L = %zu", m);
        prev = diff;
        tetra_grid_destroy(g);
    }
}

/* exact CDW DOS per site and its A projection */
static double cdw_rho(double E, double delta, double *rho_a)
{
    if (fabs(E) <= delta) {
        *rho_a = 0.0;
        return 0.0;
    }
    const double x = sqrt(E * E - delta * delta), r = fabs(E) / x * rho_sc(x);
    *rho_a = r * (1.0 + delta / E);
    return r;
}

/* (d) */
static void test_cdw(void)
{
    const double delta = 0.5, top = sqrt(36.0 + delta * delta);
    mcf_cell_hopping hops[14];
    mcf_periodic p = cdw_crystal(delta, hops);
    enum { NE = 12, NG = 5 };
    const double E[NE] = {-5, -3, -1.5, -0.75, 0.75, 1.5, 3, 5, -0.45, 0.0, 0.3, 6.1};
    const size_t ns[NG] = {8, 12, 16, 24, 32};
    double rho[NG][NE], N[NG][NE], orb[NG][2 * NE];
    if (on_grids(&p, ns, NG, NE, E, &rho[0][0], &N[0][0], &orb[0][0]))
        return;
    printf("(d) CDW, delta = %g, fcc cell, n = 32, per site; tolerance 2 max_n C(n) / 32^2 "
           "over n = 8 .. 24\n", delta);
    double sum_err = 0.0;
    for (int i = 0; i < NE; i++)
        sum_err = fmax(sum_err, fabs(orb[4][2 * i] + orb[4][2 * i + 1] - rho[4][i]));
    printf("    orbital DOS sum - total: %.2e (tol 1e-12)\n", sum_err);
    CHECK(sum_err <= 1e-12, "orbital DOS sums differ from the total by %g", sum_err);
    for (int i = 0; i < 8; i++) {
        double ra, r = cdw_rho(E[i], delta, &ra), e[NG], ea[NG];
        for (int j = 0; j < NG; j++) {
            e[j] = fabs(rho[j][i] / 2 - r);
            ea[j] = fabs(orb[j][2 * i] - ra);
        }
        const double tol = envelope(e, ns, NG - 1, 2.0, ns[NG - 1]);
        const double tola = envelope(ea, ns, NG - 1, 2.0, ns[NG - 1]);
        printf("    E = %+.2f: rho %.8f ref %.8f (err %.1e, tol %.1e); rho_A %.8f ref %.8f "
               "(err %.1e, tol %.1e)\n", E[i], rho[4][i] / 2, r, e[4], tol, orb[4][2 * i], ra,
               ea[4], tola);
        CHECK(e[4] <= tol, "CDW rho(%g) = %.10f, exact %.10f", E[i], rho[4][i] / 2, r);
        CHECK(ea[4] <= tola, "CDW rho_A(%g) = %.10f, exact %.10f", E[i], orb[4][2 * i], ra);
    }
    for (int i = 8; i < 11; i++) {
        printf("    gap E = %+.2f: rho = %g, N = %.15f per cell\n", E[i], rho[4][i], N[4][i]);
        CHECK(rho[4][i] == 0.0 && fabs(N[4][i] - 1.0) <= 1e-13, "states in the gap at %g",
              E[i]);
    }
    printf("    above the band (top %.4f): N = %.15f per cell (want 2)\n", top, N[4][11]);
    CHECK(fabs(N[4][11] - 2.0) <= 1e-13, "N above the band = %.17g", N[4][11]);
}

/* (e) */
static void test_bloechl(void)
{
    mcf_periodic sc = sc_crystal();
    const double ref = sc_moment_below(0.0, 1);
    printf("(e) half-filled band energy, reference %.12f\n", ref);
    double err[2][4];
    const size_t ns[4] = {8, 16, 32, 64};
    for (int j = 0; j < 4; j++) {
        tetra_grid *g = grid(&sc, ns[j], 0);
        if (!g)
            return;
        for (int b = 0; b < 2; b++) {
            double ne = 0.0, en = 0.0;
            tetra_band_energy(g, 0.0, b, &ne, &en);
            err[b][j] = fabs(en - ref);
            CHECK(fabs(ne - 0.5) <= 1e-14, "N(0) = %.17g", ne);
        }
        printf("    n = %2zu: error plain %.3e, Bloechl %.3e", ns[j], err[0][j], err[1][j]);
        if (j > 0)
            printf("; orders %.2f, %.2f", order(err[0][j - 1], err[0][j]),
                   order(err[1][j - 1], err[1][j]));
        printf("\n");
        tetra_grid_destroy(g);
    }
    CHECK(err[1][3] < err[0][3], "Bloechl error %g not below the plain error %g", err[1][3],
          err[0][3]);
}

/* (f) */
static void test_fermi(void)
{
    mcf_periodic sc = sc_crystal();
    double ef[2] = {0, 0}, half = 1.0;
    const size_t ns[2] = {16, 32};
    for (int j = 0; j < 2; j++) {
        tetra_grid *g = grid(&sc, ns[j], 0);
        if (!g)
            return;
        CHECK(tetra_fermi_level(g, 0.37, &ef[j]) == MCF_OK, "%s", mcf_last_error());
        if (j == 1)
            CHECK(tetra_fermi_level(g, 0.5, &half) == MCF_OK, "%s", mcf_last_error());
        tetra_grid_destroy(g);
    }
    /* N(E) is trusted to 1e-12 (the bisection's delta); E_F to delta / rho(0) */
    const double tol_half = 2e-12 / rho_sc(0.0) + 12 * 1e-13;
    printf("(f) half filling: E_F = %.3e (tol %.1e)\n", half, tol_half);
    CHECK(fabs(half) <= tol_half, "E_F at half filling = %g", half);
    double x = ef[1]; /* Newton on the quadrature N(E) = 0.37 */
    for (int it = 0; it < 3; it++)
        x -= (sc_moment_below(x, 0) - 0.37) / rho_sc(x);
    const double tol = fabs(ef[1] - ef[0]);
    printf("    0.37 per site: E_F = %.10f (n = 16: %.10f), quadrature %.10f, error %.2e, "
           "tol %.2e\n", ef[1], ef[0], x, fabs(ef[1] - x), tol);
    CHECK(fabs(ef[1] - x) <= tol, "E_F(0.37) = %.12f, quadrature %.12f", ef[1], x);
}

/* (g) */
static void test_refused(void)
{
    mcf_cell_hopping h[2] = {{{1, 0, 0}, 0, 0, -1.0, 0.0}, {{-1, 0, 0}, 0, 0, -0.5, 0.0}};
    mcf_periodic p = {1, 1, 1, {{1, 0, 0}}, 2, h};
    const size_t n[3] = {8, 1, 1}, n0[3] = {0, 1, 1};
    tetra_grid *g = NULL;
    int rc = tetra_grid_create(&p, n, NULL, 0, &g);
    printf("(g) non-Hermitian: %s\n", mcf_last_error());
    CHECK(rc == MCF_EINVAL && !g && strstr(mcf_last_error(), "hopping"), "rc %d: %s", rc,
          mcf_last_error());
    h[1].re = -1.0;
    rc = tetra_grid_create(&p, n0, NULL, 0, &g);
    printf("    n = 0: %s\n", mcf_last_error());
    CHECK(rc == MCF_EINVAL && !g && strstr(mcf_last_error(), "n = 0"), "rc %d: %s", rc,
          mcf_last_error());
}

static double sq_integrand(double e, void *par)
{
    (void)par;
    return rho_sq(e);
}

/* (h) */
static void test_lower_dims(void)
{
    static mcf_cell_hopping h[4];
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 2; s++) {
            h[2 * d + s] = (mcf_cell_hopping){{0, 0, 0}, 0, 0, -1.0, 0.0};
            h[2 * d + s].R[d] = s ? -1 : 1;
        }
    const mcf_periodic chain = {1, 1, 1, {{1, 0, 0}}, 2, h};
    const mcf_periodic square = {2, 1, 1, {{1, 0, 0}, {0, 1, 0}}, 4, h};
    const double E = 1.0;
    double nsq = 0.0, qerr = 0.0, pts[3] = {-4.0, 0.0, E};
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(REF_LIMIT);
    gsl_function f = {sq_integrand, NULL};
    gsl_integration_qagp(&f, pts, 3, 1e-14, 1e-12, REF_LIMIT, w, &nsq, &qerr);
    gsl_integration_workspace_free(w);
    const double rref[2] = {1.0 / (ref_pi * sqrt(4.0 - E * E)), rho_sq(E)};
    const double nref[2] = {acos(-E / 2.0) / ref_pi, nsq};
    const mcf_periodic *ps[2] = {&chain, &square};
    const size_t base[2] = {64, 32};
    for (int c = 0; c < 2; c++) {
        double er[3], en[3];
        for (int j = 0; j < 3; j++) {
            const size_t m = base[c] << j, n[3] = {m, c ? m : 1, 1};
            tetra_grid *g = NULL;
            double rho = 0.0, N = 0.0;
            CHECK(tetra_grid_create(ps[c], n, NULL, 0, &g) == MCF_OK, "%s", mcf_last_error());
            if (g)
                tetra_dos(g, 1, &E, 0, &rho, &N, NULL);
            tetra_grid_destroy(g);
            er[j] = fabs(rho - rref[c]);
            en[j] = fabs(N - nref[c]);
        }
        const double p1 = order(en[0], en[1]), p2 = order(en[1], en[2]);
        printf("(h) %s (dims %d), n = %zu, %zu, %zu: N(1) errors %.2e %.2e %.2e, orders %.2f "
               "%.2f (want 1.5 .. 2.5); rho(1) errors %.2e %.2e %.2e, orders %.2f %.2f\n",
               c ? "square" : "chain", c + 1, base[c], base[c] * 2, base[c] * 4, en[0], en[1],
               en[2], p1, p2, er[0], er[1], er[2], order(er[0], er[1]), order(er[1], er[2]));
        CHECK(p1 > 1.5 && p1 < 2.5 && p2 > 1.5 && p2 < 2.5, "orders of N: %g %g", p1, p2);
        if (c == 0) { /* 1D: the interpolated band's DOS is a step function, error O(h) */
            const double q1 = order(er[0], er[1]), q2 = order(er[1], er[2]);
            CHECK(q1 > 0.5 && q1 < 1.5 && q2 > 0.5 && q2 < 1.5, "orders of rho: %g %g", q1, q2);
        }
    }
}

/* (i) the same bits on 1 and 3 threads */
static void test_threads(void)
{
    mcf_cell_hopping hops[14];
    const mcf_periodic p = cdw_crystal(0.5, hops);
    const double E[3] = {-2.0, 0.8, 3.3};
    double out[2][3 * 4 + 2];
    for (int r = 0; r < 2; r++) {
        omp_set_num_threads(r ? 3 : 1);
        tetra_grid *g = grid(&p, 12, 1);
        if (!g)
            return;
        tetra_dos(g, 3, E, 1, out[r], out[r] + 3, out[r] + 6);
        tetra_band_energy(g, 0.8, 1, out[r] + 12, out[r] + 13);
        tetra_grid_destroy(g);
    }
    omp_set_num_threads(omp_get_num_procs());
    printf("(i) DOS, orbital DOS and band energy on 1 and 3 threads: %s\n",
           memcmp(out[0], out[1], sizeof out[0]) ? "differ" : "identical");
    CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0, "results depend on the thread count");
}

int main(void)
{
    gsl_set_error_handler_off();
    const clock_t t0 = clock();
    test_sc_dos();
    test_supercell();
    test_cdw();
    test_bloechl();
    test_fermi();
    test_refused();
    test_lower_dims();
    test_threads();
    printf("CPU time %.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    return check_exit();
}
