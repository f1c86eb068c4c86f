/* orbital_hostdet_drift.c — walker_drift_sweep (mcf/orbital.h, mcf 1.2) of the host test
 * evaluator hostdet (orbital_hostdet.c): a whole sweep of drift-diffusion moves of each
 * walker, made on the host from the determinants hostdet keeps.  It is the reference the
 * slater-jastrow model's drift path (models/slater-jastrow/sj_drift.c, determinants in the
 * model) is compared with by tests/physics/test_drift_sweep_ev.c: the same mathematics,
 * so the two make the same decisions from the same streams.
 *
 * The wave function is Psi = det A_up det A_down exp(J), J = sum_{i<j} u(r_ij) (u = u[0]
 * for like spins, u[1] for unlike; r_ij the nearest image in the orthorhombic cell).
 * Electrons e = 0 .. N-1 in order; electron e at r (the others where the moves before it
 * left them) proposes
 *     r' = r + tau vbar(r) + sqrt(tau) chi_e,
 * with the drift v = grad_e ln|Psi| = grad_e D / D + grad_e J at r, where
 *     grad_e D / D = sum_l grad phi_l(r) Ainv[l][i]      (i: e's index in its spin; the
 *                                                         inverse of that moment),
 *     grad_e J = sum_{j != e} u'(r_ej) (r_e - r_j) / r_ej  (u' = mcf_pair_derivative),
 * and its limited form (Umrigar, Nightingale and Runge, J. Chem. Phys. 99, 2865 (1993))
 *     vbar = 2 v / (1 + sqrt(1 + 2 |v|^2 tau))
 * (= v (-1 + sqrt(1 + 2 |v|^2 tau)) / (|v|^2 tau), written without the cancellation at small
 * |v|^2 tau).  At r' the row v_l = phi_l(r') gives the ratio R = sum_l v_l Ainv[l][i] and
 * grad_e D / D at r' = sum_l grad phi_l(r') Ainv[l][i] / R, hence vbar(r').  The log ratio is
 *     log |Psi'/Psi|^2 + log G(r <- r') - log G(r' <- r)
 *       = 2 log|R| + 2 [J_e(r') - J_e(r)] - |r - r' - tau vbar(r')|^2 / (2 tau) + |chi_e|^2 / 2
 * (J_e(x) = sum_{j != e} u(|x - r_j|); G(y <- x) ~ exp(-|y - x - tau vbar(x)|^2 / (2 tau)),
 * whose normalizations cancel, and y - x - tau vbar(x) = sqrt(tau) chi for the forward
 * move), -infinity when R = 0 (or is not finite) and, with fixed_node, when R < 0.  The
 * decision is mcf_metropolis_accept (mcf/rng_device.h) from the walker's stream: the draw
 * of the core's loop, which draws only for a log ratio below 0.  On accept row i becomes v
 * by Sherman-Morrison (hd_replace_row) and the electron's position, in the walker's r and
 * the determinant, is r' reduced into [0, cell): x - L floor(x / L) per component.  r'
 * itself is not reduced before the Green's function (it needs the displacement); the
 * orbitals are periodic, so their values there are those of the reduced point. */
#include "orbital_hostdet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* J_e(x) = sum_{j != e} u(|x - r_j|) and (added into gJ) grad_e J there; the N electrons
 * at r, the first mu of spin 0.  A pair at zero separation has no direction: it adds u(0)
 * and no gradient. */
static double jastrow_at(const double *r, size_t n, size_t mu, size_t e, const double *x,
                         const mcf_pair_function u[2], const double cell[3], double gJ[3])
{
    const int s = e >= mu;
    double J = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == e)
            continue;
        const mcf_pair_function *f = &u[(j >= mu) != s];
        double d[3];
        const double rej = hd_image(x, r + 3 * j, cell, d);
        J += mcf_pair_value(f, rej);
        if (rej > 0) {
            const double du = mcf_pair_derivative(f, rej);
            for (int c = 0; c < 3; c++)
                gJ[c] += du * d[c] / rej;
        }
    }
    return J;
}

/* vbar = 2 v / (1 + sqrt(1 + 2 |v|^2 tau)) */
static void limited_drift(const double v[3], double tau, double vbar[3])
{
    const double f = 2.0 / (1.0 + sqrt(1.0 + 2.0 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) *
                                                  tau));
    for (int c = 0; c < 3; c++)
        vbar[c] = f * v[c];
}

/* g = sum_l grad[3 l + c] Ainv[l][i], the orbitals' gradients at one point against column
 * i of the inverse (m x m) */
static void column_gradient(const double *grad, const double *Ainv, size_t m, size_t i,
                            double g[3])
{
    g[0] = g[1] = g[2] = 0;
    for (size_t l = 0; l < m; l++)
        for (int c = 0; c < 3; c++)
            g[c] += grad[3 * l + (size_t)c] * Ainv[l * m + i];
}

/* x reduced into [0, L): x - L floor(x / L), guarded against the rounding of the product
 * landing just outside */
static double reduce(double x, double L)
{
    double y = x - L * floor(x / L);
    if (y < 0)
        y += L;
    return y >= L ? y - L : y;
}

