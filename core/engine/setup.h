/* setup.h — shared by the files that turn a configuration into a run setup (section.c,
 * core_keys.c, evaluator_auto.c, shells.c, setup.c); internal to them.  The order a
 * configuration passes through them: config.c reads it, setup.c checks [run] and
 * [schedule] through core_keys.c, opens the plugins (evaluator = auto: evaluator_auto.c),
 * checks [model] and [evaluator] through section.c (scan axes: axes.c) and writes
 * config.ini as used. */
#ifndef MCF_SETUP_H
#define MCF_SETUP_H

#include "internal.h"
#include "model_ops.h"

/* The most chains a run may have (scan points x walkers): chain indices times the number
 * of MPI ranks (< 2^31) stay within 64 bits. */
#define MCFI_MAX_CHAINS ((size_t)1 << 32)

/* ---- one section against its declaration (section.c) ------------------------------ */
/* mcfe_section_write(), keeping only the keys given in c (and nothing when none is). */
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
/* [run] sampler = hmc needs a model with coordinates (hmc.c) */
int mcfi_core_check_sampler(const mcf_config *c, const mcf_setup *s);
/* [run] method = dmc needs a model with a projector op and a configuration record (dmc.h),
 * walkers >= 2, and no hmc, tempering, start other than model, or series */
int mcfi_core_check_method(const mcf_config *c, const mcf_setup *s);
/* [run] extra_observables: every name is an observable of the model flagged
 * MCF_OBS_ON_REQUEST (once the model is open); MCF_EINVAL naming the key and those it has. */
int mcfi_core_check_extra(const mcf_config *c, const mcf_setup *s);

/* ---- the setup (setup.c) ------------------------------------------------------------ */
/* [model] KEY = optimized, KEY the model's variational file key (variational_file.c): the
 * model's section gets KEY's default and s->optimized_key = KEY; MCF_EINVAL for a model of
 * ABI 1.  Nothing for any other value. */
int mcfi_setup_optimized_key(const mcf_config *c, mcf_setup *s, mcf_section *model);

/* ---- degenerate shells at mu (shells.c) ------------------------------------------- */
/* The levels of crystal p on the L^dims torus (translations L e_d, Cartesian), sorted
 * ascending into *eps (owned: free), each *repeat times (*n in all, cells x orbitals x
 * repeat).  MCF_EINVAL (no message) when the torus is no multiple of the cell; MCF_ENOMEM. */
int mcfi_torus_levels(const mcf_periodic *p, long L, double **eps, size_t *n, size_t *repeat);
/* The same on the twisted torus (mcf/lattice.h): K_d = (2 pi n_d + theta_d) / L, theta[0..dims)
 * in radians (NULL: none). */
int mcfi_torus_levels_twisted(const mcf_periodic *p, long L, const double *theta, double **eps,
                              size_t *n, size_t *repeat);
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
