/* stats.h — statistics of Monte Carlo time series (internal to libmcf).
 *
 * mcf_blocking: online Flyvbjerg–Petersen blocking analysis (J. Chem. Phys. 91, 461
 * (1989)).  Values are added one at a time; level k holds the means of consecutive pairs
 * of level k-1, so memory is O(levels) whatever the length of the series.  The struct is
 * plain data of fixed-width fields: the core checkpoints it byte for byte, so a resumed
 * run continues with exactly the same sums.
 *
 * mcfi_jackknife: error of a nonlinear function of several means, from bins.
 * mcfi_block_factor: what correlated bins miss of a variance. */
#ifndef MCF_STATS_H
#define MCF_STATS_H

#include "mcf_engine.h"

#include <stddef.h>
#include <stdint.h>

#define MCF_BLOCK_LEVELS 48

typedef struct mcf_blocking {
    double shift;                     /* first value: all sums are of (x - shift) */
    uint64_t count;                   /* values added */
    uint64_t n[MCF_BLOCK_LEVELS];     /* blocks completed at level k */
    double sum[MCF_BLOCK_LEVELS];     /* sum of (block mean - shift) at level k */
    double sumsq[MCF_BLOCK_LEVELS];   /* sum of (block mean - shift)^2 at level k */
    double pending[MCF_BLOCK_LEVELS]; /* a block waiting for its partner at level k */
    uint8_t has_pending[MCF_BLOCK_LEVELS];
} mcf_blocking;

typedef struct mcf_estimate {
    double mean;         /* sample mean */
    double error;        /* standard error of the mean from the blocking plateau, corrected
                            for the finite length of its blocks (stats.c) */
    double naive_error;  /* level 0 error, as if uncorrelated */
    double tau;          /* integrated autocorrelation time in units of the series step,
                            tau = error^2 / (2 naive_error^2); 0.5 for uncorrelated data */
    int level;           /* blocking level the error was taken from */
    int converged;       /* 1 if a plateau was found with enough blocks, 0 = do not trust */
    int lower_bound;     /* 1 if even the longest usable blocks are shorter than tau: the
                            error (and tau) are only lower bounds (converged is 0 then) */
    uint64_t count;      /* number of values */
} mcf_estimate;

/* Resets b to the empty series. */
void mcfi_blocking_init(mcf_blocking *b);

/* Adds one value.  Non-finite values are added like any other (and poison the mean, which
 * is then reported as NaN: the model has a bug worth seeing). */
void mcfi_blocking_add(mcf_blocking *b, double x);

/* 1 when b's counts are those of a series of b->count values (n[k] = count >> k blocks at
 * level k, one pending exactly when that is odd), 0 otherwise: what a copy read back from
 * a checkpoint must satisfy before values are added to it. */
int mcfi_blocking_consistent(const mcf_blocking *b);

/* Fills *e from b.  With fewer than 2 values: mean as far as defined, error NaN,
 * converged 0. */
void mcfi_blocking_estimate(const mcf_blocking *b, mcf_estimate *e);

/* F = Var(mean) / E[naive variance of the mean from the scatter of the block means] for
 * n_blocks consecutive blocks of `block` values of a series whose autocorrelation is
 * exponential with integrated time tau (in values; AR(1), stats.c): the factor by which
 * an error from blocks (jackknife bins) that are not much longer than tau must be scaled
 * in variance, sqrt(F) in error.  1 for tau <= 1/2; about 1 + tau / block otherwise. */
double mcfi_block_factor(double tau, double block, double n_blocks);


/* Jackknife of f over bins.  bin_means is nbins x nvars (row per bin, the mean of each
 * variable within the bin), bin_weights[b] the number of measurements in bin b (> 0).
 * f maps nvars means to a value (ctx passed through).  Writes the bias-corrected
 * jackknife estimate to *value and its error to *error.  bin_weights may be NULL (equal
 * weights).  Returns MCF_OK; MCF_EINVAL if nbins < 2 (then *value = f(all) and
 * *error = NaN); MCF_ENOMEM if scratch memory cannot be had. */
typedef double (*mcf_jackknife_fn)(const double *means, void *ctx);
int mcfi_jackknife(const double *bin_means, const double *bin_weights, size_t nbins,
                   size_t nvars, mcf_jackknife_fn f, void *ctx, double *value,
                   double *error);


#endif
