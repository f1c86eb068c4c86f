/* plot.c — `mcf plot DIR`, part of the mcf program (not of libmcf): SVG plots of a run's
 * results.tsv drawn with gnuplot.  Reading the tables is plot_tsv.c's, choosing the x
 * column and the curves plot_layout.c's; this file drives gnuplot.
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
 * goes to DIR/.plot-X.svg.tmp, created by us first (never through a link planted under
 * that name), and is renamed over DIR/plot-X.svg only when gnuplot succeeded and the file
 * is whole (gnuplot does not report a full disk: a truncated SVG lacks its closing tag),
 * so a reader never sees a half-written plot.  The scratch names are fixed or random, not
 * per process: the caller holds the folder's lock (mcfi_outdir_lock), and the next lock
 * holder removes what a killed plot left. */
#define _POSIX_C_SOURCE 200809L

#include "plot.h"
#include "plot_internal.h"

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
#include "fileio.h"

#define GNUPLOT_MISSING "gnuplot not found: install it with `apt-get install gnuplot-nox`"

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


/* Whether the file at path is a whole SVG: its last non-blank text is the closing tag. */
static int svg_complete(const char *path)
{
    char tail[64];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = 0;
    if (fseek(f, -(long)(sizeof tail - 1), SEEK_END) != 0)
        rewind(f);
    n = fread(tail, 1, sizeof tail - 1, f);
    fclose(f);
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        n--;
    tail[n] = '\0';
    return n >= 6 && strcmp(tail + n - 6, "</svg>") == 0;
}

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
        if (!tsv_is_blank(buf))
            break;
        buf[0] = '\0';
    }
    fclose(f);
}

/* Writes the script and data of one plot to gnuplot.  ycol: the value column;
 * ecol: its error column, or -1 for a plot without error bars. */
static void write_script(FILE *g, const tsv_table *t, const plot_layout *l, const point *pts,
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
 * column has no finite values (skipped with a warning); *no_gnuplot to 1 when the shell
 * could not find gnuplot. */
static int draw(const char *dir, const tsv_table *t, const plot_layout *l, size_t ycol, long ecol,
                int *drawn, int *no_gnuplot)
{
    *drawn = 0;
    int rc = MCF_OK;
    char *safe = NULL, *base = NULL, *tmpbase = NULL, *out_path = NULL, *tmp_path = NULL;
    char *log_path = NULL, *quoted_log = NULL, *cmd = NULL;
    point *pts = NULL;
    size_t *npts = NULL;
    int log_fd = -1, tmp_made = 0;

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
    /* gnuplot opens its output by name, following links: the name is ours first */
    int out_fd = mcfi_create_fresh(tmp_path);
    tmp_made = out_fd >= 0;
    if (out_fd < 0 || close(out_fd) != 0) {
        rc = mcf_fail(MCF_EIO, "%s: not written: cannot create %s (%s)", out_path, tmp_path,
                      strerror(errno));
        goto done;
    }
    log_fd = mkstemp(log_path);
    if (log_fd < 0) {
        rc = mcf_fail(MCF_EIO, "%s: not written: cannot create a scratch file in %s (%s)",
                      out_path, dir, strerror(errno));
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
        *no_gnuplot = 1;
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
            rc = mcf_fail(MCF_EIO, "%s: not written: gnuplot exited normally but wrote "
                          "nothing to %s%s%s", out_path, tmp_path, msg[0] ? ": " : "", msg);
        } else if (!svg_complete(tmp_path)) {
            rc = mcf_fail(MCF_EIO, "%s: not written: gnuplot's output %s is incomplete (is "
                          "the disk full?)", out_path, tmp_path);
        } else if (rename(tmp_path, out_path) != 0) {
            rc = mcf_fail(MCF_EIO, "%s: not written: cannot rename %s into place (%s)",
                          out_path, tmp_path, strerror(errno));
        } else {
            *drawn = 1;
        }
    }
    goto done;

nomem:
    rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
done:
    if (tmp_made && !*drawn)
        unlink(tmp_path);
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
static int plot_table(const char *dir, char *path, int scalar, int *n_written, int *no_gnuplot)
{
    tsv_table t;
    memset(&t, 0, sizeof t);
    t.path = path;
    plot_layout l;
    memset(&l, 0, sizeof l);
    int written = 0;

    int rc = tsv_read(&t, path);
    if (rc != MCF_OK)
        goto out;
    if (!gnuplot_available()) {
        *no_gnuplot = 1;
        rc = mcf_fail(MCF_EIO, GNUPLOT_MISSING);
        goto out;
    }
    if ((rc = plot_layout_build(&t, &l, scalar)) != MCF_OK)
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
        if (tsv_is_scan_column(&t, c))
            continue;
        snprintf(errname, namecap + 8, "%s_err", t.names[c]);
        long e = tsv_column(&t, errname);
        int drawn = 0;
        if (e >= 0) {
            rc = draw(dir, &t, &l, c, e, &drawn, no_gnuplot);
        } else if (strcmp(t.names[c], "acceptance") == 0) {
            rc = draw(dir, &t, &l, c, -1, &drawn, no_gnuplot);
        }
        written += drawn;
    }
    free(errname);

out:
    *n_written += written;
    plot_layout_free(&l);
    tsv_free(&t);
    return rc;
}


int mcfi_plot_dir(const char *dir, int *n_written, int *no_gnuplot)
{
    int written = 0, missing = 0;
    if (n_written)
        *n_written = 0;
    if (no_gnuplot)
        *no_gnuplot = 0;
    if (!dir || !*dir)
        return mcf_fail(MCF_EINVAL, "mcf plot: no run folder given; usage: mcf plot DIR");
    char *path = join_path(dir, "results.tsv");
    if (!path)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = plot_table(dir, path, 1, &written, &missing);
    /* curve observables: <dir>/<name>.tsv, x = the curve's axis (its last scan column,
     * which varies along every curve) */
    char names[4096];
    if (rc == MCF_OK)
        tsv_curve_names(path, names, sizeof names);
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
        rc = plot_table(dir, cpath, 0, &written, &missing);
        free(cpath);
    }
    if (n_written)
        *n_written = written;
    if (no_gnuplot)
        *no_gnuplot = missing;
    return rc;
}

