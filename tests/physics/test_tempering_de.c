/* test_tempering_de — parallel tempering of the double-exchange model, whose weight
 * exp(-S_eff(T)) is not exp(-H/T): the exchange weighs each replica with the fermion action
 * at the other temperature (mcf/model.h exchange_action, mcf/fermion.h action).
 *
 * 1. Correctness.  The 3 x 3 torus (hund = inf, mu = -1, 9 one-particle levels) with the
 *    exact evaluator (ed) at 4 temperatures 0.05 ... 0.4, one exchange round every sweep,
 *    against the same chains without exchanges: plain single-spin Metropolis samples
 *    exp(-S_eff) exactly (test_double_exchange), so both runs estimate the same numbers and
 *    every observable (energy, abs_m, m2, nn_correlation, and the derived specific_heat) at
 *    every temperature must agree within 3.5 combined error bars, sqrt(err_pt^2 +
 *    err_plain^2) (each the run's blocking error; the jackknife's for C).  20 comparisons: by
 *    Bonferroni an honest pair fails one with probability < 20 x 4.7e-4 = 0.9% (and the
 *    seeds are fixed).  The test can fail: with the sign of
 *    the exchange's log-ratio flipped (tried while writing it) 7 of the 16 comparisons fail,
 *    the energy at T = 0.05 by 51 sigma and nn_correlation there by 17.
 *    Every pair must have exchanged (0 < acceptance < 1).
 *
 * 2. kpm's exact trace ([evaluator] vectors = 0, moments = 256) through the same run, 300
 *    sweeps (100 thermalizing): it must complete without the truncation warning (the bound
 *    on dS there is ~1e-10, far below 0.01), every pair having exchanged.  Its observables
 *    are not compared with ed's: at T <= 0.1 on this lattice the GFMC moves' own resolution
 *    lambda a / M = 0.063 is coarser than T, and their bias (test_gfmc_vs_ed,
 *    docs/methods.md) is not the exchange's — measured while writing this test: |m| 0.425
 *    against ed's 0.382 at T = 0.05, with or without exchanges.
 *
 *    The specific heat (the general weight's <e_T> - N cov(e, s_T), issue 24) is compared
 *    like the observables above: tempering must not change it.
 *
 * 3. Thread identity: the tempering run on 1 and on 2 threads writes the same results.tsv,
 *    byte for byte (the exchange decisions and the action do not depend on the batch).  The
 *    default part compares runs of its own, 1000 sweeps (333 thermalizing), which also hold
 *    part 1's "every pair exchanged" (measured: acceptances 0.35 to 0.64); the long part
 *    compares part 1's 40000-sweep run with the same run on 2 threads, as before the split.
 *
 * 4. Refusals and warnings, before the first sweep: kpm with a stochastic trace (vectors =
 *    8) names `vectors`; kpm with moments = 16 warns that the truncation bound exceeds 0.01
 *    and to raise moments.
 *
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_tempering_de runs 2, 3 on its own
 * short runs, and 4; test_tempering_de_long (`--long`, label long: skipped, 77, unless
 * MCF_TEST_LONG=1) runs 1 and 3 on 1's runs: the comparisons of 1 need their 40000 sweeps
 * (the three ed runs: ~1 minute of CPU; 86 s alone on this 2-core machine at a load of 5).
 *
 * MPI identity (np 1/2/3): tests/mpi/test_mpi.sh.
 *
 * Usage: test_tempering_de PATH_TO_MCF [--long]  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#define N_T 4
static const char *const observables[] = {"energy", "abs_m", "m2", "nn_correlation",
                                          "specific_heat"};
#define N_OBS (sizeof observables / sizeof observables[0])

/* The [schedule] and [model] text of the 3 x 3 runs. */
/* the ed runs use ed's own eigensolver (plugins/ed/ed_eigen.c, held to GSL's in
 * test_ed_eigen): the 9 x 9 complex spectra of every proposal several times faster than by
 * GSL's (every ed run of this test uses it: part 3's bytes compare two of them) */
#define ED_HH "evaluator = ed\n\n[evaluator]\neigensolver = householder\n"

