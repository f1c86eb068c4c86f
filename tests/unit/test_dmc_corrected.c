/* test_dmc_corrected.c — DMC's energy corrected for the population factors
 * (core/engine/dmc_history.c: mcfi_dmc_corrected) on histories whose answers are exact:
 *   (a) every log product 0: the corrected energy is the plain mean, bit for bit, their
 *       difference and its error 0, and the jackknife error of the mean that of 32 block
 *       means of a known spread;
 *   (b) rows alternating E = 1 with log product log 3 and E = 0 with 0: corrected 3/4, plain
 *       1/2, difference 1/4; every block holds one of each, so every error is 0;
 *   (c) thermalizing rows (sweep <= from) with E = 100 and huge products change nothing;
 *   (d) products near 1000 (e^1000 overflows a double): the weights are taken relative to
 *       the largest, (e E_1 + E_2) / (e + 1);
 *   (e) random rows: the corrected energy against the sum done here, 1e-14 relative;
 *   (f) fewer measured rows than blocks, or fewer than 2 blocks: MCF_EINVAL. */
#include "check.h"
#include "dmc.h"
#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>

/* a history of n rows: row i at sweep i + 1 with energy e[i] and log product s[i] */
static mcfi_dmc_history make(size_t n, const double *e, const double *s)
{
    mcfi_dmc_history h = {0};
    CHECK(mcfi_dmc_history_reserve(&h, n) == MCF_OK, "reserve %zu rows", n);
    h.n = n;
    for (size_t i = 0; i < n; i++) {
        double *x = h.rows + i * MCFI_DMC_HIST;
        for (int c = 0; c < MCFI_DMC_HIST; c++)
            x[c] = 0.0;
        x[0] = (double)(i + 1);
        x[1] = e[i];
        x[6] = s[i];
    }
    return h;
}

int main(void)
{
    enum { N = 64 };
    double e[N + 10], s[N + 10], out[5];
    /* (a) */
    for (size_t i = 0; i < N; i++)
        e[i] = (i / 2) % 2 ? 1.0 : -1.0, s[i] = 0.0; /* block means: -1, 1, -1, ... */
    mcfi_dmc_history h = make(N, e, s);
    CHECK(mcfi_dmc_corrected(&h, 0.0, 32, out) == MCF_OK, "(a) refused");
    /* 32 block means +-1 with mean 0: jackknife error sqrt(31/32 * 32 (2/31)^2 ...) = the
       standard error of the mean of 32 values of variance 32/31, i.e. sqrt(1/31) */
    CHECK(out[0] == 0.0 && out[1] == out[0] && out[3] == 0.0 && out[4] == 0.0 &&
              fabs(out[2] - sqrt(1.0 / 31.0)) < 1e-14,
          "(a) plain %g corrected %g +- %g, difference %g +- %g (want 0, 0 +- %.15g, 0 +- 0)",
          out[0], out[1], out[2], out[3], out[4], sqrt(1.0 / 31.0));
    free(h.rows);
    /* (b) */
    for (size_t i = 0; i < N; i++)
        e[i] = i % 2 ? 0.0 : 1.0, s[i] = i % 2 ? 0.0 : log(3.0);
    h = make(N, e, s);
    CHECK(mcfi_dmc_corrected(&h, 0.0, 32, out) == MCF_OK, "(b) refused");
    CHECK(fabs(out[0] - 0.5) < 1e-15 && fabs(out[1] - 0.75) < 1e-15 &&
              fabs(out[3] - 0.25) < 1e-15 && out[2] < 1e-14 && out[4] < 1e-14,
          "(b) plain %.17g corrected %.17g +- %g, difference %.17g +- %g", out[0], out[1],
          out[2], out[3], out[4]);
    free(h.rows);
    /* (c): 10 thermalizing rows first, then (b)'s */
    for (size_t i = 0; i < N + 10; i++) {
        const size_t k = i < 10 ? 0 : i - 10;
        e[i] = i < 10 ? 100.0 : k % 2 ? 0.0 : 1.0;
        s[i] = i < 10 ? 50.0 : k % 2 ? 0.0 : log(3.0);
    }
    h = make(N + 10, e, s);
    CHECK(mcfi_dmc_corrected(&h, 10.0, 32, out) == MCF_OK &&
              fabs(out[0] - 0.5) < 1e-15 && fabs(out[1] - 0.75) < 1e-15,
          "(c) with thermalizing rows: plain %.17g corrected %.17g", out[0], out[1]);
    free(h.rows);
    /* (d) */
    for (size_t i = 0; i < N; i++)
        e[i] = i % 2 ? 2.0 : 5.0, s[i] = i % 2 ? 999.0 : 1000.0;
    h = make(N, e, s);
    const double want = (exp(1.0) * 5.0 + 2.0) / (exp(1.0) + 1.0);
    CHECK(mcfi_dmc_corrected(&h, 0.0, 32, out) == MCF_OK && fabs(out[1] - want) < 1e-14,
          "(d) products near 1000: %.17g, want %.17g", out[1], want);
    free(h.rows);
    /* (e) */
    unsigned long long x = 0x9e3779b97f4a7c15ULL;
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        e[i] = (double)(x >> 11) * 0x1p-53 - 0.5;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        s[i] = 3.0 * ((double)(x >> 11) * 0x1p-53 - 0.5);
        num += exp(s[i]) * e[i];
        den += exp(s[i]);
    }
    h = make(N, e, s);
    CHECK(mcfi_dmc_corrected(&h, 0.0, 8, out) == MCF_OK &&
              fabs(out[1] - num / den) <= 1e-14 * fabs(num / den) && out[2] > 0.0 &&
              out[4] > 0.0,
          "(e) random rows: %.17g, want %.17g (errors %g, %g)", out[1], num / den, out[2],
          out[4]);
    /* (f) */
    CHECK(mcfi_dmc_corrected(&h, 0.0, 65, out) == MCF_EINVAL, "(f) 64 rows in 65 blocks");
    CHECK(mcfi_dmc_corrected(&h, 0.0, 1, out) == MCF_EINVAL, "(f) one block");
    CHECK(mcfi_dmc_corrected(&h, 64.0, 2, out) == MCF_EINVAL, "(f) no measured row");
    free(h.rows);
    return check_exit();
}
