/* config.c — reading a configuration: the INI file (inih), with the file and line of every
 * key, and the command line's --set overrides.  Nothing here knows what the keys mean:
 * section.c checks them against the declarations and setup.c builds the run setup. */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* config.ini as used must read back through inih on `mcf resume` */
_Static_assert(MCFI_CONFIG_LINE_MAX == INI_MAX_LINE - 1, "the line limit is inih's buffer");

/* ---- reading ------------------------------------------------------------------------ */

/* Why reading stopped before the end of the file (the line is in stop_line). */
enum { STOP_NONE, STOP_TOO_LONG, STOP_NUL, STOP_LONG_SECTION };

typedef struct reader_ctx {
    FILE *f;
    int line;
    int stop, stop_line;  /* a line inih cannot be given: too long, or holding a NUL byte */
    int unclosed;         /* first line "[name" without its ']' */
    int indented;         /* the current line starts with a blank and holds text */
    long last_entry;      /* the previous key's entry, or -1 after a header: inih reads an
                             indented line below a key as the continuation of its value */
    mcf_config *config;
    int failed;           /* status of the first handler failure */
    int failed_line;      /* ... and its line */
} reader_ctx;

/* Notes what inih will make of a line it is given: an indented line continues the
 * previous key (inih's multi-line values), a header line starts a new section. */
static void classify_line(reader_ctx *ctx, const char *buf)
{
    const char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\v' || *p == '\f')
        p++;
    ctx->indented = p > buf && *p && *p != ';' && *p != '#';
    if (*p == '[' && !(ctx->indented && ctx->last_entry >= 0)) {
        ctx->last_entry = -1;
        const char *close = strchr(p, ']');
        if (!close && !ctx->unclosed)
            ctx->unclosed = ctx->line;
        if (close && close - p - 1 > MCFI_CONFIG_NAME_MAX && !ctx->stop) {
            ctx->stop = STOP_LONG_SECTION;
            ctx->stop_line = ctx->line;
        }
    }
}

/* inih reads through this function one line per call, so ctx->line is the number of the
 * line the handler is called for.  It reads byte by byte so that a NUL byte is seen (fgets
 * would hide what follows it), and stops at a line longer than inih's buffer (the rest of
 * it would reach inih as a line of its own) or once a handler failed. */
