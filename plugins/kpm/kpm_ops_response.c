/* kpm_ops_response.c — the two-dimensional Chebyshev moments of kpm and kpm-cuda
 * (mcf/fermion.h's response, mcf 1.2):
 *
 *     mu_nm = (1/dim) Tr[A T_n(H~) B T_m(H~)] ~ (1/R) sum_v <v| A T_n B T_m |v> / dim
 *
 * over R = `vectors` random vectors v (the kind of `random`, drawn from the chain's stream
 * one after the other, rows in order: kpm_random_vector), or over every unit vector when
 * vectors = 0 (exact).  The vectors are drawn here, on the host, for both plugins; the
 * sums over them come from the backend's response (kpm-cuda: kpm_cuda_response.cu) or from
 * kpm_response_sums below.  Per vector: beta_m = B T_m(H~) v for every m < M (kept: 2 M dim
 * doubles), then gamma_n = T_n(H~) A v by the recursion, and <v| A T_n B T_m |v> =
 * <gamma_n | beta_m> (A and T_n(H~) are Hermitian).  Cost per vector: 2 M products with H
 * and M^2 dim for the inner products, taken KPM_RESP_CHUNK gammas at a time (a small matrix
 * product: the betas stream from memory once per chunk), OpenMP threads sharing the m;
 * each inner product summed over rows in order: the same bits on any number of threads.
 * The standard error of each moment is that of the mean of the R per-vector values
 * (complex: sqrt(E|x - E x|^2 / R)). */
#include "kpm_ops.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

#define KPM_RESP_CHUNK 8  /* gammas whose inner products are taken together */
#define KPM_RESP_TILE 256 /* rows of a chunk kept in cache while the betas pass */

typedef struct resp {
    size_t dim, M;
    double a, b;
    double *br, *bi;          /* M x dim: beta_m */
    double *v, *vr, *vi;      /* the vector (interleaved as drawn, then split) */
    double *g0r, *g0i, *g1r, *g1i, *tr, *ti; /* the recursion */
    double *gtr, *gti;        /* dim x KPM_RESP_CHUNK: a chunk of gammas, transposed */
    double *xr, *xi;          /* M x M: this vector's values */
} resp;

/* One product over the rows on the OpenMP threads, each row's sum in the order of
 * mcf_hamiltonian_apply (on-site term, then the slots), so the same bits on any number of
 * threads:  mode 0  y = P x;  mode 1  y = H~ x = (H x) / a - (b / a) x;  mode 2 the
 * Chebyshev step, p = 2 H~ x - p (y unused). */
static void product(const mcf_hamiltonian *P, const resp *s, int mode, const double *xr,
                    const double *xi, double *yr, double *yi, double *pr, double *pi)
{
    const long dim = (long)P->dim;
    const double ia = 1.0 / s->a, c = s->b / s->a;
#pragma omp parallel for schedule(static) if (dim > 16384)
    for (long r = 0; r < dim; r++) {
        double sr = P->onsite[r] * xr[r], si = P->onsite[r] * xi[r];
        for (int k = 0; k < P->width; k++) {
            const size_t q = (size_t)k * (size_t)dim + (size_t)r;
            const int32_t col = P->col[q];
            if (col < 0)
                continue;
            const double hr = P->hop_re[q], hi = P->hop_im[q];
            sr += hr * xr[col] - hi * xi[col];
            si += hr * xi[col] + hi * xr[col];
        }
        if (mode == 0) {
            yr[r] = sr;
            yi[r] = si;
            continue;
        }
        double tr = ia * sr, ti = ia * si;
        tr -= c * xr[r];
        ti -= c * xi[r];
        if (mode == 1) {
            yr[r] = tr;
            yi[r] = ti;
        } else {
            pr[r] = 2.0 * tr - pr[r];
            pi[r] = 2.0 * ti - pi[r];
        }
    }
}

