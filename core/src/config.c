/* config.c — reading a configuration: the INI file (inih), with the file and line of every
 * key, and the command line's --set overrides.  Nothing here knows what the keys mean:
 * section.c checks them against the declarations and setup.c builds the run setup. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <ini.h>
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
    mcf_config_entry *old = mcfi_config_find(c, section, name);
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

int mcfi_config_read(const char *path, mcf_config **out)
{
    *out = NULL;
    mcf_config *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        mcfi_config_free(c);
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
        mcfi_config_free(c);
        return rc;
    }
    *out = c;
    return MCF_OK;
}

int mcfi_config_override(mcf_config *c, const char *assignment)
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
    const char *value = mcfi_trim(value_buf);
    char *sec = mcfi_trim(section), *k = mcfi_trim(key);
    memmove(section, sec, strlen(sec) + 1);
    memmove(key, k, strlen(k) + 1);
    mcf_config_entry *e = mcfi_config_find(c, section, key);
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

mcf_config_entry *mcfi_config_find(const mcf_config *c, const char *section, const char *key)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(c->entries[k].section, section) && !strcmp(c->entries[k].key, key))
            return &c->entries[k];
    return NULL;
}

void mcfi_config_free(mcf_config *c)
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

const char *mcfi_config_where(const mcf_config_entry *e, char *buf, size_t size)
{
    if (e->line > 0)
        snprintf(buf, size, "%s:%d", e->file, e->line);
    else
        snprintf(buf, size, "%s", e->file);
    return buf;
}

const char *mcfi_config_key_where(const mcf_config *c, const char *section, const char *key,
                                  char *buf, size_t size)
{
    const mcf_config_entry *e = mcfi_config_find(c, section, key);
    return e ? mcfi_config_where(e, buf, size) : c->path;
}
