/* timestep_fit.c — the DMC energy extrapolated to zero time step (timestep_fit.h).
 *
 * The time-step error of the drift-diffusion projector with the Metropolis test and
 * effective time step is O(tau) at small tau (docs/methods.md): E(tau) = E0 + a tau + O(tau^2).
 * The line is fitted by weighted least squares to the points' energies and their blocking
 * errors (independent populations, one per time step); with three or more time steps its
 * chi2 tests whether the line describes them, and the parabola's E0 says how far the
 * extrapolation would move if it did not. */
#include "timestep_fit.h"
#include "fileio.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The intercept c0 of the 3 x 3 symmetric system m c = y and (m^-1)_00, its variance, by
 * cofactors (row 0 of the inverse: m symmetric, so its cofactors C_0j); 0 when singular. */
static int intercept3(const double m[3][3], const double y[3], double *c0, double *inv00)
{
    const double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1],
                 c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2],
                 c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    const double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    if (!(fabs(det) > 0.0) || !isfinite(det))
        return 0;
    *c0 = (c00 * y[0] + c01 * y[1] + c02 * y[2]) / det;
    *inv00 = c00 / det;
    return 1;
}

int mcfi_timestep_fit(const double *tau, const double *e, const double *err, size_t n,
                      mcfi_timestep_line *out, char *why, size_t cap)
{
    out->e0 = out->e0_err = out->slope = out->slope_err = NAN;
    out->chi2_dof = out->p_value = out->q0 = out->q0_err = NAN;
    if (n < 2) {
        snprintf(why, cap, "one time step: nothing to extrapolate");
        return MCF_EINVAL;
    }
    size_t zero = 0, distinct = 0;
    double top = 0.0;
    for (size_t i = 0; i < n; i++)
        top = fmax(top, fabs(e[i]));
    const double rounding = 64.0 * DBL_EPSILON * top; /* an error below it: no variance */
    for (size_t i = 0; i < n; i++) {
        distinct += tau[i] != tau[0];
        if (!isfinite(e[i]) || !isfinite(tau[i])) {
            snprintf(why, cap, "the energy at time step %g is %g", tau[i], e[i]);
            return MCF_EINVAL;
        }
        if (err[i] >= 0.0 && err[i] <= rounding)
            zero++;
        else if (!(err[i] > 0.0) || !isfinite(err[i])) {
            snprintf(why, cap, "the energy at time step %g has no error estimate (%g)", tau[i],
                     err[i]);
            return MCF_EINVAL;
        }
    }
    if (!distinct) {
        snprintf(why, cap, "the time steps are all equal (%g)", tau[0]);
        return MCF_EINVAL;
    }
    if (zero) { /* exact energies: no time-step error to fit when they all agree */
        double mean = 0.0;
        for (size_t i = 0; i < n; i++) {
            if (zero < n || fabs(e[i] - e[0]) > rounding) {
                snprintf(why, cap, "%s", zero < n
                             ? "some energies have zero error and others not"
                             : "the energies have zero error but differ between time steps");
                return MCF_EINVAL;
            }
            mean += e[i] / (double)n;
        }
        out->e0 = mean;
        out->e0_err = out->slope = out->slope_err = 0.0;
        out->q0 = n >= 3 ? mean : NAN;
        out->q0_err = n >= 3 ? 0.0 : NAN;
        return MCF_OK;
    }
    /* the line: sums of w tau^k (k = 0..4) and w tau^k E (k = 0..2), w = 1 / s^2 */
    double S[5] = {0}, Y[3] = {0};
    for (size_t i = 0; i < n; i++) {
        const double w = 1.0 / (err[i] * err[i]);
        double p = w;
        for (int k = 0; k < 5; k++) {
            S[k] += p;
            if (k < 3)
                Y[k] += p * e[i];
            p *= tau[i];
        }
    }
    const double det = S[0] * S[2] - S[1] * S[1];
    if (!(det > 0.0) || !isfinite(det)) {
        snprintf(why, cap, "the weighted time steps give a singular fit (det %g)", det);
        return MCF_EINVAL;
    }
    out->e0 = (S[2] * Y[0] - S[1] * Y[1]) / det;
    out->slope = (S[0] * Y[1] - S[1] * Y[0]) / det;
    out->e0_err = sqrt(S[2] / det);
    out->slope_err = sqrt(S[0] / det);
    if (n >= 3) {
        double chi2 = 0.0;
        for (size_t i = 0; i < n; i++) {
            const double d = (e[i] - out->e0 - out->slope * tau[i]) / err[i];
            chi2 += d * d;
        }
        out->chi2_dof = chi2 / (double)(n - 2);
        out->p_value = gsl_cdf_chisq_Q(chi2, (double)(n - 2));
        const double m[3][3] = {{S[0], S[1], S[2]}, {S[1], S[2], S[3]}, {S[2], S[3], S[4]}};
        double c0, inv00;
        if (intercept3(m, Y, &c0, &inv00) && inv00 > 0.0) {
            out->q0 = c0;
            out->q0_err = sqrt(inv00);
        }
    }
    return MCF_OK;
}

