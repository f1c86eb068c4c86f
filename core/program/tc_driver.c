/* tc_driver.c — `mcf tc CONFIG`: a configuration with a [tc] section (sizes, temperatures,
 * quantity, error_target, blocks, omega, nu) becomes one run whose scan covers L x T ([model] L
 * = sizes, [schedule] temperatures, [run] series = yes, extra_observables += m2_kmin), then
 * the analysis of `mcf tc DIR` (tc.c) on its series.  error_target = tc:X goes to [schedule]
 * error_target, whose doubling of the measured sweeps (core/engine/error_target.c) asks
 * this driver for T_c's error at every decision (docs/methods.md, "Finite-size scaling"). */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include "mcf_engine.h"
#include "mcf/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* what [tc] says beside the scan */
typedef struct tc_settings {
    size_t blocks;
    double omega, nu; /* nu 0: the largest pair's */
    int which; /* 0 binder, 1 xi_over_l: the crossing whose T_c is reported and targeted */
    const mcf_config *source; /* the [tc] section given (written to DIR/tc.ini) */
    int kept;                 /* DIR/tc.ini written */
} tc_settings;

static mcf_config_entry *entry(const mcf_config *c, const char *section, const char *key)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(c->entries[k].section, section) && !strcmp(c->entries[k].key, key))
            return &c->entries[k];
    return NULL;
}

static int set_key(mcf_config *c, const char *section, const char *key, const char *value)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "%s.%s=%s", section, key, value);
    return mcfe_config_override(c, buf);
}

/* the number of comma- or space-separated words of s */
static size_t count_items(const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p;) {
        p += strspn(p, " ,\t");
        size_t w = strcspn(p, " ,\t");
        n += w > 0;
        p += w;
    }
    return n;
}

/* [tc] sizes and temperatures checked, and the scan's keys set from them (a fresh CONFIG) */
static int derive_scan(mcf_config *c)
{
    char where[512];
    const mcf_config_entry *sizes = entry(c, "tc", "sizes"), *temps = entry(c, "tc",
                                                                            "temperatures");
    static const char *const owned[][2] = {{"model", "L"}, {"schedule", "temperatures"}};
    for (int k = 0; k < 2; k++) {
        const mcf_config_entry *e = entry(c, owned[k][0], owned[k][1]);
        if (e)
            return mcf_fail(MCF_EINVAL, "%s: [%s] %s: mcf tc scans the sizes and temperatures "
                            "of [tc] sizes and [tc] temperatures; remove this key",
                            mcfe_config_where(e, where, sizeof where), owned[k][0],
                            owned[k][1]);
    }
    if (!sizes || count_items(sizes->value) < 2)
        return mcf_fail(MCF_EINVAL, "%s: [tc] sizes%s%s: crossings need two lattice sizes or "
                        "more; give e.g. sizes = 8, 16, 32",
                        sizes ? mcfe_config_where(sizes, where, sizeof where) : c->path,
                        sizes ? " = " : " is missing", sizes ? sizes->value : "");
    int n_t = 0;
    if (temps && strchr(temps->value, ':')) {
        double lo, hi;
        if (sscanf(temps->value, "%lf : %lf : %d", &lo, &hi, &n_t) != 3 || !(hi > lo))
            n_t = 0;
    } else if (temps) {
        n_t = (int)count_items(temps->value);
    }
    if (n_t < 3)
        return mcf_fail(MCF_EINVAL, "%s: [tc] temperatures%s%s: the window needs 3 "
                        "temperatures or more to reweight and cross in; give e.g. "
                        "temperatures = 2.15:2.40:6 (from:to:points) or a list",
                        temps ? mcfe_config_where(temps, where, sizeof where) : c->path,
                        temps ? " = " : " is missing", temps ? temps->value : "");
    const mcf_config_entry *series = entry(c, "run", "series");
    if (series && strcmp(series->value, "yes"))
        return mcf_fail(MCF_EINVAL, "%s: [run] series = %s: mcf tc reweights the measurement "
                        "series; remove the key (mcf tc sets series = yes)",
                        mcfe_config_where(series, where, sizeof where), series->value);
    const mcf_config_entry *extra = entry(c, "run", "extra_observables");
    char list[4096];
    snprintf(list, sizeof list, "%s%sm2_kmin", extra ? extra->value : "", extra ? " " : "");
    int rc = set_key(c, "model", "L", sizes->value);
    if (!rc)
        rc = set_key(c, "schedule", "temperatures", temps->value);
    if (!rc)
        rc = set_key(c, "run", "series", "yes");
    if (!rc && !(extra && strstr(extra->value, "m2_kmin")))
        rc = set_key(c, "run", "extra_observables", list);
    const mcf_config_entry *target = entry(c, "tc", "error_target");
    if (!rc && target) {
        if (strncmp(target->value, "tc:", 3))
            return mcf_fail(MCF_EINVAL, "%s: [tc] error_target = %s: give tc:VALUE, e.g. "
                            "tc:1%% (T_c's relative jackknife error) or tc:0.002",
                            mcfe_config_where(target, where, sizeof where), target->value);
        const mcf_config_entry *old = entry(c, "schedule", "error_target");
        snprintf(list, sizeof list, "%s%s%s", old ? old->value : "", old ? " " : "",
                 target->value);
        rc = set_key(c, "schedule", "error_target", list);
    }
    return rc;
}

