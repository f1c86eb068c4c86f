/* test_error_calibration — are mcf's error bars right where the autocorrelation time is
 * long?  Many independent short runs of the Ising model on an 8 x 8 torus at T = 2.27
 * (Metropolis tau of |m| ~ 9 sweeps) against exact averages of the same finite torus; for
 * every column with an error bar (energy, abs_m, m2, m4 by blocking; specific_heat,
 * susceptibility, binder by the jackknife over 32 bins) the deviations
 *     d = x - exact,   z = d / err
 * over n independent runs.  docs/methods.md ("Calibration of the error bars") has the
 * numbers; the issue was chi^2/dof ~ 2 near a transition in runs of a few hundred tau.
 *
 * 1. The exact reference (ising_transfer.h: row transfer matrix with the magnetization
 *    distribution) is checked inside the test: on 4 x 4 against the enumeration of all
 *    2^16 states, on 6 x 6 and 8 x 8 against Kaufman's partition function of the torus
 *    (ln Z, and the energy and specific heat from its derivatives).
 *
 * 2. Independent runs.  One mcf run with temperatures = T:T:R is R chains at the same T,
 *    chain k drawing from stream (seed, k): independent runs of one schedule, one row each;
 *    several such runs with different seeds.  tau (in sweeps) comes from a separate run of
 *    2^18 sweeps, long enough for a plateau, and states the run length in units of tau.
 *
 * 3. What is asserted, per setting and column (n runs, k = 4 standard errors each: about
 *    35 such checks in the long part, family-wise false alarm ~ 35 x 6e-5 = 0.2 % under
 *    the normal approximation of means of n >= 512 values):
 *    (a) Bias: |mean(d)| <= k sd(d) / sqrt(n).  The estimates must be unbiased (the
 *        jackknife removes the O(1/N) bias of the nonlinear ones).  The mean of z is NOT a
 *        test of bias here: near Tc the error of a run is correlated with its value (a run
 *        that stays ordered has a larger |m| and a smaller error), so <z> is nonzero for
 *        unbiased x (+0.19 for |m| at 220 tau); it is printed.
 *    (b) Calibration of the variance: Q = sum d^2 / sum err^2 estimates
 *        E[d^2] / E[err^2], which is 1 exactly when err^2 is an unbiased estimate of the
 *        variance of x, whatever the distribution and whatever the correlation between x and
 *        err.  Its standard error by the delta method, sd_Q = sd(d^2 - Q err^2) /
 *        (sqrt(n) mean(err^2)).  Blocking (the observables): 1 - k sd_Q <= Q <= 1 + J +
 *        k sd_Q, with J = 4 tau / N the allowance for the convexity of the finite-block
 *        correction in the observed ratio (tests/unit/test_stats.c derives ~2 tau / N and
 *        allows twice that).  Jackknife (the derived columns): its 32 bins hold N / 32
 *        sweeps each, only ~6 tau at N = 200 tau, so neighbouring bins are correlated and
 *        the jackknife variance falls short by the factor F_J = mcfi_block_factor(tau,
 *        N/32, 32) (exponential autocorrelation with the tau of the observables it is made
 *        of: energy for C, the larger of abs_m, m2 for chi, of m2, m4 for the Binder
 *        cumulant).  mcf scales the error by sqrt(F_J) with the run's own tau
 *        (results_table.c), so the same window as for blocking applies; F_J is printed
 *        (Q would be ~F_J without the scaling).
 *    (c) Where a run holds at least 1000 tau (twice the 512 tau the blocking plateau
 *        needs), also z^2 as Student's t would have it.  With the error from nu effective
 *        blocks and Gaussian block means, z ~ t_nu: E z^2 = nu / (nu - 2), Var z^2 =
 *        nu^2 (2 nu - 2) / ((nu - 2)^2 (nu - 4)) (2.54 at nu = 31, against 2 for a normal
 *        z), so the mean of z^2 over n runs has sd s = sqrt(Var z^2 / n).  nu >= 31 for both
 *        kinds of error (>= 32 blocks, 32 bins), so 1 - k s <= <z^2> <= 31/29 + k s.  In
 *        shorter runs <z^2> exceeds this even with Q = 1: the correlation of err with x
 *        above and the skewness of short block means (the t statistic of skewed data),
 *        ~ 0.1-0.2 for the observables and 0.3-0.8 for C, chi and the Binder cumulant at
 *        220 tau; it is printed, not asserted.
 *
 * Two tiers (docs/reliability.md, "The time of .ci/run").  The default part runs 1. and
 * one run of 16 chains of 2.'s schedule (2000 sweeps after 1000), which must give 16 rows,
 * each column a finite value with a finite positive error (what calibrate() requires of
 * every run); ~2 s of CPU, most of it gnuplot's.  The long part (`--long` with
 * MCF_TEST_LONG=1, ctest's test_error_calibration_long) runs 2. and 3.: the run for tau,
 * 1024 runs of 2000 sweeps (~220 tau, every row with the plateau warning) and 512 runs of
 * 16000 sweeps (~1700 tau), ~8e8 spin flips, ~20 s on 2 idle cores (~45 s of CPU): the
 * checks of 3. need this many runs for their power, so they cannot be shortened into the
 * default.  `--table` (by hand, no MCF_TEST_LONG needed) runs 1. and more runs, run
 * lengths of ~110..1700 tau, T = 2.5 and L = 6 (~2 min), and prints the table of
 * docs/methods.md; rows below 200 tau (outside the regime of a few hundred tau)
 * are shown, not asserted.
 *
 * The statistics of 3. are calibration.h's, shared with test_error_calibration_fk.c (the
 * fermion half: Falicov-Kimball 4 x 4 with ed against enumeration).
 *
 * Usage: test_error_calibration PATH_TO_MCF [--long | --table]  (through ctest: MCF_TEST_TMP).
 */
