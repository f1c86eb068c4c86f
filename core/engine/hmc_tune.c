/* hmc_tune.c — [run] hmc_dt = auto: each chain's HMC step, tuned during thermalization.
 *
 * The energy error of a trajectory grows as N dt^4 (N coordinates, a second-order
 * integrator), so one step is wrong for most lattices.  Chain c starts from
 * dt = 0.05 (512 / N)^(1/4) (N = c->units: 0.05 is right at 8^3; twice that for omelyan)
 * and after every thermalization trajectory k (0-based sweep) moves
 *
 *     log dt += gain / sqrt(k + 1) * (min(1, e^{-dH}) - hmc_acceptance),
 *
 * the trajectory's own Metropolis probability (its mean is the acceptance, with less noise
 * than the 0/1 decision); a stochastic approximation whose fixed point is the step whose
 * expected acceptance is the target.  The last thermalization sweep freezes dt at the mean
 * of log dt over the second half of thermalization (the average of the iterates: the noise
 * of one iterate averaged out), and the measured sweeps run with that fixed step: each of
 * them is an HMC trajectory of one fixed dt, reversible and measure-preserving, so
 * detailed balance holds for everything measured.  The trajectory length stays fixed:
 * hmc_steps = ceil(hmc_length / dt), per chain (hmc.c runs each chain's own steps in the
 * group's batched calls). */
#include "hmc.h"

#include "chain.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* the gain of the update of log dt: a step 2x too long (acceptance ~0.3 for a target of
 * 0.8) is halved within a few trajectories */
static const double tune_gain = 1.0;
/* the most steps per trajectory (dt >= hmc_length / max_steps): a bound for a model whose
 * acceptance stays low whatever the step */
static const double max_steps = 10000.0;

static void set_step(const mcf_setup *s, mcf_chain *c, double dt)
{
    if (dt > s->hmc_length)
        dt = s->hmc_length;
    if (dt < s->hmc_length / max_steps)
        dt = s->hmc_length / max_steps;
    c->hmc_dt = dt;
    c->hmc_steps = (long)ceil(s->hmc_length / dt);
}

/* 0.05 (512 / N)^(1/4) for leapfrog; omelyan's step (two gradients) starts at twice that, as
 * many gradients per unit of length: its error coefficient is ~10^3 smaller (docs/methods.md),
 * so the tuner starts below its step and grows it (at 32^3 from 0.035 toward ~0.07) */
static double start_guess(const mcf_setup *s, const mcf_chain *c)
{
    const double per_gradient = s->hmc_integrator == MCFI_HMC_OMELYAN ? 2.0 : 1.0;
    return per_gradient * 0.05 * pow(512.0 / (double)c->units, 0.25);
}

void mcfi_hmc_tune_start(const mcf_setup *s, mcf_chain *c)
{
    c->hmc_log_dt_sum = c->hmc_prob_sum = 0.0;
    c->hmc_tuned = 0;
    c->hmc_fixed = 0;
    if (!s->hmc_dt_auto) {
        c->hmc_dt = s->hmc_dt;
        c->hmc_steps = s->hmc_steps;
        return;
    }
    set_step(s, c, start_guess(s, c));
}

void mcfi_hmc_tune(const mcf_setup *s, mcf_chain *c, uint64_t sweep, double probability)
{
    const uint64_t therm = (uint64_t)s->thermalize;
    if (!s->hmc_dt_auto || c->hmc_fixed || sweep >= therm)
        return;
    const double log_dt = log(c->hmc_dt); /* the step this trajectory ran with */
    if (sweep >= therm / 2) {
        c->hmc_log_dt_sum += log_dt;
        c->hmc_prob_sum += probability;
        c->hmc_tuned++;
    }
    if (sweep + 1 == therm) {
        set_step(s, c, exp(c->hmc_log_dt_sum / (double)c->hmc_tuned));
        return;
    }
    set_step(s, c, exp(log_dt + tune_gain / sqrt((double)sweep + 1.0) *
                                    (probability - s->hmc_acceptance)));
}

