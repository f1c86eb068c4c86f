/* test_ising_exact4x4 — the 4 x 4 periodic Ising model (J = 1, h = 0) against exact
 * enumeration of all 2^16 states, at T = 1.5, 2.27 and 3.5.
 *
 * The exact values are for the same finite system mcf simulates, so there is no
 * systematic allowance: every quantity must agree within 4 of mcf's own error bars.
 * Plain observables (energy, abs_m, m2, m4) carry blocking errors; the derived ones
 * (specific heat, susceptibility, Binder cumulant) jackknife errors over 32 bins.  The
 * error bars are themselves estimates (a jackknife over 32 bins has ~ 1/sqrt(2 * 31)
 * = 13% relative uncertainty), so a 4-sigma window passes a correct run with probability
 * above 99.9% per comparison; the seed is fixed, so the outcome is deterministic.
 *
 * Usage: test_ising_exact4x4 PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#include <stdint.h>

#define LSIZE 4
#define NSITES (LSIZE * LSIZE)

/* Exact thermal averages of the 4 x 4 torus at temperature T. */
typedef struct exact4 {
    double e, abs_m, m2, m4, c, chi, binder;
} exact4;

/* counts[b + 2N][m + N]: number of states with bond sum b = sum_<ij> s_i s_j (2N bonds on
 * the torus, b in [-2N, 2N]) and magnetization m = sum_i s_i. */
static double counts[4 * NSITES + 1][2 * NSITES + 1];

static void enumerate(void)
{
    for (uint32_t state = 0; state < (1u << NSITES); state++) {
        int b = 0, m = 0;
        for (int y = 0; y < LSIZE; y++)
            for (int x = 0; x < LSIZE; x++) {
                const int i = x + LSIZE * y;
                const int right = (x + 1) % LSIZE + LSIZE * y;
                const int up = x + LSIZE * ((y + 1) % LSIZE);
                const int s = (state >> i) & 1u ? 1 : -1;
                const int sr = (state >> right) & 1u ? 1 : -1;
                const int su = (state >> up) & 1u ? 1 : -1;
                b += s * (sr + su);
                m += s;
            }
        counts[b + 2 * NSITES][m + NSITES] += 1;
    }
}

static exact4 exact_at(double T)
{
    const double beta = 1.0 / T, n = NSITES;
    /* Weights exp(beta b) relative to the ground state b = 2N to keep them <= 1. */
    double z = 0, se = 0, se2 = 0, sam = 0, sm2 = 0, sm4 = 0;
    for (int b = -2 * NSITES; b <= 2 * NSITES; b++)
        for (int m = -NSITES; m <= NSITES; m++) {
            const double g = counts[b + 2 * NSITES][m + NSITES];
            if (g == 0)
                continue;
            const double w = g * exp(beta * (b - 2 * NSITES));
            const double e = -b / n, mm = m / n;
            z += w;
            se += w * e;
            se2 += w * e * e;
            sam += w * fabs(mm);
            sm2 += w * mm * mm;
            sm4 += w * mm * mm * mm * mm;
        }
    exact4 r;
    r.e = se / z;
    r.abs_m = sam / z;
    r.m2 = sm2 / z;
    r.m4 = sm4 / z;
    r.c = n * (se2 / z - r.e * r.e) / (T * T);
    r.chi = n * (r.m2 - r.abs_m * r.abs_m) / T;
    r.binder = 1.0 - r.m4 / (3.0 * r.m2 * r.m2);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    enumerate();
    double total = 0;
    for (int b = 0; b <= 4 * NSITES; b++)
        for (int m = 0; m <= 2 * NSITES; m++)
            total += counts[b][m];
    CHECK(total == 65536.0, "enumeration counted %g states", total);

    /* 16 spins: 200000 measured sweeps = 3.2e6 flips per temperature, under a second.
     * Integrated autocorrelation times are a few sweeps at these T for L = 4, so each
     * series has > 10^4 independent samples and the jackknife bins hold ~ 6000 sweeps,
     * far longer than any autocorrelation time. */
    const double temps[] = {1.5, 2.27, 3.5};
    phys_table t;
    if (phys_run_mcf(argv[1], "ising_exact4x4", "ising", 20240601ull,
                     "[schedule]\n"
                     "thermalize = 5000\n"
                     "sweeps = 200000\n"
                     "measure_every = 1\n"
                     "temperatures = 1.5, 2.27, 3.5\n"
                     "\n[model]\n"
                     "L = 4\n"
                     "J = 1\n"
                     "h = 0\n"
                     "boundary = periodic\n"
                     "start = random\n",
                     &t)) {
        CHECK(0, "mcf run failed");
        return check_exit();
    }
    CHECK(t.nrows == 3, "results.tsv has %zu rows, expected 3", t.nrows);

    static const struct {
        const char *column, *label;
    } cols[] = {{"energy", "energy per site"},
                {"abs_m", "<|m|>"},
                {"m2", "<m^2>"},
                {"m4", "<m^4>"},
                {"specific_heat", "specific heat per site"},
                {"susceptibility", "susceptibility"},
                {"binder", "Binder cumulant"}};
    for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
        const double T = temps[k];
        long row = phys_find_row(&t, "T", T);
        CHECK(row >= 0, "no row for T = %g", T);
        if (row < 0)
            continue;
        const exact4 ex = exact_at(T);
        const double exact[] = {ex.e, ex.abs_m, ex.m2, ex.m4, ex.c, ex.chi, ex.binder};
        printf("T = %g (acceptance %.3f)\n", T, phys_get(&t, (size_t)row, "acceptance"));
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char err_name[64];
            snprintf(err_name, sizeof err_name, "%s_err", cols[c].column);
            phys_compare(cols[c].label, phys_get(&t, (size_t)row, cols[c].column),
                         phys_get(&t, (size_t)row, err_name), exact[c], 4.0, 0.0);
        }
    }
    phys_table_free(&t);
    return check_exit();
}
