/* tc_fixed.c — `mcf tc ... --fixed binder=VALUE` / `--fixed xi_over_l=VALUE` (tc.h;
 * docs/methods.md, "Finite-size scaling"): the fixed phenomenological coupling.  Per
 * lattice size L and jackknife sample, the temperature T_f(L) at which the size's reweighted
 * curve of the quantity takes VALUE (a sign change of curve - VALUE on the grid of the size's
 * window, refined by bisection, as the crossings are on the difference of two sizes'
 * curves); then T_f(L) = T_c + a L^(-1/nu) fitted by weighted least squares (nu from --nu;
 * without it the extrapolation is skipped, said why), chi2/dof with three sizes or more,
 * the jackknife error of T_c.  With VALUE exactly the quantity's universal value at T_c,
 * T_f(L) - T_c shrinks as L^-(1/nu + omega), as the crossings do; a VALUE off by delta adds a
 * term ~ delta L^(-1/nu), the slower one, which is the form fitted.  One size per point (no
 * difference of two noisy curves) and the curves pinned to their value at T_c: the method
 * to use when corrections to scaling make the crossings drift. */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include "mcf/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fixed_name[2] = {"binder", "xi_over_l"};

/* the range of size s's full-sample curve on its window's grid, for the refusal */
static void curve_range(const tc_run *t, const tc_size *s, int which, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t g = 0; g < t->grid; g++) {
        const double T = s->t_min + (s->t_max - s->t_min) * (double)g / (double)(t->grid - 1);
        const double v = tc_curve(s, t->blocks, 0, which, T);
        if (isfinite(v)) {
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
    }
}

/* One --fixed: T_f per size and sample into Tf (n_sizes x J), the rows into f, the
 * extrapolation; MCF_EINVAL naming the size whose curve does not reach the value */
static int fixed_one(tc_run *t, int which, double value, FILE *f, double *Tf, double *row,
                     double *Lk, double *w, double *tc)
{
    const size_t J = t->blocks + 1, K = t->n_sizes;
    const char *name = fixed_name[which];
    size_t bad_samples = 0;
    for (size_t k = 0; k < K; k++) {
        const tc_size *s = &t->size[k];
        const double lo = s->t_min, hi = s->t_max, dT = (hi - lo) / (double)(t->grid - 1);
        int found = 0;
        Tf[k * J] = tc_fixed_root(s, t->blocks, 0, which, value, lo, hi, t->grid, NAN, &found);
        if (!found) {
            double vlo = 0, vhi = 0;
            curve_range(t, s, which, &vlo, &vhi);
            return mcf_fail(MCF_EINVAL, "mcf tc: --fixed %s=%g: the %s curve of L = %ld does "
                            "not reach %g in its temperature window [%g, %g] (it spans "
                            "%.4g to %.4g there): scan temperatures on both sides of where "
                            "it does, or give the quantity's value at T_c", name, value,
                            name, s->L, value, lo, hi, vlo, vhi);
        }
        /* each jackknife sample near the full sample's T_f, else anywhere in the window */
#pragma omp parallel for schedule(dynamic)
        for (long jj = 1; jj < (long)J; jj++) {
            const size_t j = (size_t)jj;
            int ignore;
            Tf[k * J + j] = tc_fixed_root(s, t->blocks, j, which, value,
                                          fmax(lo, Tf[k * J] - 5 * dT),
                                          fmin(hi, Tf[k * J] + 5 * dT), 11, Tf[k * J],
                                          &ignore);
            if (!isfinite(Tf[k * J + j]))
                Tf[k * J + j] = tc_fixed_root(s, t->blocks, j, which, value, lo, hi, t->grid,
                                              Tf[k * J], &ignore);
        }
        size_t missing = 0;
        for (size_t j = 1; j < J; j++)
            missing += !isfinite(Tf[k * J + j]);
        bad_samples += missing;
        const double err = missing ? NAN : tc_jack_error(Tf + k * J, t->blocks);
        fprintf(f, "%s_fixed\t%ld\t%ld\t%.10g\t%.4g\t%.6g\tnan\t%d\n", name, s->L, s->L,
                Tf[k * J], err, value, found);
        if (missing)
            printf("%s fixed at %g: L = %ld: T_f = %.6f, error unknown: in %zu of %zu "
                   "jackknife samples the curve does not reach %g in [%g, %g]\n", name, value,
                   s->L, Tf[k * J], missing, t->blocks, value, lo, hi);
        else
            printf("%s fixed at %g: L = %ld: T_f = %.6f +- %.6f%s\n", name, value, s->L,
                   Tf[k * J], err,
                   found > 1 ? "   (several values on the grid: the first from below)" : "");
        char edge[320];
        if (tc_near_edge(Tf[k * J], s->beta, s->n_chains, edge, sizeof edge)) {
            printf("warning: %s fixed at %g, L = %ld: %s\n", name, value, s->L, edge);
            fprintf(f, "# warning: %s fixed at %g, L = %ld: %s\n", name, value, s->L, edge);
        }
        Lk[k] = (double)s->L;
        w[k] = err > 0 ? 1.0 / (err * err) : 1.0;
    }
    if (!(t->nu_fixed > 0)) {
        const char *why = "no --nu: T_f(L) = T_c + a L^(-1/nu) needs the universality "
                          "class's nu (--nu NU); not extrapolated";
        printf("T_c (%s fixed at %g): %s\n", name, value, why);
        fprintf(f, "# T_c (%s fixed at %g): %s\n", name, value, why);
        return MCF_OK;
    }
    const double x = 1.0 / t->nu_fixed;
    double chi2 = 0.0;
    for (size_t j = J; j-- > 0;) {
        for (size_t k = 0; k < K; k++)
            row[k] = Tf[k * J + j];
        tc[j] = tc_extrapolate(row, Lk, w, K, x, j ? NULL : &chi2);
    }
    double err = bad_samples ? NAN : tc_jack_error(tc, t->blocks);
    double lo = -INFINITY, hi = INFINITY;
    for (size_t k = 0; k < K; k++) {
        lo = fmax(lo, t->size[k].t_min);
        hi = fmin(hi, t->size[k].t_max);
    }
    char outside[256] = "";
    if (!tc_inside_window(tc[0], lo, hi, outside, sizeof outside))
        err = NAN;
    char fit[96] = "";
    if (K > 2)
        snprintf(fit, sizeof fit, "; chi2/dof = %.3g/%zu", chi2, K - 2);
    fprintf(f, "# T_c (%s fixed at %g) = %.10g +- %.4g: %zu sizes extrapolated as T_f(L) = "
            "T_c + a L^(-1/nu), 1/nu = %.4f (nu given)%s\n", name, value, tc[0], err, K, x,
            fit);
    if (isfinite(err)) {
        printf("T_c (%s fixed at %g) = %.6f +- %.6f  (%zu sizes extrapolated as T_f(L) = T_c "
               "+ a L^(-1/nu), 1/nu = %.4f (nu given)%s)\n", name, value, tc[0], err, K, x,
               fit);
    } else {
        const char *why = outside[0] ? outside : "a jackknife sample has no T_f";
        printf("T_c (%s fixed at %g) = %.6f, error unknown: %s\n", name, value, tc[0], why);
        fprintf(f, "# no error bar (nan): %s\n", why);
    }
    return MCF_OK;
}

