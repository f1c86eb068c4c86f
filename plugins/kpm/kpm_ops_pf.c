/* kpm_ops_pf.c — pseudofermion of the KPM evaluators (mcf/fermion.h, mcf 1.1): the heat bath
 * phi_f = Q(H) chi_f and the action sum_f phi_f^+ P(H) phi_f + Tr(H - mu)/(2T) with its
 * gradient on the table, P and Q Chebyshev series of [2 cosh((E - mu)/2T)]^{-1/n} and its
 * -1/2 power (kpm_pf_series) on the Hamiltonian's fixed bounds, cut at the relative error
 * `pseudofermion_tolerance`.  The flavours go through the backend `block / 2` at a time (the
 * gradient's backward pass carries two vectors per flavour).  Host arithmetic in a fixed
 * order; the backend's series and series_gradient do the products with H. */
#include "kpm_ops.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kpm_ops_pf_free(kpm_ops_ws *w)
{
    free(w->pf_p);
    free(w->pf_q);
    w->pf_p = w->pf_q = NULL;
}

/* the series of (a, b, T, mu, n), kept while they stay */
static int pf_series(kpm_ops_ws *w, double T, double mu, size_t n)
{
    const double key[5] = {w->a, w->b, T, mu, (double)n};
    if (w->pf_p && !memcmp(key, w->pf_key, sizeof key))
        return MCF_OK;
    kpm_ops_pf_free(w);
    const double tol = w->cfg.pf_tolerance;
    int rc = kpm_pf_series(w->a, w->b, T, mu, -1.0 / (double)n, tol, KPM_MAX_SERIES, &w->pf_p,
                           &w->pf_mp, &w->pf_rel_p);
    if (!rc)
        rc = kpm_pf_series(w->a, w->b, T, mu, 0.5 / (double)n, tol, KPM_MAX_SERIES, &w->pf_q,
                           &w->pf_mq, &w->pf_rel_q);
    if (rc) {
        kpm_ops_pf_free(w);
        return rc;
    }
    memcpy(w->pf_key, key, sizeof key);
    return MCF_OK;
}

/* flavours f0 .. f0 + nb - 1 of phi (n x dim, re/im) <-> a host block of stride nb */
static void to_block(const double *re, const double *im, size_t dim, size_t f0, size_t nb,
                     double *x)
{
    for (size_t r = 0; r < dim; r++)
        for (size_t v = 0; v < nb; v++) {
            x[2 * nb * r + v] = re[(f0 + v) * dim + r];
            x[2 * nb * r + nb + v] = im[(f0 + v) * dim + r];
        }
}

