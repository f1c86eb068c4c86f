/* kpm_series_cache.c — a workspace's memory of Chebyshev coefficient sets
 * (kpm_series_cache.h). */
#include "kpm_series_cache.h"

#include <stdlib.h>
#include <string.h>

/* keys compare bit for bit: a set is reused only for exactly the numbers it came from */
static int same(double x, double y) { return !memcmp(&x, &y, sizeof x); }

const double *kpm_series_find(kpm_series_cache *cache, int kind, size_t M, double a,
                              double b, double T, double mu, double *extra)
{
    if (!cache)
        return NULL;
    for (int s = 0; s < KPM_SERIES_SLOTS; s++) {
        kpm_series_slot *p = &cache->slot[s];
        if (p->kind == kind && p->M == M && same(p->a, a) && same(p->b, b) && same(p->T, T) &&
            same(p->mu, mu)) {
            p->used = ++cache->clock;
            cache->hits++;
            if (extra)
                *extra = p->extra;
            return p->c;
        }
    }
    cache->misses++;
    return NULL;
}

void kpm_series_keep(kpm_series_cache *cache, int kind, size_t M, double a, double b,
                     double T, double mu, const double *c, size_t n, double extra)
{
    if (!cache)
        return;
    kpm_series_slot *p = &cache->slot[0];
    for (int s = 1; s < KPM_SERIES_SLOTS; s++)
        if (cache->slot[s].used < p->used)
            p = &cache->slot[s];
    if (p->n < n) {
        double *q = realloc(p->c, n * sizeof *q);
        if (!q)
            return;
        p->c = q;
        p->n = n;
    }
    memcpy(p->c, c, n * sizeof *c);
    p->kind = kind;
    p->M = M;
    p->a = a;
    p->b = b;
    p->T = T;
    p->mu = mu;
    p->extra = extra;
    p->used = ++cache->clock;
}

void kpm_series_cache_free(kpm_series_cache *cache)
{
    if (!cache)
        return;
    for (int s = 0; s < KPM_SERIES_SLOTS; s++)
        free(cache->slot[s].c);
    memset(cache, 0, sizeof *cache);
}
