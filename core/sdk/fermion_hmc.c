/* fermion_hmc.c — a fermion model's pseudofermions under hybrid Monte Carlo (mcf 1.1;
 * mcf/fermion_model.h, mcf_fermion_hmc_action): what every such model's global_action
 * repeats — the arrays kept per chain, one evaluator call per number of flavours (chains at
 * other T or mu need other counts), the heat bath on refresh, the action and its gradient on
 * the table — leaving the model its chain rule. */
#include "mcf/fermion_model.h"

#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

void mcf_fermion_hmc_release(mcf_fermion_hmc *pf)
{
    if (!pf)
        return;
    free(pf->phi);
    free(pf->grad);
    memset(pf, 0, sizeof *pf);
}

/* the chain's arrays for nf flavours of h's size (kept; grown when nf grows) */
static int arrays(mcf_fermion_hmc *pf, const mcf_hamiltonian *h, size_t nf, const char *model)
{
    const size_t dim = h->dim, slots = (size_t)h->width * dim;
    if (pf->phi && pf->flavours >= nf && pf->dim == dim && pf->slots == slots)
        return MCF_OK;
    mcf_fermion_hmc_release(pf);
    pf->phi = calloc(2 * nf * dim, sizeof *pf->phi);
    pf->grad = calloc(dim + 2 * slots, sizeof *pf->grad);
    if (!pf->phi || !pf->grad) {
        mcf_fermion_hmc_release(pf);
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for %zu pseudofermions of dimension %zu",
                        model, nf, dim);
    }
    pf->flavours = nf;
    pf->dim = dim;
    pf->slots = slots;
    return MCF_OK;
}

int mcf_fermion_hmc_action(const mcf_fermion_batch *a, size_t n, mcf_fermion_hmc *const *pf,
                           const mcf_hamiltonian *const *h, unsigned what, double *S)
{
    if (n == 0)
        return MCF_OK;
    const char *model = mcf_batch_model(a->batch);
    const int refresh = (what & MCF_ACTION_REFRESH) != 0, grad = (what & MCF_ACTION_GRADIENT);
    /* the model's inputs, kept: the calls below refill a's first slots group by group */
    void **ws = malloc(n * sizeof *ws);
    mcf_rng **rngs = malloc(n * sizeof *rngs);
    double *T = malloc(n * sizeof *T), *mu = malloc(n * sizeof *mu), *Sg = malloc(n * sizeof *Sg);
    double **re = malloc(n * sizeof *re), **im = malloc(n * sizeof *im);
    double **gd = malloc(n * sizeof *gd), **gre = malloc(n * sizeof *gre);
    double **gim = malloc(n * sizeof *gim);
    size_t *nf = malloc(n * sizeof *nf), *at = malloc(n * sizeof *at);
    unsigned char *done = calloc(n, 1);
    int rc = !ws || !rngs || !T || !mu || !Sg || !re || !im || !gd || !gre || !gim || !nf ||
                     !at || !done
                 ? mcf_fail(MCF_ENOMEM, "%s: out of memory", model)
                 : MCF_OK;
    for (size_t k = 0; !rc && k < n; k++) {
        ws[k] = a->ws[k];
        rngs[k] = a->rngs ? a->rngs[k] : NULL;
        T[k] = a->T[k];
        mu[k] = a->mu[k];
    }
    for (size_t k = 0; !rc && k < n; k++) { /* each chain's flavours: a size query */
        mcf_pseudofermion q = {.mode = MCF_PSEUDOFERMION_ACTION};
        a->ws[0] = ws[k];
        a->T[0] = T[k];
        a->mu[0] = mu[k];
        if (!(rc = mcf_fermion_pseudofermion(a, 1, &q)))
            rc = arrays(pf[k], h[k], nf[k] = q.flavours, model);
    }
    for (size_t first = 0; !rc && first < n; first++) {
        if (done[first])
            continue;
        size_t m = 0;
        for (size_t k = first; k < n; k++) {
            if (done[k] || nf[k] != nf[first])
                continue;
            const mcf_fermion_hmc *p = pf[k];
            a->ws[m] = ws[k];
            if (a->rngs)
                a->rngs[m] = rngs[k];
            a->T[m] = T[k];
            a->mu[m] = mu[k];
            at[m] = k;
            re[m] = p->phi;
            im[m] = p->phi + p->flavours * p->dim;
            gd[m] = p->grad;
            gre[m] = p->grad + p->dim;
            gim[m] = p->grad + p->dim + p->slots;
            done[k] = 1;
            m++;
        }
        if (refresh) {
            mcf_pseudofermion d = {.mode = MCF_PSEUDOFERMION_DRAW, .phi_re = re, .phi_im = im};
            if ((rc = mcf_fermion_pseudofermion(a, m, &d)))
                break;
        }
        const mcf_density_matrix g = {gd, gre, gim, NULL, NULL, NULL};
        mcf_pseudofermion q = {.mode = MCF_PSEUDOFERMION_ACTION, .phi_re = re, .phi_im = im,
                               .action = Sg, .grad = grad ? &g : NULL};
        if ((rc = mcf_fermion_pseudofermion(a, m, &q)))
            break;
        for (size_t j = 0; j < m; j++)
            S[at[j]] = Sg[j];
    }
    for (size_t k = 0; ws && rngs && T && mu && k < n; k++) { /* the model's inputs back */
        a->ws[k] = ws[k];
        if (a->rngs)
            a->rngs[k] = rngs[k];
        a->T[k] = T[k];
        a->mu[k] = mu[k];
    }
    free(ws);
    free(rngs);
    free(T);
    free(mu);
    free(Sg);
    free(re);
    free(im);
    free(gd);
    free(gre);
    free(gim);
    free(nf);
    free(at);
    free(done);
    return rc;
}
