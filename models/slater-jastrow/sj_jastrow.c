/* sj_jastrow.c — the Jastrow factor exp(J) of the slater-jastrow model, J = sum_{i<j}
 * u_{s_i s_j}(r_ij): the rpa form's parameters (set at create), the change of J when one
 * electron moves (propose's log ratio), its gradient and Laplacian (the local energy) and their
 * derivatives in the parameters of the bspline form (`mcf optimize`).  The bspline form's
 * u = -w is sj_bspline.c's.  With jastrow = none nothing here is called.
 *
 * Jastrow (jastrow = rpa): with t(r) = (1 - r/r_c)^3 and h(r) = -(A/r)(1 - exp(-r/F)),
 *     u(r) = t(r) h(r) for r < r_c, 0 beyond,
 * an RPA-like (Gaskell / Ceperley) short-range form truncated by a factor whose value,
 * first and second derivatives vanish at r_c, so u, grad u and lap u are continuous and the
 * local energy has no delta function at r_c.  Pairs interact through the nearest image
 * (r_c <= L/2, the Wigner-Seitz radius of the cube's inscribed sphere: at most one image of
 * r_j lies within r_c of r_i).  The cusp conditions (Kato; Foulkes et al. RMP 73, 33, eq.
 * 36) fix F: u'(0) = gamma with gamma = 1/2 for antiparallel, 1/4 for parallel spins.
 * u'(0) = t'(0) h(0) + h'(0) = 3A/(r_c F) + A/(2F^2), so gamma F^2 - (3A/r_c) F - A/2 = 0,
 *     F = [3A/r_c + sqrt(9A^2/r_c^2 + 2 gamma A)] / (2 gamma)   (the positive root).
 * A (jastrow_a, bohr) defaults to the RPA value 1/omega_p = sqrt(r_s^3 / 3); r_c
 * (jastrow_cutoff) defaults to L/2. */
#include "slater_jastrow_internal.h"

#include <math.h>
#include <string.h>

/* Nearest-image separation ri - rj, returns its length. */
static double min_image(const sj_chain *c, const double *ri, const double *rj, double d[3])
{
    double s2 = 0.0;
    for (int a = 0; a < 3; a++) {
        double x = ri[a] - rj[a];
        x -= c->L * nearbyint(x / c->L);
        d[a] = x;
        s2 += x * x;
    }
    return sqrt(s2);
}

/* u(r), u'(r), u''(r) of the rpa Jastrow for the parameter set p (see the header). */
static void jastrow_u(const sj_jastrow *p, double r, double *u, double *du, double *d2u)
{
    if (r >= p->rc) {
        *u = *du = *d2u = 0.0;
        return;
    }
    const double A = p->A, F = p->F, x = 1.0 - r / p->rc;
    const double t = x * x * x, t1 = -3.0 * x * x / p->rc, t2 = 6.0 * x / (p->rc * p->rc);
    double h, h1, h2;
    if (r < 1e-6 * F) { /* series: h = -A/F + A r/(2F^2) - A r^2/(6F^3) */
        h = -A / F + A * r / (2 * F * F) - A * r * r / (6 * F * F * F);
        h1 = A / (2 * F * F) - A * r / (3 * F * F * F);
        h2 = -A / (3 * F * F * F);
    } else {
        const double E = exp(-r / F), omE = -expm1(-r / F);
        h = -A * omE / r;
        h1 = A * omE / (r * r) - A * E / (F * r);
        h2 = -2.0 * A * omE / (r * r * r) + 2.0 * A * E / (F * r * r) + A * E / (F * F * r);
    }
    *u = t * h;
    *du = t1 * h + t * h1;
    *d2u = t2 * h + 2.0 * t1 * h1 + t * h2;
}

/* u(r), u', u'' of either form. */
static void pair_u(const sj_jastrow *p, double r, double *u, double *du, double *d2u)
{
    if (p->form == SJ_JASTROW_BSPLINE) {
        bspline_w3(p, r, u, du, d2u);
        *u = -*u;
        *du = -*du;
        *d2u = -*d2u;
    } else {
        jastrow_u(p, r, u, du, d2u);
    }
}

/* The rpa parameters of the two spin pairs (see the header): jp[0] parallel (gamma = 1/4),
 * jp[1] antiparallel (gamma = 1/2). */
void jastrow_init(sj_jastrow jp[2], double ja, double jrc, double rs, double L)
{
    const double A = ja > 0.0 ? ja : sqrt(rs * rs * rs / 3.0);
    const double rcut = jrc > 0.0 ? jrc : 0.5 * L;
    for (int k = 0; k < 2; k++) {
        const double gamma = k == 0 ? 0.25 : 0.5, b = 3.0 * A / rcut;
        jp[k].form = SJ_JASTROW_RPA;
        jp[k].A = A;
        jp[k].rc = rcut;
        jp[k].F = (b + sqrt(b * b + 2.0 * gamma * A)) / (2.0 * gamma);
    }
    mcf_log(MCF_LOG_INFO, "slater-jastrow: rpa Jastrow A = %.6g bohr, cutoff %.6g bohr "
            "(L/2 = %.6g), F = %.6g (parallel), %.6g (antiparallel)", A, rcut, 0.5 * L,
            jp[0].F, jp[1].F);
}

