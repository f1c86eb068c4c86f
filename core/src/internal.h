/* internal.h — types shared by the files of libmcf; not part of the SDK.  Functions
 * declared in core/src (and core/program) are named mcfi_*: the i says internal, so that a
 * reader tells them from the SDK's mcf_* (core/include/mcf) at a glance. */
#ifndef MCF_INTERNAL_H
#define MCF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "mcf/mcf.h"
#include "stats.h"

/* ---- streams (stream.c) ---------------------------------------------------------- */
struct mcf_stream {
    unsigned char *data;
    size_t size, capacity, pos;
    int reading;
};
void mcfi_stream_init_writer(mcf_stream *s);
/* data is borrowed for the reader's lifetime */
void mcfi_stream_init_reader(mcf_stream *s, const unsigned char *data, size_t size);
void mcfi_stream_release(mcf_stream *s);

/* ---- the Hamiltonian (hamiltonian.c, hamiltonian_factors.c) ----------------------- */
/* mcf_hamiltonian_set without the refusal of a factorized Hamiltonian (set_field's writes) */
int mcfi_hamiltonian_put(mcf_hamiltonian *h, size_t i, size_t j, double re, double im);
/* frees h->factors (NULL is ignored) */
void mcfi_hamiltonian_factors_free(const struct mcf_hamiltonian_factors *f);
/* mcf_hamiltonian_check's part for factorized hoppings: every slot holds the lattice's
 * neighbour and the field's entry, bit for bit (MCF_OK without factors) */
int mcfi_hamiltonian_factors_check(const mcf_hamiltonian *h);

