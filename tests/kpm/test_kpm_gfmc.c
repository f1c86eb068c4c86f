/* test_kpm_gfmc.c — Green's-function Monte Carlo (kpm_gfmc_delta_action) against exact
 * diagonalization.
 *
 * The Hamiltonians are those of the double-exchange model, built here independently of
 * the model plugin: spinless fermions on a periodic L^3 cubic lattice with hoppings
 * H_ij = -<chi_i|chi_j>, chi = (cos(theta/2), sin(theta/2) e^{i phi}), for random spin
 * directions (infinite Hund coupling); and the 2L^3-dimensional spinful Hamiltonian with
 * on-site -J_H S.sigma (finite Hund coupling).  A change is one spin turned to a new random
 * direction.  The exact dS = S_eff(H') - S_eff(H), S_eff = -sum log(1 + e^{-(e - mu)/T}),
 * comes from the eigenvalues of the two dense matrices (GSL).
 *
 *   (a) identities: a change with C = 0, and a spin turned to its own direction, give
 *       dS = 0 exactly; for one move the two-point estimate beats M = 512 beats M = 256.
 *   (b) convergence in M: for 4^3 at (T, mu) = (0.1, 0), (0.5, -2), (0.05, 0) and 6^3 at
 *       (0.1, 0), (0.3, -1), the error of the
 *       Lorentz-kernel dS falls as 1/M (the broadening lambda a / M is linear in 1/M): the
 *       mean |error| over 8 (4 on 6^3) random moves at M = 128, 256, 512, 1024 has a slope
 *       within 0.2 of -1 between M = 512 and 1024 (where the broadening is below T); the
 *       two-point estimate 2 dS(M) - dS(M/2) beats dS(M) and falls faster than 1/M.
 *       (The printed table is the one in docs/methods.md.)
 *   (c) finite Hund coupling: the same with rank-2 spin-block changes.
 *   (d) refused input: T = 0, NaN mu, a change with a row out of range, a non-Hermitian C,
 *       too few energy points. */
#include <stdio.h>

#include "de_test_hamiltonian.h"
#include "kpm_core.h"
#include "kpm_test_util.h"

/* S_eff from the eigenvalues of a dense matrix */
static double s_eff(const double *ev, size_t n, double T, double mu)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double x = (ev[k] - mu) / T;
        s -= x > 0 ? log1p(exp(-x)) : -x + log1p(exp(x));
    }
    return s;
}

static void dense_eigenvalues(const double *m, size_t n, double *ev)
{
    gsl_matrix_complex *A = gsl_matrix_complex_alloc(n, n);
    memcpy(A->data, m, 2 * n * n * sizeof *m);
    gsl_vector *v = gsl_vector_alloc(n);
    gsl_eigen_herm_workspace *w = gsl_eigen_herm_alloc(n);
    gsl_eigen_herm(A, v, w);
    for (size_t k = 0; k < n; k++)
        ev[k] = gsl_vector_get(v, k);
    gsl_eigen_herm_free(w);
    gsl_vector_free(v);
    gsl_matrix_complex_free(A);
}

/* exact dS: eigenvalues of H and of H with spin o replaced (built from scratch) */
static double exact_ds(de_lattice *d, const mcf_hamiltonian *h, size_t o, const double *snew,
                       double T, double mu)
{
    const size_t n = h->dim;
    double *m = malloc(2 * n * n * sizeof *m), *ev0 = malloc(n * sizeof *ev0),
           *ev1 = malloc(n * sizeof *ev1);
    mcf_hamiltonian_dense(h, m);
    dense_eigenvalues(m, n, ev0);
    double old[3];
    memcpy(old, d->s + 3 * o, sizeof old);
    memcpy(d->s + 3 * o, snew, sizeof old);
    mcf_hamiltonian *h1 = de_build(d);
    memcpy(d->s + 3 * o, old, sizeof old);
    mcf_hamiltonian_dense(h1, m);
    dense_eigenvalues(m, n, ev1);
    mcf_hamiltonian_destroy(h1);
    const double r = s_eff(ev1, n, T, mu) - s_eff(ev0, n, T, mu);
    free(m);
    free(ev0);
    free(ev1);
    return r;
}

/* ---- (b), (c): convergence in M ---------------------------------------------------- */

#define NM 4
static const size_t Ms[NM] = {128, 256, 512, 1024};

