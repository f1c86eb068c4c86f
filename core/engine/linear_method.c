/* linear_method.c — sums and step of the linear method (see linear_method.h).
 *
 * Notation.  psi_0 = psi(p) the current wave function, psi_i = d psi / d p_i (i = 1..P),
 * <.> the weighted sample means (sums / count), which estimate averages over |psi_0|^2.
 * Per sample a = (1, O_1..O_P) with O_i = psi_i / psi_0, and b = (E_L, b_1..b_P) with
 *     b_i = (H psi_i) / psi_0 = d(E_L psi_0)/dp_i / psi_0 = dE_L/dp_i + E_L O_i ,
 * so that <a_k a_l> estimates <psi_k|psi_l> / <psi_0|psi_0> and <a_k b_l> estimates
 * <psi_k|H|psi_l> / <psi_0|psi_0> (k, l = 0..P).
 *
 * Orthogonalized basis.  psibar_0 = psi_0, psibar_i = psi_i - <O_i> psi_0, orthogonal to
 * psi_0.  In terms of a and b this is the linear map T with T_00 = 1, T_i0 = -<O_i>,
 * T_ij = delta_ij (i, j >= 1), applied to a and to b:
 *     (Ta)_0 = 1,    (Ta)_i = O_i - <O_i>
 *     (Tb)_0 = E_L,  (Tb)_i = b_i - <O_i> E_L
 * and the matrices of the linear space spanned by psibar_0..psibar_P are
 *     S = T <a a^T> T^T      overlap:   S_00 = 1, S_0i = 0, S_ij = <O_i O_j> - <O_i><O_j>
 *     H = T <a b^T> T^T      Hamiltonian
 * Elementwise, with m_0 = 0 and m_i = <O_i>, M = T X T^T is
 *     M_kl = X_kl - m_k X_0l - m_l X_k0 + m_k m_l X_00 .
 * H is kept as it comes, non-symmetric: for an exact eigenstate within the span
 * (H psi_lin = E psi_lin at every x) the estimator <Ta (Tb)^T> c = E <Ta (Ta)^T> c holds
 * sample by sample, so the eigenvalue and eigenvector come out exact with any finite
 * sample (the zero-variance property of the linear method; symmetrizing H loses it).
 *
 * Energy target: the lowest energy <psi|H|psi>/<psi|psi> for psi = sum_k c_k psibar_k is
 * an eigenvalue of the generalized problem
 *     (H + shift D) c = lambda S c,     D = diag(0, 1, ..., 1),
 * solved by QZ (gsl_eigen_genv: H is not symmetric).  The shift penalizes the parameter
 * components (shift * |c_param|^2 / |c|^2 in the Rayleigh quotient) and shortens the step.
 *
 * Variance target: with E = <E_L> fixed, minimize <psi|(H - E)^2|psi>/<psi|psi> (for the
 * final psi, the variance plus (E_psi - E)^2, which is the variance to first order at a
 * fixed point).  (H - E) psibar_k / psi_0 = (Tb - E Ta)_k, so its matrix is
 *     V = T <(b - E a)(b - E a)^T> T^T
 *       = T (<b b^T> - E <a b^T> - E <b a^T> + E^2 <a a^T>) T^T ,
 * symmetric and positive semidefinite; (V + shift D) c = lambda S c is solved by reducing
 * with the Cholesky factor S = L L^T to the symmetric C = L^-1 (V + shift D) L^-T
 * (gsl_eigen_symmv), c = L^-T y.  (L is computed anyway, see below.)
 *
 * S must be positive definite.  It is checked on the parameter block scaled to unit
 * diagonal (the correlation matrix R_ij = S_ij / sqrt(S_ii S_jj)):
 *   - S_ii <= 1e-12 <O_i^2>: O_i does not vary over the samples (a parameter that does
 *     nothing, or only changes the normalization): refused, naming the parameter;
 *   - a Cholesky pivot of R <= 1e-10: that fraction of O_k's variance is all that is not
 *     a linear combination of O_1..O_(k-1): the parameters are linearly dependent.
 * S_ij is formed as <O_i O_j> - <O_i><O_j>, so O_i with a mean much larger than its spread
 * lose digits to cancellation; parametrize so that O_i varies around O(1) values.
 *
 * Choice of the eigenvector.  Of the real eigenvalues (a complex pair, which noise in the
 * non-symmetric H can produce, has no real eigenvector to step along), we take the lowest
 * one whose S-normalized eigenvector has c0 = |c_0| / sqrt(c^T S c) >= MCFI_LM_MIN_C0.
 * Lowest: the method is variational, its ground state in the linear space is what it is
 * after.  c0 is the cosine of the angle between psi_0 and the new psi_lin; an eigenvector
 * nearly orthogonal to psi_0 cannot be reached by a finite parameter change (dpbar = c/c_0
 * diverges), and such low eigenvalues are typically spurious (noise, near-dependent
 * parameters).  The bar 1e-3 (a step |dpbar|_S ~ 1000) only excludes those degenerate
 * directions; controlling large but finite steps is the shift's business, and c0 is
 * reported so that a driver can raise the shift when it is small.  (Taking the largest
 * c0 among the lowest few is the other common rule; it needs a choice of "few" and may
 * prefer an excited state that happens to overlap more with psi_0, so we do not use it.)
 *
 * Step and its normalization.  dpbar_i = c_i / c_0 gives psi_lin ∝ psi_0 + sum_i dpbar_i
 * psibar_i.  Since the normalization of psi is free, the derivative basis may as well be
 * psitilde_i = psibar_i + N_i psi_0 for any N_i: psi_0 + sum_i dp_i psitilde_i is
 * proportional to psi_lin when
 *     dp_i / (1 + sum_j N_j dp_j) = dpbar_i   <=>   dp_i = dpbar_i / (1 - sum_j N_j dpbar_j)
 * (check: with dp = dpbar / (1 - N.dpbar), 1 + N.dp = 1 / (1 - N.dpbar)).  The choice of
 * N changes dp at second order only, and (psi being nonlinear in p) decides how far the
 * step goes.  Toulouse and Umrigar take psitilde_i orthogonal to
 * xi psi_0 / |psi_0| + (1 - xi) psi_lin / |psi_lin|.  With |psi_0| = 1 (S_00 = 1),
 * <psibar_i|psi_0> = 0, <psitilde_i|psi_0> = N_i, <psitilde_i|psi_lin> = (S dpbar)_i + N_i
 * and |psi_lin| = D with D^2 = 1 + sum_jk dpbar_j S_jk dpbar_k, orthogonality is
 *     xi N_i + (1 - xi) ((S dpbar)_i + N_i) / D = 0
 *     =>  N_i = -(1 - xi) (S dpbar)_i / ((1 - xi) + xi D)
 * and then 1 - N.dpbar = 1 + (1 - xi) (D^2 - 1) / ((1 - xi) + xi D) >= 1, so
 *     xi = 1: dp = dpbar (psitilde = psibar, orthogonal to psi_0)
 *     xi = 1/2: dp = dpbar / D
 *     xi = 0: dp = dpbar / D^2 (psitilde orthogonal to psi_lin; the shortest step).
 * Since D = 1 / c0, the norm of the step is |dpbar| c0^(0, 1, 2) for xi = (1, 1/2, 0).
 * At a fixed point (H c = lambda S c with c = (1, 0, ..., 0), i.e. H_i0 = <(O_i - <O_i>)
 * E_L> = 0: half the energy gradient) dp = 0 for any xi and shift. */
