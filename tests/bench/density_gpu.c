/* density_gpu.c — the density matrix (the forces of a global sampler, mcf/fermion.h's
 * density_matrix) of a double-exchange configuration on the GPU (kpm-cuda) against the CPU
 * (kpm, all cores), through the plugins as a model calls them.
 *
 *   build/tests/bench/density_gpu [L ...]          (default 8 16 32; MCF_PLUGIN_PATH set)
 *
 * Per L: the L^3 periodic cube at infinite Hund coupling, random spins (de_build: the
 * table), T = 0.1, mu = 0 (n = 1/2), one probe at probing_distance 2 (vectors = 8: the
 * stochastic mode), block 16.  Printed: the colours, the Fermi series' order Mf, the time of
 * one call on each, the bytes the series steps move on the device (per step and block of nb
 * vectors: the table, 20 bytes a slot and 8 a row, and five passes over the nb vectors: x
 * gathered once, y read and written, the sum read and written; times Mf and the blocks),
 * that over the call's time as a fraction of the device's copy bandwidth (a cudaMemcpy of
 * 1 GiB: reads + writes), and the speedup over the CPU.  The call's time includes the host's
 * work (phases, the start blocks, the accumulation on the entries, the transfers).  Then
 * the pseudofermion action with its gradient (one MD step of hybrid Monte Carlo) on each;
 * with DENSITY_GPU_CHAINS="8 16" also that many chains' forces in one call on the GPU (one
 * cooperative launch where they fit), the time a chain against the chain alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "de_test_hamiltonian.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "test_params.h"

static double call_time(const mcf_plugin_info *e, test_params *tp, const mcf_hamiltonian *h,
                        size_t *Mf_out, double *trunc)
{
    void *ws = test_params_workspace(e, tp, h);
    if (!ws)
        return NAN;
    const size_t slots = (size_t)h->width * h->dim;
    double *diag = malloc(h->dim * sizeof *diag), *re = malloc(slots * sizeof *re);
    double *im = malloc(slots * sizeof *im);
    const mcf_density_matrix out = {&diag, &re, &im, NULL, NULL, trunc};
    mcf_rng rng;
    mcf_rng_init(&rng, 1, 0);
    mcf_rng *rp = &rng;
    const double T = 0.1, mu = 0.0;
    double best = INFINITY;
    for (int rep = 0; rep < 3; rep++) { /* the first call also sets up (colours, series) */
        const double t0 = now();
        if (tev_v2(e)->density_matrix(tev_batch(), &ws, 1, &rp, &T, &mu, &out)) {
            fprintf(stderr, "%s: %s\n", e->name, mcf_last_error());
            best = NAN;
            break;
        }
        const double t = now() - t0;
        if (rep && t < best)
            best = t;
    }
    /* the series' order: the smallest n with the rest below the tolerance, as kpm sums it */
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    double *c = NULL, tail = 0.0;
    kpm_fermi_series(a, b, T, mu, 1e-8, 1 << 20, &c, Mf_out, &tail);
    free(c);
    free(diag);
    free(re);
    free(im);
    tev_destroy(e, ws);
    return best;
}

/* the pseudofermion action with its gradient (hybrid Monte Carlo's force, one MD step) of
 * nc chains (hs[0 .. nc - 1]) in one call: best of 3 calls after a draw; the series' order
 * and flavours into *M, *nf */
static double pf_time(const mcf_plugin_info *e, test_params *tp, mcf_hamiltonian *const *hs,
                      size_t nc, size_t *M, size_t *nf)
{
    void *ws[64] = {NULL};
    double *re[64], *im[64], *gd[64], *gre[64], *gim[64], S[64], bound[64], T[64] = {0.1};
    double mu[64] = {0.0};
    if (nc < 1 || nc > 64)
        return NAN;
    mcf_rng rng[64], *rp[64];
    const mcf_hamiltonian *h = hs[0];
    for (size_t k = 0; k < nc; k++) {
        if (!(ws[k] = test_params_workspace(e, tp, hs[k])))
            return NAN;
        T[k] = 0.1;
        mu[k] = 0.0;
    }
    mcf_pseudofermion q = {.mode = MCF_PSEUDOFERMION_ACTION};
    tev_v2(e)->pseudofermion(tev_batch(), ws, 1, NULL, T, mu, &q);
    const size_t n = q.flavours, slots = (size_t)h->width * h->dim;
    for (size_t k = 0; k < nc; k++) {
        re[k] = calloc(n * h->dim, sizeof *re[k]);
        im[k] = calloc(n * h->dim, sizeof *im[k]);
        gd[k] = malloc(h->dim * sizeof *gd[k]);
        gre[k] = malloc(slots * sizeof *gre[k]);
        gim[k] = malloc(slots * sizeof *gim[k]);
        mcf_rng_init(&rng[k], 3, k);
        rp[k] = &rng[k];
    }
    mcf_pseudofermion dq = {.mode = MCF_PSEUDOFERMION_DRAW, .phi_re = re, .phi_im = im};
    double best = NAN;
    if (!tev_v2(e)->pseudofermion(tev_batch(), ws, nc, rp, T, mu, &dq)) {
        const mcf_density_matrix g = {gd, gre, gim, NULL, NULL, NULL};
        mcf_pseudofermion aq = {.mode = MCF_PSEUDOFERMION_ACTION, .phi_re = re, .phi_im = im,
                                .action = S, .grad = &g, .bound = bound};
        best = INFINITY;
        for (int rep = 0; rep < 3; rep++) {
            const double t0 = now();
            if (tev_v2(e)->pseudofermion(tev_batch(), ws, nc, NULL, T, mu, &aq)) {
                fprintf(stderr, "%s: %s\n", e->name, mcf_last_error());
                best = NAN;
                break;
            }
            const double t = now() - t0;
            if (t < best)
                best = t;
        }
    } else {
        fprintf(stderr, "%s: %s\n", e->name, mcf_last_error());
    }
    double a, b, *c = NULL, rel = 0.0;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kpm_pf_series(a, b, T[0], mu[0], -1.0 / (double)n, 1e-10, 1 << 20, &c, M, &rel);
    free(c);
    *nf = n;
    for (size_t k = 0; k < nc; k++) {
        free(re[k]);
        free(im[k]);
        free(gd[k]);
        free(gre[k]);
        free(gim[k]);
        tev_destroy(e, ws[k]);
    }
    return best;
}

