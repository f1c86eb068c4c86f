/* run.h — running (or resuming) a whole schedule (run.c; internal). */
#ifndef MCF_RUN_H
#define MCF_RUN_H

#include "internal.h"

typedef struct mcf_run_options {
    const char *output;   /* output folder (overrides [run] output when not NULL) */
    int resume;           /* continue from output/checkpoint when present */
    int force;            /* replace the run an output folder holds (kept aside, in
                             DIR/.previous, until the new run's first checkpoint) */
    int progress;         /* -1 auto (terminal), 0 off, 1 on */
    /* called on rank 0 once results.tsv is written, with the output folder, while the
     * run's log and the folder's lock are still held (NULL: nothing); the mcf program
     * draws the plots here, which keeps gnuplot out of libmcf.  A status other than
     * MCF_OK (an output not written) fails the run. */
    int (*results_written)(const char *dir, void *ctx);
    void *results_ctx;    /* handed to results_written */
    int optimize;         /* `mcf optimize`, or `mcf resume` of a folder of kind optimize
                             (fileio.h): optimize.c's loop instead of the schedule */
    int output_locked;    /* rank 0's caller holds the output folder's lock (mcfi_outdir_lock:
                             `mcf resume` takes it before reading DIR/config.ini); otherwise
                             rank 0 takes it for the run's life */
} mcf_run_options;

/* Runs (or resumes) the whole schedule and writes the results.  MCF_EINTR when a signal
 * stopped it (after writing a checkpoint).  Rank 0 holds the output folder's lock from
 * before it writes there until it returns; MCF_EIO when another process holds it, or when
 * an output (checkpoint, results, config.ini) was not written. */
int mcfi_run_execute(mcf_setup *setup, const mcf_run_options *opt);
/* The signal that stopped the last run (0 if none): main exits with 128 + it. */
int mcfi_run_stop_signal(void);
/* A stop signal arrived during the current run (the loops end at the next sweep). */
int mcfi_run_stopping(void);
/* The run has written its first state (a checkpoint, an optimization's state): the run
 * that a --force run replaces, kept in DIR/.previous until then, goes.  Rank 0's. */
void mcfi_run_committed(const mcf_run *r);

#endif
