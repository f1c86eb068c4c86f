/* ed_density.c — the density matrix of the ed evaluator (mcf/fermion.h's density_matrix,
 * mcf 1.1): rho = f(H) = sum_k f(eps_k) |psi_k><psi_k| from the eigenvectors of the dense
 * Hamiltonian, on the diagonal and on every occupied slot of its table, exactly (errors 0,
 * truncation 0).  Cost per workspace: one diagonalization with eigenvectors (O(dim^3),
 * ed_eigen.c's complex solver, or GSL's symmv when every amplitude is real:
 * ed_diagonalize.c's solvers) and dim per entry of the table; 7 dim^2 doubles while it
 * runs, nothing kept.  Workspaces of a batch run on OpenMP threads, each by one thread in a
 * fixed order: the same bits for any batch or thread count. */
#include "ed_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

/* f(e) at (mu, T > 0), without overflow */
static double fermi(double e, double mu, double T)
{
    const double x = (e - mu) / T;
    if (x > 0) {
        const double q = exp(-x);
        return q / (1.0 + q);
    }
    return 1.0 / (1.0 + exp(x));
}

static int has_imaginary(const mcf_hamiltonian *h)
{
    for (size_t s = 0; s < (size_t)h->width * h->dim; s++)
        if (h->col[s] >= 0 && h->hop_im[s] != 0.0)
            return 1;
    return 0;
}

/* the eigenpairs of h by ed_diagonalize.c's solvers (gsl: GSL's complex one): eval
 * ascending, vec[2 (r n + k)] (re) and [... + 1] (im) = psi_k(r); mat (2 n^2) and weight
 * (n^2) are scratch.  A GSL status. */
static int eigenpairs_in(const mcf_hamiltonian *h, int gsl, double *mat, double *vec,
                         double *eval, double *weight)
{
    const size_t n = h->dim;
    mcf_hamiltonian_dense(h, mat);
    if (has_imaginary(h))
        return ed_eigen_complex(mat, vec, n, eval, weight, gsl);
    const int status = ed_eigen_real(mat, vec, n, eval, weight, NULL);
    for (size_t q = n * n; q-- > 0;) { /* the real vectors (packed) to complex, from the end */
        vec[2 * q] = vec[q];
        vec[2 * q + 1] = 0.0;
    }
    return status;
}

int ed_eigenpairs(const mcf_hamiltonian *h, int gsl, double *vec, double *eval)
{
    const size_t n = h->dim;
    double *mat = malloc(2 * n * n * sizeof *mat), *weight = malloc(n * n * sizeof *weight);
    if (!mat || !weight) {
        free(mat);
        free(weight);
        return mcf_fail(MCF_ENOMEM, "ed: out of memory for the dense matrix of dimension %zu",
                        n);
    }
    const int status = eigenpairs_in(h, gsl, mat, vec, eval, weight);
    free(mat);
    free(weight);
    if (status)
        return mcf_fail(status == GSL_ENOMEM ? MCF_ENOMEM : MCF_EINTERNAL,
                        "ed: the GSL eigensolver failed for dimension %zu: %s", n,
                        gsl_strerror(status));
    return MCF_OK;
}

/* rho_rc = sum_k psi_k(r) f_k conj(psi_k(c)) */
static void rho_entry(const double *vec, const double *f, size_t n, size_t r, size_t c,
                      double *re, double *im)
{
    double sr = 0.0, si = 0.0;
    const double *pr = vec + 2 * r * n, *pc = vec + 2 * c * n;
    for (size_t k = 0; k < n; k++) {
        const double ar = pr[2 * k], ai = pr[2 * k + 1], br = pc[2 * k], bi = pc[2 * k + 1];
        sr += f[k] * (ar * br + ai * bi);
        si += f[k] * (ai * br - ar * bi);
    }
    *re = sr;
    *im = si;
}

