/* plot_tsv.c — the plot module's reader of a run's tables: results.tsv or a curve file
 * <name>.tsv read whole into a table of strings (numbers parsed alongside), its "# scan:"
 * metadata resolved to header columns, its "# labels:" (symbols and units, written by
 * core/engine/labels.c) and the "# curves:" names.  Every malformed line
 * is an MCF_EFORMAT error naming file and line.  Drawing is plot.c's. */
#define _POSIX_C_SOURCE 200809L

#include "plot_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include "mcf/error.h"
#include "mcf_engine.h"

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* Parses the whole of s as a floating point number ("nan" and "inf" included). */
static int parse_number(const char *s, double *out)
{
    char *end;
    if (*s == '\0')
        return 0;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return 0;
    /* ERANGE on underflow still gives a usable (tiny) value; overflow gives +-HUGE_VAL,
     * which the plot treats like any other non-finite value. */
    *out = v;
    return 1;
}


void tsv_free(tsv_table *t)
{
    for (size_t i = 0; i < t->ncol; i++)
        free(t->names[i]);
    free(t->names);
    for (size_t i = 0; i < t->nrow * t->ncol; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->values);
    free(t->numeric);
    free(t->row_line);
    for (size_t i = 0; i < t->nscan_names; i++)
        free(t->scan_names[i]);
    free(t->scan_names);
    free(t->scan);
    for (size_t i = 0; i < t->nlabels; i++) {
        free(t->label_name[i]);
        free(t->label_symbol[i]);
        free(t->label_unit[i]);
    }
    free(t->label_name);
    free(t->label_symbol);
    free(t->label_unit);
    memset(t, 0, sizeof *t);
}

long tsv_column(const tsv_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (strcmp(t->names[i], name) == 0)
            return (long)i;
    return -1;
}

int tsv_is_scan_column(const tsv_table *t, size_t col)
{
    for (size_t i = 0; i < t->nscan; i++)
        if (t->scan[i] == col)
            return 1;
    return 0;
}

/* Splits line (modified in place) at tabs into a freshly allocated array of pointers
 * into line.  *n receives the number of fields. */
static char **split_tabs(char *line, size_t *n)
{
    size_t count = 1;
    for (const char *c = line; *c; c++)
        count += *c == '\t';
    char **f = malloc(count * sizeof *f);
    if (!f)
        return NULL;
    size_t k = 0;
    f[k++] = line;
    for (char *c = line; *c; c++) {
        if (*c == '\t') {
            *c = '\0';
            f[k++] = c + 1;
        }
    }
    *n = count;
    return f;
}

static char *dup_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

const char *tsv_symbol(const tsv_table *t, const char *name)
{
    for (size_t i = 0; i < t->nlabels; i++)
        if (!strcmp(t->label_name[i], name))
            return t->label_symbol[i];
    return name;
}

const char *tsv_unit(const tsv_table *t, const char *name)
{
    for (size_t i = 0; i < t->nlabels; i++)
        if (!strcmp(t->label_name[i], name))
            return t->label_unit[i];
    return "";
}

/* One entry of "# labels:", "name: symbol [unit]" ("[unit]" left out for a pure number;
 * the unit is what follows the last " [" of an entry that ends in ']'). */
static int add_label(tsv_table *t, const char *e, size_t n, size_t lineno, size_t k)
{
    const char *colon = NULL;
    for (size_t i = 0; i + 1 < n && !colon; i++)
        if (e[i] == ':' && e[i + 1] == ' ')
            colon = e + i;
    if (!colon || colon == e || colon + 2 >= e + n)
        return mcf_fail(MCF_EFORMAT, "%s:%zu: '# labels:' entry %zu '%.*s' is not "
                        "'name: symbol [unit]'", t->path, lineno, k, (int)n, e);
    const char *sym = colon + 2, *end = e + n, *sym_end = end, *unit = end;
    if (end[-1] == ']')
        for (const char *b = end - 1; b > sym + 1; b--)
            if (b[-1] == ' ' && b[0] == '[') {
                sym_end = b - 1;
                unit = b + 1;
                break;
            }
    if (sym_end == sym)
        return mcf_fail(MCF_EFORMAT, "%s:%zu: '# labels:' entry %zu '%.*s' has no symbol",
                        t->path, lineno, k, (int)n, e);
    size_t cap = t->nlabels + 1;
    char **a = realloc(t->label_name, cap * sizeof *a);
    if (a)
        t->label_name = a;
    char **b = realloc(t->label_symbol, cap * sizeof *b);
    if (b)
        t->label_symbol = b;
    char **c = realloc(t->label_unit, cap * sizeof *c);
    if (c)
        t->label_unit = c;
    if (!a || !b || !c)
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    char *name = dup_range(e, (size_t)(colon - e)), *symbol = dup_range(sym, (size_t)(sym_end - sym));
    char *u = unit < end ? dup_range(unit, (size_t)(end - 1 - unit)) : dup_range("", 0);
    if (!name || !symbol || !u) {
        free(name);
        free(symbol);
        free(u);
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    }
    t->label_name[t->nlabels] = name;
    t->label_symbol[t->nlabels] = symbol;
    t->label_unit[t->nlabels++] = u;
    return MCF_OK;
}

