/* ed_diagonalize.c — the diagonalization of the ed evaluator (the dense Hamiltonian and
 * GSL's real symmetric solvers, or ed_eigen.c's complex Hermitian one, as ed.c's Method
 * says) and the cache of its
 * spectrum that every op reads.  What is computed from the spectrum is ed_spectra.c's and
 * ed_thermodynamics.c's.
 *
 * Laziness.  A workspace remembers h->version of its last diagonalization (eigenvalues
 * only, or with eigenvectors) and diagonalizes again only when the version changed or
 * eigenvectors are needed for the first time; change_action and action share that cache,
 * so calls for many changes of one H diagonalize H once and H' once per call, and action
 * diagonalizes nothing for a known version.  Before diagonalizing
 * it checks the Hamiltonian (mcf_hamiltonian_check), so a corrupted table is refused
 * instead of giving wrong numbers.  Like every op, it trusts h->version: a Hamiltonian
 * edited without a version bump is a stale cache (and change_action would then pair the old
 * spectrum of H with the new H').  Memory: dim doubles of eigenvalues and, once the LDOS
 * or Green's functions were asked for, dim^2 doubles of |psi_k(r)|^2 per workspace; while
 * diagonalizing, 4 dim^2 doubles more (matrix and eigenvectors), freed at once.  The first
 * change_action call allocates 2 dim^2 + dim doubles (the dense H', its eigenvalues) and
 * GSL's O(dim) real eigenvalue workspace, kept until destroy(), which the real eigenvalue-
 * only diagonalizations of every op then reuse (ed_eigen.c's complex solver allocates 7 dim
 * doubles a call).
 * Time: GSL's solvers are unblocked and stride through memory when they accumulate
 * eigenvectors; measured on one core of the development machine: dim 1024, complex,
 * eigenvalues 0.9 s, with eigenvectors 52 s by GSL (real symmetric: 13 s); dim 2048 complex
 * with eigenvectors 426 s by GSL.  ed_eigen.c's complex solver with eigenvectors is 9-22x
 * faster from dim 16 to 256 (tests/unit/test_ed_eigen.c).  Dimensions beyond ~1000 are for
 * patient reference runs.
 * GSL's own workspaces are O(dim) and allocated last; GSL's default error handler would
 * abort on their allocation failure, like any GSL allocation. */
#include "ed_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_sort_vector.h>
#include <gsl/gsl_vector.h>

/* Is every off-diagonal amplitude real?  Then H is real symmetric. */
static int ed_is_real(const mcf_hamiltonian *h)
{
    const size_t slots = (size_t)h->width * h->dim;
    for (size_t s = 0; s < slots; s++)
        if (h->col[s] >= 0 && h->hop_im[s] != 0.0)
            return 0;
    return 1;
}

/* Complex Hermitian: mat (2 n^2, interleaved, its lower triangle read, destroyed) -> eval
 * ascending and, when vec (2 n^2 scratch) is not NULL, weight[r * n + k] = |psi_k(r)|^2, by
 * ed_eigen.c's solver (GSL's hermv is 9-22x slower with eigenvectors, ed_eigen.c says why;
 * one solver for both calls, so that a spectrum has the same bits with or without vectors),
 * or with gsl by GSL's hermv / herm (eigensolver = gsl: the bits of ed before, which
 * tests/abi's frozen ed still has).  A GSL status. */
int ed_eigen_complex(double *mat, double *vec, size_t n, double *eval, double *weight,
                     int gsl)
{
    int status = GSL_SUCCESS;
    if (!gsl) {
        const int rc = ed_eigen_hermitian(mat, vec, n, eval);
        status = rc == 0 ? GSL_SUCCESS : rc < 0 ? GSL_ENOMEM : GSL_EMAXITER;
    } else {
        gsl_matrix_complex_view A = gsl_matrix_complex_view_array(mat, n, n);
        gsl_vector_view ev = gsl_vector_view_array(eval, n);
        if (vec) {
            gsl_matrix_complex_view Z = gsl_matrix_complex_view_array(vec, n, n);
            gsl_eigen_hermv_workspace *ws = gsl_eigen_hermv_alloc(n);
            if (!ws)
                return GSL_ENOMEM;
            status = gsl_eigen_hermv(&A.matrix, &ev.vector, &Z.matrix, ws);
            gsl_eigen_hermv_free(ws);
            if (!status)
                status = gsl_eigen_hermv_sort(&ev.vector, &Z.matrix, GSL_EIGEN_SORT_VAL_ASC);
        } else {
            gsl_eigen_herm_workspace *ws = gsl_eigen_herm_alloc(n);
            if (!ws)
                return GSL_ENOMEM;
            status = gsl_eigen_herm(&A.matrix, &ev.vector, ws);
            gsl_eigen_herm_free(ws);
            if (!status)
                gsl_sort_vector(&ev.vector);
        }
    }
    for (size_t q = 0; !status && vec && q < n * n; q++)
        weight[q] = vec[2 * q] * vec[2 * q] + vec[2 * q + 1] * vec[2 * q + 1];
    return status;
}

