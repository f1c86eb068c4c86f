/* test_dmc.c — diffusion Monte Carlo ([run] method = dmc: core/engine/dmc.c, the population
 * of fixed size with the comb; the slater-jastrow model's projector op, fixed-node
 * drift-diffusion) against exact results (issue 46).
 *
 * (a) The free gas (interaction = none) without a Jastrow factor: the determinant is the
 *     exact ground state, the local energy the same at every point, so every weight is the
 *     same and DMC gives the exact energy with zero variance at any time step (tau = 0.05
 *     here): within 1e-10 (the model's rounding, test_vmc_heg (b)) and results.tsv's
 *     precision; error bar ~0; potential 0.
 * (b) Two electrons of opposite spin (N = 2, r_s = 1, Coulomb, rpa Jastrow): their ground
 *     state has no node, so DMC is exact but for its time step and population; the exact
 *     energy is heg_pair.h's (plane waves to |n| <= 20: converged to ~3e-7, the difference
 *     to |n| <= 14 printed).  At the default time step (0.01) with 256 walkers DMC must
 *     agree within 3 sigma plus the time-step bias bound b = 1e-4 hartree (measured
 *     2026-12-02 with 256 walkers x 80000 sweeps: see docs/methods.md's table; the bias at
 *     0.01 is below it); VMC with the same Jastrow is above the exact energy by more than
 *     5 sigma (so the agreement is the projection's doing, not the trial function's).
 * (c) threads = 1 and threads = 2 give the same results.tsv, byte for byte (each walker
 *     draws from its own stream, the comb from its point's).
 * (d) Refusals: a model without a projector op (ising), walkers = 1, [model] delay = 4
 *     (the model's refusal), series = yes.
 * (e) A run stopped by SIGTERM after its first checkpoint and resumed ends with the
 *     uninterrupted run's bytes (the population's state is in the checkpoint:
 *     checkpoint_dmc.c; the walkers' configurations in their chains' records).
 * (f) [schedule] error_target = energy:0.0015 from 500 measured sweeps of 32 walkers (the
 *     measured sweeps double until the population's energy error meets it with a plateau of
 *     its blocking: 8000 here, 0.00109): met, and the log says so.
 * (g) A list of time steps ([run] timestep = t1, t2, t3: the scan column timestep, a
 *     population each) and its extrapolation (core/engine/timestep_fit.c, timestep.tsv):
 *     the free gas is exact at every time step, so every row and E0 are the exact energy and
 *     E0's error is 0; each row's timestep_effective / acceptance is its own time step and
 *     the acceptance falls as the time step grows (each population moved at its own tau);
 *     two electrons (b) at tau = 0.08, 0.04, 0.02 with 128 walkers x 6000 sweeps (population
 *     bias ~0.05 mHa, (b)'s b covers it): E0 agrees with the exact energy within 3 sigma plus
 *     b, the line's chi2 probability is above 0.001, the acceptance at 0.08 is below 0.02's;
 *     a list of time steps with method = sample is refused.
 * (h) The population-corrected energy ([run] population_correction, core/engine/
 *     dmc_history.c) on (b)'s pair with a population of 8 at tau = 0.02 (60 000 sweeps,
 *     seed 21), where the plain energy is biased by ~+0.7 mHa (docs/methods.md): the log's
 *     corrected energy agrees with the exact one within 3 sigma plus (b)'s b, the
 *     correction is negative by more than 5 of its own (jackknife) sigma, and the log's
 *     plain energy is results.tsv's.
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_dmc runs (a), (c)-(f) and (g)'s free
 * gas and refusal; test_dmc_long (`--long`, label long: skipped, 77, unless MCF_TEST_LONG=1)
 * the statistical comparisons (b), (g)'s pair and (h). */
#include "physics_util.h"

#include "heg.h"
#include "heg_pair.h"

static const char *mcf_program;

typedef struct dmc_result {
    double e, e_err, pot, pot_err, var, acc;
    int ok;
} dmc_result;

