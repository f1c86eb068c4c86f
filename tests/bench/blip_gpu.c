/* blip_gpu.c — benchmark of the GPU orbital evaluator blip-cuda (its device layer,
 * cuda/blip-cuda/blip_cuda.h) against the device's copy bandwidth and against the CPU
 * plugin blip on all cores and on one core of the same host.
 *
 * Usage: blip_gpu [grid]            (default 60: blip grids of grid^3 points)
 * Environment: BLIP_BENCH_SIZES="216:56 648:168 1536:384 4096:1024" (points N : orbitals L),
 * BLIP_BENCH_CPU=0 (skip the CPU timings), BLIP_BENCH_VEC=1|2|4 (orbitals per thread of the
 * values kernel, blip-cuda's [evaluator] orbitals_per_thread; default 2, the plugin's).
 * Without a device: "skipped: no device".
 *
 * Method (as blip_cpu): L real orbitals on the L shortest plane waves of a cubic cell with
 * dense random coefficients; the table is built once by mcf_blip_core (the same as both
 * plugins build) and uploaded as float.  A batch is all N points of one workspace (the N
 * trial positions of a sweep).  Eight sets of N random positions are cycled through; each
 * time is the best of R calls, R chosen for about 0.3 s (at least 5).
 *
 *   kernel ms   the kernel alone (CUDA events around the launch);
 *   total ms    the whole bcu_eval: staging the positions, one copy up, the kernel, one copy
 *               of the double results down (N L x 1 or 5 doubles), scattering them;
 *   bytes       what the kernel must read at least: 64 coefficient rows of L floats per
 *               point (256 L bytes per point, values and vgl alike); the results written
 *               (8 L or 40 L bytes per point) are NOT counted;
 *   % of copy   bytes / kernel time over the device-to-device cudaMemcpy bandwidth
 *               (read + write bytes per second) measured in the same run.
 *   speedup     CPU blip time (all cores; one core) / GPU time, kernel and total.
 * The accumulation precision of the 64-term sums is measured both ways (float: the
 * plugin's default; double: [evaluator] sum_precision = double). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_orbitals.h"
#include "bench_util.h"
#include "blip_core.h"
#include "blip_cuda.h"
#include "internal.h"
#include "mcf/mcf.h"
#include "orbital_test.h"

/* best kernel and total seconds of bcu_eval calls (staged through the bench's batch,
 * orbital_test.h's, whose staging the first call allocates) */