/* The inner products of the chunk of gammas n0 .. n0 + nq - 1 (transposed in gtr/gti:
 * element i of gamma_{n0+q} at [i KPM_RESP_CHUNK + q]) with every beta_m, into
 * x[(n0 + q) M + m] / dim.  Each (n, m) is summed over i in order, as one loop would (the
 * tiles only keep the chunk's rows in cache while the threads' betas stream past): the
 * same bits on any number of threads, and the betas are read once per chunk, not once per
 * gamma. */
static void chunk_products(resp *s, size_t n0, size_t nq)
{
    const size_t dim = s->dim, M = s->M, C = KPM_RESP_CHUNK;
    const double inv = 1.0 / (double)dim;
#pragma omp parallel if (M * dim > 65536)
    {
        const size_t nth = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        const size_t lo = M * t / nth, hi = M * (t + 1) / nth;
        for (size_t i0 = 0; i0 < dim; i0 += KPM_RESP_TILE) {
            const size_t i1 = i0 + KPM_RESP_TILE < dim ? i0 + KPM_RESP_TILE : dim;
            for (size_t m = lo; m < hi; m++) {
                const double *pr = s->br + m * dim, *pi = s->bi + m * dim;
                double sr[KPM_RESP_CHUNK] = {0}, si[KPM_RESP_CHUNK] = {0};
                if (i0 > 0)
                    for (size_t q = 0; q < nq; q++) {
                        sr[q] = s->xr[(n0 + q) * M + m];
                        si[q] = s->xi[(n0 + q) * M + m];
                    }
                for (size_t i = i0; i < i1; i++) { /* conj(gamma) beta */
                    const double br = pr[i], bi = pi[i];
                    const double *gr = s->gtr + i * C, *gi = s->gti + i * C;
#pragma omp simd
                    for (size_t q = 0; q < C; q++) {
                        sr[q] += gr[q] * br + gi[q] * bi;
                        si[q] += gr[q] * bi - gi[q] * br;
                    }
                }
                for (size_t q = 0; q < nq; q++) {
                    s->xr[(n0 + q) * M + m] = i1 == dim ? sr[q] * inv : sr[q];
                    s->xi[(n0 + q) * M + m] = i1 == dim ? si[q] * inv : si[q];
                }
            }
        }
    }
}

/* this vector's M x M values <v| A T_n B T_m |v> / dim into s->xr, s->xi */
static void one_vector(const mcf_hamiltonian *h, const mcf_hamiltonian *A,
                       const mcf_hamiltonian *B, resp *s)
{
    const size_t dim = s->dim, M = s->M, C = KPM_RESP_CHUNK;
    /* T_m(H~) v for every m, in the rows of beta; then B applied to each */
    memcpy(s->br, s->vr, dim * sizeof *s->br);
    memcpy(s->bi, s->vi, dim * sizeof *s->bi);
    product(h, s, 1, s->vr, s->vi, s->br + dim, s->bi + dim, NULL, NULL);
    for (size_t m = 2; m < M; m++) {
        double *pr = s->br + m * dim, *pi = s->bi + m * dim;
        memcpy(pr, s->br + (m - 2) * dim, dim * sizeof *pr);
        memcpy(pi, s->bi + (m - 2) * dim, dim * sizeof *pi);
        product(h, s, 2, s->br + (m - 1) * dim, s->bi + (m - 1) * dim, NULL, NULL, pr, pi);
    }
    for (size_t m = 0; m < M; m++) {
        product(B, s, 0, s->br + m * dim, s->bi + m * dim, s->tr, s->ti, NULL, NULL);
        memcpy(s->br + m * dim, s->tr, dim * sizeof *s->tr);
        memcpy(s->bi + m * dim, s->ti, dim * sizeof *s->ti);
    }
    /* gamma_0 = A v, gamma_1 = H~ gamma_0, ...: chunks of C into gtr/gti (transposed; the
     * unused columns of a last, shorter chunk are zero) */
    product(A, s, 0, s->vr, s->vi, s->g0r, s->g0i, NULL, NULL);
    product(h, s, 1, s->g0r, s->g0i, s->g1r, s->g1i, NULL, NULL);
    for (size_t n = 0; n < M; n++) {
        const double *gr = n % 2 ? s->g1r : s->g0r, *gi = n % 2 ? s->g1i : s->g0i;
        const size_t q = n % C;
        if (q == 0 && M - n < C)
            memset(s->gtr, 0, 2 * C * dim * sizeof *s->gtr);
        for (size_t i = 0; i < dim; i++) {
            s->gtr[i * C + q] = gr[i];
            s->gti[i * C + q] = gi[i];
        }
        if (q == C - 1 || n == M - 1)
            chunk_products(s, n - q, q + 1);
        if (n + 1 < M && n >= 1) { /* gamma_{n+1} = 2 H~ gamma_n - gamma_{n-1} */
            if (n % 2)
                product(h, s, 2, s->g1r, s->g1i, NULL, NULL, s->g0r, s->g0i);
            else
                product(h, s, 2, s->g0r, s->g0i, NULL, NULL, s->g1r, s->g1i);
        }
    }
}

