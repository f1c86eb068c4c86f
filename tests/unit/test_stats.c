/* test_stats.c — blocking analysis and jackknife against exactly known answers.
 *
 * Random numbers come from mcf_rng with fixed seeds, so the test is deterministic; every
 * statistical tolerance below is derived from the estimator's own standard deviation
 * (4 or 5 of them), never tuned to the numbers these seeds happen to give. */
#include "check.h"

#include "mcf/rng.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AR(1): x_t = rho x_{t-1} + sqrt(1 - rho^2) eps_t, started in equilibrium (x_0 ~ N(0,1)),
 * so Var x = 1 and corr(x_t, x_{t+s}) = rho^|s|. */
static void ar1(double *x, size_t n, double rho, uint64_t seed)
{
    mcf_rng r;
    mcf_rng_init(&r, seed, 0);
    const double c = sqrt(1.0 - rho * rho);
    x[0] = mcf_rng_normal(&r);
    for (size_t t = 1; t < n; t++)
        x[t] = rho * x[t - 1] + c * mcf_rng_normal(&r);
}

/* delta_k = sigma_k / sqrt(2 (n_k - 1)): the blocking method's own error of the error at
 * the level it chose. */
static double level_delta(const mcf_blocking *b, const mcf_estimate *e)
{
    return e->error / sqrt(2.0 * ((double)b->n[e->level] - 1.0));
}