static char *count_lines(char *buf, int size, void *stream)
{
    reader_ctx *ctx = stream;
    if (ctx->stop || ctx->failed)
        return NULL;
    int n = 0, ch = EOF;
    while (n < size - 1 && (ch = getc(ctx->f)) != EOF) {
        if (ch == '\0') {
            ctx->stop = STOP_NUL;
            ctx->stop_line = ctx->line + 1;
            return NULL;
        }
        buf[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (n == 0)
        return NULL;
    buf[n] = '\0';
    ctx->line++;
    if (n == size - 1 && buf[n - 1] != '\n') {
        /* the buffer is full: the line fits when its end ("\n", "\r\n" or the end of the
         * file) comes next */
        ch = getc(ctx->f);
        if (ch == '\r')
            ch = getc(ctx->f);
        if (ch != EOF && ch != '\n') {
            ctx->stop = STOP_TOO_LONG;
            ctx->stop_line = ctx->line;
            return NULL;
        }
    }
    classify_line(ctx, buf);
    return ctx->stop ? NULL : buf;
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
        ctx->failed_line = ctx->line;
        return 0;
    }
    /* inih hands an indented line after a key to the handler as more of that key's value,
       under a name it keeps only MCFI_CONFIG_NAME_MAX characters of: the previous entry
       says which key it continues */
    const mcf_config_entry *prev = ctx->last_entry >= 0 ? &c->entries[ctx->last_entry] : NULL;
    if (ctx->indented && prev) {
        ctx->failed = mcf_fail(MCF_EINVAL, "%s:%d: the line is indented, so it would continue "
                               "the value of [%s] %s (line %d); values take one line: remove "
                               "the indentation", c->path, ctx->line, prev->section,
                               prev->key, prev->line);
        ctx->failed_line = ctx->line;
        return 0;
    }
    mcf_config_entry *old = mcfi_config_find(c, section, name);
    if (old) {
        ctx->failed = mcf_fail(MCF_EINVAL, "%s:%d: [%s] %s is given twice (first at line %d)",
                               c->path, ctx->line, section, name, old->line);
        ctx->failed_line = ctx->line;
        return 0;
    }
    int rc = add_entry(c, section, name, value, c->path, ctx->line);
    if (rc) {
        ctx->failed = rc;
        ctx->failed_line = ctx->line;
        return 0;
    }
    ctx->last_entry = (long)c->n - 1;
    return 1;
}

/* Opens the configuration file path into *f: a regular file of at most
 * MCFI_CONFIG_MAX_BYTES (a folder, a device such as /dev/zero or a pipe would be read as an
 * empty or endless configuration).  A path that names nothing is bad input, like a typo in
 * a key; a file that is there but cannot be opened is an I/O error. */
static int open_config_file(const char *path, FILE **f)
{
    struct stat st;
    int fd;
    *f = NULL;
    switch (mcfe_open_file(path, O_RDONLY, MCFI_CONFIG_MAX_BYTES, &fd, &st)) {
    case MCFI_FILE_CANNOT_OPEN:
        return mcf_fail(errno == ENOENT || errno == ENOTDIR ? MCF_EINVAL : MCF_EIO,
                        "%s: cannot open the configuration file (%s)", path, strerror(errno));
    case MCFI_FILE_NOT_REGULAR:
        if (S_ISDIR(st.st_mode))
            return mcf_fail(MCF_EINVAL, "%s: is a directory, not a configuration file; give "
                            "the INI file (a run's folder holds its config.ini: mcf resume "
                            "DIR)", path);
        return mcf_fail(MCF_EINVAL, "%s: is not a regular file (a device, pipe or socket); a "
                        "configuration is an INI text file", path);
    case MCFI_FILE_TOO_LARGE:
        return mcf_fail(MCF_EINVAL, "%s: is %lld bytes, more than the %d bytes a configuration "
                        "file may have", path, (long long)st.st_size, MCFI_CONFIG_MAX_BYTES);
    }
    *f = fdopen(fd, "r");
    if (!*f) {
        int e = errno;
        close(fd);
        return mcf_fail(MCF_EIO, "%s: cannot read the configuration file (%s)", path,
                        strerror(e));
    }
    return MCF_OK;
}

/* The error of a parse that ended with inih's status r (the first line inih found wrong,
 * a handler failure included): the first line's. */
static int parse_error(const reader_ctx *ctx, const char *path, int r)
{
    if (ctx->failed && !(r > 0 && r < ctx->failed_line))
        return ctx->failed;
    if (r > 0 && r == ctx->unclosed)
        return mcf_fail(MCF_EINVAL, "%s:%d: the section header has no closing ']'; write "
                        "[run], [schedule], [model] or [evaluator]", path, r);
    if (r > 0)
        return mcf_fail(MCF_EINVAL,
                        "%s:%d: syntax error: expected '[section]', 'key = value' or a comment "
                        "starting with ; or #",
                        path, r);
    if (ctx->stop == STOP_TOO_LONG)
        return mcf_fail(MCF_EINVAL, "%s:%d: line is longer than %d characters", path,
                        ctx->stop_line, MCFI_CONFIG_LINE_MAX);
    if (ctx->stop == STOP_LONG_SECTION)
        return mcf_fail(MCF_EINVAL, "%s:%d: the section name is longer than %d characters (the "
                        "INI reader would cut it); the sections are [run], [schedule], [model] "
                        "and [evaluator]", path, ctx->stop_line, MCFI_CONFIG_NAME_MAX);
    if (ctx->stop == STOP_NUL)
        return mcf_fail(MCF_EINVAL, "%s:%d: the line holds a NUL byte; a configuration is "
                        "text (is this a binary file?)", path, ctx->stop_line);
    if (r < 0 || ferror(ctx->f))
        return mcf_fail(MCF_EIO, "%s: could not be read", path);
    return MCF_OK;
}

int mcfe_config_read(const char *path, mcf_config **out)
{
    *out = NULL;
    mcf_config *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    FILE *f;
    int rc = open_config_file(path, &f);
    if (rc) {
        mcfe_config_free(c);
        return rc;
    }
    reader_ctx ctx = {.f = f, .config = c, .last_entry = -1};
    int r = ini_parse_stream(count_lines, &ctx, on_key, &ctx);
    rc = parse_error(&ctx, path, r);
    fclose(f);
    if (rc) {
        mcfe_config_free(c);
        return rc;
    }
    *out = c;
    return MCF_OK;
}

int mcfe_config_override(mcf_config *c, const char *assignment)
{
    const char *dot = strchr(assignment, '.');
    const char *eq = strchr(assignment, '=');
    if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1)
        return mcf_fail(MCF_EINVAL,
                        "--set %s: expected section.key=value, e.g. --set model.L=32",
                        assignment);
    if (strpbrk(assignment, "\r\n"))
        return mcf_fail(MCF_EINVAL, "--set %.*s: the value holds a line break; config.ini "
                        "keeps every key on one line", (int)(eq - assignment), assignment);
    char section[128], key[128];
    size_t ls = (size_t)(dot - assignment), lk = (size_t)(eq - dot - 1);
    if (ls >= sizeof section || lk >= sizeof key)
        return mcf_fail(MCF_EINVAL, "--set %.*s: the section or the key is longer than %zu "
                        "characters (no section or key of mcf is)", (int)(eq - assignment),
                        assignment, sizeof section - 1);
    memcpy(section, assignment, ls);
    section[ls] = '\0';
    memcpy(key, dot + 1, lk);
    key[lk] = '\0';
    /* the whole value, however long: section.c refuses one config.ini cannot hold */
    char *value_buf = strdup(eq + 1);
    if (!value_buf)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    const char *value = mcfi_trim(value_buf);
    char *sec = mcfi_trim(section), *k = mcfi_trim(key);
    memmove(section, sec, strlen(sec) + 1);
    memmove(key, k, strlen(k) + 1);
    mcf_config_entry *e = mcfi_config_find(c, section, key);
    int rc = MCF_OK;
    if (e) {
        char *v = strdup(value), *file = strdup("command line (--set)");
        if (!v || !file) {
            free(v);
            free(file);
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
        } else {
            free(e->value);
            free(e->file);
            e->value = v;
            e->file = file;
            e->line = 0;
        }
    } else {
        rc = add_entry(c, section, key, value, "command line (--set)", 0);
    }
    free(value_buf);
    return rc;
}

