/* tc_report.c — what `mcf tc` finds from the reweighted curves (tc.h): DIR/tc-curves.tsv;
 * per quantity (Binder cumulant, xi/L) the crossing T*(L1, L2) of successive sizes and
 * nu = ln(L2/L1) / ln(S2/S1) from the slopes S = dQ/dT there (dQ/dT ~ L^(1/nu) at T_c);
 * T_c from T*(L1) = T_c + a L1^-(1/nu + omega) (two parameters: exact for two crossings, a
 * weighted least-squares line in L1^-x for more; one crossing is T_c itself, said so);
 * every number with the jackknife error of the same computation repeated on each
 * jackknife sample of the series; then --fixed's rows (tc_fixed.c) in the same tc.tsv. */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include "mcf/error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const quantity_name[2] = {"binder", "xi_over_l"};

double tc_jack_error(const double *x, size_t blocks)
{
    double mean = 0, var = 0;
    for (size_t j = 1; j <= blocks; j++)
        mean += x[j] / (double)blocks;
    for (size_t j = 1; j <= blocks; j++)
        var += (x[j] - mean) * (x[j] - mean);
    return sqrt(var * (double)(blocks - 1) / (double)blocks);
}

int tc_write_curves(const tc_run *t)
{
    const size_t J = t->blocks + 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/tc-curves.tsv", t->dir);
    FILE *f = fopen(path, "w");
    double *v = malloc(3 * J * sizeof *v);
    if (!f || !v) {
        free(v);
        if (f)
            fclose(f);
        return mcf_fail(MCF_EIO, "%s: cannot write (%s)", path, strerror(errno));
    }
    fprintf(f, "# mcf tc: multi-histogram reweighting of each size's series over its "
            "temperatures; errors: jackknife over %zu blocks (%s)\n", t->blocks,
            t->chain_blocks ? "pieces of each temperature's chains end to end"
                            : "time slices of every chain");
    fprintf(f, "L\tT\tenergy\tenergy_err\tbinder\tbinder_err\txi_over_l\txi_over_l_err\n");
    for (size_t k = 0; k < t->n_sizes; k++) {
        const tc_size *s = &t->size[k];
        for (size_t g = 0; g < t->grid; g++) {
            const double T = s->t_min + (s->t_max - s->t_min) * (double)g / (double)(t->grid - 1);
#pragma omp parallel for schedule(static)
            for (size_t j = 0; j < J; j++) {
                double m[TC_NQ];
                tc_reweight_means(s, t->blocks, j, T, m);
                v[j] = m[TC_E];
                v[J + j] = tc_quantity(s, 0, m);
                v[2 * J + j] = t->has_xi ? tc_quantity(s, 1, m) : NAN;
            }
            fprintf(f, "%ld\t%.10g", s->L, T);
            for (int c = 0; c < 3; c++)
                fprintf(f, "\t%.10g\t%.4g", v[c * J], tc_jack_error(v + c * J, t->blocks));
            fprintf(f, "\n");
        }
    }
    free(v);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return mcf_fail(MCF_EIO, "%s: cannot write (is the disk full?)", path);
    return MCF_OK;
}

/* dQ/dT of size s, sample j, at T (a central difference on the smooth reweighted curve) */
static double slope(const tc_size *s, size_t blocks, size_t j, int which, double T, double h)
{
    return (tc_curve(s, blocks, j, which, T + h) - tc_curve(s, blocks, j, which, T - h)) /
           (2 * h);
}

double tc_extrapolate(const double *Tx, const double *L1, const double *w, size_t P,
                      double x, double *chi2)
{
    if (chi2)
        *chi2 = 0.0;
    if (P == 1)
        return Tx[0];
    double S = 0, Su = 0, Suu = 0, St = 0, Sut = 0; /* T = T_c + a u, u = L^-x */
    for (size_t p = 0; p < P; p++) {
        const double u = pow(L1[p], -x);
        S += w[p];
        Su += w[p] * u;
        Suu += w[p] * u * u;
        St += w[p] * Tx[p];
        Sut += w[p] * u * Tx[p];
    }
    const double det = S * Suu - Su * Su;
    const double tc = (Suu * St - Su * Sut) / det, a = (S * Sut - Su * St) / det;
    for (size_t p = 0; chi2 && p < P; p++) {
        const double r = Tx[p] - tc - a * pow(L1[p], -x);
        *chi2 += w[p] * r * r;
    }
    return tc;
}

/* crossings, nu and T_c of quantity `which`; the table's rows and the summary into f and
 * standard output; *crossed: the number of pairs that cross */