static void test_ar1(void)
{
    const size_t N = (size_t)1 << 20;
    const double rho = 0.9;
    double *x = malloc(N * sizeof *x);
    if (!x) {
        CHECK(x != NULL, "out of memory");
        return;
    }
    ar1(x, N, rho, 20240601);

    mcf_blocking b;
    mcfi_blocking_init(&b);
    for (size_t t = 0; t < N; t++)
        mcfi_blocking_add(&b, x[t]);
    mcf_estimate e;
    mcfi_blocking_estimate(&b, &e);

    /* Exact standard error of the mean of a stationary AR(1) series of unit variance:
     *   Var(mean) = (1/N) [(1+rho)/(1-rho) - 2 rho (1 - rho^N) / (N (1-rho)^2)],
     * i.e. sqrt((1+rho)/((1-rho)N)) = sqrt(19/N) up to a relative 5e-6 here.  The bare
     * level would fall short of it by ~ sqrt(1 - tau/B) (test_block_factor); the estimate
     * corrects for that, so it is the exact error within the statistical error of sigma_k,
     * delta_k = sigma_k / sqrt(2 (n_k - 1)) (chi-square with n_k - 1 degrees of freedom for
     * Gaussian block means):  |error - exact| <= 4 delta_k. */
    const double n = (double)N;
    const double exact = sqrt(((1 + rho) / (1 - rho) - 2 * rho * (1 - pow(rho, n)) /
                                                           (n * (1 - rho) * (1 - rho))) / n);
    const double delta = level_delta(&b, &e);
    printf("AR(1) rho=0.9 N=2^20: error %.6g, exact %.6g (level %d), delta %.3g, "
           "|diff|/delta %.2f; tau %.3f (exact 9.5); converged %d\n",
           e.error, exact, e.level, delta, fabs(e.error - exact) / delta, e.tau, e.converged);
    CHECK(e.converged == 1, "AR(1) with N = 2^20 >> tau: converged %d", e.converged);
    CHECK(e.count == N, "count %llu", (unsigned long long)e.count);
    CHECK(fabs(e.error - exact) <= 4 * delta,
          "blocking error %.6g vs exact %.6g at level %d: diff %.3g > 4 delta = %.3g",
          e.error, exact, e.level, e.error - exact, 4 * delta);

    /* tau = error^2 / (2 naive^2), exact tau_int = (1/2)(1+rho)/(1-rho) = 9.5.  Relative sd
     * of error^2 is 2 delta/error; that of naive^2 (the sample variance of the AR(1)
     * series) is sqrt(2 (1+rho^2)/((1-rho^2) N)) = 0.43 %; combined in quadrature, 4 of
     * them. */
    const double tau_exact = 0.5 * (1 + rho) / (1 - rho);
    const double tau_expected = tau_exact;
    const double tau_rel = sqrt(pow(2 * delta / e.error, 2) +
                                2 * (1 + rho * rho) / ((1 - rho * rho) * n));
    CHECK(fabs(e.tau - tau_expected) <= 4 * tau_rel * tau_expected,
          "tau %.4f vs %.4f (exact 9.5): tolerance %.3g", e.tau, tau_expected,
          4 * tau_rel * tau_expected);
    /* naive error: sample sd / sqrt(N - 1) with sample variance 1 +- 0.43 %. */
    const double naive = 1.0 / sqrt(n - 1);
    CHECK(fabs(e.naive_error - naive) <= 4 * 0.5 * sqrt(2 * (1 + rho * rho) /
                                                        ((1 - rho * rho) * n)) * naive,
          "naive error %.6g vs %.6g", e.naive_error, naive);

    /* The mean is the plain mean: compare with a direct sum on data with mean 5 (so the
     * relative comparison is meaningful).  Both are plain double sums of 2^20 terms of
     * size ~5; their rounding errors are ~ sqrt(N) eps ~ 1e-13 relative. */
    mcf_blocking c;
    mcfi_blocking_init(&c);
    double direct = 0;
    for (size_t t = 0; t < N; t++) {
        mcfi_blocking_add(&c, x[t] + 5.0);
        direct += x[t] + 5.0;
    }
    direct /= n;
    mcf_estimate ec;
    mcfi_blocking_estimate(&c, &ec);
    CHECK(fabs(ec.mean - direct) <= 1e-12 * fabs(direct), "mean %.17g vs direct %.17g",
          ec.mean, direct);
    /* Shifting the data changes no error (the sums are of x - first value). */
    CHECK(fabs(ec.error - e.error) <= 1e-9 * e.error && ec.level == e.level,
          "error of shifted data %.12g vs %.12g", ec.error, e.error);

    /* Checkpoint: a blocking struct copied byte for byte mid-series (at an odd count, so
     * pending blocks are in flight) and continued gives the same state and estimate. */
    mcf_blocking first, resumed;
    mcfi_blocking_init(&first);
    const size_t cut = N / 2 + 12345;
    for (size_t t = 0; t < cut; t++)
        mcfi_blocking_add(&first, x[t]);
    unsigned char bytes[sizeof(mcf_blocking)];
    memcpy(bytes, &first, sizeof first);
    memcpy(&resumed, bytes, sizeof resumed);
    for (size_t t = cut; t < N; t++)
        mcfi_blocking_add(&resumed, x[t]);
    mcf_estimate er;
    mcfi_blocking_estimate(&resumed, &er);
    CHECK(memcmp(&resumed, &b, sizeof b) == 0, "resumed state differs from uninterrupted");
    CHECK(er.mean == e.mean && er.error == e.error && er.naive_error == e.naive_error &&
              er.tau == e.tau && er.level == e.level && er.converged == e.converged &&
              er.count == e.count,
          "resumed estimate differs: mean %.17g/%.17g error %.17g/%.17g", er.mean, e.mean,
          er.error, e.error);
    free(x);
}

/* AR(1) quantities by direct sums over lags (independent of stats.c's closed forms), for
 * a series of unit variance with autocorrelation rho^t:
 *   S(B) = sum_{s,t < B} rho^|s-t| = B + 2 sum_{t=1}^{B-1} (B - t) rho^t = B^2 Var(mean_B). */
static double lag_sum(double rho, double B)
{
    double s = B, p = 1.0;
    for (double t = 1; t < B; t++) {
        p *= rho;
        s += 2.0 * (B - t) * p;
    }
    return s;
}

/* n blocks of B: Var(mean of all n B values) / E[(sum_i (Y_i - Ybar)^2 / n) / (n - 1)],
 * the naive variance of the mean from the block means Y_i, whose expectation is
 * (sum_i Var Y_i - n Var Ybar) / (n (n - 1)). */
