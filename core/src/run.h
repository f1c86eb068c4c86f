/* run.h — running (or resuming) a whole schedule (run.c; internal). */
#ifndef MCF_RUN_H
#define MCF_RUN_H

#include "internal.h"

typedef struct mcf_run_options {
    const char *output;   /* output folder (overrides [run] output when not NULL) */
    int resume;           /* continue from output/checkpoint when present */
    int force;            /* overwrite an output folder that holds a run */
    int progress;         /* -1 auto (terminal), 0 off, 1 on */
    /* called on rank 0 once results.tsv is written, with the output folder, while the
     * run's log is still open (NULL: nothing); the mcf program draws the plots here,
     * which keeps gnuplot out of libmcf */
    void (*results_written)(const char *dir, void *ctx);
    void *results_ctx;    /* handed to results_written */
} mcf_run_options;

/* Runs (or resumes) the whole schedule and writes the results.  MCF_EINTR when a signal
 * stopped it (after writing a checkpoint). */
int mcfi_run_execute(mcf_setup *setup, const mcf_run_options *opt);
/* The signal that stopped the last run (0 if none): main exits with 128 + it. */
int mcfi_run_stop_signal(void);

#endif
