/* response_gpu.c — benchmark of the two-dimensional Chebyshev moments on the GPU (issue 47:
 * kpm-cuda's response, kpm_cuda_response.cu) against the device's copy bandwidth, its FP64
 * matrix-product rate, and the host's path (kpm_response_sums, all threads) for the same
 * vectors; then Kubo-Bastin's sigma_xx on the host from the moments.
 *
 * Usage: build/tests/bench/response_gpu [L:M ...]   (default 64:256 128:1024 256:1024;
 *        Anderson on periodic L^3 cubes, W = 1, J_x, J_x, one random vector)
 * Environment: RESPONSE_BENCH_CPU_L (largest L run on the host too, default 64; 0: none),
 *        RESPONSE_BENCH_R (vectors, default 1), RESPONSE_BENCH_BASTIN (the one L whose
 *        moments go through Kubo-Bastin; default every L: its cost depends on M only).
 *
 * Method.  The device layer directly (kcu_response_sums with its timing: the stream drained
 * between phases), after one warm-up call at the smallest size.  Sparse products: bytes as
 * the kernel must move them (the table, 6 slots x 20 B + 8 B a row, and 16 B a row for each
 * of x, y and, in the Chebyshev step, p), against the device-to-device copy rate
 * (kcu_copy_bandwidth).  Matrix products: 8 M^2 dim flops a vector per gamma sweep
 * (ZGEMM), against the FP64 rate they reach.  CPU: the same R vectors, the same M, best of
 * one (it is long); the speedup is the whole call's.  Bastin: sigma_xx at 201 mu with the
 * Jackson kernel, T = 0.01, on the host (one core). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_ops.h"
#include "mcf/mcf.h"

typedef struct phases {
    mcf_rng rng;
    size_t dim;
} phases;

static void phases_fill(void *ctx, size_t nv, double *v)
{
    phases *p = ctx;
    for (size_t k = 0; k < nv; k++)
        kpm_random_vector(&p->rng, KPM_RANDOM_PHASE, p->dim, 1, 0, v + 2 * k * p->dim);
}

static int one(long L, size_t M, size_t R, long cpu_L, long bastin_L, double bw, int quiet)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL, *J = NULL;
    if (mcf_lattice_create(MCF_LATTICE_CUBIC, L, MCF_BOUNDARY_PERIODIC, &lat) ||
        mcf_hamiltonian_create(lat->sites, 1, 6, &h) || mcf_hamiltonian_set_hopping(h, lat, 1.0))
        return fprintf(stderr, "response_gpu: L = %ld: %s\n", L, mcf_last_error()), 1;
    mcf_rng rng;
    mcf_rng_init(&rng, 47, (uint64_t)L);
    for (size_t i = 0; i < lat->sites; i++)
        mcf_hamiltonian_set_onsite(h, i, mcf_rng_uniform(&rng) - 0.5);
    if (mcf_current_operator(h, lat, 0, &J))
        return fprintf(stderr, "response_gpu: %s\n", mcf_last_error()), 1;
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    const double a = 0.5 * (hi - lo) * 1.01, b = 0.5 * (hi + lo);
    const size_t dim = h->dim;
    double *gs = malloc(3 * M * M * sizeof *gs);
    kcu_ham *dh = NULL, *dj = NULL;
    kcu_response *s = NULL;
    const double t_up = now();
    if (kcu_ham_load(&dh, h) || kcu_ham_load(&dj, J) || kcu_response_create(dim, M, R, NULL, &s))
        return fprintf(stderr, "response_gpu: L = %ld: %s\n", L, mcf_last_error()), 1;
    const double setup = now() - t_up;
    phases src = {.dim = dim};
    mcf_rng_init(&src.rng, 2026, 12);
    kcu_response_timing t;
    if (kcu_response_sums(s, dh, dj, dj, a, b, R, phases_fill, &src, gs, gs + M * M,
                          gs + 2 * M * M, &t))
        return fprintf(stderr, "response_gpu: %s\n", mcf_last_error()), 1;
    size_t nv, mb, nb;
    kcu_response_shape(s, &nv, &mb, &nb);
    double cpu = NAN, dmax = 0.0;
    if (!quiet && L <= cpu_L) {
        double *cs = malloc(3 * M * M * sizeof *cs);
        mcf_rng_init(&src.rng, 2026, 12);
        const double t0 = now();
        if (kpm_response_sums("host", h, J, J, a, b, M, R, &(kpm_vector_source){phases_fill, &src},
                              cs, cs + M * M, cs + 2 * M * M))
            return fprintf(stderr, "response_gpu: %s\n", mcf_last_error()), 1;
        cpu = now() - t0;
        for (size_t q = 0; q < M * M; q++)
            dmax = fmax(dmax, hypot(cs[q] - gs[q], cs[M * M + q] - gs[M * M + q]));
        free(cs);
    }
    /* Kubo-Bastin from the moments (the mean over the R vectors) */
    for (size_t q = 0; q < 2 * M * M; q++)
        gs[q] /= (double)R;
    mcf_kubo k = {.M = M, .mu_re = gs, .mu_im = gs + M * M, .a = a, .b = b, .emin = lo,
                  .emax = hi, .kernel = "jackson", .states_per_volume = 1.0};
    double mus[201], sig[201];
    for (int i = 0; i < 201; i++)
        mus[i] = lo + (hi - lo) * (0.05 + 0.9 * i / 200.0);
    const double tb = now();
    const int do_b = !quiet && (bastin_L == 0 || bastin_L == L);
    const int kr = do_b ? mcf_kubo_bastin(&k, 0.01, 201, mus, sig, NULL) : 0;
    const double bastin = now() - tb;
    if (!quiet) {
        printf("L %ld  dim %zu  M %zu  R %zu  shape: %zu vectors a pass, %zu betas a block, "
               "%zu gammas a chunk (%zu sweeps of gamma)\n", L, dim, M, R, nv, mb, nb,
               (M + mb - 1) / mb);
        printf("  products   %6zu  %8.3f s  %8.1f GB  %7.1f GB/s  %5.1f %% of copy\n",
               t.products, t.products_s, t.product_bytes / 1e9,
               t.product_bytes / t.products_s / 1e9, 100.0 * t.product_bytes / t.products_s /
                                                         1e9 / bw);
        printf("  ZGEMM+sums           %8.3f s  %8.1f TFLOP  %6.1f TFLOP/s (FP64)\n", t.gemm_s,
               t.gemm_flops / 1e12, t.gemm_flops / t.gemm_s / 1e12);
        printf("  other %8.3f s; setup (uploads, scratch) %.3f s; total %.3f s a call, %.3f s "
               "a vector\n", t.other_s, setup, t.total_s, t.total_s / (double)R);
        printf("  mu_00 = %.6f (<J_x^2> = 2 t^2 for the exact trace)\n", gs[0]);
        if (do_b)
            printf("  Kubo-Bastin, 201 mu, host: %.3f s%s; sigma_xx(mu = %.3f) = %.5g\n",
                   bastin, kr ? " (failed)" : "", mus[100], sig[100]);
        if (L <= cpu_L)
            printf("  CPU (kpm_response_sums, %d threads) %.3f s: speedup %.1fx; largest "
                   "|GPU - CPU| %.2e\n", max_threads(), cpu, cpu / t.total_s, dmax);
    }
    free(gs);
    kcu_response_destroy(s);
    kcu_ham_destroy(dh);
    kcu_ham_destroy(dj);
    mcf_hamiltonian_destroy(J);
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
    const char *ec = getenv("RESPONSE_BENCH_CPU_L"), *er = getenv("RESPONSE_BENCH_R");
    const long cpu_L = ec ? atol(ec) : 64;
    const char *eb = getenv("RESPONSE_BENCH_BASTIN");
    const long bastin_L = eb ? atol(eb) : 0;
    const size_t R = er ? (size_t)atol(er) : 1;
    const double bw = kcu_copy_bandwidth((size_t)1 << 30, 5);
    printf("device: %s; copy %.1f GB/s\n", why, bw);
    const char *def[] = {"64:256", "128:1024", "256:1024"};
    const int n = argc > 1 ? argc - 1 : 3;
    one(16, 64, 1, 0, 0, bw, 1); /* warm-up: the context, cuBLAS, the kernels */
    for (int i = 0; i < n; i++) {
        const char *arg = argc > 1 ? argv[i + 1] : def[i];
        long L = 0, M = 0;
        if (sscanf(arg, "%ld:%ld", &L, &M) != 2 || L < 3 || M < 2)
            return fprintf(stderr, "response_gpu: '%s' is not L:M\n", arg), 1;
        if (one(L, (size_t)M, R, cpu_L, bastin_L, bw, 0))
            return 1;
        fflush(stdout);
    }
    return 0;
}