static int quantity(tc_run *t, int which, FILE *f, size_t *crossed)
{
    const size_t J = t->blocks + 1, P = t->n_sizes - 1;
    double *Tx = calloc(P * J, sizeof *Tx), *nu = calloc(P * J, sizeof *nu);
    double *L1 = calloc(P, sizeof *L1), *w = calloc(P, sizeof *w);
    double *tc = calloc(J, sizeof *tc), *row = calloc(P, sizeof *row);
    if (!Tx || !nu || !L1 || !w || !tc || !row) {
        free(Tx), free(nu), free(L1), free(w), free(tc), free(row);
        return mcf_fail(MCF_ENOMEM, "mcf tc: out of memory");
    }
    size_t used = 0;
    *crossed = 0;
    for (size_t p = 0; p < P; p++) {
        const tc_size *a = &t->size[p], *b = &t->size[p + 1];
        const double lo = fmax(a->t_min, b->t_min), hi = fmin(a->t_max, b->t_max);
        const double dT = (hi - lo) / (double)(t->grid - 1), h = 1e-4 * (hi - lo);
        int found = 0;
        if (hi > lo)
            Tx[p * J] = tc_crossing(a, b, t->blocks, 0, which, lo, hi, t->grid, NAN, &found);
        /* the full sample, then each jackknife sample on one thread, near the full sample's
         * crossing, else anywhere (the same numbers on any number of threads) */
#pragma omp parallel for schedule(dynamic)
        for (long jj = 0; jj < (found ? (long)J : 0); jj++) {
            const size_t j = (size_t)jj;
            int ignore;
            if (j) {
                Tx[p * J + j] = tc_crossing(a, b, t->blocks, j, which,
                                            fmax(lo, Tx[p * J] - 5 * dT),
                                            fmin(hi, Tx[p * J] + 5 * dT), 11, Tx[p * J],
                                            &ignore);
                if (!isfinite(Tx[p * J + j]))
                    Tx[p * J + j] = tc_crossing(a, b, t->blocks, j, which, lo, hi, t->grid,
                                                Tx[p * J], &ignore);
            }
            const double x = Tx[p * J + j];
            nu[p * J + j] = log((double)b->L / (double)a->L) /
                            log(fabs(slope(b, t->blocks, j, which, x, h) /
                                     slope(a, t->blocks, j, which, x, h)));
        }
        const double err = found ? tc_jack_error(Tx + p * J, t->blocks) : NAN;
        const double nerr = found ? tc_jack_error(nu + p * J, t->blocks) : NAN;
        size_t missing = 0; /* jackknife samples whose curves do not cross */
        for (size_t j = 1; found && j < J; j++)
            missing += !isfinite(Tx[p * J + j]) || !isfinite(nu[p * J + j]);
        if (missing && !t->err_why[which][0])
            snprintf(t->err_why[which], sizeof t->err_why[which],
                     "in %zu of %zu jackknife samples the curves of L = %ld and %ld do not "
                     "cross in T = [%g, %g]: too few sweeps for an error bar (run longer), "
                     "or a window too narrow", missing, t->blocks, a->L, b->L, lo, hi);
        if (p < TC_MAX_SIZES)
            t->pair_tx[which][p] = found ? Tx[p * J] : NAN;
        fprintf(f, "%s\t%ld\t%ld\t%.10g\t%.4g\t%.6g\t%.4g\t%d\n", quantity_name[which], a->L,
                b->L, found ? Tx[p * J] : NAN, err, found ? nu[p * J] : NAN, nerr, found);
        if (!found) {
            printf("%s: L = %ld and %ld do not cross in T = [%g, %g]\n", quantity_name[which],
                   a->L, b->L, lo, hi);
            continue;
        }
        char edge[320];
        if (p == P - 1 && tc_near_edge(Tx[p * J], b->beta, b->n_chains, edge, sizeof edge)) {
            printf("warning: %s crossing L = %ld/%ld: %s\n", quantity_name[which], a->L, b->L,
                   edge);
            fprintf(f, "# warning: %s crossing L = %ld/%ld: %s\n", quantity_name[which], a->L,
                    b->L, edge);
        }
        if (missing)
            printf("%s crossing L = %ld/%ld: T* = %.6f, error unknown: in %zu of %zu "
                   "jackknife samples they do not cross   nu = %.4f\n", quantity_name[which],
                   a->L, b->L, Tx[p * J], missing, t->blocks, nu[p * J]);
        else
            printf("%s crossing L = %ld/%ld: T* = %.6f +- %.6f   nu = %.4f +- %.4f%s\n",
                   quantity_name[which], a->L, b->L, Tx[p * J], err, nu[p * J], nerr,
                   found > 1 ? "   (several sign changes: the one nearest in T taken)" : "");
        /* the pairs that cross, packed */
        for (size_t j = 0; j < J; j++) {
            Tx[used * J + j] = Tx[p * J + j];
            nu[used * J + j] = nu[p * J + j];
        }
        L1[used] = (double)a->L;
        w[used] = err > 0 ? 1.0 / (err * err) : 1.0;
        used++;
    }
    *crossed = used;
    if (used) {
        /* per sample: x = 1/nu (the class's if given, else the sample's largest pair's) +
         * omega, then the fit; chi2 of the full sample's */
        double chi2 = 0.0, inu = 0.0;
        for (size_t j = J; j-- > 0;) { /* the full sample last: its 1/nu is the line's below */
            for (size_t p = 0; p < used; p++)
                row[p] = Tx[p * J + j];
            inu = t->nu_fixed > 0 ? 1.0 / t->nu_fixed : 1.0 / nu[(used - 1) * J + j];
            tc[j] = tc_extrapolate(row, L1, w, used, inu + t->omega, j ? NULL : &chi2);
        }
        double err = tc_jack_error(tc, t->blocks);
        double lo = -INFINITY, hi = INFINITY;
        for (size_t k = 0; k < t->n_sizes; k++) {
            lo = fmax(lo, t->size[k].t_min);
            hi = fmin(hi, t->size[k].t_max);
        }
        char outside[256];
        if (!tc_inside_window(tc[0], lo, hi, outside, sizeof outside)) {
            err = NAN; /* no error bar: T_c is not measured (the why below) */
            snprintf(t->err_why[which], sizeof t->err_why[which], "%s", outside);
        }
        const double last = Tx[(used - 1) * J], last_err = tc_jack_error(Tx + (used - 1) * J,
                                                                          t->blocks);
        char how[384], fit[96] = "";
        if (used > 2) /* the crossings' scatter about the line, against their errors */
            snprintf(fit, sizeof fit, "; chi2/dof = %.3g/%zu", chi2, used - 2);
        if (used == 1)
            snprintf(how, sizeof how, "one crossing: not extrapolated");
        else
            snprintf(how, sizeof how, "%zu crossings extrapolated as T*(L) = T_c + a "
                     "L^-(1/nu + omega), omega = %g, 1/nu = %.4f%s%s", used, t->omega,
                     inu, t->nu_fixed > 0 ? " (nu given)" : " (the largest pair's)", fit);
        fprintf(f, "# T_c (%s) = %.10g +- %.4g: %s; the largest pair alone: %.10g +- %.4g; "
                "nu (largest pair) = %.6g +- %.4g\n", quantity_name[which], tc[0], err, how,
                last, last_err, nu[(used - 1) * J], tc_jack_error(nu + (used - 1) * J,
                                                                  t->blocks));
        if (!isfinite(err))
            fprintf(f, "# no error bar (nan): %s\n",
                    t->err_why[which][0] ? t->err_why[which] : "a jackknife sample failed");
        if (isfinite(err))
            printf("T_c (%s) = %.6f +- %.6f  (%s)\n", quantity_name[which], tc[0], err, how);
        else
            printf("T_c (%s) = %.6f, error unknown (%s): %s\n", quantity_name[which], tc[0],
                   how, t->err_why[which][0] ? t->err_why[which] : "a jackknife sample failed");
        t->tc[which] = tc[0];
        t->tc_err[which] = err;
        t->nu[which] = nu[(used - 1) * J];
        t->nu_err[which] = tc_jack_error(nu + (used - 1) * J, t->blocks);
    }
    free(Tx), free(nu), free(L1), free(w), free(tc), free(row);
    return MCF_OK;
}

