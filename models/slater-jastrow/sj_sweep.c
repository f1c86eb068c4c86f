/* sj_sweep.c — the moves of the slater-jastrow model (ops of mcf_model, ABI 2): sweep
 * draws every electron's trial position and its orbital row (what ABI 1's begin_sweep did)
 * and then makes the whole sweep on the evaluator or declines it; propose gives the
 * electron of the turn and its log ratio for every chain of a batch, and apply settles the
 * core's decisions (the update of the determinants on accept is sj_determinants.c's
 * accept_move).  The step is adapted by the core while thermalizing, from state's `step`
 * (sj_checkpoint.c): step * clamp(acceptance / 0.5, 1/2, 2) within [1e-4 r_s, L], the
 * arithmetic of ABI 1's adapt.
 *
 * ---- Moves (move = pbp) ----------------------------------------------------------------
 * The core proposes units = N moves per sweep, in order, one per step, and applies its
 * decision after each; the model moves electron s at step s.  Every sweep the core first
 * calls sweep(), which draws, for every chain of the batch, N Gaussian displacements d_i
 * (sigma = step * r_s per component) from the chain's own move stream (seed,
 * 0x5c1a7e0000000000 + chain index), and asks the evaluator for the orbital values at all
 * trial points r_i + d_i of all chains in one call; then, unless the evaluator makes the
 * whole sweep (below), it declines (MCF_SWEEP_DECLINED) and the core's loop makes the
 * moves: the order of the calls and draws of ABI 1 (begin_sweep, then the loop).  Electron
 * i is not moved before its own turn, so r_i at its turn equals r_i at the start of the
 * sweep and the precomputed row is exactly the row of the trial position.  propose: the
 * determinant ratio R = sum_l phi_l(r_i') Ainv[l][i] (A^{-1} of the electron's spin), and
 * log |Psi'/Psi|^2 = 2 log|R| + 2 dJ.  The proposal is symmetric.  The acceptance uniforms
 * come from the core's stream.
 *
 * ---- Moves (move = pbp, the whole sweep on the evaluator) ---------------------------------
 * With the determinants on an evaluator that offers walker_sweep (blip-cuda) and [model]
 * sweep = auto | evaluator, sweep() goes on after the trial rows instead of declining: one
 * walker_sweep call for all chains makes the same N moves on the device (the ratios, the
 * Jastrow from jastrow_pair_functions, the decisions from the chain's stream, delayed
 * updates of [model] delay), and the positions come back moved.  sweep = core keeps the
 * loop: det_ratio per move, the decision on the host (the reference the device's sweep is
 * tested against: tests/gpu/test_blip_cuda_run).
 *
 * ---- Moves (move = qs) -----------------------------------------------------------------
 * Quasi-simultaneous updating (Q.S., the seed paper's eq. 11, proposed for GPUs): the
 * trial positions and their orbital rows are made at the start of sweep() as for pbp, and
 * then every electron's ratio is taken against the configuration R^(alpha) at the start
 * of the sweep, p(r_1, .., r_e', .., r_N) / p(R^(alpha)), all N of them there (N
 * independent tasks), instead of against the configuration left by the electrons moved
 * before it in the sweep.  The core then accepts or rejects electron e with that stored
 * ratio (one uniform each, from the core's stream as for pbp), and apply makes the
 * move in the current configuration exactly (Sherman-Morrison against the current Ainv,
 * the same code as pbp), so after the sweep the state holds all accepted moves together.
 * The state between sweeps is the same as pbp's (qs_lr is recomputed at every sweep), so
 * checkpoints are unchanged.
 *
 * qs is an APPROXIMATION.  Its N-electron transition satisfies detailed balance with
 * respect to |Psi|^2 only if Psi is a product of one-electron factors; the determinant and
 * the Jastrow couple the electrons (two electrons may both be accepted moving onto each
 * other, each judged against the other's old position), so its stationary distribution
 * is not |Psi|^2: it does not vanish as |Psi|^2 at the nodes, nor is it suppressed by the
 * Jastrow at short range.  Measured (test_vmc_heg (f): N = 14, r_s = 1, jastrow = rpa,
 * planewave, seed 20240605, 20000 sweeps, step adapted to acceptance 0.5 while
 * thermalizing): potential energy per electron -0.44938 +- 0.00154 (qs) vs -0.54176 +-
 * 0.00146 (pbp), a bias of +0.0924 +- 0.0021 hartree (43 sigma); total energy 0.6236 +-
 * 0.0260 (qs) vs 0.58648 +- 0.00091 (pbp), E_qs - E_pbp = +0.037 +- 0.026 (1.4 sigma);
 * <energy_sq> - <energy>^2 = 13.4 (energy_sq error 10.8) for qs vs 0.0059 for pbp,
 * acceptance 0.585 (qs) vs 0.500 (pbp).  The qs local energy is heavy-tailed (the
 * density near the nodes, where E_L ~ 1/distance, is not suppressed), so its energy error
 * bar is not reliable and its variance may not exist.  Use pbp for results; qs is there to
 * measure the scheme.
 *
 * ---- Moves (move = drift) ----------------------------------------------------------------
 * Drift-diffusion proposals with the Green's-function ratio in the Metropolis test (exact,
 * asymmetric): sweep() takes the orbital rows and gradients at the current positions
 * instead of drawing trial points, and propose draws each electron's trial point at its
 * turn from the drift there (sj_drift.c, whose header has the formulas). */