/* "# labels: T: T [J]<TAB>abs_m: ⟨|m|⟩ ..." — the entries, tab separated. */
static int parse_labels(tsv_table *t, const char *p, size_t lineno)
{
    if (t->labels_line)
        return mcf_fail(MCF_EFORMAT, "%s:%zu: a second '# labels:' line (the first is line "
                        "%zu)", t->path, lineno, t->labels_line);
    t->labels_line = lineno;
    while (*p == ' ')
        p++;
    for (size_t k = 1; *p; k++) {
        size_t n = strcspn(p, "\t");
        if (n > 0) {
            int rc = add_label(t, p, n, lineno, k);
            if (rc)
                return rc;
        }
        p += n;
        if (*p == '\t')
            p++;
    }
    return MCF_OK;
}

/* "# scan: L T" — stores the names; "# labels:" the symbols and units.  Any other
 * metadata line is ignored. */
static int parse_metadata(tsv_table *t, const char *line, size_t lineno)
{
    const char *p = line + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "labels:", 7) == 0)
        return parse_labels(t, p + 7, lineno);
    if (strncmp(p, "scan:", 5) != 0)
        return MCF_OK;
    if (t->scan_line)
        return mcf_fail(MCF_EFORMAT,
                        "%s:%zu: a second '# scan:' line (the first is line %zu); "
                        "a results file lists its scan columns once",
                        t->path, lineno, t->scan_line);
    t->scan_line = lineno;
    p += 5;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        char **grown = realloc(t->scan_names, (t->nscan_names + 1) * sizeof *grown);
        if (!grown)
            return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
        t->scan_names = grown;
        size_t len = (size_t)(p - start);
        char *name = malloc(len + 1);
        if (!name)
            return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
        memcpy(name, start, len);
        name[len] = '\0';
        t->scan_names[t->nscan_names++] = name;
    }
    return MCF_OK;
}

static int parse_header(tsv_table *t, char *line, size_t lineno)
{
    size_t n;
    char **f = split_tabs(line, &n);
    if (!f)
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    t->names = calloc(n, sizeof *t->names);
    if (!t->names) {
        free(f);
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    }
    t->header_line = lineno;
    for (size_t i = 0; i < n; i++) {
        if (f[i][0] == '\0') {
            free(f);
            return mcf_fail(MCF_EFORMAT,
                            "%s:%zu: column %zu of the header has no name "
                            "(an empty field between tabs)",
                            t->path, lineno, i + 1);
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(t->names[j], f[i]) == 0) {
                free(f);
                return mcf_fail(MCF_EFORMAT,
                                "%s:%zu: column '%s' appears twice in the header "
                                "(columns %zu and %zu)",
                                t->path, lineno, t->names[j], j + 1, i + 1);
            }
        }
        t->names[i] = dup_string(f[i]);
        if (!t->names[i]) {
            free(f);
            return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
        }
        t->ncol = i + 1;
    }
    free(f);
    return MCF_OK;
}

/* Resolves the "# scan:" names to header columns. */
static int resolve_scan(tsv_table *t)
{
    if (t->nscan_names == 0)
        return MCF_OK;
    t->scan = malloc(t->nscan_names * sizeof *t->scan);
    if (!t->scan)
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    for (size_t i = 0; i < t->nscan_names; i++) {
        long c = tsv_column(t, t->scan_names[i]);
        if (c < 0)
            return mcf_fail(MCF_EFORMAT,
                            "%s:%zu: scan column '%s' is not in the header on line %zu",
                            t->path, t->scan_line, t->scan_names[i], t->header_line);
        t->scan[t->nscan++] = (size_t)c;
    }
    return MCF_OK;
}

