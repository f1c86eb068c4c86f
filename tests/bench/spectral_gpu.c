/* spectral_gpu.c — benchmark of the moments of given vectors on the GPU (issue 47: kpm-cuda's
 * vector_moments, kpm_cuda_vmoments.cu, what A(k, E) over a run costs at each measurement)
 * against the device's copy bandwidth and the host's path (kpm_vector_moments_host, all
 * threads) for the same vectors.
 *
 * Usage: build/tests/bench/spectral_gpu [L:M ...]   (default 16:256 32:256 64:256; Anderson
 *        on periodic L^3 cubes, W = 1; the Bloch states of the path G X M G R X, two copies
 *        of each as the double exchange's two spins: 2 (5 L / 2 + 1) vectors)
 * Environment: SPECTRAL_BENCH_CPU_L (largest L run on the host too, default 32; 0: none).
 *
 * Method.  The device layer directly (kcu_vmoments_run, synchronous: uploads, products and
 * sums), best of 3 after one warm-up call.  Bytes as a step must move them per vector: the
 * table (6 slots x 20 B + 8 B a row; each vector's blocks read it, from L2 when it fits),
 * x, p and y (16 B a row each), ceil(M / 2) steps; against the device-to-device copy rate
 * (kcu_copy_bandwidth).  The host runs M - 1 products a vector (no doubling: kpm's path), so
 * the speedup includes the factor ~2 of the doubling identities. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_ops.h"
#include "mcf/mcf.h"

static int one(long L, size_t M, long cpu_L, double bw, int quiet)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    mcf_kpath *path = NULL;
    if (mcf_lattice_create(MCF_LATTICE_CUBIC, L, MCF_BOUNDARY_PERIODIC, &lat) ||
        mcf_hamiltonian_create(lat->sites, 1, 6, &h) ||
        mcf_hamiltonian_set_hopping(h, lat, 1.0) || mcf_kpath_create(lat, "auto", NULL, &path))
        return fprintf(stderr, "spectral_gpu: L = %ld: %s\n", L, mcf_last_error()), 1;
    mcf_rng rng;
    mcf_rng_init(&rng, 47, (uint64_t)L);
    for (size_t i = 0; i < lat->sites; i++)
        mcf_hamiltonian_set_onsite(h, i, mcf_rng_uniform(&rng) - 0.5);
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    const double a = 0.5 * (hi - lo) * 1.01, b = 0.5 * (hi + lo);
    const size_t dim = h->dim, nv = 2 * path->points;
    double *v = malloc(2 * nv * dim * sizeof *v), *mu = malloc(nv * M * sizeof *mu);
    for (size_t j = 0; v && j < nv; j++)
        mcf_bloch_vector(lat, path->k + 3 * (j / 2), 1, 0, NULL, v + 2 * j * dim);
    kcu_ham *dh = NULL;
    kcu_vmoments *s = NULL;
    if (!v || !mu || kcu_ham_load(&dh, h) || kcu_vmoments_create(dim, M, &s))
        return fprintf(stderr, "spectral_gpu: L = %ld: %s\n", L, mcf_last_error()), 1;
    double best = INFINITY;
    for (int rep = 0; rep < (quiet ? 1 : 4); rep++) {
        const double t0 = now();
        if (kcu_vmoments_run(s, dh, a, b, M, nv, v, mu))
            return fprintf(stderr, "spectral_gpu: %s\n", mcf_last_error()), 1;
        if (rep > 0 || quiet)
            best = fmin(best, now() - t0);
    }
    const size_t steps = (M + 1) / 2;
    const double bytes = (double)nv * (double)steps * (double)dim * (6.0 * 20.0 + 8.0 + 48.0);
    double cpu = NAN, dmax = 0.0;
    if (!quiet && L <= cpu_L) {
        double *mc = malloc(nv * M * sizeof *mc);
        const double t0 = now();
        if (!mc || kpm_vector_moments_host("host", h, a, b, M, nv, v, mc))
            return fprintf(stderr, "spectral_gpu: %s\n", mcf_last_error()), 1;
        cpu = now() - t0;
        for (size_t q = 0; q < nv * M; q++)
            dmax = fmax(dmax, fabs(mc[q] - mu[q]));
        free(mc);
    }
    if (!quiet) {
        printf("L %ld  dim %zu  M %zu  %zu vectors (%zu wave vectors x 2)\n", L, dim, M, nv,
               path->points);
        printf("  device %8.4f s (%.3f ms a vector)  %7.2f GB  %7.1f GB/s  %5.1f %% of copy\n",
               best, 1e3 * best / (double)nv, bytes / 1e9, bytes / best / 1e9,
               100.0 * bytes / best / 1e9 / bw);
        printf("  mu_0 = %.15f (|v|^2 = 1), mu_1 = %.6f\n", mu[0], mu[1]);
        if (L <= cpu_L)
            printf("  CPU (kpm_vector_moments_host, %d threads) %.3f s: speedup %.1fx; largest "
                   "|GPU - CPU| %.2e\n", max_threads(), cpu, cpu / best, dmax);
    }
    free(v);
    free(mu);
    kcu_vmoments_destroy(s);
    kcu_ham_destroy(dh);
    mcf_kpath_destroy(path);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
    return 0;
}

int main(int argc, char **argv)
{
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    const char *ec = getenv("SPECTRAL_BENCH_CPU_L");
    const long cpu_L = ec ? atol(ec) : 32;
    const double bw = kcu_copy_bandwidth((size_t)1 << 30, 5);
    printf("device: %s; copy %.1f GB/s\n", why, bw);
    const char *def[] = {"16:256", "32:256", "64:256"};
    const int n = argc > 1 ? argc - 1 : 3;
    one(8, 16, 0, bw, 1); /* warm-up: the context, the kernels */
    for (int i = 0; i < n; i++) {
        const char *arg = argc > 1 ? argv[i + 1] : def[i];
        long L = 0, M = 0;
        if (sscanf(arg, "%ld:%ld", &L, &M) != 2 || L < 3 || M < 1)
            return fprintf(stderr, "spectral_gpu: '%s' is not L:M\n", arg), 1;
        if (one(L, (size_t)M, cpu_L, bw, 0))
            return 1;
        fflush(stdout);
    }
    return 0;
}