static double direct_block_factor(double rho, double B, double n)
{
    const double var_all = lag_sum(rho, n * B) / (n * B * n * B);
    const double var_block = lag_sum(rho, B) / (B * B);
    return var_all / ((n * var_block - n * var_all) / (n * (n - 1)));
}

static void test_block_factor(void)
{
    /* mcfi_block_factor against the direct sums, rho = (2 tau - 1)/(2 tau + 1).  Both are
     * sums of at most 10^4 positive terms: agreement to 1e-9 relative (the closed form's
     * own cancellation is below 1e-12 by its Taylor branch). */
    static const double cases[][3] = {{10, 64, 62},  {10, 125, 32}, {10, 2000, 32},
                                      {2.4, 8, 500}, {1000, 62, 32}, {10, 1, 4000},
                                      {0.7, 3, 100}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const double tau = cases[k][0], B = cases[k][1], n = cases[k][2];
        const double rho = (2 * tau - 1) / (2 * tau + 1);
        const double f = mcfi_block_factor(tau, B, n), d = direct_block_factor(rho, B, n);
        printf("block factor tau %g, %g blocks of %g: %.12g (direct sums %.12g; tau/B %.3g)\n",
               tau, n, B, f, d, tau / B);
        CHECK(fabs(f - d) <= 1e-9 * d, "block factor tau %g B %g n %g: %.15g vs %.15g", tau,
              B, n, f, d);
    }
    /* uncorrelated data: nothing to correct */
    CHECK(mcfi_block_factor(0.5, 64, 32) == 1.0 && mcfi_block_factor(0.2, 64, 32) == 1.0,
          "tau <= 1/2 gives %g", mcfi_block_factor(0.5, 64, 32));
}

/* The regime of the plateau warning: tau = 10, runs of 200 and 400 tau, where no usable
 * level (>= 32 blocks) has blocks longer than 6..13 tau.  Many independent series; the
 * mean of error^2 over them against the exact finite-N variance of the mean (formula of
 * test_ar1).  The bare level would give 0.70 and 0.85 of it (~ 1 - tau/B; the estimator
 * before its finite-block correction).  Expectation: error^2 = sigma_0^2 G(r), r =
 * sigma_k^2 / sigma_0^2 and G convex (G(r) ~ r + r^2 / (2B) for B >> tau), so E error^2
 * exceeds the exact variance by ~ (1/2) G'' Var(r) / G = r / (B (n_k - 1)) ~ 2 tau / N
 * (Var r = 2 r^2 / (n_k - 1)): 1 % at N = 200 tau.  tau / B is not small here, and the
 * next orders add to it (they are positive: 1.4 % measured), so we allow twice that,
 * 4 tau / N, on top of 4 standard errors of the mean of error^2 (from its scatter over
 * the series).  Bias of the mean: |<mean>| <= 4 sqrt(Var(mean) / R). */
