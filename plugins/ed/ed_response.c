/* ed_response.c — the two-dimensional Chebyshev moments of the ed evaluator (mcf/fermion.h's
 * response, mcf 1.2), exactly: with H = sum_k eps_k |k><k| and A_ij = <i|A|j>, B likewise,
 *
 *     mu_nm = (1/dim) sum_ij A_ij T_n(x_j) B_ji T_m(x_i),   x_k = (eps_k - b) / a,
 *
 * formed as C_ij = A_ij B_ji, P_n(i) = sum_j C_ij T_n(x_j), mu_nm = sum_i P_n(i) T_m(x_i) / dim
 * (cost dim^3 for the operators in the eigenbasis, M dim^2 + M^2 dim for the sums).  The
 * scaling is the caller's or mcf_hamiltonian_scaling(h, 0.01).  Workspaces of a batch run on
 * OpenMP threads, each by one thread in a fixed order. */
#include "ed_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* X' = V^+ X V (interleaved, X'_ij at 2 (i n + j)) of the operator op; col (4 n) scratch */
static void to_eigenbasis(const mcf_hamiltonian *op, const double *vec, size_t n, double *col,
                          double *out)
{
    double *xr = col, *xi = col + n, *yr = col + 2 * n, *yi = col + 3 * n;
    for (size_t j = 0; j < n; j++) {
        for (size_t r = 0; r < n; r++) {
            xr[r] = vec[2 * (r * n + j)];
            xi[r] = vec[2 * (r * n + j) + 1];
        }
        mcf_hamiltonian_apply(op, xr, xi, 1.0, 0.0, yr, yi); /* X |j> */
        for (size_t i = 0; i < n; i++) {                     /* <i| X |j> */
            double sr = 0.0, si = 0.0;
            for (size_t r = 0; r < n; r++) {
                const double ar = vec[2 * (r * n + i)], ai = vec[2 * (r * n + i) + 1];
                sr += ar * yr[r] + ai * yi[r];
                si += ar * yi[r] - ai * yr[r];
            }
            out[2 * (i * n + j)] = sr;
            out[2 * (i * n + j) + 1] = si;
        }
    }
}

static int check_one(const ed_ws *w, const mcf_response *r, size_t k, double *a, double *b)
{
    int rc = ed_op_scale(w, r->scale, "response", a, b);
    if (rc)
        return rc;
    const size_t n = w->h->dim;
    const mcf_hamiltonian *ops[2] = {r->op_a[k], r->op_b[k]};
    for (int q = 0; q < 2; q++) {
        if (ops[q]->dim != n)
            return mcf_fail(MCF_EINVAL, "ed: response: operator %c has dimension %zu, the "
                            "Hamiltonian %zu", "AB"[q], ops[q]->dim, n);
        if ((rc = mcf_hamiltonian_check(ops[q])))
            return mcf_fail_prefix(rc, "ed: response: operator %c is not Hermitian", "AB"[q]);
    }
    return MCF_OK;
}

