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
#include <errno.h>
#include <stdint.h>

/* what [tc] says beside the scan */
typedef struct tc_settings {
    size_t blocks;
    int chain_blocks; /* [tc] jackknife = chains */
    double omega, nu; /* nu 0: the largest pair's */
    int which; /* 0 binder, 1 xi_over_l: the crossing whose T_c is reported and targeted */
    const mcf_config *source; /* the [tc] section given (written to DIR/tc.ini) */
    int kept;                 /* DIR/tc.ini written */
    size_t refine;            /* [tc] refine: the scans planned after the first (tc_refine.c) */
    size_t refine_points;     /* [tc] refine_points: the most temperatures of one of them */
    char held_max[64];        /* [schedule] max_sweeps held back for the last scan (refine > 0:
                                 the cap of the error target, which only the last one has);
                                 kept in DIR/tc.ini as [tc] max_sweeps */
    const char *prior[TC_MAX_DIRS]; /* the finished scans before the one measuring now, whose
                                       series error_target tc:X reweights with its own */
    size_t n_prior;
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

/* [tc] sizes and temperatures checked, and the scan's keys set from them (a fresh CONFIG);
 * error_target tc:X goes to [schedule] unless refinement scans follow (the last one takes it) */
static int derive_scan(mcf_config *c, tc_settings *set)
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
    /* max_sweeps caps the doubling of an error target: with refinements and only [tc]'s
     * target it is the last scan's (an own [schedule] error_target keeps it in every scan;
     * none at all, and the engine refuses it before any work, as without refine) */
    const mcf_config_entry *cap = entry(c, "schedule", "max_sweeps");
    if (!rc && cap && set->refine > 0 && target && !entry(c, "schedule", "error_target")) {
        snprintf(set->held_max, sizeof set->held_max, "%s", cap->value);
        mcfe_config_remove(c, "schedule", "max_sweeps");
    }
    if (!rc && target && set->refine == 0) {
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
                                       "blocks", "omega", "nu", "refine", "refine_points",
                                       "max_sweeps", "jackknife"};
    const size_t n_keys = sizeof keys / sizeof keys[0];
    char where[512];
    memset(t, 0, sizeof *t);
    t->refine_points = 8;
    t->blocks = 16;
    t->omega = 1.0;
    t->nu = 0.0;
    t->which = 1;
    for (size_t k = 0; k < c->n; k++) {
        const mcf_config_entry *e = &c->entries[k];
        if (strcmp(e->section, "tc"))
            continue;
        size_t j = 0;
        while (j < n_keys && strcmp(e->key, keys[j]))
            j++;
        mcfe_config_where(e, where, sizeof where);
        char *end = NULL;
        if (j == n_keys)
            return mcf_fail(MCF_EINVAL, "%s: [tc] %s: unknown key ([tc] keys: sizes, "
                            "temperatures, quantity, error_target, blocks, jackknife, omega, nu, "
                            "refine, refine_points)", where, e->key);
        if (j == 7 || j == 8) {
            const long lo = j == 7 ? 0 : 3, hi = j == 7 ? TC_MAX_DIRS - 1 : 64;
            long v = strtol(e->value, &end, 10);
            if (end == e->value || *end || v < lo || v > hi)
                return mcf_fail(MCF_EINVAL, "%s: [tc] %s = %s: give %ld to %ld%s", where,
                                e->key, e->value, lo, hi, j == 7 ? " (the scans after the "
                                "first, each around the T_c of those before it)" :
                                " (the most temperatures of a refinement scan)");
            *(j == 7 ? &t->refine : &t->refine_points) = (size_t)v;
        }
        if (j == 10 && (t->chain_blocks = tc_parse_jackknife(e->value)) < 0)
            return mcf_fail(MCF_EINVAL, "%s: [tc] jackknife = %s: give slices or chains",
                            where, e->value);
        if (j == 9) /* written by keep_settings: [schedule] max_sweeps held back */
            snprintf(t->held_max, sizeof t->held_max, "%s", e->value);
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
    if (set->held_max[0] && !entry(set->source, "tc", "max_sweeps"))
        fprintf(f, "; [schedule] max_sweeps, held back for the last refinement scan\n"
                "max_sweeps = %s\n", set->held_max);
    set->kept = fclose(f) == 0;
    if (!set->kept)
        mcf_log(MCF_LOG_WARN, "mcf tc: writing %s failed", path);
}

/* error_target tc: the analysis of the series so far (mcf_run_options.tc_estimate) */
static int estimate(const char *dir, const char *series, void *ctx, double *tc, double *err)
{
    tc_settings *set = ctx;
    if (!set->n_prior)
        keep_settings(dir, set);
    tc_run t;
    tc_defaults(&t, set->n_prior ? set->prior[0] : dir);
    for (size_t d = 0; d < set->n_prior; d++)
        t.dirs[d] = set->prior[d];
    t.dirs[set->n_prior] = dir;
    t.series[set->n_prior] = series;
    t.n_dirs = set->n_prior + 1;
    t.keep_bridged = set->n_prior > 0;
    t.blocks = set->blocks;
    t.chain_blocks = set->chain_blocks;
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

/* the value of [section] key of c as an integer, or dflt */
static long int_key(const mcf_config *c, const char *section, const char *key, long dflt)
{
    const mcf_config_entry *e = entry(c, section, key);
    return e ? strtol(e->value, NULL, 10) : dflt;
}

/* The config of refinement scan s of dir, planned from the analysis of the scans before it
 * (rank 0's, broadcast): stage 0's config.ini with the plan's sizes and temperatures, its own
 * folder and seed, and error_target tc:X when it is the last. */
static int plan_stage(const char *dir, size_t s, const tc_settings *set, const char **dirs,
                      mcf_config **out)
{
    tc_plan plan;
    char why[600] = "";
    int rc = MCF_OK, prc = 0;
    if (mcfe_mpi_rank() == 0) {
        printf("mcf tc: the scans so far, analysed to plan refinement %zu of %zu:\n", s,
               set->refine);
        tc_run t;
        tc_defaults(&t, dir);
        for (size_t d = 0; d < s; d++)
            t.dirs[d] = dirs[d];
        t.n_dirs = s;
        t.blocks = set->blocks;
        t.chain_blocks = set->chain_blocks;
        t.omega = set->omega;
        t.nu_fixed = set->nu;
        t.drop_unbridged = 1; /* a size the first grid left unbridged is planned, not refused */
        t.keep_bridged = s > 1;
        rc = tc_analyze(&t);
        prc = rc ? 0 : tc_refine_plan(&t, set->which, set->refine_points, &plan, why,
                                      sizeof why);
        if (rc)
            snprintf(why, sizeof why, "%s", mcf_last_error());
    }
    int codes[2] = {rc, prc};
    mcfe_mpi_bcast(codes, sizeof codes);
    mcfe_mpi_bcast(&plan, sizeof plan);
    mcfe_mpi_bcast(why, sizeof why);
    if (codes[0] || codes[1])
        return mcf_fail(codes[0] ? codes[0] : MCF_EINVAL, "mcf tc: %s: refinement %zu: %s", dir,
                        s, why);
    char sizes[1024] = "", temps[4096] = "", sub[4200], path[4300];
    for (size_t k = 0; k < plan.n_sizes; k++)
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%ld", k ? ", " : "",
                 plan.L[k]);
    for (size_t k = 0; k < plan.n_temps; k++)
        snprintf(temps + strlen(temps), sizeof temps - strlen(temps), "%s%.6g", k ? ", " : "",
                 plan.T[k]);
    tc_refine_dir(sub, sizeof sub, dir, s);
    if (mcfe_mpi_rank() == 0)
        printf("mcf tc: refinement %zu of %zu: L = %s at T = %s (T_c %.6g +- %.3g); the "
               "neighbours of L = %ld %.2g standard deviations of energy apart%s; in %s\n", s,
               set->refine, sizes, temps, plan.centre, plan.half, plan.apart_L, plan.apart,
               plan.apart > 1.05 ? " (more than 1: [tc] refine_points caps the grid)" : "",
               sub);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    rc = mcfe_config_read(path, out);
    mcf_config *c = *out;
    char seed[64];
    snprintf(seed, sizeof seed, "%ld", int_key(c, "run", "seed", 1) + (long)s);
    if (!rc)
        rc = set_key(c, "model", "L", sizes);
    if (!rc)
        rc = set_key(c, "schedule", "temperatures", temps);
    if (!rc)
        rc = set_key(c, "tc", "sizes", sizes);
    if (!rc)
        rc = set_key(c, "tc", "temperatures", temps);
    if (!rc)
        rc = set_key(c, "tc", "refine", "0"); /* `mcf resume DIR/refine-s` runs it alone */
    if (!rc)
        rc = set_key(c, "run", "output", sub);
    if (!rc)
        rc = set_key(c, "run", "seed", seed);
    const mcf_config_entry *target = entry(set->source, "tc", "error_target");
    if (!rc && target && s == set->refine) {
        const mcf_config_entry *old = entry(c, "schedule", "error_target");
        char list[4096];
        snprintf(list, sizeof list, "%s%s%s", old ? old->value : "", old ? " " : "",
                 target->value);
        rc = set_key(c, "schedule", "error_target", list);
    }
    if (!rc && s == set->refine && set->held_max[0])
        rc = set_key(c, "schedule", "max_sweeps", set->held_max);
    return rc;
}

/* one scan: the setup s run into dir (resumed if asked), and freed */
static int run_scan(mcf_setup *s, const char *dir, int resume, mcf_run_options *opt,
                    tc_settings *set)
{
    int rc;
    opt->resume = resume;
    opt->output = dir;
    opt->tc_estimate = estimate;
    opt->tc_ctx = set;
    if (resume && mcfe_mpi_rank() == 0)
        printf("mcf tc: %s holds this run; continuing it\n", dir);
    rc = mcfe_run_execute(s, opt);
    mcfe_setup_free(s);
    return rc;
}

/* the first scan's stamp that refinement scan sub was planned from (sub/planned_from), 0 if
 * none */
static uint64_t planned_from(const char *sub)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/planned_from", sub);
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llx", &v) != 1)
            v = 0;
        fclose(f);
    }
    return (uint64_t)v;
}