static void test_short_runs(void)
{
    enum { R = 2000 };
    const double tau = 10.0, rho = (2 * tau - 1) / (2 * tau + 1), c = sqrt(1 - rho * rho);
    const size_t lengths[] = {2000, 4000};
    for (size_t k = 0; k < 2; k++) {
        const size_t N = lengths[k];
        const double n = (double)N;
        const double exact = ((1 + rho) / (1 - rho) - 2 * rho * (1 - pow(rho, n)) /
                                                          (n * (1 - rho) * (1 - rho))) / n;
        mcf_rng r;
        mcf_rng_init(&r, 5150 + k, 0);
        double s2 = 0, s4 = 0, sm = 0, sz2 = 0;
        int converged = 0, bounded = 0;
        for (int i = 0; i < R; i++) {
            mcf_blocking b;
            mcfi_blocking_init(&b);
            double x = mcf_rng_normal(&r); /* stationary start */
            for (size_t t = 0; t < N; t++) {
                mcfi_blocking_add(&b, x);
                x = rho * x + c * mcf_rng_normal(&r);
            }
            mcf_estimate e;
            mcfi_blocking_estimate(&b, &e);
            s2 += e.error * e.error;
            s4 += e.error * e.error * e.error * e.error;
            sm += e.mean;
            sz2 += e.mean * e.mean / (e.error * e.error);
            converged += e.converged;
            bounded += e.lower_bound;
        }
        const double m2 = s2 / R, se = sqrt((s4 / R - m2 * m2) / R);
        const double ratio = m2 / exact, tol_hi = 4 * se / exact + 4 * tau / n;
        printf("AR(1) tau %g, N = %zu (%g tau), %d series: <error^2> / exact %.4f "
               "(allowed %.4f .. %.4f), <z^2> %.3f, mean %+.4g (sd %.3g), converged %d, "
               "lower bounds %d\n", tau, N, n / tau, R, ratio, 1 - 4 * se / exact, 1 + tol_hi,
               sz2 / R, sm / R, sqrt(exact / R), converged, bounded);
        CHECK(converged == 0, "N = %zu < 512 tau: %d series converged", N, converged);
        /* lower bounds need the observed ratio of blocks of 3.2 tau (N = 2000) to reach that
         * of tau = B, 1.6 times its mean: chi^2_61 / 61 > 1.6, p ~ 2e-3, ~4 of R expected;
         * R / 100 is > 5 Poisson sd above that */
        CHECK(bounded <= R / 100, "N = %zu: blocks of >= 3 tau, yet %d lower bounds", N,
              bounded);
        CHECK(ratio >= 1 - 4 * se / exact && ratio <= 1 + tol_hi,
              "N = %zu: <error^2> / exact variance of the mean = %.4f, allowed %.4f .. %.4f", N,
              ratio, 1 - 4 * se / exact, 1 + tol_hi);
        CHECK(fabs(sm / R) <= 4 * sqrt(exact / R), "N = %zu: mean of the means %.4g", N,
              sm / R);
    }
}

static void test_uncorrelated(void)
{
    const size_t N = (size_t)1 << 20;
    mcf_rng r;
    mcf_rng_init(&r, 777, 0);
    mcf_blocking b;
    mcfi_blocking_init(&b);
    for (size_t t = 0; t < N; t++)
        mcfi_blocking_add(&b, mcf_rng_normal(&r));
    mcf_estimate e;
    mcfi_blocking_estimate(&b, &e);
    const double n = (double)N, delta = level_delta(&b, &e);
    /* iid N(0,1): every level estimates 1/sqrt(N) without bias.  tau = 0.5 (error /
     * naive)^2 with relative sd 2 delta/error (the naive error, from all N values, is far
     * more precise: relative sd 1/sqrt(2N)). */
    const double tau_tol = 4 * 0.5 * sqrt(pow(2 * delta / e.error, 2) + 1.0 / (2 * n));
    printf("iid N=2^20: error %.6g, exact %.6g, level %d, delta %.3g; tau %.4f +- %.3g; "
           "converged %d\n",
           e.error, 1 / sqrt(n), e.level, delta, e.tau, tau_tol / 4, e.converged);
    CHECK(e.converged == 1, "uncorrelated data: converged %d", e.converged);
    CHECK(fabs(e.error - 1 / sqrt(n)) <= 4 * delta, "error %.6g vs %.6g", e.error, 1 / sqrt(n));
    CHECK(fabs(e.tau - 0.5) <= tau_tol, "tau %.4f vs 0.5 +- %.3g", e.tau, tau_tol);
}

