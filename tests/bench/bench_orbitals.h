/* bench_orbitals.h — what the orbital-evaluator benchmarks (blip_cpu, blip_gpu) share: the
 * sizes to run (BLIP_BENCH_SIZES), the random plane-wave orbital set and position sets they
 * time, the [evaluator] parameters of a plugin from its defaults, and the best-of-R timing
 * of a CPU evaluator's batched call.
 *
 *   bench_sizes_env      the "N:L N:L ..." list of BLIP_BENCH_SIZES, when it is set;
 *   bench_orbitals_make  L real orbitals on the L shortest plane waves of a cubic cell of
 *                        side BENCH_SIDE (G sorted by |n|^2), dense random coefficients in
 *                        [-1, 1) (a then b, interleaved, orbital by orbital), then BENCH_SETS
 *                        sets of N uniform random positions in the cell, all from one rng in
 *                        that order; and the result arrays for one batch of N points;
 *   bench_params         a plugin's parameters from its defaults, grid overridden when > 0;
 *   bench_time_cpu       seconds per call, best of R (at least 3, about 0.3 s, at most 1000),
 *                        cycling through the position sets; the evaluator of either ABI
 *                        (tests/orbital_test.h).
 * Needs core/engine (internal.h) and tests/ on the include path. */
#ifndef MCF_BENCH_ORBITALS_H
#define MCF_BENCH_ORBITALS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "internal.h"
#include "mcf/mcf.h"
#include "orbital_test.h"

enum { BENCH_SETS = 8, BENCH_MAX_SIZES = 8 };

#define BENCH_SIDE 10.0

typedef struct bench_size {
    size_t N, L; /* points per batch, orbitals */
} bench_size;

/* BLIP_BENCH_SIZES="N:L N:L ..." (spaces or commas between) into sizes[BENCH_MAX_SIZES];
 * returns how many, or n_default when the variable is not set. */
