/* sj_determinants_ev.c — the Slater determinants of the slater-jastrow model kept by the
 * orbital evaluator (determinants = auto | evaluator; c->on_ev): handing the rows and
 * inverses over (create, load) and back (state), and the refresh every N accepted moves.
 * The calls of the sweep and the measurement (det_trial, det_ratio, det_accept, det_local)
 * sit beside the host's path in sj_sweep.c, sj_determinants.c and sj_local_energy.c.
 *
 * An orbital evaluator may provide the determinants (MCF_ORBITAL_DETERMINANTS of
 * mcf/orbital.h; blip-cuda does: the matrices stay on the GPU).  A chain's workspace then
 * holds its two determinants, addressed by (workspace, spin): det_set with m electrons
 * makes one, and releasing the workspace frees them.  With determinants = evaluator, or
 * auto when move = pbp and N_up >= 90 (below that the host's O(m^2) update beats a device
 * round trip of ~15 us per move for one walker: docs/benchmarks.md), the model hands each
 * chain's up and down rows and inverses to the evaluator (det_set, at create and load; an
 * empty spin, polarized, has none) and from then on: sweep asks for the orbital rows at
 * the trial positions (det_trial: they stay with the evaluator; the trial positions are
 * wrapped into the cell first, so that the evaluator's positions are the model's), propose
 * asks for the determinant ratios of the whole batch in one det_ratio call and adds the
 * Jastrow ratio, apply calls det_accept for an accepted move (the evaluator applies the
 * same Sherman-Morrison update, possibly at its next op), every N accepted moves
 * det_refresh reports the drift max |Ainv A - 1| and restores the inverse (a drift >= 0.25
 * is recomputed in the model by LU from the rows, det_get / det_set), measure asks
 * det_local for grad_i D / D and lap_i D / D, and state copies rows and inverses back
 * (det_get) before the core writes them, so checkpoints are the same bytes whoever keeps
 * the matrices.  The batched calls (det_trial, det_ratio, det_accept, det_refresh,
 * det_local) go through the core's batch; det_set and det_get through the chain's handle.
 * determinants = model keeps them in the model (sj_determinants.c).  The chains of a batch
 * compute their Jastrow ratios and local energies in parallel over the cores (OpenMP; a
 * device evaluator's batch steps on one thread), each exactly as alone. */
#include "slater_jastrow_internal.h"

#include <stdlib.h>

/* Hands the host's rows and inverses (and the positions) to the evaluator's determinants. */
int push_dets(sj_chain *c)
{
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        int rc = m ? mcf_orbital_det_set(&c->orb, c->ws, (int)s, m, c->r + 3 * spin_first(c, s),
                                         c->A[s], c->Ainv[s])
                   : MCF_OK;
        if (rc)
            return rc;
    }
    return MCF_OK;
}

/* Copies the evaluator's rows and inverses into the host's A and Ainv (for a checkpoint). */
int pull_dets(sj_chain *c)
{
    for (size_t s = 0; s < 2; s++) {
        int rc = spin_count(c, s) ? mcf_orbital_det_get(&c->orb, c->ws, (int)s, NULL, c->A[s],
                                                        c->Ainv[s])
                                  : MCF_OK;
        if (rc)
            return rc;
    }
    return MCF_OK;
}

/* Every N accepted moves: the evaluator measures the drift and restores the inverses of the
 * n chains (one det_refresh call for all of them: a Newton step each); a drift of 0.25 or
 * more is recomputed here by LU from the rows. */
int refresh_on_ev_batch(mcf_batch *b, sj_chain *const *cs, size_t n)
{
    void *stack_d[2 * SJ_BATCH];
    int stack_s[2 * SJ_BATCH];
    size_t stack_k[2 * SJ_BATCH];
    double stack_x[2 * SJ_BATCH];
    void **dws = n <= SJ_BATCH ? stack_d : malloc(2 * n * sizeof *dws);
    int *dspin = n <= SJ_BATCH ? stack_s : malloc(2 * n * sizeof *dspin);
    size_t *who = n <= SJ_BATCH ? stack_k : malloc(2 * n * sizeof *who);
    double *drift = n <= SJ_BATCH ? stack_x : malloc(2 * n * sizeof *drift);
    int rc = MCF_OK;
    if (!dws || !dspin || !who || !drift)
        rc = mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a refresh");
    size_t nd = 0;
    for (size_t k = 0; k < n && !rc; k++)
        for (size_t s = 0; s < 2; s++)
            if (spin_count(cs[k], s)) { /* an empty spin has no determinant */
                dws[nd] = cs[k]->ws;
                dspin[nd] = (int)s;
                who[nd++] = 2 * k + s;
            }
    if (!rc && nd)
        rc = mcf_orbital_det_refresh(b, dws, dspin, nd, drift);
    for (size_t q = 0; q < nd && !rc; q++) {
        sj_chain *c = cs[who[q] / 2];
        const size_t s = who[q] % 2, m = spin_count(c, s);
        if (drift[q] > c->max_drift || drift[q] != drift[q])
            c->max_drift = drift[q];
        mcf_log(MCF_LOG_DEBUG, "slater-jastrow: spin %s, after %llu accepted moves: "
                "Sherman-Morrison drift max|Ainv A - 1| = %.3e (evaluator %s)",
                s ? "down" : "up", (unsigned long long)c->accepted_since, drift[q],
                c->ev_name);
        if (drift[q] < 0.25)
            continue;
        if ((rc = mcf_orbital_det_get(&c->orb, c->ws, (int)s, NULL, c->A[s], c->Ainv[s])))
            break;
        if (invert(c, c->A[s], m, c->Ainv[s])) {
            rc = mcf_fail(MCF_EINTERNAL, "slater-jastrow: the %s-spin Slater matrix is "
                          "singular (two electrons of one spin at the same point?)",
                          s ? "down" : "up");
            break;
        }
        rc = mcf_orbital_det_set(&c->orb, c->ws, (int)s, m, c->r + 3 * spin_first(c, s),
                                 c->A[s], c->Ainv[s]);
        if (rc)
            break;
        if (c->drift)
            continue; /* a drift sweep takes no trial rows (its trial points come move by move) */
        const double *rt[1] = {c->trial + 3 * spin_first(c, s)}; /* det_set forgot them */
        rc = mcf_orbital_det_trial(b, &dws[q], &dspin[q], 1, rt);
    }
    for (size_t k = 0; k < n && !rc; k++) {
        cs[k]->accepted_since = 0;
        cs[k]->refreshes++;
    }
    if (n > SJ_BATCH) {
        free(dws);
        free(dspin);
        free(who);
        free(drift);
    }
    return rc;
}

int refresh_on_ev(mcf_batch *b, sj_chain *c) { return refresh_on_ev_batch(b, &c, 1); }
