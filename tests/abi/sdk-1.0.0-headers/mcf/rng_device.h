/* mcf/rng_device.h — a chain's random stream (mcf/rng.h) continued in device code, and the
 * Metropolis decision drawn from it.
 *
 * The same Philox4x32-10 blocks and the same derived draws as libmcf's mcf_rng_u32, _u64,
 * _uniform and _uniform_pos, written as inline functions that compile as C on the host and
 * as CUDA on both sides (__host__ __device__), on the mcf_rng state itself.  A GPU plugin
 * copies a chain's state to the device, draws there exactly what the host would have
 * drawn, and copies the advanced state back: host and device then make the same
 * decisions from the same numbers.  mcf_metropolis_accept is the rule the core's sweep
 * applies to every proposed move (core/engine/sweep.c calls it), one definition for both.
 *
 * Self-contained: building a plugin needs no Random123.  tests/unit/test_rng_device.c ties
 * it to libmcf's streams bit for bit, tests/gpu/test_rng_device_cuda.cu to the device.
 * (A decision can still differ between host and device where exp() rounds differently,
 * i.e. when the uniform falls within an ulp of e^log_ratio: ~1e-16 a move.) */
#ifndef MCF_RNG_DEVICE_H
#define MCF_RNG_DEVICE_H

#include "mcf/api.h"

#include <math.h>
#include <stdint.h>

#include "mcf/rng.h"

#ifdef __CUDACC__
#define MCF_HD __host__ __device__
#else
#define MCF_HD
#endif

/* Philox4x32-10 (Salmon et al., SC'11): 10 rounds of two 32 x 32 -> 64 bit products,
 * the key bumped by the Weyl constants between rounds. */
static inline MCF_HD void mcf_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                            uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
        const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The next 32-bit word of the stream (mcf_rng_u32). */
static inline MCF_HD uint32_t mcf_rng_hd_u32(mcf_rng *rng)
{
    if (rng->used >= 4) {
        const uint32_t ctr[4] = {(uint32_t)(rng->counter & 0xffffffffu),
                                 (uint32_t)(rng->counter >> 32),
                                 (uint32_t)(rng->stream & 0xffffffffu),
                                 (uint32_t)(rng->stream >> 32)};
        mcf_philox4x32_10(ctr, rng->key, rng->buffer);
        rng->counter++;
        rng->used = 0;
    }
    return rng->buffer[rng->used++];
}

/* mcf_rng_u64: (first word << 32) | second word */
static inline MCF_HD uint64_t mcf_rng_hd_u64(mcf_rng *rng)
{
    const uint64_t hi = mcf_rng_hd_u32(rng);
    const uint64_t lo = mcf_rng_hd_u32(rng);
    return (hi << 32) | lo;
}

/* mcf_rng_uniform: [0, 1), 53 bits */
static inline MCF_HD double mcf_rng_hd_uniform(mcf_rng *rng)
{
    return (double)(mcf_rng_hd_u64(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* mcf_rng_uniform_pos: (0, 1) */
static inline MCF_HD double mcf_rng_hd_uniform_pos(mcf_rng *rng)
{
    return ((double)(mcf_rng_hd_u64(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* The Metropolis decision for a move of log acceptance ratio log_ratio: accepted when
 * log_ratio >= 0 (no draw), else when a uniform from the stream is below e^log_ratio. */
static inline MCF_HD int mcf_metropolis_accept(mcf_rng *rng, double log_ratio)
{
    return log_ratio >= 0.0 || mcf_rng_hd_uniform(rng) < exp(log_ratio);
}

#endif