/* Rank 0's: refinement scan sub made ready for a fresh run planned from stamp: an earlier
 * scan there (planned from another first scan: a --force run) kept aside as sub.earlier-N,
 * the folder made and its stamp written */
static int make_stage_folder(const char *sub, uint64_t stamp)
{
    char path[4300];
    struct stat st;
    if (stat(sub, &st) == 0) {
        int n = 1;
        do
            snprintf(path, sizeof path, "%s.earlier-%d", sub, n++);
        while (stat(path, &st) == 0 && n < 1000);
        if (rename(sub, path) != 0)
            return mcf_fail(MCF_EIO, "mcf tc: %s was planned from another first scan and "
                            "cannot be kept aside as %s (%s): move it away", sub, path,
                            strerror(errno));
        printf("mcf tc: %s was planned from another first scan: kept as %s, planned "
               "again\n", sub, path);
    }
    snprintf(path, sizeof path, "%s/planned_from", sub);
    FILE *f = NULL;
    if (mcfe_mkdir_p(sub) || !(f = fopen(path, "w")) ||
        fprintf(f, "%016llx\n", (unsigned long long)stamp) < 0 || fclose(f) != 0)
        return mcf_fail(MCF_EIO, "mcf tc: %s: cannot write it (%s)", path, strerror(errno));
    return MCF_OK;
}

