/* bench_util.h — what the CPU benchmarks share: a monotonic clock, OpenMP thread control,
 * the last-level cache size, and the STREAM-"copy" bandwidth that is the limit every
 * memory-bound kernel is compared with. */
#ifndef MCF_BENCH_UTIL_H
#define MCF_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static inline int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

static inline size_t llc_bytes(void)
{
    long s = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    s = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (s <= 0) {
        FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
        if (f) {
            long k = 0;
            char unit = 0;
            if (fscanf(f, "%ld%c", &k, &unit) >= 1)
                s = unit == 'M' ? k << 20 : k << 10;
            fclose(f);
        }
    }
    return s > 0 ? (size_t)s : (size_t)32 << 20;
}

/* STREAM copy bandwidth in GB/s (1e9 bytes) with the current thread count */
static inline double copy_bandwidth(size_t n)
{
    double *a = malloc(n * sizeof *a), *c = malloc(n * sizeof *c);
    if (!a || !c) {
        free(a);
        free(c);
        return 0.0;
    }
    const long nl = (long)n;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < nl; i++) {
        a[i] = 1.0 + (double)i;
        c[i] = 0.0;
    }
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        const double t0 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < nl; i++)
            c[i] = a[i];
        const double t = now() - t0;
        if (t < best)
            best = t;
        a[rep] += c[n - 1 - (size_t)rep]; /* keep the copies observable */
    }
    free(a);
    free(c);
    return 16.0 * (double)n / best / 1e9;
}

#endif
