/* series.h — [run] series = yes: every measurement's scalar observables, per chain, for
 * reweighting afterwards (`mcf tc`; docs/results-h5.md, "The measurement series").  While the
 * run goes they grow in DIR/.series-partial/, appended from each chain's buffer (whenever it
 * holds 1 MiB, and before every checkpoint, synced); the finished run renames the folder
 * DIR/series/.  A resume cuts every file back to the measurements of the checkpoint, so a
 * resumed run writes the same bytes as an uninterrupted one (internal). */
#ifndef MCF_SERIES_H
#define MCF_SERIES_H

#include "run_state.h"

/* After the chains are created and a checkpoint (if any) loaded: the folder, index.tsv,
 * and every file of this rank's chains cut to exactly c->measurements records (made empty
 * for a fresh run).  A file shorter than its checkpoint is refused (MCF_EFORMAT, naming
 * it).  Nothing when series is off.  Collective (refused under MPI with several ranks). */
int mcfi_series_start(mcf_run *r);
/* Appends one measurement (values laid out as measure() writes them) to chain c's buffer,
 * writing the buffer out when it is full; a failure is kept in c and reported by the next
 * mcfi_series_flush. */
void mcfi_series_add(const mcf_run *r, mcf_chain *c, const double *values);
/* Writes every buffer out and syncs the files (before a checkpoint); MCF_EIO naming the
 * file when one could not be written. */
int mcfi_series_flush(mcf_run *r);
/* The finished run: flush, then DIR/.series-partial becomes DIR/series. */
int mcfi_series_finish(mcf_run *r);

#endif
