/* command_config.h — what the program's commands that read one configuration and write one
 * folder share (`mcf band`, `mcf kbe`; command_config.c): the command line, the output
 * folder's name and claiming the folder for the command's kind.  The program's, internal. */
#ifndef MCF_COMMAND_CONFIG_H
#define MCF_COMMAND_CONFIG_H

#include "mcf_engine.h"

/* `mcf CMD CONFIG [--set SECTION.KEY=VALUE ...] [--force]` (argv after CMD): *c the
 * configuration with the overrides applied (the caller's: mcfe_config_free; NULL after a
 * failure), *force.  MCF_EINVAL naming CMD for usage (an unknown option, a second file, no
 * file), or the reading's error. */
int mcfi_command_config(const char *cmd, int argc, char **argv, mcf_config **c, int *force);

/* The output folder: `given` ([run] output), or the configuration's file name without .ini
 * and with .out (in the current folder).  malloc'ed; NULL with an MCF_ENOMEM message. */
char *mcfi_command_output(const char *config_path, const char *given);

/* Claims folder dir for a command writing folders of `kind` (MCFI_KIND_*): creates it, takes
 * its lock (*lock: mcfe_outdir_unlock, also after a failure; -1 when none was taken), clears
 * what a killed writer left, refuses a folder of another kind unless force (naming CMD), and
 * writes the kind.  MCF_OK, MCF_EINVAL, MCF_EIO with a message. */
int mcfi_command_claim(const char *cmd, const char *dir, int kind, int force, int *lock);

/* `mcf run` and `mcf resume` of a setup with [model] KEY = optimized, before the run
 * itself (optimize_first.c): the optimization stage in DIR/optimize, started, continued or,
 * when finished, left as it is.  MCF_EINTR when a signal stopped it; MCF_EINVAL when the
 * stage's folder is in the way of a fresh run or belongs to another configuration, or under
 * MPI while it is unfinished. */
int mcfi_optimize_first(const mcf_config *c, const mcf_setup *s, const mcf_run_options *opt);
/* [optimize] walkers = W > 0 in c becomes [run] walkers = W (an optimization's own number of
 * walkers: `mcf optimize` and the stage above); nothing when it is not given, 0 or not a
 * number (the setup's check of [optimize] names that).  MCF_ENOMEM from the override. */
int mcfi_optimize_walkers(mcf_config *c);

#endif
