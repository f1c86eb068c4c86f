/* test_rng.c — mcf_rng: reproducibility, the Philox counter/key mapping, and the
 * distributions of the derived draws.
 *
 * Statistical checks use fixed seeds, so they are deterministic; each tolerance is 5
 * standard deviations of the estimator (derived in the comment at the check), so a
 * correct generator passes with probability ~ 1 - 6e-7 per check for any seed. */
#include "check.h"

#include "mcf/rng.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <Random123/philox.h>

#define N_STAT 1000000

/* Philox4x32-10 block `block` of stream `stream` of seed `seed`, straight from Random123
 * with the mapping documented in rng.c. */
static philox4x32_ctr_t reference_block(uint64_t seed, uint64_t stream, uint64_t block)
{
    philox4x32_ctr_t ctr = {{(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)stream,
                             (uint32_t)(stream >> 32)}};
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32(ctr, key);
}

static void test_known_answer(void)
{
    /* All-zero counter and key: the first word is the published Random123 known-answer
     * value 0x6627e8d5 (kat_vectors: philox4x32 10, zero ctr and key ->
     * 6627e8d5 e169c58d bc57ac4c 9b00dbd8). */
    philox4x32_ctr_t ref = reference_block(0, 0, 0);
    CHECK(ref.v[0] == 0x6627e8d5u, "Random123 gives %08x for the zero KAT", (unsigned)ref.v[0]);
    CHECK(ref.v[1] == 0xe169c58du && ref.v[2] == 0xbc57ac4cu && ref.v[3] == 0x9b00dbd8u,
          "Random123 zero KAT words 1..3: %08x %08x %08x", (unsigned)ref.v[1],
          (unsigned)ref.v[2], (unsigned)ref.v[3]);

    mcf_rng r;
    mcf_rng_init(&r, 0, 0);
    CHECK(r.used == 4 && r.counter == 0, "fresh state: used %u counter %llu", (unsigned)r.used,
          (unsigned long long)r.counter);
    for (int i = 0; i < 4; i++) {
        uint32_t w = mcf_rng_u32(&r);
        CHECK(w == (uint32_t)ref.v[i], "seed 0 stream 0 word %d: %08x, Philox %08x", i,
              (unsigned)w, (unsigned)ref.v[i]);
    }
    CHECK(r.counter == 1 && r.used == 4, "after one block: counter %llu used %u",
          (unsigned long long)r.counter, (unsigned)r.used);

    /* Every half of the key and of the counter in use: seed and stream with distinct
     * high and low words, block 5, then a block number above 2^32 (set directly in the
     * plain-data state, as a checkpoint restore would). */
    const uint64_t seed = UINT64_C(0x0123456789abcdef);
    const uint64_t stream = UINT64_C(0xfedcba9876543210);
    mcf_rng_init(&r, seed, stream);
    CHECK(r.key[0] == 0x89abcdefu && r.key[1] == 0x01234567u, "key %08x %08x",
          (unsigned)r.key[0], (unsigned)r.key[1]);
    for (int i = 0; i < 20; i++)
        (void)mcf_rng_u32(&r);
    philox4x32_ctr_t b5 = reference_block(seed, stream, 5);
    for (int i = 0; i < 4; i++) {
        uint32_t w = mcf_rng_u32(&r);
        CHECK(w == (uint32_t)b5.v[i], "block 5 word %d: %08x, Philox %08x", i, (unsigned)w,
              (unsigned)b5.v[i]);
    }
    const uint64_t big = (UINT64_C(1) << 32) + 3;
    r.counter = big;
    r.used = 4;
    philox4x32_ctr_t bb = reference_block(seed, stream, big);
    uint64_t u = mcf_rng_u64(&r);
    CHECK(u == (((uint64_t)bb.v[0] << 32) | bb.v[1]),
          "u64 of block 2^32+3 is (word0 << 32 | word1): %016llx", (unsigned long long)u);
    double x = mcf_rng_uniform(&r);
    uint64_t u2 = ((uint64_t)bb.v[2] << 32) | bb.v[3];
    CHECK(x == (double)(u2 >> 11) * 0x1p-53, "uniform = (u64 >> 11) 2^-53: %.17g", x);
}

