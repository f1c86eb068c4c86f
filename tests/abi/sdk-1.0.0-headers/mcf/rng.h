/* mcf/rng.h — reproducible random streams (counter-based Philox4x32-10).
 *
 * A stream is fixed by (seed, stream index) alone: the core gives chain k of a run
 * with seed s the stream (s, k), so results do not depend on thread count, batching
 * or the order in which chains are advanced.  Philox is counter based, so the same
 * numbers can be produced on a GPU from (seed, stream, counter).
 *
 * The mapping is fixed once and for all (checkpoints and GPU kernels depend on it):
 *   key     = { seed & 0xffffffff, seed >> 32 }
 *   counter = { c & 0xffffffff, c >> 32, stream & 0xffffffff, stream >> 32 }
 * for block c = 0, 1, 2, ... of the stream; each block's four 32-bit words are handed out
 * in order.  u64 = (first word << 32) | second word; uniform = (u64 >> 11) 2^-53.  How
 * many words each derived draw consumes is written at the top of core/sdk/rng.c.
 *
 * The state is a plain struct of fixed-width fields; the core saves it in checkpoints.
 * Plugins use the mcf_rng they are handed and never keep a copy of it. */
#ifndef MCF_RNG_H
#define MCF_RNG_H

#include "mcf/api.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_rng {
    uint32_t key[2];     /* the seed */
    uint64_t stream;     /* the stream index (chain index) */
    uint64_t counter;    /* blocks of 128 bits consumed so far */
    uint32_t buffer[4];  /* the current block */
    uint32_t used;       /* words of buffer already handed out (4 = empty) */
    uint32_t reserved;
} mcf_rng;

/* Sets *rng to the start of stream `stream` of seed `seed`.  Cannot fail. */
MCF_API void mcf_rng_init(mcf_rng *rng, uint64_t seed, uint64_t stream);

/* Uniform 32-bit and 64-bit words. */
MCF_API uint32_t mcf_rng_u32(mcf_rng *rng);
MCF_API uint64_t mcf_rng_u64(mcf_rng *rng);

/* Uniform double in [0, 1) with 53 random bits. */
MCF_API double mcf_rng_uniform(mcf_rng *rng);

/* Uniform double in (0, 1): never 0, safe for log(). */
MCF_API double mcf_rng_uniform_pos(mcf_rng *rng);

/* Uniform integer in [0, n), without modulo bias.  n must be > 0 (returns 0 if not). */
MCF_API uint64_t mcf_rng_below(mcf_rng *rng, uint64_t n);

/* Standard normal deviate (Box–Muller; consumes two uniforms per call). */
MCF_API double mcf_rng_normal(mcf_rng *rng);

/* A unit vector uniformly distributed on the sphere S^2, written to v[0..2]. */
MCF_API void mcf_rng_unit_vector(mcf_rng *rng, double v[3]);

#ifdef __cplusplus
}
#endif
#endif
