/* run_state.h — the state of a run: its chains, the parallel-tempering state and struct
 * mcf_run, shared by the files that run, save and report it (internal; types only). */
#ifndef MCF_RUN_STATE_H
#define MCF_RUN_STATE_H

#include "internal.h"
#include "model_ops.h"

typedef struct mcf_chain {
    size_t index;
    void *state;                 /* the model's chain, owned through ops->destroy */
    mcf_rng rng;
    mcf_params *model_params;    /* owned (free); values borrowed from the setup */
    mcf_params *evaluator_params; /* owned or NULL */
    mcf_services services;
    size_t units;        /* the N of per-unit observables */
    size_t moves;        /* proposals per sweep (mcf_layout.moves; = units by default) */
    /* counters: measured phase, and the current adaptation block */
    uint64_t accepted, proposed;
    uint64_t block_accepted, block_proposed;
    uint64_t measurements;
    mcf_blocking *blocking;      /* one per scalar observable */
    double *bin_sum;             /* bins x nvars sums of the measured variables */
    double *bin_count;           /* measurements per bin */
    /* the layout of measure()'s values and the curves (per chain: lengths may differ) */
    size_t n_values;             /* values written by measure() */
    size_t *offset;              /* per declared observable: its first value */
    size_t *points;              /* per declared observable: 1, or the curve's length */
    double *axis;                /* curve axes, concatenated in curve order */
    size_t curve_values;         /* sum of the curves' lengths */
    double *curve_bin_sum;       /* bins x curve_values sums of the curve values */
    /* parallel tempering: this replica's measurements and measured-phase move counts of
       the current chunk, recorded at the chunk's end into the accumulators of the
       temperature slot it holds (which may be another rank's chain); never checkpointed:
       empty at every chunk boundary */
    double *pending;             /* pending_rows x n_values */
    size_t pending_rows, pending_cap;
    uint64_t pending_accepted, pending_proposed;
    /* [run] series = yes (series.c): records not yet appended to the chain's file */
    double *series;              /* series_cap rows x n_obs */
    size_t series_rows, series_cap;
    int series_error;            /* errno of a failed append, reported at the next flush */
    /* sampler = hmc: this chain's step and steps per trajectory ([run] hmc_dt and
       hmc_steps, or with hmc_dt = auto tuned during thermalization, hmc_tune.c: the sums
       of log dt and of the Metropolis probability over the second half of thermalization,
       and their count; checkpointed with auto) */
    double hmc_dt;
    long hmc_steps;
    double hmc_log_dt_sum, hmc_prob_sum;
    uint64_t hmc_tuned;
    int hmc_fixed;               /* auto resumed from a checkpoint without the tuning: the
                                    old default step (0.05, hmc_steps) kept, not tuned */
    /* the tuner's gain (hmc_tune.c): 1 + the sign changes of (probability - target) so far,
       the sign of the last one (-1, +1; 0 before the first) and how many in a row had it */
    uint64_t hmc_sign_changes;
    int hmc_last_sign;
    uint64_t hmc_run;
} mcf_chain;

/* Parallel tempering (tempering.c; [schedule] exchange_every > 0; docs/architecture.md, "Parallel
 * tempering").  A replica is a chain's model instance and random stream; a slot is a
 * chain's temperature, parameters and accumulators.  Replica k starts in slot k; exchanges
 * swap the slots of two replicas of one tempering group (the chains that differ only in
 * T: one per other scan point and walker).  Every rank holds all of this, identically. */
typedef struct mcf_tempering {
    uint64_t every;              /* sweeps between exchange rounds */
    size_t n_temps, n_groups;    /* temperatures per group; other scan points x walkers */
    double *temps;               /* n_temps: the temperature axis's values */
    size_t *order;               /* n_temps: the axis index of the j-th lowest temperature */
    size_t *slot;                /* n_chains: the slot (chain) replica k holds now */
    size_t *replica;             /* n_chains: the replica in slot k (inverse of slot) */
    mcf_rng rng;                 /* decisions: stream (seed, MCF_EXCHANGE_STREAM) */
    /* counted from the first round after thermalization: pair j of group g (the j-th and
       (j+1)-th lowest temperatures) at [g * (n_temps - 1) + j] */
    uint64_t *attempts, *accepted;
    /* round trips per replica (lowest T -> highest T -> lowest T), in sweeps */
    uint64_t *trips, *trip_sweeps, *trip_start;
    uint8_t *trip_state;         /* 0: not yet at the lowest T; 1: left from it; 2: reached
                                    the highest T since */
    double *energy;              /* n_chains: a round's energies or action changes */
    int weigh;                   /* MCF_TEMPERING_ENERGY or _ACTION (internal.h) */
    /* exchange_action's batch (n_chains each): chain, state, T' and dS */
    size_t *batch_chain;
    void **batch_state;
    double *batch_T, *batch_dS;
    mcf_batch *batch;            /* the context of batch_exchange_action */
} mcf_tempering;

struct mcf_run {
    mcf_setup *setup;            /* borrowed */
    const mcfi_model *model;     /* the model, whatever its ABI (model_ops.h) */
    char *dir;
    size_t n_declared;           /* observables declared by the model */
    size_t n_obs, nvars;         /* scalar observables; nvars = n_obs (+1 for e^2 with an
                                    energy, +1 for e s_T with ENERGY and ACTION_DT) */
    size_t *scalar;              /* n_obs: declared index of each scalar */
    size_t n_curves;
    size_t *curve;               /* n_curves: declared index of each curve */
    int role[MCF_ROLE_COUNT];    /* scalar index of each role, -1 if none */
    int var_es;                  /* the variable of e s_T (n_obs + 1), -1 if none */
    mcf_chain *chains;           /* all n_chains; a rank steps the chains it owns and
                                    keeps model instances for those only (mcf_mpi.h) */
    size_t n_chains;
    size_t *own, n_own;          /* the chains this rank owns, ascending: k = rank (mod
                                    ranks), every P-th (ranks.h, mcfi_owns) */
    int rank, ranks;             /* MPI rank and number of ranks (0 and 1 without MPI) */
    uint64_t position;           /* sweeps completed by every chain */
    uint64_t total;              /* thermalize + sweeps */
    uint64_t n_meas;             /* measurements per chain at the end of this phase */
    uint64_t sweeps;             /* measured sweeps at the end of this phase: [schedule]
                                    sweeps, doubled by error_target (error_target.h) */
    uint64_t max_total;          /* the most thermalize + sweeps the run can reach */
    int target_state;            /* error_target: 0 none or undecided, 1 met, 2 missed at
                                    max_sweeps */
    char target_report[768];     /* error_target: how the last decision stood, one line */
    int (*tc_estimate)(const char *, const char *, void *, double *, double *);
    void *tc_ctx;                /* error_target tc:X: mcf_run_options's (mcf tc CONFIG) */
    uint64_t config_hash;        /* run.c's config_hashes: this release's, and the one a */
    uint64_t config_hash_before; /*   checkpoint of mcf 0.5 or older has (0: none) */
    mcf_tempering *pt;           /* parallel tempering, NULL when off */
    struct mcfi_anneal *anneal;  /* [schedule] start = anneal (anneal.c), NULL when off */
    struct mcfi_dmc *dmc;        /* [run] method = dmc (dmc.c), NULL when off */
    int series;                  /* [run] series = yes and its files ready (series.c) */
};

#endif
