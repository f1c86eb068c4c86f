/* sj_variational.c — the slater-jastrow model's variational parameters for `mcf optimize`
 * (mcf/model.h, variational_*): the B-spline Jastrow's parameters p = (like spins' p_0 ..
 * p_{P_uu - 1}, then unlike spins'; a polarized gas has like spins only), the local energy
 * with its derivatives in p, and the parameter file (sj_bspline.c's format).  The
 * determinants have no parameters; the rpa form and jastrow = none offer none (count 0,
 * sj_jastrow.c's sj_variational_count: `mcf optimize` says to set jastrow = bspline). */
#include "slater_jastrow_internal.h"

int sj_variational_get(const void *chain, double *p)
{
    const sj_chain *c = chain;
    const size_t P = sj_variational_count(c);
    for (size_t m = 0; m < P; m++)
        p[m] = m < c->jp[0].np ? c->jp[0].p[m] : c->jp[1].p[m - c->jp[0].np];
    return MCF_OK;
}

int sj_variational_set(void *chain, const double *p)
{
    sj_chain *c = chain;
    const size_t P = sj_variational_count(c);
    for (size_t m = 0; m < P; m++)
        if (!isfinite(p[m]))
            return mcf_fail(MCF_EINVAL, "slater-jastrow: Jastrow parameter %zu = %g is not "
                            "finite", m, p[m]);
    bspline_set(&c->jp[0], p);
    if (!c->polarized)
        bspline_set(&c->jp[1], p + c->jp[0].np);
    jastrow_pair_functions(c, c->pf);
    return MCF_OK;
}

int sj_variational_local(void *const *chains, size_t n, double *const *out)
{
    for (size_t k0 = 0; k0 < n; k0 += SJ_BATCH) {
        const size_t nb = n - k0 < SJ_BATCH ? n - k0 : SJ_BATCH;
        int rc = orbitals_batch(chains + k0, nb, 1);
        if (rc)
            return rc;
#pragma omp parallel for schedule(static) if (nb > 1)
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            const size_t P = sj_variational_count(c);
            double v[4], *o = out[k0 + k];
            local_energy(c, v, o + 1, o + 1 + P);
            o[0] = v[0] * (double)c->n;
        }
    }
    return MCF_OK;
}

int sj_variational_write(const void *chain, FILE *out)
{
    const sj_chain *c = chain;
    if (c->jastrow != SJ_JASTROW_BSPLINE || !out)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: jastrow = %s has no parameters to "
                        "optimize; set [model] jastrow = bspline (jastrow_size parameters per "
                        "spin pair, from zero)", c->jastrow == SJ_JASTROW_RPA ? "rpa" : "none");
    return bspline_write(out, c->jp, c->polarized);
}