/* "name=value" of the scan columns other than the time step at point k, into buf */
static void other_columns(const mcf_setup *s, size_t at, size_t k, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < s->n_axes && len < cap; a++)
        if (a != at)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s=%s", len ? " " : "",
                                    s->axes[a].name, mcfi_setup_axis_value(s, a, k)->text);
}

int mcfi_timestep_table(const mcf_run *r, const mcfi_table *tab, mcfi_table *out,
                        mcf_text *sum, mcf_text *warn)
{
    memset(out, 0, sizeof *out);
    const mcf_setup *s = r->setup;
    const long atl = mcfi_timestep_axis(s);
    const int o = r->role[MCF_ROLE_ENERGY];
    if (atl < 0 || o < 0)
        return MCF_OK;
    const size_t at = (size_t)atl, nt = s->axes[at].n, n_points = tab->n_rows;
    size_t stride = 1;
    for (size_t a = at + 1; a < s->n_axes; a++)
        stride *= s->axes[a].n;
    out->n_rows = n_points / nt; /* one row per combination of the other columns */
    const size_t col = s->n_axes + 3 * (size_t)o; /* the energy's column, then its error */
    const char *name = tab->cols[col].name;
    int ok = 1;
    for (size_t a = 0; a < s->n_axes && ok; a++)
        if (a != at) /* the other scan columns, as results.tsv has them */
            ok = mcfi_table_add_column(out, tab->cols[a].x == NULL, "%s", tab->cols[a].name) !=
                 NULL;
    /* the fit's columns; a leading '_' is a suffix to the energy's name */
    static const char *const fit_cols[] = {"timesteps", "_0", "_0_err", "slope",
                                           "slope_err", "chi2_dof", "p_value",
                                           "_0_quadratic", "_0_quadratic_err"};
    const size_t first = out->n_cols;
    for (size_t k = 0; k < sizeof fit_cols / sizeof *fit_cols && ok; k++)
        ok = mcfi_table_add_column(out, 0, "%s%s", fit_cols[k][0] == '_' ? name : "",
                                   fit_cols[k]) != NULL;
    double *tau = ok ? malloc(3 * nt * sizeof *tau) : NULL;
    if (!tau) {
        mcfi_table_free(out);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    double *e = tau + nt, *err = e + nt;
    for (size_t k = 0, row = 0; k < n_points; k++) {
        if ((k / stride) % nt != 0)
            continue; /* k: the first time step of a combination of the other columns */
        for (size_t a = 0, c = 0; a < s->n_axes; a++)
            if (a != at) {
                if (out->cols[c].x)
                    out->cols[c].x[row] = tab->cols[a].x[k];
                else
                    out->cols[c].text[row] = tab->cols[a].text[k];
                c++;
            }
        for (size_t i = 0; i < nt; i++) {
            tau[i] = s->axes[at].values[i].r;
            e[i] = tab->cols[col].x[k + i * stride];
            err[i] = tab->cols[col + 1].x[k + i * stride];
        }
        mcfi_timestep_line f;
        char why[256], at_text[512];
        const int rc = mcfi_timestep_fit(tau, e, err, nt, &f, why, sizeof why);
        const double v[] = {(double)nt, f.e0,       f.e0_err, f.slope, f.slope_err,
                            f.chi2_dof,  f.p_value, f.q0,     f.q0_err};
        for (size_t j = 0; j < sizeof v / sizeof *v; j++)
            out->cols[first + j].x[row] = v[j];
        row++;
        if (!sum || !warn)
            continue;
        other_columns(s, at, k, at_text, sizeof at_text);
        const char *sep = at_text[0] ? " " : "";
        char line[1400];
        if (rc) {
            snprintf(line, sizeof line, "%s%stimestep -> 0: no extrapolation of %s: %s", at_text,
                     sep, name, why);
            mcfe_text_printf(warn, "# warning: %s\n", line);
            mcfe_text_printf(sum, "warning: %s\n", line);
            continue;
        }
        if (f.e0_err == 0.0) {
            mcfe_text_printf(sum, "%s%stimestep -> 0: %s = %.10g, exact at every time step "
                             "(no variance: nothing to extrapolate)\n", at_text, sep, name,
                             f.e0);
            continue;
        }
        mcfe_text_printf(sum, "%s%stimestep -> 0: %s = %.10g +- %.2g (a line in tau over %zu "
                         "time steps", at_text, sep, name, f.e0, f.e0_err, nt);
        if (nt >= 3)
            mcfe_text_printf(sum, ", chi2/dof %.2f; the parabola's %.10g +- %.2g)\n", f.chi2_dof,
                             f.q0, f.q0_err);
        else
            mcfe_text_printf(sum, "; two time steps: the line is assumed, not tested)\n");
        if (nt >= 3 && f.p_value < 0.01) {
            snprintf(line, sizeof line, "%s%stimestep -> 0: the energies do not follow a line "
                     "in tau (chi2/dof = %.2f, p = %.2g): E0 = %.10g +- %.2g is not to be "
                     "trusted; the parabola gives %.10g +- %.2g; use smaller time steps",
                     at_text, sep, f.chi2_dof, f.p_value, f.e0, f.e0_err, f.q0, f.q0_err);
            mcfe_text_printf(warn, "# warning: %s\n", line);
            mcfe_text_printf(sum, "warning: %s\n", line);
        }
    }
    free(tau);
    return MCF_OK;
}

int mcfi_timestep_report(const mcf_run *r, const mcfi_table *tab, mcf_text *sum,
                         mcf_text *warn)
{
    mcfi_table ft;
    int rc = mcfi_timestep_table(r, tab, &ft, sum, warn);
    if (rc || !ft.n_cols)
        return rc;
    const char *name = tab->cols[r->setup->n_axes + 3 * (size_t)r->role[MCF_ROLE_ENERGY]].name;
    mcf_text t = {0};
    mcfe_text_printf(&t, "# mcf %s time-step extrapolation of %s (method = dmc): weighted "
                     "least squares of %s(tau) = E0 + a tau over the time steps of the scan "
                     "column timestep (%s_0, slope), errors from the fit's covariance with the "
                     "rows' blocking errors; chi2_dof and p_value test the line (3 or more "
                     "time steps); %s_0_quadratic: E0 of E0 + a tau + b tau^2\n",
                     MCF_VERSION_STRING, name, name, name, name);
    for (size_t c = 0; c < ft.n_cols; c++)
        mcfe_text_printf(&t, "%s%s", c ? "\t" : "", ft.cols[c].name);
    mcfe_text_printf(&t, "\n");
    for (size_t k = 0; k < ft.n_rows; k++)
        for (size_t c = 0; c < ft.n_cols; c++) {
            if (ft.cols[c].x && isnan(ft.cols[c].x[k]))
                mcfe_text_printf(&t, "nan");
            else if (ft.cols[c].x)
                mcfe_text_printf(&t, "%.10g", ft.cols[c].x[k]);
            else
                mcfe_text_printf(&t, "%s", ft.cols[c].text[k]);
            mcfe_text_printf(&t, "%s", c + 1 < ft.n_cols ? "\t" : "\n");
        }
    mcfi_table_free(&ft);
    rc = t.failed ? mcf_fail(MCF_ENOMEM, "out of memory") : MCF_OK;
    if (!rc) {
        char path[4200];
        snprintf(path, sizeof path, "%s/timestep.tsv", r->dir);
        rc = mcfe_write_atomic(path, t.s, t.len);
    }
    free(t.s);
    return rc;
}
