/* results_h5.h — DIR/results.h5 beside results.tsv (results_h5.c; internal).  The layout is
 * docs/results-h5.md's. */
#ifndef MCF_RESULTS_H5_H
#define MCF_RESULTS_H5_H

#include "run_state.h"

/* The format attribute of results.h5; raised whenever a reader of the previous layout
 * would misread the file (a new dataset or attribute alone does not raise it). */
#define MCF_RESULTS_H5_FORMAT 1

/* Rank 0, once results.tsv is written: writes DIR/results.h5 (the table of results.tsv
 * at full precision, per chain the jackknife bins and the blocking estimates of every
 * observable, the curves, config.ini as used) atomically and with the same bytes for
 * the same run, resumed or not.  MCF_EIO naming the file when it cannot be written, and
 * MCF_OK without writing anything in a build without HDF5. */
int mcfi_results_h5_write(const struct mcf_run *r);

#endif
