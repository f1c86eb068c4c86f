/* log.c — mcf_log(): the run's log file, and warnings on standard error; the host's
 * settings of where lines go and its status line (mcf/host.h). */
#define _POSIX_C_SOURCE 200809L
#include "mcf/log.h"
#include "mcf/host.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static int log_quiet_info = 1;
static int log_rank; /* MPI rank: the log file is rank 0's, other ranks' warnings name them */
static int status_on_terminal; /* the host draws a status line on standard error */
static int status_shown;        /* ... and one is shown now */

void mcf_log_set_status_line(int on) { status_on_terminal = on; }

int mcf_log_status_line(void) { return status_on_terminal; }

void mcf_log_status_clear(void)
{
    if (status_on_terminal && status_shown) {
        fputs("\r\033[K", stderr);
        status_shown = 0;
    }
}

void mcf_log_status_show(const char *line, int final)
{
    if (!status_on_terminal)
        return;
    fprintf(stderr, "\r\033[K%s", line);
    status_shown = 1;
    if (final) {
        fputc('\n', stderr);
        status_shown = 0;
    }
}

void mcf_log_set_file(FILE *f)
{
    pthread_mutex_lock(&log_lock);
    log_file = f;
    pthread_mutex_unlock(&log_lock);
}

void mcf_log_set_rank(int rank)
{
    log_rank = rank;
}

void mcf_log_set_echo_info(int echo)
{
    log_quiet_info = !echo;
}

/* One line into the log file, stamped (under log_lock). */
static void to_file(mcf_log_level level, const char *text)
{
    if (!log_file)
        return;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tmv;
    localtime_r(&now, &tmv);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tmv);
    fprintf(log_file, "%s %s%s\n", stamp, level == MCF_LOG_WARN ? "warning: " : "", text);
    fflush(log_file);
}

void mcf_log_file_only(mcf_log_level level, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&log_lock);
    to_file(level, text);
    pthread_mutex_unlock(&log_lock);
}

void mcf_log(mcf_log_level level, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    if (level == MCF_LOG_DEBUG) {
        const char *d = getenv("MCF_DEBUG");
        if (!d || strcmp(d, "1") != 0)
            return;
    }
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);

    pthread_mutex_lock(&log_lock);
    to_file(level, text);
    if (level == MCF_LOG_WARN) {
        mcf_log_status_clear();
        if (log_rank > 0)
            fprintf(stderr, "warning: rank %d: %s\n", log_rank, text);
        else
            fprintf(stderr, "warning: %s\n", text);
    } else if (level == MCF_LOG_INFO && !log_quiet_info) {
        mcf_log_status_clear();
        fprintf(stderr, "%s\n", text);
    }
    pthread_mutex_unlock(&log_lock);
}
