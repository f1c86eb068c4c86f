/* test_equilibration.c — the two tests behind "not in equilibrium" (core/engine/equilibration.c):
 *  - the drift test (first fifth against last half of the time-ordered bins, Student's t)
 *    gives uniform p-values for series in equilibrium: over 4000 white-noise series the
 *    fractions with p < 0.05 and p < 0.01 are within 3 binomial standard deviations of
 *    0.05 and 0.01; a step of 2 standard deviations of one value between the halves of
 *    320 values is flagged at the run's threshold every time;
 *  - the walkers' agreement test (chi^2 about the weighted mean) likewise: 4 walkers with
 *    Gaussian means of known, unequal errors give p < 0.05 in 5% of 4000 trials; two walkers
 *    10 errors apart are flagged; equal means give p = 1; an estimate without a usable
 *    error is no test. */
#include "check.h"

#include "equilibration.h"
#include "mcf/rng.h"

#include <math.h>

#define TRIALS 4000
#define BINS 32
#define PER_BIN 10

/* a binned series of BINS x PER_BIN values: noise of sd 1, plus `step` in the second half */
static void binned_series(mcf_rng *rng, double step, double *sum, double *count)
{
    for (int b = 0; b < BINS; b++) {
        sum[b] = 0;
        count[b] = PER_BIN;
        for (int k = 0; k < PER_BIN; k++)
            sum[b] += mcf_rng_normal(rng) + (b >= BINS / 2 ? step : 0.0);
    }
}

static int within(double fraction, double p)
{
    return fabs(fraction - p) <= 3.0 * sqrt(p * (1 - p) / TRIALS);
}

int main(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 2026, 3);
    double sum[BINS], count[BINS];

    int below5 = 0, below1 = 0, tests = 0;
    for (int k = 0; k < TRIALS; k++) {
        double t, p, a, b;
        binned_series(&rng, 0.0, sum, count);
        tests += mcfi_drift_test(sum, count, BINS, 1, 0, &t, &p, &a, &b);
        below5 += p < 0.05;
        below1 += p < 0.01;
    }
    CHECK(tests == TRIALS, "the drift test declined %d of %d series", TRIALS - tests, TRIALS);
    CHECK(within((double)below5 / TRIALS, 0.05), "drift: p < 0.05 in %.4f of series in "
          "equilibrium", (double)below5 / TRIALS);
    CHECK(within((double)below1 / TRIALS, 0.01), "drift: p < 0.01 in %.4f of series in "
          "equilibrium", (double)below1 / TRIALS);

    int flagged = 0;
    for (int k = 0; k < 200; k++) {
        double t, p, a, b;
        binned_series(&rng, 2.0, sum, count);
        flagged += mcfi_drift_test(sum, count, BINS, 1, 0, &t, &p, &a, &b) &&
                   p < MCFI_DRIFT_P && t < 0;
    }
    CHECK(flagged == 200, "a step of 2 sd flagged in %d of 200 series", flagged);

    /* two variables interleaved (nvars = 2): the test reads its own column */
    double two[2 * BINS];
    binned_series(&rng, 0.0, sum, count);
    for (int b = 0; b < BINS; b++) {
        two[2 * b] = 1e6 * (b >= BINS / 2); /* a huge step in variable 0 */
        two[2 * b + 1] = sum[b];
    }
    double t0, p0, t1, p1, a, b, chi2, p;
    mcfi_drift_test(two, count, BINS, 2, 0, &t0, &p0, &a, &b);
    mcfi_drift_test(two, count, BINS, 2, 1, &t1, &p1, &a, &b);
    CHECK(p0 == 0 && isinf(t0) && p1 > MCFI_DRIFT_P, "columns mixed up: p0 %g, p1 %g", p0, p1);
    /* a density of 0.5 that varies only by rounding does not drift */
    for (int k = 0; k < BINS; k++)
        sum[k] = PER_BIN * (0.5 + (k % 3 - 1) * 1e-17 + (k >= BINS / 2 ? 2e-16 : 0));
    CHECK(mcfi_drift_test(sum, count, BINS, 1, 0, &t0, &p0, &a, &b) && p0 == 1,
          "rounding read as a drift: t %g, p %g", t0, p0);
    double round_means[2] = {0.5, 0.5 + 1e-16}, round_err[2] = {1e-18, 1e-18};
    CHECK(mcfi_agreement_test(round_means, round_err, 2, &chi2, &p) && p == 1,
          "walkers equal to rounding disagree: chi2 %g", chi2);
    binned_series(&rng, 0.0, sum, count);
    CHECK(!mcfi_drift_test(sum, count, 4, 1, 0, &t0, &p0, &a, &b),
          "4 bins (none in the first fifth) were tested");

    /* the walkers' agreement */
    below5 = 0;
    for (int k = 0; k < TRIALS; k++) {
        double mean[4], err[4] = {0.5, 1.0, 2.0, 0.1};
        for (int w = 0; w < 4; w++)
            mean[w] = 3.0 + err[w] * mcf_rng_normal(&rng);
        mcfi_agreement_test(mean, err, 4, &chi2, &p);
        below5 += p < 0.05;
    }
    CHECK(within((double)below5 / TRIALS, 0.05), "agreement: p < 0.05 in %.4f of trials",
          (double)below5 / TRIALS);
    double mean2[2] = {0.08, 0.95}, err2[2] = {0.01, 0.01};
    CHECK(mcfi_agreement_test(mean2, err2, 2, &chi2, &p) && p < MCFI_AGREE_P &&
              fabs(chi2 - 0.87 * 0.87 / 0.0002) < 1e-6 * chi2,
          "walkers 0.08(1) and 0.95(1): chi2 %g, p %g", chi2, p);
    double same[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    CHECK(mcfi_agreement_test(same, zero, 3, &chi2, &p) && p == 1, "equal means: p %g", p);
    double apart[2] = {1, 2};
    CHECK(!mcfi_agreement_test(apart, zero, 2, &chi2, &p), "errors of 0 made a test");
    CHECK(!mcfi_agreement_test(apart, err2, 1, &chi2, &p), "one walker made a test");
    return check_exit();
}