/* the refinement scans after the first (dirs[0]): each resumed where its folder holds one
 * planned from this first scan (sub/planned_from: the first scan's stamp), else planned now;
 * dirs filled with their folders */
static int refine_all(tc_settings *set, mcf_run_options *opt, char (*sub)[4200],
                      const char **dirs)
{
    int rc = MCF_OK;
    const uint64_t stamp = tc_refine_stamp(dirs[0]);
    for (size_t s = 1; !rc && s <= set->refine; s++) {
        char path[4300];
        tc_refine_dir(sub[s], sizeof sub[s], dirs[0], s);
        dirs[s] = sub[s];
        snprintf(path, sizeof path, "%s/config.ini", sub[s]);
        struct stat st;
        int begun = stat(path, &st) == 0 && planned_from(sub[s]) == stamp;
        mcfe_mpi_bcast(&begun, sizeof begun);
        mcf_config *c = NULL;
        rc = begun ? mcfe_config_read(path, &c) : plan_stage(dirs[0], s, set, dirs, &c);
        if (!rc && !begun)
            rc = mcfe_mpi_agree(mcfe_mpi_rank() == 0 ? make_stage_folder(sub[s], stamp)
                                                     : MCF_OK);
        set->n_prior = s;
        for (size_t d = 0; d < s; d++)
            set->prior[d] = dirs[d];
        mcf_setup *setup = NULL;
        if (!rc)
            rc = mcfe_setup_create(c, &setup);
        if (!rc)
            rc = run_scan(setup, sub[s], begun, opt, set);
        if (rc && setup && mcfe_mpi_rank() == 0)
            printf("mcf tc: refinement %zu of %zu stopped; `mcf resume %s` continues the "
                   "whole (this scan, the rest, then their analysis together)\n", s,
                   set->refine, dirs[0]);
        if (c)
            mcfe_config_free(c);
    }
    return rc;
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
    memset(&set, 0, sizeof set); /* read_settings fills it; a config that fails to read not */
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
        rc = derive_scan(c, &set);
    /* an output folder of this configuration continues (the engine refuses another's) */
    static char dir[4096];
    static char sub[TC_MAX_DIRS][4200];
    const char *dirs[TC_MAX_DIRS] = {dir};
    mcf_setup *s = NULL;
    if (!rc)
        rc = mcfe_setup_create(c, &s);
    if (!rc) {
        snprintf(dir, sizeof dir, "%s", resume_dir ? resume_dir : s->output);
        snprintf(path, sizeof path, "%s/config.ini", dir);
        opt->force = force;
        rc = run_scan(s, dir, resume_dir || (!force && stat(path, &st) == 0), opt, &set);
    }
    const int rank0 = mcfe_mpi_rank() == 0; /* `mpirun mcf resume DIR`: the analysis is
                                               rank 0's */
    if (c && rank0)
        keep_settings(dir, &set); /* also after a stop: `mcf resume` continues as mcf tc */
    opt->force = 0;
    if (!rc)
        rc = refine_all(&set, opt, sub, dirs);
    if (c)
        mcfe_config_free(c);
    if (kept)
        mcfe_config_free(kept);
    if (rc || !rank0)
        return rc;
    tc_run t;
    tc_defaults(&t, dir);
    for (size_t d = 0; d <= set.refine; d++)
        t.dirs[d] = dirs[d];
    t.n_dirs = set.refine + 1;
    t.keep_bridged = set.refine > 0;
    if (set.refine)
        printf("mcf tc: the first scan and its %zu refinement%s reweighted together:\n",
               set.refine, set.refine > 1 ? "s" : "");
    t.blocks = set.blocks;
    t.chain_blocks = set.chain_blocks;
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
