/* test_rng_device.c — mcf/rng_device.h (a chain's stream continued in device code, compiled
 * here as C) against libmcf's mcf_rng, bit for bit:
 *   (a) its Philox4x32-10 against Random123's philox4x32 on 10^5 counters and keys;
 *   (b) 10^5 draws of every kind (u32, u64, uniform, uniform_pos, interleaved at random, so
 *       that draws straddle the 4-word blocks) from a copy of a stream against libmcf's
 *       draws from the original: same values and, at the end, the same state;
 *   (c) mcf_metropolis_accept: the same decisions as the rule written out with libmcf's
 *       uniform (log ratios from -30 to 1), a draw only for log ratios below 0. */
#include <stdio.h>
#include <string.h>

#include <Random123/philox.h>

#include "check.h"
#include "mcf/rng_device.h"

int main(void)
{
    mcf_rng src;
    mcf_rng_init(&src, 20261124, 3);
    /* (a) */
    int same = 1;
    for (int q = 0; q < 100000; q++) {
        philox4x32_ctr_t c;
        philox4x32_key_t k;
        uint32_t ctr[4], key[2], out[4];
        for (int i = 0; i < 4; i++)
            c.v[i] = ctr[i] = mcf_rng_u32(&src);
        for (int i = 0; i < 2; i++)
            k.v[i] = key[i] = mcf_rng_u32(&src);
        const philox4x32_ctr_t r = philox4x32(c, k);
        mcf_philox4x32_10(ctr, key, out);
        for (int i = 0; i < 4; i++)
            same &= out[i] == (uint32_t)r.v[i];
    }
    CHECK(same, "(a) mcf_philox4x32_10 differs from Random123's philox4x32");
    printf("(a) Philox4x32-10 = Random123 on 100000 counters and keys: %s\n", same ? "yes" : "NO");

    /* (b) */
    mcf_rng a, b;
    mcf_rng_init(&a, UINT64_C(0x123456789abcdef), 17);
    b = a;
    int draws_same = 1;
    for (int q = 0; q < 100000; q++) {
        switch (mcf_rng_below(&src, 4)) {
        case 0: draws_same &= mcf_rng_u32(&a) == mcf_rng_hd_u32(&b); break;
        case 1: draws_same &= mcf_rng_u64(&a) == mcf_rng_hd_u64(&b); break;
        case 2: draws_same &= mcf_rng_uniform(&a) == mcf_rng_hd_uniform(&b); break;
        default: draws_same &= mcf_rng_uniform_pos(&a) == mcf_rng_hd_uniform_pos(&b); break;
        }
    }
    CHECK(draws_same, "(b) a draw of rng_device.h differs from libmcf's");
    CHECK(!memcmp(&a, &b, sizeof a), "(b) the states differ after the same draws");
    printf("(b) 100000 mixed draws: the same values and the same final state: %s\n",
           draws_same && !memcmp(&a, &b, sizeof a) ? "yes" : "NO");

    /* (c) */
    mcf_rng_init(&a, 99, 0);
    b = a;
    int dec_same = 1, accepted = 0;
    for (int q = 0; q < 100000; q++) {
        const double lr = -30.0 + 31.0 * mcf_rng_uniform(&src);
        const int want = lr >= 0 || mcf_rng_uniform(&a) < exp(lr);
        const int got = mcf_metropolis_accept(&b, lr);
        dec_same &= want == got;
        accepted += got;
    }
    CHECK(dec_same && !memcmp(&a, &b, sizeof a), "(c) mcf_metropolis_accept decided otherwise");
    printf("(c) 100000 decisions (%d accepted) the same as the rule with libmcf's uniform: %s\n",
           accepted, dec_same ? "yes" : "NO");
    return check_exit();
}
