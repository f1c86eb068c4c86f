/* blip_gpu.c — benchmark of the GPU orbital evaluator blip-cuda (its device layer,
 * cuda/blip-cuda/blip_cuda.h) against the device's copy bandwidth and against the CPU
 * plugin blip on all cores and on one core of the same host.
 *
 * Usage: blip_gpu [grid]            (default 60: blip grids of grid^3 points)
 * Environment: BLIP_BENCH_SIZES="216:56 648:168 1536:384 4096:1024" (points N : orbitals L),
 * BLIP_BENCH_CPU=0 (skip the CPU timings).  Without a device: "skipped: no device".
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
 * plugin's choice; double). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "blip_core.h"
#include "blip_cuda.h"
#include "internal.h"
#include "mcf/mcf.h"

enum { SETS = 8 };

static int cmp_norm(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    const long na = (long)a[0] * a[0] + (long)a[1] * a[1] + (long)a[2] * a[2];
    const long nb = (long)b[0] * b[0] + (long)b[1] * b[1] + (long)b[2] * b[2];
    if (na != nb)
        return na < nb ? -1 : 1;
    return memcmp(a, b, 3 * sizeof *a);
}

static int make_params(const mcf_plugin_info *info, long grid, mcf_params *p,
                       mcf_value *values, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->section = "evaluator";
    p->origin = "blip_gpu";
    p->specs = info->params;
    p->n = mcf_spec_count(info->params);
    p->values = values;
    if (p->n > cap)
        return mcf_fail(MCF_EINVAL, "blip_gpu: too many parameters");
    for (size_t k = 0; k < p->n; k++) {
        char text[32];
        const char *t = info->params[k].default_value;
        if (!strcmp(info->params[k].name, "grid")) {
            snprintf(text, sizeof text, "%ld", grid);
            t = text;
        }
        int rc = mcf_value_parse(&info->params[k], t, &values[k]);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

/* best kernel and total seconds of bcu_eval calls */
static int time_gpu(const bcu_table *t, int vgl, double *const *r, size_t N, double *phi,
                    double *grad, double *lap, double *kernel, double *total)
{
    *kernel = *total = 1e30;
    const double t0 = now();
    for (int calls = 0;; calls++) {
        const double *rr = r[calls % SETS];
        if (bcu_eval(&t, 1, &rr, &N, &phi, &grad, &lap, vgl)) {
            fprintf(stderr, "blip_gpu: %s\n", mcf_last_error());
            return 1;
        }
        double k, a;
        bcu_last_times(&k, &a);
        if (calls > 0) { /* the first call allocates the staging buffers */
            *kernel = fmin(*kernel, k);
            *total = fmin(*total, a);
        }
        if (calls >= 5 && (now() - t0 > 0.3 || calls >= 2000))
            break;
    }
    return 0;
}

