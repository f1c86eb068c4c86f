/* run_log.h — the start of a run's log (run_log.c; internal; run.c calls it). */
#ifndef MCF_RUN_LOG_H
#define MCF_RUN_LOG_H

#include "run_state.h"

/* Rank 0, once DIR/log is open: the run's first lines (mcf and its version, resuming or
 * starting, configuration, model, evaluator, chains, seed, ranks, threads, output; the
 * temporaries `cleaned` removed; the evaluator's note) and the warnings known at setup: the
 * degenerate shells at mu, the derived quantities left out because their factors share one
 * draw of noise, more ranks than chains; one_batch: the evaluator takes all chains in one
 * batch. */
void mcfi_run_log_start(const mcf_run *r, const mcf_run_options *opt, int threads,
                        int one_batch, int cleaned);
/* Collective when the evaluator has a probe: every rank's device line into the log. */
void mcfi_run_log_devices(const mcf_run *r, const mcf_plugin_info *ev);

#endif
