/* sj_variational.c — the slater-jastrow model's variational parameters for `mcf optimize`
 * (ABI 2: part of the chain's state, mcf_variational in mcf/model.h): the B-spline Jastrow's
 * parameters p = (like spins' p_0 .. p_{P_uu - 1}, then unlike spins'; a polarized gas has
 * like spins only), kept as one array c->vp beside the B-splines that use them.  The core
 * reads p, writes new values into it and calls rebuild (sj_variational_rebuild: the
 * B-splines and pair functions from p), and it writes the parameter file that [model]
 * jastrow_file reads back (sj_bspline.c's format) from the description: the head (comments,
 * form, cutoff) and the lines "uu" and "ud" of P_uu and P_ud values.  The local energy with
 * its derivatives in p is measure()'s (sj_local_energy.c).  The determinants have no
 * parameters; the rpa form and jastrow = none offer none (count 0, sj_jastrow.c's
 * sj_variational_count, and the reason, which `mcf optimize` gives: set jastrow =
 * bspline). */
#include "slater_jastrow_internal.h"

/* why there are no parameters: the message of `mcf optimize` */
static const char *const none_rpa =
    "slater-jastrow: jastrow = rpa has no parameters to optimize; set [model] jastrow = "
    "bspline (jastrow_size parameters per spin pair, from zero)";
static const char *const none_none =
    "slater-jastrow: jastrow = none has no parameters to optimize; set [model] jastrow = "
    "bspline (jastrow_size parameters per spin pair, from zero)";

/* c->vp from the B-splines' parameters */
static void gather(sj_chain *c)
{
    const size_t P = sj_variational_count(c);
    for (size_t m = 0; m < P; m++)
        c->vp[m] = m < c->jp[0].np ? c->jp[0].p[m] : c->jp[1].p[m - c->jp[0].np];
}

void sj_variational_init(sj_chain *c)
{
    gather(c);
    if (c->jastrow == SJ_JASTROW_BSPLINE)
        bspline_file_head(c->vhead, sizeof c->vhead, c->jp[0].rc);
}

void sj_variational_describe(sj_chain *c, mcf_variational *v)
{
    v->count = sj_variational_count(c);
    if (!v->count) {
        v->none = c->jastrow == SJ_JASTROW_RPA ? none_rpa : none_none;
        return;
    }
    v->p = c->vp;
    v->head = c->vhead;
    v->groups = c->polarized ? 1 : 2;
    v->group[0] = "uu";
    v->group_count[0] = c->jp[0].np;
    v->group[1] = "ud";
    v->group_count[1] = c->polarized ? 0 : c->jp[1].np;
}

int sj_variational_rebuild(sj_chain *c)
{
    const size_t P = sj_variational_count(c);
    for (size_t m = 0; m < P; m++)
        if (!isfinite(c->vp[m])) {
            const double x = c->vp[m];
            gather(c); /* the parameters stay those in use */
            return mcf_fail(MCF_EINVAL, "slater-jastrow: Jastrow parameter %zu = %g is not "
                            "finite", m, x);
        }
    if (!P)
        return MCF_OK;
    bspline_set(&c->jp[0], c->vp);
    if (!c->polarized)
        bspline_set(&c->jp[1], c->vp + c->jp[0].np);
    jastrow_pair_functions(c, c->pf);
    return MCF_OK;
}
