/* core_keys.c — the core's own keys, [run] and [schedule]: their declarations (the same
 * mcf_param_spec tables a plugin declares, checked by section.c), the temperature axis of
 * [schedule] temperatures, and reading the checked values into the run setup by key name
 * through the getters of mcf/params.h, as a plugin reads its own section.  Plugin sections
 * and the order of the whole check are setup.c's. */
#define _POSIX_C_SOURCE 200809L
#include "setup.h"
#include "error_target.h"
#include "dmc.h"
#include "hmc.h"
#include "model_ops.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const mcf_param_spec run_specs[] = {
    {"model", MCF_PARAM_STRING, NULL, MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "the model plugin (see `mcf plugins`)"},
    {"evaluator", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "the evaluator plugin, none, or auto: the fastest usable evaluator of the kind the "
     "model takes (a GPU plugin when a device is present, else the CPU one); the log says "
     "which and why"},
    {"seed", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "the run's seed: chain k uses random stream (seed, k)"},
    {"output", MCF_PARAM_STRING, NULL, MCF_PARAM_NO_SCAN | MCF_PARAM_OPTIONAL_, 0, 0, NULL,
     .doc = "output folder (default: the config's name with .out)"},
    {"threads", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "worker threads; 0 = all cores (results do not depend on it)"},
    /* added after runs were checkpointed: at its default, config.ini (and with it the
     * checkpoint's configuration hash) stays as it was before the key existed */
    {"walkers", MCF_PARAM_INT, "1",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 1, 0, NULL,
     .doc = "independent chains (walkers) per scan point, combined into one row of results.tsv; "
     "chain point * walkers + w uses stream (seed, point * walkers + w)"},
    {"extra_observables", MCF_PARAM_STRING, NULL, MCF_PARAM_NO_SCAN | MCF_PARAM_OPTIONAL_, 0,
     0, NULL,
     .doc = "observables the model measures on request only (`mcf describe MODEL`: \"on "
     "request\"), space-separated, e.g. m2_kmin (and with it the column xi_over_l)"},
    {"series", MCF_PARAM_CHOICE, "no",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "no|yes",
     .doc = "yes: every measurement's scalar observables, per chain, in DIR/series/ (float64 "
     "records; index.tsv names the columns), for reweighting (`mcf tc`)"},
    /* config.ini as used names the sampler that ran: hmc, or no key for local, the meaning
     * of no key before auto existed (sampler_auto.c) */
    {"sampler", MCF_PARAM_CHOICE, "auto", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     "auto|local|hmc",
     .doc = "local: the model's moves, a sweep of Metropolis decisions; hmc: hybrid Monte Carlo, "
     "a sweep is one trajectory moving every coordinate at once, accepted with the exact "
     "weight (a model with coordinates and global_action, mcf 1.1; docs/methods.md); auto: "
     "hmc where the model has coordinates, its fermion evaluator the pseudofermion form and "
     "the lattice hmc_min_sites sites or more, else local (the log says which and why)"},
    {"method", MCF_PARAM_CHOICE, "sample", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     "sample|dmc",
     .doc = "sample: Markov chains of the model's weight (every walker on its own); dmc: "
     "diffusion Monte Carlo, the walkers of a scan point one population of fixed size, "
     "moved by the model's fixed-node drift-diffusion at time step `timestep`, weighted by "
     "exp(-tau (E_L - E_T)) and resampled by a comb every sweep (a model with a projector "
     "op: slater-jastrow; docs/methods.md)"},
    /* checked a second time as timestep_spec (a list: the time-step axis) */
    {"timestep", MCF_PARAM_REAL, "0.01", MCF_PARAM_SKIP_ | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL,
     .doc = "method = dmc: the time step tau, in the inverse unit of the model's energy "
     "(hartree^-1 for slater-jastrow); the energy's time-step error is O(tau).  A list (0.04, "
     "0.02, 0.01) or linspace scans it, each time step a population of its own, and the run "
     "fits E(tau) = E0 + a tau to the energies and writes E0 with its error (timestep.tsv; "
     "docs/methods.md)"},
    {"population_correction", MCF_PARAM_REAL, "1",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "method = dmc: the imaginary time T (the time step's unit) over which the energy "
     "is corrected for the population-control factors that a population of fixed size drops "
     "(Umrigar, Nightingale and Runge 1993: each step weighted by the product of the mean "
     "weights of the last T / tau steps); the log gives the corrected energy beside the plain "
     "one and warns when they differ by more than 2 sigma and half the error bar (too few "
     "walkers); 0: off"},
    {"hmc_steps", MCF_PARAM_INT, "10",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 1, 0, NULL,
     .doc = "sampler = hmc: integrator steps per trajectory (the trajectory is hmc_steps x "
     "hmc_dt long)"},
    /* a number is the step of every chain, as before auto existed; its default was 0.05,
     * which an old run's checkpoint without the tuned steps still resumes with
     * (hmc_tune.c) */
    {"hmc_dt", MCF_PARAM_STRING, "auto", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL,
     .doc = "sampler = hmc: the integrator's step (in the units of the coordinates' conjugate "
     "momenta, unit Gaussians; the acceptance falls as the energy error grows ~ N dt^4), or "
     "auto: each chain's own step, tuned during the thermalization sweeps toward "
     "hmc_acceptance and frozen for the measured ones, with hmc_steps = ceil(hmc_length / dt) "
     "(docs/methods.md)"},
    {"hmc_length", MCF_PARAM_REAL, "1",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_FINITE |
         MCF_PARAM_ECHO_IF_CHANGED,
     0, 0, NULL,
     .doc = "sampler = hmc, hmc_dt = auto: the trajectory's length (steps x dt; hmc_steps is "
     "then derived per chain)"},
    {"hmc_acceptance", MCF_PARAM_REAL, "0.8",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED | MCF_PARAM_MIN_EXCLUSIVE |
         MCF_PARAM_MAX_EXCLUSIVE | MCF_PARAM_RANGE(0, 1),
     NULL,
     .doc = "sampler = hmc, hmc_dt = auto: the acceptance the step is tuned toward"},
    {"hmc_integrator", MCF_PARAM_CHOICE, "leapfrog",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "leapfrog|omelyan",
     .doc = "sampler = hmc: leapfrog (one gradient a step) or omelyan (Omelyan-Mryglod-Folk's "
     "minimum-norm scheme: two gradients a step, a smaller energy error; docs/methods.md)"},
    {"hmc_min_sites", MCF_PARAM_INT, "512",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 1, 0, NULL,
     .doc = "sampler = auto: the smallest lattice (sites, the model's units) for hmc; a "
     "trajectory and a local sweep cost about the same at 8^3 on the H200, hmc is 6x "
     "cheaper per sweep at 16^3 (docs/benchmarks.md)"},
    {0}};

