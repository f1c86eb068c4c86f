/* comb.c — systematic resampling of weighted walkers (see comb.h). */
#include "comb.h"

#include "mcf/error.h"

#include <math.h>

/* The teeth below boundary x (in units of 1/M: x = M S_k): those j in [0, M) with
 * j + u < x, i.e. ceil(x - u) clamped to [0, M]. */
static size_t teeth_below(double x, double u, size_t M)
{
    const double c = ceil(x - u);
    return c <= 0.0 ? 0 : c >= (double)M ? M : (size_t)c;
}

/* n_k, walker k's copies, walking the boundaries in order: *S the weights so far, *below
 * the teeth below the previous boundary (both updated).  Monotone, so n_k >= 0, and the last
 * boundary is M, so the counts add up to M whatever the rounding of the sums. */
static size_t copies_of(const double *w, size_t k, size_t M, double scale, double u, double *S,
                        size_t *below)
{
    *S += w[k];
    const size_t next = k + 1 == M ? M : teeth_below(*S * scale, u, M);
    const size_t n = next > *below ? next - *below : 0;
    *below = next > *below ? next : *below;
    return n;
}

int mcfi_comb(const double *w, size_t M, double u, size_t *copies, size_t *from)
{
    if (M == 0)
        return mcf_fail(MCF_EINVAL, "comb: an empty population");
    if (!(u >= 0.0 && u < 1.0))
        return mcf_fail(MCF_EINVAL, "comb: the uniform %g is not in [0, 1)", u);
    double W = 0.0;
    for (size_t k = 0; k < M; k++) {
        if (!(w[k] >= 0.0) || !isfinite(w[k]))
            return mcf_fail(MCF_EINVAL, "comb: walker %zu has weight %g (a weight must be "
                            "finite and >= 0)", k, w[k]);
        W += w[k];
    }
    if (!(W > 0.0) || !isfinite(W))
        return mcf_fail(MCF_EINVAL, "comb: the %zu weights sum to %g (all zero, or too large "
                        "to add)", M, W);
    /* n_k from the teeth below consecutive boundaries */
    const double scale = (double)M / W;
    double S = 0.0;
    size_t below = 0, empty = 0;
    for (size_t k = 0; k < M; k++) {
        const size_t n = copies_of(w, k, M, scale, u, &S, &below);
        if (copies)
            copies[k] = n;
        from[k] = n ? k : M; /* M: an empty slot, filled below */
        empty += n == 0;
    }
    /* the extra copies into the empty slots, both in increasing order (the counts again:
     * copies may be NULL) */
    size_t slot = 0;
    S = 0.0;
    below = 0;
    for (size_t k = 0; k < M && empty; k++) {
        size_t n = copies_of(w, k, M, scale, u, &S, &below);
        for (; n > 1 && empty; n--, empty--) {
            while (from[slot] != M)
                slot++;
            from[slot] = k;
        }
    }
    return MCF_OK;
}
