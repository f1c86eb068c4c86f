/* sj_inverse.c — the inverse of a Slater matrix by LU (GSL) and its drift: what the
 * model's determinants (sj_determinants.c), the evaluator's (sj_determinants_ev.c) and the
 * checkpoint (sj_checkpoint.c) compute from the stored rows. */
#include "slater_jastrow_internal.h"

#include <math.h>

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

/* max |Ainv A - 1| over the entries (m x m). */
double drift(const double *A, const double *Ainv, size_t m)
{
    double worst = 0.0;
    for (size_t l = 0; l < m; l++)
        for (size_t j = 0; j < m; j++) {
            double s = 0.0;
            for (size_t i = 0; i < m; i++)
                s += Ainv[l * m + i] * A[i * m + j];
            const double d = fabs(s - (l == j ? 1.0 : 0.0));
            if (d > worst)
                worst = d;
        }
    return worst;
}
