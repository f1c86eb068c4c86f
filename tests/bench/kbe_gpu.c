/* kbe_gpu.c — benchmark of kbe-cuda (cuda/kbe-cuda) on one GPU, against its copy bandwidth
 * and FP64 peak (issue 45's goals; the CPU's numbers come from kbe_cpu on the same host).
 *
 *   build/tests/bench/kbe_gpu [nk ...]        (default 64 256 1024)
 * Environment: KBE_GPU_BENCH_STEPS="500" (part 2's run lengths, a list), KBE_GPU_BENCH_DIRECT_MAX
 * =1024 (part 1 times the seed's loops up to this Nk: O(Nk^3) a pair), KBE_GPU_BENCH_CPU=0
 * (1: part 2 also runs the CPU's propagator, all cores, for min(steps, 200) steps and prints
 * the time of the same step there).
 *
 * Start: the device's copy bandwidth (mcu_copy_bandwidth, 1 GiB, best of 5, read + write) and
 * its FP64 peak (SMs x clock x 64 FMA x 2 flops, Hopper's rate).
 * Part 1, per Nk: second Born's row at t_128 (129 time pairs, lesser and greater: enough
 * blocks of the direct kernel to fill the device several times; row t_8's 9 pairs did not)
 * by the seed's loops (kbe_cuda_direct.cu) and by cuFFT, both on the same G: a 128-step run
 * by the FFT whose rows are then read into a propagator of the direct method (kbcu_row_read:
 * 128 steps of the O(Nk^3) loops would take minutes at Nk = 1024).  Per pair: the loops'
 * time; their seed-equivalent GFLOP/s (the seed's loop: 26 flops per (k, k1, k3) and band
 * pair, 4 band pairs, as kbe_cpu) and their executed GFLOP/s (kbe_cuda_direct.cu sums the
 * same terms regrouped, 64 flops per (k, k1, k3) for all 4 band pairs; its fold, 1/64 more,
 * and lanes idle past Nk are not counted) with the executed rate's % of the FP64 peak (goal
 * >= 25%); cuFFT's time a pair and its speedup over the loops (goal >= 100x at Nk = 256).
 * Part 2, per Nk and run length: a second-Born run (the two-band model, a pulse, U = 1, FFT,
 * one corrector: two evaluations of the self-energy's row and the collision integrals a step)
 * from t_0: the time of step n at n = steps/4, steps/2, steps (the device synchronized around
 * it), the run's total, its two-time storage; at the end the collision row alone at
 * m = steps: its time and bytes — counted as the stored triangle read once (each block of
 * G^< and G^> of rows <= m once, (m + 1)(m + 2)/2 x 2 x 64 Nk bytes: the "each block
 * once per pass"), GB/s and % of copy (goal >= 70%).  A run that does not fit in device
 * memory prints the reason.
 * Part 3, per Nk: the first run length (at most 500 steps) with each step one CUDA graph (the
 * default) and with its kernels launched one by one: the mean wall time a step of each (the
 * device waited for at the end only), the graph's speedup, the graphs instantiated. */
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

/* Part 1's row: m + 1 = 129 time pairs x 4 x ceil(Nk / 16) blocks of the direct kernel
 * (kbe_cuda_direct.cu) fill the device (132 SMs x 3 blocks) 5 times over at Nk = 64 */
#define SIGMA_ROW 128

/* second Born's row at t_m, m = SIGMA_ROW, by cuFFT and (direct) by the seed's loops: the
 * seconds of one time pair (lesser and greater) into t_fft, t_dir (NAN: not timed).  An FFT
 * run takes the m steps; its rows are then read (kbcu_row_write / kbcu_row_read) into a
 * propagator of the direct method, which times the same row: no O(m Nk^3) steps to wait for,
 * and both methods see the same G. */
