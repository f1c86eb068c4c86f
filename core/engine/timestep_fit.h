/* timestep_fit.h — [run] method = dmc with a list of time steps (timestep_fit.c; internal):
 * the energy extrapolated to tau = 0 for every combination of the other scan columns. */
#ifndef MCF_TIMESTEP_FIT_H
#define MCF_TIMESTEP_FIT_H

#include "results_table.h"
#include "run_state.h"

/* One fit of E_i +- s_i at time steps tau_i (n >= 2): weighted least squares of the line
 * E0 + a tau (e0, its error, the slope and its error, chi2 / (n - 2) and the probability
 * of a chi2 at least as large, NaN for n = 2) and, for n >= 3, of the parabola E0 + a tau +
 * b tau^2 (q0 and its error; NaN for n = 2).  Errors from the fits' covariance (the
 * weights 1 / s_i^2 as given, not rescaled by chi2).  Every s_i zero to rounding (at most
 * 64 machine epsilons of the largest |E_i|: an exact energy, no variance): E0 the energies'
 * mean when they agree to the same rounding, its errors 0; else, or with an error that is
 * not a positive finite number, returns MCF_EINVAL with the reason in why (cap bytes) and
 * the results NaN. */
typedef struct mcfi_timestep_line {
    double e0, e0_err, slope, slope_err, chi2_dof, p_value, q0, q0_err;
} mcfi_timestep_line;
int mcfi_timestep_fit(const double *tau, const double *e, const double *err, size_t n,
                      mcfi_timestep_line *out, char *why, size_t cap);

/* The fits as a table (timestep.tsv's columns: the other scan columns, then timesteps,
 * <energy>_0, _err, slope, slope_err, chi2_dof, p_value, <energy>_0_quadratic, _err), one
 * row per combination of the other scan columns, from results.tsv's table tab; an empty
 * table without a time-step axis or an ENERGY observable.  sum and warn (both or neither
 * may be NULL) get mcfi_timestep_report's lines.  MCF_ENOMEM. */
int mcfi_timestep_table(const mcf_run *r, const mcfi_table *tab, mcfi_table *out,
                        mcf_text *sum, mcf_text *warn);

/* With a time-step axis (mcfi_timestep_axis >= 0) and an ENERGY observable: DIR/timestep.tsv
 * (one row per combination of the other scan columns: E0 with its error, the slope, chi2/dof
 * and its probability, the parabola's E0), a line per row into sum (the terminal's summary)
 * and a "# warning:" line into warn (and "warning:" into sum) for a fit that cannot be
 * trusted (chi2 probability below 0.01: the line does not describe the energies; or no
 * fit).  Nothing without the axis.
 * Errors: writing the file (MCF_EIO), MCF_ENOMEM. */
int mcfi_timestep_report(const mcf_run *r, const mcfi_table *tab, mcf_text *sum,
                         mcf_text *warn);

#endif