static inline int bench_sizes_env(bench_size *sizes, int n_default)
{
    const char *es = getenv("BLIP_BENCH_SIZES");
    if (!es)
        return n_default;
    int nsize = 0;
    for (const char *s = es; *s && nsize < BENCH_MAX_SIZES;) {
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
    return nsize;
}

static inline int bench_cmp_norm(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    const long na = (long)a[0] * a[0] + (long)a[1] * a[1] + (long)a[2] * a[2];
    const long nb = (long)b[0] * b[0] + (long)b[1] * b[1] + (long)b[2] * b[2];
    if (na != nb)
        return na < nb ? -1 : 1;
    return memcmp(a, b, 3 * sizeof *a);
}

/* one size's orbitals, positions and result arrays (owned) */
typedef struct bench_orbitals {
    mcf_pw_orbitals o;        /* borrows cand, a, b */
    size_t N;                 /* points per batch */
    int32_t *cand;            /* candidate G triples, shortest first (the first L are used) */
    double *a, *b;            /* L x L cos and sin coefficients */
    double *r[BENCH_SETS];    /* BENCH_SETS sets of N positions (3 N doubles each) */
    double *phi, *grad, *lap; /* results of one batch: N L, 3 N L, N L */
} bench_orbitals;

static inline void bench_orbitals_free(bench_orbitals *b)
{
    for (int s = 0; s < BENCH_SETS; s++)
        free(b->r[s]);
    free(b->phi);
    free(b->grad);
    free(b->lap);
    free(b->a);
    free(b->b);
    free(b->cand);
    memset(b, 0, sizeof *b);
}

/* MCF_OK, or MCF_ENOMEM (with the message "who: out of memory") */
static inline int bench_orbitals_make(bench_orbitals *b, size_t N, size_t L, mcf_rng *rng,
                                      const char *who)
{
    memset(b, 0, sizeof *b);
    b->N = N;
    const size_t ng = L;
    /* the L shortest integer vectors */
    int R = 1;
    while ((2 * R + 1) * (2 * R + 1) * (2 * R + 1) < (int)(4 * ng))
        R++;
    const size_t ncand = (size_t)(2 * R + 1) * (size_t)(2 * R + 1) * (size_t)(2 * R + 1);
    b->cand = malloc(3 * ncand * sizeof *b->cand);
    b->a = malloc(L * ng * sizeof *b->a);
    b->b = malloc(L * ng * sizeof *b->b);
    int ok = b->cand && b->a && b->b;
    for (int s = 0; s < BENCH_SETS; s++)
        ok = (b->r[s] = malloc(3 * N * sizeof(double))) && ok;
    b->phi = malloc(N * L * sizeof *b->phi);
    b->grad = malloc(3 * N * L * sizeof *b->grad);
    b->lap = malloc(N * L * sizeof *b->lap);
    if (!ok || !b->phi || !b->grad || !b->lap) {
        bench_orbitals_free(b);
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for N %zu L %zu", who, N, L);
    }
    size_t c = 0;
    for (int x = -R; x <= R; x++)
        for (int y = -R; y <= R; y++)
            for (int z = -R; z <= R; z++) {
                b->cand[3 * c] = x;
                b->cand[3 * c + 1] = y;
                b->cand[3 * c + 2] = z;
                c++;
            }
    qsort(b->cand, ncand, 3 * sizeof *b->cand, bench_cmp_norm);
    for (size_t k = 0; k < L * ng; k++) {
        b->a[k] = 2 * mcf_rng_uniform(rng) - 1;
        b->b[k] = 2 * mcf_rng_uniform(rng) - 1;
    }
    const mcf_pw_orbitals o = {{BENCH_SIDE, BENCH_SIDE, BENCH_SIDE}, L, ng, b->cand, b->a, b->b};
    b->o = o;
    for (int s = 0; s < BENCH_SETS; s++)
        for (size_t k = 0; k < 3 * N; k++)
            b->r[s][k] = BENCH_SIDE * mcf_rng_uniform(rng);
    return MCF_OK;
}

/* parameters of a plugin from its defaults, with grid overridden when grid > 0; section
 * "evaluator", origin who (a literal: p keeps it) */
static inline int bench_params(const mcf_plugin_info *info, const char *who, long grid,
                               mcf_params *p, mcf_value *values, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->section = "evaluator";
    p->origin = who;
    p->specs = info->params;
    p->n = mcfi_spec_count(info->params);
    p->values = values;
    if (p->n > cap)
        return mcf_fail(MCF_EINVAL, "%s: too many parameters", who);
    for (size_t k = 0; k < p->n; k++) {
        char text[32];
        const char *t = info->params[k].default_value;
        if (!strcmp(info->params[k].name, "grid") && grid > 0) {
            snprintf(text, sizeof text, "%ld", grid);
            t = text;
        }
        int rc = mcfi_value_parse(&info->params[k], t, &values[k]);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

static inline void bench_params_release(mcf_params *p)
{
    for (size_t k = 0; k < p->n; k++)
        mcfe_value_release(&p->values[k]);
}

/* seconds per call of the evaluator's values (vgl 0) or vgl (vgl 1) on all N points of b in
 * one workspace: the best of R calls (at least 3, until 0.3 s or 1000 calls), cycling
 * through the position sets; NAN after an error, reported on stderr after "who: " */
static inline double bench_time_cpu(const mcf_plugin_info *ev, void *ws, int vgl,
                                    const bench_orbitals *b, const char *who)
{
    double *phi = b->phi, *grad = b->grad, *lap = b->lap;
    const double t0 = now();
    int calls = 0;
    double best = 1e30;
    size_t np = b->N;
    for (;;) {
        const double *rr = b->r[calls % BENCH_SETS];
        const double a = now();
        int rc = vgl ? tor_vgl(ev, &ws, 1, &rr, &np, &phi, &grad, &lap)
                     : tor_values(ev, &ws, 1, &rr, &np, &phi);
        const double t = now() - a;
        if (rc) {
            fprintf(stderr, "%s: %s\n", who, mcf_last_error());
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

#endif
