/* test_tc_sources — what mcf tc checks before it reweights (core/program/tc_sources.c):
 * (a) tc_tau_max: AR(1) series x_{i+1} = phi x_i + noise have tau_int = (1 + phi) / (2 (1 -
 *     phi)); two chains of 200000 at phi = 0.5 (1.5) and 0.9 (9.5): the largest is the 0.9
 *     chain's, within 10% (the estimator's own error is ~3.5% here: tau sqrt(2 (2W + 1) / n)),
 *     with that chain's T and length;
 * (b) tc_overlap: two Gaussian energy histograms (sd 1, 500 measurements each) 7 standard
 *     deviations apart (~0.2 measurements expected past the midpoint) are refused, naming
 *     the pair and three temperatures between them (each gap then <= 2 sd: ceil(7/2) - 1);
 *     2 apart (~159) pass, with the distance and the count reported;
 * (c) tc_keep_bridged: chains at T = 1, 2, 2.1, 2.2, 3 whose energies are 7, 1, 1, 7 sd apart
 *     in turn: T = 1 and 3 (the outer ones that reach no neighbour) are left out, 3 chains
 *     and their 1500 measurements stay (each with its chain renumbered and its block),
 *     T in [2, 2.2], and tc_overlap then passes; T = 1, 1.1, 2, 2.1 with the 7 sd gap inside
 *     (1.1 to 2): nothing is left out and tc_overlap still refuses. */
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

/* a size of two chains at T = 1 and 2, n measurements each; fill(q, chain, i) the values */
static void make(tc_size *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->L = 8;
    s->n_chains = 2;
    s->n = 2 * n;
    s->beta = malloc(2 * sizeof *s->beta);
    s->q = calloc(2 * n * TC_NQ, sizeof *s->q);
    s->chain = malloc(2 * n * sizeof *s->chain);
    s->beta[0] = 1.0;
    s->beta[1] = 0.5;
    for (size_t i = 0; i < 2 * n; i++)
        s->chain[i] = i / n;
}

static void release(tc_size *s)
{
    free(s->beta);
    free(s->q);
    free(s->chain);
}

int main(void)
{
    /* (a) */
    const size_t n = 200000;
    tc_size s;
    make(&s, n);
    const double phi[2] = {0.5, 0.9};
    for (int c = 0; c < 2; c++) {
        double x = 0;
        for (size_t i = 0; i < n; i++) {
            x = phi[c] * x + gauss();
            s.q[(c * n + i) * TC_NQ + TC_M2] = x;
        }
    }
    double at = 0;
    size_t len = 0;
    const double tau = tc_tau_max(&s, TC_M2, &at, &len);
    printf("tau_int: %.3f (AR(1) at phi = 0.9: 9.5), at T = %g, %zu measurements\n", tau, at,
           len);
    CHECK(fabs(tau - 9.5) <= 0.95 && at == 2.0 && len == n,
          "tau_int %.3f at T = %g (%zu) is not the phi = 0.9 chain's 9.5 +- 10%%", tau, at, len);
    release(&s);

    /* (b) */
    const double apart[2] = {7.0, 2.0};
    for (int c = 0; c < 2; c++) {
        make(&s, 500);
        for (size_t i = 0; i < 1000; i++)
            s.q[i * TC_NQ + TC_E] = gauss() + (i < 500 ? 0.0 : apart[c]);
        char why[1024] = "";
        double d = 0, lo = 0, hi = 0;
        size_t bridging = 0;
        const int r = tc_overlap(&s, 16, why, sizeof why, &d, &bridging, &lo, &hi);
        printf("overlap %g sd apart: %d, d = %.2f, %zu past the midpoint; %s\n", apart[c], r, d,
               bridging, why);
        if (c == 0)
            CHECK(r == -1 && bridging < 16 && strstr(why, "T = 1 and 2 hardly overlap") &&
                      strstr(why, "add T = 1.25, 1.5, 1.75"),
                  "7 sd apart not refused as it should be: %s", why);
        else
            CHECK(r == 0 && bridging >= 100 && bridging <= 220 && fabs(d - 2.0) < 0.3 &&
                      lo == 1.0 && hi == 2.0,
                  "2 sd apart: %d, d = %.2f, %zu bridging", r, d, bridging);
        release(&s);
    }
    /* (c) */
    const double temps[2][5] = {{1, 2, 2.1, 2.2, 3}, {1, 1.1, 2, 2.1, 0}};
    const double means[2][5] = {{0, 7, 8, 9, 16}, {0, 1, 8, 9, 0}};
    for (int c = 0; c < 2; c++) {
        const size_t K = c ? 4 : 5, m = 500;
        memset(&s, 0, sizeof s);
        s.L = 8;
        s.n_chains = K;
        s.n = K * m;
        s.beta = malloc(K * sizeof *s.beta);
        s.q = calloc(K * m * TC_NQ, sizeof *s.q);
        s.chain = malloc(K * m * sizeof *s.chain);
        s.block = malloc(K * m * sizeof *s.block);
        for (size_t k = 0; k < K; k++)
            s.beta[k] = 1.0 / temps[c][k];
        s.t_min = temps[c][0];
        s.t_max = temps[c][K - 1];
        for (size_t i = 0; i < K * m; i++) {
            s.chain[i] = i / m;
            s.block[i] = (unsigned)(i % m / 32);
            s.q[i * TC_NQ + TC_E] = gauss() + means[c][i / m];
            s.q[i * TC_NQ + TC_M2] = (double)(i / m); /* the chain it came from */
        }
        const int left = tc_keep_bridged(&s, 16);
        int intact = 1; /* every measurement still with its own chain's values */
        for (size_t i = 0; i < s.n; i++)
            intact = intact && s.q[i * TC_NQ + TC_M2] == (double)(s.chain[i] + (c ? 0 : 1)) &&
                     s.block[i] == (unsigned)(i % m / 32);
        const int r = tc_overlap(&s, 16, NULL, 0, NULL, NULL, NULL, NULL);
        printf("keep_bridged (%s): %d left out, %zu chains, %zu measurements, T in [%g, %g], "
               "overlap %d\n", c ? "a gap inside" : "gaps outside", left, s.n_chains, s.n,
               s.t_min, s.t_max, r);
        if (c == 0)
            CHECK(left == 2 && s.n_chains == 3 && s.n == 3 * m && intact && s.t_min == 2.0 &&
                      s.t_max == 2.2 && r == 0,
                  "outer gaps: %d left out, %zu chains, T in [%g, %g], intact %d, overlap %d",
                  left, s.n_chains, s.t_min, s.t_max, intact, r);
        else
            CHECK(left == 0 && s.n_chains == 4 && r == -1,
                  "a gap inside: %d left out, %zu chains, overlap %d", left, s.n_chains, r);
        free(s.block);
        release(&s);
    }
    return check_exit();
}
