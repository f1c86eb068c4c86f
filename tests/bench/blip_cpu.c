/* blip_cpu.c — benchmark of the CPU orbital evaluators: blip (plugins/blip) against the
 * machine's copy bandwidth, and against planewave (plugins/planewave) at the same N and L.
 *
 * Usage: blip_cpu [grid ...]        (default: 50 60; blip grids of grid^3 points)
 * Environment: BLIP_BENCH_SIZES="216:56 648:168 1536:384" (points N : orbitals L, the seed
 * paper's sizes), BLIP_BENCH_COPY=0 (skip the copy bandwidth: % of copy is then nan).
 *
 * Method.  For each size, L real orbitals on the L shortest plane waves of a cubic cell
 * (G sorted by |n|^2) with dense random coefficients (every orbital mixes all L plane
 * waves: the timing does not depend on the values; planewave then costs L^2 terms per
 * point).  One batched call evaluates all N points of one workspace (the N trial positions
 * of a particle-by-particle sweep).  Eight sets of N uniform random positions are cycled
 * through, so that consecutive calls do not find the same coefficient rows in cache; the
 * time of one call is the best of R calls, R chosen for about 0.3 s per measurement (at
 * least 3).  Threads: 1, and all cores (OpenMP over points).
 *
 * Bytes per call, counted from what the layout must read at least once: per point 64
 * coefficient rows of L doubles (16 groups of 4 consecutive z rows, 4 L doubles each), the
 * same for values and for vgl (vgl reads each row once and updates 5 sums), plus the
 * results written: L doubles (values) or 5 L (vgl: value, 3 gradient components,
 * Laplacian).  The copy bandwidth is STREAM "copy" (bench_util.h) with the same thread
 * count, over arrays of max(4 x last-level cache, 256 MiB).  When the table (grid^3 L x 8
 * bytes) fits in the last-level cache the ratio can exceed 100%: the column "table" says
 * how big it is. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_orbitals.h"
#include "bench_util.h"
#include "internal.h"
#include "mcf/mcf.h"

int main(int argc, char **argv)
{
    long grids[8];
    int ngrid = 0;
    for (int i = 1; i < argc && ngrid < 8; i++) {
        const long g = strtol(argv[i], NULL, 10);
        if (g < 8) {
            fprintf(stderr, "blip_cpu: grid %s: give grids of >= 8 points per side\n",
                    argv[i]);
            return 2;
        }
        grids[ngrid++] = g;
    }
    if (!ngrid) {
        grids[0] = 50;
        grids[1] = 60;
        ngrid = 2;
    }
    bench_size sizes[BENCH_MAX_SIZES] = {{216, 56}, {648, 168}, {1536, 384}};
    const int nsize = bench_sizes_env(sizes, 3);

    mcf_plugin *pb = NULL, *pp = NULL;
    if (mcfe_plugin_open("blip", MCF_PLUGIN_ORBITAL_EVALUATOR, &pb) ||
        mcfe_plugin_open("planewave", MCF_PLUGIN_ORBITAL_EVALUATOR, &pp)) {
        fprintf(stderr, "blip_cpu: %s\n", mcf_last_error());
        return 1;
    }
    const mcf_plugin_info *bops = pb->info, *pops = pp->info; /* either ABI: orbital_test.h */

    const int threads[2] = {1, max_threads()};
    const int nT = threads[1] > 1 ? 2 : 1;
    double bw[2] = {NAN, NAN};
    bench_machine("blip_cpu", "BLIP_BENCH_COPY", threads, nT, bw);
    printf("\n| N | L | grid | table | op | threads | ms/call | us/point | bytes/call | GB/s "
           "| %% of copy | planewave ms/call | speedup |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);

    mcf_rng rng;
    mcf_rng_init(&rng, 12345, 0);
    for (int si = 0; si < nsize; si++) {
        const size_t N = sizes[si].N, L = sizes[si].L;
        bench_orbitals bo;
        if (bench_orbitals_make(&bo, N, L, &rng, "blip_cpu")) {
            fprintf(stderr, "%s\n", mcf_last_error());
            return 1;
        }

        /* planewave: the same for every grid */
        mcf_params prm;
        mcf_value vals[8];
        void *pws = NULL;
        double tpw[2][2] = {{NAN, NAN}, {NAN, NAN}}; /* [thread][op] */
        if (bench_params(pp->info, "blip_cpu", 0, &prm, vals, 8) ||
            tor_create(pops, &prm, &bo.o, &pws)) {
            fprintf(stderr, "blip_cpu: planewave: %s\n", mcf_last_error());
            return 1;
        }
        for (int t = 0; t < nT; t++) {
            set_threads(threads[t]);
            for (int op = 0; op < 2; op++)
                tpw[t][op] = bench_time_cpu(pops, pws, op, &bo, "blip_cpu");
        }
        tor_destroy(pops, pws);
        bench_params_release(&prm);

        for (int gi = 0; gi < ngrid; gi++) {
            void *bws = NULL;
            if (bench_params(pb->info, "blip_cpu", grids[gi], &prm, vals, 8)) {
                fprintf(stderr, "blip_cpu: %s\n", mcf_last_error());
                return 1;
            }
            set_threads(threads[nT - 1]);
            const double tc = now();
            if (tor_create(bops, &prm, &bo.o, &bws)) {
                fprintf(stderr, "blip_cpu: blip: %s\n", mcf_last_error());
                return 1;
            }
            const double tcreate = now() - tc;
            const double G = (double)grids[gi];
            const double table = G * G * G * (double)L * 8.0;
            for (int op = 0; op < 2; op++)
                for (int t = 0; t < nT; t++) {
                    set_threads(threads[t]);
                    const double tb = bench_time_cpu(bops, bws, op, &bo, "blip_cpu");
                    const double bytes =
                        (double)N * (64.0 * (double)L * 8.0 + (op ? 5.0 : 1.0) * (double)L * 8.0);
                    const double gbs = bytes / tb / 1e9;
                    printf("| %zu | %zu | %ld^3 | %.0f MB | %s | %d | %.3f | %.3f | %.3g | %.2f "
                           "| %.0f%% | %.2f | %.1f |\n",
                           N, L, grids[gi], table / 1e6, op ? "vgl" : "values", threads[t],
                           tb * 1e3, tb / (double)N * 1e6, bytes, gbs, 100.0 * gbs / bw[t],
                           tpw[t][op] * 1e3, tpw[t][op] / tb);
                    fflush(stdout);
                }
            printf("|  |  |  |  | (create: %.2f s, %d threads) |  |  |  |  |  |  |  |  |\n",
                   tcreate, threads[nT - 1]);
            tor_destroy(bops, bws);
            bench_params_release(&prm);
        }
        bench_orbitals_free(&bo);
    }
    tor_batch_release(); /* before the plugins whose keep slots it may hold */
    mcfe_plugin_close(pb);
    mcfe_plugin_close(pp);
    return 0;
}