int tc_report(tc_run *t)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/tc.tsv", t->dir);
    snprintf(tmp, sizeof tmp, "%s/tc.tsv.tmp", t->dir);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return mcf_fail(MCF_EIO, "%s: cannot write (%s)", tmp, strerror(errno));
    fprintf(f, "quantity\tL1\tL2\tT_cross\tT_cross_err\tnu\tnu_err\tsign_changes\n");
    size_t crossed[2] = {0, 0};
    int rc = MCF_OK;
    for (int which = 0; which < 1 + t->has_xi && !rc; which++)
        rc = quantity(t, which, f, &crossed[which]);
    if (!rc)
        rc = tc_fixed(t, f);
    fprintf(f, "# errors: jackknife over %zu blocks of every series; curves: tc-curves.tsv\n",
            t->blocks);
    for (size_t d = 0; d < t->n_dirs; d++)
        if (strcmp(t->series[d], "series") != 0)
            fprintf(f, "# partial: the series so far of a run that has not finished "
                    "(%s/.series-partial)\n", t->dirs[d]);
    for (size_t d = 1; d < t->n_dirs; d++)
        fprintf(f, "# also reweighted: the series of %s\n", t->dirs[d]);
    if (t->start_note[0])
        fprintf(f, "# warning: %s\n", t->start_note);
    if (t->tau_note[0])
        fprintf(f, "# warning: %s\n", t->tau_note);
    if (t->left_out && t->n_only) {
        fprintf(f, "# sizes: only");
        for (size_t q = 0; q < t->n_only; q++)
            fprintf(f, " %ld", t->only[q]);
        fprintf(f, " (%zu chains left out)\n", t->left_out);
    }
    if (t->left_out && isfinite(t->window[0]))
        fprintf(f, "# window: %g to %g\n", t->window[0], t->window[1]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        rc = rc ? rc : mcf_fail(MCF_EIO, "%s: cannot write (is the disk full?)", tmp);
    if (!rc && rename(tmp, path) != 0)
        rc = mcf_fail(MCF_EIO, "%s: cannot rename to %s (%s)", tmp, path, strerror(errno));
    if (!rc && !crossed[0] && !crossed[1])
        rc = mcf_fail(MCF_EINVAL, "mcf tc: no two sizes cross in their common temperature "
                      "window (%s/tc-curves.tsv has the curves): scan temperatures on both "
                      "sides of T_c", t->dir);
    return rc;
}
