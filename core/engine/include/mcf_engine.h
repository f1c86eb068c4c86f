/* mcf_engine.h — the engine's program-facing API (core/engine, the static library
 * mcf_engine): what the mcf program (core/program) uses to read a configuration, load
 * plugins, run, and handle the output folder.  Functions here are mcfe_*; the engine's
 * other functions are mcfi_*, declared in its internal headers (core/engine/NAME.h), which the
 * program never includes.  The engine uses libmcf (the SDK) through its public headers only:
 * mcf/mcf.h, and mcf/host.h for what a host needs (docs/architecture.md, "Two libraries"). */
#ifndef MCF_ENGINE_H
#define MCF_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "mcf/mcf.h"
#include "mcf/host.h"

/* ---- text (text.c) ------------------------------------------------------------------- */
/* Growable text buffer: start from {0}; after any failed append .failed is set and the
 * text stays as it was.  s is owned by the caller (free). */
typedef struct mcf_text {
    char *s;
    size_t len, cap;
    int failed;
} mcf_text;
void mcfe_text_printf(mcf_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- configuration files (config.c) -------------------------------------------------- */
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
 * *out owned by the caller: mcfe_config_free(). */
int mcfe_config_read(const char *path, mcf_config **out);
/* Applies "section.key=value" from the command line (replacing a value from the file). */
int mcfe_config_override(mcf_config *c, const char *assignment);
/* Removes [section] key from c: 1 if it was there, 0 if not. */
int mcfe_config_remove(mcf_config *c, const char *section, const char *key);
void mcfe_config_free(mcf_config *c);
/* A copy of c (entries, files and lines) into *out, which the caller frees with
 * mcfe_config_free() also after a failure (MCF_ENOMEM). */
int mcfe_config_copy(const mcf_config *c, mcf_config **out);
/* "file:line" of an entry, into buf. */
const char *mcfe_config_where(const mcf_config_entry *e, char *buf, size_t size);
/* "file:line" of [section] key into buf, or the configuration's path (borrowed from c)
 * when the key is not given. */
const char *mcfe_config_key_where(const mcf_config *c, const char *section, const char *key,
                                  char *buf, size_t size);

/* ---- parameter values (param_values.c) ----------------------------------------------- */
/* Engine spec flag: the key may be absent (no default, not required). */
#define MCF_PARAM_OPTIONAL_ 0x40000000u
/* Engine spec flag: stored as text only; validated by a later pass. */
#define MCF_PARAM_SKIP_ 0x20000000u
void mcfe_value_release(mcf_value *v);
/* Describes the allowed values of a spec ("integer >= 2", "one of: a, b"). */
void mcfe_spec_describe(const mcf_param_spec *spec, char *buf, size_t size);
/* The closest of n candidate words to `word`, or NULL if none is close. */
const char *mcfe_nearest_word(const char *word, const char *const *candidates, size_t n);

/* ---- plugins (plugin.c) -------------------------------------------------------------- */
typedef struct mcf_plugin {
    void *handle;  /* lt_dlhandle */
    const mcf_plugin_info *info;
    char *path;
    struct mcfi_model *model; /* a model plugin's table, opened for the engine (its own
                                 model_ops.h; the program asks through mcfe_model_*) */
    void *converted;          /* owned: info and its parameter specs in today's layout, for
                                 a plugin built before mcf 1.0 (plugin.c) */
} mcf_plugin;

/* Loads plugin `name` (file mcf-<name>.so) from the search path.  `want` is the kind
 * required (0 = any).  Errors name the file and the problem: MCF_EINVAL for a name no folder
 * holds (with the nearest name) or a plugin of another kind than `want`, MCF_EPLUGIN for a
 * file that is not a loadable, well-formed plugin.  mcfe_plugin_close() frees. */
int mcfe_plugin_open(const char *name, int want, mcf_plugin **out);
void mcfe_plugin_close(mcf_plugin *p);
/* Calls fn for every loadable plugin on the search path (first of a name wins); files
 * that fail to load are reported through bad(path, message) when bad is not NULL.
 * MCF_ENOMEM when a plugin may have been missed or listed twice. */
int mcfe_plugin_foreach(void (*fn)(const mcf_plugin *p, void *ctx),
                        void (*bad)(const char *path, const char *message, void *ctx),
                        void *ctx);
/* The search path as a colon-separated string, however long MCF_PLUGIN_PATH is: allocated
 * (free() it), NULL when out of memory. */
char *mcfe_plugin_search_path(void);
const char *mcfe_plugin_kind_name(int kind);

/* ---- a model plugin's model, whatever its ABI (model_ops.c) -------------------------- */
/* How a model's parallel tempering weighs an exchange: not at all, by the energies of the
 * weight exp(-H/T), or by action changes (ABI 1: set_temperature + energy, or
 * set_temperature + exchange_action, which wins when both are there). */
enum { MCF_TEMPERING_NONE, MCF_TEMPERING_ENERGY, MCF_TEMPERING_ACTION };
/* The MCF_TEMPERING_* of model plugin `model`. */
int mcfe_model_tempering(const mcf_plugin *model);
/* Its scalar and curve observables, as declared (terminated by a NULL name).  Borrowed. */
const mcf_observable *mcfe_model_observables(const mcf_plugin *model);
/* 1 when it describes ideal states as crystals (the periodic op), else 0. */
int mcfe_model_has_periodic(const mcf_plugin *model);
/* Its create, destroy and periodic ops (mcf/model.h), for a chain outside a run. */
int mcfe_model_create(const mcf_plugin *model, const mcf_params *params,
                      const mcf_services *services, mcf_rng *rng, void **chain);
void mcfe_model_destroy(const mcf_plugin *model, void *chain);
int mcfe_model_periodic(const mcf_plugin *model, const mcf_params *params, const void *chain,
                        const char *state, mcf_cell *cell);
/* The model's crystal as a driven one (mcf/dynamics.h, the model op driven_crystal; `mcf
 * kbe`): crystal and dipole are empty cells, *terms is zeroed here.  MCF_EINVAL naming the
 * model when it has no such op. */
int mcfe_model_driven_crystal(const mcf_plugin *model, const mcf_params *params,
                              mcf_cell *crystal, mcf_cell *dipole, mcf_drive_terms *terms);

/* ---- a validated run setup (setup.c, section.c, axes.c) ------------------------------ */
typedef struct mcf_axis {
    char *name;        /* column name: the key, or "T" */
    int section;       /* 0 = model, 1 = evaluator, 2 = temperature, 3 = a program's section
                          (mcf band, kbe), 4 = [run] timestep */
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
    int series;          /* [run] series = yes: the measurement series (series.c) */
    int hmc;             /* sampler hmc (or auto's hmc): a sweep is one trajectory (hmc.c) */
    long hmc_steps;      /* [run] hmc_steps: integrator steps per trajectory */
    double hmc_dt;       /* [run] hmc_dt: the integrator's step (a number; 0: auto) */
    int hmc_dt_auto;     /* [run] hmc_dt = auto: each chain's step tuned (hmc_tune.c) */
    double hmc_length;   /* [run] hmc_length: auto's trajectory length, steps x dt */
    double hmc_acceptance; /* [run] hmc_acceptance: auto's target acceptance */
    int hmc_integrator;  /* [run] hmc_integrator: MCFI_HMC_LEAPFROG or _OMELYAN (hmc.h) */
    int sampler_auto;    /* [run] sampler = auto: hmc set by the run (sampler_auto.c) */
    long hmc_min_sites;  /* [run] hmc_min_sites: auto's smallest lattice for hmc */
    char *sampler_note;  /* sampler = auto: the choice and why, one line; else NULL */
    int dmc;             /* [run] method = dmc: the walkers of a point one population (dmc.c) */
    double dmc_memory;   /* [run] population_correction: the imaginary time over which DMC's
                            corrected estimate carries the population factors (0: none) */
    double dmc_tau;      /* [run] timestep: DMC's time step (a list: its first; the point's
                            is mcfi_setup_timestep's) */
    char *extra_observables; /* [run] extra_observables: names of MCF_OBS_ON_REQUEST
                                observables to record, space-separated; NULL: none */
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
    /* [model] KEY = optimized, KEY the model's variational file key (variational_file.c):
       the model gets KEY's default, and a run (not an optimization) takes its parameters
       from DIR/optimize/parameters.txt, which `mcf run` optimizes first; else NULL */
    const char *optimized_key;
} mcf_setup;

/* Validates a configuration completely: loads the plugins it names, checks every key
 * against the declarations, builds the scan grid.  Every problem stops here with
 * file:line, section, key and the allowed values. */
int mcfe_setup_create(mcf_config *config, mcf_setup **out);
void mcfe_setup_free(mcf_setup *s);
/* The grid (axes.c).  Builds the parameters of scan point `point` (0 <= point < n_points)
 * for section 0 (model) or 1 (evaluator).  Borrowed from s; free the returned struct with
 * free(). */
int mcfe_setup_params(const mcf_setup *s, size_t point, int section, mcf_params **out);
/* The evaluator kind a model takes (MCF_PLUGIN_FERMION_EVALUATOR or
 * MCF_PLUGIN_ORBITAL_EVALUATOR), or 0: it takes none (also a model older than the field). */
int mcfe_model_evaluator_kind(const mcf_plugin *model);
/* Checks [section] of c against specs: unknown keys first, in file order (the known ones
 * are marked used), then every declared key in declaration order: required, typed,
 * ranged, the default filled in.  A list or linspace becomes an axis appended to *axes
 * (section_index: 0 model, 1 evaluator, 2 the temperature pass, which makes every value
 * an axis named T, 3 a program's own section (mcf band, mcf kbe), 4 the [run] timestep
 * pass; the passes 2 and 4 check their one key and leave the others to the section's own
 * pass).  owner names the declaration in errors.
 * *out is owned: mcfe_section_release(), also after a failure. */
int mcfe_section_check(mcf_config *c, const char *section, const mcf_param_spec *specs,
                       const char *owner, int section_index, mcf_section *out, mcf_axis **axes,
                       size_t *n_axes);
void mcfe_section_release(mcf_section *sec);
/* The text of a declared key as config.ini writes it (given or the default), or NULL for
 * an optional key not given.  Borrowed. */
const char *mcfe_section_text(const mcf_section *sec, const char *key);
/* The section's single values as an mcf_params, for the typed getters of mcf/params.h
 * (the core reads [run] and [schedule] as a plugin reads its section).  Borrows sec. */
void mcfe_section_params(const mcf_section *sec, const char *origin, mcf_params *out);
/* Appends "[name]" and "key = text" for every key with a text to t: defaults filled in,
 * MCF_PARAM_ECHO_IF_CHANGED keys only when their value is not the default. */
void mcfe_section_write(mcf_text *t, const mcf_section *sec);
/* Parses a scan value, a list "a, b, c" or a linspace "first:last:count" (numeric keys
 * only), into *n values per spec (owned: mcfe_value_release each, then free).  MCF_EINVAL
 * with the reason, no location; after a failure nothing is owned (*values NULL, *n 0). */
int mcfe_axis_parse(const mcf_param_spec *spec, const char *text, mcf_value **values,
                    size_t *n);
/* Frees n axes and the array. */
void mcfe_axes_free(mcf_axis *axes, size_t n);

/* ---- [model] KEY = optimized (variational_file.c) ------------------------------------ */
/* The optimization stage's folder of a run in DIR: DIR/optimize, into buf. */
const char *mcfe_optimize_stage_dir(const char *dir, char *buf, size_t size);
/* *finished = 1 when folder `stage` holds an optimization that ran all its iterations
 * (optimize.state's next iteration is its config.ini's [optimize] iterations), 0 when it
 * holds none or an unfinished one.  MCF_EFORMAT naming the file when the state is damaged. */
int mcfe_optimize_finished(const char *stage, int *finished);

/* ---- files and the output folder (fileio.c) ------------------------------------------ */
int mcfe_mkdir_p(const char *path);
/* Creates path for writing, never through a link nor over an existing file (O_EXCL |
 * O_NOFOLLOW | O_CLOEXEC): a file or link already there under that name is removed first
 * (unlinking a link does not touch its target).  Returns the descriptor, or -1 with errno. */
int mcfe_create_fresh(const char *path);
/* What mcfe_open_file found: a problem is returned, not worded, because only the caller
 * knows what the file is for, what status a refusal is (bad input, a damaged file) and what
 * to do about it. */
enum {
    MCFI_FILE_OK = 0,
    MCFI_FILE_CANNOT_OPEN, /* open() or fstat() failed: errno says why */
    MCFI_FILE_NOT_REGULAR, /* a folder, device, pipe or socket: st->st_mode says which */
    MCFI_FILE_TOO_LARGE    /* more than max_bytes: st->st_size */
};
/* The one opener of files mcf reads or appends to.  Opens path with `flags` (O_RDONLY;
 * O_RDWR or O_WRONLY | O_APPEND, with O_CREAT; O_NOFOLLOW to refuse a link), close-on-exec,
 * never as a controlling terminal, and checks the file it opened, not the name (which may
 * change in between): a regular file of at most max_bytes (0: any size).  A folder would
 * read as empty, a device such as /dev/zero or a pipe as endless, and a named pipe would
 * block the open itself (it is opened non-blocking; the descriptor returned blocks).
 * MCFI_FILE_OK with *fd open, or a problem with *fd = -1 and errno (CANNOT_OPEN) or *st
 * (the others) for the caller's message. */
int mcfe_open_file(const char *path, int flags, uint64_t max_bytes, int *fd, struct stat *st);
/* Writes `size` bytes to path atomically (temporary path.tmp.<pid> in the same folder,
 * created by mcfe_create_fresh, fsync, rename).  The message names path. */
int mcfe_write_atomic(const char *path, const void *data, size_t size);
/* Locks the output folder DIR (which exists) for this process's life: DIR/.lock, held with
 * flock() (the kernel drops it when the process ends, SIGKILL included, so a dead holder
 * never blocks) and holding "pid P on host H since T".  *fd receives the lock for
 * mcfe_outdir_unlock().  MCF_EIO naming the holder when another process holds it, or when
 * DIR/.lock is a link or not a regular file.
 * Then, before anything reads DIR/config.ini: a DIR/.previous means that a `run --force`
 * was killed before its first checkpoint; the run it was replacing is moved back (over
 * what the killed run wrote) and is again the folder's run. */
int mcfe_outdir_lock(const char *dir, int *fd);
void mcfe_outdir_unlock(int fd);
/* With the lock held: removes the temporaries a killed run left in DIR (NAME.tmp.<pid> of a
 * pid that is not alive; .plot-*.svg.tmp, .plot-*.png.tmp and .plot-gnuplot-* of a killed
 * plot, which only a lock holder writes).  Returns how many were removed. */
int mcfe_outdir_clean(const char *dir);
/* ---- the folder's kind (issue 42) -------------------------------------------------------
 * DIR/kind holds one word and a newline, written once (atomically, never through a link)
 * when a command creates its folder's contents: "run" (`mcf run`), "optimize" (`mcf
 * optimize`), "band" (`mcf band`), "kbe" (`mcf kbe`).  `mcf resume` reads it first and does what it says, so a
 * folder knows what it is whichever of its files exist. */
enum { MCFI_KIND_NONE = 0, MCFI_KIND_RUN, MCFI_KIND_OPTIMIZE, MCFI_KIND_BAND, MCFI_KIND_KBE };
/* The name of kind k ("run", ...). */
const char *mcfe_kind_name(int kind);
int mcfe_outdir_kind_write(const char *dir, int kind);
/* The kind of folder DIR for `mcf resume`: DIR/kind's, or for a folder written before it
 * existed, inferred from the files as before (optimize.state or optimize.tsv: optimize;
 * checkpoint or results.tsv: run; bands.tsv: band).  MCF_EINVAL when the files do not say
 * (only config.ini, or a checkpoint beside an optimization's state), MCF_EFORMAT when
 * DIR/kind holds no kind; the message says what to run instead.  MCFI_KIND_NONE when DIR
 * has neither DIR/kind nor DIR/config.ini (the caller's reading of it says what is wrong). */
int mcfe_outdir_kind(const char *dir, int *kind);

/* ---- statistics (stats.c) ------------------------------------------------------------ */
/* The decimal places that show `error` with two significant digits (0 .. 15), for
 * printing a mean and its error to the same place; -1 when error is not finite and > 0. */
int mcfe_error_decimals(double error);
/* The combination step of the engine's jackknife (stats.h), for callers that compute the
 * values themselves (curves, reconstructed densities): f_all = f of all bins, f_loo[i * stride]
 * = f leaving bin i out, weights[i] bin i's weight (NULL: equal; bins of weight <= 0
 * are no bins).  Writes the bias-corrected estimate and the weighted jackknife error
 * (NaN below 2 bins, *value = f_all then) and returns the number of bins used. */
size_t mcfe_jackknife_combine(double f_all, const double *f_loo, size_t stride,
                              const double *weights, size_t nbins, double *value,
                              double *error);

/* ---- results.h5 (results_h5.c, results_h5_seal.c) ------------------------------------ */
/* path (results.h5) into memory through the one bounded opener (a regular file, no link,
 * at most this machine's memory; a FIFO never blocks), checked by mcfi_results_h5_check:
 * *image (malloc'd) and *size.  MCF_EINVAL when there is no such file, MCF_EIO when it
 * cannot be read or is not a regular file, MCF_EFORMAT when it is not sealed, or damaged;
 * each message names path and says what to do. */
int mcfe_results_h5_load(const char *path, unsigned char **image, size_t *size);

/* ---- a chain outside a run (chain.c) ------------------------------------------------- */
/* What the model's create() of chain `index` gets besides its parameters, in a run and
 * outside one (`mcf band`'s state configuration): the services (seed, chain index, the
 * evaluator and its values, borrowed) and the chain's random stream (seed, index). */
void mcfe_chain_services(uint64_t seed, size_t index, const mcf_plugin_info *evaluator,
                         const mcf_params *evaluator_params, mcf_services *services,
                         mcf_rng *rng);
/* The fields of services that come from the model's descriptor (mcf 0.5): app_data and
 * the model's declared streams. */
void mcfe_model_services(const mcf_plugin *model, mcf_services *services);

/* ---- the run (run.c) ----------------------------------------------------------------- */
typedef struct mcf_run_options {
    const char *output;   /* output folder (overrides [run] output when not NULL) */
    int resume;           /* continue from output/checkpoint when present */
    int force;            /* replace the run an output folder holds (kept aside, in
                             DIR/.previous, until the new run's first checkpoint) */
    int progress;         /* -1 auto (terminal), 0 off, 1 on */
    /* called on rank 0 once results.tsv is written, with the output folder, while the
     * run's log and the folder's lock are still held (NULL: nothing); the mcf program
     * draws the plots here, which keeps gnuplot out of the engine.  A status other than
     * MCF_OK (an output not written) fails the run. */
    int (*results_written)(const char *dir, void *ctx);
    void *results_ctx;    /* handed to results_written */
    int optimize;         /* `mcf optimize`, or `mcf resume` of a folder of kind optimize
                             (fileio.h): optimize.c's loop instead of the schedule */
    int output_locked;    /* rank 0's caller holds the output folder's lock (mcfe_outdir_lock:
                             `mcf resume` takes it before reading DIR/config.ini); otherwise
                             rank 0 takes it for the run's life */
    /* [schedule] error_target tc:X (`mcf tc CONFIG`): called on rank 0 at every decision of
     * error_target with the output folder and its flushed series subfolder; sets *tc and
     * *tc_err (the critical temperature and its jackknife error), MCF_OK or a failure that
     * stops the run.  A run whose targets name tc is refused without it. */
    int (*tc_estimate)(const char *dir, const char *series, void *ctx, double *tc,
                       double *tc_err);
    void *tc_ctx;         /* handed to tc_estimate */
    int stage;            /* the optimization stage of [model] KEY = optimized (the mcf
                             program's optimize_first.c): no advice on using parameters.txt */
} mcf_run_options;

/* Runs (or resumes) the whole schedule and writes the results.  MCF_EINTR when a signal
 * stopped it (after writing a checkpoint).  Rank 0 holds the output folder's lock from
 * before it writes there until it returns; MCF_EIO when another process holds it, or when
 * an output (checkpoint, results, config.ini) was not written. */
int mcfe_run_execute(mcf_setup *setup, const mcf_run_options *opt);
/* The signal that stopped the last run (0 if none): main exits with 128 + it. */
int mcfe_run_stop_signal(void);

/* ---- MPI ranks (mpi.c; without MCF_MPI the no-ops of one process) -------------------- */
#ifdef MCF_MPI
/* Initializes MPI when the process was started by a launcher (mpirun, srun, Hydra), and
 * sets MCF_CUDA_DEVICE to the node-local rank unless the user set it; a plain `mcf run`
 * stays a single process without MPI.  Not collective when not launched. */
void mcfe_mpi_init(int *argc, char ***argv);
void mcfe_mpi_finalize(void);
int mcfe_mpi_rank(void);
/* The job-wide status: MCF_OK when rc is MCF_OK on every rank; otherwise the code and the
 * message of the lowest failing rank on every rank, the message prefixed with that rank
 * unless every rank failed (then it is the job's problem, not one rank's). */
int mcfe_mpi_agree(int rc);
/* For the k points of `mcf kbe` over ranks (kbe.c's gather service, mcf/dynamics.h); all
 * collective but size.  The number of ranks (1 without a launcher). */
int mcfe_mpi_size(void);
/* bytes[r] bytes from every rank r, concatenated in rank order into recv on every rank
 * (allgather) or on rank 0 (gather; recv unused elsewhere).  A transfer that fails ends the
 * job: the message, then MPI_Abort. */
void mcfe_mpi_allgather(const void *send, const uint64_t *bytes, void *recv);
void mcfe_mpi_gather(const void *send, const uint64_t *bytes, void *recv);
/* rank 0's `bytes` bytes of buf to every rank */
void mcfe_mpi_bcast(void *buf, uint64_t bytes);
/* the largest v over the ranks */
int mcfe_mpi_max_int(int v);
/* An error one rank cannot share (the others may wait in a transfer): "mcf: error: rank R
 * of P: why", then every rank ends (MPI_Abort; exit status 1). */
void mcfe_mpi_abort(const char *why);
#else
static inline void mcfe_mpi_init(int *argc, char ***argv) { (void)argc; (void)argv; }
static inline void mcfe_mpi_finalize(void) {}
static inline int mcfe_mpi_rank(void) { return 0; }
static inline int mcfe_mpi_agree(int rc) { return rc; }
static inline int mcfe_mpi_size(void) { return 1; }
static inline void mcfe_mpi_allgather(const void *send, const uint64_t *bytes, void *recv)
{
    memcpy(recv, send, (size_t)bytes[0]);
}
static inline void mcfe_mpi_gather(const void *send, const uint64_t *bytes, void *recv)
{
    memcpy(recv, send, (size_t)bytes[0]);
}
static inline void mcfe_mpi_bcast(void *buf, uint64_t bytes) { (void)buf; (void)bytes; }
static inline int mcfe_mpi_max_int(int v) { return v; }
static inline void mcfe_mpi_abort(const char *why)
{
    fprintf(stderr, "mcf: error: %s\n", why);
    exit(1);
}
#endif

#endif
