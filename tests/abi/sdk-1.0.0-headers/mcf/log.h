/* mcf/log.h — messages to the run's log (and, for warnings, to the terminal). */
#ifndef MCF_LOG_H
#define MCF_LOG_H

#include "mcf/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcf_log_level {
    MCF_LOG_DEBUG = 0,  /* log file only, and only with MCF_DEBUG=1 in the environment */
    MCF_LOG_INFO = 1,   /* log file; the terminal too when not showing a progress line */
    MCF_LOG_WARN = 2    /* log file and standard error, prefixed "warning: " */
} mcf_log_level;

/* printf-style; thread safe; a newline is added.  fmt is not retained. */
MCF_API void mcf_log(mcf_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
