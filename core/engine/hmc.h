/* hmc.h — hybrid Monte Carlo, the core's global sampler (hmc.c; internal). */
#ifndef MCF_HMC_H
#define MCF_HMC_H

#include "run_state.h"

typedef struct mcfi_hmc mcfi_hmc;
struct mcfi_model;

/* 1 when the model has coordinates and global_action (mcf 1.1) */
int mcfi_hmc_supported(const struct mcfi_model *m);

/* [run] hmc_integrator */
enum { MCFI_HMC_LEAPFROG = 0, MCFI_HMC_OMELYAN = 1 };

/* One trajectory for each of the n chains (chain k: its hmc_steps steps of its hmc_dt by
 * the integrator, MCFI_HMC_*: one gradient a step for leapfrog, two for omelyan), their
 * decisions into accepted[k] and, probability not NULL, the Metropolis probabilities
 * min(1, e^{-dH}) into probability[k] (0 for a trajectory that left the domain);
 * *state: the group's scratch, made on the first call (the chains' coordinates located
 * once), freed by mcfi_hmc_free.  checks > 0: first compare each chain's gradient with
 * central differences of its action along `checks` directions (MCF_EPLUGIN when they
 * disagree).  measuring: the trajectory counts in the log's line of energy errors
 * (<exp(-dH)>, <dH> and <dH^2>/2, acceptance over the measured trajectories, written when
 * *state is freed).  Errors name the model. */
int mcfi_hmc_trajectory(const struct mcfi_model *m, mcf_batch *b, mcfi_hmc **state,
                        mcf_chain *const *chains, size_t n, int integrator, long checks,
                        int measuring, unsigned char *accepted, double *probability);
void mcfi_hmc_free(mcfi_hmc *h);

/* [run] hmc_dt (hmc_tune.c): chain c's step and steps at its creation: the numbers given,
 * or with auto the start guess 0.05 (512 / N)^(1/4), N = c->units, and ceil(hmc_length /
 * dt) steps */
void mcfi_hmc_tune_start(const mcf_setup *s, mcf_chain *c);
/* hmc_dt = auto, a thermalization sweep (0-based `sweep` < thermalize) done: log dt moves
 * toward the target by the trajectory's Metropolis probability; the last sweep of
 * thermalization freezes dt at the mean of log dt over its second half */
void mcfi_hmc_tune(const mcf_setup *s, mcf_chain *c, uint64_t sweep, double probability);
/* The log's line of chain c's tuned step, after thermalization (or at its start when
 * thermalize = 0: the start guess, with a warning, once per run) */
void mcfi_hmc_tune_report(const mcf_run *r, const mcf_chain *c);
/* The checkpoint's tuning of chain c (hmc_dt = auto only: 72 bytes behind the model
 * state, 48 in mcf 1.1.0's checkpoints, before the tuner's gain state), and reading it
 * back: `size` bytes, 0 for a checkpoint written before auto existed (the chain keeps the
 * old default step, 0.05 and hmc_steps, untuned) */
int mcfi_hmc_tune_save(const mcf_setup *s, const mcf_chain *c, mcf_stream *out);
int mcfi_hmc_tune_load(const mcf_setup *s, mcf_chain *c, mcf_stream *in, size_t size);
enum { MCFI_HMC_TUNE_BYTES = 72, MCFI_HMC_TUNE_BYTES_110 = 48 };

/* [run] sampler = auto (sampler_auto.c): hmc or local for the run's chains, once they
 * exist; sets r->setup->hmc and ->sampler_note and, for hmc, names it in config.ini as used
 * (->canonical).  Collective. */
int mcfi_resolve_sampler(mcf_run *r);

#endif
