/* setup.c — a configuration checked completely into a run setup (mcf_setup), in this
 * order: the section names, [run] and [schedule] (core_keys.c), the model and evaluator
 * plugins they name (evaluator = auto: evaluator_auto.c), [model] and [evaluator] against
 * the plugins' declarations (section.c), the scan grid (axes.c), the tempering check, and
 * config.ini as used.  Every problem stops here, before any work.  Reading the file is
 * config.c's; running the setup is run.c's. */
#define _POSIX_C_SOURCE 200809L
#include "setup.h"
#include "error_target.h"
#include "optimize.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* [tc]: `mcf tc CONFIG`'s own keys (core/program/tc_driver.c reads and checks them) */
static const char *const section_names[] = {"run", "schedule", "model", "evaluator",
                                            "optimize", "tc"};

/* Every section of c is one of the four, or the error names the nearest. */
static int check_section_names(const mcf_config *c)
{
    for (size_t k = 0; k < c->n; k++) {
        const mcf_config_entry *e = &c->entries[k];
        int known = 0;
        for (size_t j = 0; j < 6; j++)
            known |= !strcmp(e->section, section_names[j]);
        if (!known) {
            char where[512];
            const char *near = mcfe_nearest_word(e->section, section_names, 6);
            mcfe_config_where(e, where, sizeof where);
            return mcf_fail(MCF_EINVAL, "%s: unknown section [%s]%s%s%s (sections: [run], "
                            "[schedule], [model], [evaluator], [optimize], [tc])", where, e->section,
                            near ? "; did you mean [" : "", near ? near : "", near ? "]?" : "");
        }
    }
    return MCF_OK;
}

int mcfe_model_evaluator_kind(const mcf_plugin *model)
{
    return model->model->evaluator_kind;
}

/* The model plugin, and the evaluator [run] evaluator names (a plugin, none or auto). */
static int open_plugins(mcf_config *c, mcf_setup *s)
{
    int rc = mcfe_plugin_open(s->model_name, MCF_PLUGIN_MODEL, &s->model);
    char where[512];
    if (rc)
        return mcf_fail_prefix(rc, "%s: [run] model = %s",
                               mcfe_config_key_where(c, "run", "model", where, sizeof where),
                               s->model_name);
    if (!strcmp(s->evaluator_name, "auto")) {
        s->evaluator_auto = 1;
        return mcfi_resolve_auto_evaluator(c, s);
    }
    if (strcmp(s->evaluator_name, "none") != 0) {
        rc = mcfe_plugin_open(s->evaluator_name, 0, &s->evaluator);
        if (!rc && s->evaluator->info->kind == MCF_PLUGIN_MODEL)
            rc = mcf_fail(MCF_EINVAL, "%s is a model, not an evaluator", s->evaluator->path);
        else if (!rc && !mcfe_model_evaluator_kind(s->model))
            rc = mcf_fail(MCF_EINVAL, "model '%s' takes no evaluator (see `mcf describe %s`); "
                          "set evaluator = none", s->model_name, s->model_name);
        if (rc)
            return mcf_fail_prefix(rc, "%s: [run] evaluator = %s",
                                   mcfe_config_key_where(c, "run", "evaluator", where,
                                                         sizeof where),
                                   s->evaluator_name);
    }
    return MCF_OK;
}

/* "file:line: [section] key" of axis a, into buf. */
static const char *axis_where(const mcf_config *c, const mcf_setup *s, size_t a, char *buf,
                              size_t size)
{
    static const char *const sections[] = {"model", "evaluator", "schedule", "run", "run"};
    const mcf_axis *ax = &s->axes[a];
    const char *sec = sections[ax->section], *key = ax->section == 2 ? "temperatures" : ax->name;
    char where[512];
    snprintf(buf, size, "%s: [%s] %s",
             mcfe_config_key_where(c, sec, key, where, sizeof where), sec, key);
    return buf;
}

/* s->n_points, the product of the axes' lengths, and the chains (points x walkers), each at
 * most MCFI_MAX_CHAINS: a product that wrapped around would run fewer chains than asked
 * for (walkers = 2^62 with 4 temperatures: none) and still succeed. */
