/* config.c — INI configuration files (read with inih) and their validation into a run
 * setup: core keys, plugin parameters, scan axes and the configuration as used. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ------------------------------------------------------------------------ */

typedef struct reader_ctx {
    FILE *f;
    int line;
    int too_long;  /* first line longer than inih's buffer */
    mcf_config *config;
    int failed;    /* status of the first handler failure */
} reader_ctx;

/* inih reads through this function one line per call, so ctx->line is the number of the
 * line the handler is called for. */
static char *count_lines(char *buf, int size, void *stream)
{
    reader_ctx *ctx = stream;
    char *r = fgets(buf, size, ctx->f);
    if (r) {
        size_t len = strlen(buf);
        ctx->line++;
        if (len == (size_t)size - 1 && buf[len - 1] != '\n' && !feof(ctx->f) && !ctx->too_long)
            ctx->too_long = ctx->line;
    }
    return r;
}

static int add_entry(mcf_config *c, const char *section, const char *key, const char *value,
                     const char *file, int line)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        mcf_config_entry *e = realloc(c->entries, cap * sizeof *e);
        if (!e)
            return mcf_fail(MCF_ENOMEM, "out of memory reading %s", file);
        c->entries = e;
        c->cap = cap;
    }
    mcf_config_entry *e = &c->entries[c->n];
    memset(e, 0, sizeof *e);
    e->section = strdup(section);
    e->key = strdup(key);
    e->value = strdup(value);
    e->file = strdup(file);
    e->line = line;
    if (!e->section || !e->key || !e->value || !e->file)
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", file);
    c->n++;
    return MCF_OK;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    reader_ctx *ctx = user;
    mcf_config *c = ctx->config;
    if (ctx->failed)
        return 0;
    if (!section[0]) {
        ctx->failed = mcf_fail(MCF_EINVAL,
                               "%s:%d: key '%s' stands before any [section]; put it under "
                               "[run], [schedule], [model] or [evaluator]",
                               c->path, ctx->line, name);
        return 0;
    }
    mcf_config_entry *old = mcf_config_find(c, section, name);
    if (old) {
        ctx->failed = mcf_fail(MCF_EINVAL, "%s:%d: [%s] %s is given twice (first at line %d)",
                               c->path, ctx->line, section, name, old->line);
        return 0;
    }
    int rc = add_entry(c, section, name, value, c->path, ctx->line);
    if (rc) {
        ctx->failed = rc;
        return 0;
    }
    return 1;
}

int mcf_config_read(const char *path, mcf_config **out)
{
    *out = NULL;
    mcf_config *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        mcf_config_free(c);
        return mcf_fail(MCF_EIO, "%s: cannot open the configuration file (%s)", path,
                        strerror(errno));
    }
    reader_ctx ctx = {.f = f, .config = c};
    int r = ini_parse_stream(count_lines, &ctx, on_key, &ctx);
    fclose(f);
    int rc = MCF_OK;
    if (ctx.too_long)
        rc = mcf_fail(MCF_EINVAL, "%s:%d: line is longer than %d characters", path,
                      ctx.too_long, INI_MAX_LINE - 1);
    else if (ctx.failed)
        rc = ctx.failed;
    else if (r < 0)
        rc = mcf_fail(MCF_EIO, "%s: could not be read", path);
    else if (r > 0)
        rc = mcf_fail(MCF_EINVAL,
                      "%s:%d: syntax error: expected '[section]', 'key = value' or a comment "
                      "starting with ; or #",
                      path, r);
    if (rc) {
        mcf_config_free(c);
        return rc;
    }
    *out = c;
    return MCF_OK;
}

static char *trim(char *s);

int mcf_config_override(mcf_config *c, const char *assignment)
{
    const char *dot = strchr(assignment, '.');
    const char *eq = strchr(assignment, '=');
    if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1)
        return mcf_fail(MCF_EINVAL,
                        "--set %s: expected section.key=value, e.g. --set model.L=32",
                        assignment);
    char section[128], key[128];
    size_t ls = (size_t)(dot - assignment), lk = (size_t)(eq - dot - 1);
    if (ls >= sizeof section || lk >= sizeof key)
        return mcf_fail(MCF_EINVAL, "--set %s: section or key too long", assignment);
    memcpy(section, assignment, ls);
    section[ls] = '\0';
    memcpy(key, dot + 1, lk);
    key[lk] = '\0';
    char value_buf[4096];
    snprintf(value_buf, sizeof value_buf, "%s", eq + 1);
    const char *value = trim(value_buf);
    char *sec = trim(section), *k = trim(key);
    memmove(section, sec, strlen(sec) + 1);
    memmove(key, k, strlen(k) + 1);
    mcf_config_entry *e = mcf_config_find(c, section, key);
    if (e) {
        char *v = strdup(value), *file = strdup("command line (--set)");
        if (!v || !file) {
            free(v);
            free(file);
            return mcf_fail(MCF_ENOMEM, "out of memory");
        }
        free(e->value);
        free(e->file);
        e->value = v;
        e->file = file;
        e->line = 0;
        return MCF_OK;
    }
    return add_entry(c, section, key, value, "command line (--set)", 0);
}

