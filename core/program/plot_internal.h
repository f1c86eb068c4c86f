/* plot_internal.h — shared by the files of the mcf program's plot module (plot_tsv.c,
 * plot_layout.c, plot.c): a results table read from TSV and the layout of its plots.
 * Not part of libmcf; plot.h is the module's entry point. */
#ifndef MCF_PLOT_INTERNAL_H
#define MCF_PLOT_INTERNAL_H

#include <stddef.h>

/* ---- the table (plot_tsv.c) ---------------------------------------------------------- */
/* results.tsv (or a curve file) read whole: the header, every row as strings with the
 * numbers parsed alongside, and the scan columns named by its "# scan:" metadata line. */
typedef struct tsv_table {
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
} tsv_table;

/* Reads the file at path into t (zeroed by the caller; t->path set to path for messages).
 * Errors: MCF_EIO (missing or unreadable; a missing file says to run `mcf run` first),
 * MCF_EFORMAT with path:line (a malformed header or row, no header, no rows).  Release
 * with tsv_free(), also after a failure. */
int tsv_read(tsv_table *t, const char *path);
void tsv_free(tsv_table *t);
/* The index of the column called name, or -1. */
long tsv_column(const tsv_table *t, const char *name);
int tsv_is_scan_column(const tsv_table *t, size_t col);
/* 1 when s holds only blanks and tabs. */
int tsv_is_blank(const char *s);
/* The names after "# curves:" in the metadata of the file at path, space separated, into
 * buf ("" if none). */
void tsv_curve_names(const char *path, char *buf, size_t size);

/* ---- the layout (plot_layout.c) ------------------------------------------------------ */
/* The layout shared by every plot of one table: x of each row, and the curve (group)
 * each row belongs to.  The x column is the last scan column that takes more than one
 * value (the last scan column when none does); the other scan columns that take more
 * than one value split the rows into curves; those that keep one value are named in the
 * plot title instead. */
typedef struct plot_layout {
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
} plot_layout;

/* Lays out table t (scalar: results.tsv rather than a curve file) into l.  MCF_ENOMEM
 * only; release with plot_layout_free(), also after a failure. */
int plot_layout_build(const tsv_table *t, plot_layout *l, int scalar);
void plot_layout_free(plot_layout *l);

#endif
