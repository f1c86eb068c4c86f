/* run.h — running (or resuming) a whole schedule (run.c; internal). */
#ifndef MCF_RUN_H
#define MCF_RUN_H

#include "internal.h"


/* A stop signal arrived during the current run (the loops end at the next sweep). */
int mcfi_run_stopping(void);
/* The run has written its first state (a checkpoint, an optimization's state): the run
 * that a --force run replaces, kept in DIR/.previous until then, goes.  Rank 0's. */
void mcfi_run_committed(const mcf_run *r);

#endif
