/* sweep.h — one group of chains advanced in lockstep (sweep.c; internal). */
#ifndef MCF_SWEEP_H
#define MCF_SWEEP_H

#include "run_state.h"

typedef struct mcf_group {
    size_t n;              /* chains: of the rank's own, every `groups`-th (mcfi_group_init) */
    mcf_chain **chains;    /* n: those chains */
    void **states, **active_states;
    size_t *active;
    mcf_chain **active_chains; /* the chains with a move left at this step, */
    mcf_rng **active_rngs;     /*   their streams, */
    unsigned char *moves;      /*   their moves (move_size each), */
    double *log_ratio;         /*   log ratios */
    unsigned char *decided;    /*   and decisions (1 accepted) */
    mcf_rng **rngs;        /* n: the chains' streams, for the model's sweep op */
    uint64_t *accepted;    /* n: the moves its sweep accepted */
    double *values;        /* n x stride: each chain's measured values */
    double **value_rows;   /* n pointers into values */
    mcf_batch *batch;      /* the context of the model's batched ops */
    struct mcfi_hmc *hmc;  /* [run] sampler = hmc: the group's scratch (hmc.c), on first use */
    size_t stride;
    int plain;             /* sweeps neither adapt nor measure (`mcf optimize` samples) */
    int status;
    char message[4096];
} mcf_group;

/* Group `g` of `groups`: the rank's own chains r->own[g], r->own[g + groups], ... (dealt
 * like the chains to the ranks, so that every thread gets a like mix of lattice sizes);
 * allocates its arrays (MCF_ENOMEM on failure). */
int mcfi_group_init(const mcf_run *r, mcf_group *gr, size_t g, size_t groups);
void mcfi_group_release(mcf_group *g);
/* Sweep `sweep` of the group's chains: thermalization with adaptation, or a measured sweep.
 * A failure is kept in g->status and g->message (the group may run on a worker thread). */
int mcfi_sweep_group(mcf_run *r, mcf_group *g, uint64_t sweep);

#endif
