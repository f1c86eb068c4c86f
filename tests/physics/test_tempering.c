/* test_tempering — parallel tempering ([schedule] exchange_every) on the 2D Ising model.
 *
 * 1. Correctness.  A 16 x 16 torus at 10 temperatures spanning Tc (1.8 ... 3.0), an
 *    exchange round every sweep: the energy per site at every temperature must agree with
 *    the exact value for the same finite torus (Kaufman's partition function,
 *    ising_exact.h), within 3.5 error bars.  The run's own per-row errors (blocking) are
 *    the sigma; the comparison is made at 10 temperatures, so by Bonferroni the chance
 *    that an honest run fails one is < 10 x 4.7e-4 = 0.5% (and the seed is fixed: the
 *    outcome does not change between runs).  No finite-size allowance is needed: the exact
 *    value is for L = 16 itself.  The formula is checked first against enumeration of the
 *    4 x 4 torus (2^16 states) and, at L = 256 away from Tc, against Onsager's energy.
 *    Every pair must have exchanged (acceptance strictly between 0 and 1) and some replica
 *    must have made round trips, both read from results.tsv's `# exchange:` and
 *    `# round trips:` lines, and the summary must report the round trips.  The default part
 *    checks these three on a run of its own, the same seed at 2000 sweeps (500 thermalizing;
 *    measured: 20 round trips, acceptances 0.40 to 0.70); the long part on the run above.
 *
 * 2. Efficiency (measured).  A 32 x 32 torus at 5 temperatures 2.2 ... 2.6, the same
 *    chains and sweeps (50000) with exchange_every = 0 (plain Metropolis) and 10: the
 *    integrated autocorrelation time of |m| at T = 2.2 (just below Tc, where single-spin
 *    flips suffer critical slowing down) as the core reports it (tau_abs_m, blocking) must
 *    be smaller with tempering.  Equal cost: the same chains make the same number of
 *    sweeps; an exchange round costs one energy per chain.  Both taus and both wall times
 *    are printed.  Robustness, measured with 6 seeds: plain 70 ... 210 sweeps, tempering
 *    25 ... 56, ratio 1.5 ... 4.4 (the seed here: 122 against 39).  The estimates of the
 *    plain chain scatter because 50000 sweeps are only ~600 of its tau (200000 sweeps give
 *    57 and 68), those with tempering because a round trip takes ~2500 sweeps.
 *
 * 3. The heisenberg model's ops: an open chain of 64 classical spins at 5 temperatures with
 *    exchanges every 5 sweeps against Fisher's exact energy e = -(L-1)/L Langevin(J/T)
 *    (test_heisenberg_chain), within 3.5 error bars (Bonferroni over 5: < 0.3%).
 *
 * 4. Refusals, each before any work, naming file:line and the key: a model without the
 *    tempering ops, no temperature axis, a single temperature, a negative value.
 *
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_tempering runs 1's exchanges and
 * round trips on its short run, 3 (its run, ~1 s of CPU, is cheap) and 4;
 * test_tempering_long (`--long`, label long: skipped, 77, unless MCF_TEST_LONG=1) runs 1 and
 * 2 in full: 1's comparisons need the 62000 sweeps of 10 replicas, 2's taus the 52000 of 5
 * (~30 s of CPU together).  Both check the exact energy against enumeration and Onsager
 * (milliseconds).
 *
 * Thread, resume and MPI identity: tests/cli/test_tempering.sh and tests/mpi/test_mpi.sh.
 *
 * Usage: test_tempering PATH_TO_MCF [--long]  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#include <gsl/gsl_errno.h>

#include "ising_exact.h"

/* Energy per site of the 4 x 4 torus by enumeration. */
static double enumerate_4x4(double T)
{
    const int L = 4, N = 16;
    double Z = 0, E = 0, e_min = -2.0 * N;
    for (long s = 0; s < (1L << N); s++) {
        int e = 0;
        for (int i = 0; i < L; i++)
            for (int j = 0; j < L; j++) {
                const int si = (s >> (i * L + j)) & 1 ? 1 : -1;
                const int sr = (s >> (i * L + (j + 1) % L)) & 1 ? 1 : -1;
                const int sd = (s >> (((i + 1) % L) * L + j)) & 1 ? 1 : -1;
                e -= si * (sr + sd);
            }
        const double w = exp(-(e - e_min) / T);
        Z += w;
        E += w * e;
    }
    return E / Z / N;
}

/* Counts the `# exchange:` lines of a results.tsv with 0 < acceptance < 1 (*good) and in
 * all (*lines), and sums the round trips of the `# round trips:` lines. */
