/* kpm_ops_response.c — the two-dimensional Chebyshev moments of kpm and kpm-cuda
 * (mcf/fermion.h's response, mcf 1.2), on the host for both:
 *
 *     mu_nm = (1/dim) Tr[A T_n(H~) B T_m(H~)] ~ (1/R) sum_v <v| A T_n B T_m |v> / dim
 *
 * over R = `vectors` random vectors v (the kind of `random`, drawn from the chain's stream
 * one after the other, rows in order: kpm_random_vector), or over every unit vector when
 * vectors = 0 (exact).  Per vector: beta_m = B T_m(H~) v for every m < M (kept: 2 M dim
 * doubles), then gamma_n = T_n(H~) A v by the recursion, and <v| A T_n B T_m |v> =
 * <gamma_n | beta_m> (A and T_n(H~) are Hermitian).  Cost per vector: 2 M products with H
 * and M^2 dim for the inner products, which OpenMP threads share by n, each one summed over
 * rows in order: the same bits on any number of threads.  The standard error of each
 * moment is that of the mean of the R per-vector values (complex: sqrt(E|x - E x|^2 / R)). */
#include "kpm_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

typedef struct resp {
    size_t dim, M;
    double a, b;
    double *br, *bi;          /* M x dim: beta_m */
    double *v, *vr, *vi;      /* the vector (interleaved as drawn, then split) */
    double *g0r, *g0i, *g1r, *g1i, *tr, *ti; /* the recursion */
    double *xr, *xi;          /* M x M: this vector's values */
} resp;

/* y = H~ x = (H x - b x) / a */
static void apply_scaled(const mcf_hamiltonian *h, const resp *s, const double *xr,
                         const double *xi, double *yr, double *yi)
{
    mcf_hamiltonian_apply(h, xr, xi, 1.0 / s->a, 0.0, yr, yi);
    const double c = s->b / s->a;
    for (size_t i = 0; i < s->dim; i++) {
        yr[i] -= c * xr[i];
        yi[i] -= c * xi[i];
    }
}

/* next = 2 H~ cur - prev, into prev (t scratch) */
static void step(const mcf_hamiltonian *h, const resp *s, const double *cr, const double *ci,
                 double *pr, double *pi, double *tr, double *ti)
{
    apply_scaled(h, s, cr, ci, tr, ti);
    for (size_t i = 0; i < s->dim; i++) {
        pr[i] = 2.0 * tr[i] - pr[i];
        pi[i] = 2.0 * ti[i] - pi[i];
    }
}