static const mcf_param_spec schedule_specs[] = {
    {"thermalize", MCF_PARAM_INT, "1000", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "sweeps before measuring"},
    {"sweeps", MCF_PARAM_INT, "10000", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     .doc = "measured sweeps"},
    {"measure_every", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     .doc = "sweeps between measurements"},
    {"checkpoint_every", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0,
     NULL, .doc = "sweeps between checkpoints; 0 = at the end and on SIGINT/SIGTERM only"},
    {"temperatures", MCF_PARAM_REAL, NULL, MCF_PARAM_OPTIONAL_ | MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "temperatures: a list (1.5, 2.0) or a linspace first:last:count"},
    {"bins", MCF_PARAM_INT, "32", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX,
     2, 4096, NULL, .doc = "jackknife bins for derived quantities"},
    {"adapt_every", MCF_PARAM_INT, "100", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     .doc = "thermalization sweeps between step-size adaptations"},
    /* like walkers: runs without tempering keep their checkpoints */
    {"exchange_every", MCF_PARAM_INT, "0",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "parallel tempering: sweeps between replica exchanges of neighbouring temperatures "
     "(chains differing only in T); 0 = off"},
    {"start", MCF_PARAM_CHOICE, "model", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     "model|hot_cold|anneal",
     .doc = "how chains start: model = as [model] says; hot_cold = the walkers of a scan point "
     "alternate between [model] start = random and ordered (walkers >= 2), and the run "
     "warns when they disagree (a chain frozen out of equilibrium); anneal = each chain "
     "takes the configuration the next higher temperature reached after its part of the "
     "thermalization (thermalize is cut into one part per temperature)"},
    {"error_target", MCF_PARAM_STRING, NULL, MCF_PARAM_NO_SCAN | MCF_PARAM_OPTIONAL_, 0, 0,
     NULL,
     .doc = "run until the errors are small enough: NAME:VALUE (absolute: NAME_err <= VALUE) or "
     "NAME:VALUE% (relative: NAME_err <= VALUE/100 |NAME|) for a column of results.tsv "
     "with an error (an observable or specific_heat, susceptibility, binder, variance, "
     "xi_over_l), "
     "several separated by spaces; the measured sweeps double until every scan point "
     "meets every target, or doubling would pass max_sweeps"},
    {"max_sweeps", MCF_PARAM_INT, "0",
     MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "with error_target: the most measured sweeps (sweeps, 2 sweeps, 4 sweeps ... up to "
     "it); 0 = 16 x sweeps"},
    {0}};

