/* plot.c — `mcf plot DIR`: SVG plots of a run's results.tsv drawn with gnuplot.
 *
 * results.tsv is read whole into a table of strings (numbers parsed alongside), then each
 * column X that has an X_err column becomes DIR/plot-X.svg (error bars), and the
 * acceptance column becomes DIR/plot-acceptance.svg (no error bars).  The x axis is the
 * last of the scan columns named by the "# scan: ..." metadata line that takes more than
 * one value (so a scan of L at one temperature is drawn against L; the last scan column
 * when none varies); the other varying scan columns split the rows into curves, one per
 * distinct combination of their values, in order of first appearance, and the one-valued
 * ones go into the plot title.  Without scan columns the rows are plotted against their
 * row number.
 *
 * Each plot is one gnuplot process fed through popen(): the script and the data (inline,
 * '-') go down the pipe, gnuplot's stderr goes to a scratch file in DIR so that its
 * warnings stay off the terminal and its errors can be quoted in our message.  Output
 * goes to DIR/.plot-X.svg.tmp and is renamed over DIR/plot-X.svg only when gnuplot
 * succeeded, so a reader never sees a half-written plot. */
#define _POSIX_C_SOURCE 200809L

#include "plot.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcf/error.h"
#include "mcf/log.h"

#define GNUPLOT_MISSING "gnuplot not found: install it with `apt-get install gnuplot-nox`"

/* ---------------------------------------------------------------------------------- */
/* small string helpers                                                                */

/* "dir/name", without doubling a trailing '/'.  Owned by the caller; NULL on ENOMEM. */
static char *join_path(const char *dir, const char *name)
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

/* Writes s to f as a gnuplot single-quoted string (a quote inside is doubled). */
static void put_gnuplot_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* s as one shell single-quoted word ('\'' for a quote inside).  Owned by the caller. */
static char *shell_quote(const char *s)
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
static char *file_safe(const char *name)
{
    char *s = dup_string(name);
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

/* ---------------------------------------------------------------------------------- */
/* the table                                                                           */

typedef struct table {
    const char *path;       /* DIR/results.tsv, for messages (borrowed) */
    size_t ncol;
    char **names;           /* ncol column names */
    size_t header_line;
    size_t nrow, cap;
    char **cells;           /* nrow x ncol, owned strings */
    double *values;         /* nrow x ncol; NAN where the cell is not a number */
    unsigned char *numeric; /* nrow x ncol; 1 where the cell parsed as a number */
    size_t *row_line;       /* line number of each row */
    char **scan_names;      /* from "# scan:", owned */
    size_t nscan_names;
    size_t scan_line;       /* 0 when there is no scan line */
    size_t *scan;           /* column index of each scan name */
    size_t nscan;
} table;

static void table_free(table *t)
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
    memset(t, 0, sizeof *t);
}

static long table_column(const table *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (strcmp(t->names[i], name) == 0)
            return (long)i;
    return -1;
}

static int is_scan_column(const table *t, size_t col)
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

