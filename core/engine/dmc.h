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

/* The population's history, one row per measure_every sweeps in the measurements'
 * rhythm (the sweeps measured, and the thermalizing ones in step with them; results.h5's
 * /dmc, dmc_history.c):
 *   sweep (1-based), energy (the weighted mean of the walkers' total local energies: the
 *   cell's mixed estimate), log_weight (log of the mean weight of the step, R^-1 sum_k w_k
 *   with w_k = exp(-tau_eff [(E_before + E_after) / 2 - E_T]): the factor by which a
 *   population of free size would have grown, which the fixed population drops), the
 *   effective population (sum w)^2 / sum w^2, trial_energy E_T, timestep_effective,
 *   log_product: the sum of the log mean weights of the last T / tau steps, this one
 *   included (T = [run] population_correction; 0 without), the log of the factor by which
 *   Umrigar, Nightingale and Runge's corrected estimate weighs the step. */
#define MCFI_DMC_HIST 7
typedef struct mcfi_dmc_history {
    double *rows; /* n x MCFI_DMC_HIST */
    size_t n, cap;
} mcfi_dmc_history;
/* 1 when the step that ends sweep t (1-based) has a row; the rows of the first t sweeps;
 * the sweep of row i. */
int mcfi_dmc_history_at(const mcf_setup *s, uint64_t t);
uint64_t mcfi_dmc_history_rows(const mcf_setup *s, uint64_t t);
double mcfi_dmc_history_sweep(const mcf_setup *s, uint64_t i);
/* Room for n rows in h (MCF_ENOMEM with a message). */
int mcfi_dmc_history_reserve(mcfi_dmc_history *h, size_t n);
/* The histories of all points as one table (dmc_history.c): results.tsv's scan columns,
 * then the MCFI_DMC_HIST columns above, into *t (the caller's: mcfi_table_free); empty
 * without DMC.  MCF_ENOMEM with a message, *t then empty. */
struct mcfi_table;
int mcfi_dmc_table(const mcf_run *r, struct mcfi_table *t);
/* Rank 0's lines in the log on each point's effective population and log weights over the
 * measured steps, and the population-corrected energy beside the plain one (a warning when
 * they differ by more than 2 sigma of the difference and half the error bar); nothing
 * without DMC. */
void mcfi_dmc_report(const mcf_run *r);
/* From h's rows after sweep `from` (the measured ones), in `blocks` contiguous blocks:
 * out[0] the plain mean energy, out[1] the corrected one sum_t e^{S_t} E_t / sum_t e^{S_t},
 * out[2] its jackknife error, out[3] out[1] - out[0] and out[4] that difference's jackknife
 * error.  MCF_EINVAL (no message) with fewer than 2 blocks of rows, MCF_ENOMEM (no
 * message) when the blocks' sums cannot be had. */
int mcfi_dmc_corrected(const mcfi_dmc_history *h, double from, size_t blocks, double out[5]);

/* The population's state as the checkpoint holds it (checkpoint_dmc.c): pointers into
 * r->dmc (rng0: each point's comb stream as it began, for the checks of a load). */
typedef struct mcfi_dmc_view {
    size_t points, R;
    double *e_old, *e_sum;
    uint64_t *acc_sum, *prop_sum, *steps;
    mcf_rng *rng;
    const mcf_rng *rng0;
    mcfi_dmc_history *hist; /* points */
    double **ring;          /* points: ring_len[p] log mean weights (dmc.c) */
    uint64_t *ring_len, *ring_pos;
} mcfi_dmc_view;
void mcfi_dmc_state(const mcf_run *r, mcfi_dmc_view *v);

/* After every chain made sweep r->position - 1 and measured: the weights, the measured row
 * of each point (when that sweep is measured), the comb and the hand-overs.  Collective. */
int mcfi_dmc_step(mcf_run *r);

#endif
