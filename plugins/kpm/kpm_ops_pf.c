/* kpm_ops_pf.c — pseudofermion of the KPM evaluators (mcf/fermion.h, mcf 1.1): the heat bath
 * phi_f = Q(H) chi_f and the action sum_f phi_f^+ P(H) phi_f + Tr(H - mu)/(2T) with its
 * gradient on the table, P and Q Chebyshev series of [2 cosh((E - mu)/2T)]^{-1/n} and its
 * -1/2 power (kpm_pf_series) on the Hamiltonian's fixed bounds, cut at the relative error
 * `pseudofermion_tolerance`.  The flavours go through the backend `block / 2` at a time (the
 * gradient's backward pass carries two vectors per flavour).  Host arithmetic in a fixed
 * order; the backend's series and series_gradient do the products with H, all chains of a
 * call a group of flavours at a time (series_batch: a device takes them in one launch). */
#include "kpm_ops.h"

#include "mcf/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the series (at a change of T, mu, n or the bounds) and, with all, the blocks */
static void pf_release(kpm_ops_ws *w, int all)
{
    free(w->pf_p);
    free(w->pf_q);
    w->pf_p = w->pf_q = NULL;
    if (all) {
        free(w->pf_blocks);
        w->pf_blocks = NULL;
    }
}

void kpm_ops_pf_free(kpm_ops_ws *w)
{
    pf_release(w, 1);
}

/* the series of (a, b, T, mu, n), kept while they stay */
static int pf_series(kpm_ops_ws *w, double T, double mu, size_t n)
{
    const double key[5] = {w->a, w->b, T, mu, (double)n};
    if (w->pf_p && !memcmp(key, w->pf_key, sizeof key))
        return MCF_OK;
    pf_release(w, 0);
    const double tol = w->cfg.pf_tolerance;
    int rc = kpm_pf_series(w->a, w->b, T, mu, -1.0 / (double)n, tol, KPM_MAX_SERIES, &w->pf_p,
                           &w->pf_mp, &w->pf_rel_p);
    if (!rc)
        rc = kpm_pf_series(w->a, w->b, T, mu, 0.5 / (double)n, tol, KPM_MAX_SERIES, &w->pf_q,
                           &w->pf_mq, &w->pf_rel_q);
    if (rc) {
        pf_release(w, 0);
        return rc;
    }
    memcpy(w->pf_key, key, sizeof key);
    return MCF_OK;
}

/* The host's passes over the blocks and the gradient run on the OpenMP threads where the
 * rows are more than one of the step's chunks (KPM_CHUNK; at 32^3 a device's force spent
 * ~half its call in them on one thread); the form's sum goes by those chunks, each chunk's
 * part added in order (kpm_step_all's rule: the same bits on any number of threads). */
/* flavours f0 .. f0 + nb - 1 of phi (n x dim, re/im) <-> a host block of stride nb */
static void to_block(const double *re, const double *im, size_t dim, size_t f0, size_t nb,
                     double *x)
{
#pragma omp parallel for schedule(static) if (dim > KPM_CHUNK)
    for (size_t r = 0; r < dim; r++)
        for (size_t v = 0; v < nb; v++) {
            x[2 * nb * r + v] = re[(f0 + v) * dim + r];
            x[2 * nb * r + nb + v] = im[(f0 + v) * dim + r];
        }
}

/* One chain's part of a call: its blocks (x, y, and phi, a copy of x for the form) */
typedef struct pf_chain {
    kpm_ops_ws *w;
    mcf_rng *rng;
    double T, mu, form;
    size_t k;
    double *x, *y, *phi;
} pf_chain;