#include "linear_method.h"

#include "mcf/error.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* below this relative variance a parameter's O_i counts as constant */
#define ZERO_VARIANCE 1e-12
/* below this Cholesky pivot of the correlation matrix the O_i count as dependent */
#define DEPENDENT 1e-10
/* |Im lambda| <= this * |lambda| counts as real */
#define REAL_EIGENVALUE 1e-10

int mcfi_lm_sums_init(mcfi_lm_sums *s, size_t P)
{
    memset(s, 0, sizeof *s);
    if (P == 0)
        return mcf_fail(MCF_EINVAL, "linear method: no parameters to optimize");
    const size_t n = P + 1;
    if (n < P || n > SIZE_MAX / sizeof(double) / n)
        return mcf_fail(MCF_EINVAL, "linear method: %zu parameters are too many", P);
    s->aa = calloc(n * n, sizeof(double));
    s->ab = calloc(n * n, sizeof(double));
    s->bb = calloc(n * n, sizeof(double));
    if (!s->aa || !s->ab || !s->bb) {
        mcfi_lm_sums_free(s);
        return mcf_fail(MCF_ENOMEM, "linear method: out of memory for the sums of %zu "
                        "parameters", P);
    }
    s->P = P;
    return MCF_OK;
}

void mcfi_lm_sums_free(mcfi_lm_sums *s)
{
    if (!s)
        return;
    free(s->aa);
    free(s->ab);
    free(s->bb);
    memset(s, 0, sizeof *s);
}