static dmc_result run(const char *name, const char *run_keys, const char *model_keys,
                      long thermalize, long sweeps, unsigned long long seed,
                      const char *schedule_keys)
{
    dmc_result v = {0};
    char sections[2048];
    snprintf(sections, sizeof sections, "evaluator = planewave\n%s[schedule]\nthermalize = "
             "%ld\nsweeps = %ld\n%s[model]\n%s", run_keys, thermalize, sweeps, schedule_keys,
             model_keys);
    phys_table t;
    if (phys_run_mcf(mcf_program, name, "slater-jastrow", seed, sections, &t)) {
        CHECK(0, "%s: the run failed", name);
        return v;
    }
    v.e = phys_get(&t, 0, "energy");
    v.e_err = phys_get(&t, 0, "energy_err");
    v.pot = phys_get(&t, 0, "potential");
    v.pot_err = phys_get(&t, 0, "potential_err");
    v.var = phys_get(&t, 0, "energy_sq") - v.e * v.e;
    v.acc = phys_get(&t, 0, "acceptance");
    v.ok = 1;
    phys_table_free(&t);
    return v;
}

/* (a) */
static void test_free(void)
{
    mcf_heg_hf hf;
    if (mcf_heg_hartree_fock(14, 0, 1.0, 1e-12, &hf)) {
        CHECK(0, "mcf_heg_hartree_fock failed");
        return;
    }
    dmc_result v = run("dmc_free", "walkers = 16\nmethod = dmc\ntimestep = 0.05\n",
                       "electrons = 14\nrs = 1\ninteraction = none\n", 50, 500, 5, "");
    if (!v.ok)
        return;
    const double tol = 1e-10 + 0.5e-9 * fabs(hf.kinetic);
    printf("(a) free gas, N = 14, r_s = 1, tau = 0.05, 16 walkers: E = %.12f +- %.2g (exact "
           "%.12f), var %.2g, acceptance %.4f\n", v.e, v.e_err, hf.kinetic, v.var, v.acc);
    CHECK(fabs(v.e - hf.kinetic) <= tol, "(a) DMC energy %.15g != exact %.15g", v.e,
          hf.kinetic);
    CHECK(v.e_err <= 1e-10 && fabs(v.var) <= 1e-8, "(a) error %g or variance %g is not ~0",
          v.e_err, v.var);
    CHECK(v.pot == 0.0, "(a) potential %g with interaction = none", v.pot);
}

/* (b) */
static void test_pair(void)
{
    mcf_heg_hf hf;
    const double L = cbrt(4.0 / 3.0 * 3.14159265358979323846 * 2.0);
    if (mcf_heg_hartree_fock(2, 0, 1.0, 1e-12, &hf)) {
        CHECK(0, "mcf_heg_hartree_fock(2) failed");
        return;
    }
    /* heg_pair.h's Madelung term is heg.h's */
    CHECK(fabs(hf.madelung - -2.837297479480620 / (2.0 * L)) <= 1e-10 && hf.exchange == 0.0,
          "(b) HF of N = 2: Madelung %.15g per electron, not -2.8372974794806 / (2 L) = %.15g "
          "(exchange %g)", hf.madelung, -2.837297479480620 / (2.0 * L), hf.exchange);
    const double exact = heg_pair_exact(1.0, 20), coarse = heg_pair_exact(1.0, 14);
    const double bias = 1e-4;
    dmc_result d = run("dmc_pair", "walkers = 256\nmethod = dmc\n", "electrons = 2\nrs = 1\n"
                       "jastrow = rpa\n", 1000, 20000, 11, "");
    dmc_result v = run("dmc_pair_vmc", "walkers = 16\n", "electrons = 2\nrs = 1\n"
                       "jastrow = rpa\n", 1000, 20000, 11, "");
    if (!d.ok || !v.ok)
        return;
    printf("(b) N = 2, r_s = 1: exact %.8f (|n| <= 20; |n| <= 14: %.8f), HF %.6f; VMC (rpa) "
           "%.6f +- %.6f; DMC tau = 0.01, 256 walkers: %.6f +- %.6f (%+.2f sigma), acceptance "
           "%.5f\n", exact, coarse, hf.total, v.e, v.e_err, d.e, d.e_err, (d.e - exact) / d.e_err,
           d.acc);
    CHECK(isfinite(exact) && exact <= coarse && coarse - exact < 1e-5,
          "(b) the exact energy did not converge: %.10g (|n| <= 20), %.10g (14)", exact, coarse);
    phys_compare("(b) DMC E/N, N = 2", d.e, d.e_err, exact, 3.0, bias);
    CHECK(v.e - exact > 5.0 * v.e_err, "(b) VMC %.8g +- %.3g is not above the exact %.8g by 5 "
          "sigma", v.e, v.e_err, exact);
}