/* "# scan: L T" — stores the names.  Any other metadata line is ignored. */
static int parse_metadata(table *t, const char *line, size_t lineno)
{
    const char *p = line + 1;
    while (*p == ' ' || *p == '\t')
        p++;
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

static int parse_header(table *t, char *line, size_t lineno)
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
static int resolve_scan(table *t)
{
    if (t->nscan_names == 0)
        return MCF_OK;
    t->scan = malloc(t->nscan_names * sizeof *t->scan);
    if (!t->scan)
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", t->path);
    for (size_t i = 0; i < t->nscan_names; i++) {
        long c = table_column(t, t->scan_names[i]);
        if (c < 0)
            return mcf_fail(MCF_EFORMAT,
                            "%s:%zu: scan column '%s' is not in the header on line %zu",
                            t->path, t->scan_line, t->scan_names[i], t->header_line);
        t->scan[t->nscan++] = (size_t)c;
    }
    return MCF_OK;
}

static int add_row(table *t, char *line, size_t lineno)
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
        if (!num && !is_scan_column(t, i)) {
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

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return 0;
    return 1;
}

static int table_read(table *t, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return mcf_fail(MCF_EIO, "%s: no such file; run `mcf run` first", path);
        return mcf_fail(MCF_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    size_t lineno = 0;
    int rc = MCF_OK;
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
        } else if (is_blank(line)) {
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

/* ---------------------------------------------------------------------------------- */
/* curves                                                                              */

typedef struct point {
    double x, y, err;
    size_t row; /* for a stable sort */
} point;

static int point_cmp(const void *a, const void *b)
{
    const point *p = a, *q = b;
    if (p->x < q->x)
        return -1;
    if (p->x > q->x)
        return 1;
    return (p->row > q->row) - (p->row < q->row);
}

/* The layout shared by every plot of one table: x of each row, and the curve (group)
 * each row belongs to.  The x column is the last scan column that takes more than one
 * value (the last scan column when none does); the other scan columns that take more
 * than one value split the rows into curves; those that keep one value are named in the
 * plot title instead. */
typedef struct layout {
    const char *xlabel;    /* name of the x column, or "row" (borrowed) */
    long xcol;             /* the x column, -1 when plotting against the row number */
    double *x;             /* nrow */
    int x_categorical;     /* x column holds words: x is the index of the distinct word */
    size_t ncat;
    size_t *cat_row;       /* first row of each category, for the tic labels */
    size_t *gcol;          /* the varying scan columns other than x, in scan order */
    size_t ngcol;
    size_t *group;         /* nrow: curve index of each row */
    size_t ngroup;
    char **group_title;    /* ngroup titles, "" when there is one curve */
    char *fixed;           /* "T=2.3" or "L=16, T=2.3": the one-valued scan columns */
    int scalar;            /* results.tsv (scalar observables), not a curve file */
} layout;

static void layout_free(layout *l)
{
    free(l->x);
    free(l->cat_row);
    free(l->gcol);
    free(l->group);
    if (l->group_title)
        for (size_t g = 0; g < l->ngroup; g++)
            free(l->group_title[g]);
    free(l->group_title);
    free(l->fixed);
    memset(l, 0, sizeof *l);
}

/* 1 when column col holds more than one distinct value (compared as text). */
static int column_varies(const table *t, size_t col)
{
    for (size_t r = 1; r < t->nrow; r++)
        if (strcmp(t->cells[r * t->ncol + col], t->cells[col]) != 0)
            return 1;
    return 0;
}

/* "name=value, name=value" for the n columns cols of row r.  Owned by the caller. */
static char *assignments(const table *t, const size_t *cols, size_t n, size_t r)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(t->names[cols[i]]) + strlen(t->cells[r * t->ncol + cols[i]]) + 3;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(s + w, len - w, "%s%s=%s", i ? ", " : "", t->names[cols[i]],
                         t->cells[r * t->ncol + cols[i]]);
        if (k > 0)
            w += (size_t)k;
    }
    return s;
}

static int same_group(const table *t, const layout *l, size_t r1, size_t r2)
{
    for (size_t i = 0; i < l->ngcol; i++) {
        size_t c = l->gcol[i];
        if (strcmp(t->cells[r1 * t->ncol + c], t->cells[r2 * t->ncol + c]) != 0)
            return 0;
    }
    return 1;
}

static int layout_build(const table *t, layout *l, int scalar)
{
    memset(l, 0, sizeof *l);
    l->scalar = scalar;
    l->xcol = -1;
    l->x = malloc(t->nrow * sizeof *l->x);
    l->group = malloc(t->nrow * sizeof *l->group);
    size_t *first = malloc(t->nrow * sizeof *first); /* first row of each group */
    l->cat_row = malloc(t->nrow * sizeof *l->cat_row);
    l->gcol = malloc((t->nscan + 1) * sizeof *l->gcol);
    size_t *fixed = malloc((t->nscan + 1) * sizeof *fixed);
    size_t nfixed = 0;
    if (!l->x || !l->group || !first || !l->cat_row || !l->gcol || !fixed) {
        free(first);
        free(fixed);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }

    if (t->nscan == 0) {
        l->xlabel = "row";
        for (size_t r = 0; r < t->nrow; r++)
            l->x[r] = (double)(r + 1);
    } else {
        /* x: the last scan column with more than one value, so that a scan of a model
         * parameter at one temperature is drawn against that parameter */
        size_t xi = t->nscan - 1;
        for (size_t i = t->nscan; i-- > 0;)
            if (column_varies(t, t->scan[i])) {
                xi = i;
                break;
            }
        size_t xc = t->scan[xi];
        l->xcol = (long)xc;
        for (size_t i = 0; i < t->nscan; i++) {
            if (i == xi)
                continue;
            if (column_varies(t, t->scan[i]))
                l->gcol[l->ngcol++] = t->scan[i];
            else
                fixed[nfixed++] = t->scan[i];
        }
        l->xlabel = t->names[xc];
        for (size_t r = 0; r < t->nrow; r++)
            if (!t->numeric[r * t->ncol + xc])
                l->x_categorical = 1;
        for (size_t r = 0; r < t->nrow; r++) {
            if (!l->x_categorical) {
                l->x[r] = t->values[r * t->ncol + xc];
                continue;
            }
            const char *word = t->cells[r * t->ncol + xc];
            size_t k = 0;
            while (k < l->ncat && strcmp(t->cells[l->cat_row[k] * t->ncol + xc], word) != 0)
                k++;
            if (k == l->ncat)
                l->cat_row[l->ncat++] = r;
            l->x[r] = (double)k;
        }
    }
    l->fixed = assignments(t, fixed, nfixed, 0);
    free(fixed);
    if (!l->fixed) {
        free(first);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }

    for (size_t r = 0; r < t->nrow; r++) {
        size_t g = 0;
        while (g < l->ngroup && !same_group(t, l, first[g], r))
            g++;
        if (g == l->ngroup)
            first[l->ngroup++] = r;
        l->group[r] = g;
    }
    l->group_title = calloc(l->ngroup, sizeof *l->group_title);
    if (!l->group_title) {
        free(first);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }
    for (size_t g = 0; g < l->ngroup; g++) {
        l->group_title[g] = assignments(t, l->gcol, l->ngcol, first[g]);
        if (!l->group_title[g]) {
            free(first);
            return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
        }
    }
    free(first);
    return MCF_OK;
}

/* ---------------------------------------------------------------------------------- */
/* gnuplot                                                                             */

static int gnuplot_available(void)
{
    int st = system("command -v gnuplot >/dev/null 2>&1");
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The first non-empty line of the file at path, in buf ("" if none). */
static void first_line(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(buf, (int)n, f)) {
        size_t len = strlen(buf);
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (!is_blank(buf))
            break;
        buf[0] = '\0';
    }
    fclose(f);
}

/* Writes the script and data of one plot to gnuplot.  ycol: the value column;
 * ecol: its error column, or -1 for a plot without error bars. */
static void write_script(FILE *g, const table *t, const layout *l, const point *pts,
                         const size_t *npts, size_t ycol, long ecol, const char *tmp_path)
{
    fputs("set terminal svg size 800,560 dynamic noenhanced font 'sans,12' "
          "background '#ffffff'\n", g);
    fputs("set output ", g);
    put_gnuplot_string(g, tmp_path);
    fputs("\nset title ", g);
    if (l->fixed[0]) {
        /* the scan columns that keep one value, which neither the x axis nor the legend
         * shows: "energy (T=2.3)" */
        size_t n = strlen(t->names[ycol]) + strlen(l->fixed) + 4;
        char *title = malloc(n);
        if (title)
            snprintf(title, n, "%s (%s)", t->names[ycol], l->fixed);
        put_gnuplot_string(g, title ? title : t->names[ycol]);
        free(title);
    } else {
        put_gnuplot_string(g, t->names[ycol]);
    }
    fputs("\nset xlabel ", g);
    put_gnuplot_string(g, l->xlabel);
    fputs("\nset ylabel ", g);
    put_gnuplot_string(g, t->names[ycol]);
    fputs("\nset grid\nset bars small\n", g);
    /* a legend only when there are curves to tell apart, outside so it hides no point */
    fputs(l->ngroup > 1 ? "set key outside right top\n" : "unset key\n", g);
    /* scalar plots: a margin of 3% of the x range on either side, so that the first and
     * last points and their error bars are not drawn on the frame (autoscaled x only;
     * the fixed ranges below already leave room) */
    if (l->scalar)
        fputs("set offsets graph 0.03, graph 0.03, 0, 0\n", g);

    /* a plot of one x value (one row, or one temperature): give the axis some width */
    double xmin = INFINITY, xmax = -INFINITY;
    size_t total = 0;
    for (size_t g2 = 0; g2 < l->ngroup; g2++) {
        const point *p = pts + g2 * t->nrow;
        for (size_t i = 0; i < npts[g2]; i++) {
            xmin = fmin(xmin, p[i].x);
            xmax = fmax(xmax, p[i].x);
            total++;
        }
    }
    if (l->x_categorical) {
        fputs("set xtics (", g);
        size_t xc = (size_t)l->xcol;
        for (size_t k = 0; k < l->ncat; k++) {
            if (k)
                fputs(", ", g);
            put_gnuplot_string(g, t->cells[l->cat_row[k] * t->ncol + xc]);
            fprintf(g, " %zu", k);
        }
        fputs(")\n", g);
        fprintf(g, "set xrange [-0.5:%.17g]\n", (double)l->ncat - 0.5);
    } else if (total > 0 && xmin == xmax) {
        double w = xmin != 0 ? 0.1 * fabs(xmin) : 1.0;
        fprintf(g, "set xrange [%.17g:%.17g]\n", xmin - w, xmax + w);
    }

    fputs("plot ", g);
    int first = 1;
    for (size_t g2 = 0; g2 < l->ngroup; g2++) {
        if (npts[g2] == 0)
            continue;
        if (!first)
            fputs(", ", g);
        first = 0;
        if (ecol >= 0)
            fputs("'-' using 1:2:3 with yerrorlines pointtype 7 pointsize 0.6 title ", g);
        else
            fputs("'-' using 1:2 with linespoints pointtype 7 pointsize 0.6 title ", g);
        if (l->group_title[g2][0])
            put_gnuplot_string(g, l->group_title[g2]);
        else
            put_gnuplot_string(g, t->names[ycol]);
    }
    fputc('\n', g);
    for (size_t g2 = 0; g2 < l->ngroup; g2++) {
        const point *p = pts + g2 * t->nrow;
        if (npts[g2] == 0)
            continue;
        for (size_t i = 0; i < npts[g2]; i++) {
            if (ecol >= 0)
                fprintf(g, "%.17g %.17g %.17g\n", p[i].x, p[i].y, p[i].err);
            else
                fprintf(g, "%.17g %.17g\n", p[i].x, p[i].y);
        }
        fputs("e\n", g);
    }
    fputs("unset output\n", g);
}

/* Draws DIR/plot-<name>.svg.  Sets *drawn to 1 when a file was written, 0 when the
 * column has no finite values (skipped with a warning). */
static int draw(const char *dir, const table *t, const layout *l, size_t ycol, long ecol,
                int *drawn)
{
    *drawn = 0;
    int rc = MCF_OK;
    char *safe = NULL, *base = NULL, *tmpbase = NULL, *out_path = NULL, *tmp_path = NULL;
    char *log_path = NULL, *quoted_log = NULL, *cmd = NULL;
    point *pts = NULL;
    size_t *npts = NULL;
    int log_fd = -1;

    /* the points of every curve, sorted by x; rows with a non-finite x or y are left
     * out, a non-finite error is drawn as no error bar */
    pts = malloc(l->ngroup * t->nrow * sizeof *pts);
    npts = calloc(l->ngroup, sizeof *npts);
    if (!pts || !npts) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
        goto done;
    }
    size_t total = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        double x = l->x[r], y = t->values[r * t->ncol + ycol];
        double e = ecol >= 0 ? t->values[r * t->ncol + (size_t)ecol] : 0.0;
        if (!isfinite(x) || !isfinite(y))
            continue;
        size_t g = l->group[r];
        pts[g * t->nrow + npts[g]++] = (point){x, y, isfinite(e) ? e : 0.0, r};
        total++;
    }
    if (total == 0) {
        mcf_log(MCF_LOG_WARN, "%s: column '%s' has no finite values; not plotted", t->path,
                t->names[ycol]);
        goto done;
    }
    for (size_t g = 0; g < l->ngroup; g++)
        qsort(pts + g * t->nrow, npts[g], sizeof *pts, point_cmp);

    safe = file_safe(t->names[ycol]);
    if (!safe)
        goto nomem;
    size_t nb = strlen(safe) + 32;
    base = malloc(nb);
    tmpbase = malloc(nb);
    if (!base || !tmpbase)
        goto nomem;
    snprintf(base, nb, "plot-%s.svg", safe);
    snprintf(tmpbase, nb, ".plot-%s.svg.tmp", safe);
    out_path = join_path(dir, base);
    tmp_path = join_path(dir, tmpbase);
    log_path = join_path(dir, ".plot-gnuplot-XXXXXX");
    if (!out_path || !tmp_path || !log_path)
        goto nomem;
    log_fd = mkstemp(log_path);
    if (log_fd < 0) {
        rc = mcf_fail(MCF_EIO, "%s: cannot create a scratch file in %s: %s", out_path, dir,
                      strerror(errno));
        free(log_path);
        log_path = NULL;
        goto done;
    }
    close(log_fd);
    quoted_log = shell_quote(log_path);
    if (!quoted_log)
        goto nomem;
    size_t nc = strlen(quoted_log) + 32;
    cmd = malloc(nc);
    if (!cmd)
        goto nomem;
    snprintf(cmd, nc, "gnuplot 2>%s", quoted_log);

    /* a gnuplot that dies early must not kill us with SIGPIPE: ignore it while writing,
     * so that writes fail with EPIPE instead */
    struct sigaction ignore, old;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);

    fflush(NULL);
    FILE *g = popen(cmd, "w");
    if (!g) {
        int e = errno;
        sigaction(SIGPIPE, &old, NULL);
        rc = mcf_fail(MCF_EIO, "cannot start gnuplot for %s: %s", out_path, strerror(e));
        goto done;
    }
    write_script(g, t, l, pts, npts, ycol, ecol, tmp_path);
    int write_failed = ferror(g) || fflush(g) != 0;
    int write_errno = errno;
    int st = pclose(g);
    sigaction(SIGPIPE, &old, NULL);

    char msg[512];
    if (st == -1) {
        rc = mcf_fail(MCF_EIO, "gnuplot for %s: cannot collect its status: %s", out_path,
                      strerror(errno));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        rc = mcf_fail(MCF_EIO, GNUPLOT_MISSING);
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        first_line(log_path, msg, sizeof msg);
        if (WIFEXITED(st))
            rc = mcf_fail(MCF_EIO, "gnuplot failed drawing %s (exit status %d)%s%s",
                          out_path, WEXITSTATUS(st), msg[0] ? ": " : "", msg);
        else
            rc = mcf_fail(MCF_EIO, "gnuplot was killed by signal %d drawing %s",
                          WIFSIGNALED(st) ? WTERMSIG(st) : 0, out_path);
    } else if (write_failed) {
        rc = mcf_fail(MCF_EIO, "gnuplot for %s: writing its input failed: %s", out_path,
                      strerror(write_errno));
    } else {
        struct stat sb;
        if (stat(tmp_path, &sb) != 0 || sb.st_size == 0) {
            first_line(log_path, msg, sizeof msg);
            rc = mcf_fail(MCF_EIO, "gnuplot exited normally but wrote no %s%s%s", tmp_path,
                          msg[0] ? ": " : "", msg);
        } else if (rename(tmp_path, out_path) != 0) {
            rc = mcf_fail(MCF_EIO, "cannot rename %s to %s: %s", tmp_path, out_path,
                          strerror(errno));
        } else {
            *drawn = 1;
        }
    }
    if (rc != MCF_OK)
        unlink(tmp_path);
    goto done;

