/* plot.c — `mcf plot DIR`, part of the mcf program (not of libmcf): plots of a run's
 * results.tsv and curve files drawn with gnuplot, each as DIR/plot-X.svg and, where gnuplot
 * has the pngcairo terminal, DIR/plot-X.png beside it.  Reading the tables is plot_tsv.c's,
 * choosing the x column, the curves and the axis texts plot_layout.c's, the Binder
 * crossings plot_binder.c's, the script plot_script.c's; this file runs gnuplot and puts
 * the files in place.
 *
 * results.tsv is read whole into a table of strings (numbers parsed alongside), then each
 * column X that has an X_err column becomes plot-X (error bars), and the acceptance column
 * plot-acceptance (no error bars).  The x axis is the last of the scan columns named by
 * the "# scan: ..." metadata line that takes more than one value (so a scan of L at one
 * temperature is drawn against L; the last scan column when none varies); the other
 * varying scan columns split the rows into curves, one per distinct combination of their
 * values, in order of first appearance, with a legend ("L = 16"), and the one-valued ones
 * go into the plot title.  Without scan columns the rows are plotted against their row
 * number.  Axes and legends use the symbols and units of the "# labels:" line (an older
 * file without one: the column names).  plot-binder of curves split by one numeric column
 * (the lattice size) marks where consecutive sizes cross and logs each crossing.  A curve
 * file NAME.tsv is drawn as one line per scan point inside a shaded band of ± its error;
 * more than PLOT_MAX_BANDS scan points are thinned to PLOT_MAX_BANDS evenly spaced ones
 * (the first and the last included; the title says "8 of 40 curves").
 *
 * Each plot is one gnuplot process fed through popen(): the script and the data go down
 * the pipe, gnuplot's stderr goes to a scratch file in DIR so that its warnings stay off
 * the terminal and its errors can be quoted in our message.  Output goes to
 * DIR/.plot-X.svg.tmp and .plot-X.png.tmp, created by us first (never through a link
 * planted under that name), and each is renamed over DIR/plot-X.svg / .png only when
 * gnuplot succeeded and both files are whole (gnuplot does not report a full disk: a
 * truncated SVG lacks its closing tag, a truncated PNG its IEND chunk), so a reader never
 * sees a half-written plot.  The scratch names are fixed or random, not per process: the
 * caller holds the folder's lock (mcfe_outdir_lock), and the next lock holder removes what
 * a killed plot left. */
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
#include "mcf_engine.h"

#define GNUPLOT_MISSING "gnuplot not found: install it with `apt-get install gnuplot-nox`"

/* Curves drawn at most in a plot of a curve file (its bands would hide each other). */
#define PLOT_MAX_BANDS 8