/* (c) */
static void test_threads(void)
{
    char dir[PHYS_PATH_MAX], ini[PHYS_PATH_MAX], fa[PHYS_PATH_MAX], fb[PHYS_PATH_MAX];
    static char cmd[3 * PHYS_PATH_MAX];
    if (phys_fresh_dir("dmc_threads", dir, sizeof dir)) {
        CHECK(0, "no scratch folder for (c)");
        return;
    }
    for (int th = 1; th <= 2; th++) {
        snprintf(ini, sizeof ini, "%s/t%d.ini", dir, th);
        FILE *f = fopen(ini, "w");
        CHECK(f != NULL, "cannot write %s", ini);
        if (!f)
            return;
        fprintf(f, "[run]\nmodel = slater-jastrow\nevaluator = planewave\nseed = 3\n"
                "walkers = 24\nmethod = dmc\ntimestep = 0.02\nthreads = %d\noutput = %s/t%d\n"
                "[schedule]\nthermalize = 20\nsweeps = 300\n[model]\nelectrons = 2\nrs = 2\n"
                "jastrow = rpa\n", th, dir, th);
        fclose(f);
        snprintf(cmd, sizeof cmd, "'%s' run '%s' --no-progress > '%s/t%d.log' 2>&1",
                 mcf_program, ini, dir, th);
        CHECK(system(cmd) == 0, "`%s` failed", cmd);
    }
    snprintf(fa, sizeof fa, "%s/t1/results.tsv", dir);
    snprintf(fb, sizeof fb, "%s/t2/results.tsv", dir);
    const int same = phys_same_file(fa, fb);
    printf("(c) threads = 1 and 2: the same results.tsv: %s\n", same ? "yes" : "NO");
    CHECK(same, "(c) DMC results depend on the threads: %s, %s", fa, fb);
}

