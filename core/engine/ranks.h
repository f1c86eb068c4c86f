/* ranks.h — the run's collectives over the MPI ranks (ranks.c; internal; which rank owns
 * which chain: ownership.h).  Every function here is collective: all ranks call it and
 * agree on its status. */
#ifndef MCF_RANKS_H
#define MCF_RANKS_H

#include "ownership.h"
#include "run_state.h"

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
