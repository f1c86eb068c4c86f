/* evaluator_auto.c — [run] evaluator = auto: the evaluator plugins of the kind the model
 * takes that offer themselves (auto_priority > 0), tried highest priority first, the
 * first whose probe says it can run here being opened; and the one-line account of the
 * choice for the log, or the error that says why none could be chosen.  Checking the
 * chosen plugin's [evaluator] section is setup.c's. */
#define _POSIX_C_SOURCE 200809L
#include "setup.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct auto_candidate {
    char *name, *path;
    int priority;
} auto_candidate;

typedef struct auto_list {
    int kind;
    auto_candidate *v;
    size_t n;
    int failed;   /* out of memory */
    int unloadable;  /* plugin files that could not be loaded */
} auto_list;

static void auto_collect(const mcf_plugin *p, void *ctx)
{
    auto_list *l = ctx;
    const mcf_plugin_info *in = p->info;
    if ((int)in->kind != l->kind || !MCF_PLUGIN_INFO_HAS(in, auto_priority) ||
        in->auto_priority <= 0)
        return;
    auto_candidate *v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v) {
        l->failed = 1;
        return;
    }
    l->v = v;
    v[l->n].name = strdup(in->name);
    v[l->n].path = strdup(p->path);
    v[l->n].priority = in->auto_priority;
    if (!v[l->n].name || !v[l->n].path) {
        free(v[l->n].name);
        free(v[l->n].path);
        l->failed = 1;
        return;
    }
    l->n++;
}

static void auto_unloadable(const char *path, const char *message, void *ctx)
{
    (void)path;
    (void)message;
    ((auto_list *)ctx)->unloadable++;
}

static int auto_order(const void *a, const void *b)
{
    const auto_candidate *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* [run] evaluator = auto: opens the first usable candidate of the model's evaluator kind
 * (highest auto_priority first, ties by name; usable = no probe, or probe() == 1) into
 * s->evaluator, replaces s->evaluator_name by its name and keeps the one-line account of
 * the choice in s->evaluator_note (logged by the run once the log is open).  The setup
 * is made before the run's log exists, hence the note. */
int mcfi_resolve_auto_evaluator(mcf_config *c, mcf_setup *s)
{
    char where[512];
    const char *at = mcfe_config_key_where(c, "run", "evaluator", where, sizeof where);
    int kind = s->model->model->evaluator_kind;
    if (kind != MCF_PLUGIN_FERMION_EVALUATOR && kind != MCF_PLUGIN_ORBITAL_EVALUATOR)
        return mcf_fail(MCF_EINVAL, "%s: [run] evaluator = auto: model '%s' takes no "
                        "evaluator, so there is nothing to choose; use evaluator = none",
                        at, s->model_name);
    auto_list l = {.kind = kind};
    mcfe_plugin_foreach(auto_collect, auto_unloadable, &l);
    int rc = MCF_OK;
    mcf_text skipped = {0};
    if (l.failed) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
        goto done;
    }
    qsort(l.v, l.n, sizeof *l.v, auto_order);
    for (size_t k = 0; k < l.n && !s->evaluator; k++) {
        mcf_plugin *p;
        char why[256] = "";
        if (mcfi_plugin_open_file(l.v[k].path, kind, &p)) {
            mcfe_text_printf(&skipped, "%s skipped (%s); ", l.v[k].name, mcf_last_error());
            continue;
        }
        const mcf_plugin_info *in = p->info;
        int usable = 1;
        if (MCF_PLUGIN_INFO_HAS(in, probe) && in->probe) {
            usable = in->probe(why, sizeof why) == 1;
            why[sizeof why - 1] = '\0';
            why[strcspn(why, "\r\n")] = '\0';
        }
        if (!usable) {
            mcfe_text_printf(&skipped, "%s skipped (%s); ", l.v[k].name,
                             why[0] ? why : "its probe says it cannot run here");
            mcfe_plugin_close(p);
            continue;
        }
        s->evaluator = p;
        free(s->evaluator_name);
        s->evaluator_name = strdup(in->name);
        mcf_text note = {0};
        mcfe_text_printf(&note, "evaluator = auto: %susing %s (", skipped.s ? skipped.s : "",
                        in->name);
        if (why[0])
            mcfe_text_printf(&note, "%s; priority %d)", why, l.v[k].priority);
        else
            mcfe_text_printf(&note, "priority %d; no probe: always usable)", l.v[k].priority);
        if (l.unloadable)
            mcfe_text_printf(&note, "; %d plugin file%s on the search path could not be loaded "
                             "(see `mcf plugins`)", l.unloadable, l.unloadable == 1 ? "" : "s");
        if (note.failed || !s->evaluator_name) {
            free(note.s);
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
            goto done;
        }
        s->evaluator_note = note.s;
    }
    if (!s->evaluator) {
        const char *kname = mcfe_plugin_kind_name(kind);
        if (!l.n) {
            char *search = mcfe_plugin_search_path();
            rc = mcf_fail(MCF_EPLUGIN, "%s: [run] evaluator = auto: no %s plugin on the search "
                          "path (%s) is a candidate (auto_priority > 0) for model '%s'; name "
                          "the evaluator instead (see `mcf plugins`)",
                          at, kname, search ? search : "?", s->model_name);
            free(search);
        } else {
            size_t len = skipped.s ? strlen(skipped.s) : 0;
            if (len >= 2)
                skipped.s[len - 2] = '\0'; /* the last "; " */
            rc = mcf_fail(MCF_EPLUGIN, "%s: [run] evaluator = auto: no %s plugin usable on "
                          "this machine for model '%s': %s; name the evaluator instead (see "
                          "`mcf plugins`)",
                          at, kname, s->model_name, skipped.s ? skipped.s : "");
        }
    }
done:
    for (size_t k = 0; k < l.n; k++) {
        free(l.v[k].name);
        free(l.v[k].path);
    }
    free(l.v);
    free(skipped.s);
    return rc;
}