static int density_one(ed_ws *w, double T, double mu, const mcf_density_matrix *out, size_t k)
{
    const mcf_hamiltonian *h = w->h;
    const size_t n = h->dim;
    if (n != w->dim)
        return mcf_fail(MCF_EINVAL, "ed: density_matrix: the Hamiltonian's dimension changed "
                        "from %zu to %zu since the workspace was created", w->dim, n);
    int rc = mcf_hamiltonian_check(h);
    if (rc)
        return mcf_fail_prefix(rc, "ed: density_matrix: refusing an invalid Hamiltonian");
    double *mat = malloc(2 * n * n * sizeof *mat), *vec = malloc(2 * n * n * sizeof *vec);
    double *eval = malloc(2 * n * sizeof *eval), *weight = malloc(n * n * sizeof *weight);
    if (!mat || !vec || !eval || !weight) {
        free(mat);
        free(vec);
        free(eval);
        free(weight);
        return mcf_fail(MCF_ENOMEM, "ed: density_matrix: out of memory for the eigenvectors "
                        "of dimension %zu (%.1f MiB)", n, 32.0 * (double)(n * n) / 1048576.0);
    }
    const int status = eigenpairs_in(h, w->gsl_complex, mat, vec, eval, weight);
    free(mat);
    free(weight);
    if (status) {
        free(vec);
        free(eval);
        return mcf_fail(status == GSL_ENOMEM ? MCF_ENOMEM : MCF_EINTERNAL,
                        "ed: density_matrix: the GSL eigensolver failed for dimension %zu: %s",
                        n, gsl_strerror(status));
    }
    double *f = eval + n;
    for (size_t q = 0; q < n; q++)
        f[q] = fermi(eval[q], mu, T);
    for (size_t r = 0; r < n; r++) {
        double im;
        rho_entry(vec, f, n, r, r, &out->diag[k][r], &im);
        if (out->diag_err)
            out->diag_err[k][r] = 0.0;
    }
    for (size_t s = 0; s < (size_t)h->width * n; s++) {
        const int32_t c = h->col[s];
        if (c < 0)
            out->bond_re[k][s] = out->bond_im[k][s] = 0.0;
        else
            rho_entry(vec, f, n, s % n, (size_t)c, &out->bond_re[k][s], &out->bond_im[k][s]);
        if (out->bond_err)
            out->bond_err[k][s] = 0.0;
    }
    if (out->truncation)
        out->truncation[k] = 0.0;
    free(vec);
    free(eval);
    return MCF_OK;
}

int ed_density_matrix(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                      const double *T, const double *mu, const mcf_density_matrix *out)
{
    (void)b;
    (void)rngs; /* exact: nothing drawn */
    if (!n)
        return MCF_OK;
    if (!ws || !T || !mu || !out || !out->diag || !out->bond_re || !out->bond_im)
        return mcf_fail(MCF_EINVAL, "ed: density_matrix: the %s is NULL",
                        !ws ? "workspace array" : !T ? "T array" : !mu ? "mu array"
                                                                  : "output array");
    for (size_t k = 0; k < n; k++) {
        if (!ws[k] || !out->diag[k] || !out->bond_re[k] || !out->bond_im[k] ||
            (out->diag_err && !out->diag_err[k]) || (out->bond_err && !out->bond_err[k]))
            return mcf_fail(MCF_EINVAL, "ed: density_matrix: workspace %zu of %zu: the %s is "
                            "NULL", k, n, !ws[k] ? "workspace" : "output array");
        if (!(T[k] > 0.0) || !isfinite(T[k]))
            return mcf_fail(MCF_EINVAL, "ed: density_matrix: workspace %zu of %zu: temperature "
                            "T = %g must be a finite number > 0", k, n, T[k]);
        if (!isfinite(mu[k]))
            return mcf_fail(MCF_EINVAL, "ed: density_matrix: workspace %zu of %zu: chemical "
                            "potential mu = %g must be finite", k, n, mu[k]);
    }
    const long nn = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long k = 0; k < nn; k++) {
        ed_ws *w = ws[k];
        w->rc = density_one(w, T[k], mu[k], out, (size_t)k);
        if (w->rc)
            snprintf(w->err, sizeof w->err, "%s", mcf_last_error());
    }
    return ed_batch_status(ws, n);
}