int tc_fixed(tc_run *t, FILE *f)
{
    if (!t->n_fixed)
        return MCF_OK;
    const size_t J = t->blocks + 1, K = t->n_sizes;
    double *Tf = calloc(K * J, sizeof *Tf), *row = calloc(K, sizeof *row);
    double *Lk = calloc(K, sizeof *Lk), *w = calloc(K, sizeof *w);
    double *tc = calloc(J, sizeof *tc);
    int rc = MCF_OK;
    if (!Tf || !row || !Lk || !w || !tc)
        rc = mcf_fail(MCF_ENOMEM, "mcf tc: out of memory");
    for (size_t q = 0; q < t->n_fixed && !rc; q++) {
        const int which = t->fixed_which[q];
        if (which == 1 && !t->has_xi)
            rc = mcf_fail(MCF_EINVAL, "mcf tc: --fixed xi_over_l=%g: the series have no "
                          "order_kmin column: run with [run] extra_observables = m2_kmin",
                          t->fixed[q]);
        else
            rc = fixed_one(t, which, t->fixed[q], f, Tf, row, Lk, w, tc);
    }
    free(Tf), free(row), free(Lk), free(w), free(tc);
    return rc;
}

int tc_parse_fixed(tc_run *t, const char *text)
{
    const char *eq = strchr(text, '=');
    int which = -1;
    if (eq && (size_t)(eq - text) == strlen("binder") && !strncmp(text, "binder", 6))
        which = 0;
    else if (eq && (size_t)(eq - text) == strlen("xi_over_l") && !strncmp(text, "xi_over_l", 9))
        which = 1;
    if (which < 0)
        return mcf_fail(MCF_EINVAL, "mcf tc: --fixed %s: give binder=VALUE or "
                        "xi_over_l=VALUE (the quantity's universal value at T_c)", text);
    char *end = NULL;
    const double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || !isfinite(v))
        return mcf_fail(MCF_EINVAL, "mcf tc: --fixed %s: VALUE is not a number", text);
    if (t->n_fixed == TC_MAX_FIXED)
        return mcf_fail(MCF_EINVAL, "mcf tc: --fixed %s: at most %d --fixed", text,
                        TC_MAX_FIXED);
    t->fixed_which[t->n_fixed] = which;
    t->fixed[t->n_fixed++] = v;
    return MCF_OK;
}
