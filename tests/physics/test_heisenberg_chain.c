/* test_heisenberg_chain — the open classical Heisenberg chain against its exact energy.
 *
 * H = -J sum_{i=1}^{L-1} S_i . S_{i+1} with unit 3-vectors and open ends.  Measuring each
 * spin's direction relative to its left neighbour, the L - 1 bond angles are independent,
 * each with weight exp(beta J cos theta) on the sphere, so (Fisher, Am. J. Phys. 32, 343
 * (1964)) for every finite L
 *     <S_i . S_{i+1}> = coth(beta J) - 1/(beta J) = Langevin(beta J),
 *     e = E / L = -J (L - 1) / L * Langevin(beta J).
 * The bond vectors being independent, <S_i . S_j> = u^|i-j| with u = Langevin(beta J), so
 *     m2 = <|M|^2> / L^2 = (1/L^2) sum_ij u^|i-j|
 * exactly too: a check of the sampled measure beyond the energy.
 * This is exact for the finite chain mcf simulates (no finite-size allowance), so the
 * tolerance is purely statistical: |mc - exact| <= 4 err (blocking error).
 *
 * L = 64, J = 1, T = 0.5, 1, 2; once with the plain moves and once with [model] overrelax =
 * 0.7 (70% of the moves reflect the spin about its local field: a wrong reflection, one that
 * is not an involution or does not keep the measure, shows in m2).
 *
 * Usage: test_heisenberg_chain PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#define LSIZE 64

static double langevin(double x)
{
    return 1.0 / tanh(x) - 1.0 / x;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    /* Langevin(1) = coth 1 - 1 = 0.3130353; as x -> 0 it goes as x/3. */
    CHECK(fabs(langevin(1.0) - 0.3130353) < 1e-7, "L(1) = %.9f", langevin(1.0));
    CHECK(fabs(langevin(1e-3) - 1e-3 / 3) < 1e-9, "L(1e-3) = %.12f", langevin(1e-3));

    /* 64 spins x 3 temperatures x 52000 sweeps = 1.0e7 moves, twice. */
    const char *overrelax[2] = {"0", "0.7"};
    for (int run = 0; run < 2; run++) {
        char sections[512];
        snprintf(sections, sizeof sections,
                 "[schedule]\n"
                 "thermalize = 2000\n"
                 "sweeps = 50000\n"
                 "measure_every = 1\n"
                 "temperatures = 0.5, 1, 2\n"
                 "\n[model]\n"
                 "lattice = chain\n"
                 "L = %d\n"
                 "J = 1\n"
                 "boundary = open\n"
                 "start = random\n"
                 "overrelax = %s\n",
                 LSIZE, overrelax[run]);
        phys_table t;
        if (phys_run_mcf(argv[1], run ? "heisenberg_chain_or" : "heisenberg_chain",
                         "heisenberg", 1964ull, sections, &t)) {
            CHECK(0, "mcf run failed");
            return check_exit();
        }
        CHECK(t.nrows == 3, "results.tsv has %zu rows, expected 3", t.nrows);
        const double temps[] = {0.5, 1.0, 2.0};
        for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
            const double T = temps[k];
            long row = phys_find_row(&t, "T", T);
            CHECK(row >= 0, "no row for T = %g", T);
            if (row < 0)
                continue;
            const size_t r = (size_t)row;
            const double u = langevin(1.0 / T), exact = -(LSIZE - 1.0) / LSIZE * u;
            double m2 = 0.0;
            for (int i = 0; i < LSIZE; i++)
                for (int j = 0; j < LSIZE; j++)
                    m2 += pow(u, abs(i - j));
            m2 /= (double)LSIZE * LSIZE;
            printf("overrelax = %s, T = %g (acceptance %.3f)\n", overrelax[run], T,
                   phys_get(&t, r, "acceptance"));
            phys_compare("energy per site", phys_get(&t, r, "energy"),
                         phys_get(&t, r, "energy_err"), exact, 4.0, 0.0);
            phys_compare("m2", phys_get(&t, r, "m2"), phys_get(&t, r, "m2_err"), m2, 4.0, 0.0);
        }
        phys_table_free(&t);
    }
    return check_exit();
}
