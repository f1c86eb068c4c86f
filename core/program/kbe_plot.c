/* kbe_plot.c — the plots of a kbe run (kbe.h) with the program's plot module (plot.h):
 * DIR/plot-kbe (three panels over t: the drive E(t) and U(t); the occupations; the energy
 * balance) from kbe.tsv, and DIR/plot-spectrum-tT (A(omega) and its occupied part, averaged
 * over k) from a spectrum file of `mcf kbe-spectrum`.  The tables' rows go into the script
 * as datablocks; columns are found by their names in the header. */
#define _POSIX_C_SOURCE 200809L
#include "kbe.h"

#include "mcf/error.h"
#include "mcf/log.h"
#include "plot.h"
#include "plot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kbe_plot_src {
    const char *path;  /* the table */
    int spectrum;      /* 0: kbe.tsv; 1: a spectrum file (its k = local rows) */
    char header[1024]; /* the column names, tab-separated */
} kbe_plot_src;

/* the column number (1-based, gnuplot's) of name in the header, 0 if absent */
static int column(const kbe_plot_src *s, const char *name)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s->header);
    int k = 1;
    for (char *save = NULL, *w = strtok_r(buf, "\t\n", &save); w;
         w = strtok_r(NULL, "\t\n", &save), k++)
        if (!strcmp(w, name))
            return k;
    return 0;
}

/* the table's data rows as $d (a spectrum's k = local rows only, "local" made 0) */
static void put_data(FILE *g, const kbe_plot_src *s)
{
    FILE *in = fopen(s->path, "r");
    char line[8192];
    int head = 1;
    fputs("$d << EOD\n", g);
    while (in && fgets(line, sizeof line, in)) {
        if (line[0] == '#')
            continue;
        if (head) {
            head = 0;
            continue;
        }
        if (s->spectrum) {
            if (strncmp(line, "local\t", 6) != 0)
                continue;
            fputs("0", g);
            fputs(line + 5, g);
        } else {
            fputs(line, g);
        }
    }
    fputs("EOD\n", g);
    if (in)
        fclose(in);
}

static void terminal(FILE *g, const char *out, int png, int height)
{
    if (png)
        fprintf(g, "set terminal pngcairo size 1600,%d enhanced font 'sans,12' fontscale 2 "
                "linewidth 2 background '#ffffff'\n", 2 * height);
    else
        fprintf(g, "set terminal svg size 800,%d dynamic enhanced font 'sans,12' background "
                "'#ffffff'\n", height);
    fputs("set output ", g);
    plot_put_string(g, out);
    fputc('\n', g);
}

static void kbe_panels(FILE *g, const kbe_plot_src *s)
{
    const int t = column(s, "t"), E = column(s, "E"), U = column(s, "U");
    const int nv = column(s, "n_v"), nc = column(s, "n_c"), et = column(s, "E_tot");
    const int bal = column(s, "balance");
    fputs("set multiplot layout 3,1\nset grid\nset key top right\n", g);
    fputs("set xlabel ''\nset ylabel 'drive'\n", g);
    fprintf(g, "plot $d using %d:%d with lines title 'E(t)', $d using %d:%d with lines "
            "title 'U(t)'\n", t, E, t, U);
    fputs("set ylabel 'occupation per cell'\n", g);
    if (nc && nv)
        fprintf(g, "plot $d using %d:%d with lines title 'n_c(t)', $d using %d:(1 - $%d) with "
                "lines title '1 - n_v(t)'\n", t, nc, t, nv);
    else
        fprintf(g, "plot $d using %d:%d with lines title 'n_1(t)'\n", t, column(s, "n_1"));
    fputs("set xlabel 't'\nset ylabel 'energy per cell'\n", g);
    fputs("set y2tics\n", g);
    fprintf(g, "plot $d using %d:%d with lines title 'E_{tot}(t)', $d using %d:%d with lines "
            "axes x1y2 title 'balance (right axis)'\n", t, et, t, bal);
    fputs("unset y2tics\nunset multiplot\n", g);
}

static void spectrum_plot(FILE *g, const kbe_plot_src *s)
{
    fputs("set grid\nset key top right\nset xlabel '{/Symbol w}'\n"
          "set ylabel 'spectral function, averaged over k'\n", g);
    const int w = column(s, "omega"), av = column(s, "A_v"), ac = column(s, "A_c");
    const int ov = column(s, "Aocc_v"), oc = column(s, "Aocc_c");
    if (av && ac)
        fprintf(g, "plot $d using %d:($%d + $%d) with lines title 'A({/Symbol w})', $d using "
                "%d:($%d + $%d) with filledcurves y1=0 fs transparent solid 0.3 title "
                "'A^<({/Symbol w}) (occupied)'\n", w, av, ac, w, ov, oc);
    else
        fprintf(g, "plot $d using %d:%d with lines title 'A_0({/Symbol w})'\n", w,
                column(s, "A_0"));
}

static void write_script(FILE *g, const void *ctx, const char *svg, const char *png)
{
    const kbe_plot_src *s = ctx;
    const int height = s->spectrum ? 480 : 900;
    put_data(g, s);
    for (int k = 0; k < 1 + (png != NULL); k++) {
        terminal(g, k ? png : svg, k, height);
        if (s->spectrum)
            spectrum_plot(g, s);
        else
            kbe_panels(g, s);
    }
    fputs("unset output\n", g);
}

int mcfi_kbe_plot(const char *dir, const char *table, const char *name)
{
    kbe_plot_src s = {.spectrum = strncmp(table, "spectrum", 8) == 0};
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, table);
    s.path = path;
    FILE *in = fopen(path, "r");
    if (!in)
        return mcf_fail(MCF_EIO, "%s: cannot be read for its plot", path);
    s.header[0] = '\0';
    while (fgets(s.header, sizeof s.header, in) && s.header[0] == '#')
        ;
    fclose(in);
    int no_gnuplot = 0;
    const int rc = mcfi_plot_script(dir, name, write_script, &s, &no_gnuplot);
    if (rc)
        mcf_log(MCF_LOG_WARN, "%s: no plot-%s: %s", dir, name, mcf_last_error());
    else
        printf("mcf: %s/plot-%s.svg\n", dir, name);
    return rc;
}