static int time_gpu(const bcu_table *t, int vgl, const bench_orbitals *b, double *kernel,
                    double *total)
{
    mcf_batch *batch = tor_batch();
    double *phi = b->phi, *grad = b->grad, *lap = b->lap;
    size_t N = b->N;
    *kernel = *total = 1e30;
    const double t0 = now();
    for (int calls = 0;; calls++) {
        const double *rr = b->r[calls % BENCH_SETS];
        if (bcu_eval(batch, &t, 1, &rr, &N, &phi, &grad, &lap, vgl)) {
            fprintf(stderr, "blip_gpu: %s\n", mcf_last_error());
            return 1;
        }
        double k, a;
        bcu_last_times(batch, &k, &a);
        if (calls > 0) { /* the first call allocates the staging buffers */
            *kernel = fmin(*kernel, k);
            *total = fmin(*total, a);
        }
        if (calls >= 5 && (now() - t0 > 0.3 || calls >= 2000))
            break;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long grid = argc > 1 ? strtol(argv[1], NULL, 10) : 60;
    if (grid < 8) {
        fprintf(stderr, "blip_gpu: give a grid of >= 8 points per side\n");
        return 2;
    }
    char why[512];
    if (!bcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 0;
    }
    bench_size sizes[BENCH_MAX_SIZES] = {{216, 56}, {648, 168}, {1536, 384}, {4096, 1024}};
    const int nsize = bench_sizes_env(sizes, 4);
    const char *ec = getenv("BLIP_BENCH_CPU");
    const int do_cpu = !(ec && !strcmp(ec, "0"));
    const char *ev = getenv("BLIP_BENCH_VEC");
    const int vec = ev ? atoi(ev) : 2;
    if (vec != 1 && vec != 2 && vec != 4) {
        fprintf(stderr, "blip_gpu: BLIP_BENCH_VEC=%s; use 1, 2 or 4\n", ev);
        return 2;
    }
    mcf_plugin *pb = NULL;
    if (mcfe_plugin_open("blip", MCF_PLUGIN_ORBITAL_EVALUATOR, &pb)) {
        fprintf(stderr, "blip_gpu: %s\n", mcf_last_error());
        return 1;
    }
    const mcf_plugin_info *bops = pb->info; /* either ABI: orbital_test.h */
    char cpu[256];
    bench_cpu_name(cpu, sizeof cpu);
    const int threads[2] = {max_threads(), 1};
    const double bw = bcu_copy_bandwidth((size_t)1 << 30, 10);
    printf("blip_gpu: device %s\nhost: %s, %d cores\ndevice copy bandwidth (cudaMemcpy D2D, "
           "2 x 1 GiB, read + write): %.1f GB/s\ngrid %ld^3, values with %d orbitals per "
           "thread\n", why, cpu, threads[0], bw, grid, vec);
    printf("\n| N | L | table (float) | op | accumulate | kernel ms | GB/s | %% of copy | total "
           "ms | CPU %d cores ms | CPU 1 core ms | speedup kernel (all, 1) | speedup total "
           "(all, 1) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", threads[0]);
    fflush(stdout);
    mcf_rng rng;
    mcf_rng_init(&rng, 12345, 0);
    for (int si = 0; si < nsize; si++) {
        const size_t N = sizes[si].N, L = sizes[si].L;
        bench_orbitals bo;
        if (bench_orbitals_make(&bo, N, L, &rng, "blip_gpu")) {
            fprintf(stderr, "%s\n", mcf_last_error());
            return 1;
        }
        mcf_params prm;
        mcf_value vals[8];
        size_t n[3];
        bcu_table *t = NULL;
        void *bws = NULL;
        set_threads(threads[0]);
        int rc = bench_params(pb->info, "blip_gpu", grid, &prm, vals, 8);
        if (!rc)
            rc = blip_choose_grid("blip_gpu", &prm, &bo.o, n);
        double *tab = rc ? NULL : malloc(n[0] * n[1] * n[2] * L * sizeof *tab);
        if (!rc && !tab)
            rc = mcf_fail(MCF_ENOMEM, "blip_gpu: out of memory for the host table");
        if (!rc)
            rc = blip_build_table("blip_gpu", &bo.o, n, tab);
        if (!rc)
            rc = bcu_table_alloc(n, L, bo.o.cell, &t);
        if (!rc)
            rc = bcu_table_upload(t, tab);
        free(tab);
        if (!rc && do_cpu)
            rc = tor_create(bops, &prm, &bo.o, &bws);
        if (rc) {
            fprintf(stderr, "blip_gpu: N %zu L %zu: %s\n", N, L, mcf_last_error());
            return 1;
        }
        for (int op = 0; op < 2; op++) {
            double tc[2] = {NAN, NAN};
            for (int th = 0; th < 2 && do_cpu; th++) {
                set_threads(threads[th]);
                tc[th] = bench_time_cpu(bops, bws, op, &bo, "blip_gpu: blip");
            }
            set_threads(threads[0]);
            for (int acc = 0; acc < 2; acc++) {
                const bcu_settings set = {acc, vec};
                double tk, tt;
                if (bcu_table_set_settings(t, &set) || time_gpu(t, op, &bo, &tk, &tt))
                    return 1;
                const double bytes = (double)N * 64.0 * (double)L * 4.0;
                const double gbs = bytes / tk / 1e9;
                printf("| %zu | %zu | %.0f MB | %s | %s | %.4f | %.0f | %.0f%% | %.3f | %.3f | "
                       "%.3f | %.0f, %.0f | %.1f, %.1f |\n",
                       N, L, (double)bcu_table_bytes(t) / 1e6, op ? "vgl" : "values",
                       acc ? "double" : "float", tk * 1e3, gbs, 100.0 * gbs / bw, tt * 1e3,
                       tc[0] * 1e3, tc[1] * 1e3, tc[0] / tk, tc[1] / tk, tc[0] / tt,
                       tc[1] / tt);
                fflush(stdout);
            }
        }
        if (bws)
            tor_destroy(bops, bws);
        bcu_table_destroy(t);
        bench_params_release(&prm);
        bench_orbitals_free(&bo);
    }
    tor_batch_release(); /* before the plugin whose keep slots it may hold */
    mcfe_plugin_close(pb);
    return 0;
}
