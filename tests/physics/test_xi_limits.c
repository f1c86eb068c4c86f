/* test_xi_limits — the structure factor at k_min (m2_kmin) and the second-moment
 * correlation length over L (xi_over_l) of ising and heisenberg in closed forms: independent
 * spins, the exact periodic Heisenberg ring, the ordered state (the 2D Ising model's exact
 * finite-lattice values are test_ising_exact4x4's).
 *
 * Independent spins (T = 1e6 J; correlations are O(J/T) = 1e-6, far below the errors):
 * for unit spins <|sum_i S_i exp(i k.r_i)|^2> = sum_i |S_i|^2 = N for every k, so
 * m2 = m2_kmin = 1/N (per-unit normalization |.|^2 / N^2): both within 4 of their blocking
 * errors.  (xi_over_l is then ~0, where its square root is not differentiable and the
 * jackknife's bias correction means little: it is printed, not compared.)
 *
 * The periodic classical Heisenberg chain (ring of L spins), exactly: the transfer kernel
 * exp(K S.S') = sum_l lambda_l sum_m Y_lm(S) Y_lm(S')*, lambda_l = 4 pi i_l(K) (modified
 * spherical Bessel functions, K = J/T), and S couples l to l +- 1 with sum_{m,m'} |<l+1 m'|
 * S |l m>|^2 = l + 1, so
 *     Z = sum_l (2l + 1) lambda_l^L,
 *     Z <S_0.S_r> = sum_l (l + 1) (lambda_l^(L-r) lambda_(l+1)^r + lambda_(l+1)^(L-r) lambda_l^r)
 * (r = 0 gives Z; L -> inf gives Fisher's u^r, u = coth K - 1/K).  Then N^2 m2 = N sum_r G(r)
 * and N^2 m2_kmin = N sum_r G(r) cos(2 pi r / L), and xi_over_l follows; the run's m2,
 * m2_kmin and xi_over_l must meet them within 4 of their errors (same finite system, no
 * allowance).
 *
 * The ordered state (start = ordered at T = 0.01 J, where no move is taken in a few sweeps:
 * dE >= 2 J for a flip): sum_i exp(i k_min.r_i) = 0 over a full period, so m2_kmin = 0
 * (to rounding) and m2 = 1.  On bcc this checks the half-cell coordinates of the body
 * centres: a wrong plane of either sublattice leaves a nonzero sum.
 *
 * Double exchange's m2_kmin (models/double-exchange/de_measure.c) in the same two limits:
 * independent spins at T = 1e6 t (3^3) and the ordered ferromagnet (cubic 4^3, square 6^2).
 *
 * Usage: test_xi_limits PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#include <gsl/gsl_sf_bessel.h>

#define RING_L 8
#define RING_LMAX 60

/* The ring's exact m2, m2_kmin and xi_over_l at K = J / T (see above), with the lambda_l
 * as ratios rho_l = i_l(K) / i_0(K) (the scaled Bessel functions share the factor e^-K). */
static void ring_exact(double K, double *m2, double *mk, double *xi_L)
{
    double il[RING_LMAX + 2], rho[RING_LMAX + 2];
    gsl_sf_bessel_il_scaled_array(RING_LMAX + 1, K, il);
    for (int l = 0; l <= RING_LMAX + 1; l++)
        rho[l] = il[l] / il[0];
    double Z = 0, sum = 0, sum_cos = 0;
    for (int l = 0; l <= RING_LMAX; l++)
        Z += (2 * l + 1) * pow(rho[l], RING_L);
    for (int r = 0; r < RING_L; r++) {
        double g = 0;
        for (int l = 0; l < RING_LMAX; l++)
            g += (l + 1) * (pow(rho[l], RING_L - r) * pow(rho[l + 1], r) +
                            pow(rho[l + 1], RING_L - r) * pow(rho[l], r));
        g /= Z;
        sum += g;
        sum_cos += g * cos(2 * M_PI * r / RING_L);
    }
    *m2 = sum / RING_L;
    *mk = sum_cos / RING_L;
    *xi_L = sqrt(*m2 / *mk - 1.0) / (2.0 * RING_L * sin(M_PI / RING_L));
}

static void ring(const char *mcf)
{
    phys_table t;
    printf("heisenberg ring of %d spins vs the exact transfer matrix\n", RING_L);
    if (phys_run_mcf(mcf, "xi_heisenberg_ring", "heisenberg", 20261130ull,
                     "extra_observables = m2_kmin\n[schedule]\nthermalize = 2000\n"
                     "sweeps = 200000\n"
                     "temperatures = 0.5, 1.0\n\n[model]\nlattice = chain\nL = 8\n", &t)) {
        CHECK(0, "ring: mcf run failed");
        return;
    }
    const double temps[] = {0.5, 1.0};
    for (int k = 0; k < 2; k++) {
        const long row = phys_find_row(&t, "T", temps[k]);
        CHECK(row >= 0, "ring: no row for T = %g", temps[k]);
        if (row < 0)
            continue;
        double m2, mk, xi;
        ring_exact(1.0 / temps[k], &m2, &mk, &xi);
        printf("T = %g\n", temps[k]);
        phys_compare("m2", phys_get(&t, (size_t)row, "m2"),
                     phys_get(&t, (size_t)row, "m2_err"), m2, 4.0, 0.0);
        phys_compare("m2_kmin", phys_get(&t, (size_t)row, "m2_kmin"),
                     phys_get(&t, (size_t)row, "m2_kmin_err"), mk, 4.0, 0.0);
        phys_compare("xi_over_l", phys_get(&t, (size_t)row, "xi_over_l"),
                     phys_get(&t, (size_t)row, "xi_over_l_err"), xi, 4.0, 0.0);
    }
    phys_table_free(&t);
}

