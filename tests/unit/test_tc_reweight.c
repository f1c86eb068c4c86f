/* test_tc_reweight — the solution of the reweighting equations (core/program/tc_reweight.c)
 * on a density of states known in closed form: g(E) = exp(-E^2 / (2 s^2)), s = 10, so that at
 * beta the energy is Gaussian with mean -beta s^2 and width s, and ln Z(beta) = const + beta^2
 * s^2 / 2.  Five chains at beta = 0.5, 0.8, ..., 1.7, 4000 independent measurements each:
 * neighbours 3 standard deviations apart (the overlap mcf tc still accepts), 4 blocks.
 * (a) Newton's method, then at most 3 fixed-point passes: converged (the passes confirm it:
 *     every ln Z changes by < 1e-9), where the fixed point alone is not after 3 -- nor after
 *     300 (measured: it needs thousands here);
 * (b) the fixed point alone, given 10^6 passes, reaches the same ln Z: to 1e-6 (its own
 *     stopping rule, a change < 1e-9 a pass, leaves ~1e-9 / (1 - rate) with a rate near 1);
 * (c) the ln Z differences against the closed form (beta_k^2 - beta_0^2) s^2 / 2, within 4
 *     of their statistical error, estimated as the spread of the same difference over the
 *     4 jackknife samples (each solved by Newton from the full sample's answer). */
#include "check.h"
#include "tc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 2685821657736338717ull;
static double uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return ((double)((rng * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

enum { K = 5, PER = 4000, BLOCKS = 16 };
static const double S = 10.0;

static void make(tc_size *s)
{
    memset(s, 0, sizeof *s);
    s->L = 8;
    s->units = 1.0;
    s->n_chains = K;
    s->n = (size_t)K * PER;
    s->beta = malloc(K * sizeof *s->beta);
    s->q = calloc(s->n * TC_NQ, sizeof *s->q);
    s->chain = malloc(s->n * sizeof *s->chain);
    s->block = malloc(s->n * sizeof *s->block);
    s->count = calloc((size_t)K * (BLOCKS + 1), sizeof *s->count);
    s->lnz = calloc((size_t)K * (BLOCKS + 1), sizeof *s->lnz);
    s->logden = calloc(s->n * (BLOCKS + 1), sizeof *s->logden);
    for (size_t k = 0; k < K; k++)
        s->beta[k] = 0.5 + 0.3 * (double)k;
    for (size_t n = 0; n < s->n; n++) {
        const size_t k = n / PER;
        s->chain[n] = k;
        s->block[n] = (unsigned)((n % PER) * BLOCKS / PER);
        s->q[n * TC_NQ + TC_E] = -s->beta[k] * S * S + S * gauss();
        for (size_t j = 0; j <= BLOCKS; j++)
            s->count[k * (BLOCKS + 1) + j] += j == 0 || s->block[n] != j - 1;
    }
}

static void release(tc_size *s)
{
    free(s->beta), free(s->q), free(s->chain), free(s->block);
    free(s->count), free(s->lnz), free(s->logden);
}

int main(void)
{
    const size_t J = BLOCKS + 1;
    tc_size a, b;
    make(&a);
    rng = 2685821657736338717ull;
    make(&b);
    /* (a) */
    const int newton_ok = tc_reweight_solve(&a, BLOCKS, 0, 100, 3) == 0;
    CHECK(newton_ok, "(a) Newton, then 3 fixed-point passes: converged");
    const int fp3 = tc_reweight_solve(&b, BLOCKS, 0, 0, 3) == 0;
    CHECK(!fp3, "(a) the fixed point alone after 3 passes: not converged (a hard case)");
    const int fp300 = tc_reweight_solve(&b, BLOCKS, 0, 0, 300) == 0;
    CHECK(!fp300, "(a) the fixed point alone after 300 more: not converged");
    /* (b) */
    const int fp = tc_reweight_solve(&b, BLOCKS, 0, 0, 1000000) == 0;
    double worst = 0.0;
    for (size_t k = 0; k < K; k++)
        worst = fmax(worst, fabs(a.lnz[k * J] - b.lnz[k * J]));
    printf("(b) largest |ln Z (Newton) - ln Z (fixed point)| = %.3g\n", worst);
    CHECK(fp && worst < 1e-6, "(b) the fixed point converges to Newton's ln Z (%.2g)", worst);
    /* (c) */
    for (size_t j = 1; j <= BLOCKS; j++) {
        for (size_t k = 0; k < K; k++)
            a.lnz[k * J + j] = a.lnz[k * J];
        CHECK(tc_reweight_solve(&a, BLOCKS, j, 100, 3) == 0, "(c) jackknife sample %zu", j);
    }
    for (size_t k = 1; k < K; k++) {
        const double exact = 0.5 * S * S * (a.beta[k] * a.beta[k] - a.beta[0] * a.beta[0]);
        const double got = a.lnz[k * J] - a.lnz[0];
        double mean = 0.0, var = 0.0;
        for (size_t j = 1; j <= BLOCKS; j++)
            mean += (a.lnz[k * J + j] - a.lnz[j]) / BLOCKS;
        for (size_t j = 1; j <= BLOCKS; j++) {
            const double d = a.lnz[k * J + j] - a.lnz[j] - mean;
            var += d * d;
        }
        const double err = sqrt(var * (BLOCKS - 1.0) / BLOCKS);
        printf("(c) ln Z(%.1f) - ln Z(0.5) = %.4f +- %.4f, exact %.4f\n", a.beta[k], got, err,
               exact);
        CHECK(err > 0 && fabs(got - exact) < 4.0 * err, "(c) beta = %.1f: %.1f error bars off",
              a.beta[k], fabs(got - exact) / err);
    }
    release(&a);
    release(&b);
    return check_exit();
}