void mcfi_lm_sums_clear(mcfi_lm_sums *s)
{
    const size_t n = s->P + 1;
    s->count = 0.0;
    if (s->aa) {
        memset(s->aa, 0, n * n * sizeof(double));
        memset(s->ab, 0, n * n * sizeof(double));
        memset(s->bb, 0, n * n * sizeof(double));
    }
}

void mcfi_lm_add_weighted(mcfi_lm_sums *s, double w, double e_local, const double *dlogpsi,
                          const double *de_local)
{
    const size_t n = s->P + 1;
    s->count += w;
    for (size_t k = 0; k < n; k++) {
        /* w a_k and w b_k; the products with a_l, b_l are then the same in aa and its
         * transpose, so aa and bb stay exactly symmetric */
        const double ak = k ? dlogpsi[k - 1] : 1.0;
        const double bk = k ? de_local[k - 1] + e_local * ak : e_local;
        const double wak = w * ak, wbk = w * bk;
        double *aa = s->aa + k * n, *ab = s->ab + k * n, *bb = s->bb + k * n;
        aa[0] += wak;
        ab[0] += wak * e_local;
        bb[0] += wbk * e_local;
        for (size_t l = 1; l < n; l++) {
            const double al = dlogpsi[l - 1];
            const double bl = de_local[l - 1] + e_local * al;
            aa[l] += wak * al;
            ab[l] += wak * bl;
            bb[l] += wbk * bl;
        }
    }
}

void mcfi_lm_add(mcfi_lm_sums *s, double e_local, const double *dlogpsi,
                 const double *de_local)
{
    mcfi_lm_add_weighted(s, 1.0, e_local, dlogpsi, de_local);
}

void mcfi_lm_merge(mcfi_lm_sums *into, const mcfi_lm_sums *from)
{
    if (into->P != from->P || !into->aa || !from->aa)
        return;
    const size_t nn = (into->P + 1) * (into->P + 1);
    into->count += from->count;
    for (size_t k = 0; k < nn; k++) {
        into->aa[k] += from->aa[k];
        into->ab[k] += from->ab[k];
        into->bb[k] += from->bb[k];
    }
}

/* M = T X T^T for the n x n matrix X (row-major), m[0] = 0, m[i] = <O_i>:
 * M_kl = X_kl - m_k X_0l - m_l X_k0 + m_k m_l X_00. */
static void mcfi_lm_transform(size_t n, const double *X, const double *m, gsl_matrix *M)
{
    for (size_t k = 0; k < n; k++)
        for (size_t l = 0; l < n; l++)
            gsl_matrix_set(M, k, l,
                           X[k * n + l] - m[k] * X[l] - m[l] * X[k * n] +
                               m[k] * m[l] * X[0]);
}

static void mcfi_lm_symmetrize(gsl_matrix *M)
{
    for (size_t k = 0; k < M->size1; k++)
        for (size_t l = 0; l < k; l++) {
            const double v = 0.5 * (gsl_matrix_get(M, k, l) + gsl_matrix_get(M, l, k));
            gsl_matrix_set(M, k, l, v);
            gsl_matrix_set(M, l, k, v);
        }
}

/* Checks S (S_00 = 1, S_0i = 0) for positive definiteness on its correlation matrix and
 * writes its Cholesky factor S = L L^T (lower, L_00 = 1).  o2[i] = <O_i^2> for the
 * zero-variance test. */
