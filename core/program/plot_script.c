/* plot_script.c — the gnuplot script of one plot: the points as datablocks (so that the
 * PNG is a replot of the SVG's plot, not a second copy of the data), the texts (enhanced
 * markup from plot_text.c: "U_4" with a subscript, values and names as written), error
 * bars or, for a curve file, a shaded band of ± error around a line, and the Binder
 * crossings.  Running gnuplot and placing the files is plot.c's. */
#define _POSIX_C_SOURCE 200809L

#include "plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes s to f as a gnuplot single-quoted string (a quote inside is doubled; no
 * backslash escapes: the markup's backslashes reach the enhanced-text parser). */
static void put_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

void plot_put_string(FILE *f, const char *s) { put_string(f, s); }

/* the title: the quantity's symbol, the one-valued scan columns and, when curves were
 * left out, how many are drawn: "ρ(E) (L = 16; 8 of 40 curves)" */
static void put_title(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d)
{
    char *sym = plot_markup_symbol(t, t->names[d->ycol]);
    if (!sym) {
        put_string(g, "");
        return;
    }
    char thinned[64] = "";
    if (d->nshown < l->ngroup)
        snprintf(thinned, sizeof thinned, "%zu of %zu curves", d->nshown, l->ngroup);
    size_t n = strlen(sym) + strlen(l->fixed) + strlen(thinned) + 8;
    char *title = malloc(n);
    if (!title) {
        put_string(g, sym);
        free(sym);
        return;
    }
    if (l->fixed[0] || thinned[0])
        snprintf(title, n, "%s (%s%s%s)", sym, l->fixed, l->fixed[0] && thinned[0] ? "; " : "",
                 thinned);
    else
        snprintf(title, n, "%s", sym);
    put_string(g, title);
    free(title);
    free(sym);
}

/* about the characters markup s shows: UTF-8 characters but markup's braces and
 * backslashes */
static size_t text_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80 && !strchr("{}\\", *s);
    return n;
}

/* the axes: labels, grid, key, ranges (an x of one value gets some width; words on x
 * are tics) */
static void put_axes(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d)
{
    fputs("set title ", g);
    put_title(g, t, l, d);
    fputs("\nset xlabel ", g);
    put_string(g, l->xlabel);
    char *ylabel = plot_axis_text(t, t->names[d->ycol]);
    fputs("\nset ylabel ", g);
    put_string(g, ylabel ? ylabel : "");
    free(ylabel);
    fputs("\nset grid\nset bars small\n", g);
    /* a legend only when there are curves to tell apart, outside so it hides no point */
    /* long entries (a crossing, two split columns) under the plot, so that they do not
       narrow it */
    size_t longest = 0;
    for (size_t k = 0; k < d->nshown; k++)
        longest = longest > text_width(l->group_title[d->shown[k]])
                      ? longest : text_width(l->group_title[d->shown[k]]);
    if (d->ncross || longest > 18)
        fputs("set key outside below center horizontal\n", g);
    else
        fputs(d->nshown > 1 ? "set key outside right top\n" : "unset key\n", g);
    /* scalar plots: a margin of 3% of the x range on either side, so that the first and
     * last points and their error bars are not drawn on the frame (autoscaled x only;
     * the fixed ranges below already leave room) */
    if (l->scalar)
        fputs("set offsets graph 0.03, graph 0.03, 0, 0\n", g);
    double xmin = INFINITY, xmax = -INFINITY;
    size_t total = 0;
    for (size_t k = 0; k < d->nshown; k++) {
        const size_t gi = d->shown[k];
        const plot_point *p = d->pts + gi * t->nrow;
        for (size_t i = 0; i < d->npts[gi]; i++, total++) {
            xmin = fmin(xmin, p[i].x);
            xmax = fmax(xmax, p[i].x);
        }
    }
    if (l->x_categorical) {
        fputs("set xtics (", g);
        size_t xc = (size_t)l->xcol;
        for (size_t k = 0; k < l->ncat; k++) {
            if (k)
                fputs(", ", g);
            char *word = plot_markup_plain(t->cells[l->cat_row[k] * t->ncol + xc]);
            put_string(g, word ? word : "");
            free(word);
            fprintf(g, " %zu", k);
        }
        fputs(")\n", g);
        fprintf(g, "set xrange [-0.5:%.17g]\n", (double)l->ncat - 0.5);
    } else if (total > 0 && xmin == xmax) {
        double w = xmin != 0 ? 0.1 * fabs(xmin) : 1.0;
        fprintf(g, "set xrange [%.17g:%.17g]\n", xmin - w, xmax + w);
    }
}

/* $mcf_data<tag>: one block per curve drawn (x y err), blocks apart by two blank lines;
 * $mcf_cross<tag>: one block per crossing (x y xerr); the tag tells a figure's panels apart */