static int add_row(tsv_table *t, char *line, size_t lineno)
{
    size_t n;
    char **f = split_tabs(line, &n);
    if (!f)
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    if (n != t->ncol) {
        free(f);
        return mcf_fail(MCF_EFORMAT,
                        "%s:%zu: %zu tab-separated fields, but the header on line %zu has "
                        "%zu columns",
                        t->path, lineno, n, t->header_line, t->ncol);
    }
    if (t->nrow == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        char **cells = realloc(t->cells, cap * t->ncol * sizeof *cells);
        if (cells)
            t->cells = cells;
        double *values = realloc(t->values, cap * t->ncol * sizeof *values);
        if (values)
            t->values = values;
        unsigned char *numeric = realloc(t->numeric, cap * t->ncol);
        if (numeric)
            t->numeric = numeric;
        size_t *row_line = realloc(t->row_line, cap * sizeof *row_line);
        if (row_line)
            t->row_line = row_line;
        if (!cells || !values || !numeric || !row_line) {
            free(f);
            return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
        }
        t->cap = cap;
    }
    size_t base = t->nrow * t->ncol;
    for (size_t i = 0; i < n; i++) {
        double v = NAN;
        int num = parse_number(f[i], &v);
        if (!num && !tsv_is_scan_column(t, i)) {
            int code = mcf_fail(MCF_EFORMAT,
                                "%s:%zu: column '%s' (field %zu): '%s' is not a number",
                                t->path, lineno, t->names[i], i + 1, f[i]);
            for (size_t j = 0; j < i; j++)
                free(t->cells[base + j]);
            free(f);
            return code;
        }
        t->cells[base + i] = dup_string(f[i]);
        if (!t->cells[base + i]) {
            for (size_t j = 0; j < i; j++)
                free(t->cells[base + j]);
            free(f);
            return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
        }
        t->values[base + i] = num ? v : NAN;
        t->numeric[base + i] = (unsigned char)num;
    }
    t->row_line[t->nrow] = lineno;
    t->nrow++;
    free(f);
    return MCF_OK;
}

int tsv_is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return 0;
    return 1;
}

/* Opens a table mcf wrote: a regular file (a named pipe in its place would block the
 * reader, a link to /dev/zero never end).  A folder without one is not a run's: bad input. */
static int open_table(const char *path, FILE **f)
{
    struct stat st;
    int fd;
    *f = NULL;
    switch (mcfe_open_file(path, O_RDONLY, 0, &fd, &st)) {
    case MCFI_FILE_CANNOT_OPEN:
        if (errno == ENOENT || errno == ENOTDIR)
            return mcf_fail(MCF_EINVAL, "%s: no such file; run `mcf run` first", path);
        return mcf_fail(MCF_EIO, "%s: cannot open: %s", path, strerror(errno));
    case MCFI_FILE_NOT_REGULAR:
        return mcf_fail(MCF_EFORMAT, "%s: is not a regular file (a folder, device, pipe or "
                        "socket); mcf writes its tables as files: remove it and run `mcf "
                        "resume` in the folder to write it again", path);
    }
    *f = fdopen(fd, "r");
    if (!*f) {
        int e = errno;
        close(fd);
        return mcf_fail(MCF_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    return MCF_OK;
}

int tsv_read(tsv_table *t, const char *path)
{
    FILE *f;
    int rc = open_table(path, &f);
    if (rc)
        return rc;
    char *line = NULL;
    size_t cap = 0;
    size_t lineno = 0;
    int have_header = 0;
    ssize_t len;
    errno = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if ((size_t)len != strlen(line)) {
            rc = mcf_fail(MCF_EFORMAT, "%s:%zu: a NUL byte in a text file; the file is "
                                       "corrupt or not a results table",
                          path, lineno);
            break;
        }
        if (line[0] == '#') {
            rc = parse_metadata(t, line, lineno);
        } else if (tsv_is_blank(line)) {
            continue;
        } else if (!have_header) {
            rc = parse_header(t, line, lineno);
            have_header = 1;
            /* the scan line normally precedes the header; a later one is resolved below */
        } else {
            if (t->nrow == 0 && t->nscan == 0 && t->nscan_names > 0)
                rc = resolve_scan(t);
            if (rc == MCF_OK)
                rc = add_row(t, line, lineno);
        }
        if (rc != MCF_OK)
            break;
    }
    if (rc == MCF_OK && ferror(f))
        rc = mcf_fail(MCF_EIO, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (rc != MCF_OK)
        return rc;
    if (!have_header)
        return mcf_fail(MCF_EFORMAT,
                        "%s:%zu: no header line (only comments or nothing); the run wrote "
                        "no results yet",
                        path, lineno);
    if (t->nscan == 0 && t->nscan_names > 0 && (rc = resolve_scan(t)) != MCF_OK)
        return rc;
    if (t->nrow == 0)
        return mcf_fail(MCF_EFORMAT,
                        "%s:%zu: a header but no data rows; no scan point has finished yet",
                        path, lineno);
    return MCF_OK;
}

/* The names after "# curves:" in results.tsv, space separated, into buf ("" if none). */
void tsv_curve_names(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        if (strncmp(line, "# curves:", 9) == 0) {
            snprintf(buf, size, "%s", line + 9);
            buf[strcspn(buf, "\r\n")] = '\0';
            break;
        }
    }
    fclose(f);
}
