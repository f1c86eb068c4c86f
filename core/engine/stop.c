/* stop.c — the stop signals: SIGINT and SIGTERM set a flag that the run's loops and the
 * optimizer's poll at their synchronisation points (a second signal a second or more after
 * the first stops the process at once; the last checkpoint stays valid).  Signals closer
 * together are one request: `timeout -s INT` sends its signal to the run and again to the
 * run's process group, a terminal's Ctrl-C reaches every process of the group, so one stop
 * arrives as two signals microseconds apart.  run.c catches them for a run's life. */
#define _POSIX_C_SOURCE 200809L
#include "stop.h"
#include "mcf_engine.h"

#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop_signal;
static int last_stop_signal;
static struct timespec first_signal_at; /* CLOCK_MONOTONIC at the first signal */
/* a signal within this many seconds of the first one repeats it (the same request) */
static const double same_request_seconds = 1.0;

int mcfe_run_stop_signal(void) { return last_stop_signal; }

static void on_signal(int sig)
{
    struct timespec now; /* clock_gettime is async-signal-safe (POSIX) */
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (stop_signal) {
        const double since = (double)(now.tv_sec - first_signal_at.tv_sec) +
                             1e-9 * (double)(now.tv_nsec - first_signal_at.tv_nsec);
        if (since >= same_request_seconds) { /* a second request: stop now */
            signal(sig, SIG_DFL);
            raise(sig);
        }
        return;
    }
    first_signal_at = now;
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