static void read_exchange_lines(const char *path, int *lines, int *good, long *trips)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    *lines = *good = 0;
    *trips = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "# exchange:", 11)) {
            unsigned long long acc, att;
            const char *p = strstr(line, "accepted ");
            (*lines)++;
            if (p && sscanf(p, "accepted %llu of %llu", &acc, &att) == 2 && acc > 0 &&
                acc < att)
                (*good)++;
        } else if (!strncmp(line, "# round trips:", 14)) {
            const char *p = strstr(line, "T ");
            long n = 0;
            if (p && (p = strstr(p, ": ")) && sscanf(p + 2, "%ld", &n) == 1)
                *trips += n;
        }
    }
    if (f)
        fclose(f);
}

/* 1.  full: the 60000-sweep run, its energies against the exact ones; otherwise a run of
 * 2000 sweeps of its own.  Both: every pair exchanged, round trips made and reported. */
static void correctness(const char *mcf, int full)
{
    const int L = 16;
    const char *name = full ? "tempering_onsager" : "tempering_exchanges";
    char sections[1024];
    snprintf(sections, sizeof sections,
             "[schedule]\nthermalize = %d\nsweeps = %d\nexchange_every = 1\n"
             "temperatures = 1.8:3.0:10\n\n[model]\nL = %d\n", full ? 2000 : 500,
             full ? 60000 : 2000, L);
    phys_table t;
    if (phys_run_mcf(mcf, name, "ising", 20261123, sections, &t)) {
        CHECK(0, "the tempering run failed");
        return;
    }
    CHECK(t.nrows == 10, "%zu rows, expected 10", t.nrows);
    for (size_t row = 0; full && row < t.nrows; row++) {
        const double T = phys_get(&t, row, "T");
        char what[64];
        snprintf(what, sizeof what, "energy, L = %d, T = %.4f", L, T);
        phys_compare(what, phys_get(&t, row, "energy"), phys_get(&t, row, "energy_err"),
                     ising_torus_energy(L, T), 3.5, 0.0);
    }
    phys_table_free(&t);
    char path[PHYS_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/out/results.tsv", getenv("MCF_TEST_TMP"), name);
    int lines, good;
    long trips;
    read_exchange_lines(path, &lines, &good, &trips);
    printf("  exchange lines %d (acceptance in (0,1): %d), round trips %ld\n", lines, good,
           trips);
    CHECK(lines == 9 && good == 9, "%d exchange lines, %d with 0 < acceptance < 1; expected 9",
          lines, good);
    CHECK(trips > 0, "no replica made a round trip");
    CHECK(phys_log_has(name, "round trips", NULL),
          "the summary does not report the round trips");
}

static void efficiency(const char *mcf)
{
    double tau[2] = {NAN, NAN}, wall[2] = {0, 0};
    /* two threads: exchange rounds every 10 sweeps are rare barriers */
    setenv("OMP_NUM_THREADS", "2", 1);
    for (int pt = 0; pt < 2; pt++) {
        char sections[1024], name[64];
        snprintf(sections, sizeof sections,
                 "[schedule]\nthermalize = 2000\nsweeps = 50000\nexchange_every = %d\n"
                 "temperatures = 2.2:2.6:5\n\n[model]\nL = 32\nstart = ordered\n",
                 pt ? 10 : 0);
        snprintf(name, sizeof name, "tempering_tau_%s", pt ? "pt" : "plain");
        phys_table t;
        const double t0 = phys_now();
        if (phys_run_mcf(mcf, name, "ising", 777, sections, &t)) {
            CHECK(0, "the %s run failed", name);
            return;
        }
        wall[pt] = phys_now() - t0;
        long row = phys_find_row(&t, "T", 2.2);
        CHECK(row >= 0, "%s: no row T = 2.2", name);
        if (row >= 0) {
            tau[pt] = phys_get(&t, (size_t)row, "tau_abs_m");
            char what[64];
            snprintf(what, sizeof what, "energy, L = 32, T = 2.2, %s", pt ? "PT" : "plain");
            phys_compare(what, phys_get(&t, (size_t)row, "energy"),
                         phys_get(&t, (size_t)row, "energy_err"), ising_torus_energy(32, 2.2),
                         4.0, 0.0);
        }
        phys_table_free(&t);
    }
    printf("  tau_abs_m at L = 32, T = 2.2, 50000 sweeps: plain Metropolis %.1f sweeps "
           "(%.1f s), exchanges every 10 sweeps %.1f sweeps (%.1f s): %.2fx shorter\n", tau[0],
           wall[0], tau[1], wall[1], tau[0] / tau[1]);
    CHECK(isfinite(tau[0]) && isfinite(tau[1]) && tau[1] < tau[0],
          "tau_abs_m with tempering %.3g is not below plain Metropolis's %.3g", tau[1],
          tau[0]);
    setenv("OMP_NUM_THREADS", "1", 1);
}

static void heisenberg(const char *mcf)
{
    const int L = 64;
    char sections[1024];
    snprintf(sections, sizeof sections,
             "[schedule]\nthermalize = 2000\nsweeps = 20000\nexchange_every = 5\n"
             "temperatures = 0.5, 0.7, 1.0, 1.4, 2.0\n\n[model]\nlattice = chain\n"
             "L = %d\nboundary = open\n", L);
    phys_table t;
    if (phys_run_mcf(mcf, "tempering_heisenberg", "heisenberg", 1964, sections, &t)) {
        CHECK(0, "the heisenberg tempering run failed");
        return;
    }
    CHECK(t.nrows == 5, "%zu rows, expected 5", t.nrows);
    for (size_t row = 0; row < t.nrows; row++) {
        const double T = phys_get(&t, row, "T"), x = 1.0 / T;
        char what[64];
        snprintf(what, sizeof what, "heisenberg chain, T = %.2f", T);
        phys_compare(what, phys_get(&t, row, "energy"), phys_get(&t, row, "energy_err"),
                     -(L - 1.0) / L * (1.0 / tanh(x) - 1.0 / x), 3.5, 0.0);
    }
    phys_table_free(&t);
}

static void refusals(const char *mcf)
{
    static const char *const no_op[] = {"config.ini:", "exchange_every", "tgood",
                                        "does not support parallel tempering", NULL};
    phys_expect_refusal(mcf, "tempering_no_op", "tgood",
                        "[schedule]\nexchange_every = 5\ntemperatures = 2, 3\n", no_op);
    static const char *const no_axis[] = {"config.ini:", "exchange_every", "temperatures",
                                          "not given", NULL};
    phys_expect_refusal(mcf, "tempering_no_axis", "ising", "[schedule]\nexchange_every = 5\n",
                        no_axis);
    static const char *const one_t[] = {"config.ini:", "exchange_every", "single value",
                                        NULL};
    phys_expect_refusal(mcf, "tempering_one_t", "ising",
                        "[schedule]\nexchange_every = 5\ntemperatures = 2.3\n", one_t);
    static const char *const negative[] = {"config.ini:", "exchange_every", ">= 0", NULL};
    phys_expect_refusal(mcf, "tempering_negative", "ising",
                        "[schedule]\nexchange_every = -1\ntemperatures = 2, 3\n", negative);
}

int main(int argc, char **argv)
{
    const int tier = phys_tier(argc, argv, "1. the energies against Kaufman's, 2. efficiency");
    if (tier > 1)
        return tier;
    gsl_set_error_handler_off();
    /* one thread per run but the efficiency pair ([run] threads = 0 takes OMP_NUM_THREADS):
       every exchange round is a barrier, and under `ctest -j` on a loaded machine each
       barrier of two threads can wait for a time slice — 62000 rounds of the correctness
       run took 90 s instead of 16.  The thread count cannot change the results
       (test_tempering_resume checks 1 against 2). */
    setenv("OMP_NUM_THREADS", "1", 1);
    const double t0 = phys_now();
    /* the exact finite-lattice energy, checked independently (both parts: the long part's
       comparisons rest on it) */
    const double temps[] = {1.0, 1.8, 2.269, 3.0, 5.0};
    for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
        const double T = temps[k], a = ising_torus_energy(4, T), b = enumerate_4x4(T);
        CHECK(fabs(a - b) < 1e-8, "4x4 torus at T = %g: Kaufman %.12f, enumeration %.12f", T,
              a, b);
    }
    for (double T = 1.8; T < 3.1; T += 1.2)
        CHECK(fabs(ising_torus_energy(256, T) - onsager_energy(T)) < 1e-7,
              "L = 256, T = %g: Kaufman %.10f, Onsager %.10f", T, ising_torus_energy(256, T),
              onsager_energy(T));
    if (!tier) {
        correctness(argv[1], 0);
        heisenberg(argv[1]);
        refusals(argv[1]);
    } else {
        correctness(argv[1], 1);
        efficiency(argv[1]);
    }
    printf("test_tempering%s: %.1f s\n", tier ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