/* [tc] quantity, blocks, omega, nu; unknown [tc] keys refused */
static int read_settings(const mcf_config *c, tc_settings *t)
{
    static const char *const keys[] = {"sizes", "temperatures", "quantity", "error_target",
                                       "blocks", "omega", "nu"};
    char where[512];
    t->blocks = 16;
    t->omega = 1.0;
    t->nu = 0.0;
    t->which = 1;
    for (size_t k = 0; k < c->n; k++) {
        const mcf_config_entry *e = &c->entries[k];
        if (strcmp(e->section, "tc"))
            continue;
        size_t j = 0;
        while (j < 7 && strcmp(e->key, keys[j]))
            j++;
        mcfe_config_where(e, where, sizeof where);
        char *end = NULL;
        if (j == 7)
            return mcf_fail(MCF_EINVAL, "%s: [tc] %s: unknown key ([tc] keys: sizes, "
                            "temperatures, quantity, error_target, blocks, omega, nu)", where,
                            e->key);
        if (j == 2 && strcmp(e->value, "binder") && strcmp(e->value, "xi_over_l"))
            return mcf_fail(MCF_EINVAL, "%s: [tc] quantity = %s: give binder or xi_over_l",
                            where, e->value);
        if (j == 2)
            t->which = !strcmp(e->value, "xi_over_l");
        if (j == 4) {
            long b = strtol(e->value, &end, 10);
            if (*end || b < 2 || b > 1000)
                return mcf_fail(MCF_EINVAL, "%s: [tc] blocks = %s: give 2 to 1000", where,
                                e->value);
            t->blocks = (size_t)b;
        }
        if (j == 5) {
            t->omega = strtod(e->value, &end);
            if (*end || !(t->omega >= 0) || !isfinite(t->omega))
                return mcf_fail(MCF_EINVAL, "%s: [tc] omega = %s: give a number >= 0", where,
                                e->value);
        }
        if (j == 6) {
            t->nu = strtod(e->value, &end);
            if (*end || !(t->nu > 0) || !isfinite(t->nu))
                return mcf_fail(MCF_EINVAL, "%s: [tc] nu = %s: give a number > 0 (the "
                                "universality class's nu)", where, e->value);
        }
    }
    return MCF_OK;
}

