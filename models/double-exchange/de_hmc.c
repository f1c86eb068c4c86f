/* de_hmc.c — the double-exchange model under hybrid Monte Carlo ([run] sampler = hmc,
 * core/engine/hmc.c; mcf 1.1): its coordinates are the unit spins, and
 *
 *     S(spins) = -log det(1 + e^{-(H - mu)/T}) + const = S_pf,
 *
 * the pseudofermion form of the evaluator (mcf/fermion.h; the model has no classical term),
 * redrawn at each trajectory's start.  The gradient: the evaluator's dS_pf/dH on the table,
 * G, by the chain rule to the coordinates.
 *
 *   J_H infinite (H_ij = -t p_ij <chi_i|chi_j>, p_ij the twist's phase or 1): the
 *   coordinates are the spinors chi_i themselves, unit 4-vectors (S_i = chi_i^+ sigma chi_i),
 *   not the spins: S_pf at fixed pseudofermions is not invariant under a spinor's phase
 *   (H -> U H U^+ moves phi's weight), so as a function of the spins it would depend on the
 *   gauge chosen for chi(S), which is singular at a pole.  On S^3 with its uniform measure
 *   there is no such choice (the uniform measure projects onto the uniform one on the
 *   spin's sphere), and the trajectory's map commutes with the phases, so putting every
 *   chi into the gauge of de_field at each trajectory's start (MCF_ACTION_PREPARE: the
 *   state a checkpoint records, spins only, resumes bit for bit) changes nothing sampled.
 *   The Wirtinger gradient g_i = dS/d conj(chi_i) = -t sum_j conj(G_ij) p_ij chi_j (slot
 *   (i, j) of row i) gives dS = 2 Re sum_i conj(g_i) . dchi_i: the real gradient 2 g_i.
 *   J_H finite (the block -J_H S.sigma of the two orbitals of site i):
 *   dS/dS^x = -J_H (Re G_ud + Re G_du), dS/dS^y = J_H (Im G_ud - Im G_du),
 *   dS/dS^z = -J_H (G_uu - G_dd).
 * The core checks this gradient against differences of S at every fresh run's first
 * trajectory; tests/cli/test_hmc_de.sh holds the sampled distribution to the local
 * Metropolis sampler's with ed. */
#include "de_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The per-site loops of a force (the spins, the twisted bonds, the chain rule) run on the
 * OpenMP threads from this many sites: at 32^3 they were ~2 ms of a ~10 ms force on one
 * thread.  Each element is written by one thread, from the same operands: the same bits. */
#define DE_SITES_PARALLEL 4096

int de_coordinates(void *chain, mcf_coordinates *out)
{
    de_chain *c = chain;
    if (c->finite) {
        *out = (mcf_coordinates){MCF_COORDINATES_UNIT3, c->n, c->spin};
        return MCF_OK;
    }
    if (!c->spinor && !(c->spinor = malloc(4 * c->n * sizeof *c->spinor)))
        return mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for %zu spinors", c->n);
    for (size_t i = 0; i < c->n; i++)
        de_field(c->spin + 3 * i, c->spinor + 4 * i);
    *out = (mcf_coordinates){MCF_COORDINATES_UNIT4, c->n, c->spinor};
    return MCF_OK;
}

/* the slot of column col in row r of h, or -1 */
static long slot_of(const mcf_hamiltonian *h, size_t r, size_t col)
{
    for (int k = 0; k < h->width; k++)
        if (h->col[(size_t)k * h->dim + r] == (int32_t)col)
            return (long)((size_t)k * h->dim + r);
    return -1;
}

/* hund = inf: c->slot, the table index of every bond (i, k), from h's pattern, which the
 * chain's first build fixed (de_build at its creation; no bond changes its slot after) */
static int find_slots(de_chain *c)
{
    int64_t *s = malloc(c->n * (size_t)c->z * sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for %zu bonds' slots",
                        c->n * (size_t)c->z);
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->z; k++) {
            const size_t b = i * (size_t)c->z + (size_t)k;
            s[b] = c->nb[b] < 0 ? -1 : slot_of(c->h, i, (size_t)c->nb[b]);
            if (c->nb[b] >= 0 && s[b] < 0) {
                free(s);
                return mcf_fail(MCF_EINTERNAL, "double-exchange: the bond %zu -> %d has no "
                                "slot in the Hamiltonian's table", i, c->nb[b]);
            }
        }
    c->slot = s;
    return MCF_OK;
}

/* the gradient of S on the coordinates (spinors, or spins at finite hund) from G */
static void coordinate_gradient(const de_chain *c, const double *gd, const double *gre,
                                const double *gim, double *grad)
{
    const mcf_hamiltonian *h = c->h;
#pragma omp parallel for schedule(static) if (c->n >= DE_SITES_PARALLEL)
    for (size_t i = 0; i < c->n; i++) {
        if (c->finite) {
            double *gi = grad + 3 * i;
            const double J = c->hund;
            const long ud = slot_of(h, 2 * i, 2 * i + 1), du = slot_of(h, 2 * i + 1, 2 * i);
            gi[0] = -J * (gre[ud] + gre[du]);
            gi[1] = J * (gim[ud] - gim[du]);
            gi[2] = -J * (gd[2 * i] - gd[2 * i + 1]);
            continue;
        }
        double g[4] = {0, 0, 0, 0};
        for (int k = 0; k < c->z; k++) {
            const int32_t j = c->nb[i * (size_t)c->z + (size_t)k];
            if (j < 0)
                continue;
            const int64_t sl = c->slot[i * (size_t)c->z + (size_t)k];
            const double *ph = c->phase ? c->phase + 2 * (i * (size_t)c->z + (size_t)k) : NULL;
            const double pr = ph ? ph[0] : 1.0, pi = ph ? ph[1] : 0.0;
            /* w = -t conj(G_ij) p_ij */
            const double Gr = gre[sl], Gi = -gim[sl];
            const double wr = -c->t * (Gr * pr - Gi * pi), wi = -c->t * (Gr * pi + Gi * pr);
            const double *aj = c->spinor + 4 * (size_t)j;
            for (int q = 0; q < 2; q++) {
                g[2 * q] += wr * aj[2 * q] - wi * aj[2 * q + 1];
                g[2 * q + 1] += wr * aj[2 * q + 1] + wi * aj[2 * q];
            }
        }
        for (int q = 0; q < 4; q++)
            grad[4 * i + q] = 2.0 * g[q];
    }
}

