/* change.c — the finite-rank Hamiltonian change of mcf/change.h: its check, its builders
 * (on-site, dense block, from the older mcf_local_change) and its dense form.  No physics:
 * the model says what changed, evaluators say what it costs. */
#include "mcf/change.h"
#include "mcf/error.h"
#include "mcf/fermion.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_complex.h>
#include <gsl/gsl_complex_math.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

int mcf_change_check(const mcf_change *c, size_t dim)
{
    if (!c)
        return mcf_fail(MCF_EINVAL, "change: NULL");
    if (c->rank < 1 || c->rank > MCF_CHANGE_RANK)
        return mcf_fail(MCF_EINVAL, "change: rank %d is not in [1, %d]", c->rank,
                        MCF_CHANGE_RANK);
    double cmax = 0;
    for (int a = 0; a < c->rank; a++) {
        const int ne = c->entries[a];
        if (ne < 1 || ne > MCF_CHANGE_ENTRIES)
            return mcf_fail(MCF_EINVAL, "change: vector %d has %d entries, not in [1, %d]", a,
                            ne, MCF_CHANGE_ENTRIES);
        for (int e = 0; e < ne; e++) {
            if (c->row[a][e] < 0 || (uint64_t)c->row[a][e] >= dim)
                return mcf_fail(MCF_EINVAL, "change: vector %d, entry %d: row %lld outside "
                                "[0, %zu)", a, e, (long long)c->row[a][e], dim);
            if (!isfinite(c->re[a][e]) || !isfinite(c->im[a][e]))
                return mcf_fail(MCF_EINVAL, "change: vector %d, row %lld: amplitude %g%+gi is "
                                "not finite", a, (long long)c->row[a][e], c->re[a][e],
                                c->im[a][e]);
            for (int f = 0; f < e; f++)
                if (c->row[a][f] == c->row[a][e])
                    return mcf_fail(MCF_EINVAL, "change: vector %d lists row %lld twice", a,
                                    (long long)c->row[a][e]);
        }
        for (int b = 0; b < c->rank; b++) {
            if (!isfinite(c->c_re[a][b]) || !isfinite(c->c_im[a][b]))
                return mcf_fail(MCF_EINVAL, "change: C[%d][%d] is not finite", a, b);
            cmax = fmax(cmax, hypot(c->c_re[a][b], c->c_im[a][b]));
        }
    }
    const double tol = 1e-12 * cmax;
    for (int a = 0; a < c->rank; a++)
        for (int b = 0; b <= a; b++)
            if (fabs(c->c_re[a][b] - c->c_re[b][a]) > tol ||
                fabs(c->c_im[a][b] + c->c_im[b][a]) > tol)
                return mcf_fail(MCF_EINVAL,
                                "change: C is not Hermitian: C[%d][%d] = %.17g%+.17gi, "
                                "C[%d][%d] = %.17g%+.17gi (C[a][b] must be conj(C[b][a]))", a, b,
                                c->c_re[a][b], c->c_im[a][b], b, a, c->c_re[b][a],
                                c->c_im[b][a]);
    return MCF_OK;
}

void mcf_change_onsite(mcf_change *c, size_t r, double delta)
{
    /* only what a rank-1, one-entry change reads: not the 7 KB of the whole struct */
    c->rank = 1;
    c->entries[0] = 1;
    c->row[0][0] = (int64_t)r;
    c->re[0][0] = 1.0;
    c->im[0][0] = 0.0;
    c->c_re[0][0] = delta;
    c->c_im[0][0] = 0.0;
}

