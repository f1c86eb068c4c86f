/* calibration.h — the statistics of the error-bar calibration tests, shared by
 * test_error_calibration.c (Ising 8 x 8, transfer matrix) and test_error_calibration_fk.c
 * (Falicov-Kimball 4 x 4 with ed, enumeration).  Over n independent runs of one setting,
 * per column with an error bar: d = x - exact, z = d / err, and
 *   bias:  |mean(d)| <= k sd(d) / sqrt(n);
 *   Q = sum d^2 / sum err^2, 1 for an unbiased variance estimate whatever the distribution
 *          of x and err, its standard error by the delta method sd(d^2 - Q err^2) /
 *          (sqrt(n) mean(err^2)): 1 - k s_Q <= Q <= 1 + 4 tau / N + k s_Q (the convexity
 *          allowance of the finite-block correction, the jackknife's too: it is scaled by
 *          sqrt(F_J), results_table.c);
 *   <z^2> within k standard errors of Student's t_31 (E z^2 = 31/29), only where the runs
 *          hold >= 1000 tau.
 * k = 4.  test_error_calibration.c's header comment derives each. Include after
 * physics_util.h. */
#ifndef MCF_CALIBRATION_H
#define MCF_CALIBRATION_H

#include "stats.h"

#define CAL_KSIG 4.0
#define CAL_NU 31.0 /* >= 32 blocks or jackknife bins */

/* sums over the runs of one column: d = x - exact, e = err, z = d / e */
typedef struct cal_tally {
    double n, d, d2, d4, e2, e4, d2e2, z, z2, z4;
} cal_tally;

static inline void cal_tally_add(cal_tally *t, double d, double err)
{
    const double z = d / err, d2 = d * d, e2 = err * err;
    t->n += 1;
    t->d += d;
    t->d2 += d2;
    t->d4 += d2 * d2;
    t->e2 += e2;
    t->e4 += e2 * e2;
    t->d2e2 += d2 * e2;
    t->z += z;
    t->z2 += z * z;
    t->z4 += z * z * z * z;
}

/* one column's outcome, for the summary tables of docs/methods.md */
typedef struct cal_row {
    double mz, sz, mz2, sz2; /* <z> and <z^2> with their standard errors */
    double q, sq, qhi;       /* Q, s_Q and the upper end of E Q */
    double fj;               /* the unscaled jackknife's deficit F_J (NAN for blocking) */
    double bias;             /* mean(d) in standard errors */
} cal_row;

/* the header of the rows cal_evaluate prints */
static inline void cal_print_header(int z2_checked)
{
    printf("  %-15s %7s %6s %7s %6s %15s %7s %6s %15s %8s\n", "column", "<z>", "+-", "<z^2>",
           "+-", z2_checked ? "t: allowed" : "t: E z^2", "Q", "+-", "Q allowed", "bias/se");
}

/* Column `name` of a setting (`where` names it in messages) from its tally: N measurements
 * (sweeps) a run, tau (sweeps) of the observables behind the column; a jackknife column
 * of 32 bins also gets F_J.  Prints a row; asserts bias, Q and (z2_checked) <z^2> when
 * assert_it. */
static inline void cal_evaluate(const cal_tally *a, const char *name, const char *where,
                                double tau, double N, int jackknife, int assert_it,
                                int z2_checked, cal_row *out)
{
    const double nu = CAL_NU, e_t = nu / (nu - 2);
    const double var_t = nu * nu * (2 * nu - 2) / ((nu - 2) * (nu - 2) * (nu - 4));
    const double n = a->n, mz = a->z / n, mz2 = a->z2 / n;
    const double md = a->d / n, sdd = sqrt(fmax(a->d2 / n - md * md, 0.0));
    const double Q = a->d2 / a->e2, me2 = a->e2 / n;
    const double vq = a->d4 / n - 2 * Q * a->d2e2 / n + Q * Q * a->e4 / n;
    const double sq = sqrt(fmax(vq, 0.0) / n) / me2;
    const double qhi = 1 + 4 * tau / N, st = sqrt(var_t / n);
    out->mz = mz;
    out->sz = sqrt(mz2 / n);
    out->mz2 = mz2;
    out->sz2 = sqrt(fmax(a->z4 / n - mz2 * mz2, 0.0) / n);
    out->q = Q;
    out->sq = sq;
    out->qhi = qhi;
    out->fj = jackknife ? mcfi_block_factor(tau, N / 32.0, 32) : NAN;
    out->bias = md / (sdd / sqrt(n));
    char tw[32], qw[32];
    if (z2_checked)
        snprintf(tw, sizeof tw, "%.3f..%.3f", 1 - CAL_KSIG * st, e_t + CAL_KSIG * st);
    else
        snprintf(tw, sizeof tw, "%.3f", e_t);
    snprintf(qw, sizeof qw, "%.3f..%.3f", 1 - CAL_KSIG * sq, qhi + CAL_KSIG * sq);
    printf("  %-15s %+7.3f %6.3f %7.3f %6.3f %15s %7.3f %6.3f %15s %+8.2f\n", name, mz,
           out->sz, mz2, out->sz2, tw, Q, sq, qw, out->bias);
    if (!assert_it)
        return;
    CHECK(fabs(md) <= CAL_KSIG * sdd / sqrt(n),
          "%s: %s is biased: mean deviation %.3g, %.2f standard errors", where, name, md,
          out->bias);
    CHECK(Q >= 1 - CAL_KSIG * sq && Q <= qhi + CAL_KSIG * sq,
          "%s: %s: sum d^2 / sum err^2 = %.3f +- %.3f, allowed %s (the error bars are %s)",
          where, name, Q, sq, qw, Q > 1 ? "too small" : "too large");
    if (z2_checked)
        CHECK(mz2 >= 1 - CAL_KSIG * st && mz2 <= e_t + CAL_KSIG * st,
              "%s: %s: <z^2> = %.3f, allowed %s", where, name, mz2, tw);
}

/* Every column of a setting: the header, then cal_evaluate for columns 0 .. nq - 1, of
 * which the first n_blocking have blocking errors and the rest jackknife errors. */
static inline void cal_evaluate_all(const cal_tally *tl, const char *const *names, int nq,
                                    int n_blocking, const char *where, const double *tau,
                                    double N, int assert_it, int z2_checked, cal_row *out)
{
    cal_print_header(z2_checked);
    for (int q = 0; q < nq; q++)
        cal_evaluate(&tl[q], names[q], where, tau[q], N, q >= n_blocking, assert_it,
                     z2_checked, &out[q]);
}

/* The cells of a summary row of docs/methods.md from the column on (the caller prints the
 * setting's cells before): column, <z>, <z^2>, E z^2, Q, E Q, F_J (blank for blocking),
 * bias/se; and the line's end. */
static inline void cal_print_cells(const char *name, const cal_row *c, int z2_checked)
{
    char fj[32] = "";
    if (!isnan(c->fj))
        snprintf(fj, sizeof fj, "%.3f", c->fj);
    printf(" %s | %+.3f(%.0f) | %.3f(%.0f) | %.3f%s | %.3f(%.0f) | 1..%.3f | %s | %+.1f |\n",
           name, c->mz, 1000 * c->sz, c->mz2, 1000 * c->sz2, CAL_NU / (CAL_NU - 2),
           z2_checked ? " (checked)" : "", c->q, 1000 * c->sq, c->qhi, fj, c->bias);
}

#endif
