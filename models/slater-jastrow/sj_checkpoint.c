/* sj_checkpoint.c — a slater-jastrow chain's state as ABI 2 describes it (state: the
 * checkpoint record, the adapted step, the variational parameters) and its rebuild after
 * the core replaced some of it (rebuild: the checks that a loaded chain is the one saved,
 * the parameters `mcf optimize` wrote).
 *
 * The record, written and read by the core from the description (mcf_state_save, no tag:
 * the bytes of ABI 1's hand-written save, so checkpoints of either resume under the other):
 * the head {magic "SJVMC001", N, N_up} (FIXED: a record of another N is refused), the
 * positions, each spin's rows A and inverse Ainv (they accumulate rounding through
 * Sherman-Morrison, so they are saved, not recomputed), the move stream, the step, the
 * counters of the refreshes.  With the determinants on the evaluator, state() first copies
 * its rows and inverses into A and Ainv (det_get), so the core writes the current ones.
 * rebuild after a load re-evaluates the orbitals at the positions and checks them against
 * A, and checks |Ainv A - 1| (MCF_EFORMAT when they do not match), then hands the matrices
 * to the evaluator that keeps them and the positions to the Ewald sum.
 *
 * The step is adapted by the core while thermalizing (mcf_adapt_step): target acceptance
 * 0.5, within [1e-4 r_s, L] — ABI 1's adapt, the same arithmetic.  No temperature (VMC
 * samples |Psi|^2: no tempering).
 *
 * The configuration record (tag "SJC1"; the fields flagged MCF_STATE_CONFIGURATION): the
 * positions and each spin's rows and inverse, what a walker of diffusion Monte Carlo hands
 * to another when the population is resampled (issue 46).  The receiving chain keeps its own
 * move stream, step and counters; its rebuild makes the checks of a load and hands the
 * matrices to the evaluator that keeps them. */
#include "slater_jastrow_internal.h"

#include <math.h>

#define SJ_MAGIC 0x534a564d43303031ULL /* "SJVMC001" */
#define SJ_LOAD_TOL 1e-6               /* |Ainv A - 1| accepted on load */

int sj_state(void *chain, mcf_chain_state *st)
{
    sj_chain *c = chain;
    int rc;
    if (c->on_ev && (rc = pull_dets(c))) /* A, Ainv: host copies refreshed */
        return rc;
    c->head[0] = SJ_MAGIC;
    c->head[1] = c->n;
    c->head[2] = c->n_up;
    static const char *const rows[2] = {"up-spin Slater matrix", "down-spin Slater matrix"};
    static const char *const invs[2] = {"up-spin inverse", "down-spin inverse"};
    rc = mcf_chain_state_add(st, MCF_STATE_FIXED("record head (SJVMC001, N, N_up)", c->head,
                                                 sizeof c->head), 0);
    const unsigned cf = MCF_STATE_CONFIGURATION;
    rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_DATA("positions", c->r,
                                                          3 * c->n * sizeof *c->r), cf);
    for (size_t s = 0; s < 2 && !rc; s++) {
        const size_t m = spin_count(c, s);
        rc = mcf_chain_state_add(st, MCF_STATE_DATA(rows[s], c->A[s], m * m * sizeof(double)),
                                 cf);
        rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_DATA(invs[s], c->Ainv[s],
                                                              m * m * sizeof(double)), cf);
    }
    rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_RNG("move stream", &c->mv), 0);
    rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_DATA("step", &c->step, sizeof c->step), 0);
    rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_DATA("accepted moves since the refresh",
                                                          &c->accepted_since,
                                                          sizeof c->accepted_since), 0);
    rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_DATA("refreshes", &c->refreshes,
                                                          sizeof c->refreshes), 0);
    rc = rc ? rc : mcf_chain_state_add(st, MCF_STATE_DATA("largest drift", &c->max_drift,
                                                          sizeof c->max_drift), 0);
    if (rc)
        return rc;
    st->step = &c->step;
    st->step_target = 0.5;
    st->step_min = 1e-4 * c->rs;
    st->step_max = c->L;
    sj_variational_describe(c, &st->variational);
    return MCF_OK;
}

/* After a load (what: "checkpoint") or a configuration handed over from another chain
 * ("configuration handed over"): the checks of the record against the chain's
 * configuration, then what follows from it (the evaluator's determinants, the Ewald sum's
 * positions).  Both have their rows checked against the orbitals at their positions.  A
 * checkpoint (full) has its inverses checked entry by entry, max |Ainv A - 1| (O(m^3)); a
 * configuration handed over, from a live chain of the same run, by Freivalds' O(m^2)
 * residual (inverse_residual), which refuses a pair that does not belong together as
 * surely: the entrywise check cost as much as a walker's whole sweep at N = 514, and DMC's
 * comb hands over tens of walkers a step. */
static int loaded(sj_chain *c, const char *what, int full)
{
    int rc;
    for (size_t i = 0; i < 3 * c->n; i++)
        if (!isfinite(c->r[i]))
            return mcf_fail(MCF_EFORMAT, "slater-jastrow: %s: a non-finite position", what);
    if (!(c->step > 0.0) || !isfinite(c->step))
        return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: step %g is not positive",
                        c->step);
    /* check: the saved rows are the orbitals at the saved positions, and Ainv their inverse
     * (the orbitals are O(1), so 1e-6 absolute is far above rounding, far below an error) */
    if ((rc = values_here(c)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s), first = s == 0 ? 0 : c->n_up;
        for (size_t i = 0; i < m; i++)
            for (size_t l = 0; l < m; l++)
                if (!(fabs(c->A[s][i * m + l] - c->phi[(first + i) * c->norb + l]) <=
                      SJ_LOAD_TOL))
                    return mcf_fail(MCF_EFORMAT, "slater-jastrow: %s: the saved Slater matrix "
                                    "does not match the orbitals at the saved positions (a "
                                    "different evaluator or cell?)", what);
        if (!m)
            continue;
        if (full) {
            const double d = drift(c->A[s], c->Ainv[s], m);
            if (isnan(d))
                return mcf_fail(MCF_ENOMEM, "slater-jastrow: %s: out of memory", what);
            if (!(d <= SJ_LOAD_TOL))
                return mcf_fail(MCF_EFORMAT, "slater-jastrow: %s: the saved inverse Slater "
                                "matrix is off by %g (max |Ainv A - 1|)", what, d);
        } else {
            const double d = inverse_residual(c->A[s], c->Ainv[s], m);
            if (isnan(d))
                return mcf_fail(MCF_ENOMEM, "slater-jastrow: %s: out of memory", what);
            if (!(d <= 2.0 * (double)m * SJ_LOAD_TOL))
                return mcf_fail(MCF_EFORMAT, "slater-jastrow: %s: the inverse Slater matrix "
                                "does not belong to the rows (Freivalds' residual %g, allowed "
                                "%g)", what, d, 2.0 * (double)m * SJ_LOAD_TOL);
        }
    }
    if (c->on_ev && (rc = push_dets(c)))
        return rc;
    return mcf_ewald_set_positions(c->ew, c->r);
}

int sj_rebuild(void *chain, unsigned what)
{
    sj_chain *c = chain;
    int rc = MCF_OK;
    if (what & MCF_REBUILD_LOAD)
        rc = loaded(c, "checkpoint", 1);
    else if (what & MCF_REBUILD_CONFIGURATION)
        rc = loaded(c, "configuration handed over", 0);
    if (!rc && (what & MCF_REBUILD_VARIATIONAL))
        rc = sj_variational_rebuild(c);
    return rc;
}