/* the checks, the series and the zeroed gradient of chain k */
static int begin(pf_chain *q, const mcf_pseudofermion *p, size_t n)
{
    kpm_ops_ws *w = q->w;
    const mcf_hamiltonian *h = w->h;
    const size_t dim = h->dim, group = w->block / 2 ? w->block / 2 : 1, k = q->k;
    if (p->mode == MCF_PSEUDOFERMION_DRAW && !q->rng)
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: the draw's random stream is NULL",
                        w->be->name);
    if (!p->phi_re[k] || !p->phi_im[k])
        return mcf_fail(MCF_EINVAL, "%s: pseudofermion: the pseudofermion arrays are NULL",
                        w->be->name);
    int rc = pf_series(w, q->T, q->mu, n);
    if (rc)
        return rc;
    const size_t nblock = 2 * dim * group; /* the workspace's dim and block stay */
    if (!w->pf_blocks && !(w->pf_blocks = malloc(3 * nblock * sizeof *w->pf_blocks)))
        return mcf_fail(MCF_ENOMEM, "%s: pseudofermion: out of memory", w->be->name);
    q->x = w->pf_blocks;
    q->y = q->x + nblock;
    q->phi = q->y + nblock;
    const mcf_density_matrix *g = p->mode == MCF_PSEUDOFERMION_ACTION ? p->grad : NULL;
    if (g) {
        const size_t slots = (size_t)h->width * dim;
        double *gd = g->diag[k], *gre = g->bond_re[k], *gim = g->bond_im[k];
#pragma omp parallel for schedule(static) if (dim > KPM_CHUNK)
        for (size_t s = 0; s < slots; s++) {
            gre[s] = gim[s] = 0.0;
            if (s < dim)
                gd[s] = 0.0;
        }
    }
    q->form = 0.0;
    return MCF_OK;
}

/* the job of flavours f0 .. f0 + nb - 1: chi drawn (complex Gaussians, E|chi_r|^2 = 1,
 * flavour after flavour in row order) into x for Q, or the pseudofermions into x for P */
static void fill(pf_chain *q, const mcf_pseudofermion *p, size_t f0, size_t nb,
                 kpm_series_job *job)
{
    kpm_ops_ws *w = q->w;
    const size_t dim = w->h->dim, k = q->k;
    double *x = q->x;
    memset(job, 0, sizeof *job);
    job->w = w;
    job->x = x;
    job->y = q->y;
    if (p->mode == MCF_PSEUDOFERMION_DRAW) {
        const double s = sqrt(0.5);
        for (size_t v = 0; v < nb; v++)
            for (size_t r = 0; r < dim; r++) {
                x[2 * nb * r + v] = s * mcf_rng_normal(q->rng);
                x[2 * nb * r + nb + v] = s * mcf_rng_normal(q->rng);
            }
        job->c = w->pf_q;
        job->M = w->pf_mq;
        return;
    }
    to_block(p->phi_re[k], p->phi_im[k], dim, f0, nb, x);
    memcpy(q->phi, x, 2 * dim * nb * sizeof *x);
    job->c = w->pf_p;
    job->M = w->pf_mp;
    if (p->grad) {
        job->gd = p->grad->diag[k];
        job->gre = p->grad->bond_re[k];
        job->gim = p->grad->bond_im[k];
    }
}

/* the job's result: phi = Q(H) chi stored, or Re <phi|P(H) phi> added to the form */
static void absorb(pf_chain *q, const mcf_pseudofermion *p, size_t f0, size_t nb)
{
    const size_t dim = q->w->h->dim, k = q->k;
    const double *y = q->y;
    if (p->mode == MCF_PSEUDOFERMION_DRAW) {
        double *re = p->phi_re[k], *im = p->phi_im[k];
#pragma omp parallel for schedule(static) if (dim > KPM_CHUNK)
        for (size_t r = 0; r < dim; r++)
            for (size_t v = 0; v < nb; v++) {
                re[(f0 + v) * dim + r] = y[2 * nb * r + v];
                im[(f0 + v) * dim + r] = y[2 * nb * r + nb + v];
            }
        return;
    }
    /* Re <phi|y>, re and im parts alike: each chunk's sum in order, then the chunks' */
    const size_t per = 2 * nb * KPM_CHUNK, n = 2 * dim * nb;
    const size_t chunks = (n + per - 1) / per;
    double part[64], form = q->form;
    for (size_t c0 = 0; c0 < chunks; c0 += 64) {
        const size_t nc = chunks - c0 < 64 ? chunks - c0 : 64;
#pragma omp parallel for schedule(static) if (nc > 1)
        for (size_t c = 0; c < nc; c++) {
            const size_t i0 = (c0 + c) * per, i1 = i0 + per < n ? i0 + per : n;
            double sum = 0.0;
            for (size_t i = i0; i < i1; i++)
                sum += q->phi[i] * y[i];
            part[c] = sum;
        }
        for (size_t c = 0; c < nc; c++)
            form += part[c];
    }
    q->form = form;
}

