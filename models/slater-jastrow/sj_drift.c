/* sj_drift.c — move = drift: drift-diffusion proposals with the Metropolis test
 * (importance-sampled VMC; the move of fixed-node DMC, issue 46, without the branching).
 *
 * With tau = step^2 (bohr^2 = hartree^-1 with hbar = m = 1; `step` is adapted by the core as
 * for pbp), electron e at r, in the configuration left by the electrons moved before it in
 * the sweep, moves to
 *     r' = r + tau vbar(r) + sqrt(tau) chi,   chi ~ N(0, 1)^3 from the chain's move stream
 * (all turns' chi drawn at the sweep's start, in turn order: the draws do not depend on the
 * state, so the numbers are those of drawing at each turn),
 * v = grad_e ln|Psi| = grad_e D / D + grad_e J the drift velocity, and vbar its limited form
 * of Umrigar, Nightingale and Runge (J. Chem. Phys. 99, 2865 (1993), eq. 33 with a = 1):
 *     vbar = v (-1 + sqrt(1 + 2 |v|^2 tau)) / (|v|^2 tau),
 * which is v where |v|^2 tau << 1 and |vbar| tau -> sqrt(2 tau) at a node, where |v| -> inf
 * (so a walker near a node is not thrown across the cell).  The proposal density is
 * G(r' <- r) ~ exp(-|r' - r - tau vbar(r)|^2 / (2 tau)), not symmetric, so propose's log
 * ratio is
 *     log |Psi(R')/Psi(R)|^2 + log G(r <- r') - log G(r' <- r),
 * and the core's test min(1, exp(that)) leaves |Psi|^2 stationary: exact VMC at any tau,
 * whose acceptance approaches 1 as tau -> 0 (the reason DMC takes this move).
 *
 * What it costs beyond pbp: the drift at r needs grad phi_l(r_e) for the current position,
 * and vbar(r') needs the orbitals' values and gradients at the trial point.  sweep() takes
 * the values, gradients and Laplacians at every current position in one evaluator call (as
 * a measurement does); electron e has not moved before its turn, so its row is exact then,
 * and grad_e D / D = sum_l grad phi_l(r_e) Ainv[l][i] uses the inverse of that moment.  At
 * each turn one evaluator call takes the trial point of every chain of the batch, and the
 * update is Sherman-Morrison after every move (delay <= 1).  Where the evaluator keeps the
 * determinants and makes whole drift sweeps (walker_drift_sweep of mcf 1.2, blip-cuda: on the
 * GPU, one launch a sweep for all chains), sj_sweep.c's drift_sweep_on_ev hands it the
 * sweep's Gaussians, time step and node rule instead, and it makes the same moves from the
 * same streams (tests/gpu/test_dmc_cuda_run; tests/physics/test_drift_sweep_ev with a host
 * evaluator of the op).
 *
 * Diffusion Monte Carlo ([run] method = dmc) calls the projector op: the moves become drift
 * moves at the DMC time step tau (not step^2, and not adapted), and a move whose
 * determinant ratio is negative is refused: the walker stays in its nodal pocket (the
 * fixed-node approximation; the Jastrow factor is positive and has no nodes).  With the
 * determinants on an evaluator it needs the drift sweeps (sweep = auto or evaluator). */
#include "slater_jastrow_internal.h"

#include <math.h>

/* The time step: DMC's (the projector's), else step^2. */
double sj_time_step(const sj_chain *c) { return c->tau > 0.0 ? c->tau : c->step * c->step; }

/* Umrigar-Nightingale-Runge's limited drift vbar of v for time step tau (header). */
static void limited_drift(const double v[3], double tau, double vbar[3])
{
    const double v2t = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * tau;
    /* (-1 + sqrt(1 + 2x)) / x = 2 / (1 + sqrt(1 + 2x)): no cancellation at small x */
    const double f = 2.0 / (1.0 + sqrt(1.0 + 2.0 * v2t));
    for (int a = 0; a < 3; a++)
        vbar[a] = f * v[a];
}

/* grad_e ln|D| at electron e's current position, from the rows of sweep()'s evaluator call
 * (c->grad) and the current inverse. */
static void det_drift_here(const sj_chain *c, size_t e, double g[3])
{
    const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
    const double *Ai = c->Ainv[s];
    g[0] = g[1] = g[2] = 0.0;
    for (size_t l = 0; l < m; l++) {
        const double a = Ai[l * m + i], *gr = c->grad + (e * c->norb + l) * 3;
        g[0] += gr[0] * a;
        g[1] += gr[1] * a;
        g[2] += gr[2] * a;
    }
}

/* The trial point of electron e: r' = r + tau vbar(r) + sqrt(tau) chi into c->trial, chi
 * the turn's three Gaussians that sweep() drew (c->disp), and -|chi|^2 / 2 = log G(r' <- r)
 * (up to the normalization, which cancels) into c->log_g[e]. */