/* [schedule] temperatures, checked a second time as the temperature axis: every value
 * (one, or a list or linspace) an axis value named T, each > 0. */
static const mcf_param_spec temperature_spec[] = {
    {"temperatures", MCF_PARAM_REAL, NULL, MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0,
     NULL, .doc = "temperatures"},
    {0}};

/* [run] timestep, checked a second time: one value, or a list or linspace that becomes the
 * time-step axis (mcf_axis section 4), each value > 0 and finite. */
static const mcf_param_spec timestep_spec[] = {
    {"timestep", MCF_PARAM_REAL, "0.01",
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "the DMC time step"},
    {0}};

static char *default_output(const char *config_path)
{
    const char *base = strrchr(config_path, '/');
    base = base ? base + 1 : config_path;
    size_t len = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        len = (size_t)(dot - base);
    char *out = malloc(len + 5);
    if (out) {
        memcpy(out, base, len);
        memcpy(out + len, ".out", 5);
    }
    return out;
}

/* [run] hmc_dt: auto, or a finite step > 0 (0 in s->hmc_dt for auto), and auto's keys */
static int hmc_step(const mcf_params *rp, mcf_setup *s)
{
    const char *text = NULL;
    int rc = mcf_params_string(rp, "hmc_dt", &text);
    if (!rc)
        rc = mcf_params_real(rp, "hmc_length", &s->hmc_length);
    if (!rc)
        rc = mcf_params_real(rp, "hmc_acceptance", &s->hmc_acceptance);
    if (rc)
        return rc;
    s->hmc_dt_auto = strcmp(text, "auto") == 0;
    s->hmc_dt = 0.0;
    if (s->hmc_dt_auto)
        return MCF_OK;
    char *end = NULL;
    errno = 0;
    const double dt = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(dt) || !(dt > 0.0))
        return mcf_fail(MCF_EINVAL, "%s: [run] hmc_dt = %s: the integrator's step is a finite "
                        "number > 0 (e.g. 0.05) or auto (tuned per chain during "
                        "thermalization)", mcf_params_where(rp, "hmc_dt"), text);
    s->hmc_dt = dt;
    return MCF_OK;
}