static int response_one(ed_ws *w, const mcf_response *r, size_t k)
{
    double a, b;
    int rc = check_one(w, r, k, &a, &b);
    if (rc)
        return rc;
    const size_t n = w->dim, M = r->moments;
    double *vec = malloc(2 * n * n * sizeof *vec), *ap = malloc(2 * n * n * sizeof *ap);
    double *bp = malloc(2 * n * n * sizeof *bp), *eval = malloc(5 * n * sizeof *eval);
    double *tx = malloc(M * n * sizeof *tx), *p = malloc(2 * M * n * sizeof *p);
    if (!vec || !ap || !bp || !eval || !tx || !p) {
        rc = mcf_fail(MCF_ENOMEM, "ed: response: out of memory for dimension %zu and %zu "
                      "moments", n, M);
        goto done;
    }
    if ((rc = ed_eigenpairs(w->h, w->gsl_complex, vec, eval)))
        goto done;
    to_eigenbasis(r->op_a[k], vec, n, eval + n, ap);
    to_eigenbasis(r->op_b[k], vec, n, eval + n, bp);
    for (size_t i = 0; i < n; i++) /* C_ij = A_ij B_ji, into ap */
        for (size_t j = 0; j < n; j++) {
            const double xr = ap[2 * (i * n + j)], xi = ap[2 * (i * n + j) + 1];
            const double yr = bp[2 * (j * n + i)], yi = bp[2 * (j * n + i) + 1];
            ap[2 * (i * n + j)] = xr * yr - xi * yi;
            ap[2 * (i * n + j) + 1] = xr * yi + xi * yr;
        }
    for (size_t j = 0; j < n; j++) { /* T_n(x_j) */
        const double x = (eval[j] - b) / a;
        double t0 = 1.0, t1 = x;
        for (size_t m = 0; m < M; m++) {
            tx[m * n + j] = m == 0 ? 1.0 : t1;
            if (m > 0) {
                const double t2 = 2.0 * x * t1 - t0;
                t0 = t1;
                t1 = t2;
            }
        }
    }
    for (size_t m = 0; m < M; m++) /* P_m(i) = sum_j C_ij T_m(x_j) */
        for (size_t i = 0; i < n; i++) {
            double sr = 0.0, si = 0.0;
            for (size_t j = 0; j < n; j++) {
                sr += ap[2 * (i * n + j)] * tx[m * n + j];
                si += ap[2 * (i * n + j) + 1] * tx[m * n + j];
            }
            p[2 * (m * n + i)] = sr;
            p[2 * (m * n + i) + 1] = si;
        }
    for (size_t nn = 0; nn < M; nn++)
        for (size_t m = 0; m < M; m++) {
            double sr = 0.0, si = 0.0;
            for (size_t i = 0; i < n; i++) {
                sr += p[2 * (nn * n + i)] * tx[m * n + i];
                si += p[2 * (nn * n + i) + 1] * tx[m * n + i];
            }
            r->mu_re[k][nn * M + m] = sr / (double)n;
            r->mu_im[k][nn * M + m] = si / (double)n;
            if (r->mu_err)
                r->mu_err[k][nn * M + m] = 0.0;
        }
    if (r->moment_scale) {
        r->moment_scale[k][0] = a;
        r->moment_scale[k][1] = b;
    }
done:
    free(vec);
    free(ap);
    free(bp);
    free(eval);
    free(tx);
    free(p);
    return rc;
}

int ed_response(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                const mcf_response *r)
{
    (void)b;
    (void)rngs; /* exact: nothing drawn */
    if (!n)
        return MCF_OK;
    if (!ws || !r || !r->op_a || !r->op_b || !r->mu_re || !r->mu_im)
        return mcf_fail(MCF_EINVAL, "ed: response: the %s is NULL",
                        !ws ? "workspace array" : !r ? "request" : "operator or output array");
    if (r->moments < 2)
        return mcf_fail(MCF_EINVAL, "ed: response: %zu moments (at least 2)", r->moments);
    for (size_t k = 0; k < n; k++)
        if (!ws[k] || !r->op_a[k] || !r->op_b[k] || !r->mu_re[k] || !r->mu_im[k] ||
            (r->mu_err && !r->mu_err[k]) || (r->moment_scale && !r->moment_scale[k]))
            return mcf_fail(MCF_EINVAL, "ed: response: workspace %zu of %zu: the %s is NULL",
                            k, n, !ws[k] ? "workspace" : "operator or output array");
    const long nn = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long k = 0; k < nn; k++) {
        ed_ws *w = ws[k];
        w->rc = response_one(w, r, (size_t)k);
        if (w->rc)
            snprintf(w->err, sizeof w->err, "%s", mcf_last_error());
    }
    return ed_batch_status(ws, n);
}