/* the model measures m2_kmin (xi/L's), or the refusal naming [run] model */
static int check_model(const mcf_config *c)
{
    const mcf_config_entry *m = entry(c, "run", "model");
    mcf_plugin *p = NULL;
    if (!m || mcfe_plugin_open(m->value, MCF_PLUGIN_MODEL, &p))
        return MCF_OK; /* the setup says what is wrong */
    int found = 0;
    for (const mcf_observable *o = mcfe_model_observables(p); o && o->name && !found; o++)
        found = !strcmp(o->name, "m2_kmin");
    mcfe_plugin_close(p);
    char where[512];
    if (!found)
        return mcf_fail(MCF_EINVAL, "%s: [run] model = %s has no observable m2_kmin (the "
                        "structure factor at the smallest wave vector, for xi/L): mcf tc "
                        "needs a model that measures it (ising, heisenberg) or `mcf tc DIR` "
                        "on a run of your own scan", mcfe_config_where(m, where, sizeof where),
                        m->value);
    return MCF_OK;
}

/* DIR/tc.ini: the [tc] section as given, beside the engine's config.ini (which holds the
 * scan it became: [model] L, [schedule] temperatures), so that `mcf resume DIR` finds a
 * run of mcf tc and its quantity, blocks and omega.  Written once the folder exists (the
 * first error-target decision, or the run's return: a stop by a signal included). */
static void keep_settings(const char *dir, tc_settings *set)
{
    struct stat st;
    char path[4200];
    if (set->kept || !set->source || stat(dir, &st) != 0)
        return;
    snprintf(path, sizeof path, "%s/tc.ini", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        mcf_log(MCF_LOG_WARN, "mcf tc: cannot write %s: `mcf resume %s` will continue the scan "
                "but not analyse it (run `mcf tc %s` after it)", path, dir, dir);
        set->kept = 1;
        return;
    }
    fprintf(f, "; the [tc] section of mcf tc CONFIG (its scan is config.ini's)\n[tc]\n");
    for (size_t k = 0; k < set->source->n; k++) {
        const mcf_config_entry *e = &set->source->entries[k];
        if (!strcmp(e->section, "tc"))
            fprintf(f, "%s = %s\n", e->key, e->value);
    }
    set->kept = fclose(f) == 0;
    if (!set->kept)
        mcf_log(MCF_LOG_WARN, "mcf tc: writing %s failed", path);
}

/* error_target tc: the analysis of the series so far (mcf_run_options.tc_estimate) */
static int estimate(const char *dir, const char *series, void *ctx, double *tc, double *err)
{
    tc_settings *set = ctx;
    keep_settings(dir, set);
    tc_run t;
    tc_defaults(&t, dir);
    t.series[0] = series;
    t.blocks = set->blocks;
    t.omega = set->omega;
    t.nu_fixed = set->nu;
    int rc = tc_analyze(&t);
    *tc = t.tc[set->which];
    *err = t.tc_err[set->which];
    if (!rc && isfinite(*tc) && !isfinite(*err) && t.err_why[set->which][0])
        mcf_log(MCF_LOG_WARN, "mcf tc: T_c = %g has no error bar, so the error target is not "
                "met: %s", *tc, t.err_why[set->which]);
    if (rc == MCF_EINVAL) { /* no crossing yet: a miss, measured on */
        mcf_log(MCF_LOG_INFO, "mcf tc: no T_c from the series so far: %s", mcf_last_error());
        *tc = *err = NAN;
        rc = MCF_OK;
    }
    return rc;
}

/* error_target's words: one of them tc:X */
static int names_tc(const char *targets)
{
    for (const char *p = targets; *p;) {
        p += strspn(p, " ,\t");
        if (!strncmp(p, "tc:", 3))
            return 1;
        p += strcspn(p, " ,\t");
    }
    return 0;
}

int mcfi_tc_is_driven(const char *dir)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/tc.ini", dir);
    if (stat(path, &st) == 0)
        return 1;
    /* a folder of mcf 1.1.0's mcf tc (no tc.ini): its error target names tc */
    snprintf(path, sizeof path, "%s/config.ini", dir);
    mcf_config *c = NULL;
    if (mcfe_config_read(path, &c)) {
        if (c)
            mcfe_config_free(c);
        return 0;
    }
    const mcf_config_entry *target = entry(c, "schedule", "error_target");
    const int driven = entry(c, "tc", "sizes") != NULL || (target && names_tc(target->value));
    mcfe_config_free(c);
    return driven;
}