/* hund = inf: the spins from the spinors (S = chi^+ sigma chi, normalized) and H from the
 * spinors: the field (factorized), or each twisted bond from its lower site */
static int from_spinors(de_chain *c)
{
    /* the spins on the OpenMP threads; the field then goes through mcf_hamiltonian_set_field
     * one site after another (it writes the Hamiltonian's change journal) */
#pragma omp parallel for schedule(static) if (c->n >= DE_SITES_PARALLEL)
    for (size_t i = 0; i < c->n; i++) {
        const double *a = c->spinor + 4 * i;
        double *s = c->spin + 3 * i;
        s[0] = 2.0 * (a[0] * a[2] + a[1] * a[3]);
        s[1] = 2.0 * (a[0] * a[3] - a[1] * a[2]);
        s[2] = a[0] * a[0] + a[1] * a[1] - a[2] * a[2] - a[3] * a[3];
        const double r = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        for (int q = 0; q < 3; q++)
            s[q] /= r;
    }
    c->h_from_spinor = 1;
    if (!c->twisted) {
        for (size_t i = 0; i < c->n; i++) {
            const int rc = mcf_hamiltonian_set_field(c->h, i, c->spinor + 4 * i);
            if (rc)
                return mcf_fail_prefix(rc, "double-exchange: the spinor of site %zu", i);
        }
        return MCF_OK;
    }
    /* twisted: each bond from its lower site, straight into its slot and its partner's (the
     * values and conjugates mcf_hamiltonian_set writes; o is neighbour k ^ 1 of its
     * neighbour k, slots coming in +d, -d pairs), then the evaluators told */
    mcf_hamiltonian *h = c->h;
#pragma omp parallel for schedule(static) if (c->n >= DE_SITES_PARALLEL)
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->z; k++) {
            const int32_t j = c->nb[i * (size_t)c->z + (size_t)k];
            if (j < 0 || (size_t)j <= i)
                continue;
            double re, im;
            de_entry_spinor(c, i, k, c->spinor + 4 * i, c->spinor + 4 * (size_t)j, &re, &im);
            const int64_t si = c->slot[i * (size_t)c->z + (size_t)k];
            const int64_t sj = c->slot[(size_t)j * (size_t)c->z + (size_t)(k ^ 1)];
            h->hop_re[si] = re;
            h->hop_im[si] = im;
            h->hop_re[sj] = re;
            h->hop_im[sj] = -im;
        }
    mcf_hamiltonian_touch_all(h);
    return MCF_OK;
}

int de_global_action(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                     unsigned what, double *S, double *const *grad)
{
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        de_chain *c = chains[k];
        if (!c->finite && (what & MCF_ACTION_PREPARE))
            for (size_t i = 0; i < c->n; i++) /* the gauge of de_field */
                de_field(c->spin + 3 * i, c->spinor + 4 * i);
        if (!c->finite && !c->slot && (rc = find_slots(c)))
            return rc;
        if ((rc = c->finite ? de_build(c, c->h) : from_spinors(c)))
            return rc;
        de_refresh(c);
        if (!mcf_fermion_has(&c->fermion, MCF_FERMION_PSEUDOFERMION))
            return mcf_fail(MCF_EINVAL, "double-exchange: [run] sampler = hmc needs an "
                            "evaluator with pseudofermions (ed, kpm or kpm-cuda of mcf 1.1); "
                            "evaluator %s has none", c->fermion.name);
    }
    if (what & MCF_ACTION_SYNC || n == 0)
        return MCF_OK;
    mcf_fermion_batch a;
    if ((rc = mcf_fermion_batch_get(b, n, &a)))
        return rc;
    mcf_fermion_hmc **pf = malloc(n * sizeof *pf);
    const mcf_hamiltonian **h = malloc(n * sizeof *h);
    if (!pf || !h)
        rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory");
    for (size_t k = 0; !rc && k < n; k++) {
        de_chain *c = chains[k];
        a.ws[k] = c->ws;
        a.rngs[k] = rngs ? rngs[k] : NULL;
        a.T[k] = c->T;
        a.mu[k] = c->mu;
        pf[k] = &c->pf;
        h[k] = c->h;
    }
    if (!rc)
        rc = mcf_fermion_hmc_action(&a, n, pf, h, what, S);
    for (size_t k = 0; !rc && (what & MCF_ACTION_GRADIENT) && k < n; k++) {
        const mcf_fermion_hmc *p = pf[k];
        coordinate_gradient(chains[k], p->grad, p->grad + p->dim, p->grad + p->dim + p->slots,
                            grad[k]);
    }
    free(pf);
    free(h);
    return rc;
}
