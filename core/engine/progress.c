/* progress.c — the clock and the progress line (on the terminal, or INFO lines in the log). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include "run_state.h"
#include "mcf/host.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

double mcfi_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- progress line (drawn as libmcf's status line, mcf/host.h) --------------------- */

static void format_duration(double s, char *buf, size_t n)
{
    /* (int) of a double beyond INT_MAX is undefined (an ETA of "-2147483648h" for
     * thermalize = LONG_MAX): a million hours and more is shown as such */
    if (!isfinite(s) || s < 0)
        snprintf(buf, n, "?");
    else if (s >= 3600e6)
        snprintf(buf, n, ">1000000h");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* acc, prop: accepted and proposed moves of all chains (summed over the ranks) */
void mcfi_progress(const mcf_run *r, double started, uint64_t start_pos, uint64_t acc,
                     uint64_t prop, int final)
{
    static double last;
    double t = mcfi_now_seconds();
    const int on_terminal = mcf_log_status_line();
    double interval = on_terminal ? 0.2 : 5.0;
    if (!final && t - last < interval)
        return;
    last = t;
    double rate = (double)(r->position - start_pos) / (t - started);
    char eta[32], el[32];
    format_duration((double)(r->total - r->position) / rate, eta, sizeof eta);
    format_duration(t - started, el, sizeof el);
    char line[512];
    snprintf(line, sizeof line,
             "sweep %llu/%llu (%s) | %zu chains | acceptance %.3f | %s elapsed, ETA %s",
             (unsigned long long)r->position, (unsigned long long)r->total,
             r->position < (uint64_t)r->setup->thermalize ? "thermalizing" : "measuring",
             r->n_chains, prop ? (double)acc / (double)prop : 0.0, el, eta);
    if (on_terminal) {
        mcf_log_status_show(line, final);
    } else {
        mcf_log(MCF_LOG_INFO, "%s", line);
    }
}