static int point_cmp(const void *a, const void *b)
{
    const plot_point *p = a, *q = b;
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

/* Whether the file at path is a whole PNG: the signature first, the IEND chunk (length 0,
 * "IEND", its CRC) last. */
static int png_complete(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    unsigned char head[8], tail[12];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int ok = fread(head, 1, 8, f) == 8 && fseek(f, -12, SEEK_END) == 0 &&
             fread(tail, 1, 12, f) == 12;
    fclose(f);
    return ok && !memcmp(head, sig, 8) && !memcmp(tail, iend, 12);
}

/* 0 when the shell finds no gnuplot; 1 when it has no pngcairo terminal; 2 with it. */
static int gnuplot_terminals(void)
{
    int st = system("command -v gnuplot >/dev/null 2>&1");
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 0;
    fflush(NULL);
    st = system("gnuplot -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1");
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 2 : 1;
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

/* What mcfi_plot_dir keeps across the plots of a folder. */
typedef struct plot_run {
    const char *dir;
    int terminals;  /* gnuplot_terminals(), asked once; -1 before */
    int written, png_written;
    int no_gnuplot;
} plot_run;

/* The files of one plot: the final names and the temporaries gnuplot writes. */
typedef struct plot_files {
    char *out[2], *tmp[2]; /* [0] SVG, [1] PNG (NULL without pngcairo) */
    int made[2];
} plot_files;

static void files_free(plot_files *f)
{
    for (int k = 0; k < 2; k++) {
        if (f->made[k])
            unlink(f->tmp[k]);
        free(f->out[k]);
        free(f->tmp[k]);
    }
    memset(f, 0, sizeof *f);
}

/* Names the files of plot-<safe> and creates the temporaries (ours before gnuplot opens
 * them by name, following links). */
static int files_create(plot_files *f, const char *dir, const char *safe, int png)
{
    static const char *const ext[2] = {"svg", "png"};
    memset(f, 0, sizeof *f);
    size_t nb = strlen(safe) + 32;
    char *base = malloc(nb);
    if (!base)
        return mcf_fail(MCF_ENOMEM, "out of memory plotting in %s", dir);
    int rc = MCF_OK;
    for (int k = 0; k < 1 + (png != 0) && !rc; k++) {
        snprintf(base, nb, "plot-%s.%s", safe, ext[k]);
        f->out[k] = plot_join_path(dir, base);
        snprintf(base, nb, ".plot-%s.%s.tmp", safe, ext[k]);
        f->tmp[k] = plot_join_path(dir, base);
        if (!f->out[k] || !f->tmp[k]) {
            rc = mcf_fail(MCF_ENOMEM, "out of memory plotting in %s", dir);
            break;
        }
        int fd = mcfe_create_fresh(f->tmp[k]);
        f->made[k] = fd >= 0;
        if (fd < 0 || close(fd) != 0)
            rc = mcf_fail(MCF_EIO, "%s: not written: cannot create %s (%s)", f->out[k],
                          f->tmp[k], strerror(errno));
    }
    free(base);
    return rc;
}

/* After gnuplot: both files whole, then renamed into place (the PNG first, so that an SVG
 * in place means its PNG is too). */
static int files_place(plot_files *f, const char *log_path)
{
    char msg[512];
    for (int k = 0; k < 2 && f->tmp[k]; k++) {
        struct stat sb;
        if (stat(f->tmp[k], &sb) != 0 || sb.st_size == 0) {
            first_line(log_path, msg, sizeof msg);
            return mcf_fail(MCF_EIO, "%s: not written: gnuplot exited normally but wrote "
                            "nothing to %s%s%s", f->out[k], f->tmp[k], msg[0] ? ": " : "", msg);
        }
        if (!(k ? png_complete(f->tmp[k]) : svg_complete(f->tmp[k])))
            return mcf_fail(MCF_EIO, "%s: not written: gnuplot's output %s is incomplete (is "
                            "the disk full?)", f->out[k], f->tmp[k]);
    }
    for (int k = 1; k >= 0; k--) {
        if (!f->tmp[k])
            continue;
        if (rename(f->tmp[k], f->out[k]) != 0)
            return mcf_fail(MCF_EIO, "%s: not written: cannot rename %s into place (%s)",
                            f->out[k], f->tmp[k], strerror(errno));
        f->made[k] = 0;
    }
    return MCF_OK;
}

/* a table's script: d (nd > 1: panels of one figure) */
typedef struct table_script {
    const tsv_table *t;
    const plot_layout *l;
    const plot_data *d;
    size_t nd;
} table_script;

static void write_table_script(FILE *g, const void *ctx, const char *svg, const char *png)
{
    const table_script *ts = ctx;
    if (ts->nd > 1)
        plot_write_panels(g, ts->t, ts->l, ts->d, ts->nd, svg, png);
    else
        plot_write_script(g, ts->t, ts->l, ts->d, svg, png);
}

/* Runs gnuplot on the script `write` writes (what: the source, for messages), its stderr
 * into a scratch file of dir. */
static int run_gnuplot(plot_run *pr, const char *what, mcfi_plot_writer write, const void *ctx,
                       plot_files *f)
{
    char *log_path = plot_join_path(pr->dir, ".plot-gnuplot-XXXXXX"), *quoted = NULL, *cmd = NULL;
    if (!log_path)
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", what);
    int log_fd = mkstemp(log_path), rc = MCF_OK;
    if (log_fd < 0) {
        rc = mcf_fail(MCF_EIO, "%s: not written: cannot create a scratch file in %s (%s)",
                      f->out[0], pr->dir, strerror(errno));
        free(log_path);
        return rc;
    }
    close(log_fd);
    quoted = plot_shell_quote(log_path);
    size_t nc = quoted ? strlen(quoted) + 32 : 0;
    cmd = quoted ? malloc(nc) : NULL;
    if (!cmd) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", what);
        goto done;
    }
    snprintf(cmd, nc, "gnuplot 2>%s", quoted);

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
        rc = mcf_fail(MCF_EIO, "cannot start gnuplot for %s: %s", f->out[0], strerror(e));
        goto done;
    }
    write(g, ctx, f->tmp[0], f->tmp[1]);
    int write_failed = ferror(g) || fflush(g) != 0;
    int write_errno = errno;
    int st = pclose(g);
    sigaction(SIGPIPE, &old, NULL);

    char msg[512];
    if (st == -1) {
        rc = mcf_fail(MCF_EIO, "gnuplot for %s: cannot collect its status: %s", f->out[0],
                      strerror(errno));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        pr->no_gnuplot = 1;
        rc = mcf_fail(MCF_EIO, GNUPLOT_MISSING);
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        first_line(log_path, msg, sizeof msg);
        if (WIFEXITED(st))
            rc = mcf_fail(MCF_EIO, "gnuplot failed drawing %s (exit status %d)%s%s",
                          f->out[0], WEXITSTATUS(st), msg[0] ? ": " : "", msg);
        else
            rc = mcf_fail(MCF_EIO, "gnuplot was killed by signal %d drawing %s",
                          WIFSIGNALED(st) ? WTERMSIG(st) : 0, f->out[0]);
    } else if (write_failed) {
        rc = mcf_fail(MCF_EIO, "gnuplot for %s: writing its input failed: %s", f->out[0],
                      strerror(write_errno));
    } else {
        rc = files_place(f, log_path);
    }
done:
    unlink(log_path);
    free(cmd);
    free(quoted);
    free(log_path);
    return rc;
}

