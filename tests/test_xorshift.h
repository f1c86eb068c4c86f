/* test_xorshift.h — a small deterministic generator for tests that make synthetic data
 * (Marsaglia's xorshift64 and Box-Muller): test_xorshift_uniform in (0, 1), test_xorshift_gauss
 * of unit variance, from a state the test seeds.  Not the library's mcf_rng: these tests
 * only need reproducible numbers, not its streams. */
#ifndef MCF_TEST_XORSHIFT_H
#define MCF_TEST_XORSHIFT_H

#include <math.h>

static inline double test_xorshift_uniform(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
}

static inline double test_xorshift_gauss(unsigned long long *state)
{
    const double u = test_xorshift_uniform(state);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * test_xorshift_uniform(state));
}

#endif
