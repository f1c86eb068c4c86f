/* optimize_first.c — `mcf run CONFIG` and `mcf resume DIR` of a configuration with [model]
 * KEY = optimized (KEY the model's variational file key; core/engine/variational_file.c):
 * first the optimization stage in DIR/optimize, then the run, which takes the parameters of
 * DIR/optimize/parameters.txt.
 *
 * The stage is the optimization `mcf optimize` would make of the same configuration with
 * KEY removed (the model's other keys give the start), [run] method and timestep removed
 * (it samples |Psi|^2 at one point), [run] walkers = [optimize] walkers when that is set, and
 * [run] output = DIR/optimize: a plain optimization folder with its own config.ini, log and
 * state.  Before it starts, DIR gets the run's kind and config.ini, so that `mcf resume DIR`
 * after a stop finds the run and continues whichever stage was under way; a finished stage
 * is not repeated.  On resume the stage's config.ini must be the one this configuration
 * derives (its comment lines aside): otherwise DIR/optimize belongs to another configuration
 * (a `--force` run stopped before its first checkpoint leaves the earlier run in DIR) and
 * the run is refused rather than given parameters optimized for something else. */
#define _POSIX_C_SOURCE 200809L
#include "command_config.h"

#include "mcf_engine.h"
#include "mcf/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The stage's configuration: c with the changes of the header. */
static int stage_config(const mcf_config *c, const mcf_setup *s, const char *stage,
                        mcf_config **out)
{
    int rc = mcfe_config_copy(c, out);
    if (rc)
        return rc;
    mcf_config *d = *out;
    mcfe_config_remove(d, "model", s->optimized_key);
    mcfe_config_remove(d, "run", "method");
    mcfe_config_remove(d, "run", "timestep");
    char buf[4300];
    snprintf(buf, sizeof buf, "run.output=%s", stage);
    rc = mcfi_optimize_walkers(d);
    return rc ? rc : mcfe_config_override(d, buf);
}

int mcfi_optimize_walkers(mcf_config *c)
{
    for (size_t k = 0; k < c->n; k++) {
        const mcf_config_entry *e = &c->entries[k];
        char *end, buf[128];
        const long w = strtol(e->value, &end, 10);
        if (strcmp(e->section, "optimize") || strcmp(e->key, "walkers") || *end || w <= 0)
            continue; /* not given, 0, or not a number: the setup's check says so */
        snprintf(buf, sizeof buf, "run.walkers=%ld", w);
        return mcfe_config_override(c, buf);
    }
    return MCF_OK;
}

/* text without its comment lines (';' first) */
static char *without_comments(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (*p != ';') {
            memcpy(o, p, len);
            o += len;
        }
        p += len;
    }
    *o = '\0';
    return out;
}

/* The stage's config.ini is the one s2 writes (comments aside), or the refusal. */
static int same_stage(const char *stage, const mcf_setup *s2, const char *dir)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/config.ini", stage);
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcf_fail(MCF_EIO, "%s: %s", path, strerror(errno));
    char *text = calloc(1, 1 << 20);
    const size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    char *a = text ? without_comments(text) : NULL, *b = without_comments(s2->canonical);
    const int same = a && b && n > 0 && !strcmp(a, b);
    free(text), free(a), free(b);
    if (same)
        return MCF_OK;
    return mcf_fail(MCF_EINVAL, "%s holds an optimization of another configuration than %s/"
                    "config.ini's (a `--force` run stopped before its first checkpoint leaves "
                    "the earlier run in %s); its parameters are not this run's: remove %s, or "
                    "start again with `mcf run CONFIG --force`", stage, dir, dir, stage);
}

/* DIR/kind and DIR/config.ini of the run, written before the stage (fresh runs only, and
 * not over an earlier run that --force replaces at the run's first checkpoint). */
static int claim_folder(const char *dir, const mcf_setup *s)
{
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/config.ini", dir);
    if (stat(path, &st) == 0)
        return MCF_OK;
    int rc = mcfe_mkdir_p(dir);
    if (!rc)
        rc = mcfe_outdir_kind_write(dir, MCFI_KIND_RUN);
    return rc ? rc : mcfe_write_atomic(path, s->canonical, strlen(s->canonical));
}

int mcfi_optimize_first(const mcf_config *c, const mcf_setup *s, const mcf_run_options *opt)
{
    const char *dir = opt->output ? opt->output : s->output;
    char stage[4200];
    mcfe_optimize_stage_dir(dir, stage, sizeof stage);
    struct stat st;
    const int there = stat(stage, &st) == 0;
    if (!opt->resume && !opt->force && there)
        return mcf_fail(MCF_EINVAL, "%s: [model] %s = optimized, and %s already holds an "
                        "optimization; continue that run with `mcf resume %s`, choose another "
                        "[run] output, or pass --force to start both stages again", c->path,
                        s->optimized_key, stage, dir);
    mcf_config *c2 = NULL;
    mcf_setup *s2 = NULL;
    int finished = 0;
    int rc = stage_config(c, s, stage, &c2);
    if (!rc)
        rc = mcfe_setup_create(c2, &s2);
    if (rc) {
        rc = mcf_fail_prefix(rc, "the optimization stage of %s ([model] %s = optimized)",
                             c->path, s->optimized_key);
        goto done;
    }
    const int resume = opt->resume && there && !opt->force;
    if (resume && !(rc = same_stage(stage, s2, dir)))
        rc = mcfe_optimize_finished(stage, &finished);
    if (rc || finished)
        goto done;
    if (mcfe_mpi_size() > 1) {
        rc = mcf_fail(MCF_EINVAL, "%s: [model] %s = optimized: the optimization stage runs on "
                      "one MPI rank (its walkers share one set of parameters); run `mcf run "
                      "%s` without mpirun until it has finished (or stop it after its first "
                      "checkpoint), then `mpirun ... mcf resume %s`", c->path,
                      s->optimized_key, c->path, dir);
        goto done;
    }
    if (!opt->resume && (rc = claim_folder(dir, s)))
        goto done;
    mcf_run_options o = {.output = stage, .resume = resume, .force = opt->force && !resume,
                         .progress = opt->progress, .optimize = 1, .stage = 1};
    int lock = -1;
    if (resume && (rc = mcfe_outdir_lock(stage, &lock)))
        goto done;
    o.output_locked = resume;
    fprintf(stderr, "mcf: [model] %s = optimized: the optimization first, in %s\n",
            s->optimized_key, stage);
    rc = mcfe_run_execute(s2, &o);
    mcfe_outdir_unlock(lock);
    if (rc == MCF_EINTR) {
        char why[4096];
        snprintf(why, sizeof why, "%s", mcf_last_error());
        rc = mcf_fail(MCF_EINTR, "%s; continue the optimization and then the run with `mcf "
                      "resume %s`", why, dir);
    }
done:
    mcfe_setup_free(s2);
    mcfe_config_free(c2);
    return rc;
}
