/* progress.h — the clock and the progress line (progress.c; internal). */
#ifndef MCF_PROGRESS_H
#define MCF_PROGRESS_H

#include "internal.h"

/* Seconds on the monotonic clock. */
double mcfi_now_seconds(void);
/* 1: the progress line is redrawn on the terminal (stderr); 0: INFO lines every 5 s. */
void mcfi_progress_set_terminal(int on);
int mcfi_progress_on_terminal(void);   /* the progress goes to a terminal */
void mcfi_progress_clear(void);        /* erases the terminal progress line, if shown */
/* acc, prop: accepted and proposed moves of all chains (summed over the ranks); final: the
 * last line, shown whatever the time since the previous one. */
void mcfi_progress(const mcf_run *r, double started, uint64_t start_pos, uint64_t acc,
                   uint64_t prop, int final);

#endif