/* this vector's M x M values <v| A T_n B T_m |v> / dim into s->xr, s->xi */
static void one_vector(const mcf_hamiltonian *h, const mcf_hamiltonian *A,
                       const mcf_hamiltonian *B, resp *s)
{
    const size_t dim = s->dim, M = s->M;
    /* T_m(H~) v for every m, in the rows of beta; then B applied to each */
    memcpy(s->br, s->vr, dim * sizeof *s->br);
    memcpy(s->bi, s->vi, dim * sizeof *s->bi);
    apply_scaled(h, s, s->vr, s->vi, s->br + dim, s->bi + dim);
    for (size_t m = 2; m < M; m++) {
        double *pr = s->br + m * dim, *pi = s->bi + m * dim;
        memcpy(pr, s->br + (m - 2) * dim, dim * sizeof *pr);
        memcpy(pi, s->bi + (m - 2) * dim, dim * sizeof *pi);
        step(h, s, s->br + (m - 1) * dim, s->bi + (m - 1) * dim, pr, pi, s->tr, s->ti);
    }
    for (size_t m = 0; m < M; m++) {
        mcf_hamiltonian_apply(B, s->br + m * dim, s->bi + m * dim, 1.0, 0.0, s->tr, s->ti);
        memcpy(s->br + m * dim, s->tr, dim * sizeof *s->tr);
        memcpy(s->bi + m * dim, s->ti, dim * sizeof *s->ti);
    }
    /* gamma_0 = A v, gamma_1 = H~ gamma_0, ... */
    mcf_hamiltonian_apply(A, s->vr, s->vi, 1.0, 0.0, s->g0r, s->g0i);
    apply_scaled(h, s, s->g0r, s->g0i, s->g1r, s->g1i);
    const double inv = 1.0 / (double)dim;
    for (size_t n = 0; n < M; n++) {
        const double *gr = n % 2 ? s->g1r : s->g0r, *gi = n % 2 ? s->g1i : s->g0i;
        const long mm = (long)M;
#pragma omp parallel for schedule(static) if (M * dim > 65536)
        for (long m = 0; m < mm; m++) {
            const double *pr = s->br + (size_t)m * dim, *pi = s->bi + (size_t)m * dim;
            double sr = 0.0, si = 0.0;
            for (size_t i = 0; i < dim; i++) { /* conj(gamma) beta */
                sr += gr[i] * pr[i] + gi[i] * pi[i];
                si += gr[i] * pi[i] - gi[i] * pr[i];
            }
            s->xr[n * M + (size_t)m] = sr * inv;
            s->xi[n * M + (size_t)m] = si * inv;
        }
        if (n + 1 < M && n >= 1) { /* gamma_{n+1} = 2 H~ gamma_n - gamma_{n-1} */
            if (n % 2)
                step(h, s, s->g1r, s->g1i, s->g0r, s->g0i, s->tr, s->ti);
            else
                step(h, s, s->g0r, s->g0i, s->g1r, s->g1i, s->tr, s->ti);
        }
    }
}

static void resp_free(resp *s)
{
    free(s->br);
    free(s->v);
    free(s->xr);
}

static int resp_alloc(resp *s, size_t dim, size_t M)
{
    memset(s, 0, sizeof *s);
    s->dim = dim;
    s->M = M;
    s->br = malloc(2 * M * dim * sizeof *s->br);
    s->v = malloc(12 * dim * sizeof *s->v);
    s->xr = malloc(2 * M * M * sizeof *s->xr);
    if (!s->br || !s->v || !s->xr) {
        resp_free(s);
        return mcf_fail(MCF_ENOMEM, "response: out of memory for %zu moments of dimension %zu "
                        "(%.1f MiB)", M, dim, 16.0 * (double)(M * dim) / 1048576.0);
    }
    s->bi = s->br + M * dim;
    s->vr = s->v + 2 * dim;
    s->vi = s->vr + dim;
    s->g0r = s->vi + dim;
    s->g0i = s->g0r + dim;
    s->g1r = s->g0i + dim;
    s->g1i = s->g1r + dim;
    s->tr = s->g1i + dim;
    s->ti = s->tr + dim;
    s->xi = s->xr + M * M;
    return MCF_OK;
}