#include "physics_util.h"

#include "calibration.h"
#include "ising_exact.h"
#include "ising_transfer.h"

#define NQ 7   /* energy, abs_m, m2, m4, specific_heat, susceptibility, binder */
#define NOBS 4 /* the first NQ with a blocking error (and a tau column) */

static const char *const qname[NQ] = {"energy",         "abs_m",         "m2",    "m4",
                                      "specific_heat", "susceptibility", "binder"};

static double exact_q(const ising_exact *x, int q)
{
    const double v[NQ] = {x->e, x->abs_m, x->m2, x->m4, x->c, x->chi, x->binder};
    return v[q];
}

/* ---- 1. the exact reference, checked ------------------------------------------------ */

/* |a - b| <= tol, printed */
static void agree(const char *what, double a, double b, double tol)
{
    printf("  %-30s %.15g vs %.15g  diff %+.2e  tol %.1e\n", what, a, b, a - b, tol);
    CHECK(fabs(a - b) <= tol, "%s: %.15g vs %.15g differ by %.3g > %.3g", what, a, b,
          fabs(a - b), tol);
}

/* first and second derivative of Kaufman's ln Z in K = 1/T by central differences */
static double kaufman_d1(int L, double K, double h)
{
    return (ising_torus_log_z(L, K + h) - ising_torus_log_z(L, K - h)) / (2 * h);
}

static double kaufman_d2(int L, double K, double h)
{
    return (ising_torus_log_z(L, K + h) - 2 * ising_torus_log_z(L, K) +
            ising_torus_log_z(L, K - h)) / (h * h);
}

