/* equilibration.h — what a finished run's accumulators say about the trust one may place in
 * its numbers (equilibration.c; internal): errors that did not reach a plateau, chains
 * whose measured series drifts, walkers of one scan point that disagree. */
#ifndef MCF_EQUILIBRATION_H
#define MCF_EQUILIBRATION_H

#include "run_state.h"

/* Thresholds, as two-sided tail probabilities of one test under equilibrium: small enough
 * that a run of a few hundred (chain, observable) pairs in equilibrium is flagged about
 * once in a thousand runs. */
#define MCFI_DRIFT_P 1e-5
#define MCFI_AGREE_P 1e-5

/* A drift between the start and the end of a chain's measured series: the mean of its
 * first fifth of measurements against that of its last half, from the jackknife bins (time
 * ordered), in units of the standard error that the bins' scatter within the two parts
 * gives (Student's t with n_first + n_last - 2 degrees of freedom).  Fills *t and *p (two
 * sided) and returns 1 when there are enough bins (at least 2 in the first part, 4 in
 * all); 0 otherwise.  means_first / means_last: the two parts' means. */
int mcfi_drift_test(const double *bin_sum, const double *bin_count, size_t bins,
                    size_t nvars, size_t var, double *t, double *p, double *mean_first,
                    double *mean_last);

/* The agreement of R independent estimates (mean +- error): chi^2 about their weighted
 * mean with R - 1 degrees of freedom; fills *chi2 and *p (the probability of a chi^2 at
 * least this large) and returns 1 when R >= 2 and every error is finite and > 0 (or all
 * means are equal); 0 otherwise. */
int mcfi_agreement_test(const double *mean, const double *error, size_t R, double *chi2,
                        double *p);

/* The checks of a finished run: detail lines ("# warning: ...", one per finding) into
 * *details (results.tsv and the log), and at most one line per kind of finding into *summary
 * (the terminal).  Returns MCF_OK or MCF_ENOMEM. */
int mcfi_equilibration_report(const mcf_run *r, mcf_text *details, mcf_text *summary);

#endif
