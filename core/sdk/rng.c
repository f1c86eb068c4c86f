/* rng.c — reproducible random streams on Random123's Philox4x32-10 (see mcf/rng.h).
 *
 * Mapping, fixed once and for all (checkpoints and GPU kernels depend on it):
 *   key     = { seed & 0xffffffff, seed >> 32 }
 *   counter = { c & 0xffffffff, c >> 32, stream & 0xffffffff, stream >> 32 }
 * for block number c = 0, 1, 2, ... of the stream.  Each block gives four 32-bit words,
 * handed out in order v[0], v[1], v[2], v[3].
 *
 * Derived draws:
 *   u64          = (first u32 << 32) | second u32
 *   uniform      = (u64 >> 11) * 2^-53                   in [0, 1)
 *   uniform_pos  = ((u64 >> 11) + 0.5) * 2^-53           in (0, 1)
 *   below(n)     n <= 2^32: Lemire's multiply-and-reject on u32 words;
 *                n >  2^32: rejection on u64 words below 2^64 - (2^64 mod n), then mod n
 *   normal       Box–Muller, sqrt(-2 ln u1) cos(2 pi u2), u1, u2 from uniform_pos; the
 *                sine partner is dropped so that the state stays the plain struct
 *   unit_vector  z = 2u - 1, phi = 2 pi u', (sqrt(1 - z^2) cos phi, ... sin phi, z)  */
#include "mcf/rng.h"

#include <math.h>
#include <string.h>

#include <Random123/philox.h>

#define MCF_TWO_PI 6.283185307179586476925286766559
#define MCF_TWO_M53 (1.0 / 9007199254740992.0) /* 2^-53 */

void mcf_rng_init(mcf_rng *rng, uint64_t seed, uint64_t stream)
{
    memset(rng, 0, sizeof *rng);
    rng->key[0] = (uint32_t)(seed & 0xffffffffu);
    rng->key[1] = (uint32_t)(seed >> 32);
    rng->stream = stream;
    rng->counter = 0;
    rng->used = 4;
}

/* Generates block number rng->counter into the buffer and advances the counter. */
static void rng_refill(mcf_rng *rng)
{
    philox4x32_ctr_t ctr;
    philox4x32_key_t key;
    ctr.v[0] = (uint32_t)(rng->counter & 0xffffffffu);
    ctr.v[1] = (uint32_t)(rng->counter >> 32);
    ctr.v[2] = (uint32_t)(rng->stream & 0xffffffffu);
    ctr.v[3] = (uint32_t)(rng->stream >> 32);
    key.v[0] = rng->key[0];
    key.v[1] = rng->key[1];
    philox4x32_ctr_t out = philox4x32(ctr, key);
    for (int i = 0; i < 4; i++)
        rng->buffer[i] = (uint32_t)out.v[i];
    rng->counter++;
    rng->used = 0;
}

uint32_t mcf_rng_u32(mcf_rng *rng)
{
    if (rng->used >= 4)
        rng_refill(rng);
    return rng->buffer[rng->used++];
}

uint64_t mcf_rng_u64(mcf_rng *rng)
{
    uint64_t hi = mcf_rng_u32(rng);
    uint64_t lo = mcf_rng_u32(rng);
    return (hi << 32) | lo;
}

double mcf_rng_uniform(mcf_rng *rng)
{
    return (double)(mcf_rng_u64(rng) >> 11) * MCF_TWO_M53;
}

double mcf_rng_uniform_pos(mcf_rng *rng)
{
    return ((double)(mcf_rng_u64(rng) >> 11) + 0.5) * MCF_TWO_M53;
}

uint64_t mcf_rng_below(mcf_rng *rng, uint64_t n)
{
    if (n == 0)
        return 0;
    if (n == (UINT64_C(1) << 32))
        return mcf_rng_u32(rng);
    if (n < (UINT64_C(1) << 32)) {
        /* Lemire (2019): the high word of x * n is uniform on [0, n) once products whose
         * low word falls below 2^32 mod n are rejected. */
        uint32_t n32 = (uint32_t)n;
        uint64_t m = (uint64_t)mcf_rng_u32(rng) * n32;
        uint32_t low = (uint32_t)m;
        if (low < n32) {
            uint32_t threshold = (uint32_t)(0u - n32) % n32; /* 2^32 mod n */
            while (low < threshold) {
                m = (uint64_t)mcf_rng_u32(rng) * n32;
                low = (uint32_t)m;
            }
        }
        return m >> 32;
    }
    /* n > 2^32: accept x >= 2^64 mod n, leaving a multiple of n equally likely values. */
    uint64_t threshold = (UINT64_C(0) - n) % n;
    uint64_t x;
    do {
        x = mcf_rng_u64(rng);
    } while (x < threshold);
    return x % n;
}

double mcf_rng_normal(mcf_rng *rng)
{
    double u1 = mcf_rng_uniform_pos(rng);
    double u2 = mcf_rng_uniform_pos(rng);
    return sqrt(-2.0 * log(u1)) * cos(MCF_TWO_PI * u2);
}

void mcf_rng_unit_vector(mcf_rng *rng, double v[3])
{
    double z = 2.0 * mcf_rng_uniform(rng) - 1.0;
    double phi = MCF_TWO_PI * mcf_rng_uniform(rng);
    /* (1 - z)(1 + z) rather than 1 - z^2: no cancellation near the poles. */
    double s2 = (1.0 - z) * (1.0 + z);
    double s = s2 > 0.0 ? sqrt(s2) : 0.0;
    v[0] = s * cos(phi);
    v[1] = s * sin(phi);
    v[2] = z;
}
