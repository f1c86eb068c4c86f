/* ranks.h — which MPI rank owns which chain, and the run's collectives over the ranks
 * (ranks.c; internal).  Every function but mcfi_owns is collective: all ranks call it and
 * agree on its status. */
#ifndef MCF_RANKS_H
#define MCF_RANKS_H

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

/* Accepted and proposed moves of all chains, for the progress line. */
void mcfi_count_moves(const mcf_run *r, uint64_t counts[2]);
/* The ranks agree on rc; on success every rank's bytes of *out go to rank 0 (to_all = 0)
 * or to every rank (1) in rank order, into *all (malloc'ed; NULL on ranks that get
 * nothing).  *out is released either way. */
int mcfi_send_stream(int rc, mcf_stream *out, int to_all, unsigned char **all, size_t *size);
/* Rank 0 learns the layout of the chains the other ranks created. */
int mcfi_share_layouts(mcf_run *r);
/* Every chain's record to rank 0, which writes DIR/checkpoint. */
int mcfi_save_checkpoint(mcf_run *r);
/* MCF_OK when resumed, 1 when there is no checkpoint, an error otherwise. */
int mcfi_load_checkpoint(mcf_run *r);

#endif