/* The checked values into s, each by its key's name. */
static int read_values(const mcf_config *c, const mcf_section *run, const mcf_section *sched,
                       mcf_setup *s)
{
    mcf_params rp, sp;
    mcfe_section_params(run, c->path, &rp);
    mcfe_section_params(sched, c->path, &sp);
    const char *model = NULL, *evaluator = NULL, *output = NULL;
    long seed = 0;
    int rc = mcf_params_string(&rp, "model", &model);
    if (!rc)
        rc = mcf_params_string(&rp, "evaluator", &evaluator);
    if (!rc)
        rc = mcf_params_int(&rp, "seed", &seed);
    /* output is optional: no text when not given */
    if (!rc && mcfe_section_text(run, "output"))
        rc = mcf_params_string(&rp, "output", &output);
    const struct {
        const mcf_params *p;
        const char *key;
        long *to;
    } ints[] = {
        {&rp, "threads", &s->threads},
        {&rp, "walkers", &s->walkers},
        {&sp, "thermalize", &s->thermalize},
        {&sp, "sweeps", &s->sweeps},
        {&sp, "measure_every", &s->measure_every},
        {&sp, "checkpoint_every", &s->checkpoint_every},
        {&sp, "bins", &s->bins},
        {&sp, "adapt_every", &s->adapt_every},
        {&sp, "exchange_every", &s->exchange_every},
        {&sp, "max_sweeps", &s->max_sweeps},
    };
    for (size_t k = 0; k < sizeof ints / sizeof *ints && !rc; k++)
        rc = mcf_params_int(ints[k].p, ints[k].key, ints[k].to);
    const char *start = NULL, *series = NULL, *sampler = NULL;
    if (!rc)
        rc = mcf_params_string(&rp, "sampler", &sampler);
    if (!rc)
        rc = mcf_params_int(&rp, "hmc_steps", &s->hmc_steps);
    if (!rc)
        rc = hmc_step(&rp, s);
    const char *integrator = NULL;
    if (!rc)
        rc = mcf_params_string(&rp, "hmc_integrator", &integrator);
    if (!rc)
        rc = mcf_params_int(&rp, "hmc_min_sites", &s->hmc_min_sites);
    const char *method = NULL;
    if (!rc)
        rc = mcf_params_string(&rp, "method", &method);
    if (!rc)
        s->dmc = strcmp(method, "dmc") == 0;
    if (!rc)
        rc = mcf_params_real(&rp, "population_correction", &s->dmc_memory);
    if (!rc) {
        s->hmc = strcmp(sampler, "hmc") == 0;
        s->sampler_auto = strcmp(sampler, "auto") == 0; /* resolved by the run */
        s->hmc_integrator = strcmp(integrator, "omelyan") == 0 ? MCFI_HMC_OMELYAN
                                                               : MCFI_HMC_LEAPFROG;
    }
    if (!rc)
        rc = mcf_params_string(&sp, "start", &start);
    if (!rc)
        rc = mcf_params_string(&rp, "series", &series);
    const char *extra = mcfe_section_text(run, "extra_observables");
    if (!rc && extra && !(s->extra_observables = strdup(extra)))
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (!rc)
        s->series = strcmp(series, "yes") == 0;
    if (rc)
        return rc;
    const char *target = mcfe_section_text(sched, "error_target");
    if (target) {
        char where[512];
        mcfe_config_key_where(c, "schedule", "error_target", where, sizeof where);
        if ((rc = mcfi_error_target_parse(target, where, s)))
            return rc;
    }
    s->start = strcmp(start, "hot_cold") == 0 ? MCFI_START_HOT_COLD
               : strcmp(start, "anneal") == 0 ? MCFI_START_ANNEAL
                                              : MCFI_START_MODEL;
    s->seed = (uint64_t)seed;
    s->model_name = strdup(model);
    s->evaluator_name = strdup(evaluator);
    s->output = output ? strdup(output) : default_output(c->path);
    if (!s->model_name || !s->evaluator_name || !s->output)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    return MCF_OK;
}

/* Every temperature of the axis is finite (a list item may be "inf", which the > 0 check
 * of the declaration lets through): a Boltzmann weight needs 0 < T < inf.  And (issue 42)
 * its T^2 is a normal double: the specific heat divides by T^2 and the susceptibility by T,
 * and a T below ~1.5e-154 or above ~1.3e154 made them NaN or 0 in results.tsv. */