static void validate_exact(void)
{
    /* (a) L = 4: transfer matrix against the enumeration of all 2^16 states.  Both are
     * sums of at most 2^16 positive terms (relative rounding <= 2^16 eps = 1.5e-11 per sum,
     * 3e-11 per ratio of sums), so the averages agree to 1e-10 relative; C and chi are
     * differences of moments, rounded to 1e-10 of the larger one, <E^2>/(N T^2) and
     * N <m^2>/T; the Binder cumulant to 1e-10 of <m^4>/<m^2>^2 <= 1. */
    const double t4[] = {2.0, 2.27, 3.0};
    printf("exact reference (a): 4x4 transfer matrix vs enumeration of 2^16 states\n");
    for (size_t k = 0; k < sizeof t4 / sizeof t4[0]; k++) {
        const double T = t4[k], rel = 1e-10, n = 16;
        ising_exact tm, en = ising_enumerate4(T);
        CHECK(ising_transfer_exact(4, T, &tm) == 0, "transfer matrix L = 4 failed");
        const double e2 = en.c * T * T + en.e * en.e * n; /* <E^2> / N */
        char what[64];
        snprintf(what, sizeof what, "T=%g ln Z", T);
        agree(what, tm.log_z, en.log_z, rel * fabs(en.log_z));
        for (int q = 0; q < NQ; q++) {
            const double tol = q == 4   ? rel * e2 / (T * T)
                               : q == 5 ? rel * n * en.m2 / T
                                        : rel * fmax(fabs(exact_q(&en, q)), 1.0);
            snprintf(what, sizeof what, "T=%g %s", T, qname[q]);
            agree(what, exact_q(&tm, q), exact_q(&en, q), tol);
        }
    }

    /* (b) L = 6, 8: ln Z against Kaufman's closed form (ising_exact.h), both sums of O(L)
     * logarithms of size |ln Z| (rounding ~ L eps |ln Z| < 1e-13 |ln Z|; we allow 1e-12).
     * Energy and specific heat against its derivatives by central differences, D(h) = D +
     * c h^2 + O(h^4) + rounding: D(2h) - D(h) = 3 c h^2 measures the truncation, so we
     * compare with the extrapolated D(h) - (D(2h) - D(h))/3 and allow |D(2h) - D(h)| (the
     * whole h^2 term, which bounds the h^4 remainder many times over) plus the rounding,
     * 4 eps |ln Z| / h (first) and 16 eps |ln Z| / h^2 (second derivative), per site (and
     * times beta^2 for C). */
    const int sizes[] = {6, 8};
    const double tk[] = {2.0, 2.27, 2.5};
    printf("exact reference (b): transfer matrix vs Kaufman's torus partition function\n");
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof tk / sizeof tk[0]; k++) {
            const int L = sizes[i];
            const double T = tk[k], K = 1.0 / T, n = (double)L * L, eps = 2.2e-16;
            ising_exact tm;
            CHECK(ising_transfer_exact(L, T, &tm) == 0, "transfer matrix L = %d failed", L);
            const double lz = ising_torus_log_z(L, K);
            char what[64];
            snprintf(what, sizeof what, "L=%d T=%g ln Z", L, T);
            agree(what, tm.log_z, lz, 1e-12 * fabs(lz));
            const double h1 = 1e-4, a1 = kaufman_d1(L, K, h1), b1 = kaufman_d1(L, K, 2 * h1);
            snprintf(what, sizeof what, "L=%d T=%g energy", L, T);
            agree(what, tm.e, -(a1 - (b1 - a1) / 3) / n,
                  (fabs(b1 - a1) + 4 * eps * fabs(lz) / h1) / n);
            const double h2 = 1e-3, a2 = kaufman_d2(L, K, h2), b2 = kaufman_d2(L, K, 2 * h2);
            snprintf(what, sizeof what, "L=%d T=%g specific_heat", L, T);
            agree(what, tm.c, K * K * (a2 - (b2 - a2) / 3) / n,
                  K * K * (fabs(b2 - a2) + 16 * eps * fabs(lz) / (h2 * h2)) / n);
        }
}

/* ---- 2. the calibration runs --------------------------------------------------------- */