static void test_too_short(void)
{
    /* rho = 0.999: tau_int = 999.5 steps, but only 2000 values, so no block length with
     * at least 32 blocks (B <= 62) comes near the correlation time. */
    enum { N = 2000 };
    static double x[N];
    ar1(x, N, 0.999, 99);
    mcf_blocking b;
    mcfi_blocking_init(&b);
    for (size_t t = 0; t < N; t++)
        mcfi_blocking_add(&b, x[t]);
    mcf_estimate e;
    mcfi_blocking_estimate(&b, &e);
    /* Exact finite-N standard error, with the formula of test_ar1: ~0.75. */
    const double rho = 0.999, n = N;
    const double exact = sqrt(((1 + rho) / (1 - rho) - 2 * rho * (1 - pow(rho, n)) /
                                                           (n * (1 - rho) * (1 - rho))) / n);
    printf("AR(1) rho=0.999 N=2000: error %.4g (exact %.4g), tau %.2f, level %d, converged %d\n",
           e.error, exact, e.tau, e.level, e.converged);
    CHECK(e.converged == 0, "too short a series must not be reported converged");
    CHECK(e.error >= e.naive_error, "unconverged error %.4g reports at least the naive %.4g",
          e.error, e.naive_error);
    /* blocks of <= 62 values cannot tell a tau of 1000 (the ratio sigma_k / sigma_0
     * saturates): the extrapolation stops at tau = B and says the error is a lower bound */
    CHECK(e.lower_bound == 1 && e.error < exact,
          "tau >> blocks: lower_bound %d, error %.4g (exact %.4g)", e.lower_bound, e.error,
          exact);
    CHECK(b.n[e.level] >= 32, "reported level %d has %llu blocks", e.level,
          (unsigned long long)b.n[e.level]);
}

static void test_edge_cases(void)
{
    mcf_blocking b;
    mcf_estimate e;
    mcfi_blocking_init(&b);
    mcfi_blocking_estimate(&b, &e);
    CHECK(e.count == 0 && isnan(e.mean) && isnan(e.error) && e.converged == 0,
          "empty series: mean %g error %g", e.mean, e.error);
    mcfi_blocking_add(&b, 3.25);
    mcfi_blocking_estimate(&b, &e);
    CHECK(e.count == 1 && e.mean == 3.25 && isnan(e.error) && e.converged == 0,
          "one value: mean %g error %g", e.mean, e.error);

    /* Constant series: exact mean, zero error. */
    mcfi_blocking_init(&b);
    for (int i = 0; i < 1000; i++)
        mcfi_blocking_add(&b, 1e10 + 0.5);
    mcfi_blocking_estimate(&b, &e);
    CHECK(e.mean == 1e10 + 0.5 && e.error == 0.0, "constant: mean %.17g error %g", e.mean,
          e.error);

    /* A non-finite value poisons the mean. */
    mcfi_blocking_init(&b);
    for (int i = 0; i < 100; i++)
        mcfi_blocking_add(&b, i == 50 ? INFINITY : (double)i);
    mcfi_blocking_estimate(&b, &e);
    CHECK(isnan(e.mean), "infinite value: mean %g", e.mean);

    /* Few values: mean exact, error the naive one, not converged.  Values 1..10:
     * mean 5.5, biased variance 8.25, naive error sqrt(8.25/9). */
    mcfi_blocking_init(&b);
    for (int i = 1; i <= 10; i++)
        mcfi_blocking_add(&b, (double)i);
    mcfi_blocking_estimate(&b, &e);
    CHECK(e.mean == 5.5 && fabs(e.naive_error - sqrt(8.25 / 9)) < 1e-15 && e.converged == 0,
          "1..10: mean %g naive %.17g converged %d", e.mean, e.naive_error, e.converged);
}

/* Jackknife functions: f(means) for means = {<x>, <x^2>}. */
static double f_variance(const double *m, void *ctx)
{
    (void)ctx;
    return m[1] - m[0] * m[0];
}

static double f_first(const double *m, void *ctx)
{
    (void)ctx;
    return m[0];
}

static double f_square(const double *m, void *ctx)
{
    (void)ctx;
    return m[0] * m[0];
}

