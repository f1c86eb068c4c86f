/* local_change.c — checks and the dense form of a low-rank Hamiltonian change
 * (mcf/fermion.h).  No physics: the model says what changed, evaluators say what it costs. */
#include "mcf/error.h"
#include "mcf/fermion.h"

#include <math.h>

int mcf_local_change_check(const mcf_local_change *c, size_t dim)
{
    if (!c)
        return mcf_fail(MCF_EINVAL, "local change: NULL");
    if (c->rank < 1 || c->rank > MCF_CHANGE_MAX_RANK)
        return mcf_fail(MCF_EINVAL, "local change: rank %d is not in [1, %d]", c->rank,
                        MCF_CHANGE_MAX_RANK);
    double cmax = 0;
    for (int a = 0; a < c->rank; a++) {
        const int ne = c->entries[a];
        if (ne < 1 || ne > MCF_CHANGE_MAX_ENTRIES)
            return mcf_fail(MCF_EINVAL, "local change: vector %d has %d entries, not in [1, %d]",
                            a, ne, MCF_CHANGE_MAX_ENTRIES);
        for (int e = 0; e < ne; e++) {
            if (c->row[a][e] < 0 || (uint64_t)c->row[a][e] >= dim)
                return mcf_fail(MCF_EINVAL,
                                "local change: vector %d, entry %d: row %lld outside [0, %zu)", a,
                                e, (long long)c->row[a][e], dim);
            if (!isfinite(c->re[a][e]) || !isfinite(c->im[a][e]))
                return mcf_fail(MCF_EINVAL,
                                "local change: vector %d, row %lld: amplitude %g%+gi is not finite",
                                a, (long long)c->row[a][e], c->re[a][e], c->im[a][e]);
            for (int f = 0; f < e; f++)
                if (c->row[a][f] == c->row[a][e])
                    return mcf_fail(MCF_EINVAL, "local change: vector %d lists row %lld twice", a,
                                    (long long)c->row[a][e]);
        }
        for (int b = 0; b < c->rank; b++) {
            if (!isfinite(c->c_re[a][b]) || !isfinite(c->c_im[a][b]))
                return mcf_fail(MCF_EINVAL, "local change: C[%d][%d] is not finite", a, b);
            cmax = fmax(cmax, hypot(c->c_re[a][b], c->c_im[a][b]));
        }
    }
    const double tol = 1e-12 * cmax;
    for (int a = 0; a < c->rank; a++)
        for (int b = 0; b <= a; b++)
            if (fabs(c->c_re[a][b] - c->c_re[b][a]) > tol ||
                fabs(c->c_im[a][b] + c->c_im[b][a]) > tol)
                return mcf_fail(MCF_EINVAL,
                                "local change: C is not Hermitian: C[%d][%d] = %.17g%+.17gi, "
                                "C[%d][%d] = %.17g%+.17gi (C[a][b] must be conj(C[b][a]))",
                                a, b, c->c_re[a][b], c->c_im[a][b], b, a, c->c_re[b][a],
                                c->c_im[b][a]);
    return MCF_OK;
}

void mcf_local_change_add_dense(const mcf_local_change *c, size_t dim, double *m)
{
    /* the same sums as the general form (mcf_change_add_dense), so the same bits */
    mcf_change g;
    if (mcf_change_from_local(c, &g) == MCF_OK)
        mcf_change_add_dense(&g, dim, m);
}