mcf_config_entry *mcfi_config_find(const mcf_config *c, const char *section, const char *key)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(c->entries[k].section, section) && !strcmp(c->entries[k].key, key))
            return &c->entries[k];
    return NULL;
}

void mcfe_config_free(mcf_config *c)
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

const char *mcfe_config_where(const mcf_config_entry *e, char *buf, size_t size)
{
    if (e->line > 0)
        snprintf(buf, size, "%s:%d", e->file, e->line);
    else
        snprintf(buf, size, "%s", e->file);
    return buf;
}

const char *mcfe_config_key_where(const mcf_config *c, const char *section, const char *key,
                                  char *buf, size_t size)
{
    const mcf_config_entry *e = mcfi_config_find(c, section, key);
    return e ? mcfe_config_where(e, buf, size) : c->path;
}

int mcfe_config_remove(mcf_config *c, const char *section, const char *key)
{
    mcf_config_entry *e = mcfi_config_find(c, section, key);
    if (!e)
        return 0;
    free(e->section);
    free(e->key);
    free(e->value);
    free(e->file);
    const size_t k = (size_t)(e - c->entries);
    memmove(e, e + 1, (c->n - k - 1) * sizeof *e);
    c->n--;
    return 1;
}

int mcfe_config_copy(const mcf_config *c, mcf_config **out)
{
    mcf_config *d = calloc(1, sizeof *d);
    *out = d;
    if (!d || !(d->path = strdup(c->path)))
        return mcf_fail(MCF_ENOMEM, "out of memory copying %s", c->path);
    int rc = MCF_OK;
    for (size_t k = 0; k < c->n && !rc; k++) {
        const mcf_config_entry *e = &c->entries[k];
        rc = add_entry(d, e->section, e->key, e->value, e->file, e->line);
    }
    return rc;
}
