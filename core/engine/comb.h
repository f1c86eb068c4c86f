/* comb.h — systematic resampling ("the comb") of a population of weighted walkers: the
 * branching step of a fixed-size population in diffusion Monte Carlo (issue 46; the plan in
 * docs/architecture.md).  No physics: weights in, copies out.
 *
 * M walkers with weights w_k >= 0 (sum W > 0) become M walkers of equal weight: with one
 * uniform u in [0, 1), the M teeth t_j = (j + u) / M, j = 0 .. M-1, fall on the cumulative
 * weights, and walker k is copied n_k times, the teeth in [S_k, S_{k+1}) with
 * S_k = sum_{i<k} w_i / W.  So E[n_k] = M w_k / W over u (the comb is unbiased), n_k is
 * floor(M w_k / W) or its ceiling (the least noise any unbiased scheme adds), and
 * sum n_k = M exactly (the last boundary is M, not a rounded sum).
 *
 * The copies are placed so that as few configurations as possible move: a walker with
 * n_k >= 1 keeps its own slot (from[k] = k), and the extra copies of walkers with n_k >= 2,
 * in increasing k, fill the slots of the walkers with n_k = 0 in increasing slot order.
 * Slot d then takes the configuration of walker from[d] (from[d] == d: nothing to do). */
#ifndef MCF_ENGINE_COMB_H
#define MCF_ENGINE_COMB_H

#include <stddef.h>

/* The comb of the M weights w with the uniform u: copies[k] = n_k (may be NULL) and
 * from[d] for every slot d (both M entries, the caller's).  MCF_OK; MCF_EINVAL with a
 * message naming the walker for a weight that is negative, NaN or infinite, for weights
 * that are all zero or sum to infinity, for u outside [0, 1), and for M = 0. */
int mcfi_comb(const double *w, size_t M, double u, size_t *copies, size_t *from);

#endif
