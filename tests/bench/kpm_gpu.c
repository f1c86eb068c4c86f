/* kpm_gpu.c — benchmark of the GPU kernel-polynomial-method layer kpm-cuda (kpm_cuda.h)
 * against the copy bandwidth of the same GPU, measured in the same run, and against the
 * CPU library mcf_kpm_core on all cores of the same host.
 *
 * Usage: kpm_gpu                  (no arguments; everything through the environment)
 * Environment:
 *   KPM_GPU_BENCH_DOS_L="128 256"          Anderson DOS lattices (L^3 sites); "" skips part 1
 *   KPM_GPU_BENCH_BLOCKS="1 2 4 8 16 32 64" vectors per block B (1..64)
 *   KPM_GPU_BENCH_MARCH=0                  the DOS block step: 0 the plugin's rule, -1 the
 *                                          grid-stride step, k > 0 the march, k planes a block
 *   KPM_GPU_BENCH_PAIRS=0                  1: two Chebyshev steps a launch where the lattice
 *                                          allows (kcu_engine_pairs; % of copy still counts
 *                                          one step's bytes a step), -1 never, 0 the rule
 *   KPM_GPU_BENCH_SHARE=-1                 the march's row slots shared by the row's lanes:
 *                                          1 yes, 0 no, -1 the plugin's default
 *   KPM_GPU_BENCH_RANK=0                   the factorized form's rank: 0 a uniform hopping
 *                                          (Anderson), 2 the double-exchange form (a
 *                                          random spinor a site; its 32 bytes a site a
 *                                          step count as read)
 *   KPM_GPU_BENCH_GFMC_L="8 16 32"         GFMC lattices; "" skips part 2
 *   KPM_GPU_BENCH_CHAINS="1 8 32 128"      chains per GFMC batch on the GPU
 *   KPM_GPU_BENCH_M=256                    GFMC moments M (Lorentz kernel, lambda = 4,
 *                                          N = 2M nodes, no extrapolation)
 *   KPM_GPU_BENCH_CPU=0                    skip every CPU measurement (and the speedups)
 *   KPM_GPU_BENCH_CLUSTER=G                the GFMC cluster size, thread blocks per chain
 *                                          (kcu_gfmc_settings.blocks_per_chain; the
 *                                          plugin's gfmc_blocks): G = 1, 2, 4, 8 or 16 (16
 *                                          is non-portable); unset or 0: automatic
 *   KPM_GPU_BENCH_NO_FFT=1                 GFMC: Horner's rule at the nodes, no FFT
 *                                          (settings.fft = 0; the plugin's gfmc_fft)
 *   KPM_GPU_BENCH_NO_DSMEM=1               GFMC: the vectors out of shared memory
 *                                          (settings.shared_vectors = 0; the plugin's
 *                                          gfmc_on_chip)
 * Without a usable CUDA device (kcu_probe() == 0) it prints "skipped: no device (...)"
 * and exits 0.  On an H100 and a 16-core host the default run takes a few minutes.
 * Any error prints mcf_last_error() and exits 1.
 *
 * Start.  The machine line (bench_util.h: CPU model, cores, last-level cache, STREAM-copy
 * bandwidth on all cores unless KPM_GPU_BENCH_CPU=0), the device (name, SMs, free memory)
 * and its copy bandwidth: kcu_copy_bandwidth() of a 1 GiB device-to-device cudaMemcpy,
 * best of 5, counted as bytes read + bytes written (2 GiB per copy).  Every "% of copy"
 * and "% of floor" below is relative to this number.
 *
 * Part 1: Anderson DOS.  H on a periodic L^3 cubic lattice: hopping -1 to the 6
 * neighbours, on-site energies uniform in [-W/2, W/2], W = 16.5, bounds fixed to
 * +-(6 + W/2).  Built with mcf_hamiltonian_set/_set_onsite up to 128^3; larger lattices
 * are written into the slot-major ELL arrays directly (slot k = neighbour k) followed by
 * mcf_hamiltonian_touch_all().  Uploaded once (kcu_ham_create); for every B a fresh
 * engine (kcu_engine_create(dim, B)) and kcu_time_steps(): one untimed warm-up recursion,
 * then `steps` Chebyshev steps of B random vectors timed by CUDA events (about 0.3 s of
 * work, 8..1000 steps).  An engine that does not fit in device memory (MCF_ENOMEM; 256^3
 * at B = 64 needs 2 x 16.7 M x 64 x 16 B = 34 GB of vectors) prints "out of device
 * memory" for that B and the run goes on.  Columns:
 *   ms/step            time of one Chebyshev step of the block
 *   ms/step/vec        the same divided by B
 *   bytes/step         as counted by kcu_time_steps() from the layout: the ELL table once
 *                      (per row 6 slots x (4 B col + 8 B re + 8 B im) + 8 B on-site =
 *                      128 B; kcu_ham_bytes()) plus 3 vector passes of B x 16 B per row
 *                      (the gathered x, the old y read, the new y written: the gathered
 *                      neighbours are assumed to come from cache once read)
 *   B/site/step        bytes/step / sites = 128 + 48 B
 *   GB/s               bytes/step / time per step
 *   % copy             GB/s / device copy bandwidth
 * CPU (unless KPM_GPU_BENCH_CPU=0, lattices up to 128^3 only, B = 1 and 8): the method of
 * kpm_cpu.c on all cores (kpm_moments_diag with 2 and 2 + S steps, best of 3 each, the
 * difference / S), the same byte count, and the speedup = CPU time per step / GPU time
 * per step at the same B (= the ratio per vector-step).
 *
 * Part 2: GFMC trial flips.  Double-exchange Hamiltonians (de_test_hamiltonian.h:
 * random spins, infinite Hund coupling, one orbital per site, width 6), one independent
 * spin configuration per chain.  A batch = one trial flip per chain (change of a random
 * site to a random direction, de_change(); T = 0.1, mu = 0; the flips are not accepted,
 * so H stays the same and no rows travel), all chains in ONE kcu_gfmc_run().  Per chain
 * count C: one warm-up batch, then repetitions (about 0.5 s, 3..200), each with new
 * changes; only the kcu_gfmc_run() calls are timed (wall clock; the call is synchronous).
 * Columns:
 *   G                  the launch's kcu_gfmc_info.cluster: thread blocks per chain
 *   ms/batch           mean time of one batch (min in parentheses)
 *   flips/s            C / ms/batch
 *   us/flip            ms/batch / C: the amortized time per flip
 *   floor MB/batch     the minimal traffic: per flip M/2 Chebyshev steps of the block of
 *                      4 vectors over every row, per row 6 x 20 B table + 8 B on-site +
 *                      4 vectors x 48 B (gathered x, old y read, new y written) = 320 B,
 *                      as gfmc_cpu.c counts; times C
 *   floor ms           floor bytes / device copy bandwidth
 *   % floor            floor ms / ms/batch.  Small lattices stay in L2 / shared memory
 *                      and can beat the floor (> 100%): they are bound by latency, the
 *                      cluster barriers and arithmetic, not by DRAM.
 * CPU (unless KPM_GPU_BENCH_CPU=0): kpm_gfmc_delta_action on the same Hamiltonians and the
 * same parameters, C chains shared among all cores by an OpenMP loop (schedule dynamic, one
 * chain per thread; with C = 1 the threads share the rows instead), as gfmc_cpu.c's batch
 * columns; the same chain counts except for lattices of 32^3 and more (1 and all cores
 * only), few repetitions.  Speedup = CPU time per batch / GPU time per batch at the same C
 * where both ran, and the throughput ratio (best GPU flips/s over best CPU flips/s).
 * Check: for the last GPU batch of the last C, dS of up to 8 chains is recomputed on
 * the CPU and the largest difference printed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "de_test_hamiltonian.h"
#include "kpm_core.h"
#include "kpm_step.h"
#include "kpm_bench.h"
#include "kpm_cuda.h"
#include "mcf/mcf.h"

#define MAX_LIST 16
#define MAX_CHAINS 1024
#define ANDERSON_W 16.5
#define GFMC_T 0.1
#define GFMC_MU 0.0

/* the GFMC launches' settings (main: from KPM_GPU_BENCH_CLUSTER, _NO_FFT, _NO_DSMEM) */
static kcu_gfmc_settings gfmc_settings = KCU_GFMC_SETTINGS_DEFAULT;

