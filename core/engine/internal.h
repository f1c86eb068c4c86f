/* internal.h — types shared by the files of the engine (core/engine); not part of the SDK.
 * Functions declared in core/engine (and core/program) are named mcfi_*: the i says
 * internal, so that a reader tells them from the SDK's mcf_* (core/sdk/include/mcf) and the
 * engine's program-facing mcfe_* (core/engine/include/mcf_engine.h) at a glance.  The engine uses libmcf through its public headers only: mcf/mcf.h, and
 * mcf/host.h for what a host needs (streams, parameter values, where log lines go). */
#ifndef MCF_INTERNAL_H
#define MCF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "mcf/mcf.h"
#include "mcf/host.h"
#include "mcf_engine.h"
#include "stats.h"

/* ---- configuration files (config.c; its API: mcf_engine.h) ------------------------ */
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
/* The entry of [section] key, or NULL. */
mcf_config_entry *mcfi_config_find(const mcf_config *c, const char *section, const char *key);

/* ---- parameter values (param_values.c) ---------------------------------------------- */

size_t mcfi_spec_count(const mcf_param_spec *specs);
/* Parses one scalar per the spec (type and range).  On failure returns MCF_EINVAL with
 * the reason (no location) in the error message. */
int mcfi_value_parse(const mcf_param_spec *spec, const char *text, mcf_value *out);
/* The position of `word` among the '|'-separated `choices` (0 for the first), or -1: what a
 * CHOICE value's i holds, and mcf_params_choice returns. */
int mcfi_choice_index(const char *choices, const char *word);
/* Checks a declaration (types, choices, defaults in range); MCF_EPLUGIN with message. */
int mcfi_specs_check(const mcf_param_spec *specs, const char *owner);

/* ---- plugins (plugin.c) ----------------------------------------------------------- */

/* Loads a plugin from an explicit file path. */
int mcfi_plugin_open_file(const char *path, int want, mcf_plugin **out);
/* plugin_specs.c: *out = info, or for a plugin built before mcf 1.0 (no built_with) a copy
 * whose parameter specs are in today's layout (symbol and unit NULL), in one block *owned
 * (free()); MCF_ENOMEM. */
/* The ops table of an evaluator plugin of `kind` (ABI 2's table when abi2, else the first
 * ABI's) at path: large enough and every required op set (plugin_tables.c).  MCF_OK for a
 * model (model_ops.c checks its table); MCF_EPLUGIN naming path and the op. */
int mcfi_plugin_check_table(const char *path, int kind, int abi2, const void *ops);
int mcfi_plugin_convert_specs(const mcf_plugin_info *info, const mcf_plugin_info **out,
                              void **owned);

/* ---- a validated run setup (setup.c, axes.c; the files of setup share setup.h) ---- */

/* The value text of axis a at scan point `point`. */
const mcf_value *mcfi_setup_axis_value(const mcf_setup *s, size_t a, size_t point);
/* The index of the time-step axis ([run] timestep a list; mcf_axis section 4), or -1. */
long mcfi_timestep_axis(const mcf_setup *s);
/* The DMC time step of scan point `point`: the time-step axis's value there, or [run]
 * timestep's one value. */
double mcfi_setup_timestep(const mcf_setup *s, size_t point);
/* results_table.c: 1 when the run records observable o: any but a scalar flagged
 * MCF_OBS_ON_REQUEST that [run] extra_observables does not name */
int mcfi_observable_wanted(const mcf_setup *s, const mcf_observable *o);
/* results_table.c: 1 when the model declares an integer parameter L (the linear size
 * xi_over_l divides by; results.h5's /chains/L) */
int mcfi_model_has_L(const mcf_setup *s);

/* ---- running (run_state.h; run.c, run_output.c, stop.c) ------------------------- */
typedef struct mcf_run mcf_run;

/* ---- text (text.c) ---------------------------------------------------------------- */
/* s without leading and trailing blanks and tabs: the trailing ones are cut in place. */
char *mcfi_trim(char *s);

/* The warnings of degenerate shells at mu found at setup (shells.c), as "# warning: " lines
 * into t (from "[model] L = ...": without the file:line, so that results.tsv does not
 * depend on the folder), or with t NULL as warnings on the terminal and into the log. */
void mcfi_shells_report(const mcf_setup *s, mcf_text *t);

#endif
