/* stop.h — the stop signals of a run (stop.c; internal): SIGINT and SIGTERM set a flag
 * that the run and the optimizer poll; they then write their state and return MCF_EINTR. */
#ifndef MCF_STOP_H
#define MCF_STOP_H

#include <signal.h>

/* Clears the flag and catches SIGINT and SIGTERM; their handlers before go to *old_int and
 * *old_term (for sigaction() to put back). */
void mcfi_stop_catch(struct sigaction *old_int, struct sigaction *old_term);
/* The signal that arrived since mcfi_stop_catch (0: none): the loops end at the next
 * synchronisation point. */
int mcfi_stop_pending(void);
/* The signal that stopped the run, for mcfe_run_stop_signal (main exits with 128 + it). */
void mcfi_stop_record(int sig);

#endif