mcf_config_entry *mcf_config_find(const mcf_config *c, const char *section, const char *key)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(c->entries[k].section, section) && !strcmp(c->entries[k].key, key))
            return &c->entries[k];
    return NULL;
}

void mcf_config_free(mcf_config *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < c->n; k++) {
        free(c->entries[k].section);
        free(c->entries[k].key);
        free(c->entries[k].value);
        free(c->entries[k].file);
    }
    free(c->entries);
    free(c->path);
    free(c);
}

const char *mcf_config_where(const mcf_config_entry *e, char *buf, size_t size)
{
    if (e->line > 0)
        snprintf(buf, size, "%s:%d", e->file, e->line);
    else
        snprintf(buf, size, "%s", e->file);
    return buf;
}

/* ---- the core's own keys ------------------------------------------------------------- */

static const mcf_param_spec run_specs[] = {
    {"model", MCF_PARAM_STRING, NULL, MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "the model plugin (see `mcf plugins`)"},
    {"evaluator", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "the evaluator plugin, none, or auto: the fastest usable evaluator of the kind the "
     "model takes (a GPU plugin when a device is present, else the CPU one); the log says "
     "which and why"},
    {"seed", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "the run's seed: chain k uses random stream (seed, k)"},
    {"output", MCF_PARAM_STRING, NULL, MCF_PARAM_NO_SCAN | MCF_PARAM_OPTIONAL_, 0, 0, NULL,
     "output folder (default: the config's name with .out)"},
    {"threads", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "worker threads; 0 = all cores (results do not depend on it)"},
    {"walkers", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     "independent chains (walkers) per scan point, combined into one row of results.tsv; "
     "chain point * walkers + w uses stream (seed, point * walkers + w)"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

static const mcf_param_spec schedule_specs[] = {
    {"thermalize", MCF_PARAM_INT, "1000", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "sweeps before measuring"},
    {"sweeps", MCF_PARAM_INT, "10000", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     "measured sweeps"},
    {"measure_every", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     "sweeps between measurements"},
    {"checkpoint_every", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0,
     NULL, "sweeps between checkpoints; 0 = at the end and on SIGINT/SIGTERM only"},
    {"temperatures", MCF_PARAM_REAL, NULL, MCF_PARAM_OPTIONAL_ | MCF_PARAM_SKIP_, 0, 0, NULL,
     "temperatures: a list (1.5, 2.0) or a linspace first:last:count"},
    {"bins", MCF_PARAM_INT, "32", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX,
     2, 4096, NULL, "jackknife bins for derived quantities"},
    {"adapt_every", MCF_PARAM_INT, "100", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     "thermalization sweeps between step-size adaptations"},
    {"exchange_every", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "parallel tempering: sweeps between replica exchanges of neighbouring temperatures "
     "(chains differing only in T); 0 = off"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

/* ---- validation ---------------------------------------------------------------------- */

static void text_vprintf(mcf_text *t, const char *fmt, va_list ap)
{
    va_list aq;
    if (t->failed)
        return;
    va_copy(aq, ap);
    int need = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (need < 0) {
        t->failed = 1;
        return;
    }
    if (t->len + (size_t)need + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + (size_t)need + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    t->len += (size_t)need;
}

void mcf_text_printf(mcf_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_vprintf(t, fmt, ap);
    va_end(ap);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* Parses a scan value: a list "a, b, c" or a linspace "first:last:count" into values. */
static int parse_axis(const mcf_param_spec *spec, const char *text, mcf_value **values,
                      size_t *n)
{
    *values = NULL;
    *n = 0;
    char *copy = strdup(text);
    if (!copy)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = MCF_OK;
    int numeric = spec->type == MCF_PARAM_INT || spec->type == MCF_PARAM_REAL;
    if (numeric && strchr(copy, ':')) {
        char *p1 = strchr(copy, ':');
        char *p2 = p1 ? strchr(p1 + 1, ':') : NULL;
        char *e1, *e2, *e3;
        if (!p2 || strchr(p2 + 1, ':') || strchr(copy, ',')) {
            free(copy);
            return mcf_fail(MCF_EINVAL, "'%s' is not a linspace: write first:last:count",
                            text);
        }
        *p1 = *p2 = '\0';
        double a = strtod(trim(copy), &e1), b = strtod(trim(p1 + 1), &e2);
        long cnt = strtol(trim(p2 + 1), &e3, 10);
        if (*e1 || *e2 || *e3 || !trim(copy)[0] || !trim(p1 + 1)[0] || !trim(p2 + 1)[0] ||
            !isfinite(a) || !isfinite(b)) {
            free(copy);
            return mcf_fail(MCF_EINVAL,
                            "'%s' is not a linspace: write first:last:count with numbers", text);
        }
        if (cnt < 2 || cnt > 1000000) {
            free(copy);
            return mcf_fail(MCF_EINVAL, "'%s': the count of a linspace must be in [2, 1000000]",
                            text);
        }
        mcf_value *v = calloc((size_t)cnt, sizeof *v);
        if (!v) {
            free(copy);
            return mcf_fail(MCF_ENOMEM, "out of memory");
        }
        for (long k = 0; k < cnt && !rc; k++) {
            double x = a + (b - a) * (double)k / (double)(cnt - 1);
            char buf[64];
            if (spec->type == MCF_PARAM_INT) {
                if (fabs(x - round(x)) > 1e-9) {
                    rc = mcf_fail(MCF_EINVAL,
                                  "'%s': point %ld of the linspace is %.10g, not an integer",
                                  text, k + 1, x);
                    break;
                }
                snprintf(buf, sizeof buf, "%ld", (long)round(x));
            } else {
                snprintf(buf, sizeof buf, "%.17g", x);
            }
            rc = mcf_value_parse(spec, buf, &v[k]);
            if (!rc && spec->type == MCF_PARAM_REAL) {
                /* keep the exact double of the formula and a readable text */
                v[k].r = x;
                free(v[k].text);
                snprintf(buf, sizeof buf, "%.10g", x);
                v[k].text = strdup(buf);
                if (!v[k].text)
                    rc = mcf_fail(MCF_ENOMEM, "out of memory");
            }
            *n = (size_t)k + 1;
        }
        *values = v;
        free(copy);
        return rc;
    }
    size_t count = 1;
    for (const char *p = copy; *p; p++)
        count += *p == ',';
    mcf_value *v = calloc(count, sizeof *v);
    if (!v) {
        free(copy);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    char *save = NULL, *p = copy;
    size_t k = 0;
    for (size_t i = 0; i < count && !rc; i++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        char *item = trim(p);
        if (!item[0]) {
            rc = mcf_fail(MCF_EINVAL, "'%s': item %zu of the list is empty", text, i + 1);
            break;
        }
        rc = mcf_value_parse(spec, item, &v[k]);
        if (!rc)
            k++;
        p = comma ? comma + 1 : p + strlen(p);
    }
    (void)save;
    *values = v;
    *n = k;
    free(copy);
    return rc;
}

static int is_axis_text(const mcf_param_spec *spec, const char *text)
{
    int numeric = spec->type == MCF_PARAM_INT || spec->type == MCF_PARAM_REAL;
    return strchr(text, ',') || (numeric && strchr(text, ':'));
}

static const char *const section_names[] = {"run", "schedule", "model", "evaluator"};

static int unknown_key_error(const mcf_config_entry *e, const mcf_param_spec *specs,
                             const char *owner)
{
    const char *cands[256];
    size_t n = 0;
    char where[512], valid[2048] = "";
    size_t used = 0;
    for (; specs && specs[n].name && n < 256; n++) {
        cands[n] = specs[n].name;
        used += (size_t)snprintf(valid + used, used < sizeof valid ? sizeof valid - used : 0,
                                 "%s%s", n ? ", " : "", specs[n].name);
    }
    const char *near = mcf_nearest_word(e->key, cands, n);
    mcf_config_where(e, where, sizeof where);
    if (near)
        return mcf_fail(MCF_EINVAL, "%s: [%s] unknown key '%s' for %s; did you mean '%s'? "
                        "(valid keys: %s)", where, e->section, e->key, owner, near, valid);
    return mcf_fail(MCF_EINVAL, "%s: [%s] unknown key '%s' for %s (valid keys: %s)", where,
                    e->section, e->key, owner, n ? valid : "none");
}

typedef struct checked {
    const char *section;
    const mcf_param_spec *specs;
    size_t n;
    mcf_value *single;
    long *axis;
    char **text;
} checked;

/* Validates one section of the config against specs.  Values that are lists or linspaces
 * become axes (appended to *axes) when allowed. */
static int check_section(mcf_config *c, const char *section, const mcf_param_spec *specs,
                         const char *owner, int section_index, checked *out, mcf_axis **axes,
                         size_t *n_axes)
{
    size_t n = mcf_spec_count(specs);
    memset(out, 0, sizeof *out);
    out->section = section;
    out->specs = specs;
    out->n = n;
    out->single = calloc(n ? n : 1, sizeof *out->single);
    out->axis = calloc(n ? n : 1, sizeof *out->axis);
    out->text = calloc(n ? n : 1, sizeof *out->text);
    if (!out->single || !out->axis || !out->text)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    /* unknown keys first, in file order (the temperature pass checks one key only) */
    for (size_t k = 0; k < c->n && section_index != 2; k++) {
        mcf_config_entry *e = &c->entries[k];
        if (strcmp(e->section, section) != 0)
            continue;
        size_t j = 0;
        while (j < n && strcmp(specs[j].name, e->key) != 0)
            j++;
        if (j == n)
            return unknown_key_error(e, specs, owner);
        e->used = 1;
    }
    for (size_t j = 0; j < n; j++) {
        const mcf_param_spec *s = &specs[j];
        mcf_config_entry *e = mcf_config_find(c, section, s->name);
        out->axis[j] = -1;
        char where[512] = "";
        const char *text;
        if (e) {
            text = e->value;
            mcf_config_where(e, where, sizeof where);
        } else if (s->default_value) {
            text = s->default_value;
        } else if (s->flags & MCF_PARAM_OPTIONAL_) {
            continue;
        } else {
            char allowed[256];
            mcf_spec_describe(s, allowed, sizeof allowed);
            return mcf_fail(MCF_EINVAL, "%s: [%s] %s is required (%s): %s; add `%s = ...` "
                            "under [%s]", c->path, section, s->name, allowed,
                            s->doc ? s->doc : "", s->name, section);
        }
        out->text[j] = strdup(text);
        if (!out->text[j])
            return mcf_fail(MCF_ENOMEM, "out of memory");
        if (s->flags & MCF_PARAM_SKIP_)
            continue;
        int scan_ok = !(s->flags & MCF_PARAM_NO_SCAN);
        int as_axis = is_axis_text(s, text) || (section_index == 2);
        if (as_axis && !scan_ok)
            return mcf_fail(MCF_EINVAL, "%s: [%s] %s = %s: this key takes one value, not a "
                            "list or linspace", where, section, s->name, text);
        if (as_axis) {
            mcf_axis *ax = realloc(*axes, (*n_axes + 1) * sizeof **axes);
            if (!ax)
                return mcf_fail(MCF_ENOMEM, "out of memory");
            *axes = ax;
            mcf_axis *a = &ax[*n_axes];
            memset(a, 0, sizeof *a);
            a->name = strdup(section_index == 2 ? "T" : s->name);
            a->section = section_index;
            a->spec_index = j;
            (*n_axes)++;
            int rc = a->name ? parse_axis(s, text, &a->values, &a->n)
                             : mcf_fail(MCF_ENOMEM, "out of memory");
            if (rc)
                return mcf_fail_prefix(rc, "%s: [%s] %s", where[0] ? where : c->path, section,
                                       s->name);
            out->axis[j] = (long)(*n_axes - 1);
        } else {
            int rc = mcf_value_parse(s, text, &out->single[j]);
            if (rc)
                return mcf_fail_prefix(rc, "%s: [%s] %s", where[0] ? where : c->path, section,
                                       s->name);
        }
    }
    return MCF_OK;
}

static void checked_release(checked *ck)
{
    for (size_t j = 0; j < ck->n; j++) {
        if (ck->single)
            mcf_value_release(&ck->single[j]);
        if (ck->text)
            free(ck->text[j]);
    }
    free(ck->single);
    free(ck->axis);
    free(ck->text);
    memset(ck, 0, sizeof *ck);
}

/* Whether key j goes into config.ini: it has a value, and MCF_PARAM_ECHO_IF_CHANGED keys
 * only when it is not the default's text. */
static int echoed(const checked *ck, size_t j)
{
    const mcf_param_spec *s = &ck->specs[j];
    if (!ck->text[j])
        return 0;
    return !(s->flags & MCF_PARAM_ECHO_IF_CHANGED) || !s->default_value ||
           strcmp(ck->text[j], s->default_value) != 0;
}

static void write_section(mcf_text *t, const checked *ck)
{
    mcf_text_printf(t, "[%s]\n", ck->section);
    for (size_t j = 0; j < ck->n; j++)
        if (echoed(ck, j))
            mcf_text_printf(t, "%s = %s\n", ck->specs[j].name, ck->text[j]);
    mcf_text_printf(t, "\n");
}

/* write_section(), leaving out the keys not in c when c is not NULL (and the section
 * altogether when none is left). */
static void write_section_given(mcf_text *t, const checked *ck, const mcf_config *c)
{
    if (!c) {
        write_section(t, ck);
        return;
    }
    size_t given = 0;
    for (size_t j = 0; j < ck->n; j++)
        given += echoed(ck, j) && mcf_config_find(c, ck->section, ck->specs[j].name);
    if (!given)
        return;
    mcf_text_printf(t, "[%s]\n", ck->section);
    for (size_t j = 0; j < ck->n; j++)
        if (echoed(ck, j) && mcf_config_find(c, ck->section, ck->specs[j].name))
            mcf_text_printf(t, "%s = %s\n", ck->specs[j].name, ck->text[j]);
    mcf_text_printf(t, "\n");
}

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

/* ---- evaluator = auto ------------------------------------------------------------------ */

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
static int resolve_auto_evaluator(mcf_config *c, mcf_setup *s)
{
    mcf_config_entry *e = mcf_config_find(c, "run", "evaluator");
    char where[512];
    const char *at = e ? mcf_config_where(e, where, sizeof where) : c->path;
    const mcf_model_ops *mops = s->model->info->ops;
    int kind = mops->struct_size >= offsetof(mcf_model_ops, evaluator_kind) +
                                        sizeof mops->evaluator_kind
                   ? mops->evaluator_kind
                   : 0;
    if (kind != MCF_PLUGIN_FERMION_EVALUATOR && kind != MCF_PLUGIN_ORBITAL_EVALUATOR)
        return mcf_fail(MCF_EINVAL, "%s: [run] evaluator = auto: model '%s' takes no "
                        "evaluator, so there is nothing to choose; use evaluator = none",
                        at, s->model_name);
    auto_list l = {.kind = kind};
    mcf_plugin_foreach(auto_collect, auto_unloadable, &l);
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
        if (mcf_plugin_open_file(l.v[k].path, kind, &p)) {
            mcf_text_printf(&skipped, "%s skipped (%s); ", l.v[k].name, mcf_last_error());
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
            mcf_text_printf(&skipped, "%s skipped (%s); ", l.v[k].name,
                            why[0] ? why : "its probe says it cannot run here");
            mcf_plugin_close(p);
            continue;
        }
        s->evaluator = p;
        free(s->evaluator_name);
        s->evaluator_name = strdup(in->name);
        mcf_text note = {0};
        mcf_text_printf(&note, "evaluator = auto: %susing %s (", skipped.s ? skipped.s : "",
                        in->name);
        if (why[0])
            mcf_text_printf(&note, "%s; priority %d)", why, l.v[k].priority);
        else
            mcf_text_printf(&note, "priority %d; no probe: always usable)", l.v[k].priority);
        if (l.unloadable)
            mcf_text_printf(&note, "; %d plugin file%s on the search path could not be loaded "
                            "(see `mcf plugins`)", l.unloadable, l.unloadable == 1 ? "" : "s");
        if (note.failed || !s->evaluator_name) {
            free(note.s);
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
            goto done;
        }
        s->evaluator_note = note.s;
    }
    if (!s->evaluator) {
        const char *kname = mcf_plugin_kind_name(kind);
        if (!l.n)
            rc = mcf_fail(MCF_EPLUGIN, "%s: [run] evaluator = auto: no %s plugin on the search "
                          "path (%s) is a candidate (auto_priority > 0) for model '%s'; name "
                          "the evaluator instead (see `mcf plugins`)",
                          at, kname, mcf_plugin_search_path(), s->model_name);
        else {
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

/* [schedule] exchange_every > 0: tempering needs a temperature axis of >= 2 values (the
 * last axis, so the chains of one tempering group are nT consecutive scan points) and a
 * model with set_temperature and energy or exchange_action. */
static int check_tempering(const mcf_config *c, const mcf_setup *s)
{
    const mcf_config_entry *e = mcf_config_find(c, "schedule", "exchange_every");
    char where[512];
    snprintf(where, sizeof where, "%s", c->path);
    if (e)
        mcf_config_where(e, where, sizeof where);
    size_t nT = 0;
    if (s->n_axes && s->axes[s->n_axes - 1].section == 2)
        nT = s->axes[s->n_axes - 1].n;
    if (nT < 2)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] exchange_every = %ld: parallel tempering "
                        "exchanges temperatures, but [schedule] temperatures %s; give at least "
                        "two temperatures (a list or first:last:count), or set exchange_every "
                        "= 0", where, s->exchange_every,
                        nT ? "has a single value" : "is not given");
    const mcf_model_ops *mops = s->model->info->ops;
    if (!mcf_model_tempering(mops))
        return mcf_fail(MCF_EINVAL, "%s: [schedule] exchange_every = %ld: model '%s' does not "
                        "support parallel tempering (its plugin has no set_temperature with "
                        "energy or exchange_action ops); set exchange_every = 0", where,
                        s->exchange_every,
                        s->model_name);
    return MCF_OK;
}

int mcf_setup_create(mcf_config *c, mcf_setup **out)
{
    *out = NULL;
    mcf_setup *s = calloc(1, sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    checked run = {0}, sched = {0}, sec[2] = {{0}, {0}};
    mcf_axis *core_axes = NULL;
    size_t n_core_axes = 0;
    int rc;

    /* unknown sections */
    for (size_t k = 0; k < c->n; k++) {
        const mcf_config_entry *e = &c->entries[k];
        int known = 0;
        for (size_t j = 0; j < 4; j++)
            known |= !strcmp(e->section, section_names[j]);
        if (!known) {
            char where[512];
            const char *near = mcf_nearest_word(e->section, section_names, 4);
            mcf_config_where(e, where, sizeof where);
            rc = mcf_fail(MCF_EINVAL, "%s: unknown section [%s]%s%s%s (sections: [run], "
                          "[schedule], [model], [evaluator])", where, e->section,
                          near ? "; did you mean [" : "", near ? near : "", near ? "]?" : "");
            goto fail;
        }
    }

    s->config_path = strdup(c->path);
    if (!s->config_path) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = check_section(c, "run", run_specs, "[run]", 0, &run, &core_axes, &n_core_axes)))
        goto fail;
    if ((rc = check_section(c, "schedule", schedule_specs, "[schedule]", 0, &sched, &core_axes,
                            &n_core_axes)))
        goto fail;
    /* temperatures is the only scanned core key; re-check it as the temperature axis */
    {
        size_t jt = 4; /* index of temperatures in schedule_specs */
        if (sched.text[jt]) {
            mcf_axis *ta = NULL;
            size_t nta = 0;
            checked tmp;
            static const mcf_param_spec tspec[] = {
                {"temperatures", MCF_PARAM_REAL, NULL,
                 MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL, "temperatures"},
                {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};
            rc = check_section(c, "schedule", tspec, "[schedule]", 2, &tmp, &ta, &nta);
            checked_release(&tmp);
            if (rc) {
                for (size_t a = 0; a < nta; a++) {
                    for (size_t v = 0; v < ta[a].n; v++)
                        mcf_value_release(&ta[a].values[v]);
                    free(ta[a].values);
                    free(ta[a].name);
                }
                free(ta);
                goto fail;
            }
            core_axes = realloc(core_axes, (n_core_axes + nta) * sizeof *core_axes);
            memcpy(core_axes + n_core_axes, ta, nta * sizeof *ta);
            n_core_axes += nta;
            free(ta);
            s->has_temperature = 1;
        }
    }

    s->model_name = strdup(run.single[0].text);
    s->evaluator_name = strdup(run.single[1].text);
    s->seed = (uint64_t)run.single[2].i;
    s->output = run.text[3] ? strdup(run.single[3].text) : default_output(c->path);
    s->threads = run.single[4].i;
    s->walkers = run.single[5].i;
    s->thermalize = sched.single[0].i;
    s->sweeps = sched.single[1].i;
    s->measure_every = sched.single[2].i;
    s->checkpoint_every = sched.single[3].i;
    s->bins = sched.single[5].i;
    s->adapt_every = sched.single[6].i;
    s->exchange_every = sched.single[7].i;
    if (!s->model_name || !s->evaluator_name || !s->output) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
        goto fail;
    }
    if (s->sweeps / s->measure_every < s->bins) {
        mcf_config_entry *e = mcf_config_find(c, "schedule", "sweeps");
        char where[512];
        rc = mcf_fail(MCF_EINVAL, "%s: [schedule] sweeps = %ld with measure_every = %ld gives "
                      "%ld measurements, fewer than the %ld jackknife bins; raise sweeps to at "
                      "least %ld", e ? mcf_config_where(e, where, sizeof where) : c->path,
                      s->sweeps, s->measure_every, s->sweeps / s->measure_every, s->bins,
                      s->bins * s->measure_every);
        goto fail;
    }

    /* the plugins */
    if ((rc = mcf_plugin_open(s->model_name, MCF_PLUGIN_MODEL, &s->model))) {
        mcf_config_entry *e = mcf_config_find(c, "run", "model");
        char where[512];
        rc = mcf_fail_prefix(rc, "%s: [run] model = %s",
                             e ? mcf_config_where(e, where, sizeof where) : c->path,
                             s->model_name);
        goto fail;
    }
    if (!strcmp(s->evaluator_name, "auto")) {
        s->evaluator_auto = 1;
        if ((rc = resolve_auto_evaluator(c, s)))
            goto fail;
    } else if (strcmp(s->evaluator_name, "none") != 0) {
        rc = mcf_plugin_open(s->evaluator_name, 0, &s->evaluator);
        if (!rc && s->evaluator->info->kind == MCF_PLUGIN_MODEL)
            rc = mcf_fail(MCF_EPLUGIN, "%s is a model, not an evaluator", s->evaluator->path);
        if (rc) {
            mcf_config_entry *e = mcf_config_find(c, "run", "evaluator");
            char where[512];
            rc = mcf_fail_prefix(rc, "%s: [run] evaluator = %s",
                                 e ? mcf_config_where(e, where, sizeof where) : c->path,
                                 s->evaluator_name);
            goto fail;
        }
    }

    /* plugin sections: axes in declaration order within each section */
    {
        char owner[256];
        mcf_axis *axes = NULL;
        size_t n_axes = 0;
        snprintf(owner, sizeof owner, "model '%s' (see `mcf describe %s`)", s->model_name,
                 s->model_name);
        rc = check_section(c, "model", s->model->info->params, owner, 0, &sec[0], &axes,
                           &n_axes);
        if (!rc) {
            if (s->evaluator) {
                snprintf(owner, sizeof owner, "evaluator '%s'%s (see `mcf describe %s`)",
                         s->evaluator_name, s->evaluator_auto ? ", chosen by evaluator = auto"
                                                              : "",
                         s->evaluator_name);
                rc = check_section(c, "evaluator", s->evaluator->info->params, owner, 1,
                                   &sec[1], &axes, &n_axes);
            } else {
                for (size_t k = 0; k < c->n && !rc; k++)
                    if (!strcmp(c->entries[k].section, "evaluator")) {
                        char where[512];
                        rc = mcf_fail(MCF_EINVAL, "%s: [evaluator] %s is given but [run] "
                                      "evaluator = none; name an evaluator or remove the key",
                                      mcf_config_where(&c->entries[k], where, sizeof where),
                                      c->entries[k].key);
                    }
                sec[1].section = "evaluator";
            }
        }
        /* order: model axes, evaluator axes (each in declaration order), temperature last */
        s->n_axes = n_axes + n_core_axes;
        s->axes = calloc(s->n_axes ? s->n_axes : 1, sizeof *s->axes);
        if (!s->axes) {
            free(axes);
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
            goto fail;
        }
        if (n_axes)
            memcpy(s->axes, axes, n_axes * sizeof *axes);
        if (n_core_axes)
            memcpy(s->axes + n_axes, core_axes, n_core_axes * sizeof *core_axes);
        free(axes);
        free(core_axes);
        core_axes = NULL;
        n_core_axes = 0;
        if (rc)
            goto fail;
        /* Axes stay in declaration order (check_section walks the specs), not in the
         * order of the file: config.ini as used is written in declaration order and
         * `mcf resume` reads it back, so any other order would differ on resume and the
         * chains of the checkpoint would meet other scan points. */
        for (size_t a = 0; a < n_axes; a++)
            (s->axes[a].section ? sec[1] : sec[0]).axis[s->axes[a].spec_index] = (long)a;
    }
    s->n_points = 1;
    for (size_t a = 0; a < s->n_axes; a++)
        s->n_points *= s->axes[a].n;
    if (s->exchange_every > 0 && (rc = check_tempering(c, s)))
        goto fail;

    /* the configuration as used */
    {
        mcf_text t = {0};
        /* walkers = 1 (the default) is left out: config.ini, and with it the checkpoint's
         * configuration hash, stay as they were before the key existed */
        if (s->walkers == 1) {
            free(run.text[5]);
            run.text[5] = NULL;
        }
        /* likewise exchange_every = 0: runs without tempering keep their checkpoints */
        if (s->exchange_every == 0) {
            free(sched.text[7]);
            sched.text[7] = NULL;
        }
        mcf_text_printf(&t, "; configuration as used by mcf %s (defaults filled in%s)\n",
                        MCF_VERSION_STRING,
                        s->evaluator_auto ? "; [evaluator] as given, for evaluator = auto" : "");
        write_section(&t, &run);
        write_section(&t, &sched);
        write_section(&t, &sec[0]);
        /* with evaluator = auto, [evaluator] keeps only the keys given: the defaults of
         * the plugin chosen here need not exist in the one a resume elsewhere chooses */
        if (s->evaluator)
            write_section_given(&t, &sec[1], s->evaluator_auto ? c : NULL);
        if (t.failed) {
            free(t.s);
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
            goto fail;
        }
        s->canonical = t.s;
    }

    for (int k = 0; k < 2; k++) {
        s->sections[k].name = k ? "evaluator" : "model";
        s->sections[k].specs = sec[k].specs;
        s->sections[k].n = sec[k].n;
        s->sections[k].single = sec[k].single;
        s->sections[k].axis = sec[k].axis;
        s->sections[k].text = sec[k].text;
        memset(&sec[k], 0, sizeof sec[k]);
    }
    checked_release(&run);
    checked_release(&sched);
    *out = s;
    return MCF_OK;

fail:
    for (size_t a = 0; a < n_core_axes; a++) {
        for (size_t v = 0; v < core_axes[a].n; v++)
            mcf_value_release(&core_axes[a].values[v]);
        free(core_axes[a].values);
        free(core_axes[a].name);
    }
    free(core_axes);
    checked_release(&run);
    checked_release(&sched);
    checked_release(&sec[0]);
    checked_release(&sec[1]);
    mcf_setup_free(s);
    return rc;
}

void mcf_setup_free(mcf_setup *s)
{
    if (!s)
        return;
    for (int k = 0; k < 2; k++) {
        mcf_section *sec = &s->sections[k];
        for (size_t j = 0; j < sec->n; j++) {
            if (sec->single)
                mcf_value_release(&sec->single[j]);
            if (sec->text)
                free(sec->text[j]);
        }
        free(sec->single);
        free(sec->axis);
        free(sec->text);
    }
    for (size_t a = 0; a < s->n_axes; a++) {
        for (size_t v = 0; v < s->axes[a].n; v++)
            mcf_value_release(&s->axes[a].values[v]);
        free(s->axes[a].values);
        free(s->axes[a].name);
    }
    free(s->axes);
    mcf_plugin_close(s->model);
    mcf_plugin_close(s->evaluator);
    free(s->config_path);
    free(s->model_name);
    free(s->evaluator_name);
    free(s->evaluator_note);
    free(s->output);
    free(s->canonical);
    free(s);
}

const mcf_value *mcf_setup_axis_value(const mcf_setup *s, size_t a, size_t point)
{
    size_t stride = 1;
    for (size_t b = a + 1; b < s->n_axes; b++)
        stride *= s->axes[b].n;
    return &s->axes[a].values[(point / stride) % s->axes[a].n];
}

int mcf_setup_params(const mcf_setup *s, size_t point, int section, mcf_params **out)
{
    const mcf_section *sec = &s->sections[section];
    size_t n = sec->n;
    mcf_params *p = calloc(1, sizeof *p + (n ? n : 1) * sizeof(mcf_value));
    if (!p)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    p->values = (mcf_value *)(p + 1);
    p->section = sec->name;
    p->origin = s->config_path;
    p->specs = sec->specs;
    p->n = n;
    for (size_t j = 0; j < n; j++)
        p->values[j] = sec->axis[j] >= 0 ? *mcf_setup_axis_value(s, (size_t)sec->axis[j], point)
                                         : sec->single[j];
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].section == 2) {
            p->has_temperature = 1;
            p->temperature = mcf_setup_axis_value(s, a, point)->r;
        }
    *out = p;
    return MCF_OK;
}