static void put_data(FILE *g, const tsv_table *t, const plot_data *d, const char *tag)
{
    fprintf(g, "$mcf_data%s << EOD\n", tag);
    int first = 1;
    for (size_t k = 0; k < d->nshown; k++) {
        const size_t gi = d->shown[k];
        const plot_point *p = d->pts + gi * t->nrow;
        if (d->npts[gi] == 0)
            continue;
        if (!first)
            fputs("\n\n", g);
        first = 0;
        for (size_t i = 0; i < d->npts[gi]; i++)
            fprintf(g, "%.17g %.17g %.17g\n", p[i].x, p[i].y, p[i].err);
    }
    fputs("EOD\n", g);
    if (!d->ncross)
        return;
    fprintf(g, "$mcf_cross%s << EOD\n", tag);
    for (size_t k = 0; k < d->ncross; k++)
        fprintf(g, "%s%.17g %.17g %.17g\n", k ? "\n\n" : "", d->cross[k].x, d->cross[k].y,
                d->cross[k].xerr);
    fputs("EOD\n", g);
}

static void put_plot(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d,
                     const char *tag)
{
    fputs("plot ", g);
    size_t index = 0;
    for (size_t k = 0; k < d->nshown; k++) {
        const size_t gi = d->shown[k];
        if (d->npts[gi] == 0)
            continue;
        char *sym = plot_markup_symbol(t, t->names[d->ycol]);
        const char *title = l->group_title[gi][0] ? l->group_title[gi] : sym ? sym : "";
        size_t color = k % 8 + 1;
        if (index)
            fputs(", \\\n     ", g);
        if (d->band) {
            /* the band first, so that the line is drawn over it */
            fprintf(g, "$mcf_data%s index %zu using 1:($2-$3):($2+$3) with filledcurves "
                    "fillstyle transparent solid 0.25 noborder linecolor %zu notitle, \\\n     "
                    "$mcf_data%s index %zu using 1:2 with lines linewidth 1.5 linecolor %zu "
                    "title ", tag, index, color, tag, index, color);
        } else if (d->ecol >= 0) {
            fprintf(g, "$mcf_data%s index %zu using 1:2:3 with yerrorlines linecolor %zu "
                    "pointtype 7 pointsize 0.6 title ", tag, index, color);
        } else {
            fprintf(g, "$mcf_data%s index %zu using 1:2 with linespoints linecolor %zu "
                    "pointtype 7 pointsize 0.6 title ", tag, index, color);
        }
        put_string(g, title);
        free(sym);
        index++;
    }
    for (size_t k = 0; k < d->ncross; k++) {
        char *title = plot_crossing_text(t, l, &d->cross[k], 1); /* "L = 4/6 at T = ..." */
        fprintf(g, ", \\\n     $mcf_cross%s index %zu using 1:2:3 with xerrorbars pointtype 6 "
                "pointsize 1.6 linewidth 1.5 linecolor rgb 'black' title ", tag, k);
        put_string(g, title ? title : "");
        free(title);
    }
    fputc('\n', g);
}

void plot_write_script(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d,
                       const char *svg_path, const char *png_path)
{
    fputs("set terminal svg size 800,560 dynamic enhanced font 'sans,12' "
          "background '#ffffff'\n", g);
    fputs("set output ", g);
    put_string(g, svg_path);
    fputc('\n', g);
    put_data(g, t, d, "");
    put_axes(g, t, l, d);
    put_plot(g, t, l, d, "");
    if (png_path) {
        /* the same plot at twice the size, for slides */
        fputs("set terminal pngcairo size 1600,1120 enhanced font 'sans,12' fontscale 2 "
              "linewidth 2 pointscale 2 background '#ffffff'\nset output ", g);
        put_string(g, png_path);
        fputs("\nreplot\n", g);
    }
    fputs("unset output\n", g);
}

/* the panels side by side: each its own axes, key and ranges */
static void put_panels(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d,
                       size_t n)
{
    fprintf(g, "set multiplot layout 1,%zu\n", n);
    for (size_t k = 0; k < n; k++) {
        char tag[24];
        snprintf(tag, sizeof tag, "%zu", k);
        fputs("set autoscale x\nset autoscale y\nunset offsets\nset xtics autofreq\n", g);
        put_axes(g, t, l, &d[k]);
        put_plot(g, t, l, &d[k], tag);
    }
    fputs("unset multiplot\n", g);
}

void plot_write_panels(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d,
                       size_t n, const char *svg_path, const char *png_path)
{
    fprintf(g, "set terminal svg size %zu,480 dynamic enhanced font 'sans,12' "
            "background '#ffffff'\nset output ", 520 * n);
    put_string(g, svg_path);
    fputc('\n', g);
    for (size_t k = 0; k < n; k++) {
        char tag[24];
        snprintf(tag, sizeof tag, "%zu", k);
        put_data(g, t, &d[k], tag);
    }
    put_panels(g, t, l, d, n);
    if (png_path) {
        /* a multiplot is not replotted: the same panels again, at twice the size */
        fprintf(g, "set terminal pngcairo size %zu,960 enhanced font 'sans,12' fontscale 2 "
                "linewidth 2 pointscale 2 background '#ffffff'\nset output ", 1040 * n);
        put_string(g, png_path);
        fputc('\n', g);
        put_panels(g, t, l, d, n);
    }
    fputs("unset output\n", g);
}
