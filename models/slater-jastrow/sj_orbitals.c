/* sj_orbitals.c — the orbitals of the slater-jastrow model: which they are (the occupied
 * closed shell of plane waves, described to the [run] evaluator as mcf_pw_orbitals at
 * create) and the evaluator's calls that compute them (ABI 2's helpers, mcf/orbital_model.h):
 * at one chain's positions, and for a batch of chains at the trial positions (the start of
 * sweep) or with gradients and Laplacians at the current positions (measure), where an
 * evaluator that keeps the determinants (on_ev) answers with det_trial and det_local on the
 * chains' (workspace, spin) pairs instead.  The batched calls go through the core's batch,
 * which knows the run's evaluator; create and a load have no batch, so values_here makes a
 * batch of its own for its one call.  The Slater matrices built from them are
 * sj_determinants.c's.
 *
 * The orbitals are the closed-shell plane waves as real combinations: phi_0 = 1, then for
 * each pair +-k of the occupied set (k in the half space m_x > 0, or m_x = 0 and m_y > 0,
 * or m_x = m_y = 0 and m_z > 0) cos(k.r) and sin(k.r).  Their span equals that of the
 * complex exp(+-i k.r), so the determinant differs only by a constant factor.  They are
 * described as mcf_pw_orbitals and evaluated by the [run] evaluator (planewave, blip).
 * Both spins use the same L_orb = N_up orbitals (unpolarized N_down = N_up). */
#include "slater_jastrow_internal.h"

#include <stdlib.h>

#include "heg.h"

/* The real plane-wave orbitals of the occupied closed shell (see the header). */
int build_orbitals(size_t norb, double L, int32_t **g_out, double **a_out, double **b_out,
                   size_t *ng_out)
{
    int *nv = malloc(3 * norb * sizeof *nv);
    size_t ng = (norb + 1) / 2;
    int32_t *g = calloc(3 * ng, sizeof *g);
    double *a = calloc(norb * ng, sizeof *a), *b = calloc(norb * ng, sizeof *b);
    if (!nv || !g || !a || !b) {
        free(nv), free(g), free(a), free(b);
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for the orbitals");
    }
    int rc = mcf_heg_occupied(norb, L, nv, NULL);
    if (rc) {
        free(nv), free(g), free(a), free(b);
        return rc;
    }
    size_t gi = 0, l = 0;
    for (size_t k = 0; k < norb; k++) {
        const int *m = nv + 3 * k;
        const int zero = m[0] == 0 && m[1] == 0 && m[2] == 0;
        const int half = m[0] > 0 || (m[0] == 0 && (m[1] > 0 || (m[1] == 0 && m[2] > 0)));
        if (!zero && !half)
            continue; /* -k: its pair is made with +k */
        for (int d = 0; d < 3; d++)
            g[3 * gi + d] = m[d];
        a[l * ng + gi] = 1.0; /* cos(k.r), or 1 for k = 0 */
        l++;
        if (!zero) {
            b[l * ng + gi] = 1.0; /* sin(k.r) */
            l++;
        }
        gi++;
    }
    free(nv);
    if (gi != ng || l != norb) {
        free(g), free(a), free(b);
        return mcf_fail(MCF_EINTERNAL, "slater-jastrow: the occupied shell of %zu orbitals is "
                        "not closed under k -> -k (a bug, please report it)", norb);
    }
    *g_out = g;
    *a_out = a;
    *b_out = b;
    *ng_out = ng;
    return MCF_OK;
}

/* Orbital values of one chain at its current positions into c->phi. */
int values_here(sj_chain *c)
{
    mcf_batch *b = mcf_batch_create();
    if (!b)
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for an evaluator call");
    mcf_batch_set_evaluator(b, c->orb.evaluator, c->orb.model);
    void *ws[1] = {c->ws};
    const double *rr[1] = {c->r};
    size_t np[1] = {c->n};
    double *ph[1] = {c->phi};
    int rc = mcf_orbital_evaluate(b, ws, 1, rr, np, ph, NULL, NULL);
    mcf_batch_destroy(b);
    return rc;
}

/* The chains of a batch are made from the same parameters, so they share one keeper of the
 * determinants (and the batch's evaluator): the batch is one evaluator call. */
static int check_batch(void *const *chains, size_t nb)
{
    const sj_chain *c0 = chains[0];
    for (size_t k = 1; k < nb; k++) {
        const sj_chain *c = chains[k];
        if (c->on_ev != c0->on_ev)
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: one batch holds chains with "
                            "different keepers of the determinants (a bug, please report it)");
    }
    return MCF_OK;
}

int orbitals_batch(mcf_batch *b, void *const *chains, size_t nb, int measure)
{
    void *ws[SJ_BATCH];
    const double *rr[SJ_BATCH];
    size_t np[SJ_BATCH];
    double *ph[SJ_BATCH], *gr[SJ_BATCH], *lp[SJ_BATCH];
    void *dws[2 * SJ_BATCH]; /* on_ev: the determinants of the batch, spin up first */
    int dspin[2 * SJ_BATCH];
    const double *rt[2 * SJ_BATCH];
    double *gd[2 * SJ_BATCH], *ld[2 * SJ_BATCH];
    size_t nd = 0;
    for (size_t k = 0; k < nb; k++) {
        sj_chain *c = chains[k];
        ws[k] = c->ws;
        rr[k] = measure ? c->r : c->trial;
        np[k] = c->n;
        ph[k] = measure ? c->phi : c->trial_phi;
        gr[k] = c->grad;
        lp[k] = c->lap;
        for (size_t sp = 0; sp < 2; sp++)
            if (c->on_ev && spin_count(c, sp)) { /* an empty spin has no determinant */
                dws[nd] = c->ws;
                dspin[nd] = (int)sp;
                rt[nd] = c->trial + 3 * spin_first(c, sp);
                gd[nd] = c->gD + 3 * spin_first(c, sp);
                ld[nd++] = c->lD + spin_first(c, sp);
            }
    }
    const sj_chain *c0 = chains[0];
    int rc = check_batch(chains, nb);
    if (rc)
        return rc;
    if (c0->on_ev && !measure)
        return mcf_orbital_det_trial(b, dws, dspin, nd, rt);
    if (c0->on_ev)
        return mcf_orbital_det_local(b, dws, dspin, nd, gd, ld);
    return measure ? mcf_orbital_evaluate(b, ws, nb, rr, np, ph, gr, lp)
                   : mcf_orbital_evaluate(b, ws, nb, rr, np, ph, NULL, NULL);
}