static void die(const char *what)
{
    fprintf(stderr, "kpm_gpu: %s: %s\n", what, mcf_last_error());
    exit(1);
}

#define CHECK(call, what)                  \
    do {                                   \
        if ((call) != MCF_OK)              \
            die(what);                     \
    } while (0)

/* numbers of the environment variable `name` (or of `def` when it is not set) in
 * [lo, hi] into out; returns how many (0 for an empty variable) */
static int parse_list(const char *name, const char *def, size_t lo, size_t hi, size_t *out)
{
    const char *env = getenv(name);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", env ? env : def);
    int n = 0;
    for (char *t = strtok(buf, " ,"); t && n < MAX_LIST; t = strtok(NULL, " ,")) {
        char *end;
        const unsigned long v = strtoul(t, &end, 10);
        if (end == t || *end || v < lo || v > hi) {
            fprintf(stderr, "kpm_gpu: %s: ignoring \"%s\" (allowed %zu..%zu)\n", name, t, lo,
                    hi);
            continue;
        }
        out[n++] = (size_t)v;
    }
    return n;
}

static size_t clampz(double v, size_t lo, size_t hi)
{
    if (!(v >= (double)lo))
        return lo;
    if (v > (double)hi)
        return hi;
    return (size_t)v;
}

/* ---- part 1: Anderson DOS ------------------------------------------------------------- */