static void sections_for(char *buf, size_t size, const char *evaluator, long every,
                         long sweeps)
{
    snprintf(buf, size,
             "%s\n[schedule]\nthermalize = %ld\nsweeps = %ld\nexchange_every = %ld\n"
             "temperatures = 0.05, 0.1, 0.2, 0.4\n\n[model]\nlattice = square\nL = 3\n"
             "mu = -1\nmove = uniform\n",
             evaluator, sweeps < 2000 ? sweeps / 3 : 2000, sweeps, every);
}

static void compare_runs(const char *what, const phys_table *a, const phys_table *b,
                         const char *const *obs, size_t n_obs)
{
    CHECK(a->nrows == N_T && b->nrows == N_T, "%s: %zu and %zu rows, expected %d", what,
          a->nrows, b->nrows, N_T);
    for (size_t row = 0; row < a->nrows && row < b->nrows; row++) {
        const double T = phys_get(a, row, "T");
        CHECK(fabs(T - phys_get(b, row, "T")) < 1e-12, "%s: row %zu has T %g and %g", what,
              row, T, phys_get(b, row, "T"));
        for (size_t k = 0; k < n_obs; k++) {
            char err[64], label[96];
            snprintf(err, sizeof err, "%s_err", obs[k]);
            snprintf(label, sizeof label, "%s T=%.2f %s", what, T, obs[k]);
            const double ea = phys_get(a, row, err), eb = phys_get(b, row, err);
            /* b is the reference: the combined error bar is the comparison's sigma */
            phys_compare(label, phys_get(a, row, obs[k]), sqrt(ea * ea + eb * eb),
                         phys_get(b, row, obs[k]), 3.5, 0.0);
        }
    }
}

/* Counts the `# exchange:` lines of a run's results.tsv, and those with 0 < acceptance < 1. */
static void exchange_lines(const char *name, int *lines, int *good)
{
    char path[PHYS_PATH_MAX], line[4096];
    snprintf(path, sizeof path, "%s/%s/out/results.tsv", getenv("MCF_TEST_TMP"), name);
    FILE *f = fopen(path, "r");
    *lines = *good = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "# exchange:", 11))
            continue;
        unsigned long long acc, att;
        const char *p = strstr(line, "accepted ");
        (*lines)++;
        printf("  %s", line);
        if (p && sscanf(p, "accepted %llu of %llu", &acc, &att) == 2 && acc > 0 && acc < att)
            (*good)++;
    }
    if (f)
        fclose(f);
}