/* DENSITY_GPU_CHAINS="8 16": the GPU's force of that many chains of L^3 in one call */
static void pf_chains(const mcf_plugin_info *e, test_params *tp, long L, double one)
{
    const char *env = getenv("DENSITY_GPU_CHAINS");
    for (const char *p = env; p && *p;) {
        char *end;
        const long nc = strtol(p, &end, 10);
        if (end == p)
            break;
        p = end;
        if (nc < 2 || nc > 64)
            continue;
        mcf_hamiltonian *hs[64];
        de_lattice d[64];
        for (long k = 0; k < nc; k++) {
            d[k] = de_random_lattice((size_t)L, 0.0, 11 + (uint64_t)k);
            hs[k] = de_build(&d[k]);
        }
        size_t Mp = 0, nf = 0;
        const double t = pf_time(e, tp, hs, (size_t)nc, &Mp, &nf);
        printf("     pseudofermion force of %ld chains in one call: GPU %.4f s, %.5f s a chain "
               "(%.1fx the chain alone)\n", nc, t, t / (double)nc, one / (t / (double)nc));
        for (long k = 0; k < nc; k++) {
            mcf_hamiltonian_destroy(hs[k]);
            free(d[k].s);
        }
    }
}

int main(int argc, char **argv)
{
    mcf_plugin *pk = NULL, *pc = NULL;
    if (mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk) ||
        mcfe_plugin_open("kpm-cuda", MCF_PLUGIN_FERMION_EVALUATOR, &pc)) {
        fprintf(stderr, "loading kpm and kpm-cuda: %s (set MCF_PLUGIN_PATH)\n",
                mcf_last_error());
        return 1;
    }
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 0;
    }
    const double bw = 1e9 * kcu_copy_bandwidth((size_t)1 << 30, 5); /* GB/s -> B/s */
    printf("device: %s, copy bandwidth %.0f GB/s; CPU: %d threads\n", kcu_device_name(),
           bw / 1e9, max_threads());
    printf("%4s %8s %7s %5s %12s %12s %10s %8s %8s\n", "L", "dim", "colours", "Mf", "CPU [s]",
           "GPU [s]", "GB moved", "% copy", "speedup");
    long Ls[8] = {8, 16, 32};
    int nL = 3;
    if (argc > 1)
        for (nL = 0; nL < argc - 1 && nL < 8; nL++)
            Ls[nL] = atol(argv[nL + 1]);
    for (int q = 0; q < nL; q++) {
        de_lattice d = de_random_lattice((size_t)Ls[q], 0.0, 11);
        mcf_hamiltonian *h = de_build(&d);
        test_params *tk = test_params_make(pk->info->params, "bench", "probes", "1", "block",
                                           "16", NULL);
        test_params *tg = test_params_make(pc->info->params, "bench", "probes", "1", "block",
                                           "16", NULL);
        size_t Mf = 0, nc = 0;
        double trunc = 0.0;
        int32_t *col = malloc(h->dim * sizeof *col);
        kpm_probe_colours(h, 2, col, &nc);
        free(col);
        const double tg_s = call_time(pc->info, tg, h, &Mf, &trunc);
        const double tc_s = call_time(pk->info, tk, h, &Mf, &trunc);
        const double blocks = ceil((double)nc / 16.0), nb = (double)nc / blocks;
        const double per_step = (double)h->dim * (20.0 * h->width + 8.0) +
                                5.0 * 16.0 * (double)h->dim * nb;
        const double bytes = per_step * (double)Mf * blocks;
        printf("%4ld %8zu %7zu %5zu %12.4f %12.4f %10.3f %8.1f %8.1f\n", Ls[q], h->dim, nc, Mf,
               tc_s, tg_s, bytes / 1e9, 100.0 * bytes / tg_s / bw, tc_s / tg_s);
        /* hybrid Monte Carlo's force: the series forward (nf vectors) and backward (2 nf),
         * 3 M products of nf vectors: the table and 5 vector passes each */
        size_t Mp = 0, nf = 0;
        const double pg = pf_time(pc->info, tg, &h, 1, &Mp, &nf);
        const double pc_ = pf_time(pk->info, tk, &h, 1, &Mp, &nf);
        const double pbytes = 3.0 * (double)Mp * ((double)h->dim * (20.0 * h->width + 8.0) +
                                                  5.0 * 16.0 * (double)h->dim * (double)nf);
        printf("     pseudofermion force: %zu flavours, M = %zu: CPU %.4f s, GPU %.4f s, "
               "%.3f GB, %.1f %% copy, speedup %.1f\n", nf, Mp, pc_, pg, pbytes / 1e9,
               100.0 * pbytes / pg / bw, pc_ / pg);
        pf_chains(pc->info, tg, Ls[q], pg);
        test_params_free(tk);
        test_params_free(tg);
        mcf_hamiltonian_destroy(h);
        free(d.s);
    }
    tev_batch_release();
    return 0;
}
