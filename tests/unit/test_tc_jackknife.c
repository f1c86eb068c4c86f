/* test_tc_jackknife — mcf tc's two kinds of jackknife blocks (core/program/tc.c, tc_sources.c's
 * tc_chain_blocks, tc_reweight.c) on series whose variance is known in closed form.
 *
 * K = 8 chains of PER = 1024 energies each, all at beta = 1, each a stationary AR(1) series
 * (E_t - mu = rho (E_{t-1} - mu) + s sqrt(1 - rho^2) xi_t, s = 10) with tau_int = (1 + rho) /
 * (2 (1 - rho)) = 100 measurements.  At one temperature the multi-histogram weights are all
 * equal, so mcf tc's reweighted energy at T = 1 is the plain mean of the 8192 energies (checked
 * to 1e-9), and its delete-one-block jackknife variance over G = 16 blocks is
 *     V_J = G / (N^2 (G - 1)) (sum_j S_j^2 - S^2 / G),  S_j the block sums, S their total,
 * whose expectation follows from the covariance s^2 rho^|t - t'| within a chain:
 *     E S_j^2 = sum of f(b) over the block's stretches of one chain,
 *     f(b) = s^2 (b (1 + rho) / (1 - rho) - 2 rho (1 - rho^b) / (1 - rho)^2),
 * and the mean's true variance is K f(PER) / N^2.  Time slices of every chain (the default:
 * block j = the j-th 64 measurements of each chain) give E V_J = 0.24 of the truth: adjacent
 * slices of a chain are correlated over tau_int = 1.6 slices.  Pieces of the chains laid end
 * to end (--jackknife chains: block j = measurements 512 j ... 512 j + 511, half a chain)
 * give 0.89 of it (one join inside a chain in two).
 * (a), (b) Over R = 60 independent sets of chains, the mean of mcf tc's V_J (through
 *     tc_reweight_solve and tc_reweight_means, sample by sample, as tc_analyze takes them) is
 *     its closed-form expectation for each kind of block, within 4 standard errors of that
 *     mean (the spread of the R values / sqrt(R)): a block assignment or a sample that left
 *     out the wrong measurements moves it by the difference of the two kinds (a factor 3.7),
 *     against ~4 x 5 % allowed;
 * (c) the closed forms themselves: slices below 0.3 of the true variance, pieces above 0.85
 *     (the reason for --jackknife chains). */
#include "check.h"
#include "tc.h"
#include "test_xorshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 88172645463325252ull;
static double gauss(void)
{
    return test_xorshift_gauss(&rng);
}

enum { K = 8, PER = 1024, N = K * PER, G = 16, R = 60 };
static const double S = 10.0, TAU = 100.0;

/* the closed-form sum of the covariances of b consecutive measurements of one chain */
static double f(double b, double rho)
{
    const double q = 1 - rho;
    return S * S * (b * (1 + rho) / q - 2 * rho * (1 - pow(rho, b)) / (q * q));
}

/* one set of chains: the energies, and the blocks of either kind (chains: tc_chain_blocks) */
static void fill(tc_size *s, double rho, int chains)
{
    for (size_t k = 0; k < K; k++) {
        double e = S * gauss();
        for (size_t t = 0; t < PER; t++) {
            const size_t n = k * PER + t;
            if (t)
                e = rho * e + S * sqrt(1 - rho * rho) * gauss();
            s->q[n * TC_NQ + TC_E] = -S * S + e;
            s->chain[n] = k;
            s->block[n] = (unsigned)(t * G / PER);
        }
    }
    if (chains)
        tc_chain_blocks(s, G);
    memset(s->count, 0, (size_t)K * (G + 1) * sizeof *s->count);
    memset(s->lnz, 0, (size_t)K * (G + 1) * sizeof *s->lnz);
    for (size_t n = 0; n < (size_t)N; n++)
        for (size_t j = 0; j <= G; j++)
            s->count[s->chain[n] * (G + 1) + j] += j == 0 || s->block[n] != j - 1;
}

/* mcf tc's jackknife variance of the reweighted energy at T = 1, and the full sample's mean
 * against the plain mean into *dev */
