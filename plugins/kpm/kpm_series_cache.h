/* kpm_series_cache.h — a workspace's memory of Chebyshev coefficient sets (kpm_series_cache.c).
 * Part of mcf_kpm_core, not installed.
 *
 * The occupation (kpm_occupation_cached), its temperature derivatives
 * (kpm_occupation_dT_cached) and the action (kpm_action_series_cached) expand a
 * function of the energy that depends on M, the scaling a, b, the temperature and the
 * chemical potential, not on H: its coefficients cost an FFT and K function values (K =
 * 1024-2048 nodes), the sum with the moments only M products.  A chain's H keeps its
 * bounds (the models fix them), so the same few sets come back at every measurement and
 * tempering exchange; the cache keeps the last KPM_SERIES_SLOTS of them, keyed by exactly
 * these numbers (bit for bit), and a hit gives the bits a fresh computation would. */
#ifndef MCF_KPM_SERIES_CACHE_H
#define MCF_KPM_SERIES_CACHE_H

#include <stddef.h>

/* sets kept per workspace: its own temperature and its two tempering neighbours', for the
 * occupation, its derivatives and the action */
#define KPM_SERIES_SLOTS 9

enum { KPM_SERIES_OCCUPATION = 1, KPM_SERIES_ACTION = 2, KPM_SERIES_OCCUPATION_DT = 3 };

typedef struct kpm_series_slot {
    int kind;              /* 0: empty */
    size_t M, n;           /* the moments, and how many doubles c holds */
    double a, b, T, mu;
    double extra;          /* a number that goes with the set (the action's tail bound) */
    double *c;
    unsigned long used;    /* the cache's clock at the last use (least recent is replaced) */
} kpm_series_slot;

typedef struct kpm_series_cache {
    kpm_series_slot slot[KPM_SERIES_SLOTS];
    unsigned long clock;
    unsigned long hits, misses;  /* for tests and benchmarks */
} kpm_series_cache;

/* The set of this kind and key (its n doubles, and *extra when not NULL), or NULL when the
 * cache does not hold it (or cache is NULL). */
const double *kpm_series_find(kpm_series_cache *cache, int kind, size_t M, double a,
                              double b, double T, double mu, double *extra);

/* Keeps a copy of the n doubles c (and extra) under this key, replacing the least recently
 * used set.  Nothing when cache is NULL or out of memory (the cache only saves time). */
void kpm_series_keep(kpm_series_cache *cache, int kind, size_t M, double a, double b,
                     double T, double mu, const double *c, size_t n, double extra);

/* Frees the sets; the cache is empty (and may be reused) afterwards.  NULL: nothing. */
void kpm_series_cache_free(kpm_series_cache *cache);

#endif
