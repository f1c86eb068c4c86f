/* mcf/state.h — a chain's checkpointed state described once.
 *
 * A model of ABI 2 describes its fields in state() (mcf/model.h: mcf_chain_state_add with
 * the MCF_STATE_* fields below), and the core writes and reads the record with the two
 * functions here, under the model's state_tag.  They are public for a plugin's own records
 * and tests too.  The pattern, as ABI 1's save() and load() used it (mcf 0.2-0.8): a model
 * lists what its chain's state is made of — a 4-byte record tag, then fields — in ONE
 * function, and save() and load() both use that list:
 *
 *     static size_t my_state(my_chain *c, mcf_state_field f[])
 *     {
 *         f[0] = MCF_STATE_FIXED("sites", &c->n64, sizeof c->n64);
 *         f[1] = MCF_STATE_REALS("x", c->x, c->n);
 *         f[2] = MCF_STATE_RNG("measurement stream", &c->mrng);
 *         return 3;
 *     }
 *     save: mcf_state_save(out, "MYM1", f, my_state(c, f))
 *     load: mcf_state_load(in, "MYM1", "my-model", f, my_state(c, f)), then rebuild what
 *           follows from the state (e.g. the Hamiltonian) and check model-specific ranges.
 *
 * The record is the tag followed by each field's bytes in order, in the host's byte order
 * (mcf/stream.h): exactly what a hand-written sequence of mcf_stream_write calls gives, so
 * a model that switches to a description keeps its checkpoint format.
 *
 * Field kinds (what load() checks):
 *   DATA   raw bytes, overwritten.
 *   FIXED  a value the configuration fixes (a size, a lattice kind): load() compares the
 *          record's bytes with the chain's and refuses a mismatch, naming the field.
 *   REALS  doubles, overwritten; every one must be finite.
 *   RNG    mcf_rng streams, overwritten; each must be a valid stream state.
 * On a refusal the chain may be partly loaded: the core then refuses the resume and the
 * chain is destroyed.  A field that points into an mcf_hamiltonian (its onsite array, say)
 * is written behind the change journal's back: after loading, set those entries again
 * through mcf_hamiltonian_set_onsite/set, or call mcf_hamiltonian_touch_all.  save() takes
 * a const chain: cast it for the shared description (save only reads the fields). */
#ifndef MCF_STATE_H
#define MCF_STATE_H

#include "mcf/api.h"

#include <stddef.h>

#include "mcf/rng.h"
#include "mcf/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcf_state_kind {
    MCF_STATE_KIND_DATA = 0,
    MCF_STATE_KIND_FIXED = 1,
    MCF_STATE_KIND_REALS = 2,
    MCF_STATE_KIND_RNG = 3
} mcf_state_kind;

typedef struct mcf_state_field {
    const char *name;     /* for messages: "spins", "measurement stream" */
    void *data;           /* the chain's storage (save only reads it) */
    size_t bytes;
    mcf_state_kind kind;
} mcf_state_field;

#define MCF_STATE_DATA(name, ptr, bytes) \
    ((mcf_state_field){(name), (void *)(ptr), (bytes), MCF_STATE_KIND_DATA})
#define MCF_STATE_FIXED(name, ptr, bytes) \
    ((mcf_state_field){(name), (void *)(ptr), (bytes), MCF_STATE_KIND_FIXED})
#define MCF_STATE_REALS(name, ptr, count) \
    ((mcf_state_field){(name), (void *)(ptr), (count) * sizeof(double), MCF_STATE_KIND_REALS})
#define MCF_STATE_RNG(name, ptr) \
    ((mcf_state_field){(name), (void *)(ptr), sizeof(mcf_rng), MCF_STATE_KIND_RNG})

/* Writes tag[0..4) and the fields.  MCF_OK, or the stream's error (MCF_ENOMEM) with a
 * message naming the field.  mcf 0.7: tag NULL writes the fields alone (the record of a
 * model whose hand-written save wrote no tag, e.g. the guide's xy of mcf 0.1). */
MCF_API int mcf_state_save(mcf_stream *out, const char tag[4], const mcf_state_field *fields,
                           size_t n);

/* Reads a record written by mcf_state_save with the same tag (or none: NULL) and fields.  MCF_EFORMAT with
 * a message "<model>: ..." naming the field and saying to resume with the configuration the
 * run was started with, for a foreign tag, a FIXED mismatch, a non-finite REALS value, an
 * invalid RNG or a truncated record; MCF_ENOMEM. */
MCF_API int mcf_state_load(mcf_stream *in, const char tag[4], const char *model,
                           const mcf_state_field *fields, size_t n);

#ifdef __cplusplus
}
#endif
#endif
