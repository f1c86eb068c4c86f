/* results.h — DIR/results.tsv and the curve files (results.c; internal). */
#ifndef MCF_RESULTS_H
#define MCF_RESULTS_H

#include "run_state.h"

/* results.c: DIR/results.tsv, atomic. */
/* Writes results.tsv and the curve files; *summary (owned by the caller, free()) gets a
 * few lines for the terminal: per scan point the headline estimates and the acceptance. */
int mcfi_results_write(const struct mcf_run *r, char **summary);

#endif
