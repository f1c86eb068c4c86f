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

#include "bench_util.h"
#include "internal.h"
#include "mcf/mcf.h"

enum { SETS = 8 };

typedef struct size_case {
    size_t N, L;
} size_case;

static int cmp_norm(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    const long na = (long)a[0] * a[0] + (long)a[1] * a[1] + (long)a[2] * a[2];
    const long nb = (long)b[0] * b[0] + (long)b[1] * b[1] + (long)b[2] * b[2];
    if (na != nb)
        return na < nb ? -1 : 1;
    return memcmp(a, b, 3 * sizeof *a);
}

/* parameters of a plugin from its defaults, with grid overridden when grid > 0 */
static int make_params(const mcf_plugin_info *info, long grid, mcf_params *p,
                       mcf_value *values, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->section = "evaluator";
    p->origin = "blip_cpu";
    p->specs = info->params;
    p->n = mcf_spec_count(info->params);
    p->values = values;
    if (p->n > cap)
        return mcf_fail(MCF_EINVAL, "blip_cpu: too many parameters");
    for (size_t k = 0; k < p->n; k++) {
        char text[32];
        const char *t = info->params[k].default_value;
        if (!strcmp(info->params[k].name, "grid") && grid > 0) {
            snprintf(text, sizeof text, "%ld", grid);
            t = text;
        }
        int rc = mcf_value_parse(&info->params[k], t, &values[k]);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

static void release_params(mcf_params *p)
{
    for (size_t k = 0; k < p->n; k++)
        mcf_value_release(&p->values[k]);
}

/* seconds per call (best of R, cycling through the position sets) */
static double time_calls(const mcf_orbital_ops *ops, void *ws, int vgl, double *const *r,
                         size_t N, double *phi, double *grad, double *lap)
{
    double t0 = now();
    int calls = 0;
    double best = 1e30;
    size_t np = N;
    for (;;) {
        const double *rr = r[calls % SETS];
        const double a = now();
        int rc = vgl ? ops->vgl(&ws, 1, &rr, &np, &phi, &grad, &lap)
                     : ops->values(&ws, 1, &rr, &np, &phi);
        const double t = now() - a;
        if (rc) {
            fprintf(stderr, "blip_cpu: %s\n", mcf_last_error());
            return NAN;
        }
        if (t < best)
            best = t;
        calls++;
        if (calls >= 3 && (now() - t0 > 0.3 || calls >= 1000))
            break;
    }
    return best;
}

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
    size_case sizes[8] = {{216, 56}, {648, 168}, {1536, 384}};
    int nsize = 3;
    const char *es = getenv("BLIP_BENCH_SIZES");
    if (es) {
        nsize = 0;
        for (const char *s = es; *s && nsize < 8;) {
            unsigned long n = 0, l = 0;
            int used = 0;
            if (sscanf(s, "%lu:%lu%n", &n, &l, &used) != 2 || !n || !l)
                break;
            sizes[nsize].N = n;
            sizes[nsize].L = l;
            nsize++;
            s += used;
            while (*s == ' ' || *s == ',')
                s++;
        }
    }

    mcf_plugin *pb = NULL, *pp = NULL;
    if (mcf_plugin_open("blip", MCF_PLUGIN_ORBITAL_EVALUATOR, &pb) ||
        mcf_plugin_open("planewave", MCF_PLUGIN_ORBITAL_EVALUATOR, &pp)) {
        fprintf(stderr, "blip_cpu: %s\n", mcf_last_error());
        return 1;
    }
    const mcf_orbital_ops *bops = pb->info->ops, *pops = pp->info->ops;

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
        const size_t N = sizes[si].N, L = sizes[si].L, ng = L;
        /* the L shortest integer vectors */
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

        /* planewave: the same for every grid */
        mcf_params prm;
        mcf_value vals[8];
        void *pws = NULL;
        double tpw[2][2] = {{NAN, NAN}, {NAN, NAN}}; /* [thread][op] */
        if (make_params(pp->info, 0, &prm, vals, 8) || pops->create(&prm, &o, &pws)) {
            fprintf(stderr, "blip_cpu: planewave: %s\n", mcf_last_error());
            return 1;
        }
        for (int t = 0; t < nT; t++) {
            set_threads(threads[t]);
            for (int op = 0; op < 2; op++)
                tpw[t][op] = time_calls(pops, pws, op, r, N, phi, grad, lap);
        }
        pops->destroy(pws);
        release_params(&prm);

        for (int gi = 0; gi < ngrid; gi++) {
            void *bws = NULL;
            if (make_params(pb->info, grids[gi], &prm, vals, 8)) {
                fprintf(stderr, "blip_cpu: %s\n", mcf_last_error());
                return 1;
            }
            set_threads(threads[nT - 1]);
            const double tc = now();
            if (bops->create(&prm, &o, &bws)) {
                fprintf(stderr, "blip_cpu: blip: %s\n", mcf_last_error());
                return 1;
            }
            const double tcreate = now() - tc;
            const double G = (double)grids[gi];
            const double table = G * G * G * (double)L * 8.0;
            for (int op = 0; op < 2; op++)
                for (int t = 0; t < nT; t++) {
                    set_threads(threads[t]);
                    const double tb = time_calls(bops, bws, op, r, N, phi, grad, lap);
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
            bops->destroy(bws);
            release_params(&prm);
        }
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
    mcf_plugin_close(pp);
    return 0;
}