int mcf_change_from_local(const mcf_local_change *in, mcf_change *out)
{
    if (!in || !out)
        return mcf_fail(MCF_EINVAL, "change: NULL local change or output");
    if (in->rank < 1 || in->rank > MCF_CHANGE_MAX_RANK)
        return mcf_fail(MCF_EINVAL, "local change: rank %d is not in [1, %d]", in->rank,
                        MCF_CHANGE_MAX_RANK);
    memset(out, 0, sizeof *out);
    out->rank = in->rank;
    for (int a = 0; a < in->rank; a++) {
        const int ne = in->entries[a];
        if (ne < 1 || ne > MCF_CHANGE_MAX_ENTRIES)
            return mcf_fail(MCF_EINVAL, "local change: vector %d has %d entries, not in [1, %d]",
                            a, ne, MCF_CHANGE_MAX_ENTRIES);
        out->entries[a] = ne;
        for (int e = 0; e < ne; e++) {
            out->row[a][e] = in->row[a][e];
            out->re[a][e] = in->re[a][e];
            out->im[a][e] = in->im[a][e];
        }
        for (int b = 0; b < in->rank; b++) {
            out->c_re[a][b] = in->c_re[a][b];
            out->c_im[a][b] = in->c_im[a][b];
        }
    }
    return MCF_OK;
}