static int mcfi_lm_cholesky(const gsl_matrix *S, const double *o2, gsl_matrix *L)
{
    const size_t n = S->size1;
    gsl_matrix_set_zero(L);
    gsl_matrix_set(L, 0, 0, 1.0);
    for (size_t i = 1; i < n; i++) {
        const double sii = gsl_matrix_get(S, i, i);
        if (!(sii > ZERO_VARIANCE * o2[i]) || !(sii > 0.0))
            return mcf_fail(MCF_EINVAL, "linear method: parameter dlogpsi[%zu] has no variance "
                            "over the samples (Var O = %.3g, <O^2> = %.3g): d ln psi / dp "
                            "is constant, so the parameter does not change the wave function "
                            "beyond its normalization; remove it or fix its derivative",
                            i - 1, sii, o2[i]);
    }
    /* Cholesky of R_ij = S_ij / (sd_i sd_j) in L's parameter block, then L = diag(sd) L_R */
    for (size_t k = 1; k < n; k++) {
        const double sdk = sqrt(gsl_matrix_get(S, k, k));
        double d = 1.0;
        for (size_t j = 1; j < k; j++)
            d -= gsl_matrix_get(L, k, j) * gsl_matrix_get(L, k, j);
        if (!(d > DEPENDENT)) /* never for k = 1 (d = R_11 = 1) */
            return mcf_fail(MCF_EINVAL, "linear method: the derivatives d ln psi / dp are "
                            "linearly dependent over the samples: dlogpsi[%zu] is a linear "
                            "combination of dlogpsi[0..%zu] and a constant (the part of its "
                            "variance that is not, %.3g, is below %g); remove one of these "
                            "parameters", k - 1, k - 2, d, DEPENDENT);
        const double lkk = sqrt(d);
        gsl_matrix_set(L, k, k, lkk);
        for (size_t i = k + 1; i < n; i++) {
            const double sdi = sqrt(gsl_matrix_get(S, i, i));
            double r = gsl_matrix_get(S, i, k) / (sdi * sdk);
            for (size_t j = 1; j < k; j++)
                r -= gsl_matrix_get(L, i, j) * gsl_matrix_get(L, k, j);
            gsl_matrix_set(L, i, k, r / lkk);
        }
    }
    for (size_t i = 1; i < n; i++) {
        const double sdi = sqrt(gsl_matrix_get(S, i, i));
        for (size_t j = 1; j <= i; j++)
            gsl_matrix_set(L, i, j, sdi * gsl_matrix_get(L, i, j));
    }
    return MCF_OK;
}

/* Energy target: (A) c = lambda S c by QZ.  Writes the eigenvalues to lam (NaN where not
 * real or infinite) and the real eigenvectors to the columns of C. */
static int mcfi_lm_eigen_energy(const gsl_matrix *A, const gsl_matrix *S, double *lam,
                                gsl_matrix *C)
{
    const size_t n = A->size1;
    gsl_matrix *Aw = gsl_matrix_alloc(n, n), *Sw = gsl_matrix_alloc(n, n);
    gsl_vector_complex *alpha = gsl_vector_complex_alloc(n);
    gsl_vector *beta = gsl_vector_alloc(n);
    gsl_matrix_complex *evec = gsl_matrix_complex_alloc(n, n);
    gsl_eigen_genv_workspace *ws = gsl_eigen_genv_alloc(n);
    int rc = MCF_OK;
    if (!Aw || !Sw || !alpha || !beta || !evec || !ws) {
        rc = mcf_fail(MCF_ENOMEM, "linear method: out of memory for a %zu x %zu eigenproblem",
                      n, n);
        goto done;
    }
    gsl_matrix_memcpy(Aw, A);
    gsl_matrix_memcpy(Sw, S);
    if (gsl_eigen_genv(Aw, Sw, alpha, beta, evec, ws)) {
        rc = mcf_fail(MCF_EINTERNAL, "linear method: GSL's generalized eigensolver "
                      "(gsl_eigen_genv) failed on the %zu x %zu problem", n, n);
        goto done;
    }
    for (size_t j = 0; j < n; j++) {
        const gsl_complex a = gsl_vector_complex_get(alpha, j);
        const double b = gsl_vector_get(beta, j);
        const double re = GSL_REAL(a) / b, im = GSL_IMAG(a) / b;
        lam[j] = (b != 0.0 && isfinite(re) && fabs(im) <= REAL_EIGENVALUE * fabs(re)) ? re
                                                                                      : NAN;
        for (size_t i = 0; i < n; i++)
            gsl_matrix_set(C, i, j, GSL_REAL(gsl_matrix_complex_get(evec, i, j)));
    }
done:
    gsl_eigen_genv_free(ws);
    gsl_matrix_complex_free(evec);
    gsl_vector_free(beta);
    gsl_vector_complex_free(alpha);
    gsl_matrix_free(Sw);
    gsl_matrix_free(Aw);
    return rc;
}

