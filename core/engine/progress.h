/* progress.h — the clock and the progress line (progress.c; internal). */
#ifndef MCF_PROGRESS_H
#define MCF_PROGRESS_H

#include "internal.h"

/* Seconds on the monotonic clock. */
double mcfi_now_seconds(void);
/* The progress line: libmcf's status line (mcf/host.h) after mcf_log_set_status_line(1)
 * (standard error is a terminal), else INFO lines every 5 s.  acc, prop: accepted and proposed moves of all chains (summed over the ranks); final: the
 * last line, shown whatever the time since the previous one. */
void mcfi_progress(const mcf_run *r, double started, uint64_t start_pos, uint64_t acc,
                   uint64_t prop, int final);

#endif