/* the action (the form + Tr(H - mu)/(2T)), the gradient's sense and the bound of chain k */
static int finish(pf_chain *q, const mcf_pseudofermion *p)
{
    kpm_ops_ws *w = q->w;
    const mcf_hamiltonian *h = w->h;
    const size_t dim = h->dim, k = q->k;
    if (p->mode == MCF_PSEUDOFERMION_ACTION) {
        double tr = 0.0;
        for (size_t r = 0; r < dim; r++)
            tr += h->onsite[r] - q->mu;
        if (!isfinite(q->form))
            return mcf_fail(MCF_EPLUGIN, "%s: pseudofermion: the action is not finite",
                            w->be->name);
        p->action[k] = q->form + tr / (2.0 * q->T);
        const mcf_density_matrix *g = p->grad;
        if (g) {
            /* D = dS/dH_rc as summed; the table holds conj(D) (mcf_density_matrix's sense),
             * and Tr(H - mu)/(2T) adds 1/(2T) to every diagonal entry */
            double *gd = g->diag[k], *gim = g->bond_im[k];
            const double d = 1.0 / (2.0 * q->T);
#pragma omp parallel for schedule(static) if (dim > KPM_CHUNK)
            for (size_t s = 0; s < (size_t)h->width * dim; s++) {
                gim[s] = h->col[s] < 0 ? 0.0 : -gim[s];
                if (s < dim)
                    gd[s] += d;
            }
        }
    }
    if (p->bound)
        p->bound[k] = p->mode == MCF_PSEUDOFERMION_DRAW ? w->pf_rel_q : w->pf_rel_p;
    return MCF_OK;
}

/* the jobs of a group of flavours: the backend's batch for those it takes, then one by one */
static int run_jobs(const kpm_backend *be, kpm_series_job *jobs, size_t n, size_t nb)
{
    int rc = n > 1 && be->series_batch ? be->series_batch(jobs, n, nb) : MCF_OK;
    for (size_t k = 0; !rc && k < n; k++) {
        kpm_series_job *j = &jobs[k];
        if (j->done)
            continue;
        rc = j->gd ? be->series_gradient(j->w, j->c, j->M, nb, j->x, j->y, j->gd, j->gre,
                                         j->gim)
                   : be->series(j->w, j->c, j->M, nb, j->x, j->y);
        if (rc && n > 1)
            rc = mcf_fail_prefix(rc, "workspace %zu of %zu", k, n);
    }
    return rc;
}

/* every chain's flavours, `block / 2` at a time, the chains of a group at once */
static int all_chains(const kpm_backend *be, void *const *ws, size_t n, mcf_rng *const *rngs,
                      const double *T, const double *mu, mcf_pseudofermion *p, size_t nf)
{
    pf_chain *q = calloc(n, sizeof *q);
    kpm_series_job *jobs = calloc(n, sizeof *jobs);
    int rc = q && jobs ? MCF_OK : mcf_fail(MCF_ENOMEM, "%s: pseudofermion: out of memory",
                                           be->name);
    for (size_t k = 0; !rc && k < n; k++) {
        q[k] = (pf_chain){.w = ws[k], .rng = rngs ? rngs[k] : NULL, .T = T[k], .mu = mu[k],
                          .k = k};
        if ((rc = kpm_ops_prepare(q[k].w)) || (rc = begin(&q[k], p, nf)))
            rc = n > 1 ? mcf_fail_prefix(rc, "workspace %zu of %zu", k, n) : rc;
    }
    size_t group = SIZE_MAX; /* the chains' smallest (one configuration: all the same) */
    for (size_t k = 0; k < n; k++) {
        const kpm_ops_ws *w = ws[k];
        const size_t most = w->block / 2 ? w->block / 2 : 1;
        group = most < group ? most : group;
    }
    for (size_t f0 = 0; !rc && f0 < nf; f0 += group) {
        const size_t nb = nf - f0 < group ? nf - f0 : group;
        for (size_t k = 0; k < n; k++)
            fill(&q[k], p, f0, nb, &jobs[k]);
        if ((rc = run_jobs(be, jobs, n, nb)))
            break;
        for (size_t k = 0; k < n; k++)
            absorb(&q[k], p, f0, nb);
    }
    for (size_t k = 0; !rc && k < n; k++)
        if ((rc = finish(&q[k], p)) && n > 1)
            rc = mcf_fail_prefix(rc, "workspace %zu of %zu", k, n);
    free(q);
    free(jobs);
    return rc;
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
    return all_chains(be, ws, n, rngs, T, mu, p, nf);
}
