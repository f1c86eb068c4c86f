/* local_change.c — checks and the dense form of a low-rank Hamiltonian change
 * (mcf/fermion.h).  No physics: the model says what changed, evaluators say what it costs. */
#include "mcf/error.h"
#include "mcf/fermion.h"

int mcf_local_change_check(const mcf_local_change *c, size_t dim)
{
    /* the rank and entry counts in the older limits, then the general check */
    if (!c)
        return mcf_fail(MCF_EINVAL, "local change: NULL");
    mcf_change g;
    const int rc = mcf_change_from_local(c, &g);
    return rc ? rc : mcf_change_check(&g, dim);
}

void mcf_local_change_add_dense(const mcf_local_change *c, size_t dim, double *m)
{
    /* the same sums as the general form (mcf_change_add_dense), so the same bits */
    mcf_change g;
    if (mcf_change_from_local(c, &g) == MCF_OK)
        mcf_change_add_dense(&g, dim, m);
}
