/* mcf/host.h — the host's side of the SDK: what the program that loads plugins and runs
 * them (mcf's engine, core/engine) uses from libmcf, and plugins never need.  A plugin
 * includes mcf/mcf.h, which does not include this header.
 *
 * It gives the host the layout of the two things it builds and hands to plugins (the byte
 * streams of a checkpoint and the validated parameter values), and says where log lines
 * go.  Everything here is libmcf's, so that plugins and the host share one log, one error
 * state per thread and one stream implementation. */
#ifndef MCF_HOST_H
#define MCF_HOST_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdio.h>

#include "mcf/log.h"
#include "mcf/params.h"
#include "mcf/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- streams (mcf/stream.h) ------------------------------------------------------- */
/* A stream is the host's: it opens one for writing (a model's save()) or reading (its
 * load()) and hands the plugin a pointer. */
struct mcf_stream {
    unsigned char *data; /* a writer's: owned; a reader's: borrowed */
    size_t size, capacity, pos;
    int reading;
};
/* An empty stream to write to; its bytes are data[0 .. size) afterwards. */
MCF_API void mcf_stream_init_writer(mcf_stream *s);
/* A stream that reads size bytes from data (borrowed for the reader's lifetime). */
MCF_API void mcf_stream_init_reader(mcf_stream *s, const unsigned char *data, size_t size);
/* Frees a writer's bytes (a reader's are the caller's) and empties s. */
MCF_API void mcf_stream_release(mcf_stream *s);

/* ---- parameter values (mcf/params.h) ---------------------------------------------- */
/* One validated value: its canonical text and, per the declared type, the number. */
typedef struct mcf_value {
    char *text; /* canonical text (owned by whoever filled it) */
    long i;
    double r;
    int b;
} mcf_value;

/* The values a plugin reads with the getters of mcf/params.h: built by the host, borrowed
 * by the plugin from its create() to its destroy(). */
struct mcf_params {
    const char *section;
    const char *origin;  /* the config file */
    const mcf_param_spec *specs;
    size_t n;
    mcf_value *values;   /* n values, borrowed from the host */
    char *const *where;  /* n places ("FILE:LINE" or NULL for a default), borrowed; NULL:
                            none known */
    int has_temperature;
    double temperature;
    /* mcf 1.1, appended: the chain's walker among its point's walkers (mcf_params_walker);
       walkers 0 (values made for no chain): walker 0 of 1 */
    size_t walker, walkers;
};

/* The name of a parameter type in messages ("integer", "real number", ...).  Static. */
MCF_API const char *mcf_param_type_name(mcf_param_type t);

/* ---- the log (mcf/log.h) ---------------------------------------------------------- */
/* Where mcf_log() lines go: the run's log file (borrowed; NULL = none, the default). */
MCF_API void mcf_log_set_file(FILE *f);
/* 1: INFO lines also go to standard error; 0 (the default): the log file only. */
MCF_API void mcf_log_set_echo_info(int echo);
/* The MPI rank of this process: > 0 names the rank in the warnings on standard error. */
MCF_API void mcf_log_set_rank(int rank);
/* A line for the log file only (details the terminal gets in summary). */
MCF_API void mcf_log_file_only(mcf_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The status line: one line on standard error that the host redraws in place (mcf's
 * progress line).  Warnings and echoed INFO lines erase it first.  on = 1: the host draws
 * it (standard error is a terminal); 0 (the default): mcf_log_status_show does nothing. */
MCF_API void mcf_log_set_status_line(int on);
MCF_API int mcf_log_status_line(void);
/* Draws `line` as the status line (with on = 1); final = 1 ends it with a newline, for
 * good. */
MCF_API void mcf_log_status_show(const char *line, int final);
/* Erases the status line if it is shown. */
MCF_API void mcf_log_status_clear(void);

/* ---- the library ------------------------------------------------------------------ */
/* The file libmcf was loaded from (build tree: build/lib/libmcf.so.0; installed:
 * <prefix>/<libdir>/libmcf.so.0): the host looks for plugins in the folder mcf/ beside it.
 * Borrowed from the dynamic loader (valid while libmcf is loaded); NULL when unknown. */
MCF_API const char *mcf_library_path(void);

#ifdef __cplusplus
}
#endif
#endif