/* Variance target: A symmetric, S = L L^T; C = L^-1 A L^-T, eigenvectors back by L^-T. */
static int mcfi_lm_eigen_symmetric(const gsl_matrix *A, const gsl_matrix *L, double *lam,
                                   gsl_matrix *C)
{
    const size_t n = A->size1;
    gsl_matrix *Cw = gsl_matrix_alloc(n, n);
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
    int rc = MCF_OK;
    if (!Cw || !ev || !ws) {
        rc = mcf_fail(MCF_ENOMEM, "linear method: out of memory for a %zu x %zu eigenproblem",
                      n, n);
        goto done;
    }
    gsl_matrix_memcpy(Cw, A);
    gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, L, Cw);
    gsl_blas_dtrsm(CblasRight, CblasLower, CblasTrans, CblasNonUnit, 1.0, L, Cw);
    mcfi_lm_symmetrize(Cw);
    if (gsl_eigen_symmv(Cw, ev, C, ws)) {
        rc = mcf_fail(MCF_EINTERNAL, "linear method: GSL's symmetric eigensolver failed on "
                      "the %zu x %zu problem", n, n);
        goto done;
    }
    gsl_blas_dtrsm(CblasLeft, CblasLower, CblasTrans, CblasNonUnit, 1.0, L, C);
    for (size_t j = 0; j < n; j++)
        lam[j] = gsl_vector_get(ev, j);
done:
    gsl_eigen_symmv_free(ws);
    gsl_vector_free(ev);
    gsl_matrix_free(Cw);
    return rc;
}