static double jackknife_variance(tc_size *s, double *dev)
{
    const size_t J = G + 1;
    double x[G + 1], m[TC_NQ];
    if (tc_reweight_solve(s, G, 0, 100, 1000))
        return NAN;
    for (size_t j = 0; j <= G; j++) {
        for (size_t c = 0; j && c < K; c++)
            s->lnz[c * J + j] = s->lnz[c * J];
        if (j && tc_reweight_solve(s, G, j, 100, 1000))
            return NAN;
        tc_reweight_means(s, G, j, 1.0, m);
        x[j] = m[TC_E];
    }
    double plain = 0;
    for (size_t n = 0; n < (size_t)N; n++)
        plain += s->q[n * TC_NQ + TC_E] / N;
    *dev = fabs(x[0] - plain);
    double mean = 0, var = 0; /* tc_jack_error's variance (tc_report.c) */
    for (size_t j = 1; j <= G; j++)
        mean += x[j] / G;
    for (size_t j = 1; j <= G; j++)
        var += (x[j] - mean) * (x[j] - mean);
    return var * (G - 1.0) / G;
}

int main(void)
{
    const double rho = (2 * TAU - 1) / (2 * TAU + 1);
    const double truth = K * f(PER, rho) / ((double)N * N);
    /* E V_J: sum_j E S_j^2 - E S^2 / G, times G / (N^2 (G - 1)) */
    const double total = K * f(PER, rho), scale = G / ((double)N * N * (G - 1));
    const double expect[2] = {scale * (G * K * f(PER / G, rho) - total / G),
                              scale * (G * f((double)N / G, rho) - total / G)};
    tc_size s;
    memset(&s, 0, sizeof s);
    s.L = 8;
    s.units = 1.0;
    s.n_chains = K;
    s.n = N;
    s.beta = malloc(K * sizeof *s.beta);
    s.q = calloc((size_t)N * TC_NQ, sizeof *s.q);
    s.chain = malloc((size_t)N * sizeof *s.chain);
    s.block = malloc((size_t)N * sizeof *s.block);
    s.count = calloc((size_t)K * (G + 1), sizeof *s.count);
    s.lnz = calloc((size_t)K * (G + 1), sizeof *s.lnz);
    s.logden = calloc((size_t)N * (G + 1), sizeof *s.logden);
    CHECK(s.beta && s.q && s.chain && s.block && s.count && s.lnz && s.logden, "memory");
    for (size_t k = 0; k < K; k++)
        s.beta[k] = 1.0;
    const char *name[2] = {"time slices of every chain", "pieces of the chains end to end"};
    for (int kind = 0; kind < 2; kind++) {
        double sum = 0, sum2 = 0, worst_dev = 0;
        int failed = 0;
        for (int r = 0; r < R; r++) {
            double dev = 0;
            fill(&s, rho, kind);
            const double v = jackknife_variance(&s, &dev);
            failed += !isfinite(v);
            sum += v / R;
            sum2 += v * v / R;
            worst_dev = fmax(worst_dev, dev);
        }
        CHECK(!failed, "(%c) %d of %d reweightings did not converge", 'a' + kind, failed, R);
        CHECK(worst_dev < 1e-9, "(%c) the reweighted energy at one temperature is the plain "
              "mean: off by %.2g", 'a' + kind, worst_dev);
        const double se = sqrt(fmax(sum2 - sum * sum, 0) / (R - 1));
        printf("(%c) %s: mean jackknife variance %.4g +- %.2g, closed form %.4g (%.3f of the "
               "true %.4g)\n", 'a' + kind, name[kind], sum, se, expect[kind],
               expect[kind] / truth, truth);
        CHECK(fabs(sum - expect[kind]) < 4 * se, "(%c) %s: %.4g against %.4g (%.1f standard "
              "errors)", 'a' + kind, name[kind], sum, expect[kind],
              fabs(sum - expect[kind]) / se);
    }
    CHECK(expect[0] / truth < 0.3 && expect[1] / truth > 0.85, "(c) the closed forms: slices %.3f, "
          "pieces %.3f of the true variance", expect[0] / truth, expect[1] / truth);
    free(s.beta), free(s.q), free(s.chain), free(s.block);
    free(s.count), free(s.lnz), free(s.logden);
    return check_exit();
}