static void draw_trial(sj_chain *c, size_t e)
{
    const double tau = sj_time_step(c), *r = c->r + 3 * e;
    double v[3], gJ[3] = {0, 0, 0}, vbar[3], chi2 = 0.0;
    det_drift_here(c, e, v);
    if (c->jastrow)
        jastrow_grad_at(c, e, r, gJ);
    for (int a = 0; a < 3; a++)
        v[a] += gJ[a];
    limited_drift(v, tau, vbar);
    for (int a = 0; a < 3; a++) {
        const double chi = c->disp[3 * e + a];
        chi2 += chi * chi;
        c->trial[3 * e + a] = r[a] + tau * vbar[a] + sqrt(tau) * chi;
    }
    c->log_g[e] = -0.5 * chi2;
}

/* The log ratio of electron e's move to its trial point, whose orbital values are in
 * trial_phi's row e and gradients in c->tgrad (norb x 3). */
static double drift_log_ratio(const sj_chain *c, size_t e)
{
    const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
    const double *v = c->trial_phi + e * c->norb, *Ai = c->Ainv[s], *x = c->trial + 3 * e;
    const double *r = c->r + 3 * e, tau = sj_time_step(c);
    double R = 0.0, g[3] = {0, 0, 0};
    for (size_t l = 0; l < m; l++) {
        const double a = Ai[l * m + i];
        R += v[l] * a;
        g[0] += c->tgrad[3 * l] * a;
        g[1] += c->tgrad[3 * l + 1] * a;
        g[2] += c->tgrad[3 * l + 2] * a;
    }
    if (R == 0.0 || !isfinite(R) || (c->fixed_node && R < 0.0))
        return -INFINITY; /* fixed node: a move across a node of the determinants refused */
    double gJ[3] = {0, 0, 0}, vbar[3], back = 0.0;
    if (c->jastrow)
        jastrow_grad_at(c, e, x, gJ);
    for (int a = 0; a < 3; a++)
        g[a] = g[a] / R + gJ[a];
    limited_drift(g, tau, vbar);
    for (int a = 0; a < 3; a++) { /* log G(r <- r') = -|r - r' - tau vbar(r')|^2 / (2 tau) */
        const double d = r[a] - x[a] - tau * vbar[a];
        back += d * d;
    }
    double lr = 2.0 * log(fabs(R)) - back / (2.0 * tau) - c->log_g[e];
    if (c->jastrow)
        lr += 2.0 * (jastrow_one(c, e, x) - jastrow_one(c, e, r));
    return lr;
}

int sj_projector(void *chain, double tau)
{
    sj_chain *c = chain;
    const int ev_bad = c->on_ev && !c->ev_drift, delay_bad = !c->on_ev && c->delay > 1;
    if (ev_bad || delay_bad || c->qs)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: diffusion Monte Carlo moves the electrons "
                        "by drift and diffusion with the determinants in the model, updated "
                        "after every move, or on an evaluator that makes whole drift sweeps "
                        "(blip-cuda, sweep = auto or evaluator); here %s; set %s", c->qs ?
                        "move = qs" : ev_bad ? "the evaluator keeps them and makes no drift "
                        "sweep (or sweep = core)" : "delay > 1", c->qs ? "move = pbp or drift"
                        : ev_bad ? "[model] determinants = model, or sweep = auto" :
                        "[model] delay = 0 or 1");
    if (!(tau > 0.0) || !isfinite(tau))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: the DMC time step %g is not positive", tau);
    c->drift = 1;
    c->fixed_node = 1;
    c->tau = tau;
    return MCF_OK;
}

int drift_propose(mcf_batch *b, void *const *chains, size_t n, const sj_move *mv,
                  double *log_ratio)
{
    for (size_t k0 = 0; k0 < n; k0 += SJ_BATCH) {
        const size_t nb = n - k0 < SJ_BATCH ? n - k0 : SJ_BATCH;
        void *ws[SJ_BATCH];
        const double *rr[SJ_BATCH];
        size_t np[SJ_BATCH];
        double *ph[SJ_BATCH], *gr[SJ_BATCH], *lp[SJ_BATCH];
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            const size_t e = (size_t)mv[k0 + k].e;
            draw_trial(c, e);
            ws[k] = c->ws;
            rr[k] = c->trial + 3 * e;
            np[k] = 1;
            ph[k] = c->trial_phi + e * c->norb;
            gr[k] = c->tgrad;
            lp[k] = c->tlap;
        }
        int rc = mcf_orbital_evaluate(b, ws, nb, rr, np, ph, gr, lp);
        if (rc)
            return rc;
#pragma omp parallel for schedule(static) if (nb > 1)
        for (size_t k = 0; k < nb; k++)
            log_ratio[k0 + k] = drift_log_ratio(chains[k0 + k], (size_t)mv[k0 + k].e);
    }
    return MCF_OK;
}
