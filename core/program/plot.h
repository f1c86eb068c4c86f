/* plot.h — `mcf plot DIR`: the mcf program's plot module (plot.c, plot_tsv.c,
 * plot_layout.c; not part of libmcf).  main.c also draws a finished run's plots with it. */
#ifndef MCF_PLOT_H
#define MCF_PLOT_H

/* Reads DIR/results.tsv (and any curve files DIR/<name>.tsv named in its metadata) and
 * draws, with gnuplot, one SVG per scalar observable against the last scan column that
 * takes more than one value, with error bars (one curve per combination of values of the
 * other varying scan columns), into DIR/plot-<name>.svg.
 * Writes the number of files written to *n_written (may be NULL).  Errors: MCF_EIO when
 * DIR/results.tsv is missing or gnuplot cannot be run (message says to install
 * gnuplot-nox), MCF_EFORMAT when results.tsv is malformed (with its line number). */
int mcfi_plot_dir(const char *dir, int *n_written);

#endif