nomem:
    rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
done:
    if (log_path && log_fd >= 0)
        unlink(log_path);
    free(cmd);
    free(quoted_log);
    free(log_path);
    free(tmp_path);
    free(out_path);
    free(tmpbase);
    free(base);
    free(safe);
    free(npts);
    free(pts);
    return rc;
}

/* ---------------------------------------------------------------------------------- */

/* Draws every column with an _err partner (and acceptance) of one table file. */
static int plot_table(const char *dir, char *path, int scalar, int *n_written)
{
    table t;
    memset(&t, 0, sizeof t);
    t.path = path;
    layout l;
    memset(&l, 0, sizeof l);
    int written = 0;

    int rc = table_read(&t, path);
    if (rc != MCF_OK)
        goto out;
    if (!gnuplot_available()) {
        rc = mcf_fail(MCF_EIO, GNUPLOT_MISSING);
        goto out;
    }
    if ((rc = layout_build(&t, &l, scalar)) != MCF_OK)
        goto out;
    if (t.nscan == 0)
        mcf_log(MCF_LOG_INFO, "%s: no '# scan:' columns; plotting against the row number",
                path);

    size_t namecap = 0;
    for (size_t c = 0; c < t.ncol; c++)
        if (strlen(t.names[c]) > namecap)
            namecap = strlen(t.names[c]);
    char *errname = malloc(namecap + 8);
    if (!errname) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t c = 0; c < t.ncol && rc == MCF_OK; c++) {
        if (is_scan_column(&t, c))
            continue;
        snprintf(errname, namecap + 8, "%s_err", t.names[c]);
        long e = table_column(&t, errname);
        int drawn = 0;
        if (e >= 0) {
            rc = draw(dir, &t, &l, c, e, &drawn);
        } else if (strcmp(t.names[c], "acceptance") == 0) {
            rc = draw(dir, &t, &l, c, -1, &drawn);
        }
        written += drawn;
    }
    free(errname);