#include "slater_jastrow_internal.h"

#include <math.h>
#include <stdlib.h>

/* log |Psi(R with r_e -> trial_e) / Psi(R)|^2 against the chain's current configuration. */
static double log_ratio_now(const sj_chain *c, size_t e)
{
    sj_timing *t = c->tm;
    const double t0 = t ? now_s() : 0.0;
    const double R = sj_det_ratio(c, e);
    double lr = R == 0.0 ? -INFINITY : 2.0 * log(fabs(R));
    const double t1 = t ? now_s() : 0.0;
    if (t)
        t->det += t1 - t0;
    if (c->jastrow) {
        lr += 2.0 * (jastrow_one(c, e, c->trial + 3 * e) - jastrow_one(c, e, c->r + 3 * e));
        if (t)
            t->jastrow += now_s() - t1;
    }
    return lr;
}

/* The start of every sweep (ABI 1's begin_sweep): the trial positions of every chain and,
 * in one evaluator call per SJ_BATCH chains, their orbital rows; move = qs: the ratios. */
static int trial_rows(mcf_batch *b, void *const *chains, size_t n)
{
    for (size_t k0 = 0; k0 < n; k0 += SJ_BATCH) {
        const size_t nb = n - k0 < SJ_BATCH ? n - k0 : SJ_BATCH;
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            if (c->tm) {
                c->tm->sweep_t0 = now_s();
                c->tm->sweep_share = 1.0 / (double)n;
                c->tm->sweeps++;
            }
            for (size_t i = 0; i < 3 * c->n && !c->drift; i++) {
                c->disp[i] = c->step * mcf_rng_normal(&c->mv);
                c->trial[i] = c->r[i] + c->disp[i];
                if (c->on_ev) /* the evaluator's positions then stay those of c->r */
                    c->trial[i] = wrap(c->trial[i], c->L);
            }
            /* drift: the Gaussians chi of every turn, drawn now in the order the turns take
             * them (the trial points wait for each turn's drift: sj_drift.c); a sweep made
             * elsewhere (a device) takes the same numbers */
            for (size_t i = 0; i < 3 * c->n && c->drift; i++)
                c->disp[i] = mcf_rng_normal(&c->mv);
            c->turn = 0;
            if (c->index == 0 && !c->hf_said && isfinite(c->e_hf)) {
                mcf_log(MCF_LOG_INFO, "slater-jastrow: N = %zu, r_s = %g, L = %.10g bohr: the "
                        "exact %s energy of this cell (the determinant alone) is %.10f hartree "
                        "per electron, %.10f per cell", c->n, c->rs, c->L, c->coulomb ?
                        "Hartree-Fock" : "free-gas (interaction = none)", c->e_hf,
                        c->e_hf * (double)c->n);
                c->hf_said = 1;
            }
            if (c->on_ev && c->index == 0 && !c->announced) {
                mcf_log(MCF_LOG_INFO, "slater-jastrow: the Slater determinants are kept by "
                        "evaluator %s (determinants = auto or evaluator; model keeps them on "
                        "the host)", c->ev_name);
                c->announced = 1;
            }
        }
        const sj_chain *c0 = chains[k0];
        const double tv0 = c0->tm ? now_s() : 0.0;
        /* drift: the rows and gradients at the current positions (sj_drift.c); otherwise
         * the rows at the trial positions (on_ev: they stay there); an evaluator's drift
         * sweep makes its own */
        int rc = c0->ev_drift && c0->drift ? MCF_OK : orbitals_batch(b, chains + k0, nb,
                                                                       c0->drift);
        if (rc)
            return rc;
        if (c0->tm) {
            const double share = (now_s() - tv0) / (double)nb;
            for (size_t k = 0; k < nb; k++) {
                sj_timing *t = ((sj_chain *)chains[k0 + k])->tm;
                if (t)
                    t->orbitals += share;
            }
        }
        /* move = qs: every ratio against the configuration R^(alpha) at the sweep's start */
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            if (c->qs)
                for (size_t e = 0; e < c->n; e++)
                    c->qs_lr[e] = log_ratio_now(c, e);
        }
    }
    return MCF_OK;
}