/* The curves drawn: all, or for a curve file with more than PLOT_MAX_BANDS, that many
 * evenly spaced ones (first and last included).  shown has room for ngroup. */
static size_t choose_curves(const plot_layout *l, int band, size_t *shown)
{
    if (!band || l->ngroup <= PLOT_MAX_BANDS) {
        for (size_t g = 0; g < l->ngroup; g++)
            shown[g] = g;
        return l->ngroup;
    }
    for (size_t k = 0; k < PLOT_MAX_BANDS; k++)
        shown[k] = (k * (l->ngroup - 1) + (PLOT_MAX_BANDS - 1) / 2) / (PLOT_MAX_BANDS - 1);
    return PLOT_MAX_BANDS;
}

/* The Binder crossings of plot-binder, logged ("Binder crossing L = 4/6 at T = 2.271 ±
 * 0.008 J"); *cross owned by the caller. */
static int binder_crossings(const tsv_table *t, const plot_layout *l, size_t ycol, long ecol,
                            plot_crossing **cross, size_t *n, int log)
{
    *cross = NULL;
    *n = 0;
    /* plot-binder's, logged; the transition figure marks xi/L's crossings too */
    if (!l->scalar || (strcmp(t->names[ycol], "binder") != 0 &&
                       (log || strcmp(t->names[ycol], "xi_over_l") != 0)))
        return MCF_OK;
    int rc = plot_binder_crossings(t, l, ycol, ecol, cross, n);
    for (size_t k = 0; k < *n && !rc && log; k++) {
        char *text = plot_crossing_text(t, l, &(*cross)[k], 0);
        if (!text)
            rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
        else
            mcf_log(MCF_LOG_INFO, "Binder crossing %s", text);
        free(text);
    }
    return rc;
}

/* The points of every curve of column ycol into pts (ngroup x nrow) and npts, sorted by x;
 * rows with a non-finite x or y are left out, a non-finite error is drawn as no error bar.
 * Their number. */