out:
    *n_written += written;
    layout_free(&l);
    table_free(&t);
    return rc;
}

/* The names after "# curves:" in results.tsv, space separated, into buf ("" if none). */
static void curve_names(const char *path, char *buf, size_t size)
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

int mcf_plot_dir(const char *dir, int *n_written)
{
    int written = 0;
    if (n_written)
        *n_written = 0;
    if (!dir || !*dir)
        return mcf_fail(MCF_EINVAL, "mcf plot: no run folder given; usage: mcf plot DIR");
    char *path = join_path(dir, "results.tsv");
    if (!path)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = plot_table(dir, path, 1, &written);
    /* curve observables: <dir>/<name>.tsv, x = the curve's axis (its last scan column,
     * which varies along every curve) */
    char names[4096];
    if (rc == MCF_OK)
        curve_names(path, names, sizeof names);
    else
        names[0] = '\0';
    free(path);
    for (char *save = NULL, *name = strtok_r(names, " \t", &save); name && rc == MCF_OK;
         name = strtok_r(NULL, " \t", &save)) {
        char file[1024];
        snprintf(file, sizeof file, "%s.tsv", name);
        char *cpath = join_path(dir, file);
        if (!cpath)
            return mcf_fail(MCF_ENOMEM, "out of memory");
        rc = plot_table(dir, cpath, 0, &written);
        free(cpath);
    }
    if (n_written)
        *n_written = written;
    return rc;
}
