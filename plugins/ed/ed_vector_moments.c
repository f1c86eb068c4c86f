/* ed_vector_moments.c — the Chebyshev moments of given vectors on the ed evaluator
 * (mcf/fermion.h's vector_moments, mcf 1.2), exactly: with H = sum_i eps_i |i><i| and
 * c_i = <i|v>,
 *
 *     mu_n = <v| T_n(H~) |v> = sum_i |c_i|^2 T_n(x_i),   x_i = (eps_i - b) / a
 *
 * (cost dim^3 for the eigenvectors, dim^2 per vector for the c_i, M dim for the sums).  The
 * scaling is the caller's or mcf_hamiltonian_scaling(h, 0.01), as response's.  Workspaces of
 * a batch run on OpenMP threads, each by one thread in a fixed order. */
#include "ed_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int ed_op_scale(const ed_ws *w, const double *scale, const char *op, double *a, double *b)
{
    const mcf_hamiltonian *h = w->h;
    if (h->dim != w->dim)
        return mcf_fail(MCF_EINVAL, "ed: %s: the Hamiltonian's dimension changed from %zu to "
                        "%zu since the workspace was created", op, w->dim, h->dim);
    int rc = mcf_hamiltonian_check(h);
    if (rc)
        return mcf_fail_prefix(rc, "ed: %s: refusing an invalid Hamiltonian", op);
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    if (scale) {
        *a = scale[0];
        *b = scale[1];
        if (!(*a > 0.0) || !isfinite(*a) || !isfinite(*b) || lo < *b - *a || hi > *b + *a)
            return mcf_fail(MCF_EINVAL, "ed: %s: the scale a = %g, b = %g does not hold the "
                            "Hamiltonian's bounds [%g, %g]", op, *a, *b, lo, hi);
    } else {
        mcf_hamiltonian_scaling(h, 0.01, a, b);
    }
    return MCF_OK;
}

static int one(ed_ws *w, const mcf_vector_moments *r, size_t k)
{
    double a, b;
    int rc = ed_op_scale(w, r->scale, "vector_moments", &a, &b);
    if (rc)
        return rc;
    const size_t n = w->dim, M = r->moments;
    double *vec = malloc(2 * n * n * sizeof *vec), *eval = malloc(5 * n * sizeof *eval);
    double *wt = malloc(n * sizeof *wt);
    if (!vec || !eval || !wt) {
        rc = mcf_fail(MCF_ENOMEM, "ed: vector_moments: out of memory for dimension %zu", n);
        goto done;
    }
    if ((rc = ed_eigenpairs(w->h, w->gsl_complex, vec, eval)))
        goto done;
    for (size_t j = 0; j < r->vectors; j++) {
        const double *v = r->v[k] + 2 * j * n;
        for (size_t i = 0; i < n; i++) { /* |<i|v>|^2, psi_i(x) at vec[2 (x n + i)] */
            double cr = 0.0, ci = 0.0;
            for (size_t x = 0; x < n; x++) {
                const double pr = vec[2 * (x * n + i)], pi = vec[2 * (x * n + i) + 1];
                cr += pr * v[2 * x] + pi * v[2 * x + 1];
                ci += pr * v[2 * x + 1] - pi * v[2 * x];
            }
            wt[i] = cr * cr + ci * ci;
        }
        double *mu = r->mu[k] + j * M;
        for (size_t m = 0; m < M; m++)
            mu[m] = 0.0;
        for (size_t i = 0; i < n; i++) {
            const double x = (eval[i] - b) / a;
            double t0 = 1.0, t1 = x;
            for (size_t m = 0; m < M; m++) {
                mu[m] += wt[i] * (m == 0 ? 1.0 : t1);
                if (m > 0) {
                    const double t2 = 2.0 * x * t1 - t0;
                    t0 = t1;
                    t1 = t2;
                }
            }
        }
    }
    if (r->moment_scale) {
        r->moment_scale[k][0] = a;
        r->moment_scale[k][1] = b;
    }
done:
    free(vec);
    free(eval);
    free(wt);
    return rc;
}

int ed_vector_moments(mcf_batch *b, void *const *ws, size_t n, const mcf_vector_moments *r)
{
    (void)b;
    if (!n)
        return MCF_OK;
    if (!ws || !r || !r->v || !r->mu)
        return mcf_fail(MCF_EINVAL, "ed: vector_moments: the %s is NULL",
                        !ws ? "workspace array" : !r ? "request" : "vector or output array");
    if (r->moments < 1 || r->vectors < 1)
        return mcf_fail(MCF_EINVAL, "ed: vector_moments: %zu moments, %zu vectors (at least "
                        "1 each)", r->moments, r->vectors);
    for (size_t k = 0; k < n; k++)
        if (!ws[k] || !r->v[k] || !r->mu[k] || (r->moment_scale && !r->moment_scale[k]))
            return mcf_fail(MCF_EINVAL, "ed: vector_moments: workspace %zu of %zu: the %s is "
                            "NULL", k, n, !ws[k] ? "workspace" : "vector or output array");
    const long nn = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long k = 0; k < nn; k++) {
        ed_ws *w = ws[k];
        w->rc = one(w, r, (size_t)k);
        if (w->rc)
            snprintf(w->err, sizeof w->err, "%s", mcf_last_error());
    }
    return ed_batch_status(ws, n);
}