static size_t collect(const tsv_table *t, const plot_layout *l, size_t ycol, long ecol,
                      plot_point *pts, size_t *npts)
{
    size_t total = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        double x = l->x[r], y = t->values[r * t->ncol + ycol];
        double e = ecol >= 0 ? t->values[r * t->ncol + (size_t)ecol] : 0.0;
        if (!isfinite(x) || !isfinite(y))
            continue;
        size_t g = l->group[r];
        pts[g * t->nrow + npts[g]++] = (plot_point){x, y, isfinite(e) ? e : 0.0, r};
        total++;
    }
    for (size_t g = 0; g < l->ngroup; g++)
        qsort(pts + g * t->nrow, npts[g], sizeof *pts, point_cmp);
    return total;
}

/* Draws plot-<name>.svg (and .png).  Sets *drawn to 1 when a plot was written, 0 when the
 * column has no finite values (skipped with a warning). */
static int draw(plot_run *pr, const tsv_table *t, const plot_layout *l, size_t ycol, long ecol,
                int *drawn)
{
    *drawn = 0;
    int rc = MCF_OK;
    plot_files files;
    memset(&files, 0, sizeof files);
    plot_crossing *cross = NULL;
    size_t ncross = 0;
    char *safe = NULL;
    plot_point *pts = malloc(l->ngroup * t->nrow * sizeof *pts);
    size_t *npts = calloc(l->ngroup, sizeof *npts);
    size_t *shown = malloc((l->ngroup + 1) * sizeof *shown);
    if (!pts || !npts || !shown) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
        goto done;
    }
    if (collect(t, l, ycol, ecol, pts, npts) == 0) {
        mcf_log(MCF_LOG_WARN, "%s: column '%s' has no finite values; not plotted", t->path,
                t->names[ycol]);
        goto done;
    }
    if ((rc = binder_crossings(t, l, ycol, ecol, &cross, &ncross, 1)))
        goto done;
    int band = !l->scalar && ecol >= 0;
    plot_data d = {pts, npts, ycol, ecol, band, shown, choose_curves(l, band, shown),
                   cross, ncross};
    if (!(safe = plot_file_safe(t->names[ycol]))) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
        goto done;
    }
    const table_script ts = {t, l, &d, 1};
    if ((rc = files_create(&files, pr->dir, safe, pr->terminals == 2)) ||
        (rc = run_gnuplot(pr, t->path, write_table_script, &ts, &files)))
        goto done;
    *drawn = 1;
    pr->written++;
    pr->png_written += files.out[1] != NULL;
done:
    files_free(&files);
    free(safe);
    free(cross);
    free(shown);
    free(npts);
    free(pts);
    return rc;
}

/* plot-transition: |m|, chi, U and xi/L (those with errors) against T, one curve per lattice
 * size, in one figure, where results.tsv scans T and one size column and has two of them */
static int draw_transition(plot_run *pr, const tsv_table *t, const plot_layout *l)
{
    static const char *const want[4] = {"abs_m", "susceptibility", "binder", "xi_over_l"};
    size_t col[4], n = 0;
    long ecol[4];
    char name[64];
    for (int k = 0; k < 4; k++) {
        long c = tsv_column(t, want[k]);
        snprintf(name, sizeof name, "%s_err", want[k]);
        if (c >= 0 && (ecol[n] = tsv_column(t, name)) >= 0)
            col[n++] = (size_t)c;
    }
    if (!l->scalar || n < 2 || l->ngcol != 1 || l->ngroup < 2 || l->x_categorical)
        return MCF_OK;
    plot_point *pts = malloc(n * l->ngroup * t->nrow * sizeof *pts);
    size_t *npts = calloc(n * l->ngroup, sizeof *npts), *shown = malloc(l->ngroup * sizeof *shown);
    plot_crossing *cross[4] = {NULL, NULL, NULL, NULL};
    plot_data d[4];
    plot_files files;
    memset(&files, 0, sizeof files);
    int rc = pts && npts && shown ? MCF_OK
                                  : mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    for (size_t g = 0; !rc && g < l->ngroup; g++)
        shown[g] = g;
    for (size_t k = 0; k < n && !rc; k++) {
        plot_point *p = pts + k * l->ngroup * t->nrow;
        size_t *np = npts + k * l->ngroup, nc = 0;
        collect(t, l, col[k], ecol[k], p, np);
        rc = binder_crossings(t, l, col[k], ecol[k], &cross[k], &nc, 0); /* U_4, xi/L */
        d[k] = (plot_data){p, np, col[k], ecol[k], 0, shown, l->ngroup, cross[k], nc};
    }
    const table_script ts = {t, l, d, n};
    if (!rc && !(rc = files_create(&files, pr->dir, "transition", pr->terminals == 2)) &&
        !(rc = run_gnuplot(pr, t->path, write_table_script, &ts, &files))) {
        pr->written++;
        pr->png_written += files.out[1] != NULL;
    }
    files_free(&files);
    for (int k = 0; k < 4; k++)
        free(cross[k]);
    free(shown);
    free(npts);
    free(pts);
    return rc;
}

