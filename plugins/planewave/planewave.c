/* planewave.c — the orbital evaluator "planewave" (CPU, OpenMP): the exact reference.
 *
 * It sums the plane-wave series of mcf/orbital.h term by term,
 *
 *     phi_l(r)      = sum_g [ a_lg cos(G_g . r) + b_lg sin(G_g . r) ],
 *     grad phi_l(r) = sum_g G_g [ b_lg cos(G_g . r) - a_lg sin(G_g . r) ],
 *     lap phi_l(r)  = - sum_g |G_g|^2 [ a_lg cos(G_g . r) + b_lg sin(G_g . r) ],
 *
 * with no approximation beyond floating point: cos and sin of each plane wave once per
 * point (n_g calls of sin and cos), then L x n_g multiply-adds per point for the values
 * (4 x that for values, gradients and Laplacians).  Positions are first reduced into the
 * cell, x - Lx floor(x / Lx) per axis, so that a far-away image gives the same phases as its
 * image in the cell (to rounding), as for every evaluator.
 *
 * ABI 2 (mcf_orbital_evaluator): values, gradients and Laplacians through one op, evaluate;
 * no determinants (provides MCF_ORBITAL_VALUES only: a model keeps its Slater matrices).
 *
 * No parameters.  Memory per workspace: the copied description, (2 L + 4) n_g doubles.
 * Batches: every point of every workspace is independent; they are spread over OpenMP
 * threads when the batch holds enough work (about 1e5 multiply-adds), and each result is
 * computed by the same sequence of operations whatever the thread count or the batch, so a
 * batch equals the single calls bit for bit. */
#include "mcf/mcf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mcf_param_spec planewave_params[] = {{0}};

typedef struct pw_ws {
    size_t L, ng;
    double cell[3];
    double *G;  /* ng x 3 reciprocal vectors 2 pi n / L_d */
    double *G2; /* ng: |G|^2 */
    double *a;  /* L x ng cosine coefficients (row l) */
    double *b;  /* L x ng sine coefficients */
} pw_ws;

static void pw_destroy(void *p)
{
    pw_ws *w = p;
    if (!w)
        return;
    free(w->G);
    free(w->G2);
    free(w->a);
    free(w->b);
    free(w);
}

static int pw_create(const mcf_params *params, const mcf_pw_orbitals *o, void *app_data,
                     void **out)
{
    (void)params; /* no parameters */
    (void)app_data;
    if (!out)
        return mcf_fail(MCF_EINVAL, "planewave: create: NULL output pointer; pass the address "
                        "of a void * to receive the workspace");
    *out = NULL;
    int rc = mcf_pw_orbitals_check(o);
    if (rc)
        return mcf_fail_prefix(rc, "planewave");
    const size_t L = o->n_orbitals, ng = o->n_g;
    if (ng > SIZE_MAX / sizeof(double) / 3 || L > SIZE_MAX / sizeof(double) / ng)
        return mcf_fail(MCF_ENOMEM, "planewave: %zu orbitals x %zu plane waves overflow the "
                        "address space", L, ng);
    pw_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "planewave: out of memory");
    w->L = L;
    w->ng = ng;
    w->G = malloc(3 * ng * sizeof *w->G);
    w->G2 = malloc(ng * sizeof *w->G2);
    w->a = malloc(L * ng * sizeof *w->a);
    w->b = malloc(L * ng * sizeof *w->b);
    if (!w->G || !w->G2 || !w->a || !w->b) {
        pw_destroy(w);
        return mcf_fail(MCF_ENOMEM, "planewave: out of memory for %zu orbitals x %zu plane "
                        "waves (%.3g MB)", L, ng, 16.0 * (double)(L * ng) / 1e6);
    }
    const double two_pi = 6.28318530717958647692;
    for (int d = 0; d < 3; d++)
        w->cell[d] = o->cell[d];
    for (size_t g = 0; g < ng; g++) {
        double g2 = 0;
        for (int d = 0; d < 3; d++) {
            const double gd = two_pi * (double)o->g[3 * g + (size_t)d] / o->cell[d];
            w->G[3 * g + (size_t)d] = gd;
            g2 += gd * gd;
        }
        w->G2[g] = g2;
    }
    memcpy(w->a, o->cos_coef, L * ng * sizeof *w->a);
    memcpy(w->b, o->sin_coef, L * ng * sizeof *w->b);
    *out = w;
    return MCF_OK;
}

/* ---- evaluation ------------------------------------------------------------------- */

