/* sampler_auto.c — [run] sampler = auto (the default): hybrid Monte Carlo where it is
 * usable and wins, the local sweep elsewhere, and the one-line account of the choice for
 * the log.  hmc is chosen when all of these hold (the first that fails is the reason):
 *
 *   - the model moves its field as coordinates with a global action (mcfi_hmc_supported);
 *   - a model that takes a fermion evaluator has one that offers the pseudofermion form
 *     (MCF_PROVIDES_PSEUDOFERMION, what mcf_fermion_hmc_action calls; its other need, fixed
 *     spectral bounds, is the model's: every model of the tree with coordinates fixes them);
 *   - the smallest lattice of the run has N >= [run] hmc_min_sites units (sites): a
 *     trajectory costs a few dozen O(N) force evaluations, a local sweep N flips of O(N)
 *     each, so HMC wins from some N on (docs/benchmarks.md: even at 8^3 on the H200).
 *
 * Made after the chains exist (their units) and before anything is written.  The choice
 * depends on the configuration and the plugins only, so the same configuration gets the
 * same sampler; config.ini as used names the sampler that ran (`sampler = hmc`, or no key:
 * local, as in every configuration written before the key had auto), and a configuration
 * as used without the key (`mcf resume DIR`) resumes with the local sweep. */
#define _POSIX_C_SOURCE 200809L
#include "hmc.h"
#include "mcf_mpi.h"
#include "run_state.h"
#include "setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* whether the file at path is a configuration as used (its first line says so) */
static int config_as_used(const char *path)
{
    static const char head[] = "; configuration as used by mcf ";
    char line[sizeof head] = "";
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    const int as_used = fgets(line, sizeof line, f) && !strcmp(line, head);
    fclose(f);
    return as_used;
}

/* the evaluator offers the pseudofermion form (an ABI-2 fermion evaluator) */
static int has_pseudofermion(const mcf_plugin *e)
{
    const mcf_plugin_info *in = e ? e->info : NULL;
    if (!in || in->kind != MCF_PLUGIN_FERMION_EVALUATOR || in->abi_version != MCF_ABI_2 ||
        !in->ops)
        return 0;
    const mcf_fermion_evaluator *ops = in->ops;
    return (ops->provides & MCF_PROVIDES_PSEUDOFERMION) &&
           MCF_HAS(mcf_fermion_evaluator, ops, pseudofermion);
}

/* "sampler = hmc" into config.ini as used, where mcfe_section_write puts an explicit one:
 * in [run], before the first hmc_ key (the keys after sampler) or the section's end */
static int name_hmc(mcf_setup *s)
{
    static const char key[] = "sampler = hmc\n";
    char *t = s->canonical, *run = strstr(t, "[run]\n");
    if (!run)
        return mcf_fail(MCF_EINTERNAL, "config.ini as used has no [run] section");
    char *at = strchr(run, '\n') + 1;
    while (*at && *at != '\n' && *at != '[' && strncmp(at, "hmc_", 4)) {
        char *nl = strchr(at, '\n');
        at = nl ? nl + 1 : at + strlen(at);
    }
    const size_t head = (size_t)(at - t), len = strlen(t);
    char *u = malloc(len + sizeof key);
    if (!u)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    memcpy(u, t, head);
    memcpy(u + head, key, sizeof key - 1);
    memcpy(u + head + sizeof key - 1, t + head, len - head + 1);
    free(s->canonical);
    s->canonical = u;
    return MCF_OK;
}

int mcfi_resolve_sampler(mcf_run *r)
{
    mcf_setup *s = r->setup;
    if (!s->sampler_auto)
        return MCF_OK;
    /* the smallest lattice of the run, over every rank's chains */
    double minus_units = -1e300;
    for (size_t i = 0; i < r->n_own; i++) {
        const double u = -(double)r->chains[r->own[i]].units;
        if (u > minus_units)
            minus_units = u;
    }
    mcfi_mpi_max_doubles(&minus_units, 1);
    const size_t sites = minus_units > -1e300 ? (size_t)-minus_units : 0;
    const int kind = s->model->model->evaluator_kind;
    const char *ev = s->evaluator_name;
    char why[512];
    int hmc = 0;
    if (config_as_used(s->config_path))
        snprintf(why, sizeof why, "%s is a configuration as used without [run] sampler: the "
                 "run it records used the local sweep", s->config_path);
    else if (!mcfi_hmc_supported(s->model->model))
        snprintf(why, sizeof why, "model %s has no coordinates for a global sampler",
                 s->model_name);
    else if (kind == MCF_PLUGIN_FERMION_EVALUATOR && !has_pseudofermion(s->evaluator))
        snprintf(why, sizeof why, "evaluator %s has no pseudofermion form", ev);
    else if (kind && kind != MCF_PLUGIN_FERMION_EVALUATOR)
        snprintf(why, sizeof why, "model %s takes an evaluator of another kind than fermions",
                 s->model_name);
    else if (sites < (size_t)s->hmc_min_sites)
        snprintf(why, sizeof why, "%zu sites < hmc_min_sites %ld", sites, s->hmc_min_sites);
    else {
        hmc = 1;
        snprintf(why, sizeof why, "%zu sites >= hmc_min_sites %ld; %s has coordinates%s%s%s",
                 sites, s->hmc_min_sites, s->model_name, kind ? "; " : "", kind ? ev : "",
                 kind ? " has pseudofermions" : "");
    }
    s->hmc = hmc;
    mcf_text note = {0};
    mcfe_text_printf(&note, "sampler: %s (auto: %s)", hmc ? "hmc" : "local", why);
    if (note.failed)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    free(s->sampler_note);
    s->sampler_note = note.s;
    return hmc ? name_hmc(s) : MCF_OK;
}
