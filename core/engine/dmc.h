/* dmc.h — [run] method = dmc (dmc.c; internal): diffusion Monte Carlo with a population of
 * fixed size.  The R walkers of a scan point are its population: every sweep each walker
 * moves by its model's fixed-node drift-diffusion at the time step tau (the model's
 * projector op), measures, and gets the weight
 *     w_k = exp(-tau_eff [(E_k(before) + E_k(after)) / 2 - E_T]),
 * E the walker's total local energy (the ENERGY observable times its units), E_T the trial
 * energy, tau_eff = tau times the population's acceptance over the run so far (the moves it
 * refused did not diffuse); the measured row of the point is the weighted mean of the
 * walkers' rows (the mixed estimator of every observable), recorded as walker 0's
 * measurement (the point's one series: its error by blocking over steps, the walkers being
 * correlated through their common ancestors); then the comb (comb.h) draws R walkers from
 * the weights with one uniform of the point's own stream (seed, UINT64_MAX - 1 - point), and
 * the copies are handed over (anneal.h's mcfi_hand_over).  E_T is the mean of the point's
 * step energies so far: with a population of fixed size it scales every weight alike and
 * changes nothing but their product, which is the population-control factor. */
#ifndef MCF_DMC_H
#define MCF_DMC_H

#include "run_state.h"

/* The model's projector op, when it has one (mcf 1.2); 0 otherwise. */
int mcfi_dmc_supported(const mcfi_model *m);

/* The population's state for r (r->dmc; nothing when the setup is not dmc): the projector
 * op called on every chain this rank owns.  MCF_EINVAL for curves measured, and the model's
 * refusals, prefixed with the configuration file.  Over MPI ranks every rank keeps the whole
 * population's state and makes the same decisions (mcfi_dmc_step shares the walkers'
 * measurements first). */
int mcfi_dmc_create(mcf_run *r);
void mcfi_dmc_free(struct mcfi_dmc *d);
/* The log's line on the population (rank 0, once the log is open). */
void mcfi_dmc_announce(const mcf_run *r);

/* A group's measurement of chain c at this sweep (values as measure() wrote them) and its
 * moves of the sweep: kept for the step (thread-safe: one chain, one slot). */
void mcfi_dmc_keep(const mcf_run *r, const mcf_chain *c, const double *values, uint64_t accepted,
                   uint64_t proposed);

/* The population's state as the checkpoint holds it (checkpoint_dmc.c): pointers into
 * r->dmc (rng0: each point's comb stream as it began, for the checks of a load). */
typedef struct mcfi_dmc_view {
    size_t points, R;
    double *e_old, *e_sum;
    uint64_t *acc_sum, *prop_sum, *steps;
    mcf_rng *rng;
    const mcf_rng *rng0;
} mcfi_dmc_view;
void mcfi_dmc_state(const mcf_run *r, mcfi_dmc_view *v);

/* After every chain made sweep r->position - 1 and measured: the weights, the measured row
 * of each point (when that sweep is measured), the comb and the hand-overs.  Collective. */
int mcfi_dmc_step(mcf_run *r);

#endif