static void convergence(size_t L, double hund, double T, double mu, int moves, uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    de_lattice d = {L, L * L * L, NULL, hund};
    d.s = malloc(3 * d.n * sizeof *d.s);
    for (size_t s = 0; s < d.n; s++)
        de_unit(&rng, d.s + 3 * s);
    mcf_hamiltonian *h = de_build(&d);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kpm_gfmc *g[NM], *gx[NM];
    for (int m = 0; m < NM; m++) {
        CHECK(kpm_gfmc_create(h->dim, Ms[m], 0, KPM_KERNEL_LORENTZ, 4.0, 0, &g[m]) == MCF_OK,
              "%s", mcf_last_error());
        CHECK(kpm_gfmc_create(h->dim, Ms[m] / 2, 0, KPM_KERNEL_LORENTZ, 4.0, 1, &gx[m]) ==
                  MCF_OK,
              "%s", mcf_last_error());
    }
    double err[NM] = {0}, errx[NM] = {0}, mean_abs = 0;
    for (int k = 0; k < moves; k++) {
        const size_t o = (size_t)mcf_rng_below(&rng, d.n);
        double snew[3];
        de_unit(&rng, snew);
        mcf_local_change c;
        de_change(&d, o, snew, &c);
        const double ex = exact_ds(&d, h, o, snew, T, mu);
        mean_abs += fabs(ex) / moves;
        for (int m = 0; m < NM; m++) {
            double ds, lo, hi;
            int rc = kpm_gfmc_delta_action(g[m], h, a, b, &c, T, mu, &ds, NULL, NULL);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
            err[m] += fabs(ds - ex) / moves;
            rc = kpm_gfmc_delta_action(gx[m], h, a, b, &c, T, mu, &ds, &lo, &hi);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
            errx[m] += fabs(ds - ex) / moves;
        }
    }
    if (hund > 0)
        printf("L = %zu, hund = %g, T = %g, mu = %g: mean |dS| = %.4f; mean |error|:\n", L,
               hund, T, mu, mean_abs);
    else
        printf("L = %zu, hund = inf, T = %g, mu = %g: mean |dS| = %.4f; mean |error|:\n", L,
               T, mu, mean_abs);
    for (int m = 0; m < NM; m++)
        printf("  M = %4zu: %.3e   two-point (M/2, M): %.3e\n", Ms[m], err[m], errx[m]);
    /* Asymptotically the Lorentz kernel broadens every level by eps = lambda a / M, and
     * the error of dS is linear in eps: halving eps halves the error.  That regime starts
     * where eps is below the scale of the Fermi edge, eps(M) <= T: check the rate between
     * the last two orders there, within +-0.2 of -1 (the next, 1/M^2 term changes the
     * local slope by O(eps/T) ~ 0.2 at eps(512) ~ T). */
    const double eps512 = 4.0 * a / 512.0;
    const double slope = (log(err[NM - 1]) - log(err[NM - 2])) / log(2.0);
    printf("  local log-log slope (512 -> 1024) %.2f%s\n", slope,
           eps512 <= T ? "" : " (not asserted: eps(512) > T)");
    if (eps512 <= T)
        CHECK(slope > -1.2 && slope < -0.8, "L = %zu T = %g mu = %g: the GFMC error falls as "
              "M^%.2f between M = 512 and 1024, not as 1/M", L, T, mu, slope);
    /* the two-point estimate removes the 1/M term: better than the plain one of the same
     * top order, at every M */
    for (int m = 0; m < NM; m++)
        CHECK(errx[m] < err[m], "L = %zu T = %g: two-point error %.3e not below the plain "
              "error %.3e at M = %zu", L, T, errx[m], err[m], Ms[m]);
    /* and it converges faster than 1/M: from 512 to 1024 by more than a factor 2 */
    CHECK(errx[NM - 1] < 0.5 * errx[NM - 2], "L = %zu T = %g: two-point error %.3e -> %.3e "
          "does not fall faster than 1/M", L, T, errx[NM - 2], errx[NM - 1]);
    for (int m = 0; m < NM; m++) {
        kpm_gfmc_destroy(g[m]);
        kpm_gfmc_destroy(gx[m]);
    }
    mcf_hamiltonian_destroy(h);
    free(d.s);
}

/* ---- (a) identities, (d) refusals ------------------------------------------------------ */

