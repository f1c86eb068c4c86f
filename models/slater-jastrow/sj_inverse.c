/* sj_inverse.c — the inverse of a Slater matrix by LU (GSL) and its drift: what the
 * model's determinants (sj_determinants.c), the evaluator's (sj_determinants_ev.c) and the
 * checkpoint (sj_checkpoint.c) compute from the stored rows. */
#include "slater_jastrow_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_linalg.h>

/* Inverse of the m x m matrix of rows A (row-major) into Ainv by GSL LU; MCF_EINVAL if
 * singular.  Ainv[l * m + i]: Ainv is the matrix inverse (A Ainv = 1). */
int invert(sj_chain *c, const double *A, size_t m, double *Ainv)
{
    gsl_matrix_view lu = gsl_matrix_submatrix(c->lu, 0, 0, m, m);
    gsl_matrix_view inv = gsl_matrix_submatrix(c->inv, 0, 0, m, m);
    gsl_permutation *p = c->perm;
    p->size = m;
    for (size_t i = 0; i < m; i++)
        for (size_t l = 0; l < m; l++)
            gsl_matrix_set(&lu.matrix, i, l, A[i * m + l]);
    int sign;
    if (gsl_linalg_LU_decomp(&lu.matrix, p, &sign))
        return MCF_EINVAL;
    for (size_t i = 0; i < m; i++)
        if (gsl_matrix_get(&lu.matrix, i, i) == 0.0)
            return MCF_EINVAL;
    if (gsl_linalg_LU_invert(&lu.matrix, p, &inv.matrix))
        return MCF_EINVAL;
    for (size_t l = 0; l < m; l++)
        for (size_t i = 0; i < m; i++)
            Ainv[l * m + i] = gsl_matrix_get(&inv.matrix, l, i);
    return MCF_OK;
}

/* max |Ainv A - 1| over the entries (m x m); NAN when out of memory.  Row l of the product is
 * summed into a row of m doubles, i outer, j inner, so that A is read along its rows (the
 * column walk of a plain triple loop missed the cache at every step: ~5x slower at m = 257);
 * each entry's sum runs over i in the same order as that loop's, so the value is the same to
 * the bit. */
double drift(const double *A, const double *Ainv, size_t m)
{
    double *row = malloc(m * sizeof *row), worst = 0.0;
    if (!row)
        return NAN;
    for (size_t l = 0; l < m; l++) {
        for (size_t j = 0; j < m; j++)
            row[j] = 0.0;
        for (size_t i = 0; i < m; i++) {
            const double a = Ainv[l * m + i], *Ai = A + i * m;
            for (size_t j = 0; j < m; j++)
                row[j] += a * Ai[j];
        }
        for (size_t j = 0; j < m; j++) {
            const double d = fabs(row[j] - (l == j ? 1.0 : 0.0));
            if (d > worst)
                worst = d;
        }
    }
    free(row);
    return worst;
}

/* max_l |(Ainv (A x))_l - x_l| for x_j = 1 + j / m: Freivalds' check that Ainv is A's inverse
 * in O(m^2) (a pair that max |Ainv A - 1| <= eps passes has it <= 2 m eps; one that does
 * not belong together gives O(1)); NAN when out of memory. */
double inverse_residual(const double *A, const double *Ainv, size_t m)
{
    double *y = malloc(m * sizeof *y), worst = 0.0;
    if (!y)
        return NAN;
    for (size_t i = 0; i < m; i++) {
        double t = 0.0;
        for (size_t j = 0; j < m; j++)
            t += A[i * m + j] * (1.0 + (double)j / (double)m);
        y[i] = t;
    }
    for (size_t l = 0; l < m; l++) {
        double t = 0.0;
        for (size_t i = 0; i < m; i++)
            t += Ainv[l * m + i] * y[i];
        const double d = fabs(t - (1.0 + (double)l / (double)m));
        if (isnan(d)) {
            worst = d;
            break;
        }
        if (d > worst)
            worst = d;
    }
    free(y);
    return worst;
}
