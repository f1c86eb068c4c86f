/* test_kpm_series_cache.c — the coefficient sets that a kpm workspace keeps for the
 * occupation, its temperature derivatives and the action (plugins/kpm/kpm_series_cache.c):
 *
 *   (a) 600 calls in random order over 18 keys (the three kinds, 3 temperatures, 2 chemical
 *       potentials; twice the cache's slots, so sets are evicted and computed again), each
 *       with new random moments: every result (density, energy; their derivatives; action
 *       and its tail bound) equal bit for bit to the uncached function's;
 *   (b) the cache is used: hits and misses counted, misses at least the 18 keys and at
 *       most what the evictions allow, hits the rest;
 *   (c) keys differing in the last bit of T, mu, a or b, or in M, are different keys:
 *       each a miss, each result the uncached one's (a stale set would give other bits);
 *   (d) no cache (NULL) and an emptied one (kpm_series_cache_free, then used again) give
 *       the uncached bits. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kpm_core.h"
#include "kpm_test_util.h"

#define M 128

static void random_moments(mcf_rng *rng, double *mu)
{
    mu[0] = 1.0;
    for (size_t n = 1; n < M; n++)
        mu[n] = (2.0 * mcf_rng_uniform(rng) - 1.0) / (double)n;
}

/* one call of kind (1 occupation, 2 action, 3 occupation_dT), cached and not: the same
 * bits? */
static int same_bits(kpm_series_cache *cache, int kind, const double *mu, const double *g,
                     size_t m, double a, double b, double T, double mc)
{
    double x1[2], x2[2];
    if (kind == KPM_SERIES_OCCUPATION) {
        CHECK(kpm_occupation_cached(cache, mu, g, m, a, b, mc, T, x1, x1 + 1) == MCF_OK, "%s",
              mcf_last_error());
        CHECK(kpm_occupation(mu, g, m, a, b, mc, T, x2, x2 + 1) == MCF_OK, "%s",
              mcf_last_error());
    } else if (kind == KPM_SERIES_OCCUPATION_DT) {
        CHECK(kpm_occupation_dT_cached(cache, mu, g, m, a, b, mc, T, x1, x1 + 1) == MCF_OK,
              "%s", mcf_last_error());
        CHECK(kpm_occupation_dT(mu, g, m, a, b, mc, T, x2, x2 + 1) == MCF_OK, "%s",
              mcf_last_error());
    } else {
        CHECK(kpm_action_series_cached(cache, mu, m, a, b, T, mc, x1, x1 + 1) == MCF_OK, "%s",
              mcf_last_error());
        CHECK(kpm_action_series(mu, m, a, b, T, mc, x2, x2 + 1) == MCF_OK, "%s",
              mcf_last_error());
    }
    return !memcmp(x1, x2, sizeof x1);
}

int main(void)
{
    double mu[M], g[M];
    for (size_t n = 0; n < M; n++)
        g[n] = cos(3.14159265358979 * (double)n / (M + 1)); /* any weights do */
    mcf_rng rng;
    mcf_rng_init(&rng, 41, 0);
    const double a = 6.06, b = 0.0, Ts[3] = {0.08, 0.1, 0.12}, mus[2] = {-0.7, 0.3};

    /* (a), (b) */
    kpm_series_cache cache;
    memset(&cache, 0, sizeof cache);
    int all = 1, calls = 0;
    for (int q = 0; q < 600; q++) {
        const int kind = 1 + (int)(3.0 * mcf_rng_uniform(&rng));
        const double T = Ts[(int)(3.0 * mcf_rng_uniform(&rng))];
        const double mc = mus[(int)(2.0 * mcf_rng_uniform(&rng))];
        random_moments(&rng, mu);
        all &= same_bits(&cache, kind, mu, g, M, a, b, T, mc);
        calls++;
    }
    CHECK(all, "(a) a cached result differs from the uncached one");
    printf("(a) %d calls over 18 keys, %d slots: every result the uncached bits: %s\n", calls,
           KPM_SERIES_SLOTS, all ? "yes" : "NO");
    CHECK(cache.hits + cache.misses == (unsigned long)calls && cache.misses >= 18 &&
              cache.hits > (unsigned long)calls / 4,
          "(b) hits %lu, misses %lu over %d calls", cache.hits, cache.misses, calls);
    printf("(b) hits %lu, misses %lu\n", cache.hits, cache.misses);

    /* (c) keys one bit apart: each a miss and the uncached bits */
    const double T0 = 0.1, m0 = -0.7;
    const struct {
        const char *what;
        size_t m;
        double a, b, T, mu;
    } near[] = {{"T", M, a, b, nextafter(T0, 1.0), m0},
                {"mu", M, a, b, T0, nextafter(m0, 0.0)},
                {"a", M, nextafter(a, 7.0), b, T0, m0},
                {"b", M, a, nextafter(b, 1.0), T0, m0},
                {"M", M - 1, a, b, T0, m0}};
    for (int kind = 1; kind <= 3; kind++) {
        random_moments(&rng, mu);
        same_bits(&cache, kind, mu, g, M, a, b, T0, m0); /* the set of (T0, m0) is held */
        for (size_t k = 0; k < sizeof near / sizeof near[0]; k++) {
            const unsigned long miss = cache.misses;
            const int ok = same_bits(&cache, kind, mu, g, near[k].m, near[k].a, near[k].b,
                                     near[k].T, near[k].mu);
            CHECK(ok && cache.misses == miss + 1,
                  "(c) %s: a key one bit away from a held one %s", near[k].what,
                  ok ? "was a hit" : "gave other bits");
        }
    }
    printf("(c) keys one bit apart in T, mu, a, b, or M - 1 moments: misses, uncached bits\n");
    kpm_series_cache_free(&cache);

    /* (d) a NULL cache and a freed one behave as no cache */
    random_moments(&rng, mu);
    CHECK(same_bits(NULL, KPM_SERIES_ACTION, mu, g, M, a, b, T0, m0) &&
              same_bits(&cache, KPM_SERIES_OCCUPATION, mu, g, M, a, b, T0, m0),
          "(d) no cache or an emptied one gives other bits");
    kpm_series_cache_free(&cache);
    return check_exit();
}