static int check_temperatures_finite(const mcf_config *c, const mcf_axis *a)
{
    for (size_t k = 0; k < a->n; k++) {
        const double T = a->values[k].r;
        const int finite = isfinite(T);
        if (finite && isnormal(T * T) && isfinite(1.0 / (T * T)))
            continue;
        char where[512], why[160];
        if (!finite)
            snprintf(why, sizeof why, "is not finite: a Boltzmann weight needs a finite T > 0; "
                     "fix [schedule] temperatures");
        else
            snprintf(why, sizeof why, "is too %s: 1/T^2 (the specific heat's) is not a finite "
                     "number; give temperatures between 1e-150 and 1e150",
                     T < 1.0 ? "small" : "large");
        return mcf_fail(MCF_EINVAL, "%s: [schedule] temperatures: %s (item %zu) %s",
                        mcfe_config_key_where(c, "schedule", "temperatures", where,
                                              sizeof where),
                        a->values[k].text, k + 1, why);
    }
    return MCF_OK;
}

int mcfi_core_keys_read(mcf_config *c, mcf_section *run, mcf_section *sched, mcf_axis **axes,
                        size_t *n_axes, mcf_setup *s)
{
    int rc = mcfe_section_check(c, "run", run_specs, "[run]", 0, run, axes, n_axes);
    if (!rc)
        rc = mcfe_section_check(c, "schedule", schedule_specs, "[schedule]", 0, sched, axes,
                                n_axes);
    if (rc)
        return rc;
    /* the scanned core keys, re-checked as axes: the time step (before the temperature,
     * which stays the last axis), then the temperatures */
    {
        mcf_section tmp;
        const size_t before = *n_axes;
        rc = mcfe_section_check(c, "run", timestep_spec, "[run]", 4, &tmp, axes, n_axes);
        if (!rc)
            s->dmc_tau = *n_axes > before ? (*axes)[before].values[0].r : tmp.single[0].r;
        mcfe_section_release(&tmp);
        if (rc)
            return rc;
    }
    if (mcfe_section_text(sched, "temperatures")) {
        mcf_section tmp;
        rc = mcfe_section_check(c, "schedule", temperature_spec, "[schedule]", 2, &tmp, axes,
                                n_axes);
        mcfe_section_release(&tmp);
        if (!rc)
            rc = check_temperatures_finite(c, &(*axes)[*n_axes - 1]);
        if (rc)
            return rc;
        s->has_temperature = 1;
    }
    if ((rc = read_values(c, run, sched, s)))
        return rc;
    uint64_t n_meas = (uint64_t)s->sweeps / (uint64_t)s->measure_every;
    if (n_meas > UINT64_MAX / (uint64_t)s->bins) {
        /* a measurement's bin is t * bins / n_meas in 64 bits */
        char where[512];
        return mcf_fail(MCF_EINVAL, "%s: [schedule] sweeps = %ld with measure_every = %ld "
                        "gives %llu measurements, too many to count in %ld bins (at most "
                        "%llu); lower sweeps or raise measure_every",
                        mcfe_config_key_where(c, "schedule", "sweeps", where, sizeof where),
                        s->sweeps, s->measure_every, (unsigned long long)n_meas, s->bins,
                        (unsigned long long)(UINT64_MAX / (uint64_t)s->bins));
    }
    if (s->sweeps / s->measure_every < s->bins) {
        char where[512];
        return mcf_fail(MCF_EINVAL, "%s: [schedule] sweeps = %ld with measure_every = %ld "
                        "gives %ld measurements, fewer than the %ld jackknife bins; raise "
                        "sweeps to at least %ld",
                        mcfe_config_key_where(c, "schedule", "sweeps", where, sizeof where),
                        s->sweeps,
                        s->measure_every, s->sweeps / s->measure_every, s->bins,
                        s->bins * s->measure_every);
    }
    return MCF_OK;
}