void mcfi_hmc_tune_report(const mcf_run *r, const mcf_chain *c)
{
    const mcf_setup *s = r->setup;
    if (!s->hmc || !s->hmc_dt_auto)
        return;
    char where[640];
    mcfi_chain_where(r, c->index, where, sizeof where);
    if (c->hmc_fixed) {
        mcf_log(MCF_LOG_INFO, "hmc_dt = auto: %s: %ld steps of %.5g (resumed from a "
                "checkpoint written before hmc_dt = auto: the old default step, not tuned)",
                where, c->hmc_steps, c->hmc_dt);
        return;
    }
    if (s->thermalize == 0) {
        if (c->index == 0)
            mcf_log(MCF_LOG_WARN, "%s: [run] hmc_dt = auto with [schedule] thermalize = 0: "
                    "nothing to tune the step on, each chain keeps the start guess "
                    "%s (512 / N)^(1/4); give thermalize > 0 (or a number for hmc_dt)",
                    s->config_path, s->hmc_integrator == MCFI_HMC_OMELYAN ? "0.1" : "0.05");
        mcf_log(MCF_LOG_INFO, "hmc_dt = auto: %s: %ld steps of %.5g (the start guess)", where,
                c->hmc_steps, c->hmc_dt);
        return;
    }
    mcf_log(MCF_LOG_INFO, "hmc_dt = auto: %s: tuned to %ld steps of %.5g (length %.4g); "
            "Metropolis probability %.3f over the last %llu thermalization trajectories "
            "(target %.3g)", where, c->hmc_steps, c->hmc_dt, (double)c->hmc_steps * c->hmc_dt,
            c->hmc_tuned ? c->hmc_prob_sum / (double)c->hmc_tuned : NAN,
            (unsigned long long)c->hmc_tuned, s->hmc_acceptance);
}

int mcfi_hmc_tune_save(const mcf_setup *s, const mcf_chain *c, mcf_stream *out)
{
    if (!s->hmc || !s->hmc_dt_auto)
        return MCF_OK;
    const double d[3] = {c->hmc_dt, c->hmc_log_dt_sum, c->hmc_prob_sum};
    const uint64_t u[3] = {(uint64_t)c->hmc_steps, c->hmc_tuned, (uint64_t)c->hmc_fixed};
    int rc = mcf_stream_write(out, d, sizeof d);
    return rc ? rc : mcf_stream_write(out, u, sizeof u);
}

int mcfi_hmc_tune_load(const mcf_setup *s, mcf_chain *c, mcf_stream *in, size_t size)
{
    if (size == 0) {
        /* written before hmc_dt = auto existed: the run used hmc_dt's old default */
        c->hmc_dt = 0.05;
        c->hmc_steps = s->hmc_steps;
        c->hmc_fixed = 1;
        if (c->index == 0)
            mcf_log(MCF_LOG_INFO, "hmc_dt = auto: the checkpoint was written before hmc_dt = "
                    "auto existed: every chain keeps the step that run had, %ld steps of 0.05 "
                    "(hmc_dt's old default), not tuned", c->hmc_steps);
        return MCF_OK;
    }
    double d[3];
    uint64_t u[3];
    int rc = mcf_stream_read(in, d, sizeof d);
    if (!rc)
        rc = mcf_stream_read(in, u, sizeof u);
    if (rc)
        return rc;
    if (!(d[0] > 0.0) || !isfinite(d[0]) || u[0] < 1 || (!u[2] && u[0] > (uint64_t)max_steps) ||
        u[2] > 1 || !isfinite(d[1]) || !isfinite(d[2]))
        return mcf_fail(MCF_EFORMAT, "hmc_dt = auto: the tuned step %g and %llu steps are "
                        "out of range", d[0], (unsigned long long)u[0]);
    c->hmc_dt = d[0];
    c->hmc_log_dt_sum = d[1];
    c->hmc_prob_sum = d[2];
    c->hmc_steps = (long)u[0];
    c->hmc_tuned = u[1];
    c->hmc_fixed = (int)u[2];
    return MCF_OK;
}
