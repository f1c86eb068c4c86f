/* plot.h — `mcf plot DIR`: the mcf program's plot module (plot.c, plot_tsv.c,
 * plot_layout.c; not part of libmcf).  main.c also draws a finished run's plots with it. */
#ifndef MCF_PLOT_H
#define MCF_PLOT_H

/* Reads DIR/results.tsv (and any curve files DIR/<name>.tsv named in its metadata) and
 * draws, with gnuplot, one plot per scalar observable against the last scan column that
 * takes more than one value, with error bars (one curve per combination of values of the
 * other varying scan columns, with a legend), axes named by the "# labels:" symbols and
 * units, the Binder crossings of consecutive sizes marked on plot-binder (and logged), and
 * one per curve file (lines in bands of ± error), into DIR/plot-<name>.svg and, where
 * gnuplot has the pngcairo terminal, DIR/plot-<name>.png (without it: SVG only, one
 * warning).
 * Writes the number of plots written to *n_written (may be NULL), of PNG files among them
 * to *n_png (may be NULL), and to *no_gnuplot (may be NULL) 1 when the plotting failed
 * because gnuplot cannot be run (not installed or not on PATH; the message says to install
 * gnuplot-nox), else 0: a finished run only warns of that.  Errors: MCF_EINVAL when
 * DIR/results.tsv does not exist, MCF_EIO when it cannot be read or gnuplot cannot be run
 * or fails, MCF_EFORMAT when results.tsv or a curve file is malformed (with its line
 * number) or not a regular file. */
int mcfi_plot_dir(const char *dir, int *n_written, int *no_gnuplot, int *n_png);

#include <stdio.h>

/* Writes a whole gnuplot script to g: its terminal output to the files svg and png (png
 * NULL: SVG only), its data inline (datablocks), then the plot. */
typedef void (*mcfi_plot_writer)(FILE *g, const void *ctx, const char *svg, const char *png);
/* One plot of the program's own (kbe_plot.c): DIR/plot-NAME.svg (and .png where gnuplot
 * has pngcairo) from the script `write` writes, with the same care as mcfi_plot_dir (files
 * made first, whole before renamed into place).  *no_gnuplot (may be NULL) as there. */
int mcfi_plot_script(const char *dir, const char *name, mcfi_plot_writer write,
                     const void *ctx, int *no_gnuplot);

#endif