/* 1 when choices ("a|b|c") has the word w */
static int has_choice(const char *choices, const char *w)
{
    const size_t n = strlen(w);
    for (const char *q = choices; q && *q; q = strchr(q, '|') ? strchr(q, '|') + 1 : NULL)
        if (strncmp(q, w, n) == 0 && (q[n] == '|' || q[n] == '\0'))
            return 1;
    return 0;
}

/* [schedule] start = anneal: a temperature axis of >= 2 values, a part of thermalization
 * per temperature, no tempering (it moves configurations between temperatures itself), and
 * a model that hands over configurations. */
static int check_anneal(const char *where, const mcf_setup *s)
{
    size_t nT = 0;
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].section == 2)
            nT = s->axes[a].n;
    if (nT < 2)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] start = anneal needs at least two "
                        "temperatures ([schedule] temperatures)", where);
    if (s->thermalize < (long)nT)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] start = anneal cuts thermalize into one "
                        "part per temperature: thermalize = %ld is less than the %zu "
                        "temperatures", where, s->thermalize, nT);
    if (s->exchange_every > 0)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] start = anneal and parallel tempering "
                        "(exchange_every = %ld) both move configurations between "
                        "temperatures; use one", where, s->exchange_every);
    if (!s->model->model->has_anneal)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] start = anneal: model '%s' cannot hand "
                        "its configuration to another chain (no save_configuration and "
                        "load_configuration); use start = model", where, s->model_name);
    return MCF_OK;
}

int mcfi_core_check_start(const mcf_config *c, const mcf_setup *s)
{
    if (s->start == MCFI_START_MODEL)
        return MCF_OK;
    char where[512];
    mcfe_config_key_where(c, "schedule", "start", where, sizeof where);
    if (s->start == MCFI_START_ANNEAL)
        return check_anneal(where, s);
    if (s->walkers < 2)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] start = hot_cold needs [run] walkers >= 2 "
                        "(walkers alternate between a random and an ordered start); walkers "
                        "is %ld", where, s->walkers);
    const mcf_param_spec *p = s->model->info->params;
    for (; p && p->name; p++)
        if (strcmp(p->name, "start") == 0 && p->type == MCF_PARAM_CHOICE &&
            has_choice(p->choices, "random") && has_choice(p->choices, "ordered"))
            return MCF_OK;
    return mcf_fail(MCF_EINVAL, "%s: [schedule] start = hot_cold: model '%s' has no [model] "
                    "start = random | ordered to alternate between; use start = model",
                    where, s->model_name);
}

/* [schedule] exchange_every > 0: tempering needs a temperature axis of >= 2 values (the
 * last axis, so the chains of one tempering group are nT consecutive scan points) and a
 * model with set_temperature and energy or exchange_action. */
int mcfi_core_check_tempering(const mcf_config *c, const mcf_setup *s)
{
    char where[512];
    mcfe_config_key_where(c, "schedule", "exchange_every", where, sizeof where);
    size_t nT = 0;
    if (s->n_axes && s->axes[s->n_axes - 1].section == 2)
        nT = s->axes[s->n_axes - 1].n;
    if (nT < 2)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] exchange_every = %ld: parallel tempering "
                        "exchanges temperatures, but [schedule] temperatures %s; give at least "
                        "two temperatures (a list or first:last:count), or set exchange_every "
                        "= 0", where, s->exchange_every,
                        nT ? "has a single value" : "is not given");
    if (s->model->model->tempering == MCF_TEMPERING_NONE)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] exchange_every = %ld: model '%s' does not "
                        "support parallel tempering (its plugin has no set_temperature with "
                        "energy or exchange_action ops); set exchange_every = 0", where,
                        s->exchange_every,
                        s->model_name);
    return MCF_OK;
}

