/* test_tc_start — mcf tc's check that a size's chains were in equilibrium when their
 * measurements began (core/program/tc_sources.c: tc_start_ratio, tc_start_biased), on
 * synthetic m^2 series of C = 20 chains of N = 1500 measurements (the
 * shape of the double-exchange 32^3 runs of docs/methods.md, "Session 14").
 * Each chain's m^2 is mu (1 + 0.25 x_t) with x_t a stationary AR(1) series of unit variance and
 * tau_int = 100 measurements, started in equilibrium (x_0 drawn from it): a chain's ratio
 * (first quarter / whole) then scatters by ~0.2, as the 32^3 chains' did (0.21).
 * (a) Stationary chains: the check's false alarms.  Its threshold is the two-sided 0.1 %
 *     point of Student's t on the chains' spread and a 5 % floor, so over R = 400 independent
 *     sets it may fire in ~0.4 of them; more than 4 (Poisson mean 0.4: P(> 4) < 1e-4) fails.
 *     (The ratios are correlated within a chain -- the first quarter is a quarter of the
 *     whole -- but independent across chains, which is what the spread needs.)
 * (b) Chains that relax: mu (1 - 0.6 exp(-t / 200)) (1 + 0.25 x_t), the ratio ~0.79 as the
 *     32^3 runs' was (0.786), the spread's standard error ~0.033: t ~ 6 against the threshold
 *     3.88 (19 degrees of freedom), a power of ~99 %; the check must fire in at least 97 %
 *     of R sets (R / 100 misses expected at most; 12 allowed).
 * (c) The threshold is the two-sided 0.1 % point of Student's t: for 6 chains (5 degrees of
 *     freedom) t_{0.9995} = 6.869.  Six chains whose ratios are 0.8 +- delta (three each way,
 *     standard error delta / sqrt(5)) are judged at t = 6.8 (not flagged) and 6.95
 *     (flagged); the same at a deficit of 0.04 (below the 5 % floor) is not flagged.
 * (d) Fewer than 4 chains: never fires (3 chains of the relaxing kind). */
#include "check.h"
#include "tc.h"
#include "test_xorshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double gauss(void)
{
    return test_xorshift_gauss(&rng);
}

enum { C = 20, N = 1500, R = 400 };

/* C chains of N measurements of m^2 (relax: the start's deficit) into s */
static void fill(tc_size *s, size_t chains, int relax)
{
    const double tau = 100.0, rho = (2 * tau - 1) / (2 * tau + 1), mu = 0.1;
    s->n_chains = chains;
    s->n = chains * N;
    for (size_t c = 0; c < chains; c++) {
        double x = gauss();
        s->beta[c] = 1.0 / (0.13 + 0.001 * (double)c);
        for (size_t t = 0; t < N; t++) {
            const size_t n = c * N + t;
            if (t)
                x = rho * x + sqrt(1 - rho * rho) * gauss();
            const double start = relax ? 1.0 - 0.6 * exp(-(double)t / 200.0) : 1.0;
            s->q[n * TC_NQ + TC_M2] = mu * start * (1.0 + 0.25 * x);
            s->q[n * TC_NQ + TC_E] = -1.0;
            s->chain[n] = c;
        }
    }
}

/* `chains` chains of N measurements whose first quarter over the whole is exactly r0 + delta
 * or r0 - delta (alternately): m^2 = x in the first quarter and 1 after, x / (x/4 + 3/4) = r */
static void steps(tc_size *s, size_t chains, double r0, double delta)
{
    s->n_chains = chains;
    s->n = chains * N;
    for (size_t c = 0; c < chains; c++) {
        const double r = r0 + (c % 2 ? -delta : delta), x = 0.75 * r / (1.0 - 0.25 * r);
        s->beta[c] = 1.0 / (0.13 + 0.001 * (double)c);
        for (size_t t = 0; t < N; t++) {
            s->q[(c * N + t) * TC_NQ + TC_M2] = t < N / 4 ? x : 1.0;
            s->q[(c * N + t) * TC_NQ + TC_E] = -1.0;
            s->chain[c * N + t] = c;
        }
    }
}

int main(void)
{
    tc_size s;
    memset(&s, 0, sizeof s);
    s.L = 32;
    s.units = 1.0;
    s.beta = malloc(C * sizeof *s.beta);
    s.q = calloc((size_t)C * N * TC_NQ, sizeof *s.q);
    s.chain = malloc((size_t)C * N * sizeof *s.chain);
    CHECK(s.beta && s.q && s.chain, "memory");
    double r = 0, e = 0;
    size_t used = 0, longest = 0;
    /* (a) */
    int alarms = 0;
    double mean_r = 0;
    for (int k = 0; k < R; k++) {
        fill(&s, C, 0);
        alarms += tc_start_biased(&s, &r, &e, &used, &longest);
        mean_r += r / R;
    }
    printf("(a) stationary chains: %d false alarms in %d sets (mean ratio %.4f)\n", alarms, R,
           mean_r);
    CHECK(used == C && longest == N, "(a) %zu chains used, the longest %zu", used, longest);
    CHECK(alarms <= 4, "(a) %d false alarms in %d sets of stationary chains", alarms, R);
    CHECK(fabs(mean_r - 1) < 0.01, "(a) the mean ratio %.4f of stationary chains is 1", mean_r);
    /* (b) */
    int fired = 0;
    double rmin = 2, rmax = 0, emax = 0;
    for (int k = 0; k < R; k++) {
        fill(&s, C, 1);
        fired += tc_start_biased(&s, &r, &e, &used, &longest);
        rmin = fmin(rmin, r), rmax = fmax(rmax, r), emax = fmax(emax, e);
    }
    printf("(b) relaxing chains: fired in %d of %d sets (ratios %.3f-%.3f, errors <= %.3f)\n",
           fired, R, rmin, rmax, emax);
    CHECK(fired >= R - 12, "(b) the check fired in %d of %d sets of relaxing chains", fired, R);
    /* (c) */
    const double t_in[3] = {6.8, 6.95, 6.95}, deficit[3] = {0.2, 0.2, 0.04};
    const int want[3] = {0, 1, 0};
    for (int q = 0; q < 3; q++) {
        const double delta = deficit[q] * sqrt(5.0) / t_in[q];
        steps(&s, 6, 1.0 - deficit[q], delta);
        const int got = tc_start_biased(&s, &r, &e, &used, &longest);
        CHECK(got == want[q] && used == 6, "(c) ratio %.4f +- %.5f (t = %.2f, 5 dof): flagged %d",
              r, e, (1.0 - r) / e, got);
    }
    /* (d) */
    fill(&s, 3, 1);
    CHECK(!tc_start_biased(&s, &r, &e, &used, &longest) && used == 3,
          "(d) 3 chains: the check does not judge (ratio %.3f)", r);
    free(s.beta), free(s.q), free(s.chain);
    return check_exit();
}
