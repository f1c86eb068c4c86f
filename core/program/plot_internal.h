/* plot_internal.h — shared by the files of the mcf program's plot module (plot_tsv.c,
 * plot_layout.c, plot_binder.c, plot_script.c, plot.c): a results table read from TSV, the
 * layout of its plots, the Binder crossings and the gnuplot script.  Not part of libmcf;
 * plot.h is the module's entry point. */
#ifndef MCF_PLOT_INTERNAL_H
#define MCF_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

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
    char **label_name, **label_symbol, **label_unit; /* from "# labels:", owned */
    size_t nlabels;
    size_t labels_line;     /* 0 when there is no labels line (an older file) */
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
/* The symbol of column name from "# labels:" ("⟨|m|⟩"), or name itself; its unit ("" for
 * none).  Borrowed from t. */
const char *tsv_symbol(const tsv_table *t, const char *name);
const char *tsv_unit(const tsv_table *t, const char *name);
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
    char *xlabel;          /* the x axis: "T / t" (plot_axis_text), or "row" (owned) */
    long xcol;             /* the x column, -1 when plotting against the row number */
    double *x;             /* nrow */
    int x_categorical;     /* x column holds words: x is the index of the distinct word */
    size_t ncat;
    size_t *cat_row;       /* first row of each category, for the tic labels */
    size_t *gcol;          /* the varying scan columns other than x, in scan order */
    size_t ngcol;
    size_t *group;         /* nrow: curve index of each row */
    size_t ngroup;
    size_t *group_row;     /* ngroup: the first row of each curve */
    char **group_title;    /* ngroup titles ("L = 16", "W = 4 t, L = 8"), "" for one curve */
    char *fixed;           /* "T = 2.3 J" or "L = 16, T = 2.3 J": the one-valued scan
                              columns */
    int scalar;            /* results.tsv (scalar observables), not a curve file */
} plot_layout;

/* Lays out table t (scalar: results.tsv rather than a curve file) into l.  MCF_ENOMEM
 * only; release with plot_layout_free(), also after a failure. */
int plot_layout_build(const tsv_table *t, plot_layout *l, int scalar);
void plot_layout_free(plot_layout *l);

/* ---- the texts (plot_text.c) ---------------------------------------------------------- */
/* Every text of a plot is gnuplot enhanced-text markup.  In a symbol or unit from
 * "# labels:", "_x" and "^x" (x a run of ASCII letters and digits, or "{...}") are sub- and
 * superscripts ("U_4", "ρ_typ(E)", "k_B T"); everything else, and every text that is not
 * a label (values, column names, words), is drawn as written.  Each function returns a
 * string owned by the caller, NULL when out of memory. */
/* s drawn as written. */
char *plot_markup_plain(const char *s);
/* The symbol of column name, or its name without a label. */
char *plot_markup_symbol(const tsv_table *t, const char *name);
/* The unit of column name ("" without one). */
char *plot_markup_unit(const tsv_table *t, const char *name);
/* Axis text of column name: "symbol / unit" ("T / t"; a compound symbol or unit in
 * parentheses: "(E/N) / t"), "symbol · X" for a unit 1/X ("χ · J"), the symbol alone
 * without a unit. */
char *plot_axis_text(const tsv_table *t, const char *name);
/* "symbol = value unit" ("L = 16", "W = 4 t"). */
char *plot_value_text(const tsv_table *t, const char *name, const char *value);

/* "dir/name", without doubling a trailing '/'; s as one shell single-quoted word; a
 * file-name-safe copy of a column name (anything but [A-Za-z0-9_.-] becomes '_', no
 * leading '.').  Each owned by the caller; NULL when out of memory. */
char *plot_join_path(const char *dir, const char *name);
char *plot_shell_quote(const char *s);
/* s to f as a gnuplot single-quoted string (plot_script.c) */
void plot_put_string(FILE *f, const char *s);
char *plot_file_safe(const char *name);

/* ---- the Binder crossings (plot_binder.c) ------------------------------------------- */
/* Where the curves of two consecutive sizes cross. */
typedef struct plot_crossing {
    size_t g1, g2;        /* the curves (groups), smaller size first */
    double x, xerr;       /* the crossing and its error (linear propagation; 0 without
                             errors) */
    double y;             /* the value there */
} plot_crossing;

/* The crossings of column ycol (error column ecol, or -1) between the curves of
 * consecutive sizes: when the rows split into curves by exactly one numeric scan column
 * (the size, e.g. L) and x is numeric, for each pair of curves adjacent in that column's
 * order, the points where d = U(size1) - U(size2) changes sign between neighbouring common
 * x values, linearly interpolated: those where d exceeds its error (the two error bars
 * added in quadrature) at one of the two neighbours, and, between two x values where it
 * does with opposite signs and nowhere between, the first change.  *out (owned, free())
 * and *n; none (n = 0) when the layout does not qualify.  MCF_ENOMEM only. */
int plot_binder_crossings(const tsv_table *t, const plot_layout *l, size_t ycol, long ecol,
                          plot_crossing **out, size_t *n);
/* "L = 4/6 at T = 2.271 ± 0.008 J": the two sizes and the crossing's x in the x column's
 * symbol and unit, to the decimals of its error (two significant digits; %.6g without
 * one).  markup: as gnuplot markup (plot_text.c), else plain text.  Owned by the caller;
 * NULL when out of memory. */
char *plot_crossing_text(const tsv_table *t, const plot_layout *l, const plot_crossing *c,
                         int markup);

/* ---- the gnuplot script (plot_script.c) -------------------------------------------- */
typedef struct plot_point {
    double x, y, err;
    size_t row; /* for a stable sort */
} plot_point;

/* What one plot shows: the curves' points, pts[g * nrow + i] for i < npts[g], sorted by
 * x; which curves are drawn; the crossings to mark. */
typedef struct plot_data {
    const plot_point *pts;
    const size_t *npts;
    size_t ycol;
    long ecol;                  /* the error column, -1: none */
    int band;                   /* a curve file: the mean as a line in a band of ± error */
    const size_t *shown;        /* the curves drawn, in order */
    size_t nshown;              /* < ngroup: thinned (the title says so) */
    const plot_crossing *cross;
    size_t ncross;
} plot_data;

/* Writes the script of one plot to g: the SVG into svg_path and, when png_path is not
 * NULL, the same plot as a PNG (pngcairo, twice the size) into png_path.  Errors show as
 * ferror(g). */
void plot_write_script(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d,
                       const char *svg_path, const char *png_path);
/* The same for n plots of one layout drawn as panels side by side in one figure (a gnuplot
 * multiplot, 1 x n). */
void plot_write_panels(FILE *g, const tsv_table *t, const plot_layout *l, const plot_data *d,
                       size_t n, const char *svg_path, const char *png_path);

#endif
