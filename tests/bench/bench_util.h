/* bench_util.h — what the CPU benchmarks share: a monotonic clock, OpenMP thread control,
 * the last-level cache size, and the STREAM-"copy" bandwidth that is the limit every
 * memory-bound kernel is compared with. */
#ifndef MCF_BENCH_UTIL_H
#define MCF_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* STREAM copy c[i] = a[i] over two caller-owned arrays of n doubles (first touched by the
 * current threads): GB/s (1e9 bytes, 16 bytes per element), best of reps. */
static inline double copy_bandwidth_of(double *a, double *c, size_t n, int reps)
{
    const long nl = (long)n;
    double best = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        const double t0 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < nl; i++)
            c[i] = a[i];
        const double t = now() - t0;
        if (t < best)
            best = t;
        a[rep % nl] += c[n - 1 - (size_t)rep % n]; /* keep the copies observable */
    }
    return 16.0 * (double)n / best / 1e9;
}

/* Two arrays of n doubles for copy_bandwidth_of, first touched by the current threads;
 * free both with free().  0 when out of memory. */
static inline int copy_arrays(size_t n, double **a, double **c)
{
    *a = malloc(n * sizeof **a);
    *c = malloc(n * sizeof **c);
    if (!*a || !*c) {
        free(*a);
        free(*c);
        return 0;
    }
    const long nl = (long)n;
    double *pa = *a, *pc = *c;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < nl; i++) {
        pa[i] = 1.0 + (double)i;
        pc[i] = 0.0;
    }
    return 1;
}

/* STREAM copy bandwidth in GB/s (1e9 bytes) with the current thread count, best of 5 */
static inline double copy_bandwidth(size_t n)
{
    double *a, *c;
    if (!copy_arrays(n, &a, &c))
        return 0.0;
    const double bw = copy_bandwidth_of(a, c, n, 5);
    free(a);
    free(c);
    return bw;
}

/* The CPU's model name from /proc/cpuinfo ("unknown" elsewhere) into buf. */
static inline void bench_cpu_name(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) {
            const char *c = strchr(line, ':');
            snprintf(buf, size, "%s", c ? c + 2 : line);
            buf[strcspn(buf, "\n")] = 0;
            break;
        }
    fclose(f);
}

/* Doubles per array of the copy test: 4 x the last-level cache, at least 256 MiB. */
static inline size_t bench_copy_len(void)
{
    size_t n = 4 * llc_bytes() / sizeof(double);
    if (n < ((size_t)256 << 20) / sizeof(double))
        n = ((size_t)256 << 20) / sizeof(double);
    return n;
}

/* Prints "<prog>: <cpu>, <cores> cores, last-level cache ..." and, unless the environment
 * variable skip_env is "0", the copy bandwidth with each of the nT thread counts into
 * bw[t] (left NAN when skipped). */
static inline void bench_machine(const char *prog, const char *skip_env, const int *threads,
                                 int nT, double *bw)
{
    char cpu[512];
    bench_cpu_name(cpu, sizeof cpu);
    const size_t ncopy = bench_copy_len();
    printf("%s: %s, %d cores, last-level cache %.0f MiB\n", prog, cpu, threads[nT - 1],
           (double)llc_bytes() / 1048576.0);
    const char *ec = getenv(skip_env);
    for (int t = 0; t < nT && !(ec && !strcmp(ec, "0")); t++) {
        set_threads(threads[t]);
        bw[t] = copy_bandwidth(ncopy);
        printf("copy bandwidth (STREAM copy, 2 x %.0f MiB), %d thread%s: %.2f GB/s\n",
               (double)ncopy * 8.0 / 1048576.0, threads[t], threads[t] > 1 ? "s" : "",
               bw[t]);
    }
}

#endif
