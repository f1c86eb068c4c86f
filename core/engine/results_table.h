/* results_table.h — the rows of results.tsv and of the curve files as columns of full
 * precision numbers (or text) (results_table.c; internal): results.c prints them,
 * results_h5.c stores them. */
#ifndef MCF_RESULTS_TABLE_H
#define MCF_RESULTS_TABLE_H

#include "run_state.h"

typedef struct mcfi_column {
    char *name;          /* the column's name in the .tsv header (owned) */
    double *x;           /* n_rows numbers (owned), or NULL for a text column */
    const char **text;   /* n_rows texts (the array owned, the strings borrowed from the
                            setup) when x is NULL */
} mcfi_column;

typedef struct mcfi_table {
    size_t n_rows, n_cols, cap;
    mcfi_column *cols;
} mcfi_table;

/* results.tsv: one row per scan point, the columns of its header in order (scan columns
 * or "point", then per scalar observable NAME, NAME_err, tau_NAME in sweeps, the derived
 * quantities with _err, acceptance).  MCF_ENOMEM with a message; *t is then empty. */
int mcfi_results_table(const mcf_run *r, mcfi_table *t);
/* <name>.tsv of curve k (0 <= k < r->n_curves): one row per scan point and axis value
 * (scan columns or "point", the axis, the value, its jackknife error).  A curve that no
 * chain measures gives no rows. */
int mcfi_curve_table(const mcf_run *r, size_t k, mcfi_table *t);
void mcfi_table_free(mcfi_table *t);
/* A new column of t->n_rows numbers (text = 0) or texts (borrowed strings), zeroed; NULL
 * when out of memory.  The pointer is good until the next call (which may move the
 * columns). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
mcfi_column *mcfi_table_add_column(mcfi_table *t, int text, const char *fmt, ...);
/* The scan columns of t's n_rows rows (results.tsv's: one per axis, or "point"), row j at
 * scan point point_of[j] (or j when NULL): 0, or -1 when out of memory. */
int mcfi_table_add_scan_columns(const mcf_run *r, mcfi_table *t, const size_t *point_of);
/* 1 when results.tsv of a run of s has the columns NAME and NAME_err: a scalar observable
 * of the model, or a derived quantity its roles and scan give; else 0. */
int mcfi_results_error_column(const mcf_setup *s, const char *name);
/* Derived quantity q (0 specific_heat, 1 susceptibility, 2 binder, 3 variance) left out
 * because it would multiply two observables of one noise set (mcf/model.h, MCF_OBS_NOISE):
 * one line saying which, why and what the model must do, in buf (cap bytes), returned;
 * NULL when q is written or is not a column for other reasons. */
const char *mcfi_results_noise_message(const mcf_setup *s, int q, char *buf, size_t cap);

#endif