/* The scratch of one walker: the orbitals (values, gradients, Laplacians) at the current
 * position and at the trial one, L each. */
typedef struct hd_rows {
    double *phi, *grad, *lap, *tphi, *tgrad, *tlap;
} hd_rows;

/* The log ratio of electron e's move from r to rp (the header), its row at rp into
 * rows->tphi; *R the determinant ratio. */
static double move_log_ratio(const hd_ws *x, const mcf_drift_walker *dw, size_t e,
                             const double *rp, double J0, const mcf_pair_function u[2],
                             const double cell[3], hd_rows *rows, double *R)
{
    const size_t mu = x->det[0]->m, n = mu + (x->det[1] ? x->det[1]->m : 0);
    const int s = e >= mu;
    const hd_det *d = x->det[s];
    const size_t m = d->m, i = s ? e - mu : e;
    const double tau = dw->tau, *r = dw->w.r + 3 * e;
    hd_point(x, rp, m, rows->tphi, rows->tgrad, rows->tlap);
    double ratio = 0, g[3];
    for (size_t l = 0; l < m; l++)
        ratio += rows->tphi[l] * d->Ainv[l * m + i];
    *R = ratio;
    if (ratio == 0 || !isfinite(ratio) || (dw->fixed_node && ratio < 0))
        return -INFINITY; /* a node, or (fixed node) a move across one */
    column_gradient(rows->tgrad, d->Ainv, m, i, g);
    double gJ[3] = {0, 0, 0}, v[3], vbar[3], back = 0, chi2 = 0;
    const double J1 = jastrow_at(dw->w.r, n, mu, e, rp, u, cell, gJ);
    for (int c = 0; c < 3; c++)
        v[c] = g[c] / ratio + gJ[c];
    limited_drift(v, tau, vbar);
    for (int c = 0; c < 3; c++) {
        const double b = r[c] - rp[c] - tau * vbar[c], chi = dw->chi[3 * e + (size_t)c];
        back += b * b;
        chi2 += chi * chi;
    }
    return 2.0 * log(fabs(ratio)) + 2.0 * (J1 - J0) - back / (2.0 * tau) + 0.5 * chi2;
}

/* one walker's sweep (the header) */
static int drift_walker(size_t k, const mcf_drift_walker *dw, const mcf_pair_function u[2],
                        const double cell[3], hd_rows *rows)
{
    const hd_ws *x = dw->w.ws;
    const size_t mu = x->det[0]->m, n = mu + (x->det[1] ? x->det[1]->m : 0);
    const double tau = dw->tau, sq = sqrt(tau);
    for (size_t e = 0; e < n; e++) {
        const int s = e >= mu;
        hd_det *d = x->det[s];
        const size_t m = d->m, i = s ? e - mu : e;
        double *r = dw->w.r + 3 * e, v[3], gJ[3] = {0, 0, 0}, vbar[3], rp[3], R;
        hd_point(x, r, m, rows->phi, rows->grad, rows->lap);
        column_gradient(rows->grad, d->Ainv, m, i, v);
        const double J0 = jastrow_at(dw->w.r, n, mu, e, r, u, cell, gJ);
        for (int c = 0; c < 3; c++)
            v[c] += gJ[c];
        limited_drift(v, tau, vbar);
        for (int c = 0; c < 3; c++)
            rp[c] = r[c] + tau * vbar[c] + sq * dw->chi[3 * e + (size_t)c];
        const double lr = move_log_ratio(x, dw, e, rp, J0, u, cell, rows, &R);
        if (isnan(lr))
            return mcf_fail(MCF_EPLUGIN, "hostdet: walker_drift_sweep: a NaN log ratio "
                            "(walker %zu, electron %zu)", k, e);
        dw->w.accepted[e] = (unsigned char)mcf_metropolis_accept(dw->w.rng, lr);
        if (dw->w.log_ratio)
            dw->w.log_ratio[e] = lr;
        if (dw->w.accepted[e]) {
            for (int c = 0; c < 3; c++)
                rp[c] = reduce(rp[c], cell[c]);
            hd_replace_row(d, i, rows->tphi, R, rp);
            memcpy(r, rp, sizeof rp);
        }
    }
    return MCF_OK;
}

int hd2_walker_drift_sweep(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                           const mcf_pair_function u[2], const double cell[3])
{
    if (!b)
        return mcf_fail(MCF_EINVAL, "hostdet: walker_drift_sweep: no batch");
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        const hd_ws *x = w[k].w.ws;
        if (!x || !x->det[0])
            return mcf_fail(MCF_EINVAL, "hostdet: walker_drift_sweep: walker %zu has no "
                            "workspace or no electrons of spin 0 (det_set first)", k);
        double *buf = malloc(10 * x->L * sizeof *buf);
        if (!buf)
            return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
        hd_rows rows = {buf, buf + x->L, buf + 4 * x->L, buf + 5 * x->L, buf + 6 * x->L,
                        buf + 9 * x->L};
        rc = drift_walker(k, &w[k], u, cell, &rows);
        free(buf);
    }
    return rc;
}