static void resp_free(resp *s)
{
    free(s->br);
    free(s->v);
    free(s->xr);
}

static int resp_alloc(resp *s, size_t dim, size_t M, const char *name)
{
    memset(s, 0, sizeof *s);
    s->dim = dim;
    s->M = M;
    const size_t C = KPM_RESP_CHUNK;
    s->br = malloc(2 * M * dim * sizeof *s->br);
    s->v = malloc((12 + 2 * C) * dim * sizeof *s->v);
    s->xr = malloc(2 * M * M * sizeof *s->xr);
    if (!s->br || !s->v || !s->xr) {
        resp_free(s);
        return mcf_fail(MCF_ENOMEM, "%s: response: out of memory for %zu moments of dimension "
                        "%zu (%.1f MiB)", name, M, dim, 16.0 * (double)(M * dim) / 1048576.0);
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
    s->gtr = s->ti + dim;
    s->gti = s->gtr + C * dim;
    s->xi = s->xr + M * M;
    return MCF_OK;
}

int kpm_response_sums(const char *name, const mcf_hamiltonian *h, const mcf_hamiltonian *A,
                      const mcf_hamiltonian *B, double a, double b, size_t M, size_t R,
                      const kpm_vector_source *src, double *sum_re, double *sum_im,
                      double *sum_sq)
{
    const size_t dim = h->dim;
    resp s;
    int rc = resp_alloc(&s, dim, M, name);
    if (rc)
        return rc;
    s.a = a;
    s.b = b;
    memset(sum_re, 0, M * M * sizeof *sum_re);
    memset(sum_im, 0, M * M * sizeof *sum_im);
    if (sum_sq)
        memset(sum_sq, 0, M * M * sizeof *sum_sq);
    for (size_t v = 0; v < R; v++) {
        src->fill(src->ctx, 1, s.v);
        for (size_t i = 0; i < dim; i++) {
            s.vr[i] = s.v[2 * i];
            s.vi[i] = s.v[2 * i + 1];
        }
        one_vector(h, A, B, &s);
        for (size_t q = 0; q < M * M; q++) {
            sum_re[q] += s.xr[q];
            sum_im[q] += s.xi[q];
            if (sum_sq)
                sum_sq[q] += s.xr[q] * s.xr[q] + s.xi[q] * s.xi[q];
        }
    }
    resp_free(&s);
    return MCF_OK;
}

/* the trace's vectors: random ones from the chain's stream, or every unit vector in order */
typedef struct vec_source {
    mcf_rng *rng;
    kpm_random kind;
    size_t dim, next; /* rng NULL: the unit vector of row `next` comes next */
} vec_source;

static void vec_fill(void *ctx, size_t nv, double *v)
{
    vec_source *c = ctx;
    for (size_t k = 0; k < nv; k++) {
        double *x = v + 2 * k * c->dim;
        if (c->rng) {
            kpm_random_vector(c->rng, c->kind, c->dim, 1, 0, x);
        } else {
            memset(x, 0, 2 * c->dim * sizeof *x);
            x[2 * c->next++] = 1.0;
        }
    }
}

/* The scaling an op uses (response, vector_moments): h checked, then the caller's `scale`
 * (checked against h's bounds) or the workspace's own; `op` names it in the messages. */
static int op_scale(kpm_ops_ws *w, const double *scale, const char *op, double *a, double *b)
{
    const mcf_hamiltonian *h = w->h;
    const char *name = w->be->name;
    int rc = mcf_hamiltonian_check(h);
    if (rc)
        return mcf_fail_prefix(rc, "%s: %s: refusing an invalid Hamiltonian", name, op);
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    if (scale) {
        *a = scale[0];
        *b = scale[1];
        if (!(*a > 0.0) || !isfinite(*a) || !isfinite(*b) || lo < *b - *a || hi > *b + *a)
            return mcf_fail(MCF_EINVAL, "%s: %s: the scale a = %g, b = %g does not hold the "
                            "Hamiltonian's bounds [%g, %g]", name, op, *a, *b, lo, hi);
    } else {
        kpm_ops_scale(w);
        *a = w->a;
        *b = w->b;
    }
    return MCF_OK;
}

static int one(kpm_ops_ws *w, mcf_rng *rng, const mcf_response *r, size_t k)
{
    const mcf_hamiltonian *h = w->h, *A = r->op_a[k], *B = r->op_b[k];
    const size_t dim = h->dim, M = r->moments;
    const char *name = w->be->name;
    double a, b;
    int rc = op_scale(w, r->scale, "response", &a, &b);
    if (rc)
        return rc;
    if (A->dim != dim || B->dim != dim)
        return mcf_fail(MCF_EINVAL, "%s: response: operator %c has dimension %zu, the "
                        "Hamiltonian %zu", name, A->dim != dim ? 'A' : 'B',
                        A->dim != dim ? A->dim : B->dim, dim);
    const size_t R = w->cfg.vectors > 0 ? (size_t)w->cfg.vectors : dim;
    double *mr = r->mu_re[k], *mi = r->mu_im[k], *me = r->mu_err ? r->mu_err[k] : NULL;
    vec_source vs = {w->cfg.vectors > 0 ? rng : NULL, w->cfg.random, dim, 0};
    const kpm_vector_source src = {vec_fill, &vs};
    /* the squares only where they make an error: random vectors, asked for */
    double *sq = me && w->cfg.vectors > 0 ? me : NULL;
    rc = w->be->response ? w->be->response(w, A, B, a, b, M, R, &src, mr, mi, sq)
                         : kpm_response_sums(name, h, A, B, a, b, M, R, &src, mr, mi, sq);
    if (rc)
        return rc;
    /* exact: the sum over unit vectors is dim times the trace / dim; random: the mean */
    const double scale = w->cfg.vectors > 0 ? 1.0 / (double)R : 1.0;
    for (size_t q = 0; q < M * M; q++) {
        mr[q] *= scale;
        mi[q] *= scale;
        if (sq) {
            const double var = R > 1 ? (sq[q] - (double)R * (mr[q] * mr[q] + mi[q] * mi[q])) /
                                           (double)(R - 1)
                                     : NAN;
            me[q] = sqrt(fmax(var, 0.0) / (double)R);
        } else if (me) {
            me[q] = 0.0;
        }
    }
    if (r->moment_scale) {
        r->moment_scale[k][0] = a;
        r->moment_scale[k][1] = b;
    }
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

/* ---- vector_moments (mcf 1.2): <v_j| T_n(H~) |v_j> of given vectors, exactly, by each
 * vector's own recursion on the host (kpm): M - 1 products a vector, the inner products
 * summed over rows in order; or the backend's (kpm-cuda: kpm_cuda_vmoments.cu) -------------- */

int kpm_vector_moments_host(const char *name, const mcf_hamiltonian *h, double a, double b,
                            size_t M, size_t nv, const double *v, double *mu)
{
    const size_t dim = h->dim;
    resp s = {.dim = dim, .M = M, .a = a, .b = b};
    double *buf = malloc(6 * dim * sizeof *buf);
    if (!buf)
        return mcf_fail(MCF_ENOMEM, "%s: vector_moments: out of memory (dimension %zu)", name,
                        dim);
    double *vr = buf, *vi = buf + dim, *t[4] = {buf + 2 * dim, buf + 3 * dim, buf + 4 * dim,
                                                buf + 5 * dim};
    for (size_t j = 0; j < nv; j++) {
        const double *vj = v + 2 * j * dim;
        double *m = mu + j * M;
        for (size_t i = 0; i < dim; i++) {
            vr[i] = vj[2 * i];
            vi[i] = vj[2 * i + 1];
        }
        /* t_0 = v in (t[0], t[1]), t_1 = H~ v in (t[2], t[3]); then the step in place */
        memcpy(t[0], vr, dim * sizeof *vr);
        memcpy(t[1], vi, dim * sizeof *vi);
        if (M > 1)
            product(h, &s, 1, vr, vi, t[2], t[3], NULL, NULL);
        for (size_t n = 0; n < M; n++) {
            const double *xr = t[2 * (n % 2)], *xi = t[2 * (n % 2) + 1];
            double sr = 0.0;
            for (size_t i = 0; i < dim; i++) /* Re <v|t_n>; Im is 0 for Hermitian H */
                sr += vr[i] * xr[i] + vi[i] * xi[i];
            m[n] = sr;
            if (n + 1 < M && n >= 1) /* t_{n+1} = 2 H~ t_n - t_{n-1}, into t_{n-1}'s pair */
                product(h, &s, 2, xr, xi, NULL, NULL, t[2 * ((n + 1) % 2)],
                        t[2 * ((n + 1) % 2) + 1]);
        }
    }
    free(buf);
    return MCF_OK;
}

static int vm_one(kpm_ops_ws *w, const mcf_vector_moments *r, size_t k)
{
    double a, b;
    int rc = op_scale(w, r->scale, "vector_moments", &a, &b);
    if (!rc && w->be->vector_moments) /* the backend's (a device) */
        rc = w->be->vector_moments(w, a, b, r->moments, r->vectors, r->v[k], r->mu[k]);
    else if (!rc)
        rc = kpm_vector_moments_host(w->be->name, w->h, a, b, r->moments, r->vectors, r->v[k],
                                     r->mu[k]);
    if (!rc && r->moment_scale) {
        r->moment_scale[k][0] = a;
        r->moment_scale[k][1] = b;
    }
    return rc;
}

int kpm_ops_vector_moments(mcf_batch *b, void *const *ws, size_t n,
                           const mcf_vector_moments *r)
{
    (void)b;
    int rc = MCF_OK;
    const kpm_backend *be = kpm_ops_batch(ws, n, "vector_moments", &rc);
    if (rc || n == 0)
        return rc;
    if (!r || !r->v || !r->mu)
        return mcf_fail(MCF_EINVAL, "%s: vector_moments: the %s is NULL", be->name,
                        !r ? "request" : "vector or output array");
    if (r->moments < 1 || r->vectors < 1)
        return mcf_fail(MCF_EINVAL, "%s: vector_moments: %zu moments, %zu vectors (at least 1 "
                        "each)", be->name, r->moments, r->vectors);
    for (size_t k = 0; k < n; k++)
        if (!r->v[k] || !r->mu[k] || (r->moment_scale && !r->moment_scale[k]))
            return mcf_fail(MCF_EINVAL, "%s: vector_moments: workspace %zu of %zu: a vector or "
                            "output array is NULL", be->name, k, n);
    for (size_t k = 0; k < n; k++)
        if ((rc = vm_one(ws[k], r, k)))
            return n > 1 ? mcf_fail_prefix(rc, "workspace %zu of %zu", k, n) : rc;
    return MCF_OK;
}
