/* linear_method.h — the linear method of wave-function optimization (internal to libmcf).
 *
 * Umrigar, Toulouse, Filippi, Sorella & Hennig, Phys. Rev. Lett. 98, 110201 (2007);
 * Toulouse & Umrigar, J. Chem. Phys. 126, 084102 (2007).  A variational Monte Carlo driver
 * samples configurations x from |psi(x; p)|^2 and hands, per sample, the local energy
 * E_L(x), the log-derivatives O_i(x) = d ln psi / d p_i and the derivatives of the local
 * energy dE_L/dp_i (i = 1..P).  This module accumulates the sums the method needs and
 * solves for the parameter change dp; linear_method.c's header comment has the formulas.
 *
 * Per sample (weight w, 1 for an ordinary sample) with
 *     a = (1, O_1, ..., O_P)
 *     b = (E_L, dE_L/dp_1 + E_L O_1, ..., dE_L/dp_P + E_L O_P)
 * (b_i is the local value (H psi_i)(x) / psi(x) of psi_i = d psi / d p_i, b_0 that of psi)
 * the sums are  aa += w a a^T,  ab += w a b^T,  bb += w b b^T,  count += w.
 * They are plain sums, so sums of disjoint sample sets (threads, MPI ranks, blocks) merge
 * by addition. */
#ifndef MCF_LINEAR_METHOD_H
#define MCF_LINEAR_METHOD_H

#include <stddef.h>

/* An eigenvector of the linear-space problem is acceptable only if its component along
 * the current wave function psi_0, c0 = |<psi_0|psi_lin>| / (|psi_0| |psi_lin|), is at
 * least this (see mcfi_lm_solve). */
#define MCFI_LM_MIN_C0 1e-3

typedef struct mcfi_lm_sums {
    size_t P;             /* parameters */
    double count;         /* samples added (sum of the weights) */
    double *aa, *ab, *bb; /* (P+1) x (P+1) row-major sums of a a^T, a b^T, b b^T */
} mcfi_lm_sums;

/* Allocates the sums for P >= 1 parameters, all zero.  Returns MCF_OK; MCF_EINVAL for
 * P = 0 (nothing to optimize) or a P whose matrices cannot be addressed; MCF_ENOMEM.
 * On failure *s is left empty (mcfi_lm_sums_free on it is harmless). */
int mcfi_lm_sums_init(mcfi_lm_sums *s, size_t P);

/* Frees the matrices and leaves *s empty (P = 0, NULL pointers).  NULL is accepted. */
void mcfi_lm_sums_free(mcfi_lm_sums *s);

/* Sets count and all sums to zero (keeps P and the memory): the start of a new
 * optimization step. */
void mcfi_lm_sums_clear(mcfi_lm_sums *s);

/* Adds one sample: e_local = E_L(x), dlogpsi[i] = O_{i+1}(x) = d ln psi / d p_{i+1} and
 * de_local[i] = dE_L/dp_{i+1} at x, i = 0..P-1.  Same as mcfi_lm_add_weighted with w = 1. */
void mcfi_lm_add(mcfi_lm_sums *s, double e_local, const double *dlogpsi,
                 const double *de_local);

/* Adds one sample of weight w (count += w, each sum += w times the sample's product):
 * for reweighted samples, or for exact averages over a discrete space (w proportional to
 * |psi(x)|^2).  Only the ratios of weights enter the means; the total weight is what
 * mcfi_lm_solve compares with 2, so scale exact weights to sum to the number of states. */
void mcfi_lm_add_weighted(mcfi_lm_sums *s, double w, double e_local, const double *dlogpsi,
                          const double *de_local);

/* into += from, entry by entry (count too).  Both must have the same P (a mismatch is a
 * bug of the caller: into is then left unchanged). */
void mcfi_lm_merge(mcfi_lm_sums *into, const mcfi_lm_sums *from);

typedef enum { MCFI_LM_ENERGY = 0, MCFI_LM_VARIANCE = 1 } mcfi_lm_target;

typedef struct mcfi_lm_options {
    mcfi_lm_target target; /* what to minimize: the energy, or the variance of E_L */
    double shift;          /* a_diag >= 0 added to the diagonal of the parameter block
                              (i, j >= 1) of the matrix being minimized: shortens the step */
    double xi;             /* normalization of the update in [0, 1] (Toulouse-Umrigar xi;
                              0.5 recommended); see linear_method.c */
} mcfi_lm_options;

typedef struct mcfi_lm_result {
    double energy, variance; /* <E_L> and <E_L^2> - <E_L>^2 of the sums */
    double predicted;        /* the chosen eigenvalue: the energy (target energy) or the
                                variance about the current <E_L> (target variance) of the
                                best wave function in the linear space, shift included */
    double c0;               /* |weight of psi_0| in the S-normalized eigenvector,
                                = 1 / sqrt(1 + dpbar^T S dpbar) in (0, 1]: small = a large,
                                unreliable step (raise the shift) */
    double norm;             /* |dp| (Euclidean) */
} mcfi_lm_result;

/* Solves the linear method's generalized eigenproblem for the sums s and writes the
 * parameter change to dp[0..P-1] (the new parameters are p + dp) and, where res is not
 * NULL, the numbers of *res.  The eigenvector taken is the one of the lowest real
 * eigenvalue among those with c0 >= MCFI_LM_MIN_C0 (linear_method.c says why).
 * Returns MCF_OK, or MCF_EINVAL (dp untouched) with a message when: count < 2; the options
 * are out of range; a sum is not finite; the overlap matrix S is singular or indefinite
 * (a parameter whose O_i does not vary over the samples, named by its index in dlogpsi, or
 * parameters whose O_i are linearly dependent); no eigenvalue is acceptable.  MCF_ENOMEM;
 * MCF_EINTERNAL if GSL's eigensolver fails.  On failure the fields of *res not yet known
 * are NaN (energy and variance are set once the sums have passed the first checks). */
int mcfi_lm_solve(const mcfi_lm_sums *s, const mcfi_lm_options *o, double *dp,
                  mcfi_lm_result *res);

#endif