typedef struct setting {
    int L;
    double T;
    int thermalize, sweeps, rows, runs;
} setting;

/* The rows of the table in docs/methods.md, kept for the summary. */
typedef struct result {
    setting s;
    double tau_m, ratio; /* tau of abs_m (sweeps), run length / tau_abs_m */
    double warned;       /* fraction of rows whose abs_m error had no plateau */
    int z2_checked;
    cal_row col[NQ];
} result;

/* Marks plateau[row] = 1 for each chain whose error of `obs` results.tsv of run `name`
 * names in a "# warning: chain K (...): the errors of A, B did not reach a plateau". */
static void read_plateau_warnings(const char *name, const char *obs, unsigned char *plateau,
                                  size_t rows)
{
    char path[PHYS_PATH_MAX], line[2048];
    snprintf(path, sizeof path, "%s/%s/out/results.tsv", getenv("MCF_TEST_TMP"), name);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        size_t chain;
        if (sscanf(line, "# warning: chain %zu (", &chain) != 1 || chain >= rows)
            continue;
        char *a = strstr(line, "the errors of "), *b = strstr(line, " did not reach a plateau");
        if (!a || !b || b < a)
            continue;
        *b = '\0';
        for (char *tok = strtok(a + strlen("the errors of "), ", "); tok;
             tok = strtok(NULL, ", "))
            if (strcmp(tok, obs) == 0)
                plateau[chain] = 1;
    }
    if (f)
        fclose(f);
}

/* [schedule] and [model] of a run of `rows` chains at T: the linspace T:T:rows */
static void sections(const setting *s, int sweeps, int rows, char *text, size_t size)
{
    snprintf(text, size,
             "[schedule]\nthermalize = %d\nsweeps = %d\nmeasure_every = 1\n"
             "temperatures = %.10g:%.10g:%d\n\n"
             "[model]\nL = %d\nJ = 1\nh = 0\nboundary = periodic\nstart = random\n",
             s->thermalize, sweeps, s->T, s->T, rows, s->L);
}

/* tau (sweeps) of the four observables: the mean over the 2 chains of one run of 2^18
 * sweeps (> 10^4 tau: a plateau, checked) */
static int measure_tau(const char *mcf, const setting *s, double tau[NOBS])
{
    static int cached_L;
    static double cached_T, cached[NOBS];
    if (cached_L == s->L && cached_T == s->T) {
        memcpy(tau, cached, sizeof cached);
        return 0;
    }
    char text[1024];
    sections(s, 1 << 18, 2, text, sizeof text);
    phys_table t;
    if (phys_run_mcf(mcf, "error_calibration_tau", "ising", 4242ull, text, &t))
        return -1;
    for (int o = 0; o < NOBS; o++) {
        char col[64];
        unsigned char plateau[2] = {0, 0};
        read_plateau_warnings("error_calibration_tau", qname[o], plateau, 2);
        snprintf(col, sizeof col, "tau_%s", qname[o]);
        tau[o] = 0.5 * (phys_get(&t, 0, col) + phys_get(&t, 1, col));
        CHECK(!plateau[0] && !plateau[1] && isfinite(tau[o]),
              "the runs for tau have no plateau for %s", qname[o]);
    }
    phys_table_free(&t);
    cached_L = s->L;
    cached_T = s->T;
    memcpy(cached, tau, sizeof cached);
    return 0;
}