static int count_chains(const mcf_config *c, mcf_setup *s)
{
    char where[1024];
    s->n_points = 1;
    for (size_t a = 0; a < s->n_axes; a++) {
        if (s->axes[a].n > MCFI_MAX_CHAINS / s->n_points)
            return mcf_fail(MCF_EINVAL, "%s: this axis of %zu values makes the scan grid more "
                            "than %zu points; scan fewer values", axis_where(c, s, a, where,
                            sizeof where), s->axes[a].n, MCFI_MAX_CHAINS);
        s->n_points *= s->axes[a].n;
    }
    if ((size_t)s->walkers > MCFI_MAX_CHAINS / s->n_points)
        return mcf_fail(MCF_EINVAL, "%s: [run] walkers = %ld with %zu scan points makes more "
                        "than %zu chains; lower walkers",
                        mcfe_config_key_where(c, "run", "walkers", where, sizeof where),
                        s->walkers, s->n_points, MCFI_MAX_CHAINS);
    return MCF_OK;
}

/* [model] and [evaluator] (no keys allowed with evaluator = none) into sec[0] and sec[1],
 * and the grid: the axes in their final order, model axes and evaluator axes (each in
 * declaration order) then the core's (the temperature), which this takes over. */
static int check_plugin_sections(mcf_config *c, mcf_setup *s, mcf_section sec[2],
                                 mcf_axis **core_axes, size_t *n_core_axes)
{
    char owner[256];
    mcf_axis *axes = NULL;
    size_t n_axes = 0;
    snprintf(owner, sizeof owner, "model '%s' (see `mcf describe %s`)", s->model_name,
             s->model_name);
    int rc = mcfe_section_check(c, "model", s->model->info->params, owner, 0, &sec[0], &axes,
                                &n_axes);
    if (!rc) {
        if (s->evaluator) {
            snprintf(owner, sizeof owner, "evaluator '%s'%s (see `mcf describe %s`)",
                     s->evaluator_name, s->evaluator_auto ? ", chosen by evaluator = auto" : "",
                     s->evaluator_name);
            rc = mcfe_section_check(c, "evaluator", s->evaluator->info->params, owner, 1,
                                    &sec[1], &axes, &n_axes);
        } else {
            for (size_t k = 0; k < c->n && !rc; k++)
                if (!strcmp(c->entries[k].section, "evaluator")) {
                    char where[512];
                    rc = mcf_fail(MCF_EINVAL, "%s: [evaluator] %s is given but [run] "
                                  "evaluator = none; name an evaluator or remove the key",
                                  mcfe_config_where(&c->entries[k], where, sizeof where),
                                  c->entries[k].key);
                }
            sec[1].name = "evaluator";
        }
    }
    /* the axes parsed so far belong to s even after a failure, which mcfe_setup_free()
     * releases */
    s->n_axes = n_axes + *n_core_axes;
    s->axes = calloc(s->n_axes ? s->n_axes : 1, sizeof *s->axes);
    if (!s->axes) {
        s->n_axes = 0;
        mcfe_axes_free(axes, n_axes);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    if (n_axes)
        memcpy(s->axes, axes, n_axes * sizeof *axes);
    if (*n_core_axes)
        memcpy(s->axes + n_axes, *core_axes, *n_core_axes * sizeof **core_axes);
    free(axes);
    free(*core_axes);
    *core_axes = NULL;
    *n_core_axes = 0;
    if (rc)
        return rc;
    /* Axes stay in declaration order (mcfe_section_check walks the specs), not in the order
     * of the file: config.ini as used is written in declaration order and `mcf resume`
     * reads it back, so any other order would differ on resume and the chains of the
     * checkpoint would meet other scan points. */
    for (size_t a = 0; a < n_axes; a++)
        sec[s->axes[a].section ? 1 : 0].axis[s->axes[a].spec_index] = (long)a;
    return count_chains(c, s);
}

/* config.ini as used, into s->canonical: every section with its defaults filled in. */
static int write_config_used(const mcf_config *c, mcf_setup *s, const mcf_section *run,
                             const mcf_section *sched, const mcf_section sec[2])
{
    mcf_text t = {0};
    mcfe_text_printf(&t, "; configuration as used by mcf %s (defaults filled in%s)\n",
                     MCF_VERSION_STRING,
                     s->evaluator_auto ? "; [evaluator] as given, for evaluator = auto" : "");
    mcfe_section_write(&t, run);
    mcfe_section_write(&t, sched);
    mcfe_section_write(&t, &sec[0]);
    /* with evaluator = auto, [evaluator] keeps only the keys given: the defaults of the
     * plugin chosen here need not exist in the one a resume elsewhere chooses */
    if (s->evaluator)
        mcfi_section_write_given(&t, &sec[1], s->evaluator_auto ? c : NULL);
    /* [optimize] only when given: the configurations of runs stay as they were */
    mcfi_section_write_given(&t, &s->optimize, c);
    if (t.failed) {
        free(t.s);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    s->canonical = t.s;
    return MCF_OK;
}

int mcfe_setup_create(mcf_config *c, mcf_setup **out)
{
    *out = NULL;
    mcf_setup *s = calloc(1, sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    mcf_section run = {0}, sched = {0}, sec[2] = {{0}, {0}};
    mcf_axis *core_axes = NULL;
    size_t n_core_axes = 0;

    int rc = check_section_names(c);
    if (!rc && !(s->config_path = strdup(c->path)))
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (!rc)
        rc = mcfi_core_keys_read(c, &run, &sched, &core_axes, &n_core_axes, s);
    if (!rc)
        rc = mcfe_section_check(c, "optimize", mcfi_optimize_specs(), "[optimize]", 0,
                                &s->optimize, &core_axes, &n_core_axes);
    if (!rc)
        rc = open_plugins(c, s);
    if (!rc)
        rc = check_plugin_sections(c, s, sec, &core_axes, &n_core_axes);
    if (!rc && s->exchange_every > 0)
        rc = mcfi_core_check_tempering(c, s);
    if (!rc)
        rc = mcfi_core_check_start(c, s);
    if (!rc)
        rc = mcfi_core_check_sampler(c, s);
    if (!rc)
        rc = mcfi_core_check_method(c, s);
    if (!rc)
        rc = mcfi_core_check_extra(c, s);
    if (!rc)
        rc = mcfi_error_target_check(c, s);
    if (!rc)
        rc = write_config_used(c, s, &run, &sched, sec);
    if (!rc) /* after config.ini as used, which keeps `optimized` */
        rc = mcfi_setup_optimized_key(c, s, &sec[0]);
    if (!rc) { /* the check reads the scan points' [model] values */
        s->sections[0] = sec[0];
        rc = mcfi_shells_check(c, s);
        memset(&s->sections[0], 0, sizeof s->sections[0]);
    }
    mcfe_section_release(&run);
    mcfe_section_release(&sched);
    mcfe_axes_free(core_axes, n_core_axes);
    if (rc) {
        mcfe_section_release(&sec[0]);
        mcfe_section_release(&sec[1]);
        mcfe_setup_free(s);
        return rc;
    }
    s->sections[0] = sec[0];
    s->sections[1] = sec[1];
    *out = s;
    return MCF_OK;
}

void mcfe_setup_free(mcf_setup *s)
{
    if (!s)
        return;
    mcfe_section_release(&s->sections[0]);
    mcfe_section_release(&s->sections[1]);
    mcfe_section_release(&s->optimize);
    mcfe_axes_free(s->axes, s->n_axes);
    mcfe_plugin_close(s->model);
    mcfe_plugin_close(s->evaluator);
    free(s->config_path);
    free(s->model_name);
    free(s->evaluator_name);
    free(s->evaluator_note);
    free(s->sampler_note);
    free(s->output);
    free(s->canonical);
    free(s->shell_warnings);
    free(s->extra_observables);
    mcfi_error_target_free(s);
    free(s);
}