/* ---------------------------------------------------------------------------------- */

/* gnuplot's terminals, asked once a folder: MCF_EIO when there is no gnuplot */
static int ask_terminals(plot_run *pr)
{
    if (pr->terminals < 0) {
        pr->terminals = gnuplot_terminals();
        if (pr->terminals == 1)
            mcf_log(MCF_LOG_WARN, "gnuplot has no pngcairo terminal: SVG plots only (Debian's "
                    "gnuplot-nox has it)");
    }
    if (pr->terminals == 0) {
        pr->no_gnuplot = 1;
        return mcf_fail(MCF_EIO, GNUPLOT_MISSING);
    }
    return MCF_OK;
}

int mcfi_plot_script(const char *dir, const char *name, mcfi_plot_writer write,
                     const void *ctx, int *no_gnuplot)
{
    plot_run pr = {.dir = dir, .terminals = -1};
    plot_files files;
    memset(&files, 0, sizeof files);
    int rc = ask_terminals(&pr);
    if (!rc)
        rc = files_create(&files, dir, name, pr.terminals == 2);
    if (!rc)
        rc = run_gnuplot(&pr, name, write, ctx, &files);
    files_free(&files);
    if (no_gnuplot)
        *no_gnuplot = pr.no_gnuplot;
    return rc;
}

/* Draws every column with an _err partner (and acceptance) of one table file. */
static int plot_table(plot_run *pr, const char *path, int scalar)
{
    tsv_table t;
    memset(&t, 0, sizeof t);
    t.path = path;
    plot_layout l;
    memset(&l, 0, sizeof l);

    int rc = tsv_read(&t, path);
    if (rc != MCF_OK || (rc = ask_terminals(pr)) != MCF_OK)
        goto out;
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
        if (e >= 0)
            rc = draw(pr, &t, &l, c, e, &drawn);
        else if (strcmp(t.names[c], "acceptance") == 0)
            rc = draw(pr, &t, &l, c, -1, &drawn);
    }
    free(errname);
    if (rc == MCF_OK)
        rc = draw_transition(pr, &t, &l);

out:
    plot_layout_free(&l);
    tsv_free(&t);
    return rc;
}


int mcfi_plot_dir(const char *dir, int *n_written, int *no_gnuplot, int *n_png)
{
    plot_run pr = {.dir = dir, .terminals = -1};
    if (n_written)
        *n_written = 0;
    if (no_gnuplot)
        *no_gnuplot = 0;
    if (n_png)
        *n_png = 0;
    if (!dir || !*dir)
        return mcf_fail(MCF_EINVAL, "mcf plot: no run folder given; usage: mcf plot DIR");
    char *path = plot_join_path(dir, "results.tsv");
    if (!path)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = plot_table(&pr, path, 1);
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
        char *cpath = plot_join_path(dir, file);
        if (!cpath)
            return mcf_fail(MCF_ENOMEM, "out of memory");
        rc = plot_table(&pr, cpath, 0);
        free(cpath);
    }
    if (n_written)
        *n_written = pr.written;
    if (no_gnuplot)
        *no_gnuplot = pr.no_gnuplot;
    if (n_png)
        *n_png = pr.png_written;
    return rc;
}
