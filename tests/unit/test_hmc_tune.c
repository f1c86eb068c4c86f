/* test_hmc_tune.c — hmc_dt = auto's tuner (core/engine/hmc_tune.c) on a model of its input:
 * for a second-order integrator on a large system the energy error of a trajectory is
 * Gaussian, dH ~ N(mu, 2 mu) (Creutz's <e^{-dH}> = 1 fixes the variance), with mu growing as
 * dt^4, and the expected Metropolis probability <min(1, e^{-dH})> = erfc(sqrt(mu) / 2).  So
 * mu(dt) = mu* (dt / d*)^4 with erfc(sqrt(mu*) / 2) = 0.8 makes d* the step whose acceptance
 * is the target 0.8, and each trajectory's probability is drawn from that law.
 *  (a) no bias: from d*, 800 thermalization trajectories, 400 chains: the mean of the exact
 *      acceptance at the frozen steps is 0.8 within 3 standard errors of that mean (the
 *      spread of the chains' own acceptances over sqrt(400));
 *  (b) recovery: from d* / 30 with the first 5 trajectories rejected (a field far from
 *      equilibrium: rejected whatever the step), 60 trajectories: the median frozen step
 *      within 10 % of d* and 95 % of the chains within 30 % (a gain falling with the
 *      trajectory's index, the tuner of mcf 1.1.0, ends at 0.014 d*);
 *  (c) a step too long (30 d*, every trajectory rejected at first): the same bounds;
 *  (d) the frozen step and its steps per trajectory obey hmc_length (steps x dt ~ 1);
 *  (e) the checkpoint's record: 72 bytes that give back every field, mcf 1.1.0's 48 bytes
 *      (no gain state) that load with a fresh gain, any other size refused. */
#include "check.h"

#include "hmc.h"
#include "mcf/host.h"
#include "mcf/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHAINS 400

static const double target = 0.8;