_Static_assert(SJ_BSPLINE_MAX + 4 <= MCF_PAIR_COEF_MAX, "B-spline coefficients of a pair");

void jastrow_pair_functions(const sj_chain *c, mcf_pair_function pf[2])
{
    for (int k = 0; k < 2; k++) {
        const sj_jastrow *p = &c->jp[k];
        mcf_pair_function *f = &pf[k];
        memset(f, 0, sizeof *f);
        f->form = MCF_PAIR_NONE;
        if (c->jastrow == SJ_JASTROW_NONE ||
            (p->form != SJ_JASTROW_BSPLINE && p->form != SJ_JASTROW_RPA))
            continue; /* (a polarized run's unlike pair has none) */
        f->cutoff = p->rc;
        if (p->form == SJ_JASTROW_BSPLINE) { /* u = -w */
            f->form = MCF_PAIR_BSPLINE;
            f->sign = -1.0;
            f->inv_dr = p->inv_dr;
            f->n_coef = (uint32_t)(p->np + 4);
            memcpy(f->coef, p->coef, (p->np + 4) * sizeof *p->coef);
        } else {
            f->form = MCF_PAIR_RPA;
            f->A = p->A;
            f->F = p->F;
        }
    }
}

/* Sum over j != e of u(|x - r_j|) (x the position of electron e, old or trial). */
double jastrow_one(const sj_chain *c, size_t e, const double *x)
{
    double sum = 0.0, d[3];
    const size_t se = spin_of(c, e);
    for (size_t j = 0; j < c->n; j++) {
        if (j == e)
            continue;
        const double r = min_image(c, x, c->r + 3 * j, d);
        sum += mcf_pair_value(&c->pf[spin_of(c, j) == se ? 0 : 1], r); /* the device's too */
    }
    return sum;
}

/* grad_e J = sum_j u'(r_ej) r_ej / r_ej and lap_e J = sum_j [u''(r_ej) + 2 u'(r_ej)/r_ej] with
 * electron e at x (its position, or a trial one), added into gJ and (lJ not NULL) *lJ. */
static void grad_lap_at(const sj_chain *c, size_t e, const double *x, double gJ[3], double *lJ)
{
    const size_t n = c->n, s = spin_of(c, e);
    for (size_t j = 0; j < n; j++) {
        if (j == e)
            continue;
        double d[3], u, du, d2u;
        const double r = min_image(c, x, c->r + 3 * j, d);
        pair_u(&c->jp[spin_of(c, j) == s ? 0 : 1], r, &u, &du, &d2u);
        if (r <= 0.0)
            continue;
        for (int a = 0; a < 3; a++)
            gJ[a] += du * d[a] / r;
        if (lJ)
            *lJ += d2u + 2.0 * du / r;
    }
}

void jastrow_grad_at(const sj_chain *c, size_t e, const double *x, double gJ[3])
{
    grad_lap_at(c, e, x, gJ, NULL);
}

void jastrow_grad_lap(const sj_chain *c, size_t e, double gJ[3], double *lJ)
{
    grad_lap_at(c, e, c->r + 3 * e, gJ, lJ);
}

/* With w the B-spline and J = -sum_{pairs} w: dJ/dp_m = -sum dw/dp_m, grad_e dJ/dp_m =
 * -sum_j (dw'/dp_m) r_ej / r_ej, lap_e dJ/dp_m = -sum_j [dw''/dp_m + 2 (dw'/dp_m) / r_ej].
 * Parameter m of pair kind k sits at offset (k = 1: jp[0].np) + m. */
void jastrow_param_terms(const sj_chain *c, size_t e, double *O, double *gO, double *lO)
{
    const size_t n = c->n, s = spin_of(c, e);
    for (size_t j = 0; j < n; j++) {
        if (j == e)
            continue;
        double d[3];
        const double r = min_image(c, c->r + 3 * e, c->r + 3 * j, d);
        const int k = spin_of(c, j) == s ? 0 : 1;
        const sj_jastrow *p = &c->jp[k];
        if (r <= 0.0 || r >= p->rc)
            continue;
        int idx[4];
        double w[4], dw[4], d2w[4];
        const int nt = bspline_param_terms(p, r, idx, w, dw, d2w);
        const size_t off = k ? c->jp[0].np : 0;
        for (int a = 0; a < nt; a++) {
            const size_t m = off + (size_t)idx[a];
            for (int x = 0; x < 3; x++)
                gO[3 * m + x] -= dw[a] * d[x] / r;
            lO[m] -= d2w[a] + 2.0 * dw[a] / r;
            if (O && j > e)
                O[m] -= w[a];
        }
    }
}

size_t sj_variational_count(const void *chain)
{
    const sj_chain *c = chain;
    if (c->jastrow != SJ_JASTROW_BSPLINE)
        return 0;
    return c->jp[0].np + (c->polarized ? 0 : c->jp[1].np);
}