static void test_reproducibility(void)
{
    enum { M = 1000 };
    static uint32_t a[M], b[M];
    mcf_rng r1, r2, r3;

    mcf_rng_init(&r1, 42, 7);
    mcf_rng_init(&r2, 42, 7);
    int same = 1;
    for (int i = 0; i < M; i++) {
        a[i] = mcf_rng_u32(&r1);
        if (mcf_rng_u32(&r2) != a[i])
            same = 0;
    }
    CHECK(same, "same (seed, stream) gives the same words");

    /* Re-initialised and advanced: the words from position 500 on are reproduced. */
    mcf_rng_init(&r1, 42, 7);
    for (int i = 0; i < 500; i++)
        (void)mcf_rng_u32(&r1);
    same = 1;
    for (int i = 500; i < M; i++)
        if (mcf_rng_u32(&r1) != a[i])
            same = 0;
    CHECK(same, "re-initialised stream advanced by 500 words reproduces the tail");

    /* A state copied byte for byte mid-block (odd position) continues identically. */
    mcf_rng_init(&r1, 42, 7);
    for (int i = 0; i < 333; i++)
        (void)mcf_rng_u32(&r1);
    memcpy(&r3, &r1, sizeof r1);
    same = 1;
    for (int i = 333; i < M; i++)
        if (mcf_rng_u32(&r3) != a[i])
            same = 0;
    CHECK(same, "memcpy'd state continues the stream");

    /* Different streams and different seeds: two independent sequences of 1000 uniform
     * 32-bit words agree at a position with probability 2^-32 each, so even one
     * coincidence is already suspicious; allow at most one. */
    int equal_stream = 0, equal_seed = 0;
    mcf_rng_init(&r2, 42, 8);
    mcf_rng_init(&r3, 43, 7);
    for (int i = 0; i < M; i++) {
        b[i] = mcf_rng_u32(&r2);
        equal_stream += b[i] == a[i];
        equal_seed += mcf_rng_u32(&r3) == a[i];
    }
    CHECK(equal_stream <= 1, "streams 7 and 8 agree in %d of %d words", equal_stream, M);
    CHECK(equal_seed <= 1, "seeds 42 and 43 agree in %d of %d words", equal_seed, M);
    /* Stream index and seed are not interchangeable. */
    mcf_rng_init(&r1, 7, 42);
    int swapped = 0;
    for (int i = 0; i < M; i++)
        swapped += mcf_rng_u32(&r1) == a[i];
    CHECK(swapped <= 1, "(seed 7, stream 42) vs (42, 7) agree in %d words", swapped);
}

