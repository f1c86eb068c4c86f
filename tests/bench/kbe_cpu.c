/* kbe_cpu.c — benchmark of the two-time propagator's CPU library (plugins/kbe, mcf_kbe_core).
 *
 *   build/tests/bench/kbe_cpu [nk ...]      (default 64 256)
 * Environment: KBE_BENCH_STEPS=200 (part 2's run), KBE_BENCH_DIRECT_MAX=256 (part 1 times
 * the seed's loops up to this Nk: they cost O(Nk^3)), OMP_NUM_THREADS (default all cores).
 *
 * Part 1, per Nk: second Born of one time pair (kbe_sigma_2b) by the seed's loops over k and
 * by FFT over k: time per pair (best of several), the loops' GFLOP/s (26 flops per (k, k1, k3)
 * and band pair: two triple products and a difference; the goal for the device is
 * >= 25% of its FP64 peak), and FFT's speedup (the goal: >= 100x at Nk = 256).
 * Part 2, per Nk: a run of the two-band model (a pulse, U = 1, second Born by FFT, one
 * corrector pass) on all cores: the time of a step at n = steps/4, steps/2 and steps, and
 * the collision pass's bytes (each evaluation reads the stored G^< and G^> blocks of the row's
 * integrals once: (m + 1) + (j + 1) blocks per j, 64 Nk bytes a block, two evaluations a
 * step), its GB/s and that as % of the host's copy bandwidth (bench_util.h). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "kbe_core.h"
#include "mcf/error.h"

static double field(double t)
{
    const double s = t - 2.0;
    return 0.5 * exp(-s * s / 0.5) * cos(3.0 * s);
}

static void part1(size_t nk, size_t direct_max)
{
    double complex *A = malloc(12 * nk * sizeof *A), *B = A + 4 * nk, *S = B + 4 * nk;
    kbe_sigma_work *w = NULL;
    if (!A || kbe_sigma_work_create(nk, &w)) {
        printf("| %zu | out of memory | | | |\n", nk);
        free(A);
        return;
    }
    for (size_t q = 0; q < 4 * nk; q++) {
        A[q] = cos(0.1 * (double)q) + I * sin(0.37 * (double)q);
        B[q] = sin(0.23 * (double)q) - I * cos(0.11 * (double)q);
    }
    double t_fft = INFINITY, t_dir = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        const int inner = nk <= 256 ? 200 : 20;
        double t0 = now();
        for (int i = 0; i < inner; i++)
            kbe_sigma_2b(KBE_SIGMA_FFT, 1.0, A, B, S, w);
        t_fft = fmin(t_fft, (now() - t0) / inner);
        if (nk <= direct_max && rep < 2) {
            t0 = now();
            kbe_sigma_2b(KBE_SIGMA_DIRECT, 1.0, A, B, S, w);
            t_dir = fmin(t_dir, now() - t0);
        }
    }
    const double flops = 4.0 * 26.0 * (double)nk * (double)nk * (double)nk;
    if (nk <= direct_max)
        printf("| %zu | %.4g ms | %.2f | %.4g ms | %.0fx |\n", nk, 1e3 * t_dir,
               1e-9 * flops / t_dir, 1e3 * t_fft, t_dir / t_fft);
    else
        printf("| %zu | (not timed) | | %.4g ms | |\n", nk, 1e3 * t_fft);
    kbe_sigma_work_destroy(w);
    free(A);
}

static void part2(size_t nk, size_t steps, double copy_gbs)
{
    double *eps = malloc(2 * nk * sizeof *eps);
    double complex *rho = malloc(4 * nk * sizeof *rho);
    for (size_t k = 0; k < nk; k++) {
        const double c = cos(6.283185307179586 * (double)k / (double)nk);
        eps[2 * k] = -1.0 - 0.5 * c;
        eps[2 * k + 1] = 1.0 + 0.5 * c;
        rho[4 * k] = 1.0;
        rho[4 * k + 1] = rho[4 * k + 2] = rho[4 * k + 3] = 0.0;
    }
    const double dt = 0.02;
    kbe_spec s = {.nk = nk, .eps = eps, .dipole = 0.5, .rho0 = rho, .dt = dt, .steps = steps,
                  .correctors = 1, .selfenergy = KBE_SELFENERGY_2B};
    kbe *w = NULL;
    if (kbe_create(&s, field(0.0), 1.0, &w)) {
        printf("| %zu | %zu | %s | | | |\n", nk, steps, mcf_last_error());
        free(eps);
        free(rho);
        return;
    }
    const size_t at[3] = {steps / 4, steps / 2, steps};
    const double t_start = now();
    for (size_t i = 1; i <= steps; i++) {
        const double t0 = now();
        if (kbe_step(w, field((double)i * dt), 1.0)) {
            printf("| %zu | %zu | %s | | | |\n", nk, i, mcf_last_error());
            break;
        }
        const double t = now() - t0;
        for (int q = 0; q < 3; q++)
            if (i == at[q]) {
                const double m = (double)i, bytes = 2.0 * 1.5 * m * m * 64.0 * (double)nk;
                printf("| %zu | %zu | %.4g ms | %.3g GB | %.1f GB/s | %.0f%% |\n", nk, i, 1e3 * t,
                       1e-9 * bytes, 1e-9 * bytes / t, 100.0 * 1e-9 * bytes / t / copy_gbs);
            }
    }
    printf("|   | %zu steps in all | %.3g s | | | |\n", steps, now() - t_start);
    kbe_destroy(w);
    free(eps);
    free(rho);
}

int main(int argc, char **argv)
{
    size_t nks[16] = {64, 256}, n = 2;
    if (argc > 1) {
        n = 0;
        for (int i = 1; i < argc && n < 16; i++)
            nks[n++] = (size_t)strtoul(argv[i], NULL, 10);
    }
    const char *e = getenv("KBE_BENCH_STEPS"), *d = getenv("KBE_BENCH_DIRECT_MAX");
    const size_t steps = e && *e ? (size_t)strtoul(e, NULL, 10) : 200;
    const size_t direct_max = d && *d ? (size_t)strtoul(d, NULL, 10) : 256;
    char cpu[256];
    bench_cpu_name(cpu, sizeof cpu);
    const double copy_gbs = copy_bandwidth(bench_copy_len());
    printf("host: %s, %d threads, copy bandwidth %.1f GB/s\n", cpu, max_threads(), copy_gbs);
    printf("\nsecond Born of one time pair\n| Nk | seed's loops | GFLOP/s | FFT | speedup |\n"
           "|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        part1(nks[i], direct_max);
    printf("\nsteps of a second-Born run (dt = 0.02, one corrector)\n"
           "| Nk | step n | time of step n | collision bytes | GB/s | %% of copy |\n"
           "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        part2(nks[i], steps, copy_gbs);
    return 0;
}
