/* plot_text.c — the texts of a plot as gnuplot's enhanced-text markup: a column's symbol
 * and unit from "# labels:" ("U_4" drawn as U with a subscript 4, "⟨m²⟩" as written), the
 * axis texts ("T / t", "χ · J", "(E/N) / t") and the legend's "L = 16", "W = 4 t"; text that
 * is no symbol (values, column names without a label, words) escaped so that it is drawn
 * as written.  Which texts a plot has is plot_layout.c's and plot_script.c's. */
#define _POSIX_C_SOURCE 200809L

#include "plot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable string; on failure s is NULL. */
typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (!b->s && b->cap)
        return; /* failed before */
    if (b->len + n + 1 > b->cap) {
        size_t cap = 2 * (b->len + n + 1) + 16;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* s drawn as written: the characters enhanced text treats specially get a backslash; '&'
 * becomes a full-width ampersand (gnuplot's SVG writes an escaped '&' into the XML bare) */
static void plain(buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            puts_(b, "＆");
        else {
            if (strchr("_^@~{}\\", *s))
                put(b, "\\", 1);
            put(b, s, 1);
        }
    }
}

static int ascii_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* a symbol or unit: "_x" and "^x" (x a run of ASCII letters and digits, or "{...}") are
 * sub- and superscripts; every other character is drawn as written */
static void symbol(buf *b, const char *s)
{
    while (*s) {
        if ((*s == '_' || *s == '^') && s[1] == '{' && strchr(s + 2, '}')) {
            const char *end = strchr(s + 2, '}');
            put(b, s, 2);
            for (const char *c = s + 2; c < end; c++) {
                char one[2] = {*c, '\0'};
                plain(b, one);
            }
            put(b, "}", 1);
            s = end + 1;
        } else if ((*s == '_' || *s == '^') && ascii_alnum(s[1])) {
            size_t n = 1;
            while (ascii_alnum(s[1 + n]))
                n++;
            put(b, s, 1);
            put(b, "{", 1);
            put(b, s + 1, n);
            put(b, "}", 1);
            s += 1 + n;
        } else {
            char one[2] = {*s, '\0'};
            plain(b, one);
            s++;
        }
    }
}

static char *done(buf *b)
{
    if (!b->s && !b->cap)
        return calloc(1, 1); /* "" */
    return b->s;
}

char *plot_markup_plain(const char *s)
{
    buf b = {0};
    plain(&b, s);
    return done(&b);
}

/* whether column name has a label (else its name is drawn as written) */
static int labelled(const tsv_table *t, const char *name)
{
    for (size_t i = 0; i < t->nlabels; i++)
        if (!strcmp(t->label_name[i], name))
            return 1;
    return 0;
}

static void column_symbol(buf *b, const tsv_table *t, const char *name)
{
    if (labelled(t, name))
        symbol(b, tsv_symbol(t, name));
    else
        plain(b, name);
}

char *plot_markup_symbol(const tsv_table *t, const char *name)
{
    buf b = {0};
    column_symbol(&b, t, name);
    return done(&b);
}

char *plot_markup_unit(const tsv_table *t, const char *name)
{
    buf b = {0};
    symbol(&b, tsv_unit(t, name));
    return done(&b);
}

/* 1 when s has a '/' outside parentheses: "E/N" is put in parentheses before " / t",
 * "(E/N)²" is not */
static int has_bare_slash(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
        if (*s == '/' && depth <= 0)
            return 1;
    }
    return 0;
}

static int compound_unit(const char *u)
{
    return strpbrk(u, "/ *^") != NULL || strstr(u, "·") != NULL;
}

char *plot_axis_text(const tsv_table *t, const char *name)
{
    const char *sym = tsv_symbol(t, name), *unit = tsv_unit(t, name);
    buf b = {0};
    if (!unit[0]) {
        column_symbol(&b, t, name);
    } else if (!strncmp(unit, "1/", 2) && unit[2] && !compound_unit(unit + 2)) {
        column_symbol(&b, t, name); /* χ · J for χ in 1/J */
        puts_(&b, " · ");
        symbol(&b, unit + 2);
    } else {
        int ps = has_bare_slash(sym), pu = compound_unit(unit);
        puts_(&b, ps ? "(" : "");
        column_symbol(&b, t, name);
        puts_(&b, ps ? ") / " : " / ");
        puts_(&b, pu ? "(" : "");
        symbol(&b, unit);
        puts_(&b, pu ? ")" : "");
    }
    return done(&b);
}

char *plot_value_text(const tsv_table *t, const char *name, const char *value)
{
    const char *unit = tsv_unit(t, name);
    buf b = {0};
    column_symbol(&b, t, name);
    puts_(&b, " = ");
    plain(&b, value);
    if (unit[0]) {
        puts_(&b, " ");
        symbol(&b, unit);
    }
    return done(&b);
}

/* ---- paths and shell words (plot.c) ---------------------------------------------------- */

/* "dir/name", without doubling a trailing '/'.  Owned by the caller; NULL on ENOMEM. */
char *plot_join_path(const char *dir, const char *name)
{
    size_t nd = strlen(dir), nn = strlen(name);
    int slash = nd > 0 && dir[nd - 1] == '/';
    char *p = malloc(nd + nn + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, nd);
    if (!slash)
        p[nd++] = '/';
    memcpy(p + nd, name, nn + 1);
    return p;
}

/* s as one shell single-quoted word ('\'' for a quote inside).  Owned by the caller. */
char *plot_shell_quote(const char *s)
{
    size_t n = 3;
    for (const char *c = s; *c; c++)
        n += *c == '\'' ? 4 : 1;
    char *q = malloc(n);
    if (!q)
        return NULL;
    char *w = q;
    *w++ = '\'';
    for (const char *c = s; *c; c++) {
        if (*c == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else {
            *w++ = *c;
        }
    }
    *w++ = '\'';
    *w = '\0';
    return q;
}

/* A file-name-safe copy of a column name: anything but [A-Za-z0-9_.-] becomes '_'. */
char *plot_file_safe(const char *name)
{
    char *s = strdup(name);
    if (!s)
        return NULL;
    for (char *c = s; *c; c++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                 (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.';
        if (!ok)
            *c = '_';
    }
    if (s[0] == '.')
        s[0] = '_';
    return s;
}