static void test_jackknife(void)
{
    /* iid Gaussian, sigma = 2: the sample variance has sd sqrt(2/N) sigma^2 (exactly
     * sqrt(2/(N-1)) sigma^2 for the unbiased one; the difference is 5e-7 relative). */
    enum { NB = 1000, PER = 1000 };
    const double sigma = 2.0;
    static double bins[NB * 2];
    mcf_rng r;
    mcf_rng_init(&r, 4242, 0);
    for (int i = 0; i < NB; i++) {
        double s = 0, s2 = 0;
        for (int k = 0; k < PER; k++) {
            double x = sigma * mcf_rng_normal(&r);
            s += x;
            s2 += x * x;
        }
        bins[2 * i] = s / PER;
        bins[2 * i + 1] = s2 / PER;
    }
    double value, error;
    int rc = mcfi_jackknife(bins, NULL, NB, 2, f_variance, NULL, &value, &error);
    const double N = (double)NB * PER;
    const double exact = sqrt(2.0 / N) * sigma * sigma;
    /* The jackknife error is a sum over NB nearly independent, nearly Gaussian pseudo-values
     * (each a mean of 1000 draws), so error^2 / exact^2 ~ chi^2_{NB-1}/(NB-1) and the error
     * has relative sd 1/sqrt(2 (NB - 1)) = 2.2 %; allow 4 of them.  The value itself is
     * within 5 sd = 5 exact of sigma^2. */
    const double rel_tol = 4.0 / sqrt(2.0 * (NB - 1));
    printf("jackknife variance: %.5f +- %.5g (exact sd %.5g, ratio %.4f +- %.3f)\n", value,
           error, exact, error / exact, rel_tol / 4);
    CHECK(rc == 0, "jackknife rc %d", rc);
    CHECK(fabs(error / exact - 1) <= rel_tol, "jackknife error %.5g vs exact %.5g (tol %.1f%%)",
          error, exact, 100 * rel_tol);
    CHECK(fabs(value - sigma * sigma) <= 5 * exact, "variance %.5f vs %.1f", value,
          sigma * sigma);

    /* The same bins with equal explicit weights give the same answer. */
    static double w[NB];
    for (int i = 0; i < NB; i++)
        w[i] = PER;
    double v2, e2;
    rc = mcfi_jackknife(bins, w, NB, 2, f_variance, NULL, &v2, &e2);
    CHECK(rc == 0 && fabs(v2 - value) <= 1e-12 * fabs(value) &&
              fabs(e2 - error) <= 1e-10 * error,
          "explicit equal weights: %.17g/%.17g vs %.17g/%.17g", v2, e2, value, error);

    /* Linear f: the jackknife is exactly the mean of the bin means and their standard
     * error sqrt(sum (m_i - M)^2 / (n (n - 1))). */
    enum { NL = 50 };
    static double lin[NL * 2];
    double sum = 0;
    for (int i = 0; i < NL; i++) {
        lin[2 * i] = 3.0 + mcf_rng_normal(&r);
        lin[2 * i + 1] = 0.0;
        sum += lin[2 * i];
    }
    const double M = sum / NL;
    double ss = 0;
    for (int i = 0; i < NL; i++)
        ss += (lin[2 * i] - M) * (lin[2 * i] - M);
    const double se = sqrt(ss / (NL * (NL - 1.0)));
    rc = mcfi_jackknife(lin, NULL, NL, 2, f_first, NULL, &value, &error);
    CHECK(rc == 0 && fabs(value - M) <= 1e-12 * fabs(M), "linear: %.17g vs mean %.17g", value,
          M);
    CHECK(fabs(error - se) <= 1e-12 * se, "linear: error %.17g vs %.17g", error, se);

    /* Bias correction: for f = <x>^2 and equal bins the jackknife estimate is exactly
     * M^2 - sum (m_i - M)^2 / (n (n - 1)), the unbiased estimator of mu^2. */
    rc = mcfi_jackknife(lin, NULL, NL, 2, f_square, NULL, &value, &error);
    const double unbiased = M * M - ss / (NL * (NL - 1.0));
    CHECK(fabs(value - unbiased) <= 1e-12 * fabs(unbiased), "square: %.17g vs %.17g", value,
          unbiased);
    /* Its error is, to first order, 2 |M| times that of the mean. */
    CHECK(fabs(error - 2 * fabs(M) * se) <= 0.05 * error, "square: error %.6g vs %.6g", error,
          2 * fabs(M) * se);

    /* Unequal weights, linear f: the weighted mean, and the error of the weighted
     * delete-one jackknife, sqrt(sum w_i (m_i - M)^2 / (n (W - w_i))). */
    static double wl[NL];
    double W = 0, S = 0;
    for (int i = 0; i < NL; i++) {
        wl[i] = 1.0 + (double)mcf_rng_below(&r, 20);
        W += wl[i];
        S += wl[i] * lin[2 * i];
    }
    const double Mw = S / W;
    double vw = 0;
    for (int i = 0; i < NL; i++)
        vw += wl[i] * (lin[2 * i] - Mw) * (lin[2 * i] - Mw) / (NL * (W - wl[i]));
    rc = mcfi_jackknife(lin, wl, NL, 2, f_first, NULL, &value, &error);
    CHECK(rc == 0 && fabs(value - Mw) <= 1e-12 * fabs(Mw), "weighted linear: %.17g vs %.17g",
          value, Mw);
    CHECK(fabs(error - sqrt(vw)) <= 1e-12 * sqrt(vw), "weighted linear: error %.17g vs %.17g",
          error, sqrt(vw));

    /* The combination step alone, as curves and `mcf dos` use it: leave-one-out values
     * (S - s_i) / (W - w_i) of bin sums, strided, with an empty bin (weight 0) among
     * them, give the same weighted error; the empty bin is not counted. */
    static double loo[2 * (NL + 1)], wz[NL + 1];
    for (int i = 0, j = 0; i <= NL; i++) {
        if (i == 5) {
            wz[i] = 0.0;
            loo[2 * i] = 1e300; /* must not be read as a bin */
            continue;
        }
        wz[i] = wl[j];
        loo[2 * i] = (S - wl[j] * lin[2 * j]) / (W - wl[j]);
        j++;
    }
    double est, err;
    size_t used = mcfe_jackknife_combine(Mw, loo, 2, wz, NL + 1, &est, &err);
    CHECK(used == NL, "combine: %zu bins used, expected %d", used, NL);
    CHECK(fabs(est - Mw) <= 1e-12 * fabs(Mw), "combine: %.17g vs %.17g", est, Mw);
    CHECK(fabs(err - sqrt(vw)) <= 1e-10 * sqrt(vw), "combine: error %.17g vs %.17g", err,
          sqrt(vw));
    /* equal weights: the textbook sqrt((n - 1) / n sum (f_(i) - mean)^2) */
    double avg = 0, sq = 0;
    for (int i = 0; i < NL; i++)
        avg += loo[2 * (i < 5 ? i : i + 1)] / NL;
    for (int i = 0; i < NL; i++) {
        const double d = loo[2 * (i < 5 ? i : i + 1)] - avg;
        sq += d * d;
    }
    for (int i = 0; i <= NL; i++)
        wz[i] = i == 5 ? 0.0 : 1.0;
    mcfe_jackknife_combine(Mw, loo, 2, wz, NL + 1, &est, &err);
    CHECK(fabs(err - sqrt((NL - 1.0) / NL * sq)) <= 1e-10 * err,
          "combine, equal weights: error %.17g vs %.17g", err, sqrt((NL - 1.0) / NL * sq));
    CHECK(mcfe_jackknife_combine(Mw, loo, 2, wz, 1, &est, &err) == 1 && est == Mw &&
              isnan(err),
          "combine, one bin: value %g error %g", est, err);

    /* Fewer than 2 bins: -1, value f(all), error NaN.  Bad weights refused. */
    rc = mcfi_jackknife(lin, NULL, 1, 2, f_first, NULL, &value, &error);
    CHECK(rc == -1 && value == lin[0] && isnan(error), "one bin: rc %d value %g error %g", rc,
          value, error);
    wl[3] = 0.0;
    rc = mcfi_jackknife(lin, wl, NL, 2, f_first, NULL, &value, &error);
    CHECK(rc != 0, "zero weight refused (rc %d)", rc);
}

int main(void)
{
    test_ar1();
    test_block_factor();
    test_short_runs();
    test_uncorrelated();
    test_too_short();
    test_edge_cases();
    test_jackknife();
    return check_exit();
}