static int read_file(const char *name, char **text, size_t *size)
{
    char path[PHYS_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/out/results.tsv", getenv("MCF_TEST_TMP"), name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *text = malloc((size_t)n + 1);
    *size = *text ? fread(*text, 1, (size_t)n, f) : 0;
    fclose(f);
    return *text && *size == (size_t)n ? 0 : -1;
}

/* The ed tempering run `name` (seed 2027, `sweeps` measured) into *pt; every pair must have
 * exchanged.  0 when the run succeeded. */
static int ed_tempering(const char *mcf, const char *name, long sweeps, phys_table *pt)
{
    char sections[2048];
    sections_for(sections, sizeof sections, ED_HH, 1, sweeps);
    const int bad = phys_run_mcf(mcf, name, "double-exchange", 2027, sections, pt);
    int lines, good;
    exchange_lines(name, &lines, &good);
    CHECK(lines == N_T - 1 && good == N_T - 1,
          "%s: %d exchange lines, %d with 0 < acceptance < 1; expected %d", name, lines, good,
          N_T - 1);
    return bad;
}

/* 3. The run `name` (ed_tempering's) again on two threads, as `name`_2threads: the same
 * bytes. */
static void same_on_two_threads(const char *mcf, const char *name, long sweeps)
{
    char sections[2048], two[64];
    snprintf(two, sizeof two, "%s_2threads", name);
    setenv("OMP_NUM_THREADS", "2", 1);
    sections_for(sections, sizeof sections, ED_HH, 1, sweeps);
    phys_table pt2;
    const int tbad = phys_run_mcf(mcf, two, "double-exchange", 2027, sections, &pt2);
    setenv("OMP_NUM_THREADS", "1", 1);
    CHECK(!tbad, "the two-thread run failed");
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    if (!tbad) {
        CHECK(!read_file(name, &a, &na) && !read_file(two, &b, &nb), "cannot read the results");
        CHECK(a && b && na == nb && !memcmp(a, b, na),
              "results.tsv differs between 1 and 2 threads (%zu and %zu bytes, %ld sweeps)", na,
              nb, sweeps);
    }
    free(a);
    free(b);
    phys_table_free(&pt2);
}

/* 1. Tempering against plain Metropolis, both exact (ed), 40000 sweeps; then 3 on that run. */
static void against_plain(const char *mcf)
{
    char sections[2048];
    phys_table pt, plain;
    int bad = ed_tempering(mcf, "de_pt_ed", 40000, &pt);
    sections_for(sections, sizeof sections, ED_HH, 0, 40000);
    bad |= phys_run_mcf(mcf, "de_plain_ed", "double-exchange", 4049, sections, &plain);
    CHECK(!bad, "the ed runs failed");
    if (!bad) {
        compare_runs("PT vs plain", &pt, &plain, observables, N_OBS);
        same_on_two_threads(mcf, "de_pt_ed", 40000);
    }
    phys_table_free(&pt);
    phys_table_free(&plain);
}

/* 2. kpm's exact trace: the run completes, no truncation warning */
static void kpm_exact(const char *mcf)
{
    char sections[2048];
    phys_table kpm;
    sections_for(sections, sizeof sections,
                 "evaluator = kpm\n\n[evaluator]\nvectors = 0\nmoments = 256\n", 1, 300);
    int kbad = phys_run_mcf(mcf, "de_pt_kpm", "double-exchange", 2027, sections, &kpm);
    CHECK(!kbad, "the kpm tempering run failed");
    if (!kbad) {
        CHECK(kpm.nrows == N_T, "kpm: %zu rows, expected %d", kpm.nrows, N_T);
        CHECK(!phys_log_has("de_pt_kpm", "truncation bound", NULL),
              "kpm with 256 moments warned about the action's truncation");
        int kl, kg;
        exchange_lines("de_pt_kpm", &kl, &kg);
        CHECK(kl == N_T - 1 && kg == N_T - 1, "kpm: %d exchange lines, %d in (0, 1)", kl, kg);
    }
    phys_table_free(&kpm);
}

/* 4. refusals and warnings */
static void refusals(const char *mcf)
{
    char sections[2048];
    sections_for(sections, sizeof sections, "evaluator = kpm\n\n[evaluator]\nvectors = 8\n", 1,
                 100);
    static const char *const stochastic[] = {"vectors", "exact", "tempering", NULL};
    phys_expect_refusal(mcf, "de_pt_stochastic", "double-exchange", sections, stochastic);
    phys_table low;
    sections_for(sections, sizeof sections,
                 "evaluator = kpm\n\n[evaluator]\nvectors = 0\nmoments = 16\n", 1, 50);
    if (!phys_run_mcf(mcf, "de_pt_low_moments", "double-exchange", 5, sections, &low))
        CHECK(phys_log_has("de_pt_low_moments", "raise [evaluator] moments", NULL),
              "no truncation warning with moments = 16");
    else
        CHECK(0, "the moments = 16 run failed");
    phys_table_free(&low);
}

int main(int argc, char **argv)
{
    const int tier =
        phys_tier(argc, argv, "1. tempering against plain Metropolis, 3. on its 40000 sweeps");
    if (tier > 1)
        return tier;
    const char *mcf = argv[1];
    setenv("OMP_NUM_THREADS", "1", 1);
    const double t0 = phys_now();
    if (!tier) {
        phys_table pt;
        /* part 3 (and part 1's exchanges) on runs of its own: 1000 sweeps */
        if (!ed_tempering(mcf, "de_pt_ed_short", 1000, &pt))
            same_on_two_threads(mcf, "de_pt_ed_short", 1000);
        else
            CHECK(0, "the short ed run failed");
        phys_table_free(&pt);
        kpm_exact(mcf);
        refusals(mcf);
    } else {
        against_plain(mcf);
    }
    printf("test_tempering_de%s: %.1f s\n", tier ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
