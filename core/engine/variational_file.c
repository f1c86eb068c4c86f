/* variational_file.c — [model] KEY = optimized, KEY the model's variational file key
 * (jastrow_file for slater-jastrow): one configuration for an optimization and for the run
 * that uses its answer (issue 46: VMC -> DMC in one config).
 *
 * `mcf run CONFIG` (core/program/optimize_first.c) first optimizes into DIR/optimize, a
 * plain `mcf optimize` folder (optimize.tsv, parameters.txt, optimize.state, its own log and
 * resume), and then runs with the parameters of DIR/optimize/parameters.txt.  The model
 * never sees `optimized`: the setup hands it KEY's default (no file: the parameters its
 * other keys give, which are the optimization's start), and the run sets every chain's
 * parameters from the file right after creating it (variational_set), before a checkpoint
 * is loaded, so a resumed run has them too.  The file is read back as the core wrote it
 * (model_ops.c's variational_write: the model's head, then one line per group, its name and
 * its values in %.17g), from its last lines, so the values are the very bits the
 * optimization averaged.  Only an ABI-2 model describes its groups to the core, so only
 * ABI 2 takes `optimized` (an ABI-1 model writes its file itself). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "fileio.h"
#include "model_ops.h"
#include "optimize.h"
#include "optimize_state.h"
#include "setup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPTIMIZED "optimized"

int mcfi_setup_optimized_key(const mcf_config *c, mcf_setup *s, mcf_section *model)
{
    const mcfi_model *m = s->model->model;
    const char *key = m->variational_file_key;
    for (size_t j = 0; key && model->specs && j < model->n; j++) {
        const mcf_param_spec *spec = &model->specs[j];
        if (strcmp(spec->name, key) || spec->type != MCF_PARAM_STRING || model->axis[j] >= 0 ||
            !model->single[j].text || strcmp(model->single[j].text, OPTIMIZED))
            continue;
        char where[512];
        mcfe_config_key_where(c, "model", key, where, sizeof where);
        if (!mcfi_model_v2(m))
            return mcf_fail(MCF_EINVAL, "%s: [model] %s = optimized: model %s is built for "
                            "ABI 1, whose parameter file the core cannot read back; run `mcf "
                            "optimize` and give its parameters.txt to %s", where, key,
                            s->model_name, key);
        char *dflt = strdup(spec->default_value ? spec->default_value : "");
        if (!dflt)
            return mcf_fail(MCF_ENOMEM, "out of memory");
        free(model->single[j].text);
        model->single[j].text = dflt;
        s->optimized_key = key;
    }
    return MCF_OK;
}

const char *mcfe_optimize_stage_dir(const char *dir, char *buf, size_t size)
{
    snprintf(buf, size, "%s/optimize", dir);
    return buf;
}

/* [optimize] iterations of the folder's config.ini (its default when not given) */
static int stage_iterations(const char *stage, long *iterations)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/config.ini", stage);
    mcf_config *c = NULL;
    int rc = mcfe_config_read(path, &c);
    const char *text = NULL;
    for (const mcf_param_spec *sp = mcfi_optimize_specs(); sp->name && !text; sp++)
        if (!strcmp(sp->name, "iterations"))
            text = sp->default_value;
    for (size_t k = 0; !rc && k < c->n; k++)
        if (!strcmp(c->entries[k].section, "optimize") && !strcmp(c->entries[k].key,
                                                                  "iterations"))
            text = c->entries[k].value;
    char *end = NULL;
    *iterations = text ? strtol(text, &end, 10) : 0;
    if (!rc && (!text || end == text))
        rc = mcf_fail(MCF_EFORMAT, "%s: [optimize] iterations is no number", path);
    if (c)
        mcfe_config_free(c);
    return rc;
}

int mcfe_optimize_finished(const char *stage, int *finished)
{
    *finished = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/optimize.state", stage);
    unsigned char *data = NULL;
    size_t size = 0;
    struct stat st;
    const int problem = mcfi_read_file(path, O_RDONLY | O_NOFOLLOW, mcfi_memory_bytes(), &data,
                                       &size, &st);
    if (problem == MCFI_FILE_CANNOT_OPEN && errno == ENOENT)
        return MCF_OK;
    if (problem)
        return mcf_fail(MCF_EFORMAT, "%s: cannot be read as an optimization's state; remove "
                        "the folder %s to optimize again", path, stage);
    opt_head h;
    int rc = MCF_OK;
    if (size < sizeof h || memcmp(data, OPT_MAGIC, 8))
        rc = mcf_fail(MCF_EFORMAT, "%s: not an optimization's state (damaged or foreign); "
                      "remove the folder %s to optimize again", path, stage);
    else
        memcpy(&h, data, sizeof h);
    free(data);
    long iterations = 0;
    if (!rc)
        rc = stage_iterations(stage, &iterations);
    if (!rc)
        *finished = iterations > 0 && h.iteration >= (uint64_t)iterations;
    return rc;
}

