/* ownership.h — which MPI rank owns which chain (internal; inline): the rule that ranks.c's
 * collectives, the checkpoint's records and the chains' creation all follow. */
#ifndef MCF_OWNERSHIP_H
#define MCF_OWNERSHIP_H

#include "run_state.h"

/* Rank p of P owns the chains k = p (mod P), every P-th: the scan's chain order puts the
 * walkers innermost and the temperatures next, so every rank gets a like share of every
 * lattice size, and a sweep of lockstep chains costs every rank alike (contiguous shares
 * gave one rank all the small lattices: docs/architecture.md, "MPI ranks").
 * Gathered bytes come in rank order, each rank's chains ascending. */
static inline int mcfi_owns(const mcf_run *r, size_t k)
{
    return k % (size_t)r->ranks == (size_t)r->rank;
}

/* The chain after k in gathered order (rank order, each rank's chains ascending), from k = 0;
 * past the last one, n_chains. */
static inline size_t mcfi_gathered_next(const mcf_run *r, size_t k)
{
    size_t P = (size_t)r->ranks;
    if (k + P < r->n_chains)
        return k + P;
    size_t next_rank = k % P + 1;
    return next_rank < P && next_rank < r->n_chains ? next_rank : r->n_chains;
}

#endif