static mcf_hamiltonian *anderson(size_t L, double W, uint64_t seed)
{
    const size_t n = L * L * L;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(n, 1, 6, &h), "creating the Anderson Hamiltonian");
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    if (n <= ((size_t)1 << 21)) {
        for (size_t s = 0; s < n; s++) {
            const size_t x = s % L, y = (s / L) % L, z = s / (L * L);
            CHECK(mcf_hamiltonian_set(h, s, (x + 1) % L + L * y + L * L * z, -1.0, 0.0),
                  "building the Anderson Hamiltonian");
            CHECK(mcf_hamiltonian_set(h, s, x + L * ((y + 1) % L) + L * L * z, -1.0, 0.0),
                  "building the Anderson Hamiltonian");
            CHECK(mcf_hamiltonian_set(h, s, x + L * y + L * L * ((z + 1) % L), -1.0, 0.0),
                  "building the Anderson Hamiltonian");
            CHECK(mcf_hamiltonian_set_onsite(h, s, W * (mcf_rng_uniform(&rng) - 0.5)),
                  "building the Anderson Hamiltonian");
        }
    } else {
        /* direct fill, slot-major: entry k of row r at [k * dim + r] */
        const long nl = (long)n;
#pragma omp parallel for schedule(static)
        for (long r = 0; r < nl; r++) {
            size_t nb[6];
            de_neighbours(L, (size_t)r, nb);
            for (int k = 0; k < 6; k++) {
                h->col[(size_t)k * n + (size_t)r] = (int32_t)nb[k];
                h->hop_re[(size_t)k * n + (size_t)r] = -1.0;
                h->hop_im[(size_t)k * n + (size_t)r] = 0.0;
            }
        }
        for (size_t s = 0; s < n; s++)
            h->onsite[s] = W * (mcf_rng_uniform(&rng) - 0.5);
        mcf_hamiltonian_touch_all(h);
    }
    CHECK(mcf_hamiltonian_fix_bounds(h, -(6.0 + W / 2), 6.0 + W / 2),
          "fixing the Anderson bounds");
    return h;
}

/* seconds per step by lattice, form (0 table, 1 factorized) and block: the GPU's for the
 * blocks asked for, the CPU's for B = 1 and 8 */
static double dos_time[MAX_LIST][2][MAX_LIST];
static double dos_cpu[MAX_LIST][2][2];
static void dos_lattice(int li, size_t L, int form, const size_t *blocks, int nB,
                        double bw_dev, int cpu, double bw_cpu);

/* The same Hamiltonian (the same on-site energies) with the hopping declared factorized
 * (rank 0: a uniform -1, mcf/hamiltonian_factors.h), as the anderson model builds it: the
 * step then reads the on-site energies only and computes the neighbours.  KPM_GPU_BENCH_RANK
 * = 2: the double-exchange form instead, -conj(a_i) . a_j with a random spinor a_i a site. */