static int one(kpm_ops_ws *w, mcf_rng *rng, const mcf_response *r, size_t k)
{
    const mcf_hamiltonian *h = w->h, *A = r->op_a[k], *B = r->op_b[k];
    const size_t dim = h->dim, M = r->moments;
    const char *name = w->be->name;
    int rc = mcf_hamiltonian_check(h);
    if (rc)
        return mcf_fail_prefix(rc, "%s: response: refusing an invalid Hamiltonian", name);
    if (A->dim != dim || B->dim != dim)
        return mcf_fail(MCF_EINVAL, "%s: response: operator %c has dimension %zu, the "
                        "Hamiltonian %zu", name, A->dim != dim ? 'A' : 'B',
                        A->dim != dim ? A->dim : B->dim, dim);
    resp s;
    if ((rc = resp_alloc(&s, dim, M)))
        return mcf_fail_prefix(rc, "%s", name);
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    if (r->scale) {
        s.a = r->scale[0];
        s.b = r->scale[1];
        if (!(s.a > 0.0) || !isfinite(s.a) || !isfinite(s.b) || lo < s.b - s.a ||
            hi > s.b + s.a) {
            resp_free(&s);
            return mcf_fail(MCF_EINVAL, "%s: response: the scale a = %g, b = %g does not hold "
                            "the Hamiltonian's bounds [%g, %g]", name, s.a, s.b, lo, hi);
        }
    } else {
        kpm_ops_scale(w);
        s.a = w->a;
        s.b = w->b;
    }
    const size_t R = w->cfg.vectors > 0 ? (size_t)w->cfg.vectors : dim;
    double *mr = r->mu_re[k], *mi = r->mu_im[k], *me = r->mu_err ? r->mu_err[k] : NULL;
    memset(mr, 0, M * M * sizeof *mr);
    memset(mi, 0, M * M * sizeof *mi);
    if (me)
        memset(me, 0, M * M * sizeof *me);
    for (size_t v = 0; v < R; v++) {
        if (w->cfg.vectors > 0) {
            kpm_random_vector(rng, w->cfg.random, dim, 1, 0, s.v);
            for (size_t i = 0; i < dim; i++) {
                s.vr[i] = s.v[2 * i];
                s.vi[i] = s.v[2 * i + 1];
            }
        } else {
            memset(s.vr, 0, 2 * dim * sizeof *s.vr);
            s.vr[v] = 1.0;
        }
        one_vector(h, A, B, &s);
        for (size_t q = 0; q < M * M; q++) {
            mr[q] += s.xr[q];
            mi[q] += s.xi[q];
            if (me)
                me[q] += s.xr[q] * s.xr[q] + s.xi[q] * s.xi[q];
        }
    }
    /* exact: the sum over unit vectors is dim times the trace / dim; random: the mean */
    const double scale = w->cfg.vectors > 0 ? 1.0 / (double)R : 1.0;
    for (size_t q = 0; q < M * M; q++) {
        mr[q] *= scale;
        mi[q] *= scale;
        if (me && w->cfg.vectors > 0) {
            const double var = R > 1 ? (me[q] - (double)R * (mr[q] * mr[q] + mi[q] * mi[q])) /
                                           (double)(R - 1)
                                     : NAN;
            me[q] = sqrt(fmax(var, 0.0) / (double)R);
        } else if (me) {
            me[q] = 0.0;
        }
    }
    if (r->moment_scale) {
        r->moment_scale[k][0] = s.a;
        r->moment_scale[k][1] = s.b;
    }
    resp_free(&s);
    return MCF_OK;
}

int kpm_ops_response(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                     const mcf_response *r)
{
    (void)b;
    int rc = MCF_OK;
    const kpm_backend *be = kpm_ops_batch(ws, n, "response", &rc);
    if (rc || n == 0)
        return rc;
    if (!r || !r->op_a || !r->op_b || !r->mu_re || !r->mu_im)
        return mcf_fail(MCF_EINVAL, "%s: response: the %s is NULL", be->name,
                        !r ? "request" : "operator or output array");
    if (r->moments < 2)
        return mcf_fail(MCF_EINVAL, "%s: response: %zu moments (at least 2)", be->name,
                        r->moments);
    for (size_t k = 0; k < n; k++) {
        const kpm_ops_ws *w = ws[k];
        if (!r->op_a[k] || !r->op_b[k] || !r->mu_re[k] || !r->mu_im[k] ||
            (r->mu_err && !r->mu_err[k]) || (r->moment_scale && !r->moment_scale[k]))
            return mcf_fail(MCF_EINVAL, "%s: response: workspace %zu of %zu: an operator or "
                            "output array is NULL", be->name, k, n);
        if (w->cfg.vectors > 0 && (!rngs || !rngs[k]))
            return mcf_fail(MCF_EINVAL, "%s: response: workspace %zu of %zu: the random "
                            "stream is NULL (vectors = 0 draws none)", be->name, k, n);
    }
    for (size_t k = 0; k < n; k++)
        if ((rc = one(ws[k], rngs ? rngs[k] : NULL, r, k)))
            return n > 1 ? mcf_fail_prefix(rc, "workspace %zu of %zu", k, n) : rc;
    return MCF_OK;
}
