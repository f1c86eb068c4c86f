/* kpm_bench.h — what the KPM benchmarks (kpm_cpu, kpm_gpu) share: the CPU timing of
 * Chebyshev steps through mcf_kpm_core.  Include after bench_util.h and kpm_core.h. */
#ifndef MCF_KPM_BENCH_H
#define MCF_KPM_BENCH_H

/* Seconds for K Chebyshev steps (2 K moments) of B random-phase vectors on the CPU, best of
 * 3 (each from the stream (1, rep)); mu holds B x 2 K moments.  A negative value when
 * kpm_moments_diag failed (message in mcf_last_error). */
static inline double kpm_bench_cpu_steps(kpm_engine *e, const mcf_hamiltonian *h, double a,
                                         double b, size_t B, size_t K, double *mu)
{
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        mcf_rng rng;
        mcf_rng_init(&rng, 1, (uint64_t)rep);
        double *v = kpm_engine_start(e);
        for (size_t j = 0; j < B; j++)
            kpm_random_vector(&rng, KPM_RANDOM_PHASE, h->dim, B, j, v);
        const double t0 = now();
        if (kpm_moments_diag(e, h, a, b, B, 2 * K, mu))
            return -1.0;
        const double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

#endif
