/* run_output.h — a run's output folder (run_output.c; internal). */
#ifndef MCF_RUN_OUTPUT_H
#define MCF_RUN_OUTPUT_H

#include "run_state.h"

/* Refuses to start a fresh run over an earlier one (no side effects). */
int mcfi_run_check_output(const mcf_run *r, const mcf_run_options *opt);
/* Rank 0's output folder, under its lock (taken here unless the caller holds it): created
 * for a fresh run; a `run --force` killed before its first checkpoint gives the folder
 * back to the run it was replacing (which a fresh run again refuses to overwrite without
 * --force); the leftovers of killed runs go; a --force run keeps the earlier run aside; a
 * fresh run writes the configuration as used.  *cleaned: leftovers removed. */
int mcfi_run_prepare_output(const mcf_run *r, const mcf_run_options *opt, int *lock,
                            int *cleaned);
/* A new run starts: no earlier run is kept aside yet. */
void mcfi_run_output_reset(void);
/* The run has written its first state (a checkpoint, an optimization's state): the run
 * that a --force run replaces, kept in DIR/.previous until then, goes.  Rank 0's. */
void mcfi_run_committed(const mcf_run *r);

#endif
