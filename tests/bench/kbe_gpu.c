/* kbe_gpu.c — benchmark of kbe-cuda (cuda/kbe-cuda) on one GPU, against its copy bandwidth
 * and FP64 peak (issue 45's goals; the CPU's numbers come from kbe_cpu on the same host).
 *
 *   build/tests/bench/kbe_gpu [nk ...]        (default 64 256 1024)
 * Environment: KBE_GPU_BENCH_STEPS="500" (part 2's run lengths, a list), KBE_GPU_BENCH_DIRECT_MAX
 * =256 (part 1 times the seed's loops up to this Nk: O(Nk^3) a pair), KBE_GPU_BENCH_CPU=0
 * (1: part 2 also runs the CPU's propagator, all cores, for min(steps, 200) steps and prints
 * the time of the same step there).
 *
 * Start: the device's copy bandwidth (mcu_copy_bandwidth, 1 GiB, best of 5, read + write) and
 * its FP64 peak (SMs x clock x 64 FMA x 2 flops, Hopper's rate).
 * Part 1, per Nk: second Born's row at t_8 (9 time pairs, lesser and greater) by the seed's
 * loops and by cuFFT: time per pair, the loops' GFLOP/s (26 flops per (k, k1, k3) and band
 * pair, 4 band pairs, as kbe_cpu) and % of the FP64 peak (goal >= 25%), FFT's speedup
 * (goal >= 100x at Nk = 256).
 * Part 2, per Nk and run length: a second-Born run (the two-band model, a pulse, U = 1, FFT,
 * one corrector: two evaluations of the self-energy's row and the collision integrals a step)
 * from t_0: the time of step n at n = steps/4, steps/2, steps (the device synchronized around
 * it), the run's total, its two-time storage; at the end the collision row alone at
 * m = steps: its time and bytes — counted as the stored triangle read once (each block of
 * G^< and G^> of rows <= m once, (m + 1)(m + 2)/2 x 2 x 64 Nk bytes: the "each block
 * once per pass"), GB/s and % of copy (goal >= 70%).  A run that does not fit in device
 * memory prints the reason. */
#include <complex.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "kbe_core.h"
#include "kbe_cuda.h"
#include "mcf/error.h"
#include "mcf_cuda.h"

static double field(double t)
{
    const double s = t - 2.0;
    return 0.5 * exp(-s * s / 0.5) * cos(3.0 * s);
}

typedef struct {
    double *eps;
    double complex *rho;
} bands_t;

static int bands(size_t nk, bands_t *b)
{
    b->eps = malloc(2 * nk * sizeof *b->eps);
    b->rho = malloc(4 * nk * sizeof *b->rho);
    if (!b->eps || !b->rho)
        return 1;
    for (size_t k = 0; k < nk; k++) {
        const double c = cos(6.283185307179586 * (double)k / (double)nk);
        b->eps[2 * k] = -1.0 - 0.5 * c;
        b->eps[2 * k + 1] = 1.0 + 0.5 * c;
        b->rho[4 * k] = 1.0;
        b->rho[4 * k + 1] = b->rho[4 * k + 2] = b->rho[4 * k + 3] = 0.0;
    }
    return 0;
}

static kbe_spec spec_of(size_t nk, size_t steps, const bands_t *b, kbe_sigma_method m)
{
    kbe_spec s = {.nk = nk, .eps = b->eps, .dipole = 0.5, .rho0 = b->rho, .dt = 0.02,
                  .steps = steps, .correctors = 1, .selfenergy = KBE_SELFENERGY_2B,
                  .sigma_method = m};
    return s;
}

/* second Born's row at t_8 by the method: seconds a time pair (lesser and greater) */
static double sigma_pair_time(size_t nk, const bands_t *b, kbe_sigma_method method)
{
    const size_t m = 8;
    const kbe_spec s = spec_of(nk, m, b, method);
    kbcu *w = NULL;
    double ts = NAN, tc = 0.0;
    if (kbcu_create(&s, field(0.0), 1.0, &w) == MCF_OK) {
        int rc = MCF_OK;
        for (size_t i = 1; i <= m && !rc; i++)
            rc = kbcu_step(w, field((double)i * s.dt), 1.0);
        if (!rc && kbcu_time_parts(w, m, method == KBE_SIGMA_DIRECT ? 2 : 20, &ts, &tc) == 0)
            ts /= (double)(m + 1);
        else
            ts = NAN;
    }
    if (isnan(ts))
        printf("# Nk = %zu: %s\n", nk, mcf_last_error());
    kbcu_destroy(w);
    return ts;
}

static void part1(size_t nk, size_t direct_max, double peak)
{
    bands_t b;
    if (bands(nk, &b)) {
        printf("| %zu | out of memory | | | | |\n", nk);
        return;
    }
    const double t_fft = sigma_pair_time(nk, &b, KBE_SIGMA_FFT);
    if (nk <= direct_max) {
        const double t_dir = sigma_pair_time(nk, &b, KBE_SIGMA_DIRECT);
        const double flops = 2.0 * 4.0 * 26.0 * (double)nk * (double)nk * (double)nk;
        printf("| %zu | %.4g ms | %.0f | %.1f%% | %.4g us | %.0fx |\n", nk, 1e3 * t_dir,
               1e-9 * flops / t_dir, 100.0 * flops / t_dir / peak, 1e6 * t_fft, t_dir / t_fft);
    } else
        printf("| %zu | (not timed) | | | %.4g us | |\n", nk, 1e6 * t_fft);
    free(b.eps);
    free(b.rho);
}

