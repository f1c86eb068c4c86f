/* error.c — the per-thread error message behind mcf/error.h. */
#include "mcf/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MCF_ERROR_CAPACITY 4096

static _Thread_local char error_message[MCF_ERROR_CAPACITY];

int mcf_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
    return code;
}

int mcf_fail_prefix(int code, const char *fmt, ...)
{
    char prefix[MCF_ERROR_CAPACITY];
    char old[MCF_ERROR_CAPACITY];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, error_message, sizeof old);
    if (old[0])
        snprintf(error_message, sizeof error_message, "%s: %s", prefix, old);
    else
        snprintf(error_message, sizeof error_message, "%s", prefix);
    return code;
}

const char *mcf_last_error(void) { return error_message; }

void mcf_clear_error(void) { error_message[0] = '\0'; }

const char *mcf_status_name(int code)
{
    switch (code) {
    case MCF_OK: return "success";
    case MCF_EINVAL: return "invalid input";
    case MCF_ENOMEM: return "out of memory";
    case MCF_EIO: return "input/output error";
    case MCF_EPLUGIN: return "plugin error";
    case MCF_EFORMAT: return "corrupt or foreign file";
    case MCF_EDEVICE: return "device error";
    case MCF_EINTR: return "interrupted";
    case MCF_EINTERNAL: return "internal error";
    default: return "unknown error";
    }
}