static void sigma_pair_times(size_t nk, const bands_t *b, int direct, double *t_fft,
                             double *t_dir)
{
    const size_t m = SIGMA_ROW;
    const kbe_spec s = spec_of(nk, m, b, KBE_SIGMA_FFT);
    kbe_spec sd = s;
    sd.sigma_method = KBE_SIGMA_DIRECT;
    kbcu *w = NULL, *wd = NULL;
    unsigned char *buf = NULL;
    double ts, tc;
    *t_fft = *t_dir = NAN;
    int rc = kbcu_create(&s, field(0.0), 1.0, &w);
    for (size_t i = 1; i <= m && !rc; i++)
        rc = kbcu_step(w, field((double)i * s.dt), 1.0);
    if (!rc && (rc = kbcu_time_parts(w, m, 20, &ts, &tc)) == MCF_OK)
        *t_fft = ts / (double)(m + 1);
    if (!rc && direct) {
        rc = kbcu_create(&sd, field(0.0), 1.0, &wd);
        if (!rc && !(buf = malloc(kbcu_row_bytes(w, m))))
            rc = mcf_fail(MCF_ENOMEM, "kbe_gpu: out of memory for a row");
        for (size_t n = 0; n <= m && !rc; n++)
            if ((rc = kbcu_row_write(w, n, buf)) == MCF_OK)
                rc = kbcu_row_read(wd, n, buf);
        /* a row: ~0.3 ms at Nk = 64, ~1 s at Nk = 1024 (17 TFLOP/s executed): 10 or 2 */
        if (!rc && (rc = kbcu_time_parts(wd, m, nk <= 256 ? 10 : 2, &ts, &tc)) == MCF_OK)
            *t_dir = ts / (double)(m + 1);
    }
    if (rc)
        printf("# Nk = %zu: %s\n", nk, mcf_last_error());
    free(buf);
    kbcu_destroy(wd);
    kbcu_destroy(w);
}

static void part1(size_t nk, size_t direct_max, double peak)
{
    bands_t b;
    if (bands(nk, &b)) {
        printf("| %zu | out of memory | | | | | |\n", nk);
        return;
    }
    double t_fft, t_dir;
    sigma_pair_times(nk, &b, nk <= direct_max, &t_fft, &t_dir);
    if (nk <= direct_max) {
        /* the seed's loop: 26 flops per (k, k1, k3) and band pair; kbe_cuda_direct.cu sums
         * the same terms with 64 flops per (k, k1, k3) for the 4 band pairs; both x 2
         * (lesser, greater) */
        const double n3 = (double)nk * (double)nk * (double)nk;
        const double seed = 2.0 * 4.0 * 26.0 * n3, done = 2.0 * 64.0 * n3;
        printf("| %zu | %.4g ms | %.0f | %.0f | %.1f%% | %.4g us | %.0fx |\n", nk, 1e3 * t_dir,
               1e-9 * seed / t_dir, 1e-9 * done / t_dir, 100.0 * done / t_dir / peak,
               1e6 * t_fft, t_dir / t_fft);
    } else
        printf("| %zu | (not timed) | | | | %.4g us | |\n", nk, 1e6 * t_fft);
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

/* part 3: the same run with each step as one CUDA graph and with its kernels launched one by
 * one: the runs' wall times (the device synchronized at the end only) */
static void part3(size_t nk, size_t steps)
{
    bands_t b;
    if (bands(nk, &b))
        return;
    const kbe_spec s = spec_of(nk, steps, &b, KBE_SIGMA_FFT);
    double t[2] = {NAN, NAN};
    size_t inst = 0;
    for (int each = 0; each < 2; each++) {
        kbcu *w = NULL;
        if (kbcu_create(&s, field(0.0), 1.0, &w)) {
            printf("| %zu | %zu | %s | | |\n", nk, steps, mcf_last_error());
            break;
        }
        kbcu_set_launch_each(w, each);
        double r;
        const double t0 = now();
        int rc = MCF_OK;
        for (size_t i = 1; i <= steps && !rc; i++)
            rc = kbcu_step(w, field((double)i * s.dt), 1.0);
        if (!rc)
            rc = kbcu_corrector_residual(w, &r); /* waits for the device */
        t[each] = rc ? NAN : now() - t0;
        if (!each)
            inst = kbcu_graph_instantiations(w);
        kbcu_destroy(w);
    }
    printf("| %zu | %zu | %.4g ms | %.4g ms | %.2fx | %zu |\n", nk, steps,
           1e3 * t[0] / (double)steps, 1e3 * t[1] / (double)steps, t[1] / t[0], inst);
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
    const size_t direct_max = d && *d ? (size_t)strtoul(d, NULL, 10) : 1024;
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
    printf("\nsecond Born of one time pair (lesser and greater), row t_%d\n"
           "| Nk | seed's loops | seed-equivalent GFLOP/s | executed GFLOP/s | executed %% of "
           "FP64 peak | cuFFT | speedup |\n|---|---|---|---|---|---|---|\n", SIGMA_ROW);
    for (size_t i = 0; i < n; i++)
        part1(nks[i], direct_max, peak);
    printf("\nsecond-Born runs (dt = 0.02, one corrector, FFT)\n"
           "| Nk | steps | time | | | GB/s | %% of copy |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nr; j++)
            part2(nks[i], runs[j], copy_gbs, cpu);
    printf("\none CUDA graph a step against the kernels launched one by one (the run above, "
           "at most 500 steps)\n| Nk | steps | graph: a step | one by one: a step | graph's "
           "speedup | graphs instantiated |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        part3(nks[i], runs[0] < 500 ? runs[0] : 500);
    return 0;
}