/* Runs setting s (seeds distinct per setting `index` and run), checks and fills *res. */
static int calibrate(const char *mcf, const setting *s, int index, result *res)
{
    ising_exact ex;
    double tau[NOBS];
    if (ising_transfer_exact(s->L, s->T, &ex) || measure_tau(mcf, s, tau)) {
        CHECK(0, "L = %d, T = %g: no exact reference or no tau", s->L, s->T);
        return -1;
    }
    cal_tally tl[NQ];
    memset(tl, 0, sizeof tl);
    size_t warned = 0, bad = 0;
    unsigned char *plateau = calloc((size_t)s->rows, 1);
    char text[1024];
    sections(s, s->sweeps, s->rows, text, sizeof text);
    for (int run = 0; run < s->runs && plateau; run++) {
        char name[64];
        snprintf(name, sizeof name, "error_calibration_%d", run);
        const unsigned long long seed = 1000003ull * (unsigned long long)(index + 1) +
                                        (unsigned long long)run;
        phys_table t;
        if (phys_run_mcf(mcf, name, "ising", seed, text, &t)) {
            CHECK(0, "calibration run %d failed", run);
            free(plateau);
            return -1;
        }
        CHECK(t.nrows == (size_t)s->rows, "run %d: %zu rows, expected %d", run, t.nrows,
              s->rows);
        memset(plateau, 0, (size_t)s->rows);
        read_plateau_warnings(name, "abs_m", plateau, (size_t)s->rows);
        for (size_t r = 0; r < t.nrows && r < (size_t)s->rows; r++) {
            warned += plateau[r];
            for (int q = 0; q < NQ; q++) {
                char col[64];
                snprintf(col, sizeof col, "%s_err", qname[q]);
                const double x = phys_get(&t, r, qname[q]), err = phys_get(&t, r, col);
                if (isfinite(x) && isfinite(err) && err > 0)
                    cal_tally_add(&tl[q], x - exact_q(&ex, q), err);
                else if (bad++ < 5)
                    fprintf(stderr, "run %d row %zu: %s = %g +- %g\n", run, r, qname[q], x,
                            err);
            }
        }
        phys_table_free(&t);
    }
    free(plateau);
    CHECK(bad == 0, "%zu values or errors are not finite and positive", bad);

    const double N = s->sweeps;
    const double tau_q[NQ] = {tau[0], tau[1], tau[2], tau[3], tau[0], fmax(tau[1], tau[2]),
                              fmax(tau[2], tau[3])};
    const double tau_max = fmax(fmax(tau[0], tau[1]), fmax(tau[2], tau[3]));
    /* the regime: runs of a few hundred tau and longer; shorter ones are shown */
    const int assert_it = N >= 200.0 * tau_max, z2_checked = N >= 1000.0 * tau_max;
    memset(res, 0, sizeof *res);
    res->s = *s;
    res->tau_m = tau[1];
    res->ratio = N / tau[1];
    res->warned = (double)warned / (double)(s->rows * s->runs);
    res->z2_checked = z2_checked;
    printf("\nL = %d, T = %g: %.0f runs of %d sweeps after %d; tau (sweeps): energy %.2f, "
           "abs_m %.2f, m2 %.2f, m4 %.2f; N = %.0f tau_abs_m; abs_m without a plateau in "
           "%.0f %% of the runs%s\n",
           s->L, s->T, tl[0].n, s->sweeps, s->thermalize, tau[0], tau[1], tau[2], tau[3],
           res->ratio, 100 * res->warned, assert_it ? "" : " (shown, not asserted)");
    char where[96];
    snprintf(where, sizeof where, "L = %d, T = %g, N = %d", s->L, s->T, s->sweeps);
    cal_evaluate_all(tl, qname, NQ, NOBS, where, tau_q, N, assert_it, z2_checked, res->col);
    return 0;
}

/* The summary in the form of the table in docs/methods.md. */
static void print_summary(const result *res, size_t n)
{
    printf("\n| L | T | N (sweeps) | N/tau | runs | no plateau | column | <z> | <z^2> | "
           "E z^2 (t_31) | Q = <d^2>/<err^2> | E Q | F_J | bias/se |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const result *r = &res[i];
        for (int q = 0; q < NQ; q++) {
            printf("| %d | %g | %d | %.0f | %d | %.0f %% |", r->s.L, r->s.T, r->s.sweeps,
                   r->ratio, r->s.rows * r->s.runs, 100 * r->warned);
            cal_print_cells(qname[q], &r->col[q], r->z2_checked);
        }
    }
}