static void identities_and_refusals(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 77, 0);
    de_lattice d = {4, 64, NULL, 0};
    d.s = malloc(3 * d.n * sizeof *d.s);
    for (size_t s = 0; s < d.n; s++)
        de_unit(&rng, d.s + 3 * s);
    mcf_hamiltonian *h = de_build(&d);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kpm_gfmc *g = NULL;
    CHECK(kpm_gfmc_create(h->dim, 256, 0, KPM_KERNEL_LORENTZ, 4.0, 1, &g) == MCF_OK, "%s",
          mcf_last_error());
    mcf_local_change c;
    double snew[3];
    de_unit(&rng, snew);
    de_change(&d, 5, snew, &c);

    /* C = 0: d(E) = 1 at every energy, so Im log d = 0 and dS = 0 exactly */
    mcf_local_change z = c;
    memset(z.c_re, 0, sizeof z.c_re);
    double ds = 1.0, lo, hi;
    CHECK(kpm_gfmc_delta_action(g, h, a, b, &z, 0.1, 0.0, &ds, &lo, &hi) == MCF_OK && ds == 0.0,
          "C = 0 gives dS = %g, not 0", ds);
    /* the same spin: Delta = 0 through zero vectors v */
    de_change(&d, 5, d.s + 15, &z);
    CHECK(kpm_gfmc_delta_action(g, h, a, b, &z, 0.1, 0.0, &ds, &lo, &hi) == MCF_OK && ds == 0.0,
          "an unchanged spin gives dS = %g, not 0", ds);
    /* one move: the estimates at M = 256, at 512 and the two-point one approach the exact
     * dS in that order (errors ~ 1/M, and the two-point one ~ 1/M^2) */
    {
        double ex = exact_ds(&d, h, 5, snew, 0.2, 0.0);
        CHECK(kpm_gfmc_delta_action(g, h, a, b, &c, 0.2, 0.0, &ds, &lo, &hi) == MCF_OK,
              "%s", mcf_last_error());
        printf("single move, 4^3, T = 0.2: dS = %.6f (M = 256: %.6f, 512: %.6f), exact %.6f\n",
               ds, lo, hi, ex);
        CHECK(fabs(ds - ex) < fabs(hi - ex) && fabs(hi - ex) < fabs(lo - ex),
              "two-point %.6f, M = 512 %.6f, M = 256 %.6f: not ordered by accuracy vs %.6f",
              ds, hi, lo, ex);
    }
    /* refusals */
    CHECK(kpm_gfmc_delta_action(g, h, a, b, &c, 0.0, 0.0, &ds, NULL, NULL) == MCF_EINVAL &&
              strstr(mcf_last_error(), "T = 0"),
          "T = 0 accepted: %s", mcf_last_error());
    CHECK(kpm_gfmc_delta_action(g, h, a, b, &c, 0.1, NAN, &ds, NULL, NULL) == MCF_EINVAL,
          "NaN mu accepted");
    z = c;
    z.row[1][3] = 64;
    CHECK(kpm_gfmc_delta_action(g, h, a, b, &z, 0.1, 0.0, &ds, NULL, NULL) == MCF_EINVAL &&
              strstr(mcf_last_error(), "row 64"),
          "row out of range accepted: %s", mcf_last_error());
    z = c;
    z.c_re[0][1] = 2.0;
    CHECK(kpm_gfmc_delta_action(g, h, a, b, &z, 0.1, 0.0, &ds, NULL, NULL) == MCF_EINVAL &&
              strstr(mcf_last_error(), "Hermitian"),
          "non-Hermitian C accepted: %s", mcf_last_error());
    kpm_gfmc *bad = NULL;
    CHECK(kpm_gfmc_create(64, 256, 100, KPM_KERNEL_LORENTZ, 4.0, 1, &bad) == MCF_EINVAL &&
              strstr(mcf_last_error(), "energy_points"),
          "too few energy points accepted: %s", mcf_last_error());
    kpm_gfmc_destroy(g);
    mcf_hamiltonian_destroy(h);
    free(d.s);
}

int main(void)
{
    identities_and_refusals();
    convergence(4, 0, 0.1, 0.0, 8, 1);
    convergence(4, 0, 0.5, -2.0, 8, 2);
    convergence(4, 0, 0.05, 0.0, 8, 3);
    convergence(6, 0, 0.1, 0.0, 4, 4);
    convergence(6, 0, 0.3, -1.0, 4, 6);
    convergence(4, 8.0, 0.1, -8.0, 8, 5);
    return check_exit();
}