int mcfi_tc_drive(const char *config_path, const char *resume_dir, mcf_run_options *opt,
                  int force)
{
    char path[4200];
    if (resume_dir)
        snprintf(path, sizeof path, "%s/config.ini", resume_dir);
    mcf_config *c = NULL, *kept = NULL;
    int rc = mcfe_config_read(resume_dir ? path : config_path, &c);
    tc_settings set;
    struct stat st;
    if (!rc && resume_dir) { /* the [tc] section kept beside config.ini, if there is one */
        snprintf(path, sizeof path, "%s/tc.ini", resume_dir);
        if (stat(path, &st) == 0)
            rc = mcfe_config_read(path, &kept);
    }
    if (!rc)
        rc = read_settings(kept ? kept : c, &set);
    set.source = kept ? kept : c;
    set.kept = kept != NULL;
    if (!rc && !resume_dir)
        rc = check_model(c);
    if (!rc && !resume_dir)
        rc = derive_scan(c);
    mcf_setup *s = NULL;
    if (!rc)
        rc = mcfe_setup_create(c, &s);
    if (rc) {
        if (c)
            mcfe_config_free(c);
        if (kept)
            mcfe_config_free(kept);
        return rc;
    }
    /* an output folder of this configuration continues (the engine refuses another's) */
    static char dir[4096]; /* s->output goes with the setup */
    snprintf(dir, sizeof dir, "%s", resume_dir ? resume_dir : s->output);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    opt->resume = resume_dir || (!force && stat(path, &st) == 0);
    opt->force = force;
    opt->output = dir;
    opt->tc_estimate = estimate;
    opt->tc_ctx = &set;
    const int rank0 = mcfe_mpi_rank() == 0; /* `mpirun mcf resume DIR`: the analysis is
                                               rank 0's */
    if (opt->resume && rank0)
        printf("mcf tc: %s holds this run; continuing it\n", dir);
    rc = mcfe_run_execute(s, opt);
    if (rank0)
        keep_settings(dir, &set); /* also after a stop: `mcf resume` continues as mcf tc */
    mcfe_setup_free(s);
    mcfe_config_free(c);
    if (kept)
        mcfe_config_free(kept);
    if (rc || !rank0)
        return rc;
    tc_run t;
    tc_defaults(&t, dir);
    t.blocks = set.blocks;
    t.omega = set.omega;
    t.nu_fixed = set.nu;
    rc = tc_analyze(&t);
    const int q = set.which;
    if (!rc && !isfinite(t.tc[q]))
        rc = mcf_fail(MCF_EINVAL, "mcf tc: %s: no T_c from %s (see %s/tc.tsv); [tc] quantity "
                      "= %s crossings", dir, q ? "xi_over_l" : "binder", dir,
                      q ? "binder" : "xi_over_l");
    if (!rc && !isfinite(t.tc_err[q]))
        printf("mcf tc: T_c = %.6f, K_c = 1/T_c = %.6f, nu = %.4f; no error bar: %s (%s "
               "crossings; %s/tc.tsv)\n", t.tc[q], 1.0 / t.tc[q], t.nu[q],
               t.err_why[q][0] ? t.err_why[q] : "a jackknife sample failed",
               q ? "xi/L" : "Binder", dir);
    else if (!rc)
        printf("mcf tc: T_c = %.6f +- %.6f (%.3g%%), K_c = 1/T_c = %.6f +- %.6f, nu = %.4f +- "
               "%.4f (%s crossings; %s/tc.tsv)\n", t.tc[q], t.tc_err[q],
               100.0 * t.tc_err[q] / fabs(t.tc[q]), 1.0 / t.tc[q],
               t.tc_err[q] / (t.tc[q] * t.tc[q]), t.nu[q], t.nu_err[q],
               q ? "xi/L" : "Binder", dir);
    return rc;
}
