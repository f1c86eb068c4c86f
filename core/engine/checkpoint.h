/* checkpoint.h — DIR/checkpoint (checkpoint.c; internal). */
#ifndef MCF_CHECKPOINT_H
#define MCF_CHECKPOINT_H

#include "run_state.h"

/* checkpoint.c: DIR/checkpoint, atomic, versioned, checksummed. */
int mcfi_checkpoint_write(const struct mcf_run *r);
/* Returns MCF_OK when loaded, 1 when there is no checkpoint, an error otherwise (nothing
 * of the run is changed on error, except model chains, which the caller then discards).
 * The file must be a regular file of a size this configuration can have, intact, and
 * every count, index and size in it in range for the configuration at its sweep; the
 * message of a refusal names the file and the field. */
int mcfi_checkpoint_read(struct mcf_run *r);
/* The pieces, for ranks: the records of the chains this rank owns (ranks.h), ascending,
 * appended to out; the file from the records of all chains in order; the records of a
 * checkpoint file after checking all of it as above (1 when there is none; *records owned
 * by the caller, free()); and loading, from all chains' records in chain order, those of
 * the chains this rank owns (owned = 1) or of the others (0; a chain without a model
 * instance takes the accumulators only; tempering: the records end with the tempering
 * state, as in the file, rather than being the bare chains gathered from the ranks).
 * origin names the source in messages. */
int mcfi_checkpoint_records(const struct mcf_run *r, mcf_stream *out);
int mcfi_checkpoint_write_records(const struct mcf_run *r, const unsigned char *records,
                                  size_t size);
int mcfi_checkpoint_read_file(const struct mcf_run *r, unsigned char **records,
                              size_t *records_size, uint64_t *position);
int mcfi_checkpoint_load_records(struct mcf_run *r, const unsigned char *records, size_t size,
                                 int owned, int tempering, const char *origin);

/* checkpoint.c: a random stream read back must be the one it replaces (`fresh`: same seed
 * and stream) at some point of its sequence; MCF_EFORMAT naming what differs. */
int mcfi_checkpoint_rng_check(const mcf_rng *got, const mcf_rng *fresh);

/* checkpoint_dmc.c: the population's state behind the chains' records ([run] method =
 * dmc); read: checked against the run at sweep `position` (UINT64_MAX: checked before,
 * at its sweep), taken only when `take`. */
int mcfi_checkpoint_dmc_write(const struct mcf_run *r, mcf_stream *out);
int mcfi_checkpoint_dmc_read(const struct mcf_run *r, mcf_stream *in, uint64_t position, int take);

/* checkpoint_tempering.c: the tempering state, behind the chains' records (only when on). */
int mcfi_checkpoint_tempering_write(const struct mcf_run *r, mcf_stream *out);
int mcfi_checkpoint_tempering_read(struct mcf_run *r, mcf_stream *in, const char *origin);
/* reads the tempering state from in and checks it against the schedule at position,
 * changing nothing (the whole file is checked before any of it is loaded) */
int mcfi_checkpoint_tempering_check(const struct mcf_run *r, mcf_stream *in,
                                    uint64_t position);

#endif