/* mu* with erfc(sqrt(mu*) / 2) = target, by bisection */
static double mu_star(void)
{
    double lo = 0.0, hi = 10.0;
    for (int k = 0; k < 200; k++) {
        const double mid = 0.5 * (lo + hi);
        if (erfc(sqrt(mid) / 2.0) > target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static double acceptance(double dt, double dstar, double ms)
{
    const double mu = ms * pow(dt / dstar, 4.0);
    return erfc(sqrt(mu) / 2.0);
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* CHAINS chains tuned over `therm` trajectories, the first `rejected` of them rejected;
 * d* = factor x the start guess; the frozen steps over d* into ratio[] */
static void tune(long therm, double factor, int rejected, double ms, double *ratio,
                 double *acc_mean, double *acc_sd)
{
    mcf_setup s;
    memset(&s, 0, sizeof s);
    s.hmc = 1;
    s.hmc_dt_auto = 1;
    s.hmc_length = 1.0;
    s.hmc_acceptance = target;
    s.thermalize = therm;
    s.hmc_integrator = MCFI_HMC_LEAPFROG;
    double sum = 0.0, sum2 = 0.0;
    for (size_t k = 0; k < CHAINS; k++) {
        mcf_chain c;
        memset(&c, 0, sizeof c);
        c.units = 32768; /* start guess 0.05 (512 / N)^(1/4) = 0.0177 */
        mcfi_hmc_tune_start(&s, &c);
        const double dstar = factor * c.hmc_dt;
        mcf_rng rng;
        mcf_rng_init(&rng, 20261129, k);
        for (long sweep = 0; sweep < therm; sweep++) {
            const double mu = ms * pow(c.hmc_dt / dstar, 4.0);
            const double dH = mu + sqrt(2.0 * mu) * mcf_rng_normal(&rng);
            const double p = sweep < rejected ? 0.0 : dH <= 0.0 ? 1.0 : exp(-dH);
            mcfi_hmc_tune(&s, &c, (uint64_t)sweep, p);
        }
        ratio[k] = c.hmc_dt / dstar;
        const double a = acceptance(c.hmc_dt, dstar, ms);
        sum += a;
        sum2 += a * a;
        if (k == 0)
            CHECK(fabs((double)c.hmc_steps * c.hmc_dt - 1.0) <= c.hmc_dt,
                  "(d) %ld steps of %g: the length %g is not hmc_length 1 within a step",
                  c.hmc_steps, c.hmc_dt, (double)c.hmc_steps * c.hmc_dt);
    }
    *acc_mean = sum / CHAINS;
    *acc_sd = sqrt(fmax(sum2 / CHAINS - *acc_mean * *acc_mean, 0.0));
    qsort(ratio, CHAINS, sizeof *ratio, cmp);
}

static void recovery(const char *what, long therm, double factor, int rejected, double ms)
{
    double ratio[CHAINS], am, as;
    tune(therm, factor, rejected, ms, ratio, &am, &as);
    size_t within = 0;
    for (size_t k = 0; k < CHAINS; k++)
        within += fabs(log(ratio[k])) <= log(1.3);
    const double median = 0.5 * (ratio[CHAINS / 2 - 1] + ratio[CHAINS / 2]);
    printf("%s: median frozen step %.3f d*, %zu of %d chains within 30 %%, mean acceptance "
           "%.4f\n", what, median, within, CHAINS, am);
    CHECK(fabs(median - 1.0) <= 0.1, "%s: the median frozen step is %.3f d*", what, median);
    CHECK(within >= (size_t)(0.95 * CHAINS), "%s: %zu of %d chains within 30 %% of d*", what,
          within, CHAINS);
}

/* (e) the tuning's checkpoint record */
static void record(void)
{
    mcf_setup s;
    memset(&s, 0, sizeof s);
    s.hmc = s.hmc_dt_auto = 1;
    s.hmc_length = 1.0;
    s.hmc_acceptance = target;
    s.thermalize = 100;
    mcf_chain a, b;
    memset(&a, 0, sizeof a);
    a.units = 512;
    mcfi_hmc_tune_start(&s, &a);
    for (uint64_t k = 0; k < 60; k++) /* into the second half: sums, signs, a run */
        mcfi_hmc_tune(&s, &a, k, k % 5 == 4 ? 0.2 : 0.95);
    mcf_stream w;
    mcf_stream_init_writer(&w);
    CHECK(mcfi_hmc_tune_save(&s, &a, &w) == MCF_OK && w.size == MCFI_HMC_TUNE_BYTES,
          "(e) the record has %zu bytes, want %d", w.size, (int)MCFI_HMC_TUNE_BYTES);
    mcf_stream r;
    mcf_stream_init_reader(&r, w.data, w.size);
    memset(&b, 0, sizeof b);
    CHECK(mcfi_hmc_tune_load(&s, &b, &r, w.size) == MCF_OK && b.hmc_dt == a.hmc_dt &&
              b.hmc_steps == a.hmc_steps && b.hmc_log_dt_sum == a.hmc_log_dt_sum &&
              b.hmc_prob_sum == a.hmc_prob_sum && b.hmc_tuned == a.hmc_tuned &&
              b.hmc_sign_changes == a.hmc_sign_changes && b.hmc_last_sign == a.hmc_last_sign &&
              b.hmc_run == a.hmc_run && a.hmc_sign_changes > 1,
          "(e) the 72-byte record does not give every field back (%llu sign changes)",
          (unsigned long long)a.hmc_sign_changes);
    /* mcf 1.1.0: dt, the two sums, then steps, tuned, fixed */
    const double d[3] = {0.04, -30.0, 25.0};
    const uint64_t u[3] = {25, 10, 0};
    unsigned char old[48];
    memcpy(old, d, sizeof d);
    memcpy(old + sizeof d, u, sizeof u);
    mcf_stream_init_reader(&r, old, sizeof old);
    memset(&b, 0, sizeof b);
    CHECK(mcfi_hmc_tune_load(&s, &b, &r, sizeof old) == MCF_OK && b.hmc_dt == 0.04 &&
              b.hmc_steps == 25 && b.hmc_tuned == 10 && b.hmc_log_dt_sum == -30.0 &&
              b.hmc_sign_changes == 1 && b.hmc_last_sign == 0 && b.hmc_run == 0,
          "(e) mcf 1.1.0's 48-byte record does not load with a fresh gain");
    mcf_stream_init_reader(&r, w.data, 56);
    CHECK(mcfi_hmc_tune_load(&s, &b, &r, 56) == MCF_EFORMAT, "(e) a 56-byte record loaded");
    mcf_stream_release(&w);
}

int main(void)
{
    record();
    const double ms = mu_star();
    printf("mu* = %.6f (erfc(sqrt(mu*)/2) = %.6f)\n", ms, erfc(sqrt(ms) / 2.0));

    double ratio[CHAINS], am, as;
    tune(800, 1.0, 0, ms, ratio, &am, &as);
    const double se = as / sqrt((double)CHAINS);
    printf("(a) from d*, 800 trajectories: mean acceptance %.5f, spread %.4f, standard error "
           "%.5f\n", am, as, se);
    CHECK(fabs(am - target) <= 3.0 * se, "(a) the mean acceptance %.5f is not %.2f within 3 "
          "standard errors (%.5f)", am, target, 3.0 * se);

    recovery("(b) from d* / 30, 5 rejected, 60 trajectories", 60, 30.0, 5, ms);
    recovery("(c) from 30 d*, 60 trajectories", 60, 1.0 / 30.0, 0, ms);
    return check_exit();
}