/* Real symmetric (every imaginary part zero), the common case (Anderson, Holstein, ...):
 * GSL's real solver is about 4x faster than its complex one (dim 1024 with eigenvectors:
 * 15 s against 65 s).  The real parts are packed to the front of mat and vec in place.
 * sw: GSL's eigenvalue workspace when not NULL (kept by the caller), else a temporary one. */
int ed_eigen_real(double *mat, double *vec, size_t n, double *eval, double *weight,
                  gsl_eigen_symm_workspace *sw)
{
    for (size_t q = 0; q < n * n; q++) /* q <= 2q: packing in place is safe */
        mat[q] = mat[2 * q];
    gsl_matrix_view A = gsl_matrix_view_array(mat, n, n);
    gsl_vector_view ev = gsl_vector_view_array(eval, n);
    int status;
    if (vec) {
        gsl_matrix_view Z = gsl_matrix_view_array(vec, n, n);
        gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
        if (!ws)
            return GSL_ENOMEM;
        status = gsl_eigen_symmv(&A.matrix, &ev.vector, &Z.matrix, ws);
        gsl_eigen_symmv_free(ws);
        if (!status)
            status = gsl_eigen_symmv_sort(&ev.vector, &Z.matrix, GSL_EIGEN_SORT_VAL_ASC);
        if (!status)
            for (size_t q = 0; q < n * n; q++)
                weight[q] = vec[q] * vec[q];
        return status;
    }
    gsl_eigen_symm_workspace *ws = sw ? sw : gsl_eigen_symm_alloc(n);
    if (!ws)
        return GSL_ENOMEM;
    status = gsl_eigen_symm(&A.matrix, &ev.vector, ws);
    if (!sw)
        gsl_eigen_symm_free(ws);
    if (!status)
        gsl_sort_vector(&ev.vector);
    return status;
}

/* Diagonalizes h unless the current version has been diagonalized already (with
 * eigenvectors when need_vec).  Records a message on failure. */
int ed_diagonalize(ed_ws *w, int need_vec)
{
    const mcf_hamiltonian *h = w->h;
    if (w->has_vec && w->vec_version == h->version)
        return MCF_OK;
    if (!need_vec && w->has_val && w->val_version == h->version)
        return MCF_OK;
    if (h->dim != w->dim)
        return mcf_fail(MCF_EINVAL, "ed: the Hamiltonian's dimension changed from %zu to %zu "
                        "since the workspace was created", w->dim, h->dim);
    int rc = mcf_hamiltonian_check(h);
    if (rc)
        return mcf_fail_prefix(rc, "ed: refusing to diagonalize an invalid Hamiltonian");
    const size_t n = w->dim;
    if (need_vec && !w->weight) {
        w->weight = malloc(n * n * sizeof *w->weight);
        if (!w->weight)
            return mcf_fail(MCF_ENOMEM, "ed: out of memory for the %zu x %zu eigenvector "
                            "weights", n, n);
    }
    /* change_action's kept scratch, when there is one, serves as the matrix */
    double *mat = w->dense ? w->dense : malloc(2 * n * n * sizeof *mat);
    double *vec = need_vec ? malloc(2 * n * n * sizeof *vec) : NULL;
    if (!mat || (need_vec && !vec)) {
        if (mat != w->dense)
            free(mat);
        free(vec);
        return mcf_fail(MCF_ENOMEM, "ed: out of memory for the dense %zu x %zu matrix", n, n);
    }
    /* the only GSL allocations left are the O(n) eigensolver workspaces */
    w->has_val = w->has_vec = 0;
    mcf_hamiltonian_dense(h, mat);
    const int status = ed_is_real(h)
                           ? ed_eigen_real(mat, vec, n, w->eval, w->weight, w->symm_ws)
                           : ed_eigen_complex(mat, vec, n, w->eval, w->weight, w->gsl_complex);
    if (mat != w->dense)
        free(mat);
    free(vec);
    if (status == GSL_ENOMEM)
        return mcf_fail(MCF_ENOMEM, "ed: out of memory for the eigensolver (dim %zu)", n);
    if (status)
        return mcf_fail(MCF_EINTERNAL, "ed: the GSL eigensolver failed for dimension %zu: %s",
                        n, gsl_strerror(status));
    for (size_t k = 0; k < n; k++)
        if (!isfinite(w->eval[k]))
            return mcf_fail(MCF_EINTERNAL, "ed: eigenvalue %zu is not finite (%g)", k,
                            w->eval[k]);
    w->has_val = 1;
    w->val_version = h->version;
    if (need_vec) {
        w->has_vec = 1;
        w->vec_version = h->version;
    }
    return MCF_OK;
}