/* ---- log (log.c; the progress line: progress.h) ------------------------------------ */
void mcfi_log_set_file(FILE *f);       /* borrowed; NULL = no log file */
void mcfi_log_set_echo_info(int echo); /* 1: INFO lines also go to stderr */
/* A line for the log file only (details the terminal gets in summary). */
void mcfi_log_file_only(mcf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mcfi_log_set_rank(int rank);      /* MPI rank > 0: its warnings on stderr name it */

/* ---- configuration files (config.c) ----------------------------------------------- */
typedef struct mcf_config_entry {
    char *section, *key, *value;
    char *file;  /* the INI file, or "command line" for --set */
    int line;    /* 1-based line, 0 for --set */
    int used;    /* set while validating: unknown keys are the unused ones */
} mcf_config_entry;

typedef struct mcf_config {
    char *path;
    mcf_config_entry *entries;
    size_t n, cap;
} mcf_config;

/* Reads an INI file (inih), recording file and line of every key.  Errors, each naming
 * the file:
 *   MCF_EINVAL, without a line: path names nothing (no such file or folder); a folder, a
 *     device, a pipe or a socket (not a regular file); more than MCFI_CONFIG_MAX_BYTES;
 *   MCF_EINVAL, with file:line: a syntax error; a section header without its ']'; a section
 *     name over MCFI_CONFIG_NAME_MAX characters; a line over MCFI_CONFIG_LINE_MAX; a NUL
 *     byte; a key before any section; a key given twice in a section; an indented line
 *     (inih would read it as more of the previous key's value);
 *   MCF_EIO: the file is there but cannot be opened (permissions) or read;
 *   MCF_ENOMEM.
 * *out owned by the caller: mcfi_config_free(). */
int mcfi_config_read(const char *path, mcf_config **out);
/* Applies "section.key=value" from the command line (replacing a value from the file). */
int mcfi_config_override(mcf_config *c, const char *assignment);
mcf_config_entry *mcfi_config_find(const mcf_config *c, const char *section, const char *key);
void mcfi_config_free(mcf_config *c);
/* "file:line" of an entry, into buf. */
const char *mcfi_config_where(const mcf_config_entry *e, char *buf, size_t size);
/* "file:line" of [section] key into buf, or the configuration's path (borrowed from c)
 * when the key is not given. */
const char *mcfi_config_key_where(const mcf_config *c, const char *section, const char *key,
                                  char *buf, size_t size);

/* ---- parameter values (params.c) -------------------------------------------------- */
typedef struct mcf_value {
    char *text;  /* canonical text (owned) */
    long i;
    double r;
    int b;
} mcf_value;

struct mcf_params {
    const char *section;
    const char *origin;  /* the config file */
    const mcf_param_spec *specs;
    size_t n;
    mcf_value *values;   /* n values, borrowed from the setup */
    char *const *where;  /* n places (mcf_section's), borrowed; NULL: none known */
    int has_temperature;
    double temperature;
};

/* Internal spec flag: the key may be absent (no default, not required). */
#define MCF_PARAM_OPTIONAL_ 0x40000000u
/* Internal spec flag: stored as text only; validated by a later pass. */
#define MCF_PARAM_SKIP_ 0x20000000u

size_t mcfi_spec_count(const mcf_param_spec *specs);
/* Parses one scalar per the spec (type and range).  On failure returns MCF_EINVAL with
 * the reason (no location) in the error message. */
int mcfi_value_parse(const mcf_param_spec *spec, const char *text, mcf_value *out);
void mcfi_value_release(mcf_value *v);
/* The position of `word` among the '|'-separated `choices` (0 for the first), or -1: what a
 * CHOICE value's i holds, and mcf_params_choice returns. */
int mcfi_choice_index(const char *choices, const char *word);
/* Describes the allowed values of a spec ("integer >= 2", "one of: a, b"). */
void mcfi_spec_describe(const mcf_param_spec *spec, char *buf, size_t size);
/* Checks a declaration (types, choices, defaults in range); MCF_EPLUGIN with message. */
int mcfi_specs_check(const mcf_param_spec *specs, const char *owner);
/* The closest of n candidate words to `word`, or NULL if none is close. */
const char *mcfi_nearest_word(const char *word, const char *const *candidates, size_t n);

/* ---- plugins (plugin.c) ----------------------------------------------------------- */
typedef struct mcfi_model mcfi_model;
typedef struct mcf_plugin {
    void *handle;  /* lt_dlhandle */
    const mcf_plugin_info *info;
    char *path;
    mcfi_model *model; /* a model plugin's table, opened for the core (model_ops.h) */
} mcf_plugin;

/* Loads plugin `name` (file mcf-<name>.so) from the search path.  `want` is the kind
 * required (0 = any).  Errors name the file and the problem: MCF_EINVAL for a name no folder
 * holds (with the nearest name) or a plugin of another kind than `want`, MCF_EPLUGIN for a
 * file that is not a loadable, well-formed plugin.  mcfi_plugin_close() frees. */
int mcfi_plugin_open(const char *name, int want, mcf_plugin **out);
/* Loads a plugin from an explicit file path. */
int mcfi_plugin_open_file(const char *path, int want, mcf_plugin **out);
void mcfi_plugin_close(mcf_plugin *p);
/* Calls fn for every loadable plugin on the search path (first of a name wins); files
 * that fail to load are reported through bad(path, message) when bad is not NULL.
 * MCF_ENOMEM when a plugin may have been missed or listed twice. */
int mcfi_plugin_foreach(void (*fn)(const mcf_plugin *p, void *ctx),
                        void (*bad)(const char *path, const char *message, void *ctx),
                        void *ctx);
/* The search path as a colon-separated string, however long MCF_PLUGIN_PATH is: allocated
 * (free() it), NULL when out of memory. */
char *mcfi_plugin_search_path(void);
const char *mcfi_plugin_kind_name(int kind);

/* ---- a validated run setup (setup.c; its files share setup.h) -------------------- */
typedef struct mcf_axis {
    char *name;        /* column name: the key, or "T" */
    int section;       /* 0 = model, 1 = evaluator, 2 = temperature */
    size_t spec_index; /* which parameter of that section */
    size_t n;
    mcf_value *values;
} mcf_axis;

typedef struct mcf_section {
    const char *name;             /* "run", "schedule", "model", "evaluator" */
    const mcf_param_spec *specs;  /* NULL when the section has no plugin */
    size_t n;
    mcf_value *single;            /* value for parameters that are not axes */
    long *axis;                   /* axis index or -1, per parameter */
    char **text;                  /* canonical text as written in config.ini */
    char **where;                 /* "FILE:LINE" of a key given, NULL for a default */
} mcf_section;

/* [schedule] start: how chains begin */
enum { MCFI_START_MODEL = 0, MCFI_START_HOT_COLD = 1, MCFI_START_ANNEAL = 2 };

typedef struct mcf_setup {
    char *config_path;
    char *model_name, *evaluator_name, *output;  /* evaluator_name: the plugin opened, or
                                                    "none" (never "auto") */
    int evaluator_auto;   /* 1: [run] evaluator = auto chose s->evaluator */
    char *evaluator_note; /* evaluator = auto: the choice and why, one line; else NULL */
    uint64_t seed;
    long threads;
    long walkers;     /* chains per scan point (>= 1) */
    long thermalize, sweeps, measure_every, checkpoint_every, bins, adapt_every;
    long exchange_every; /* parallel tempering: sweeps between exchanges, 0 = off */
    int start;           /* [schedule] start: MCFI_START_* */
    /* [schedule] error_target (error_target.h): n_targets > 0 when given; then the
       measured sweeps double until every target is met or max_sweeps would be passed */
    struct mcfi_error_target *targets;
    size_t n_targets;
    long max_sweeps;     /* measured sweeps at most (error_target only) */
    int has_temperature;
    mcf_plugin *model, *evaluator;
    mcf_section sections[2];
    mcf_section optimize;  /* [optimize] (optimize.c), checked; read by `mcf optimize` */
    mcf_axis *axes;
    size_t n_axes, n_points;
    char *canonical;  /* the configuration as used (defaults filled in), INI text */
    char *shell_warnings; /* degenerate shells at mu (shells.c): lines, or NULL */
} mcf_setup;

/* Validates a configuration completely: loads the plugins it names, checks every key
 * against the declarations, builds the scan grid.  Every problem stops here with
 * file:line, section, key and the allowed values. */
int mcfi_setup_create(mcf_config *config, mcf_setup **out);
void mcfi_setup_free(mcf_setup *s);
/* The grid (axes.c).  Builds the parameters of scan point `point` (0 <= point < n_points)
 * for section 0 (model) or 1 (evaluator).  Borrowed from s; free the returned struct with
 * free(). */
int mcfi_setup_params(const mcf_setup *s, size_t point, int section, mcf_params **out);
/* The value text of axis a at scan point `point`. */
const mcf_value *mcfi_setup_axis_value(const mcf_setup *s, size_t a, size_t point);

/* ---- running (run_state.h, run.h) ----------------------------------------------- */
typedef struct mcf_run mcf_run;

/* ---- text (text.c) ---------------------------------------------------------------- */
/* Growable text buffer: start from {0}; after any failed append .failed is set and the
 * text stays as it was.  s is owned by the caller (free). */
typedef struct mcf_text {
    char *s;
    size_t len, cap;
    int failed;
} mcf_text;
void mcfi_text_printf(mcf_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* s without leading and trailing blanks and tabs: the trailing ones are cut in place. */
char *mcfi_trim(char *s);

/* The warnings of degenerate shells at mu found at setup (shells.c), as "# warning: " lines
 * into t (from "[model] L = ...": without the file:line, so that results.tsv does not
 * depend on the folder), or with t NULL as warnings on the terminal and into the log. */
void mcfi_shells_report(const mcf_setup *s, mcf_text *t);

#endif