int mcfi_lm_solve(const mcfi_lm_sums *s, const mcfi_lm_options *o, double *dp,
                  mcfi_lm_result *res)
{
    if (res) {
        res->energy = res->variance = res->predicted = res->c0 = res->norm = NAN;
    }
    if (!s || !o || !dp || !s->aa || s->P == 0)
        return mcf_fail(MCF_EINVAL, "linear method: no sums, options or step to solve for");
    if (!(s->count >= 2.0))
        return mcf_fail(MCF_EINVAL, "linear method: the sums hold a total weight of %g "
                        "samples; at least 2 are needed", s->count);
    if (o->target != MCFI_LM_ENERGY && o->target != MCFI_LM_VARIANCE)
        return mcf_fail(MCF_EINVAL, "linear method: unknown target %d", (int)o->target);
    if (!(o->shift >= 0.0) || !isfinite(o->shift))
        return mcf_fail(MCF_EINVAL, "linear method: shift = %g must be finite and >= 0",
                        o->shift);
    if (!(o->xi >= 0.0 && o->xi <= 1.0))
        return mcf_fail(MCF_EINVAL, "linear method: xi = %g must lie in [0, 1]", o->xi);

    const size_t P = s->P, n = P + 1, nn = n * n;
    const double inv = 1.0 / s->count;
    for (size_t k = 0; k < nn; k++)
        if (!isfinite(s->aa[k]) || !isfinite(s->ab[k]) || !isfinite(s->bb[k]))
            return mcf_fail(MCF_EINVAL, "linear method: the sums are not finite (a sample "
                            "with a non-finite local energy or derivative was added)");
    const double E = s->ab[0] * inv;
    const double var = s->bb[0] * inv - E * E;
    if (res) {
        res->energy = E;
        res->variance = var;
    }

    double *X = calloc(nn, sizeof *X);
    double *m = malloc(n * sizeof *m), *o2 = malloc(n * sizeof *o2);
    double *lam = malloc(n * sizeof *lam), *dpbar = malloc(n * sizeof *dpbar);
    gsl_matrix *S = gsl_matrix_alloc(n, n), *A = gsl_matrix_alloc(n, n);
    gsl_matrix *L = gsl_matrix_alloc(n, n), *C = gsl_matrix_alloc(n, n);
    int rc = MCF_OK;
    if (!X || !m || !o2 || !lam || !dpbar || !S || !A || !L || !C) {
        rc = mcf_fail(MCF_ENOMEM, "linear method: out of memory for %zu parameters", P);
        goto done;
    }
    m[0] = 0.0;
    o2[0] = 1.0;
    for (size_t i = 1; i < n; i++) {
        m[i] = s->aa[i] * inv;
        o2[i] = s->aa[i * n + i] * inv;
    }

    /* S, exactly symmetric with S_00 = 1, S_0i = 0 */
    for (size_t k = 0; k < nn; k++)
        X[k] = s->aa[k] * inv;
    mcfi_lm_transform(n, X, m, S);
    mcfi_lm_symmetrize(S);
    gsl_matrix_set(S, 0, 0, 1.0);
    for (size_t i = 1; i < n; i++) {
        gsl_matrix_set(S, 0, i, 0.0);
        gsl_matrix_set(S, i, 0, 0.0);
    }
    rc = mcfi_lm_cholesky(S, o2, L);
    if (rc)
        goto done;

    /* the matrix to minimize: H (as is) or V (symmetric), plus the shift */
    if (o->target == MCFI_LM_ENERGY) {
        for (size_t k = 0; k < nn; k++)
            X[k] = s->ab[k] * inv;
    } else {
        for (size_t k = 0; k < n; k++)
            for (size_t l = 0; l < n; l++)
                X[k * n + l] = (s->bb[k * n + l] - E * (s->ab[k * n + l] + s->ab[l * n + k]) +
                                E * E * s->aa[k * n + l]) * inv;
    }
    mcfi_lm_transform(n, X, m, A);
    if (o->target == MCFI_LM_VARIANCE)
        mcfi_lm_symmetrize(A);
    for (size_t i = 1; i < n; i++)
        gsl_matrix_set(A, i, i, gsl_matrix_get(A, i, i) + o->shift);

    rc = o->target == MCFI_LM_ENERGY ? mcfi_lm_eigen_energy(A, S, lam, C)
                                     : mcfi_lm_eigen_symmetric(A, L, lam, C);
    if (rc)
        goto done;

    /* the lowest real eigenvalue with c0 >= MCFI_LM_MIN_C0 */
    size_t best = n;
    double best_c0 = 0.0, best_c0_any = 0.0;
    size_t n_real = 0;
    for (size_t j = 0; j < n; j++) {
        if (isnan(lam[j]))
            continue;
        n_real++;
        /* c^T S c = c_0^2 + c_p^T S_pp c_p */
        double csc = 0.0;
        for (size_t k = 0; k < n; k++) {
            double sc = 0.0;
            for (size_t l = 0; l < n; l++)
                sc += gsl_matrix_get(S, k, l) * gsl_matrix_get(C, l, j);
            csc += gsl_matrix_get(C, k, j) * sc;
        }
        const double c0 = fabs(gsl_matrix_get(C, 0, j)) / sqrt(csc);
        if (!(csc > 0.0) || !isfinite(c0))
            continue;
        if (c0 > best_c0_any)
            best_c0_any = c0;
        if (c0 >= MCFI_LM_MIN_C0 && (best == n || lam[j] < lam[best])) {
            best = j;
            best_c0 = c0;
        }
    }
    if (best == n) {
        rc = mcf_fail(MCF_EINVAL, "linear method: no acceptable eigenvector: %zu of %zu "
                      "eigenvalues are real, and the largest overlap with the current wave "
                      "function among them is c0 = %.3g < %g; raise the shift or sample more",
                      n_real, n, best_c0_any, MCFI_LM_MIN_C0);
        goto done;
    }

    /* dpbar, D^2 = 1 + dpbar^T S dpbar, and the normalized step */
    const double cb0 = gsl_matrix_get(C, 0, best);
    for (size_t i = 1; i < n; i++)
        dpbar[i] = gsl_matrix_get(C, i, best) / cb0;
    double dsd = 0.0; /* dpbar^T S dpbar */
    for (size_t i = 1; i < n; i++) {
        double sd = 0.0;
        for (size_t j = 1; j < n; j++)
            sd += gsl_matrix_get(S, i, j) * dpbar[j];
        dsd += dpbar[i] * sd;
    }
    if (dsd < 0.0) /* rounding; S is positive definite */
        dsd = 0.0;
    const double Dn = sqrt(1.0 + dsd);
    /* 1 - sum_j N_j dpbar_j with N = -(1 - xi) S dpbar / ((1 - xi) + xi D) */
    const double denom = 1.0 + (1.0 - o->xi) * dsd / ((1.0 - o->xi) + o->xi * Dn);
    double norm2 = 0.0;
    for (size_t i = 1; i < n; i++) {
        dp[i - 1] = dpbar[i] / denom;
        norm2 += dp[i - 1] * dp[i - 1];
    }
    if (res) {
        res->predicted = lam[best];
        res->c0 = best_c0;
        res->norm = sqrt(norm2);
    }
done:
    gsl_matrix_free(C);
    gsl_matrix_free(L);
    gsl_matrix_free(A);
    gsl_matrix_free(S);
    free(dpbar);
    free(lam);
    free(o2);
    free(m);
    free(X);
    return rc;
}
