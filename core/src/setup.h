/* setup.h — shared by the files that turn a configuration into a run setup (axes.c,
 * section.c, core_keys.c, evaluator_auto.c, setup.c); internal to them.  The order a
 * configuration passes through them: config.c reads it, setup.c checks [run] and
 * [schedule] through core_keys.c, opens the plugins (evaluator = auto: evaluator_auto.c),
 * checks [model] and [evaluator] through section.c (scan axes: axes.c) and writes
 * config.ini as used. */
#ifndef MCF_SETUP_H
#define MCF_SETUP_H

#include "internal.h"
#include "model_ops.h"

/* The longest line of a configuration file (inih's buffer, less its NUL byte): config.ini
 * as used holds "key = value" per line and `mcf resume` reads it back through inih. */
#define MCFI_CONFIG_LINE_MAX 199
/* The longest section name: inih (r55, ini.c's MAX_SECTION) cuts a longer one to this
 * without a word, and keeps only as much of a key's name for a line that continues it.
 * Not in inih's header, so tests/unit/test_config.c holds it: a name of this length is read
 * whole. */
#define MCFI_CONFIG_NAME_MAX 49
/* The largest configuration file read (a folder, a device or a pipe is refused too). */
#define MCFI_CONFIG_MAX_BYTES (1 << 20)
/* The most chains a run may have (scan points x walkers): chain indices times the number
 * of MPI ranks (< 2^31) stay within 64 bits. */
#define MCFI_MAX_CHAINS ((size_t)1 << 32)

/* ---- scan axes (axes.c) ------------------------------------------------------------ */
/* Parses a scan value, a list "a, b, c" or a linspace "first:last:count" (numeric keys
 * only), into *n values per spec (owned: mcfi_value_release each, then free).  MCF_EINVAL
 * with the reason, no location; after a failure nothing is owned (*values NULL, *n 0). */
int mcfi_axis_parse(const mcf_param_spec *spec, const char *text, mcf_value **values,
                    size_t *n);
/* Whether a value's text is a list or a linspace (an axis) rather than one value. */
int mcfi_is_axis_text(const mcf_param_spec *spec, const char *text);
/* Frees n axes and the array. */
void mcfi_axes_free(mcf_axis *axes, size_t n);

/* ---- one section against its declaration (section.c) ------------------------------ */
/* Checks [section] of c against specs: unknown keys first, in file order (the known ones
 * are marked used), then every declared key in declaration order: required, typed,
 * ranged, the default filled in.  A list or linspace becomes an axis appended to *axes
 * (section_index: 0 model, 1 evaluator, 2 the temperature pass, which makes every value
 * an axis named T).  owner names the declaration in errors.  *out is owned:
 * mcfi_section_release(), also after a failure. */
int mcfi_section_check(mcf_config *c, const char *section, const mcf_param_spec *specs,
                       const char *owner, int section_index, mcf_section *out, mcf_axis **axes,
                       size_t *n_axes);
void mcfi_section_release(mcf_section *sec);
/* The text of a declared key as config.ini writes it (given or the default), or NULL for
 * an optional key not given.  Borrowed. */
const char *mcfi_section_text(const mcf_section *sec, const char *key);
/* The section's single values as an mcf_params, for the typed getters of mcf/params.h
 * (the core reads [run] and [schedule] as a plugin reads its section).  Borrows sec. */
void mcfi_section_params(const mcf_section *sec, const char *origin, mcf_params *out);
/* Appends "[name]" and "key = text" for every key with a text to t: defaults filled in,
 * MCF_PARAM_ECHO_IF_CHANGED keys only when their value is not the default. */
void mcfi_section_write(mcf_text *t, const mcf_section *sec);
/* mcfi_section_write(), keeping only the keys given in c (and nothing when none is). */
void mcfi_section_write_given(mcf_text *t, const mcf_section *sec, const mcf_config *c);

/* ---- [run] and [schedule] (core_keys.c) -------------------------------------------- */
/* Checks [run] and [schedule] into run and sched (owned by the caller, released also after
 * a failure), [schedule] temperatures into the temperature axis appended to *axes, and
 * reads the core keys into s (names, seed, output, threads, walkers, the schedule,
 * has_temperature), checking that the schedule has enough measurements for its bins. */
int mcfi_core_keys_read(mcf_config *c, mcf_section *run, mcf_section *sched, mcf_axis **axes,
                        size_t *n_axes, mcf_setup *s);
/* [schedule] exchange_every > 0: the temperature axis and the model's tempering support,
 * once the model is open and the axes are in place. */
int mcfi_core_check_tempering(const mcf_config *c, const mcf_setup *s);
/* [schedule] start = hot_cold: walkers >= 2 and a model with [model] start = random |
 * ordered (once the model is open). */
int mcfi_core_check_start(const mcf_config *c, const mcf_setup *s);

/* ---- the setup (setup.c) ------------------------------------------------------------ */
/* The evaluator kind a model takes (MCF_PLUGIN_FERMION_EVALUATOR or
 * MCF_PLUGIN_ORBITAL_EVALUATOR), or 0: it takes none (also a model older than the field). */
int mcfi_model_evaluator_kind(const mcf_plugin *model);

/* ---- degenerate shells at mu (shells.c) ------------------------------------------- */
/* The levels of crystal p on the L^dims torus (translations L e_d, Cartesian), sorted
 * ascending into *eps (owned: free), each *repeat times (*n in all, cells x orbitals x
 * repeat).  MCF_EINVAL (no message) when the torus is no multiple of the cell; MCF_ENOMEM. */
int mcfi_torus_levels(const mcf_periodic *p, long L, double **eps, size_t *n, size_t *repeat);
/* The count mcfi_torus_levels would give (its cost), 0 when the torus is no multiple of the
 * cell, SIZE_MAX past that. */
size_t mcfi_torus_level_count(const mcf_periodic *p, long L);
/* The levels (count / repeat) of the shell of sorted eps[0..n) at mu at temperature T: >= 2
 * equal levels within 3 T of mu carrying more than half of the sum of f (1 - f) over all
 * levels; its energy into *energy.  0: no such shell. */
size_t mcfi_shell_at(const double *eps, size_t n, size_t repeat, double mu, double T,
                     double *energy);
/* For a model with ordered_state and mu_key (mcf/model.h): one warning line per lattice size
 * whose torus has such a shell at some scan point, into s->shell_warnings ("file:line:
 * [model] L = ...: ...", newline-terminated; NULL when none).  MCF_ENOMEM only. */
int mcfi_shells_check(const mcf_config *c, mcf_setup *s);

/* ---- evaluator = auto (evaluator_auto.c) ------------------------------------------- */
/* Opens the first usable evaluator of the model's kind into s->evaluator, names it in
 * s->evaluator_name and keeps the account of the choice in s->evaluator_note. */
int mcfi_resolve_auto_evaluator(mcf_config *c, mcf_setup *s);

#endif