/* run: [run] lines before extra_observables ("" or e.g. "evaluator = ed\n"); sweeps: 20000
 * for the lattice models, fewer for double exchange (a diagonalization a move) */
static void independent(const char *mcf, const char *name, const char *model, const char *run,
                        const char *lattice, long L, double N, long sweeps)
{
    char sections[512];
    snprintf(sections, sizeof sections,
             "%sextra_observables = m2_kmin\n[schedule]\nthermalize = 100\nsweeps = %ld\n"
             "temperatures = 1e6\n\n"
             "[model]\nL = %ld\n%s\n", run, sweeps, L, lattice);
    phys_table t;
    printf("%s (independent spins, N = %g)\n", name, N);
    if (phys_run_mcf(mcf, name, model, 20261129ull, sections, &t)) {
        CHECK(0, "%s: mcf run failed", name);
        return;
    }
    const double m2 = phys_get(&t, 0, "m2"), m2e = phys_get(&t, 0, "m2_err");
    const double mk = phys_get(&t, 0, "m2_kmin"), mke = phys_get(&t, 0, "m2_kmin_err");
    phys_compare("m2", m2, m2e, 1.0 / N, 4.0, 0.0);
    phys_compare("m2_kmin", mk, mke, 1.0 / N, 4.0, 0.0);
    printf("  %-28s mc = %+.6f +- %.6f (not compared)\n", "xi_over_l",
           phys_get(&t, 0, "xi_over_l"), phys_get(&t, 0, "xi_over_l_err"));
    (void)L;
    phys_table_free(&t);
}

static void ordered(const char *mcf, const char *name, const char *model, const char *run,
                    const char *lattice, long L)
{
    char sections[512];
    snprintf(sections, sizeof sections,
             "%sextra_observables = m2_kmin\n[schedule]\nthermalize = 0\nsweeps = 64\n"
             "temperatures = 1e-6\n\n"
             "[model]\nL = %ld\nstart = ordered\n%s\n", run, L, lattice);
    phys_table t;
    printf("%s (ordered)\n", name);
    if (phys_run_mcf(mcf, name, model, 7ull, sections, &t)) {
        CHECK(0, "%s: mcf run failed", name);
        return;
    }
    const double m2 = phys_get(&t, 0, "m2"), mk = phys_get(&t, 0, "m2_kmin");
    printf("  m2 = %.17g   m2_kmin = %.3g\n", m2, mk);
    CHECK(fabs(m2 - 1.0) < 1e-12, "%s: ordered m2 = %.17g, not 1", name, m2);
    CHECK(fabs(mk) < 1e-24, "%s: ordered m2_kmin = %g, not 0", name, mk);
    phys_table_free(&t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    ring(argv[1]);
    independent(argv[1], "xi_ising_8", "ising", "", "", 8, 64.0, 20000);
    independent(argv[1], "xi_heisenberg_cubic_4", "heisenberg", "", "lattice = cubic", 4, 64.0,
                20000);
    independent(argv[1], "xi_heisenberg_bcc_3", "heisenberg", "", "lattice = bcc", 3, 54.0,
                20000);
    /* double exchange (infinite Hund coupling, exact evaluator): at T = 1e6 t the fermions'
     * coupling of the spins is O(t/T) */
    independent(argv[1], "xi_double_exchange_cubic_3", "double-exchange", "evaluator = ed\n",
                "lattice = cubic\nmu = 0", 3, 27.0, 1000);
    ordered(argv[1], "xi_ising_ordered", "ising", "", "", 6);
    ordered(argv[1], "xi_heisenberg_cubic_ordered", "heisenberg", "", "lattice = cubic", 5);
    ordered(argv[1], "xi_heisenberg_bcc_ordered", "heisenberg", "", "lattice = bcc", 3);
    ordered(argv[1], "xi_heisenberg_square_ordered", "heisenberg", "", "lattice = square", 6);
    /* the ferromagnet is double exchange's ground state at mu = 0: at T = 1e-6 t no uniform
     * move (a new direction, O(t) dearer) is taken */
    ordered(argv[1], "xi_double_exchange_cubic_ordered", "double-exchange", "evaluator = ed\n",
            "lattice = cubic\nmu = 0\nmove = uniform", 4);
    ordered(argv[1], "xi_double_exchange_square_ordered", "double-exchange",
            "evaluator = ed\n", "lattice = square\nmu = 0\nmove = uniform", 6);
    return check_exit();
}