/* The values of the groups v describes from the file's text (its last v->groups lines that
 * are not blank) into p. */
static int parse(const char *path, char *text, const mcf_variational *v, double *p)
{
    size_t n_lines = 0, cap = 16;
    char **line = malloc(cap * sizeof *line);
    if (!line)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    for (char *s = text, *next; s && *s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        if (s[strspn(s, " \t\r")] == '\0')
            continue;
        if (n_lines == cap) {
            char **more = realloc(line, 2 * cap * sizeof *line);
            if (!more) {
                free(line);
                return mcf_fail(MCF_ENOMEM, "out of memory");
            }
            line = more, cap *= 2;
        }
        line[n_lines++] = s;
    }
    int rc = n_lines < v->groups
                 ? mcf_fail(MCF_EFORMAT, "%s: %zu lines; the parameters need %zu (one per "
                            "group)", path, n_lines, v->groups) : MCF_OK;
    double *x = p;
    for (size_t g = 0; g < v->groups && !rc; g++) {
        const char *s = line[n_lines - v->groups + g], *name = v->group[g];
        const size_t len = strlen(name);
        if (strncmp(s, name, len) || (s[len] && !strchr(" \t", s[len])))
            rc = mcf_fail(MCF_EFORMAT, "%s: the line of group %zu is \"%.60s\"; expected it to "
                          "begin with \"%s\" (the file as the optimization wrote it)", path,
                          g, s, name);
        s += len;
        for (size_t k = 0; k < v->group_count[g] && !rc; k++) {
            char *end;
            errno = 0;
            *x++ = strtod(s, &end);
            if (end == s || errno == ERANGE)
                rc = mcf_fail(MCF_EFORMAT, "%s: group %s: value %zu of %zu is missing or no "
                              "number", path, name, k + 1, v->group_count[g]);
            s = end;
        }
        if (!rc && s[strspn(s, " \t\r")])
            rc = mcf_fail(MCF_EFORMAT, "%s: group %s has more than its %zu values", path, name,
                          v->group_count[g]);
    }
    free(line);
    return rc;
}

int mcfi_variational_load(mcf_run *r)
{
    const mcf_setup *s = r->setup;
    if (!s->optimized_key || !r->n_own)
        return MCF_OK;
    char stage[4200], path[4300];
    mcfe_optimize_stage_dir(r->dir, stage, sizeof stage);
    snprintf(path, sizeof path, "%s/parameters.txt", stage);
    unsigned char *data = NULL;
    size_t size = 0;
    struct stat st;
    const int problem = mcfi_read_file(path, O_RDONLY, 1u << 24, &data, &size, &st);
    if (problem)
        return mcf_fail(problem == MCFI_FILE_CANNOT_OPEN && errno == ENOENT ? MCF_EINVAL
                        : MCF_EIO, "%s: %s; [model] %s = optimized takes the parameters that "
                        "`mcf run %s` optimizes into %s before the run (`mcf resume %s` after a "
                        "stop)", path, problem == MCFI_FILE_CANNOT_OPEN ? strerror(errno)
                        : "not a regular file of at most 16 MiB", s->optimized_key,
                        s->config_path, stage, r->dir);
    mcf_variational v;
    int rc = mcfi_model_variational(r->model, r->chains[r->own[0]].state, &v);
    double *p = NULL;
    if (!rc && !v.count)
        rc = mcf_fail(MCF_EINVAL, "%s: [model] %s = optimized: %s", s->config_path,
                      s->optimized_key, v.none ? v.none : "the model has no parameters");
    if (!rc && !(p = malloc(v.count * sizeof *p)))
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (!rc)
        rc = parse(path, (char *)data, &v, p);
    for (size_t i = 0; i < r->n_own && !rc; i++) {
        void *chain = r->chains[r->own[i]].state;
        if (MCFI_MODEL(r->model, variational_count, chain) != v.count)
            rc = mcf_fail(MCF_EINVAL, "%s: chain %zu has %zu variational parameters, chain "
                          "%zu %zu", s->config_path, r->own[i],
                          MCFI_MODEL(r->model, variational_count, chain), r->own[0], v.count);
        if (!rc && (rc = MCFI_MODEL(r->model, variational_set, chain, p)))
            rc = mcf_fail_prefix(rc, "%s: model %s, chain %zu", path, s->model_name,
                                 r->own[i]);
    }
    free(p);
    free(data);
    return rc;
}