/* The default part's run: one run of setting s with `rows` chains must give `rows` rows,
 * each column a finite value with a finite positive error (what calibrate() requires of
 * every run, checked here on a short run). */
static void check_rows(const char *mcf, const setting *s, int rows)
{
    char text[1024];
    sections(s, s->sweeps, rows, text, sizeof text);
    phys_table t;
    if (phys_run_mcf(mcf, "error_calibration_rows", "ising", 1000003ull, text, &t)) {
        CHECK(0, "the run of %d chains failed", rows);
        return;
    }
    CHECK(t.nrows == (size_t)rows, "%zu rows, expected %d", t.nrows, rows);
    unsigned char plateau[64] = {0};
    read_plateau_warnings("error_calibration_rows", "abs_m", plateau, sizeof plateau);
    size_t bad = 0, warned = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        warned += r < sizeof plateau && plateau[r];
        for (int q = 0; q < NQ; q++) {
            char col[64];
            snprintf(col, sizeof col, "%s_err", qname[q]);
            const double x = phys_get(&t, r, qname[q]), err = phys_get(&t, r, col);
            if (!(isfinite(x) && isfinite(err) && err > 0) && bad++ < 5)
                fprintf(stderr, "row %zu: %s = %g +- %g\n", r, qname[q], x, err);
        }
    }
    CHECK(bad == 0, "%zu values or errors are not finite and positive", bad);
    printf("L = %d, T = %g: %zu rows of %d sweeps after %d, every column with an error bar; "
           "abs_m without a plateau in %zu of them\n",
           s->L, s->T, t.nrows, s->sweeps, s->thermalize, warned);
    phys_table_free(&t);
}

int main(int argc, char **argv)
{
    const int table = argc == 3 && strcmp(argv[2], "--table") == 0;
    if (argc < 2 || argc > 3 || (argc == 3 && !table && strcmp(argv[2], "--long") != 0)) {
        fprintf(stderr, "usage: %s PATH_TO_MCF [--long | --table]\n", argv[0]);
        return 2;
    }
    const int tier = table ? 1
                           : phys_tier(argc, argv,
                                       "1536 runs of 8 x 8 Ising against the exact averages");
    if (tier > 1)
        return tier;
    setvbuf(stdout, NULL, _IOLBF, 0); /* in order with the messages on stderr */
    const double t0 = phys_now();
    /* {L, T, thermalize, sweeps, rows per run, runs}; thermalization >= 100 tau */
    static const setting ci[] = {{8, 2.27, 1000, 2000, 256, 4}, {8, 2.27, 1000, 16000, 256, 2}};
    static const setting more[] = {
        {8, 2.27, 1000, 1000, 1024, 4}, {8, 2.27, 1000, 2000, 1024, 4},
        {8, 2.27, 1000, 4000, 1024, 4}, {8, 2.27, 1000, 16000, 256, 4},
        {8, 2.5, 1000, 2000, 1024, 4},  {6, 2.27, 1000, 1500, 1024, 4}};
    if (!tier || table)
        validate_exact();
    if (!tier) {
        check_rows(argv[1], &ci[0], 16);
    } else {
        const setting *set = table ? more : ci;
        const size_t n_set = table ? sizeof more / sizeof more[0] : sizeof ci / sizeof ci[0];
        result res[sizeof more / sizeof more[0]];
        size_t done = 0;
        for (size_t i = 0; i < n_set; i++)
            if (calibrate(argv[1], &set[i], (int)i, &res[done]) == 0)
                done++;
        print_summary(res, done);
    }
    printf("test_error_calibration%s: %.1f s\n", table ? " (table)" : tier ? " (long part)" : "",
           phys_now() - t0);
    return check_exit();
}