static mcf_hamiltonian *anderson_factorized(size_t L, double W, uint64_t seed)
{
    const size_t n = L * L * L;
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    const char *rank_env = getenv("KPM_GPU_BENCH_RANK");
    const int rank = rank_env && *rank_env ? atoi(rank_env) : 0;
    if (rank != 0 && rank != 2) {
        fprintf(stderr, "kpm_gpu: KPM_GPU_BENCH_RANK = %s: 0 or 2\n", rank_env);
        exit(1);
    }
    CHECK(mcf_lattice_create(MCF_LATTICE_CUBIC, (long)L, MCF_BOUNDARY_PERIODIC, &lat) ||
              mcf_hamiltonian_create(n, 1, 6, &h) ||
              mcf_hamiltonian_factorize(h, lat, -1.0, rank),
          "building the factorized Anderson Hamiltonian");
    mcf_lattice_destroy(lat);
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    for (size_t s = 0; s < n && rank == 2; s++) { /* a spinor of unit norm a site */
        double f[4], norm = 0.0;
        for (int c = 0; c < 4; c++) {
            f[c] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
            norm += f[c] * f[c];
        }
        for (int c = 0; c < 4; c++)
            f[c] /= sqrt(norm);
        mcf_hamiltonian_set_field(h, s, f);
    }
    for (size_t s = 0; s < n; s++)
        h->onsite[s] = W * (mcf_rng_uniform(&rng) - 0.5);
    mcf_hamiltonian_touch_all(h);
    CHECK(mcf_hamiltonian_fix_bounds(h, -(6.0 + W / 2), 6.0 + W / 2),
          "fixing the Anderson bounds");
    return h;
}

static void dos_part(const size_t *Ls, int nL, const size_t *blocks, int nB, double bw_dev,
                     int cpu, double bw_cpu)
{
    for (int li = 0; li < MAX_LIST; li++)
        for (int form = 0; form < 2; form++) {
            dos_cpu[li][form][0] = dos_cpu[li][form][1] = NAN;
            for (int bi = 0; bi < MAX_LIST; bi++)
                dos_time[li][form][bi] = NAN;
        }
    for (int form = 0; form < 2; form++)
        for (int li = 0; li < nL; li++)
            dos_lattice(li, Ls[li], form, blocks, nB, bw_dev, cpu, bw_cpu);
    printf("\n# the factorized step's speedup over the table's (ms/step of the table / of the "
           "factorized, same run):\n");
    for (int li = 0; li < nL; li++)
        for (int bi = 0; bi < nB; bi++)
            printf("#   %zu^3, B = %zu: GPU %.2fx\n", Ls[li], blocks[bi],
                   dos_time[li][0][bi] / dos_time[li][1][bi]);
    for (int li = 0; li < nL; li++)
        for (int ci = 0; ci < 2; ci++)
            if (!isnan(dos_cpu[li][0][ci]))
                printf("#   %zu^3, B = %d: CPU %.2fx\n", Ls[li], ci ? 8 : 1,
                       dos_cpu[li][0][ci] / dos_cpu[li][1][ci]);
}