int mcf_change_from_block(mcf_change *c, const int64_t *rows, int n, const double *re,
                          const double *im)
{
    if (!c || !rows || !re)
        return mcf_fail(MCF_EINVAL, "change: from_block: NULL change, rows or block");
    if (n < 1 || n > MCF_CHANGE_ENTRIES)
        return mcf_fail(MCF_EINVAL, "change: from_block: %d rows, not in [1, %d]", n,
                        MCF_CHANGE_ENTRIES);
    double bmax = 0.0;
    for (int i = 0; i < n; i++) {
        if (rows[i] < 0)
            return mcf_fail(MCF_EINVAL, "change: from_block: row %lld is negative",
                            (long long)rows[i]);
        for (int j = 0; j < i; j++)
            if (rows[j] == rows[i])
                return mcf_fail(MCF_EINVAL, "change: from_block: row %lld is listed twice",
                                (long long)rows[i]);
        for (int j = 0; j < n; j++) {
            const double br = re[i * n + j], bi = im ? im[i * n + j] : 0.0;
            if (!isfinite(br) || !isfinite(bi))
                return mcf_fail(MCF_EINVAL, "change: from_block: entry (%d, %d) is not finite",
                                i, j);
            bmax = fmax(bmax, hypot(br, bi));
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            const double dr = re[i * n + j] - re[j * n + i];
            const double di = im ? im[i * n + j] + im[j * n + i] : 0.0;
            if (fabs(dr) > 1e-12 * bmax || fabs(di) > 1e-12 * bmax)
                return mcf_fail(MCF_EINVAL, "change: from_block: the block is not Hermitian at "
                                "(%d, %d) and (%d, %d) (B[i][j] must be conj(B[j][i]))", i, j,
                                j, i);
        }
    memset(c, 0, sizeof *c);
    if (bmax == 0.0) {
        c->rank = 1;
        c->entries[0] = 1;
        c->row[0][0] = rows[0];
        c->re[0][0] = 1.0;
        return MCF_OK;
    }
    /* B = W diag(lambda) W^+ (GSL's Hermitian solver reads the lower triangle) */
    gsl_matrix_complex *B = gsl_matrix_complex_alloc((size_t)n, (size_t)n);
    gsl_matrix_complex *V = gsl_matrix_complex_alloc((size_t)n, (size_t)n);
    gsl_vector *lam = gsl_vector_alloc((size_t)n);
    gsl_eigen_hermv_workspace *ws = gsl_eigen_hermv_alloc((size_t)n);
    int rc = MCF_OK;
    if (!B || !V || !lam || !ws) {
        rc = mcf_fail(MCF_ENOMEM, "change: from_block: out of memory for a %d x %d block", n,
                      n);
        goto done;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            gsl_matrix_complex_set(B, (size_t)i, (size_t)j,
                                   gsl_complex_rect(re[i * n + j], im ? im[i * n + j] : 0.0));
    if (gsl_eigen_hermv(B, lam, V, ws)) {
        rc = mcf_fail(MCF_EINTERNAL, "change: from_block: GSL's Hermitian eigensolver failed");
        goto done;
    }
    /* ascending eigenvalues, so the kept ones come in a fixed order */
    gsl_eigen_hermv_sort(lam, V, GSL_EIGEN_SORT_VAL_ASC);
    double lmax = 0.0;
    for (int k = 0; k < n; k++)
        lmax = fmax(lmax, fabs(gsl_vector_get(lam, (size_t)k)));
    int rank = 0;
    for (int k = 0; k < n; k++)
        if (fabs(gsl_vector_get(lam, (size_t)k)) > 1e-13 * lmax)
            rank++;
    if (rank > MCF_CHANGE_RANK) {
        rc = mcf_fail(MCF_EINVAL, "change: from_block: the block of %d rows has rank %d, above "
                      "the %d an evaluator takes in one change; split the move into smaller "
                      "ones", n, rank, MCF_CHANGE_RANK);
        goto done;
    }
    c->rank = rank;
    int a = 0;
    for (int k = 0; k < n; k++) {
        const double l = gsl_vector_get(lam, (size_t)k);
        if (!(fabs(l) > 1e-13 * lmax))
            continue;
        double vmax = 0.0;
        for (int i = 0; i < n; i++)
            vmax = fmax(vmax, gsl_complex_abs(gsl_matrix_complex_get(V, (size_t)i, (size_t)k)));
        int ne = 0;
        for (int i = 0; i < n; i++) {
            const gsl_complex v = gsl_matrix_complex_get(V, (size_t)i, (size_t)k);
            if (gsl_complex_abs(v) <= 1e-15 * vmax)
                continue;
            c->row[a][ne] = rows[i];
            c->re[a][ne] = GSL_REAL(v);
            c->im[a][ne] = GSL_IMAG(v);
            ne++;
        }
        c->entries[a] = ne;
        c->c_re[a][a] = l;
        a++;
    }
done:
    gsl_eigen_hermv_free(ws);
    gsl_vector_free(lam);
    gsl_matrix_complex_free(V);
    gsl_matrix_complex_free(B);
    return rc;
}

void mcf_change_add_dense(const mcf_change *c, size_t dim, double *m)
{
    /* Delta_ij = sum_ab u_a(i) C_ab conj(u_b(j)) */
    for (int a = 0; a < c->rank; a++)
        for (int b = 0; b < c->rank; b++) {
            const double cr = c->c_re[a][b], ci = c->c_im[a][b];
            if (cr == 0.0 && ci == 0.0)
                continue;
            for (int e = 0; e < c->entries[a]; e++) {
                const double ur = c->re[a][e], ui = c->im[a][e];
                const double wr = ur * cr - ui * ci, wi = ur * ci + ui * cr;
                const size_t i = (size_t)c->row[a][e];
                for (int f = 0; f < c->entries[b]; f++) {
                    const double vr = c->re[b][f], vi = -c->im[b][f];
                    const size_t j = (size_t)c->row[b][f];
                    m[2 * (i * dim + j)] += wr * vr - wi * vi;
                    m[2 * (i * dim + j) + 1] += wr * vi + wi * vr;
                }
            }
        }
}

double mcf_change_trace(const mcf_change *c)
{
    /* tr Delta = sum_ab C_ab <u_b|u_a>, <u_b|u_a> = sum over shared rows conj(u_b) u_a */
    double tr = 0.0;
    for (int a = 0; a < c->rank; a++)
        for (int b = 0; b < c->rank; b++) {
            const double cr = c->c_re[a][b], ci = c->c_im[a][b];
            if (cr == 0.0 && ci == 0.0)
                continue;
            double sr = 0.0, si = 0.0;
            for (int e = 0; e < c->entries[a]; e++)
                for (int f = 0; f < c->entries[b]; f++)
                    if (c->row[a][e] == c->row[b][f]) {
                        sr += c->re[b][f] * c->re[a][e] + c->im[b][f] * c->im[a][e];
                        si += c->re[b][f] * c->im[a][e] - c->im[b][f] * c->re[a][e];
                    }
            tr += cr * sr - ci * si;
        }
    return tr;
}