static void test_uniform(void)
{
    mcf_rng r;
    mcf_rng_init(&r, 12345, 0);
    double s = 0, s2 = 0, lo = 1, hi = 0, lo_pos = 1;
    for (int i = 0; i < N_STAT; i++) {
        double u = mcf_rng_uniform(&r);
        s += u;
        s2 += u * u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    const double n = N_STAT;
    const double mean = s / n, var = s2 / n - mean * mean;
    /* Mean of N uniforms: variance 1/(12 N).  Sample variance (1/N) sum (u - mean)^2:
     * Var = (mu_4 - sigma^4)/N + O(1/N^2) with mu_4 = 1/80, sigma^4 = 1/144, so
     * Var = (1/80 - 1/144)/N = 1/(180 N). */
    const double sd_mean = sqrt(1.0 / (12.0 * n)), sd_var = sqrt(1.0 / (180.0 * n));
    CHECK(fabs(mean - 0.5) < 5 * sd_mean, "uniform mean %.6f, expected 0.5 +- %.2g", mean,
          5 * sd_mean);
    CHECK(fabs(var - 1.0 / 12) < 5 * sd_var, "uniform variance %.6f, expected %.6f +- %.2g",
          var, 1.0 / 12, 5 * sd_var);
    CHECK(lo >= 0.0 && hi < 1.0, "uniform range [%g, %g]", lo, hi);

    double ps = 0;
    for (int i = 0; i < N_STAT; i++) {
        double u = mcf_rng_uniform_pos(&r);
        ps += u;
        lo_pos = u < lo_pos ? u : lo_pos;
        if (!(u > 0.0 && u < 1.0)) {
            CHECK(u > 0.0 && u < 1.0, "uniform_pos gave %.17g", u);
            break;
        }
    }
    CHECK(fabs(ps / n - 0.5) < 5 * sd_mean, "uniform_pos mean %.6f", ps / n);

    /* The extreme words map to the documented extremes. */
    mcf_rng z;
    mcf_rng_init(&z, 0, 0);
    z.used = 0;
    z.buffer[0] = z.buffer[1] = 0;
    z.buffer[2] = z.buffer[3] = 0xffffffffu;
    CHECK(mcf_rng_uniform_pos(&z) == 0x1p-54, "uniform_pos of a zero word is 2^-54");
    CHECK(mcf_rng_uniform(&z) == 1.0 - 0x1p-53, "uniform of all ones is 1 - 2^-53");
}

static void test_below(void)
{
    enum { K = 7 };
    mcf_rng r;
    mcf_rng_init(&r, 2024, 3);
    long count[K] = {0};
    int out_of_range = 0;
    for (int i = 0; i < N_STAT; i++) {
        uint64_t v = mcf_rng_below(&r, K);
        if (v >= K)
            out_of_range++;
        else
            count[v]++;
    }
    CHECK(out_of_range == 0, "below(7) gave %d values >= 7", out_of_range);
    /* Pearson chi-square with K - 1 = 6 degrees of freedom against equal probabilities. */
    double chi2 = 0, expect = (double)N_STAT / K;
    for (int k = 0; k < K; k++)
        chi2 += (count[k] - expect) * (count[k] - expect) / expect;
    double p = gsl_cdf_chisq_Q(chi2, K - 1);
    CHECK(p > 1e-4, "below(7): chi2 = %.3f with 6 dof, p = %.3g", chi2, p);

    /* n above 2^32 (u64 rejection path): range and mean.  Uniform on [0, n) has mean
     * (n-1)/2 and variance (n^2-1)/12, so the mean of M draws has sd n/sqrt(12 M). */
    const uint64_t big = UINT64_C(3) << 40;
    const int M = 100000;
    double s = 0;
    out_of_range = 0;
    for (int i = 0; i < M; i++) {
        uint64_t v = mcf_rng_below(&r, big);
        out_of_range += v >= big;
        s += (double)v;
    }
    const double sd = (double)big / sqrt(12.0 * M);
    CHECK(out_of_range == 0, "below(3*2^40) gave %d values out of range", out_of_range);
    CHECK(fabs(s / M - ((double)big - 1) / 2) < 5 * sd, "below(3*2^40) mean %.6g, expected %.6g",
          s / M, ((double)big - 1) / 2);

    /* Edge cases: n = 0 and 1 give 0; n = 2^32 is one whole word. */
    CHECK(mcf_rng_below(&r, 0) == 0, "below(0) = 0");
    CHECK(mcf_rng_below(&r, 1) == 0, "below(1) = 0");
    mcf_rng a, b;
    mcf_rng_init(&a, 5, 5);
    mcf_rng_init(&b, 5, 5);
    CHECK(mcf_rng_below(&a, UINT64_C(1) << 32) == mcf_rng_u32(&b), "below(2^32) = u32");
    /* n = 2^31 + 1 rejects almost half the words; still in range and unbiased in mean. */
    const uint64_t half = (UINT64_C(1) << 31) + 1;
    s = 0;
    out_of_range = 0;
    for (int i = 0; i < M; i++) {
        uint64_t v = mcf_rng_below(&r, half);
        out_of_range += v >= half;
        s += (double)v;
    }
    CHECK(out_of_range == 0, "below(2^31+1) out of range %d times", out_of_range);
    CHECK(fabs(s / M - ((double)half - 1) / 2) < 5 * (double)half / sqrt(12.0 * M),
          "below(2^31+1) mean %.6g", s / M);
}

static void test_normal(void)
{
    mcf_rng r;
    mcf_rng_init(&r, 99, 1);
    double s = 0, s2 = 0, s4 = 0;
    int bad = 0;
    for (int i = 0; i < N_STAT; i++) {
        double x = mcf_rng_normal(&r);
        if (!isfinite(x))
            bad++;
        s += x;
        s2 += x * x;
        s4 += x * x * x * x;
    }
    const double n = N_STAT;
    const double mean = s / n, var = s2 / n - mean * mean;
    /* Mean: sd 1/sqrt(N).  Sample variance: Var = (mu_4 - 1)/N = 2/N.
     * Fourth moment <x^4> = 3 with Var(x^4) = <x^8> - 9 = 105 - 9 = 96, sd sqrt(96/N):
     * this catches a Box-Muller with the wrong radius law. */
    CHECK(bad == 0, "normal gave %d non-finite values", bad);
    CHECK(fabs(mean) < 5 / sqrt(n), "normal mean %.5f, expected 0 +- %.2g", mean, 5 / sqrt(n));
    CHECK(fabs(var - 1) < 5 * sqrt(2 / n), "normal variance %.5f, expected 1 +- %.2g", var,
          5 * sqrt(2 / n));
    CHECK(fabs(s4 / n - 3) < 5 * sqrt(96 / n), "normal <x^4> %.4f, expected 3 +- %.2g", s4 / n,
          5 * sqrt(96 / n));
}

static void test_unit_vector(void)
{
    mcf_rng r;
    mcf_rng_init(&r, 7, 77);
    double worst = 0, sz = 0, sz2 = 0, sx = 0, sx2 = 0, sxy = 0;
    for (int i = 0; i < N_STAT; i++) {
        double v[3];
        mcf_rng_unit_vector(&r, v);
        double d = fabs(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - 1.0);
        worst = d > worst ? d : worst;
        sz += v[2];
        sz2 += v[2] * v[2];
        sx += v[0];
        sx2 += v[0] * v[0];
        sxy += v[0] * v[1];
    }
    const double n = N_STAT;
    CHECK(worst <= 1e-15, "max ||v| - 1| = %.3g", worst);
    /* Uniform on S^2: each component is uniform on [-1, 1] (Archimedes), so <v_a> = 0 with
     * variance 1/3, and <v_a^2> = 1/3 with variance <v_a^4> - 1/9 = 1/5 - 1/9 = 4/45.
     * <v_x v_y> = 0 with variance <v_x^2 v_y^2> = 1/15. */
    const double sd1 = sqrt(1.0 / (3 * n)), sd2 = sqrt(4.0 / (45 * n));
    CHECK(fabs(sz / n) < 5 * sd1, "<v_z> = %.5f, expected 0 +- %.2g", sz / n, 5 * sd1);
    CHECK(fabs(sz2 / n - 1.0 / 3) < 5 * sd2, "<v_z^2> = %.5f, expected 1/3 +- %.2g", sz2 / n,
          5 * sd2);
    CHECK(fabs(sx / n) < 5 * sd1, "<v_x> = %.5f", sx / n);
    CHECK(fabs(sx2 / n - 1.0 / 3) < 5 * sd2, "<v_x^2> = %.5f, expected 1/3", sx2 / n);
    CHECK(fabs(sxy / n) < 5 * sqrt(1.0 / (15 * n)), "<v_x v_y> = %.5f", sxy / n);
}

static void test_stream_independence(void)
{
    /* Pearson correlation of N pairs (stream 0, stream 1) of uniforms.  For independent
     * streams sqrt(N) r is asymptotically standard normal, so |r| < 5/sqrt(N).  Lag-1
     * correlation within stream 0 likewise. */
    mcf_rng a, b;
    mcf_rng_init(&a, 31415, 0);
    mcf_rng_init(&b, 31415, 1);
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, slag = 0, prev = 0;
    for (int i = 0; i < N_STAT; i++) {
        double x = mcf_rng_uniform(&a), y = mcf_rng_uniform(&b);
        sa += x;
        sb += y;
        saa += x * x;
        sbb += y * y;
        sab += x * y;
        if (i > 0)
            slag += (x - 0.5) * (prev - 0.5);
        prev = x;
    }
    const double n = N_STAT;
    double cov = sab / n - (sa / n) * (sb / n);
    double r = cov / sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
    CHECK(fabs(r) < 5 / sqrt(n), "corr(stream 0, stream 1) = %.2e, bound %.2e", r,
          5 / sqrt(n));
    double rlag = (slag / (n - 1)) * 12.0; /* variance 1/12 known exactly */
    CHECK(fabs(rlag) < 5 / sqrt(n), "lag-1 autocorrelation in stream 0 = %.2e", rlag);
}

int main(void)
{
    test_known_answer();
    test_reproducibility();
    test_uniform();
    test_below();
    test_normal();
    test_unit_vector();
    test_stream_independence();
    return check_exit();
}