/* The log ratios with the determinants on the evaluator: one det_ratio call per 64 chains. */
static int log_ratio_on_ev(mcf_batch *b, void *const *chains, const sj_move *mv, size_t n,
                           double *out)
{
    for (size_t k0 = 0; k0 < n; k0 += SJ_BATCH) {
        const size_t nb = n - k0 < SJ_BATCH ? n - k0 : SJ_BATCH;
        void *dws[SJ_BATCH];
        int dspin[SJ_BATCH];
        size_t el[SJ_BATCH];
        double R[SJ_BATCH];
        const sj_chain *c0 = chains[k0];
        for (size_t k = 0; k < nb; k++) {
            const sj_chain *c = chains[k0 + k];
            const size_t e = (size_t)mv[k0 + k].e;
            if (!c->on_ev)
                return mcf_fail(MCF_EINTERNAL, "slater-jastrow: one batch holds chains with "
                                "different keepers of the determinants (a bug, please report "
                                "it)");
            dws[k] = c->ws;
            dspin[k] = (int)spin_of(c, e);
            el[k] = index_in_spin(c, e);
        }
        const double t0 = c0->tm ? now_s() : 0.0;
        int rc = mcf_orbital_det_ratio(b, dws, dspin, nb, el, R);
        if (rc)
            return rc;
        const double share = c0->tm ? (now_s() - t0) / (double)nb : 0.0;
        /* the chains' Jastrow ratios are independent: spread over the cores (a device
         * evaluator's batch steps on one thread); each is computed as alone */
#pragma omp parallel for schedule(static) if (nb > 1)
        for (size_t k = 0; k < nb; k++) {
            const sj_chain *c = chains[k0 + k];
            const size_t e = (size_t)mv[k0 + k].e;
            double lr = R[k] == 0.0 ? -INFINITY : 2.0 * log(fabs(R[k]));
            const double t1 = c->tm ? now_s() : 0.0;
            if (c->jastrow)
                lr += 2.0 * (jastrow_one(c, e, c->trial + 3 * e) -
                             jastrow_one(c, e, c->r + 3 * e));
            if (c->tm) {
                c->tm->det += share;
                c->tm->jastrow += now_s() - t1;
            }
            out[k0 + k] = lr;
        }
    }
    return MCF_OK;
}

/* The electron of the turn for every chain (the displacements were drawn at the sweep's
 * start from the move stream: rngs unused), and its log ratio: against the current
 * configuration, or move = qs the one stored at the sweep's start. */
int sj_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
               void *moves, double *log_ratio)
{
    (void)rngs;
    sj_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const sj_chain *c = chains[k];
        if (c->turn >= c->n)
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: more than N = %zu proposals in a "
                            "sweep (the core must call sweep every sweep)", c->n);
        mv[k].e = c->turn;
    }
    if (n && ((const sj_chain *)chains[0])->on_ev)
        return log_ratio_on_ev(b, chains, mv, n, log_ratio);
    if (n && ((const sj_chain *)chains[0])->drift)
        return drift_propose(b, chains, n, mv, log_ratio);
#pragma omp parallel for schedule(static) if (n > 1)
    for (size_t k = 0; k < n; k++) {
        const sj_chain *c = chains[k];
        const size_t e = (size_t)mv[k].e;
        log_ratio[k] = c->qs ? c->qs_lr[e] : log_ratio_now(c, e);
    }
    return MCF_OK;
}

/* After a sweep the evaluator made (walker_sweep or walker_drift_sweep, begun at t0): the
 * accepted moves of each chain into accepted[], every N accepted moves (counted over
 * sweeps) the inverses refreshed, the timers. */
static int after_ev_sweep(mcf_batch *b, void *const *chains, size_t n, uint64_t *accepted,
                          double t0)
{
    const double t1 = now_s();
    sj_chain **due = malloc(n * sizeof *due); /* the chains whose refresh is due */
    if (!due)
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a sweep");
    size_t nd = 0;
    for (size_t k = 0; k < n; k++) {
        sj_chain *c = chains[k];
        uint64_t a = 0;
        for (size_t e = 0; e < c->n; e++)
            a += c->acc[e];
        accepted[k] = a;
        c->turn = c->n;
        c->accepted_since += a;
        if (c->accepted_since >= c->n)
            due[nd++] = c;
    }
    int rc = nd ? refresh_on_ev_batch(b, due, nd) : MCF_OK;
    free(due);
    const double t2 = now_s();
    for (size_t k = 0; k < n; k++) {
        sj_chain *c = chains[k];
        if (c->tm) {
            c->tm->det += (t1 - t0) / (double)n;
            c->tm->update += (t2 - t1) / (double)n;
            end_turn_timing(c, t2);
        }
    }
    return rc;
}