static void dos_lattice(int li, size_t L, int form, const size_t *blocks, int nB,
                        double bw_dev, int cpu, double bw_cpu)
{
    printf("\n## Anderson DOS (W = %.1f, bounds +-%.2f, %s): Chebyshev steps of B random "
           "vectors\n", ANDERSON_W, 6.0 + ANDERSON_W / 2,
           form ? "factorized hopping: the on-site energies only" : "the ELL table");
    printf("\n| lattice | sites | B | steps | ms/step | ms/step/vec | bytes/step | B/site/step "
           "| GB/s | %% copy |\n|---|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    const size_t n = L * L * L;
    const double tb = now();
    mcf_hamiltonian *h = form ? anderson_factorized(L, ANDERSON_W, 2024)
                              : anderson(L, ANDERSON_W, 2024);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kcu_ham *d = NULL;
    CHECK(kcu_ham_create(h, &d), "uploading the Anderson Hamiltonian");
    printf("# %zu^3: built and uploaded in %.1f s (table %.0f MB on the device)\n", L,
           now() - tb, (double)kcu_ham_bytes(d) / 1e6);
    fflush(stdout);
    double gpu_step[MAX_LIST];
    for (int bi = 0; bi < nB; bi++) {
        const size_t B = blocks[bi];
        gpu_step[bi] = NAN;
        kcu_engine *e = NULL;
        const int rc = kcu_engine_create(n, B, &e);
        if (rc == MCF_ENOMEM) {
            printf("| %zu^3 | %zu | %zu | - | out of device memory (%s) | | | | | |\n", L,
                   n, B, mcf_last_error());
            fflush(stdout);
            continue;
        }
        if (rc != MCF_OK)
            die("creating a GPU engine");
        const char *march = getenv("KPM_GPU_BENCH_MARCH"); /* kcu_engine_march's mode */
        kcu_engine_march(e, march && *march ? atoi(march) : 0);
        const char *share = getenv("KPM_GPU_BENCH_SHARE"); /* kcu_engine_march_share's */
        kcu_engine_march_share(e, share && *share ? atoi(share) : -1);
        const char *pairs = getenv("KPM_GPU_BENCH_PAIRS"); /* kcu_engine_pairs's mode */
        kcu_engine_pairs(e, pairs && *pairs ? atoi(pairs) : 0);
        const double est = (double)n * ((form ? 8.0 : 128.0) + 48.0 * (double)B);
        const size_t steps = clampz(0.3 * bw_dev * 1e9 / est, 8, 1000);
        double sec = 0, bytes = 0;
        const int rt = kcu_time_steps(e, d, a, b, B, steps, &sec, &bytes);
        kcu_engine_destroy(e);
        if (rt == MCF_ENOMEM) {
            printf("| %zu^3 | %zu | %zu | %zu | out of device memory (%s) | | | | | |\n",
                   L, n, B, steps, mcf_last_error());
            fflush(stdout);
            continue;
        }
        if (rt != MCF_OK)
            die("timing GPU Chebyshev steps");
        gpu_step[bi] = sec;
        dos_time[li][form][bi] = sec;
        const double gbs = bytes / sec / 1e9;
        printf("| %zu^3 | %zu | %zu | %zu | %.4f | %.5f | %.0f | %.1f | %.1f | %.1f%% |\n", L,
               n, B, steps, 1e3 * sec, 1e3 * sec / (double)B, bytes, bytes / (double)n, gbs,
               100.0 * gbs / bw_dev);
        fflush(stdout);
    }
    kcu_ham_destroy(d);
    if (cpu && L <= 128) {
        const int P = max_threads();
        set_threads(P);
        const size_t cpuB[2] = {1, 8};
        for (int ci = 0; ci < 2; ci++) {
            const size_t B = cpuB[ci];
            kpm_engine *e = NULL;
            CHECK(kpm_engine_create(n, B, &e), "creating a CPU engine");
            size_t S = clampz(2e8 / ((double)n * (double)B), 6, 60);
            double *mu = malloc(B * 2 * (2 + S) * sizeof *mu);
            if (!mu) {
                fprintf(stderr, "kpm_gpu: out of memory\n");
                exit(1);
            }
            const double t1 = kpm_bench_cpu_steps(e, h, a, b, B, 2, mu);
            const double t2 = kpm_bench_cpu_steps(e, h, a, b, B, 2 + S, mu);
            CHECK(t1 < 0 || t2 < 0, "CPU Chebyshev steps");
            const double step = (t2 - t1) / (double)S;
            /* where the CPU engine reads the field (kpm_step_reads_field) */
            const int fac = kpm_step_reads_field(h, B);
            const double bytes = (double)n * ((fac ? 0.0 : 6.0 * 20.0) + 8.0 +
                                              48.0 * (double)B);
            dos_cpu[li][form][ci] = step;
            double g = NAN;
            for (int bi = 0; bi < nB; bi++)
                if (blocks[bi] == B)
                    g = gpu_step[bi];
            printf("# CPU %zu^3, B = %zu, %d threads: %.4f ms/step, %.5f ms/step/vec, "
                   "%.2f GB/s (%.0f%% of the CPU copy bandwidth); GPU speedup per "
                   "vector-step: %.1fx\n",
                   L, B, P, 1e3 * step, 1e3 * step / (double)B, bytes / step / 1e9,
                   100.0 * bytes / step / 1e9 / bw_cpu, step / g);
            fflush(stdout);
            free(mu);
            kpm_engine_destroy(e);
        }
    }
    mcf_hamiltonian_destroy(h);
}

/* ---- part 2: GFMC trial flips --------------------------------------------------------- */

typedef struct chain {
    de_lattice d;
    mcf_hamiltonian *h;
    double a, b;
    mcf_rng rng;
    kcu_ham *dh;
    kcu_gfmc *g;
    kpm_gfmc *cg; /* CPU scratch, created when first needed */
    mcf_local_change ch;
} chain;

static void chain_init(chain *c, size_t L, size_t M, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    mcf_rng_init(&c->rng, seed, 0);
    c->d.L = L;
    c->d.n = L * L * L;
    c->d.hund = 0;
    c->d.s = malloc(3 * c->d.n * sizeof *c->d.s);
    if (!c->d.s) {
        fprintf(stderr, "kpm_gpu: out of memory\n");
        exit(1);
    }
    for (size_t s = 0; s < c->d.n; s++)
        de_unit(&c->rng, c->d.s + 3 * s);
    c->h = de_build(&c->d);
    mcf_hamiltonian_scaling(c->h, 0.01, &c->a, &c->b);
    CHECK(kcu_ham_create(c->h, &c->dh), "uploading a GFMC Hamiltonian");
    CHECK(kcu_gfmc_create(c->h->dim, M, 0, 4.0, 0, &c->g), "creating a GPU GFMC workspace");
}

static void chain_free(chain *c)
{
    kpm_gfmc_destroy(c->cg);
    kcu_gfmc_destroy(c->g);
    kcu_ham_destroy(c->dh);
    mcf_hamiltonian_destroy(c->h);
    free(c->d.s);
}

static void new_changes(chain *cs, size_t C)
{
    for (size_t k = 0; k < C; k++) {
        chain *c = cs + k;
        const size_t o = (size_t)mcf_rng_below(&c->rng, c->d.n);
        double s[3];
        de_unit(&c->rng, s);
        de_change(&c->d, o, s, &c->ch);
        CHECK(mcf_local_change_check(&c->ch, c->h->dim), "checking a change");
    }
}

/* seconds of one GPU batch of the current changes of chains 0..C); what the launch did
 * into info */
static double gpu_batch(chain *cs, size_t C, kcu_gfmc_job *jobs, double *dS,
                        kcu_gfmc_info *info)
{
    for (size_t k = 0; k < C; k++) {
        jobs[k].g = cs[k].g;
        jobs[k].d = cs[k].dh;
        jobs[k].h = cs[k].h;
        jobs[k].a = cs[k].a;
        jobs[k].b = cs[k].b;
        jobs[k].T = GFMC_T;
        jobs[k].mu = GFMC_MU;
        jobs[k].change = &cs[k].ch;
    }
    const double t0 = now();
    CHECK(kcu_gfmc_run(jobs, C, &gfmc_settings, dS, NULL, NULL, info), "kcu_gfmc_run");
    const double t = now() - t0;
    for (size_t k = 0; k < C; k++)
        if (!isfinite(dS[k])) {
            fprintf(stderr, "kpm_gpu: GPU dS of chain %zu is %g\n", k, dS[k]);
            exit(1);
        }
    return t;
}

/* seconds of one CPU batch of the current changes of chains 0..C) on all cores */
static double cpu_batch(chain *cs, size_t C, size_t M, double *dS)
{
    for (size_t k = 0; k < C; k++)
        if (!cs[k].cg)
            CHECK(kpm_gfmc_create(cs[k].h->dim, M, 0, KPM_KERNEL_LORENTZ, 4.0, 0, &cs[k].cg),
                  "creating a CPU GFMC workspace");
    int bad = -1;
    const long Cl = (long)C;
    const double t0 = now();
#pragma omp parallel for schedule(dynamic, 1) if (Cl > 1)
    for (long k = 0; k < Cl; k++) {
        chain *c = cs + k;
        if (kpm_gfmc_delta_action(c->cg, c->h, c->a, c->b, &c->ch, GFMC_T, GFMC_MU, &dS[k],
                                  NULL, NULL) != MCF_OK) {
#pragma omp critical
            bad = (int)k;
        }
    }
    const double t = now() - t0;
    if (bad >= 0) {
        fprintf(stderr, "kpm_gpu: CPU GFMC of chain %d failed\n", bad);
        die("kpm_gfmc_delta_action");
    }
    return t;
}

static void gfmc_part(const size_t *Ls, int nL, const size_t *chains, int nC, size_t M,
                      double bw_dev, int cpu)
{
    const int P = max_threads();
    printf("\n## GFMC trial flips (double exchange, infinite Hund, M = %zu, N = %zu, Lorentz "
           "lambda = 4, T = %.2f): one flip per chain per batch\n",
           M, 2 * M, GFMC_T);
    printf("\n| lattice | sites | where | chains | G | reps | ms/batch (min) | flips/s | us/flip "
           "| floor MB/batch | floor ms | %% floor | speedup |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    size_t Cmax = 0;
    for (int ci = 0; ci < nC; ci++)
        if (chains[ci] > Cmax)
            Cmax = chains[ci];
    for (int li = 0; li < nL; li++) {
        const size_t L = Ls[li], n = L * L * L;
        /* CPU chain counts: the GPU's, or 1 and all cores from 32^3 on */
        size_t cchains[MAX_LIST];
        int ncc = 0;
        if (cpu) {
            if (n >= 32768) {
                cchains[ncc++] = 1;
                if (P > 1)
                    cchains[ncc++] = (size_t)P;
            } else {
                for (int ci = 0; ci < nC; ci++)
                    cchains[ncc++] = chains[ci];
            }
        }
        size_t Call = Cmax;
        for (int ci = 0; ci < ncc; ci++)
            if (cchains[ci] > Call)
                Call = cchains[ci];
        const double tb = now();
        chain *cs = calloc(Call, sizeof *cs);
        kcu_gfmc_job *jobs = calloc(Call, sizeof *jobs);
        double *dS = calloc(Call, sizeof *dS), *dS_cpu = calloc(Call, sizeof *dS_cpu);
        if (!cs || !jobs || !dS || !dS_cpu) {
            fprintf(stderr, "kpm_gpu: out of memory\n");
            exit(1);
        }
        for (size_t k = 0; k < Call; k++)
            chain_init(&cs[k], L, M, 1000 + (uint64_t)k);
        printf("# %zu^3: %zu chains built and uploaded in %.1f s\n", L, Call, now() - tb);
        fflush(stdout);
        const double bytes_flip = (double)(M / 2) * (double)n * 320.0;
        double gpu_t[MAX_LIST], best_gpu = 0;
        size_t best_gpu_C = 0;
        for (int ci = 0; ci < nC; ci++) {
            const size_t C = chains[ci];
            kcu_gfmc_info info;
            new_changes(cs, C);
            gpu_batch(cs, C, jobs, dS, &info); /* warm-up: weights, first launch */
            new_changes(cs, C);
            const double t1 = gpu_batch(cs, C, jobs, dS, &info);
            const size_t reps = clampz(0.5 / t1, 3, 200);
            double sum = 0, tmin = 1e30;
            for (size_t r = 0; r < reps; r++) {
                new_changes(cs, C);
                const double t = gpu_batch(cs, C, jobs, dS, &info);
                sum += t;
                if (t < tmin)
                    tmin = t;
            }
            const double t = sum / (double)reps;
            gpu_t[ci] = t;
            if ((double)C / t > best_gpu) {
                best_gpu = (double)C / t;
                best_gpu_C = C;
            }
            const double fb = bytes_flip * (double)C, floor_t = fb / (bw_dev * 1e9);
            printf("| %zu^3 | %zu | GPU | %zu | %d | %zu | %.3f (%.3f) | %.0f | %.2f | %.1f | "
                   "%.3f | %.0f%% | |\n",
                   L, n, C, info.cluster, reps, 1e3 * t, 1e3 * tmin, (double)C / t,
                   1e6 * t / (double)C, fb / 1e6, 1e3 * floor_t, 100.0 * floor_t / t);
            /* the phases of the last repetition's launch */
            printf("#   in the kernel, chain 0: recursion %.1f us (%.2f us/step; H read "
                   "from %s), Green's functions at the nodes %.1f us (%s), phase sum %.1f us\n",
                   1e6 * info.recursion, 1e6 * info.recursion / (double)(M / 2),
                   info.v_shared   ? "shared memory, vectors too"
                   : info.h_shared ? "shared memory"
                                   : "the device table",
                   1e6 * info.green, info.fft ? "FFT" : "direct sums", 1e6 * info.rest);
            fflush(stdout);
        }
        if (cpu && Cmax > 0) {
            /* the last GPU batch (of the last C: its changes are still in cs[].ch) on the CPU */
            const size_t Cl = chains[nC - 1], nchk = Cl < 8 ? Cl : 8;
            cpu_batch(cs, nchk, M, dS_cpu);
            double dmax = 0;
            for (size_t k = 0; k < nchk; k++)
                dmax = fmax(dmax, fabs(dS_cpu[k] - dS[k]));
            printf("# %zu^3: max |dS_GPU - dS_CPU| over %zu chains: %.3g (dS ~ %.3g)\n", L,
                   nchk, dmax, dS_cpu[0]);
            fflush(stdout);
        }
        double best_cpu = 0;
        size_t best_cpu_C = 0;
        for (int ci = 0; ci < ncc; ci++) {
            const size_t C = cchains[ci];
            set_threads(P);
            new_changes(cs, C);
            const double t1 = cpu_batch(cs, C, M, dS_cpu); /* warm-up (and estimate) */
            const size_t reps = clampz(1.0 / t1, 2, 20);
            double sum = 0, tmin = 1e30;
            for (size_t r = 0; r < reps; r++) {
                new_changes(cs, C);
                const double t = cpu_batch(cs, C, M, dS_cpu);
                sum += t;
                if (t < tmin)
                    tmin = t;
            }
            const double t = sum / (double)reps;
            if ((double)C / t > best_cpu) {
                best_cpu = (double)C / t;
                best_cpu_C = C;
            }
            double g = NAN;
            for (int cj = 0; cj < nC; cj++)
                if (chains[cj] == C)
                    g = gpu_t[cj];
            const double fb = bytes_flip * (double)C;
            char sp[32] = "";
            if (isfinite(g))
                snprintf(sp, sizeof sp, "%.1fx", t / g);
            printf("| %zu^3 | %zu | CPU %dT | %zu | - | %zu | %.3f (%.3f) | %.0f | %.2f | %.1f | "
                   "| %.2f GB/s | %s |\n",
                   L, n, P, C, reps, 1e3 * t, 1e3 * tmin, (double)C / t, 1e6 * t / (double)C,
                   fb / 1e6, fb / t / 1e9, sp);
            fflush(stdout);
        }
        if (ncc > 0 && best_cpu > 0 && best_gpu > 0)
            printf("# %zu^3 throughput: GPU %.0f flips/s (%zu chains) vs CPU %.0f flips/s (%zu "
                   "chains, %d threads): %.1fx\n",
                   L, best_gpu, best_gpu_C, best_cpu, best_cpu_C, P, best_gpu / best_cpu);
        fflush(stdout);
        for (size_t k = 0; k < Call; k++)
            chain_free(&cs[k]);
        free(cs);
        free(jobs);
        free(dS);
        free(dS_cpu);
    }
}

int main(void)
{
    char why[256];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 0;
    }
    size_t dosL[MAX_LIST], blocks[MAX_LIST], gfmcL[MAX_LIST], chains[MAX_LIST], Ms[MAX_LIST];
    const int ndos = parse_list("KPM_GPU_BENCH_DOS_L", "128 256", 3, 1024, dosL);
    const int nB = parse_list("KPM_GPU_BENCH_BLOCKS", "1 2 4 8 16 32 64", 1, 64, blocks);
    const int ng = parse_list("KPM_GPU_BENCH_GFMC_L", "8 16 32", 3, 1024, gfmcL);
    const int nC = parse_list("KPM_GPU_BENCH_CHAINS", "1 8 32 128", 1, MAX_CHAINS, chains);
    const int nM = parse_list("KPM_GPU_BENCH_M", "256", 2, 1 << 20, Ms);
    const char *ce = getenv("KPM_GPU_BENCH_CPU");
    const int cpu = !(ce && !strcmp(ce, "0"));
    const size_t M = nM ? Ms[0] : 256;

    const int threads[1] = {max_threads()};
    double bw_cpu[1] = {NAN};
    bench_machine("kpm_gpu", "KPM_GPU_BENCH_CPU", threads, 1, bw_cpu);
    CHECK(kcu_device_init(), "initializing the device");
    printf("device: %s, %d SMs; %s\n", kcu_device_name(), kcu_device_sms(), why);
    size_t G[1];
    if (parse_list("KPM_GPU_BENCH_CLUSTER", "0", 0, 16, G) == 1 && G[0] > 0) {
        gfmc_settings.blocks_per_chain = (int)G[0];
        printf("KPM_GPU_BENCH_CLUSTER=%zu (GFMC cluster size fixed)\n", G[0]);
    }
    const char *nf = getenv("KPM_GPU_BENCH_NO_FFT"), *nd = getenv("KPM_GPU_BENCH_NO_DSMEM");
    if (nf && !strcmp(nf, "1")) {
        gfmc_settings.fft = 0;
        printf("KPM_GPU_BENCH_NO_FFT=1 (GFMC: Horner's rule at the nodes)\n");
    }
    if (nd && !strcmp(nd, "1")) {
        gfmc_settings.shared_vectors = 0;
        printf("KPM_GPU_BENCH_NO_DSMEM=1 (GFMC: vectors in device memory)\n");
    }
    const double bw_dev = kcu_copy_bandwidth((size_t)1 << 30, 5);
    if (!(bw_dev > 0))
        die("measuring the device copy bandwidth");
    printf("device copy bandwidth (cudaMemcpy D2D, 1 GiB, read + write, best of 5): %.1f GB/s\n",
           bw_dev);
    fflush(stdout);

    if (ndos > 0 && nB > 0)
        dos_part(dosL, ndos, blocks, nB, bw_dev, cpu, bw_cpu[0]);
    if (ng > 0 && nC > 0)
        gfmc_part(gfmcL, ng, chains, nC, M, bw_dev, cpu);
    return 0;
}
