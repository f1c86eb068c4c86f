/* response_cpu.c — benchmark of the two-dimensional Chebyshev moments on the CPU (issue 47:
 * the kpm evaluator's response op, kpm_ops_response.c; kpm-cuda's device path is
 * tests/bench/response_gpu.c): time per random vector, bytes moved, and their rate against
 * the machine's copy bandwidth with all threads; the inner products' flop rate.
 *
 * Usage: MCF_PLUGIN_PATH=build/lib/mcf build/tests/bench/response_cpu [L ...]
 *        (default 16 24; Anderson on L^3 periodic cubes, W = 1, J_x, J_x)
 * Environment: RESPONSE_BENCH_M (moments per index, default 128), RESPONSE_BENCH_COPY=0
 * (skip the copy bandwidth).
 *
 * Method.  One response call with vectors = 1 (one random vector), best of 3.  Bytes per
 * vector are what the op must touch at least once: the 3M products with H~ or B (the
 * recursions of beta and gamma, B on every beta_m) at dim (6 slots x 20 B + 8 B + 3 x 16 B),
 * and the M^2 inner products <gamma_n|beta_m>, taken 8 gammas at a time (kpm_ops_response.c):
 * every beta_m read once per chunk, M^2 / 8 dim 16 B (the chunk's tile stays in cache).
 * They are 8 M^2 dim flops, printed as GFLOP/s of the whole call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "evaluator_test.h"
#include "mcf/mcf.h"
#include "mcf_engine.h"
#include "test_params.h"

int main(int argc, char **argv)
{
    const char *em = getenv("RESPONSE_BENCH_M");
    const size_t M = em ? (size_t)atol(em) : 128;
    const int threads[1] = {max_threads()};
    double bw = NAN;
    bench_machine("response_cpu", "RESPONSE_BENCH_COPY", threads, 1, &bw);
    mcf_plugin *pk = NULL;
    if (mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk)) {
        fprintf(stderr, "response_cpu: %s (set MCF_PLUGIN_PATH)\n", mcf_last_error());
        return 1;
    }
    test_params *tp = test_params_make(pk->info->params, "bench", "vectors", "1", NULL);
    printf("%6s %9s %5s %10s %12s %9s %9s %9s\n", "L", "dim", "M", "s/vector", "GB/vector",
           "GB/s", "% copy", "GFLOP/s");
    const long Ls[] = {16, 24};
    const int nL = argc > 1 ? argc - 1 : 2;
    for (int q = 0; q < nL; q++) {
        const long L = argc > 1 ? atol(argv[q + 1]) : Ls[q];
        mcf_lattice *lat = NULL;
        mcf_hamiltonian *h = NULL, *J = NULL;
        if (mcf_lattice_create(MCF_LATTICE_CUBIC, L, MCF_BOUNDARY_PERIODIC, &lat) ||
            mcf_hamiltonian_create(lat->sites, 1, 6, &h) ||
            mcf_hamiltonian_set_hopping(h, lat, 1.0)) {
            fprintf(stderr, "response_cpu: L = %ld: %s\n", L, mcf_last_error());
            return 1;
        }
        mcf_rng rng;
        mcf_rng_init(&rng, 47, (uint64_t)L);
        for (size_t i = 0; i < lat->sites; i++)
            mcf_hamiltonian_set_onsite(h, i, mcf_rng_uniform(&rng) - 0.5);
        mcf_current_operator(h, lat, 0, &J);
        void *ws = test_params_workspace(pk->info, tp, h);
        double *re = malloc(M * M * sizeof *re), *im = malloc(M * M * sizeof *im);
        const mcf_hamiltonian *A = J;
        mcf_response r = {.moments = M, .op_a = &A, .op_b = &A, .mu_re = &re, .mu_im = &im};
        mcf_rng *rp = &rng;
        double best = 1e30;
        for (int rep = 0; ws && rep < 3; rep++) {
            const double t0 = now();
            if (tev_v2(pk->info)->response(tev_batch(), &ws, 1, &rp, &r)) {
                fprintf(stderr, "response_cpu: %s\n", mcf_last_error());
                return 1;
            }
            best = fmin(best, now() - t0);
        }
        const double dim = (double)h->dim;
        const double bytes =
            3.0 * (double)M * dim * 176.0 + (double)M * (double)M * dim * 16.0 / 8.0;
        const double flops = 8.0 * (double)M * (double)M * dim;
        printf("%6ld %9.0f %5zu %10.3f %12.3f %9.2f %9.1f %9.2f\n", L, dim, M, best,
               bytes / 1e9, bytes / best / 1e9, 100.0 * bytes / best / 1e9 / bw,
               flops / best / 1e9);
        if (ws)
            tev_destroy(pk->info, ws);
        free(re);
        free(im);
        mcf_hamiltonian_destroy(J);
        mcf_hamiltonian_destroy(h);
        mcf_lattice_destroy(lat);
    }
    test_params_free(tp);
    tev_batch_release();
    mcfe_plugin_close(pk);
    return 0;
}