/* cos and sin of G . r for every plane wave, r reduced into the cell */
static void pw_phases(const pw_ws *w, const double *r, double *cg, double *sg)
{
    double x[3];
    for (int d = 0; d < 3; d++)
        x[d] = r[d] - w->cell[d] * floor(r[d] / w->cell[d]);
    for (size_t g = 0; g < w->ng; g++) {
        const double ph = w->G[3 * g] * x[0] + w->G[3 * g + 1] * x[1] + w->G[3 * g + 2] * x[2];
        cg[g] = cos(ph);
        sg[g] = sin(ph);
    }
}

static void pw_point_values(const pw_ws *w, const double *cg, const double *sg, double *phi)
{
    const size_t ng = w->ng;
    for (size_t l = 0; l < w->L; l++) {
        const double *a = w->a + l * ng, *b = w->b + l * ng;
        double v = 0;
        for (size_t g = 0; g < ng; g++)
            v += a[g] * cg[g] + b[g] * sg[g];
        phi[l] = v;
    }
}

static void pw_point_vgl(const pw_ws *w, const double *cg, const double *sg, double *phi,
                         double *grad, double *lap)
{
    const size_t ng = w->ng;
    const double *G = w->G, *G2 = w->G2;
    for (size_t l = 0; l < w->L; l++) {
        const double *a = w->a + l * ng, *b = w->b + l * ng;
        double v = 0, gx = 0, gy = 0, gz = 0, lp = 0;
        for (size_t g = 0; g < ng; g++) {
            const double term = a[g] * cg[g] + b[g] * sg[g];  /* a cos + b sin */
            const double dterm = b[g] * cg[g] - a[g] * sg[g]; /* d/d(G.r) of it */
            v += term;
            gx += G[3 * g] * dterm;
            gy += G[3 * g + 1] * dterm;
            gz += G[3 * g + 2] * dterm;
            lp -= G2[g] * term;
        }
        phi[l] = v;
        grad[3 * l] = gx;
        grad[3 * l + 1] = gy;
        grad[3 * l + 2] = gz;
        lap[l] = lp;
    }
}

static int pw_eval(const char *op, void *const *ws, size_t n, const double *const *r,
                   const size_t *n_points, double *const *phi, double *const *grad,
                   double *const *lap, int want_gl)
{
    size_t *off = NULL, total = 0;
    int rc = mcf_orbital_batch_check("planewave", op, ws, n, r, n_points, phi, grad, lap, want_gl,
                                     &off, &total);
    if (rc || total == 0) {
        free(off);
        return rc;
    }
    size_t ng_max = 0;
    double work = 0;
    for (size_t k = 0; k < n; k++) {
        const pw_ws *w = ws[k];
        if (w->ng > ng_max)
            ng_max = w->ng;
        work += (double)n_points[k] * (double)w->L * (double)w->ng;
    }
    int failed = 0;
    const long nq = (long)total;
#pragma omp parallel if (work > 1e5)
    {
        double *cg = malloc(2 * ng_max * sizeof *cg);
        if (!cg) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (long q = 0; q < nq; q++) {
            if (!cg)
                continue;
            const size_t k = mcf_orbital_batch_owner(off, n, (size_t)q), p = (size_t)q - off[k];
            const pw_ws *w = ws[k];
            double *sg = cg + ng_max;
            pw_phases(w, r[k] + 3 * p, cg, sg);
            if (want_gl)
                pw_point_vgl(w, cg, sg, phi[k] + p * w->L, grad[k] + 3 * p * w->L,
                             lap[k] + p * w->L);
            else
                pw_point_values(w, cg, sg, phi[k] + p * w->L);
        }
        free(cg);
    }
    free(off);
    if (failed)
        return mcf_fail(MCF_ENOMEM, "planewave: %s: out of memory for the per-thread phases "
                        "(%zu plane waves)", op, ng_max);
    return MCF_OK;
}

/* values only when grad and lap are NULL; keeps nothing per batch */
static int pw_evaluate(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                       const size_t *n_points, double *const *phi, double *const *grad,
                       double *const *lap)
{
    (void)b;
    return pw_eval("evaluate", ws, n, r, n_points, phi, grad, lap, grad || lap);
}

static const mcf_orbital_evaluator planewave_table = {
    .struct_size = sizeof(mcf_orbital_evaluator),
    .provides = MCF_ORBITAL_VALUES,
    .create = pw_create,
    .destroy = pw_destroy,
    .evaluate = pw_evaluate,
};

/* auto_priority 0: an exact reference, never chosen by evaluator = auto */
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_ORBITAL_EVALUATOR, "planewave", "1.0",
                      "real orbitals as their plane-wave series summed directly: values, "
                      "gradients and Laplacians, exact (the reference for blip), OpenMP over "
                      "points",
                      planewave_params, &planewave_table, .auto_priority = 0)
