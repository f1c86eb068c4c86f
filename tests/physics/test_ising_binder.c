/* test_ising_binder — the critical temperature of the 2D Ising model from the crossing of
 * the Binder cumulants U_L = 1 - <m^4> / (3 <m^2>^2) of L = 8 and L = 16 (periodic,
 * J = 1, h = 0), against Onsager's Tc = 2 / ln(1 + sqrt 2) = 2.269185.
 *
 * Method.  One mcf run scans L = 8, 16 and T on the grid 2.20:2.34:8 (step 0.02), one chain
 * per point.  The difference d(T) = U_16(T) - U_8(T) is positive below Tc (the larger
 * lattice is more ordered, U -> 2/3) and negative above (U -> 0 faster); its sign change
 * between grid points T_a < T_b is located by linear interpolation,
 *     T* = T_a + (T_b - T_a) d_a / (d_a - d_b).
 *
 * Statistical error.  The four cumulants come from four independent chains, each with a
 * jackknife error (32 bins), so sigma_a^2 = err16_a^2 + err8_a^2 (likewise at b) and
 *     g_a = d T* / d d_a = -(T_b - T_a) d_b / (d_a - d_b)^2,
 *     g_b = d T* / d d_b =  (T_b - T_a) d_a / (d_a - d_b)^2,
 *     sigma_T*^2 = (g_a sigma_a)^2 + (g_b sigma_b)^2.
 *
 * Systematic allowance.  The crossing of two finite lattices is not Tc: corrections to
 * scaling shift it.  For the 2D Ising model on small periodic lattices the crossings of
 * U_L and U_2L are known to lie within about 1% of Tc (Binder, Z. Phys. B 43, 119 (1981);
 * the shift shrinks quickly with L because the 2D Ising corrections to scaling are weak),
 * so we allow 0.01 Tc.  The same allowance covers the linear interpolation: its error is
 * second order, ~ (T_b - T_a)^2 / 8 * |d''| / |d'|, about 1e-3 for the smooth cumulant
 * curves of these sizes over a 0.02 step, well inside 0.01 Tc = 0.023.
 * Tolerance: |T* - Tc| <= 3 sigma_T* + 0.01 Tc.
 *
 * The crossing must also be resolved: exactly one sign change of d on the grid.
 *
 * Cost: (64 + 256) spins x 8 temperatures x 205000 sweeps = 5.2e8 flips.  The Metropolis
 * autocorrelation time of m^2 at Tc is ~ 10-40 sweeps for L = 8-16, so the jackknife bins
 * (6250 sweeps) are much longer than it.
 *
 * Usage: test_ising_binder PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#define NT 8

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    const double Tc = 2.0 / log(1.0 + sqrt(2.0));
    phys_table t;
    if (phys_run_mcf(argv[1], "ising_binder", "ising", 1981ull,
                     "[schedule]\n"
                     "thermalize = 5000\n"
                     "sweeps = 200000\n"
                     "measure_every = 1\n"
                     "temperatures = 2.20:2.34:8\n"
                     "\n[model]\n"
                     "L = 8, 16\n"
                     "boundary = periodic\n"
                     "start = random\n",
                     &t)) {
        CHECK(0, "mcf run failed");
        return check_exit();
    }
    CHECK(t.nrows == 2 * NT, "results.tsv has %zu rows, expected %d", t.nrows, 2 * NT);

    /* Collect U and its error per (L, T) by column name; T is matched to the grid. */
    double u[2][NT], ue[2][NT], temp[NT];
    int seen[2][NT] = {{0}};
    for (int i = 0; i < NT; i++)
        temp[i] = 2.20 + 0.02 * i;
    for (size_t r = 0; r < t.nrows; r++) {
        const double L = phys_get(&t, r, "L"), T = phys_get(&t, r, "T");
        const int l = L == 8 ? 0 : L == 16 ? 1 : -1;
        const int i = (int)lround((T - 2.20) / 0.02);
        if (l < 0 || i < 0 || i >= NT || fabs(T - temp[i]) > 1e-6) {
            CHECK(0, "unexpected row L = %g, T = %g", L, T);
            continue;
        }
        u[l][i] = phys_get(&t, r, "binder");
        ue[l][i] = phys_get(&t, r, "binder_err");
        seen[l][i] = 1;
    }
    phys_table_free(&t);
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < NT; i++)
            if (!seen[l][i]) {
                CHECK(0, "no row for L = %d, T = %g", l ? 16 : 8, temp[i]);
                return check_exit();
            }

    double d[NT], sd[NT];
    printf("    T        U_8                 U_16                d = U_16 - U_8\n");
    for (int i = 0; i < NT; i++) {
        d[i] = u[1][i] - u[0][i];
        sd[i] = sqrt(ue[0][i] * ue[0][i] + ue[1][i] * ue[1][i]);
        printf("  %.3f  %.5f +- %.5f   %.5f +- %.5f   %+.5f +- %.5f\n", temp[i], u[0][i],
               ue[0][i], u[1][i], ue[1][i], d[i], sd[i]);
        CHECK(isfinite(ue[0][i]) && ue[0][i] > 0 && isfinite(ue[1][i]) && ue[1][i] > 0,
              "binder error bars at T = %g must be positive and finite", temp[i]);
    }

    int crossings = 0, a = -1;
    for (int i = 0; i + 1 < NT; i++)
        if ((d[i] > 0) != (d[i + 1] > 0)) {
            crossings++;
            if (a < 0)
                a = i;
        }
    CHECK(crossings == 1, "d(T) changes sign %d times on the grid; expected exactly once",
          crossings);
    if (a < 0)
        return check_exit();

    const int b = a + 1;
    const double dt = temp[b] - temp[a], den = d[a] - d[b];
    const double tstar = temp[a] + dt * d[a] / den;
    const double ga = -dt * d[b] / (den * den), gb = dt * d[a] / (den * den);
    const double sigma = sqrt(ga * ga * sd[a] * sd[a] + gb * gb * sd[b] * sd[b]);
    const double shift = 0.01 * Tc;
    printf("crossing between T = %.3f and %.3f (stated finite-size shift bound %.4f)\n",
           temp[a], temp[b], shift);
    phys_compare("Binder crossing T*", tstar, sigma, Tc, 3.0, shift);
    return check_exit();
}
