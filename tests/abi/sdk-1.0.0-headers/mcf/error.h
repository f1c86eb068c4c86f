/* mcf/error.h — status codes and the error message of the calling thread.
 *
 * Every mcf function that can fail returns an int status: MCF_OK (0) on success,
 * a negative MCF_E* code otherwise.  The function that detects the failure records a
 * message with mcf_fail(); callers that add context use mcf_fail_prefix().  The message
 * says what went wrong, where (file:line, section, key where known) and how to fix it. */
#ifndef MCF_ERROR_H
#define MCF_ERROR_H

#include "mcf/api.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MCF_OK = 0,
    MCF_EINVAL = -1,    /* bad input: a value, a key, a configuration */
    MCF_ENOMEM = -2,    /* allocation failed */
    MCF_EIO = -3,       /* a file could not be read or written */
    MCF_EPLUGIN = -4,   /* a plugin could not be loaded or is malformed */
    MCF_EFORMAT = -5,   /* a file is corrupt, truncated or of a foreign format */
    MCF_EDEVICE = -6,   /* an accelerator is missing or failed */
    MCF_EINTR = -7,     /* stopped by a signal; state was saved */
    MCF_EINTERNAL = -8  /* a bug in mcf or a plugin: please report it */
};

/* Records a printf-style message for the calling thread and returns `code`, so that
 * `return mcf_fail(MCF_EINVAL, "L = %ld must be >= 2", L);` is one line.
 * The message is copied (truncated at 4 KiB); fmt is not retained. */
MCF_API int mcf_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prepends "<prefix>: " to the calling thread's current message and returns `code`. */
MCF_API int mcf_fail_prefix(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The calling thread's last message ("" when none).  Borrowed: valid until the next
 * mcf_fail* call on this thread.  Never NULL. */
MCF_API const char *mcf_last_error(void);

/* Clears the calling thread's message. */
MCF_API void mcf_clear_error(void);

/* A short name of a status code ("invalid input", ...).  Static storage. */
MCF_API const char *mcf_status_name(int code);

#ifdef __cplusplus
}
#endif
#endif