static void part2(size_t nk, size_t steps, double copy_gbs, int cpu)
{
    bands_t b;
    if (bands(nk, &b)) {
        printf("| %zu | %zu | out of memory | | | | |\n", nk, steps);
        return;
    }
    const kbe_spec s = spec_of(nk, steps, &b, KBE_SIGMA_FFT);
    const double gb = 1e-9 * (double)kbe_storage_bytes(nk, steps);
    kbcu *w = NULL;
    if (kbcu_create(&s, field(0.0), 1.0, &w)) {
        printf("| %zu | %zu (%.3g GB) | %s | | | | |\n", nk, steps, gb, mcf_last_error());
        free(b.eps);
        free(b.rho);
        return;
    }
    kbe *c = NULL;
    const size_t csteps = steps < 200 ? steps : 200;
    kbe_spec sc = s;
    sc.steps = csteps;
    if (cpu && kbe_create(&sc, field(0.0), 1.0, &c))
        c = NULL;
    const size_t at[3] = {steps / 4, steps / 2, steps};
    double r, t_start = now();
    for (size_t i = 1; i <= steps; i++) {
        const int timed = i == at[0] || i == at[1] || i == at[2];
        if (timed)
            kbcu_corrector_residual(w, &r);
        const double t0 = now();
        if (kbcu_step(w, field((double)i * s.dt), 1.0) ||
            (timed && kbcu_corrector_residual(w, &r))) {
            printf("| %zu | %zu | %s | | | | |\n", nk, i, mcf_last_error());
            break;
        }
        const double t = now() - t0;
        double tcpu = NAN;
        if (c && i <= csteps) {
            const double t1 = now();
            kbe_step(c, field((double)i * s.dt), 1.0);
            tcpu = now() - t1;
        }
        if (timed && isnan(tcpu))
            printf("| %zu | %zu | step %zu: %.4g ms | | | | |\n", nk, steps, i, 1e3 * t);
        else if (timed)
            printf("| %zu | %zu | step %zu: %.4g ms | CPU %.4g ms (%.1fx) | | | |\n", nk, steps,
                   i, 1e3 * t, 1e3 * tcpu, tcpu / t);
    }
    const double total = now() - t_start;
    double ts = 0.0, tc = 0.0;
    if (kbcu_time_parts(w, steps, 5, &ts, &tc) == MCF_OK) {
        const double m = (double)steps;
        const double bytes = (m + 1.0) * (m + 2.0) / 2.0 * 2.0 * 64.0 * (double)nk;
        printf("| %zu | %zu (%.3g GB) | %.3g s in all | self-energy row %.4g ms | collision "
               "row %.4g ms | %.1f GB/s | %.0f%% |\n", nk, steps, gb, total, 1e3 * ts,
               1e3 * tc, 1e-9 * bytes / tc, 100.0 * 1e-9 * bytes / tc / copy_gbs);
    } else
        printf("| %zu | %zu | %s | | | | |\n", nk, steps, mcf_last_error());
    kbcu_destroy(w);
    kbe_destroy(c);
    free(b.eps);
    free(b.rho);
}

int main(int argc, char **argv)
{
    size_t nks[16] = {64, 256, 1024}, n = 3, runs[8] = {500}, nr = 1;
    if (argc > 1) {
        n = 0;
        for (int i = 1; i < argc && n < 16; i++)
            nks[n++] = (size_t)strtoul(argv[i], NULL, 10);
    }
    const char *e = getenv("KBE_GPU_BENCH_STEPS"), *d = getenv("KBE_GPU_BENCH_DIRECT_MAX");
    const char *c = getenv("KBE_GPU_BENCH_CPU");
    if (e && *e) {
        char *p = (char *)e;
        nr = 0;
        while (*p && nr < 8) {
            char *q;
            const unsigned long v = strtoul(p, &q, 10);
            if (q == p)
                break;
            runs[nr++] = (size_t)v;
            p = q;
        }
    }
    const size_t direct_max = d && *d ? (size_t)strtoul(d, NULL, 10) : 256;
    const int cpu = c && *c == '1';
    char why[256];
    if (!kbcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 0;
    }
    int sms = 0, khz = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    const double peak = (double)sms * 1e3 * (double)khz * 64.0 * 2.0;
    const double copy_gbs = mcu_copy_bandwidth((size_t)1 << 30, 5);
    printf("device: %s; copy bandwidth %.1f GB/s; FP64 peak %.1f TFLOP/s (%d SMs at %.2f GHz)\n",
           why, copy_gbs, 1e-12 * peak, sms, 1e-6 * khz);
    printf("\nsecond Born of one time pair (lesser and greater), row t_8\n"
           "| Nk | seed's loops | GFLOP/s | %% of FP64 peak | cuFFT | speedup |\n"
           "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        part1(nks[i], direct_max, peak);
    printf("\nsecond-Born runs (dt = 0.02, one corrector, FFT)\n"
           "| Nk | steps | time | | | GB/s | %% of copy |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nr; j++)
            part2(nks[i], runs[j], copy_gbs, cpu);
    return 0;
}