/* The whole drift sweep of n chains whose determinants the evaluator keeps and moves
 * (ev_drift: walker_drift_sweep, mcf 1.2), the Gaussians drawn by trial_rows; accepted[k] as
 * sj_sweep's. */
static int drift_sweep_on_ev(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                             uint64_t *accepted)
{
    mcf_drift_walker *w = calloc(n, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a sweep of %zu chains",
                        n);
    for (size_t k = 0; k < n; k++) {
        sj_chain *c = chains[k];
        w[k].w = (mcf_walker){.ws = c->ws, .r = c->r, .trial = NULL, .rng = rngs[k],
                              .accepted = c->acc};
        w[k].chi = c->disp;
        w[k].tau = sj_time_step(c);
        w[k].fixed_node = c->fixed_node;
    }
    sj_chain *c0 = chains[0];
    if (c0->index == 0 && !c0->sweep_said) {
        mcf_log(MCF_LOG_INFO, "slater-jastrow: the drift-diffusion moves of every sweep are "
                "made by evaluator %s (it keeps the determinants and updates them after every "
                "move; [model] delay does not apply)", c0->ev_name);
        c0->sweep_said = 1;
    }
    const double cell[3] = {c0->L, c0->L, c0->L};
    const double t0 = now_s();
    int rc = mcf_orbital_walker_drift_sweep(b, w, n, c0->pf, cell);
    free(w);
    return rc ? rc : after_ev_sweep(b, chains, n, accepted, t0);
}

/* The whole sweep (ABI 1's begin_sweep and sweep): the trial positions and their rows,
 * then, when every chain has ev_sweep ([model] sweep = auto | evaluator with the
 * determinants there), one walker_sweep call for all chains makes the N moves of each in
 * order, with the decisions drawn from the chain's stream as the core's loop would draw
 * them; the positions come back moved, and every N accepted moves (counted over sweeps) the
 * inverses are refreshed, here at the end of the sweep rather than after the move that
 * reached the count.  Otherwise the core's loop makes the moves (MCF_SWEEP_DECLINED, the
 * trial rows made). */
int sj_sweep(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
             uint64_t *accepted)
{
    int rc = trial_rows(b, chains, n);
    if (rc)
        return rc;
    if (!n)
        return MCF_SWEEP_DECLINED;
    const sj_chain *c0 = chains[0];
    if (c0->drift && c0->ev_drift)
        return drift_sweep_on_ev(b, chains, n, rngs, accepted);
    for (size_t k = 0; k < n; k++) {
        const sj_chain *c = chains[k];
        if (!c->ev_sweep)
            return MCF_SWEEP_DECLINED;
    }
    mcf_walker *w = calloc(n, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a sweep of %zu chains",
                        n);
    for (size_t k = 0; k < n; k++) {
        sj_chain *c = chains[k];
        w[k].ws = c->ws;
        w[k].r = c->r;
        w[k].trial = c->trial;
        w[k].rng = rngs[k];
        w[k].accepted = c->acc;
    }
    sj_chain *first = chains[0];
    if (first->index == 0 && !first->sweep_said) {
        mcf_log(MCF_LOG_INFO, "slater-jastrow: the moves of every sweep are made by evaluator "
                "%s (sweep = auto or evaluator; core moves one at a time through the core's "
                "loop), delay = %zu (0: the evaluator's choice)", c0->ev_name, c0->delay);
        first->sweep_said = 1;
    }
    const double cell[3] = {c0->L, c0->L, c0->L};
    const double t0 = now_s();
    rc = mcf_orbital_walker_sweep(b, w, n, c0->pf, cell, c0->delay);
    free(w);
    return rc ? rc : after_ev_sweep(b, chains, n, accepted, t0);
}

/* The core's decisions, chain by chain as ABI 1's accept and reject came: an accepted
 * move goes into the determinants and the positions, a rejected one only ends the turn. */
int sj_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
             const unsigned char *accepted)
{
    const sj_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        sj_chain *c = chains[k];
        if (!accepted[k]) {
            next_turn(c);
            if (c->tm)
                end_turn_timing(c, now_s());
            continue;
        }
        const double t0 = c->tm ? now_s() : 0.0;
        int rc = accept_move(b, c, &mv[k]);
        if (c->tm) {
            const double t1 = now_s();
            c->tm->update += t1 - t0;
            end_turn_timing(c, t1);
        }
        if (rc)
            return rc;
    }
    return MCF_OK;
}