/* (d) */
static void test_refusals(void)
{
    phys_expect_refusal(mcf_program, "dmc_ising", "ising",
                        "method = dmc\nwalkers = 4\n[model]\nL = 4\n",
                        (const char *const[]){"method = dmc", "ising", "projector", NULL});
    const struct {
        const char *name, *sections, *needles[3];
    } cases[] = {
        {"dmc_walkers1", "evaluator = planewave\nmethod = dmc\n[model]\nelectrons = 2\n",
         {"method = dmc", "walkers >= 2", NULL}},
        {"dmc_delay", "evaluator = planewave\nmethod = dmc\nwalkers = 4\n[model]\ndelay = 4\n",
         {"delay = 0 or 1", "method = dmc", NULL}},
        {"dmc_series", "evaluator = planewave\nmethod = dmc\nwalkers = 4\nseries = yes\n",
         {"series = no", NULL, NULL}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        phys_expect_refusal(mcf_program, cases[k].name, "slater-jastrow", cases[k].sections,
                            cases[k].needles);
}

/* (e) */
static void test_resume(void)
{
    const int same = phys_resume_same(
        mcf_program, "dmc_resume",
        "model = slater-jastrow\nevaluator = planewave\nseed = 9\nwalkers = 32\n"
        "method = dmc\ntimestep = 0.02\n",
        "[schedule]\nthermalize = 50\nsweeps = 3000\ncheckpoint_every = 100\n"
        "[model]\nelectrons = 14\nrs = 2\njastrow = rpa\n");
    printf("(e) DMC stopped by SIGTERM and resumed = uninterrupted, byte for byte: %s\n",
           same ? "yes" : "NO");
}

/* (f) */
static void test_error_target(void)
{
    const double target = 0.0015;
    char sched[128];
    snprintf(sched, sizeof sched, "error_target = energy:%g\n", target);
    dmc_result d = run("dmc_target", "walkers = 32\nmethod = dmc\ntimestep = 0.02\n",
                       "electrons = 2\nrs = 1\njastrow = rpa\n", 200, 500, 5, sched);
    if (!d.ok)
        return;
    const int met = phys_file_has("dmc_target", "out/log", "error target met", NULL);
    printf("(f) error_target = energy:%g from 500 measured sweeps: energy_err %.6f, met: %s\n",
           target, d.e_err, met ? "yes" : "NO");
    CHECK(met && d.e_err <= target, "(f) DMC's error target: energy_err %g (target %g), "
          "the log %s it met", d.e_err, target, met ? "says" : "does not say");
}

/* (g): the run `name`'s rows, checked for their own time steps; its timestep.tsv into *fit */
static int timestep_rows(const char *name, const phys_table *t, const double *tau, size_t n,
                         phys_table *fit)
{
    int ok = t->nrows == n;
    for (size_t i = 0; ok && i < n; i++) {
        const double step = phys_get(t, i, "timestep"), acc = phys_get(t, i, "acceptance"),
                     eff = phys_get(t, i, "timestep_effective");
        ok &= step == tau[i] && fabs(eff / acc - tau[i]) <= 1e-9 * tau[i];
        printf("(g) %s: timestep %g: energy %.8f +- %.2g, acceptance %.6f\n", name, step,
               phys_get(t, i, "energy"), phys_get(t, i, "energy_err"), acc);
    }
    CHECK(ok, "(g) %s: the rows are not the %zu time steps, each with timestep_effective = "
          "timestep x acceptance", name, n);
    char path[PHYS_PATH_MAX];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/%s/out/timestep.tsv", tmp ? tmp : ".", name);
    if (phys_read_table(path, fit)) {
        CHECK(0, "(g) %s: no timestep.tsv", name);
        return 0;
    }
    CHECK(fit->nrows == 1 && phys_get(fit, 0, "timesteps") == (double)n,
          "(g) %s: timestep.tsv has %zu rows", name, fit->nrows);
    if (ok && fit->nrows == 1)
        return 1;
    phys_table_free(fit);
    return 0;
}

/* (g): runs `name` (slater-jastrow with planewave, DMC over the time steps tau: `keys` gives
 * walkers, timestep, [schedule] and [model]) and reads results.tsv into t and timestep.tsv
 * into fit; 1 when both are there and the rows are the time steps' */
static int timestep_run(const char *name, unsigned long long seed, const char *keys,
                        const double *tau, size_t n, phys_table *t, phys_table *fit)
{
    char sections[1024];
    snprintf(sections, sizeof sections, "evaluator = planewave\nmethod = dmc\n%s", keys);
    if (phys_run_mcf(mcf_program, name, "slater-jastrow", seed, sections, t)) {
        CHECK(0, "(g) %s: the run failed", name);
        return 0;
    }
    if (timestep_rows(name, t, tau, n, fit))
        return 1;
    phys_table_free(t);
    return 0;
}

/* (g), the free gas (exact at every time step) and the refusal */
static void test_timesteps(void)
{
    mcf_heg_hf hf;
    if (mcf_heg_hartree_fock(14, 0, 1.0, 1e-12, &hf)) {
        CHECK(0, "mcf_heg_hartree_fock failed");
        return;
    }
    const double tau_free[3] = {0.1, 0.05, 0.025};
    phys_table t, fit;
    if (timestep_run("dmc_steps_free", 5, "walkers = 16\ntimestep = 0.1, 0.05, 0.025\n"
                     "[schedule]\nthermalize = 50\nsweeps = 300\n[model]\nelectrons = 14\n"
                     "rs = 1\ninteraction = none\n", tau_free, 3, &t, &fit)) {
        const double tol = 1e-10 + 0.5e-9 * fabs(hf.kinetic), e0 = phys_get(&fit, 0, "energy_0");
        int exact = fabs(e0 - hf.kinetic) <= tol && phys_get(&fit, 0, "energy_0_err") == 0.0;
        for (size_t i = 0; i < 3; i++)
            exact &= fabs(phys_get(&t, i, "energy") - hf.kinetic) <= tol;
        printf("(g) free gas: E0 %.12f +- %g (exact %.12f)\n", e0,
               phys_get(&fit, 0, "energy_0_err"), hf.kinetic);
        CHECK(exact, "(g) free gas: the rows or E0 = %.15g are not the exact %.15g with error 0",
              e0, hf.kinetic);
        phys_table_free(&fit);
        phys_table_free(&t);
    }
    phys_expect_refusal(mcf_program, "dmc_steps_sample", "slater-jastrow",
                        "evaluator = planewave\nwalkers = 4\ntimestep = 0.1, 0.05\n[model]\n"
                        "electrons = 2\n",
                        (const char *const[]){"timestep", "method = dmc", NULL});
}

/* (g), the pair: its extrapolation against the exact energy */
static void test_timesteps_pair(void)
{
    const double tau_pair[3] = {0.08, 0.04, 0.02};
    phys_table t, fit;
    if (timestep_run("dmc_steps_pair", 21, "walkers = 128\ntimestep = 0.08, 0.04, 0.02\n"
                     "[schedule]\nthermalize = 500\nsweeps = 6000\n[model]\nelectrons = 2\n"
                     "rs = 1\njastrow = rpa\n", tau_pair, 3, &t, &fit)) {
        const double exact = heg_pair_exact(1.0, 20), p = phys_get(&fit, 0, "p_value");
        const double a0 = phys_get(&t, 0, "acceptance"), a2 = phys_get(&t, 2, "acceptance");
        printf("(g) pair: E0 %.6f +- %.6f (line; chi2/dof %.2f, p %.3f), parabola %.6f +- "
               "%.6f; exact %.8f; acceptance %.6f at 0.08, %.6f at 0.02\n",
               phys_get(&fit, 0, "energy_0"), phys_get(&fit, 0, "energy_0_err"),
               phys_get(&fit, 0, "chi2_dof"), p, phys_get(&fit, 0, "energy_0_quadratic"),
               phys_get(&fit, 0, "energy_0_quadratic_err"), exact, a0, a2);
        phys_compare("(g) DMC E0 (tau -> 0), N = 2", phys_get(&fit, 0, "energy_0"),
                     phys_get(&fit, 0, "energy_0_err"), exact, 3.0, 1e-4);
        CHECK(p > 1e-3, "(g) pair: the line's chi2 probability %g", p);
        CHECK(a0 < a2, "(g) pair: acceptance %.6f at tau = 0.08 not below %.6f at 0.02", a0,
              a2);
        phys_table_free(&fit);
        phys_table_free(&t);
    }
}

/* (h) */
static void test_population_correction(void)
{
    const double exact = heg_pair_exact(1.0, 20), bias = 1e-4;
    dmc_result d = run("dmc_pc8", "walkers = 8\nmethod = dmc\ntimestep = 0.02\n",
                       "electrons = 2\nrs = 1\njastrow = rpa\n", 2000, 60000, 21, "");
    char path[PHYS_PATH_MAX], line[1024];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/dmc_pc8/out/log", tmp ? tmp : ".");
    FILE *f = fopen(path, "r");
    double c = NAN, c_err = NAN, diff = NAN, diff_err = NAN, plain = NAN;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "the energy corrected for the population factors");
        const char *is = at ? strstr(at, ") is ") : NULL;
        if (is && sscanf(is, ") is %lf +- %lf in total, %lf +- %lf from the plain %lf", &c,
                         &c_err, &diff, &diff_err, &plain) != 5)
            c = NAN;
    }
    if (f)
        fclose(f);
    CHECK(f && isfinite(c), "(h) no corrected energy in %s", path);
    if (!d.ok || !isfinite(c))
        return;
    printf("(h) pair, 8 walkers, tau = 0.02: plain %.6f +- %.6f, corrected %.6f +- %.6f per "
           "electron (exact %.6f); correction %.3f +- %.3f mHa\n", d.e, d.e_err, c / 2,
           c_err / 2, exact, 1e3 * diff / 2, 1e3 * diff_err / 2);
    phys_compare("(h) population-corrected E/N, 8 walkers", c / 2, c_err / 2, exact, 3.0, bias);
    CHECK(diff < -5.0 * diff_err, "(h) the correction %g +- %g is not negative by 5 sigma",
          diff, diff_err);
    CHECK(fabs(plain / 2 - d.e) <= 1e-7 * fabs(d.e), "(h) the log's plain energy %.10g / 2 is "
          "not results.tsv's %.10g", plain, d.e);
}

int main(int argc, char **argv)
{
    const int long_part = phys_tier(argc, argv, "(b), (g)'s pair, (h)");
    if (long_part > 1)
        return long_part;
    mcf_program = argv[1];
    const double t0 = phys_now();
    if (!long_part) {
        test_free();
        test_threads();
        test_refusals();
        test_resume();
        test_error_target();
        test_timesteps();
    } else {
        test_pair();
        test_timesteps_pair();
        test_population_correction();
    }
    printf("test_dmc%s: %.1f s\n", long_part ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
