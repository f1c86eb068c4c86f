/* hmc_tune.c — [run] hmc_dt = auto: each chain's HMC step, tuned during thermalization.
 *
 * The energy error of a trajectory grows as N dt^4 (N coordinates, a second-order
 * integrator), so one step is wrong for most lattices.  Chain c starts from
 * dt = 0.05 (512 / N)^(1/4) (N = c->units: 0.05 is right at 8^3; twice that for omelyan)
 * and after every thermalization trajectory moves
 *
 *     log dt += b / sqrt(c) * (min(1, e^{-dH}) - hmc_acceptance),
 *
 * the trajectory's own Metropolis probability (its mean is the acceptance, with less noise
 * than the 0/1 decision); a stochastic approximation whose fixed point is the step whose
 * expected acceptance is the target.  Its gain falls with c = 1 + the number of sign changes
 * of (probability - target) so far (Kesten's rule, 1958: while the step is far off, the
 * errors keep their sign and the gain stays), not with the trajectory's index: the first
 * trajectories from a random start are rejected whatever the step (the field is far from
 * equilibrium) and shrink it, and a gain that had decayed meanwhile could not bring it back
 * (omelyan at 32^3 stayed at 0.019 through 24 trajectories, where ~0.05 was the target's
 * step, with a Metropolis probability of 0.96).  In the first half of
 * thermalization only, a step too small grows faster: b = 2^min(r/3, 3) when this and the
 * r >= 1 errors before it were all positive, else 1.  Kesten's c counts the errors before
 * the current one (its own sign does not set its gain); the boost also looks at the current
 * sign (upward only), but acts in the first half alone: the second half, whose mean is the
 * frozen step, runs with b = 1 and c from past errors, so the fixed point stays exact.
 * (tests/unit/test_hmc_tune.c, on Gaussian dH ~ N(mu, 2 mu), mu ~ dt^4, 400 chains: from a
 * step 30x too small and 5 rejected trajectories, 60 trajectories freeze at 0.983 of the
 * target step; from the right one, 800 give the mean acceptance 0.7990 +- 0.0005.)
 * The last thermalization sweep freezes dt at the mean
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
static double start_scale(const mcf_setup *s)
{
    return s->hmc_integrator == MCFI_HMC_OMELYAN ? 0.1 : 0.05;
}

static double start_guess(const mcf_setup *s, const mcf_chain *c)
{
    return start_scale(s) * pow(512.0 / (double)c->units, 0.25);
}

void mcfi_hmc_tune_start(const mcf_setup *s, mcf_chain *c)
{
    c->hmc_log_dt_sum = c->hmc_prob_sum = 0.0;
    c->hmc_tuned = 0;
    c->hmc_fixed = 0;
    c->hmc_sign_changes = 1;
    c->hmc_last_sign = 0;
    c->hmc_run = 0;
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
    const double e = probability - s->hmc_acceptance;
    const int sign = e > 0.0 ? 1 : -1;
    double boost = 1.0; /* a step too small, in the first half: 2^min(r/3, 3) */
    if (sweep < therm / 2 && sign > 0 && c->hmc_last_sign > 0)
        boost = ldexp(1.0, (int)(c->hmc_run / 3 < 3 ? c->hmc_run / 3 : 3));
    const double gain = tune_gain * boost / sqrt((double)c->hmc_sign_changes);
    if (c->hmc_last_sign && sign != c->hmc_last_sign) {
        c->hmc_sign_changes++;
        c->hmc_run = 1;
    } else {
        c->hmc_run++;
    }
    c->hmc_last_sign = sign;
    set_step(s, c, exp(log_dt + gain * e));
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
                    "%g (512 / N)^(1/4); give thermalize > 0 (or a number for hmc_dt)",
                    s->config_path, start_scale(s));
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
    const uint64_t u[6] = {(uint64_t)c->hmc_steps, c->hmc_tuned, (uint64_t)c->hmc_fixed,
                           c->hmc_sign_changes, (uint64_t)(c->hmc_last_sign + 1), c->hmc_run};
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
    /* 3 doubles and 6 words; a checkpoint of mcf 1.1.0 (the gain by the trajectory's index)
     * has 3 words: its run tunes on with the gain rule above from one sign change */
    double d[3];
    uint64_t u[6] = {0, 0, 0, 1, 1, 0};
    const size_t words = size == MCFI_HMC_TUNE_BYTES_110 ? 3 : 6;
    if (size != sizeof d + words * sizeof(uint64_t))
        return mcf_fail(MCF_EFORMAT, "hmc_dt = auto: the tuning's record has %zu bytes, not "
                        "%zu", size, sizeof d + 6 * sizeof(uint64_t));
    int rc = mcf_stream_read(in, d, sizeof d);
    if (!rc)
        rc = mcf_stream_read(in, u, words * sizeof(uint64_t));
    if (rc)
        return rc;
    if (u[3] < 1 || u[4] > 2)
        return mcf_fail(MCF_EFORMAT, "hmc_dt = auto: the tuner's gain state (%llu sign "
                        "changes, sign %lld) is out of range", (unsigned long long)u[3],
                        (long long)u[4] - 1);
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
    c->hmc_sign_changes = u[3];
    c->hmc_last_sign = (int)u[4] - 1;
    c->hmc_run = u[5];
    return MCF_OK;
}
