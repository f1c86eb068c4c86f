/* stop.c — the stop signals: SIGINT and SIGTERM set a flag that the run's loops and the
 * optimizer's poll at their synchronisation points (a second signal stops the process at
 * once; the last checkpoint stays valid).  run.c catches them for a run's life. */
#define _POSIX_C_SOURCE 200809L
#include "stop.h"
#include "mcf_engine.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;
static int last_stop_signal;

int mcfe_run_stop_signal(void) { return last_stop_signal; }

static void on_signal(int sig)
{
    if (stop_signal) { /* a second signal: stop now, the last checkpoint stays valid */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    stop_signal = sig;
}

void mcfi_stop_catch(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    stop_signal = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

int mcfi_stop_pending(void) { return stop_signal; }

void mcfi_stop_record(int sig) { last_stop_signal = sig; }
