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

/* One trajectory for each of the n chains (steps of dt by the integrator, MCFI_HMC_*: one
 * gradient a step for leapfrog, two for omelyan), their decisions into accepted[k];
 * *state: the group's scratch, made on the first call (the chains' coordinates located
 * once), freed by mcfi_hmc_free.  checks > 0: first compare each chain's gradient with
 * central differences of its action along `checks` directions (MCF_EPLUGIN when they
 * disagree).  measuring: the trajectory counts in the log's line of energy errors
 * (<exp(-dH)>, <dH> and <dH^2>/2, acceptance over the measured trajectories, written when
 * *state is freed).  Errors name the model. */
int mcfi_hmc_trajectory(const struct mcfi_model *m, mcf_batch *b, mcfi_hmc **state,
                        mcf_chain *const *chains, size_t n, int integrator, long steps,
                        double dt, long checks, int measuring, unsigned char *accepted);
void mcfi_hmc_free(mcfi_hmc *h);

/* [run] sampler = auto (sampler_auto.c): hmc or local for the run's chains, once they
 * exist; sets r->setup->hmc and ->sampler_note and, for hmc, names it in config.ini as used
 * (->canonical).  Collective. */
int mcfi_resolve_sampler(mcf_run *r);

#endif