int mcfi_core_check_extra(const mcf_config *c, const mcf_setup *s)
{
    const mcf_observable *obs = mcfe_model_observables(s->model);
    const char *list = s->extra_observables;
    char where[512], allowed[512] = "";
    for (size_t k = 0; obs[k].name; k++)
        if ((obs[k].flags & MCF_OBS_ON_REQUEST) && !obs[k].axis &&
            strlen(allowed) + strlen(obs[k].name) + 2 < sizeof allowed)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                     allowed[0] ? ", " : "", obs[k].name);
    for (const char *p = list; p && *p;) {
        p += strspn(p, " ,\t");
        const size_t w = strcspn(p, " ,\t");
        int found = 0;
        for (size_t k = 0; w && obs[k].name && !found; k++)
            found = (obs[k].flags & MCF_OBS_ON_REQUEST) && !obs[k].axis &&
                    strlen(obs[k].name) == w && !strncmp(p, obs[k].name, w);
        if (w && !found) {
            mcfe_config_key_where(c, "run", "extra_observables", where, sizeof where);
            return mcf_fail(MCF_EINVAL, "%s: [run] extra_observables: model '%s' has no "
                            "observable '%.*s' measured on request; it has: %s", where,
                            s->model_name, (int)w, p, allowed[0] ? allowed : "none");
        }
        p += w;
    }
    return MCF_OK;
}

/* [run] method = dmc: a model with a projector op and a configuration record, an energy,
 * a population of two walkers or more, and nothing that moves or records chains apart */
int mcfi_core_check_method(const mcf_config *c, const mcf_setup *s)
{
    char where[512];
    if (!s->dmc) {
        const long a = mcfi_timestep_axis(s);
        if (a >= 0)
            return mcf_fail(MCF_EINVAL, "%s: [run] timestep: a list of %zu time steps needs "
                            "method = dmc (method = sample takes no time step)",
                            mcfe_config_key_where(c, "run", "timestep", where, sizeof where),
                            s->axes[a].n);
        return MCF_OK;
    }
    const mcfi_model *m = s->model->model;
    int energy = 0;
    for (size_t k = 0; m->observables[k].name; k++)
        energy |= m->observables[k].role == MCF_ROLE_ENERGY;
    const char *why = !mcfi_dmc_supported(m)
                          ? "has no projector op (mcf/model.h, mcf 1.2: slater-jastrow has one)"
                      : !m->has_anneal ? "has no configuration record to hand over"
                      : !energy        ? "measures no energy (the ENERGY role) to weigh by"
                                       : NULL;
    mcfe_config_key_where(c, "run", "method", where, sizeof where);
    if (why)
        return mcf_fail(MCF_EINVAL, "%s: [run] method = dmc: model '%s' %s", where,
                        s->model_name, why);
    why = s->walkers < 2           ? "needs walkers >= 2 (the population of a scan point; "
                                     "hundreds for a small population-control bias)"
          : s->hmc                 ? "moves by the model's drift-diffusion, not sampler = hmc"
          : s->exchange_every > 0  ? "has no parallel tempering (exchange_every = 0)"
          : s->start != MCFI_START_MODEL ? "starts as the model says (start = model)"
          : s->series              ? "writes no per-chain series (series = no)"
                                   : NULL;
    return why ? mcf_fail(MCF_EINVAL, "%s: [run] method = dmc %s", where, why) : MCF_OK;
}

/* [run] sampler = hmc: a model with coordinates and global_action (mcf 1.1) */
int mcfi_core_check_sampler(const mcf_config *c, const mcf_setup *s)
{
    if (!s->hmc)
        return MCF_OK;
    if (mcfi_hmc_supported(s->model->model))
        return MCF_OK;
    char where[512];
    return mcf_fail(MCF_EINVAL, "%s: [run] sampler = hmc: model '%s' has no coordinates for a "
                    "global sampler (mcf_model.coordinates and global_action, mcf 1.1); use "
                    "sampler = local",
                    mcfe_config_key_where(c, "run", "sampler", where, sizeof where),
                    s->model_name);
}
