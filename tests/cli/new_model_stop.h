/* new_model_stop.h — for test_new_model.sh only: force-included (-include) into a second
 * build of a skeleton written by `mcf new-model`, it routes the skeleton's mcf_rng_below
 * calls (one per proposal) through a counter that sends the process SIGTERM at call
 * MCF_TEST_STOP_AFTER (environment; unset or 0: never), once: a run stopped mid-way at a
 * place the test chooses, to be resumed.  With one thread the count, and so the sweep, is
 * the same every time.  The wrapper is defined before the macro; mcf/rng.h's include guard
 * keeps the skeleton's own include from declaring the function again under its name. */
#ifndef MCF_TEST_NEW_MODEL_STOP_H
#define MCF_TEST_NEW_MODEL_STOP_H

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "mcf/rng.h"

static inline uint64_t mcf_test_stop_below(mcf_rng *rng, uint64_t n)
{
    static long calls = 0, after = -1;
    if (after < 0) {
        const char *e = getenv("MCF_TEST_STOP_AFTER");
        after = e ? atol(e) : 0;
    }
    if (after > 0 && ++calls == after)
        raise(SIGTERM);
    return mcf_rng_below(rng, n);
}

#define mcf_rng_below mcf_test_stop_below

#endif