static int one(kpm_ops_ws *w, mcf_rng *rng, double T, double mu, const mcf_pseudofermion *p,
               size_t k, size_t n)
{
    const mcf_hamiltonian *h = w->h;
    const size_t dim = h->dim, group = w->block / 2 ? w->block / 2 : 1;
    if (p->mode == MCF_PSEUDOFERMION_DRAW && !rng)
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: the draw's random stream is NULL",
                        w->be->name);
    if (!p->phi_re[k] || !p->phi_im[k])
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: the pseudofermion arrays are NULL",
                        w->be->name);
    int rc = pf_series(w, T, mu, n);
    if (rc)
        return rc;
    double *x = malloc(2 * dim * group * sizeof *x), *y = malloc(2 * dim * group * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return mcf_fail(MCF_ENOMEM, "%s: pseudofermion: out of memory", w->be->name);
    }
    double *re = p->phi_re[k], *im = p->phi_im[k];
    const mcf_density_matrix *g = p->mode == MCF_PSEUDOFERMION_ACTION ? p->grad : NULL;
    if (g) {
        memset(g->diag[k], 0, dim * sizeof(double));
        memset(g->bond_re[k], 0, (size_t)h->width * dim * sizeof(double));
        memset(g->bond_im[k], 0, (size_t)h->width * dim * sizeof(double));
    }
    double form = 0.0;
    for (size_t f0 = 0; !rc && f0 < n; f0 += group) {
        const size_t nb = n - f0 < group ? n - f0 : group;
        if (p->mode == MCF_PSEUDOFERMION_DRAW) {
            /* chi: complex Gaussians, E|chi_r|^2 = 1, flavour after flavour in row order */
            const double s = sqrt(0.5);
            for (size_t v = 0; v < nb; v++)
                for (size_t r = 0; r < dim; r++) {
                    x[2 * nb * r + v] = s * mcf_rng_normal(rng);
                    x[2 * nb * r + nb + v] = s * mcf_rng_normal(rng);
                }
            if (!(rc = w->be->series(w, w->pf_q, w->pf_mq, nb, x, y)))
                for (size_t r = 0; r < dim; r++)
                    for (size_t v = 0; v < nb; v++) {
                        re[(f0 + v) * dim + r] = y[2 * nb * r + v];
                        im[(f0 + v) * dim + r] = y[2 * nb * r + nb + v];
                    }
            continue;
        }
        to_block(re, im, dim, f0, nb, x);
        double *phi = malloc(2 * dim * nb * sizeof *phi);
        if (!phi) {
            rc = mcf_fail(MCF_ENOMEM, "%s: pseudofermion: out of memory", w->be->name);
            break;
        }
        memcpy(phi, x, 2 * dim * nb * sizeof *phi);
        rc = g ? w->be->series_gradient(w, w->pf_p, w->pf_mp, nb, x, y, g->diag[k],
                                        g->bond_re[k], g->bond_im[k])
               : w->be->series(w, w->pf_p, w->pf_mp, nb, x, y);
        for (size_t q = 0; !rc && q < 2 * dim * nb; q++)
            form += phi[q] * y[q]; /* Re <phi|y>, re and im parts alike */
        free(phi);
    }
    free(x);
    free(y);
    if (rc)
        return rc;
    if (p->mode == MCF_PSEUDOFERMION_ACTION) {
        double tr = 0.0;
        for (size_t r = 0; r < dim; r++)
            tr += h->onsite[r] - mu;
        if (!isfinite(form))
            return mcf_fail(MCF_EPLUGIN, "%s: pseudofermion: the action is not finite",
                            w->be->name);
        p->action[k] = form + tr / (2.0 * T);
        if (g) {
            /* D = dS/dH_rc as summed; the table holds conj(D) (mcf_density_matrix's sense),
             * and Tr(H - mu)/(2T) adds 1/(2T) to every diagonal entry */
            for (size_t s = 0; s < (size_t)h->width * dim; s++)
                g->bond_im[k][s] = h->col[s] < 0 ? 0.0 : -g->bond_im[k][s];
            for (size_t r = 0; r < dim; r++)
                g->diag[k][r] += 1.0 / (2.0 * T);
        }
    }
    if (p->bound)
        p->bound[k] = p->mode == MCF_PSEUDOFERMION_DRAW ? w->pf_rel_q : w->pf_rel_p;
    return MCF_OK;
}

int kpm_ops_pseudofermion(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                          const double *T, const double *mu, mcf_pseudofermion *p)
{
    (void)b;
    int rc = MCF_OK;
    const kpm_backend *be = kpm_ops_batch(ws, n, "pseudofermion", &rc);
    if (rc || n == 0)
        return rc;
    if (!be->series || !be->series_gradient)
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: this build has no series step",
                        be->name);
    if (!T || !mu || !p || (p->mode != MCF_PSEUDOFERMION_DRAW &&
                            p->mode != MCF_PSEUDOFERMION_ACTION))
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: %s", be->name,
                        !T || !mu ? "the T or mu array is NULL" : "no request (mode)");
    size_t nf = 0;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        const mcf_hamiltonian *h = w->h;
        if (!h->fixed_bounds)
            return mcf_fail(MCF_EINVAL, "%s: pseudofermion: workspace %zu of %zu: the "
                            "Hamiltonian's spectral bounds are not fixed (the form must be one "
                            "smooth function of H through a trajectory: the model should call "
                            "mcf_hamiltonian_fix_bounds)", be->name, k, n);
        if (!(T[k] > 0.0) || !isfinite(T[k]) || !isfinite(mu[k]))
            return mcf_fail(MCF_EINVAL, "%s: pseudofermion: workspace %zu of %zu: T = %g must "
                            "be finite and > 0 and mu = %g finite", be->name, k, n, T[k],
                            mu[k]);
        const size_t f = mcf_pseudofermion_flavours(T[k], mu[k], h->emin, h->emax);
        if (k && f != nf)
            return mcf_fail(MCF_EINVAL, "%s: pseudofermion: workspaces %zu and 0 need %zu and "
                            "%zu flavours: one call takes workspaces of one size (the same T, "
                            "mu and bounds)", be->name, k, f, nf);
        nf = f;
    }
    p->flavours = nf;
    if (!p->phi_re)
        return MCF_OK;
    if (!p->phi_im || (p->mode == MCF_PSEUDOFERMION_ACTION && !p->action) ||
        (p->mode == MCF_PSEUDOFERMION_DRAW && !rngs))
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: the %s is NULL", be->name,
                        !p->phi_im ? "phi_im array" : !p->action ? "action array"
                                                                  : "random stream array");
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = kpm_ops_prepare(w)) ||
            (rc = one(w, rngs ? rngs[k] : NULL, T[k], mu[k], p, k, nf)))
            return n > 1 ? mcf_fail_prefix(rc, "workspace %zu of %zu", k, n) : rc;
    }
    return MCF_OK;
}
