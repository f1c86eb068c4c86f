/* holstein_hmc.c — the adiabatic Holstein model under hybrid Monte Carlo ([run] sampler =
 * hmc, core/engine/hmc.c; mcf 1.1): the coordinates are the displacements x_i (reals) and
 *
 *     S(x) = E_cl(x)/T + S_pf(h(x)),   E_cl = sum_i [(k/2) x_i^2 + (g/2) x_i],
 *     dS/dx_i = (k x_i + g/2)/T - g G_ii,
 *
 * S_pf the evaluator's pseudofermion form and G_ii its gradient on the diagonal of h (the
 * on-site energy -g x_i).  The pseudofermions need fixed spectral bounds, which a Holstein
 * run otherwise leaves free (x is unbounded): the first coordinates() call (only an HMC run
 * makes it) restricts the field to |x_i| <= X, X = |g|/k + 12 sqrt(T/k) (or 1.5 max|x_i| of
 * the chain's start, if larger), and fixes h's bounds to the hopping's Gershgorin radius plus
 * |g| X on either side.  A trajectory that leaves the domain gets S = +inf and is rejected:
 * the sampled weight is the model's restricted to it, which drops Gaussian tails beyond 12
 * standard deviations of x around its largest mean |g|/k (a weight below e^{-72} per site). */
#include "holstein_internal.h"

#include <math.h>
#include <stdlib.h>

int ho_coordinates(void *chain, mcf_coordinates *out)
{
    ho_chain *c = chain;
    if (!(c->xmax > 0.0)) {
        const mcf_hamiltonian *h = c->h;
        double hop = 0.0, xm = 0.0;
        for (size_t r = 0; r < h->dim; r++) {
            double row = 0.0;
            for (int k = 0; k < h->width; k++) {
                const size_t s = (size_t)k * h->dim + r;
                if (h->col[s] >= 0)
                    row += hypot(h->hop_re[s], h->hop_im[s]);
            }
            hop = fmax(hop, row);
            xm = fmax(xm, fabs(c->x[r]));
        }
        c->xmax = fmax(fabs(c->g) / c->k + 12.0 * sqrt(c->T / c->k), 1.5 * xm);
        const double e = hop + fabs(c->g) * c->xmax + 1e-9;
        const int rc = mcf_hamiltonian_fix_bounds(c->h, -e, e);
        if (rc)
            return mcf_fail_prefix(rc, "holstein: the bounds of hybrid Monte Carlo");
    }
    *out = (mcf_coordinates){MCF_COORDINATES_REAL, (size_t)c->n, c->x};
    return MCF_OK;
}

int ho_global_action(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                     unsigned what, double *S, double *const *grad)
{
    int rc = MCF_OK;
    size_t m = 0; /* the chains inside their domain, first */
    void **in = malloc((n ? n : 1) * sizeof *in);
    size_t *at = malloc((n ? n : 1) * sizeof *at);
    if (!in || !at)
        rc = mcf_fail(MCF_ENOMEM, "holstein: out of memory");
    for (size_t k = 0; !rc && k < n; k++) {
        ho_chain *c = chains[k];
        int inside = 1;
        for (int64_t i = 0; i < c->n && !rc; i++) {
            inside &= fabs(c->x[i]) <= c->xmax;
            rc = mcf_hamiltonian_set_onsite(c->h, (size_t)i, -c->g * c->x[i]);
        }
        if (!mcf_fermion_has(&c->fermion, MCF_FERMION_PSEUDOFERMION))
            rc = mcf_fail(MCF_EINVAL, "holstein: [run] sampler = hmc needs an evaluator with "
                          "pseudofermions (ed, kpm or kpm-cuda of mcf 1.1); evaluator %s has "
                          "none", c->fermion.name);
        if (!rc && !(what & MCF_ACTION_SYNC)) {
            if (inside) {
                in[m] = c;
                at[m++] = k;
            } else {
                S[k] = INFINITY; /* outside the domain: weight 0 */
                for (int64_t i = 0; grad && i < c->n; i++)
                    grad[k][i] = 0.0;
            }
        }
    }
    mcf_fermion_batch a;
    mcf_fermion_hmc **pf = malloc((m ? m : 1) * sizeof *pf);
    const mcf_hamiltonian **h = malloc((m ? m : 1) * sizeof *h);
    double *Sf = malloc((m ? m : 1) * sizeof *Sf);
    if (!rc && (!pf || !h || !Sf))
        rc = mcf_fail(MCF_ENOMEM, "holstein: out of memory");
    if (!rc && m && !(rc = mcf_fermion_batch_get(b, m, &a))) {
        for (size_t j = 0; j < m; j++) {
            ho_chain *c = in[j];
            a.ws[j] = c->ws;
            a.rngs[j] = rngs ? rngs[at[j]] : NULL;
            a.T[j] = c->T;
            a.mu[j] = c->mu;
            pf[j] = &c->pf;
            h[j] = c->h;
        }
        rc = mcf_fermion_hmc_action(&a, m, pf, h, what, Sf);
    }
    for (size_t j = 0; !rc && j < m; j++) {
        const ho_chain *c = in[j];
        double ecl = 0.0;
        for (int64_t i = 0; i < c->n; i++)
            ecl += 0.5 * c->k * c->x[i] * c->x[i] + 0.5 * c->g * c->x[i];
        S[at[j]] = ecl / c->T + Sf[j];
        for (int64_t i = 0; (what & MCF_ACTION_GRADIENT) && i < c->n; i++)
            grad[at[j]][i] = (c->k * c->x[i] + 0.5 * c->g) / c->T - c->g * c->pf.grad[i];
    }
    free(in);
    free(at);
    free(pf);
    free(h);
    free(Sf);
    return rc;
}
