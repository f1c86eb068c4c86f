/* test_checkpoint_trust.c — what the checkpoint reader's checks rely on (issue 17):
 *  - mcfi_blocking_consistent() accepts every accumulator that mcfi_blocking_add() can
 *    build (else a valid checkpoint would be refused) and refuses one whose count, level
 *    counts or pending flags were changed (test_bad_checkpoint.sh does this on real files);
 *  - the checksum's start value is the one every checkpoint since mcf 0.1 was summed from
 *    (FNV-1a's offset basis without its last digit): changing it would refuse them all. */
#include "check.h"

#include "fileio.h"
#include "mcf/rng.h"
#include "stats.h"

#include <string.h>

int main(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 17, 0);
    mcf_blocking b;
    mcfi_blocking_init(&b);
    int all = 1;
    for (uint64_t n = 0; n <= 5000; n++) {
        if (n)
            mcfi_blocking_add(&b, mcf_rng_normal(&rng));
        all = all && mcfi_blocking_consistent(&b);
    }
    CHECK(all, "an accumulator built by mcfi_blocking_add is refused");

    /* one change at a time to the accumulator of 5000 values */
    mcf_blocking t = b;
    t.count++;
    CHECK(!mcfi_blocking_consistent(&t), "count + 1 accepted");
    t = b;
    t.n[3]--;
    CHECK(!mcfi_blocking_consistent(&t), "n[3] - 1 accepted");
    t = b;
    t.n[MCF_BLOCK_LEVELS - 1] = 1;
    CHECK(!mcfi_blocking_consistent(&t), "a block at the last level accepted");
    t = b;
    t.has_pending[0] ^= 1;
    CHECK(!mcfi_blocking_consistent(&t), "a flipped pending flag accepted");
    t = b;
    t.has_pending[5] = 2;
    CHECK(!mcfi_blocking_consistent(&t), "a pending flag of 2 accepted");

    /* a long series: the levels' counts are the count shifted, as far as 48 levels go */
    memset(&t, 0, sizeof t);
    t.count = (1ull << 50) + 12345;
    for (int k = 0; k < MCF_BLOCK_LEVELS; k++) {
        t.n[k] = t.count >> k;
        t.has_pending[k] = (uint8_t)(t.n[k] & 1u);
    }
    CHECK(mcfi_blocking_consistent(&t), "the accumulator of 2^50 + 12345 values refused");

    /* the sum of the magic, from that start value (python: h = (h ^ byte) * 1099511628211
       mod 2^64 for each byte) */
    CHECK(MCF_FNV_OFFSET == 1469598103934665603ull &&
              mcfi_fnv1a64("MCF-CKPT", 8, MCF_FNV_OFFSET) == 0x3b6a0d02eef601c8ull,
          "the checksum's start value changed: every existing checkpoint would be refused");
    return check_exit();
}