static double time_cpu(const mcf_orbital_ops *ops, void *ws, int vgl, double *const *r,
                       size_t N, double *phi, double *grad, double *lap)
{
    const double t0 = now();
    double best = 1e30;
    size_t np = N;
    for (int calls = 0;; calls++) {
        const double *rr = r[calls % SETS];
        const double a = now();
        int rc = vgl ? ops->vgl(&ws, 1, &rr, &np, &phi, &grad, &lap)
                     : ops->values(&ws, 1, &rr, &np, &phi);
        best = fmin(best, now() - a);
        if (rc) {
            fprintf(stderr, "blip_gpu: blip: %s\n", mcf_last_error());
            return NAN;
        }
        if (calls >= 2 && (now() - t0 > 0.3 || calls >= 1000))
            break;
    }
    return best;
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
    size_t sizes[8][2] = {{216, 56}, {648, 168}, {1536, 384}, {4096, 1024}};
    int nsize = 4;
    const char *es = getenv("BLIP_BENCH_SIZES");
    if (es) {
        nsize = 0;
        for (const char *s = es; *s && nsize < 8;) {
            unsigned long n = 0, l = 0;
            int used = 0;
            if (sscanf(s, "%lu:%lu%n", &n, &l, &used) != 2 || !n || !l)
                break;
            sizes[nsize][0] = n;
            sizes[nsize][1] = l;
            nsize++;
            s += used;
            while (*s == ' ' || *s == ',')
                s++;
        }
    }
    const char *ec = getenv("BLIP_BENCH_CPU");
    const int do_cpu = !(ec && !strcmp(ec, "0"));
    mcf_plugin *pb = NULL;
    if (mcf_plugin_open("blip", MCF_PLUGIN_ORBITAL_EVALUATOR, &pb)) {
        fprintf(stderr, "blip_gpu: %s\n", mcf_last_error());
        return 1;
    }
    const mcf_orbital_ops *bops = pb->info->ops;
    char cpu[256];
    bench_cpu_name(cpu, sizeof cpu);
    const int threads[2] = {max_threads(), 1};
    const double bw = bcu_copy_bandwidth((size_t)1 << 30, 10);
    printf("blip_gpu: device %s\nhost: %s, %d cores\ndevice copy bandwidth (cudaMemcpy D2D, "
           "2 x 1 GiB, read + write): %.1f GB/s\ngrid %ld^3\n", why, cpu, threads[0], bw,
           grid);
    printf("\n| N | L | table (float) | op | accumulate | kernel ms | GB/s | %% of copy | total "
           "ms | CPU %d cores ms | CPU 1 core ms | speedup kernel (all, 1) | speedup total "
           "(all, 1) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", threads[0]);
    fflush(stdout);
    mcf_rng rng;
    mcf_rng_init(&rng, 12345, 0);
    for (int si = 0; si < nsize; si++) {
        const size_t N = sizes[si][0], L = sizes[si][1], ng = L;
        int R = 1;
        while ((2 * R + 1) * (2 * R + 1) * (2 * R + 1) < (int)(4 * ng))
            R++;
        const size_t ncand = (size_t)(2 * R + 1) * (size_t)(2 * R + 1) * (size_t)(2 * R + 1);
        int32_t *cand = malloc(3 * ncand * sizeof *cand);
        size_t c = 0;
        for (int x = -R; x <= R; x++)
            for (int y = -R; y <= R; y++)
                for (int z = -R; z <= R; z++) {
                    cand[3 * c] = x;
                    cand[3 * c + 1] = y;
                    cand[3 * c + 2] = z;
                    c++;
                }
        qsort(cand, ncand, 3 * sizeof *cand, cmp_norm);
        double *a = malloc(L * ng * sizeof *a), *b = malloc(L * ng * sizeof *b);
        for (size_t k = 0; k < L * ng; k++) {
            a[k] = 2 * mcf_rng_uniform(&rng) - 1;
            b[k] = 2 * mcf_rng_uniform(&rng) - 1;
        }
        const double side = 10.0;
        mcf_pw_orbitals o = {{side, side, side}, L, ng, cand, a, b};
        double *r[SETS];
        for (int s = 0; s < SETS; s++) {
            r[s] = malloc(3 * N * sizeof(double));
            for (size_t k = 0; k < 3 * N; k++)
                r[s][k] = side * mcf_rng_uniform(&rng);
        }
        double *phi = malloc(N * L * sizeof *phi), *grad = malloc(3 * N * L * sizeof *grad);
        double *lap = malloc(N * L * sizeof *lap);
        mcf_params prm;
        mcf_value vals[8];
        size_t n[3];
        bcu_table *t = NULL;
        void *bws = NULL;
        set_threads(threads[0]);
        int rc = make_params(pb->info, grid, &prm, vals, 8);
        if (!rc)
            rc = blip_choose_grid("blip_gpu", &prm, &o, n);
        double *tab = rc ? NULL : malloc(n[0] * n[1] * n[2] * L * sizeof *tab);
        if (!rc && !tab)
            rc = mcf_fail(MCF_ENOMEM, "blip_gpu: out of memory for the host table");
        if (!rc)
            rc = blip_build_table("blip_gpu", &o, n, tab);
        if (!rc)
            rc = bcu_table_alloc(n, L, o.cell, &t);
        if (!rc)
            rc = bcu_table_upload(t, tab);
        free(tab);
        if (!rc && do_cpu)
            rc = bops->create(&prm, &o, &bws);
        if (rc) {
            fprintf(stderr, "blip_gpu: N %zu L %zu: %s\n", N, L, mcf_last_error());
            return 1;
        }
        for (int op = 0; op < 2; op++) {
            double tc[2] = {NAN, NAN};
            for (int th = 0; th < 2 && do_cpu; th++) {
                set_threads(threads[th]);
                tc[th] = time_cpu(bops, bws, op, r, N, phi, grad, lap);
            }
            set_threads(threads[0]);
            for (int acc = 0; acc < 2; acc++) {
                bcu_set_accumulate_double(acc);
                double tk, tt;
                if (time_gpu(t, op, r, N, phi, grad, lap, &tk, &tt))
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
            bcu_set_accumulate_double(0);
        }
        if (bws)
            bops->destroy(bws);
        bcu_table_destroy(t);
        for (size_t k = 0; k < prm.n; k++)
            mcf_value_release(&prm.values[k]);
        for (int s = 0; s < SETS; s++)
            free(r[s]);
        free(phi);
        free(grad);
        free(lap);
        free(a);
        free(b);
        free(cand);
    }
    mcf_plugin_close(pb);
    return 0;
}
