/* labels.h — symbols and units of a run's columns (labels.c; internal): the model's
 * declared labels (mcf_model_ops.labels) checked at load time, completed by the core's own
 * for the quantities it derives, and written as the "# labels:" line of results.tsv and
 * the curve files (results.h5 keeps them as attributes). */
#ifndef MCF_LABELS_H
#define MCF_LABELS_H

#include "run_state.h"

/* One label with its strings owned. */
typedef struct mcfi_label {
    char *name, *symbol, *unit; /* unit "" when the quantity is a pure number */
} mcfi_label;

typedef struct mcfi_labels {
    size_t n;
    mcfi_label *v;
} mcfi_labels;

/* Checks a model's labels (none is fine): each name an observable, a parameter, a curve
 * axis or "T", once; symbol and unit UTF-8 of at most 63 bytes without control
 * characters, the unit without '[' or ']'.  MCF_EPLUGIN naming path and the label. */
int mcfi_labels_check(const char *path, const mcf_observable *obs, const mcf_label *l,
                      const mcf_param_spec *params);

/* The labels of run r: the model's, then the core's for T (when the model gives none),
 * specific_heat, susceptibility, binder, variance and acceptance, with units derived from
 * the unit of energy.  MCF_ENOMEM with a message; release with mcfi_labels_free(). */
int mcfi_labels_build(const mcf_run *r, mcfi_labels *out);
void mcfi_labels_free(mcfi_labels *l);
/* The label of name, or NULL. */
const mcfi_label *mcfi_labels_find(const mcfi_labels *l, const char *name);

/* Appends "# labels: NAME: SYMBOL [UNIT]<TAB>NAME: SYMBOL ...\n" for the labelled ones of
 * the n columns (nothing when none is labelled).  " [UNIT]" is left out for a pure number
 * unless the symbol itself ends in ']' (then " []"), so a reader takes the unit from the
 * last " [" of an entry that ends in ']'. */
void mcfi_labels_line(const mcfi_labels *l, const char *const *columns, size_t n, mcf_text *t);

#endif
