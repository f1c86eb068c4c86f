/* mcf/params.h — declared plugin parameters and the validated values a plugin receives.
 *
 * A plugin declares its parameters as a static array of mcf_param_spec terminated by an
 * entry whose name is NULL.  Before any work, the core checks the configuration against
 * the declaration: unknown keys (with the nearest valid key suggested), wrong types and
 * out-of-range values stop the run with file:line, section and key.  A plugin therefore
 * receives only declared, typed, in-range values, with defaults filled in, and its
 * getters below cannot fail on a declared key of the right type. */
#ifndef MCF_PARAMS_H
#define MCF_PARAMS_H

#include "mcf/api.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcf_param_type {
    MCF_PARAM_INT = 1,     /* decimal integer (long) */
    MCF_PARAM_REAL = 2,    /* floating point (strtod syntax; "inf" allowed if the range allows
                              and the key is not MCF_PARAM_FINITE; NaN never) */
    MCF_PARAM_BOOL = 3,    /* true/false, yes/no, on/off, 1/0 */
    MCF_PARAM_STRING = 4,  /* free text */
    MCF_PARAM_CHOICE = 5   /* one of the '|'-separated words in `choices` */
} mcf_param_type;

/* Bits of mcf_param_spec.flags. */
enum {
    MCF_PARAM_HAS_MIN = 1u << 0,        /* value >= min (or > min with MIN_EXCLUSIVE) */
    MCF_PARAM_HAS_MAX = 1u << 1,        /* value <= max (or < max with MAX_EXCLUSIVE) */
    MCF_PARAM_MIN_EXCLUSIVE = 1u << 2,
    MCF_PARAM_MAX_EXCLUSIVE = 1u << 3,
    MCF_PARAM_NO_SCAN = 1u << 4,        /* may not be a scan axis (a list or a linspace) */
    /* written into config.ini (and so the checkpoint's configuration hash) only when the
     * value differs from the default: a key added to a plugin after runs were checkpointed
     * leaves those checkpoints resumable */
    MCF_PARAM_ECHO_IF_CHANGED = 1u << 5,
    /* REAL: the value must be finite: "inf" and "-inf" are refused even where the range
     * would take them (mcf 0.5; a core before 0.5 ignores the bit) */
    MCF_PARAM_FINITE = 1u << 6
};

/* The flags and limits of a closed range, in one: a spec entry's `flags, min, max` written
 * MCF_PARAM_RANGE(lo, hi) (mcf 0.8), other flags or-ed in front:
 *     {"J", MCF_PARAM_REAL, "1", MCF_PARAM_RANGE(-100, 100), NULL, "coupling"},
 *     {"L", MCF_PARAM_INT, "8", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(2, 4096), NULL, "size"} */
#define MCF_PARAM_RANGE(lo, hi) MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, (lo), (hi)

typedef struct mcf_param_spec {
    const char *name;           /* the key: lower_snake_case, or the physicist's symbol
                                   (L, J, W); NULL terminates the array */
    mcf_param_type type;
    const char *default_value;  /* text as it would appear in the INI file; NULL = required */
    unsigned flags;             /* MCF_PARAM_* bits */
    double min, max;            /* range for INT and REAL, used per flags */
    const char *choices;        /* CHOICE only: "square|cubic|bcc" */
    const char *doc;            /* one line for `mcf describe` */
    /* mcf 1.0: as set in a plot of a scan over the key ("μ", "J_H"; NULL: the key) and its
     * unit ("t", "J"; NULL or "": a pure number).  Write them designated, after the doc:
     *     {"mu", MCF_PARAM_REAL, "0", MCF_PARAM_FINITE, 0, 0, NULL, "chemical potential",
     *      .symbol = "μ", .unit = "t"}
     * and an entry without them with its doc designated (.doc = "..."), which GCC's and
     * clang's -Wextra take for complete; end the array with {0}. */
    const char *symbol;
    const char *unit;
} mcf_param_spec;

/* Validated values for one chain (a scan point): opaque, owned by the core, valid from
 * the model's create() until its destroy(). */
typedef struct mcf_params mcf_params;

/* Getters.  `key` must be a declared parameter of the matching type.  Return MCF_OK, or
 * MCF_EINVAL (with a message) when the key is not declared or has another type.
 * Strings are borrowed: valid as long as the mcf_params. */
MCF_API int mcf_params_int(const mcf_params *p, const char *key, long *out);
MCF_API int mcf_params_real(const mcf_params *p, const char *key, double *out);
MCF_API int mcf_params_bool(const mcf_params *p, const char *key, int *out);
MCF_API int mcf_params_string(const mcf_params *p, const char *key, const char **out);
/* A CHOICE key's value as its position among the spec's '|'-separated choices: *index = 0
 * for the first, 1 for the second, ... (mcf 0.5).  A plugin declares an enum in the order of
 * its choices string and switches over it, with no string comparisons:
 *     {"move", MCF_PARAM_CHOICE, "pbp", ..., "pbp|qs", ...}     enum { MOVE_PBP, MOVE_QS };
 *     int move;  if ((rc = mcf_params_choice(params, "move", &move))) return rc;
 * Returns MCF_OK, or MCF_EINVAL (with a message) when the key is not declared or is not a
 * CHOICE (mcf_params_string still gives a CHOICE's text, for messages). */
MCF_API int mcf_params_choice(const mcf_params *p, const char *key, int *index);

/* The chain's temperature from [schedule] temperatures: finite and > 0.  Returns MCF_EINVAL
 * with a message telling the user to set (or fix) [schedule] temperatures when the run has
 * none or it is not finite.  The core refuses every other T at setup (also where 1/T^2 is
 * not a finite number) and tempering only swaps these, so a model need not check T again:
 * this call's error is the only one it needs to pass on. */
MCF_API int mcf_params_temperature(const mcf_params *p, double *out);

/* The section ("model" or "evaluator") and configuration file these values came from,
 * for error messages.  Borrowed. */
MCF_API const char *mcf_params_section(const mcf_params *p);
/* Where `key` was given, "FILE:LINE" (or the command line's --set), or the configuration
 * file when it has its default: for messages that name the line.  Borrowed. */
MCF_API const char *mcf_params_where(const mcf_params *p, const char *key);
/* Whether numbers of the size of a chain's largest |energy| E (all its sites) at
 * temperature T stay finite where the core and the model use them: E / T (a log-ratio, an
 * action; 8x for a move's change) and E^2 summed over up to 2^64 measurements (a margin of
 * 1e20: the specific heat's sums).  MCF_OK, or MCF_EINVAL saying "MODEL: FILE:LINE: [SECTION]
 * KEY = VALUE: ..." with `scale` (how E is made, e.g. "L^2 (2|J| + |h|)") and E.  Models
 * call it at create() with the key that sets the scale, so that parameters whose products
 * overflow are refused before any work (issue 42), never written as NaN. */
MCF_API int mcf_params_check_scale(const mcf_params *p, const char *model, const char *key,
                                   const char *scale, double E, double T);
MCF_API const char *mcf_params_origin(const mcf_params *p);

/* mcf 1.1: the chain's walker among the [run] walkers of its scan point: *walker in
 * [0, *walkers).  Values the host made for no particular chain (a setup check, mcf band)
 * give walker 0 of 1.  Never fails on a valid p (MCF_EINVAL for NULL pointers). */
MCF_API int mcf_params_walker(const mcf_params *p, long *walker, long *walkers);

#ifdef __cplusplus
}
#endif
#endif
