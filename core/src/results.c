/* results.c — results.tsv: one row per scan point with every observable's mean, error
 * (blocking) and autocorrelation time, derived quantities with jackknife errors, and the
 * acceptance rate.  Nothing time- or host-dependent goes in it, so a resumed run writes
 * the same bytes as an uninterrupted one. */
#include "results.h"

#include "equilibration.h"
#include "fileio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct derived_ctx {
    int a, b;     /* variable indices */
    double N, T;
} derived_ctx;

/* specific heat N (<e^2> - <e>^2) / T^2: a = e, b = e^2 */
static double specific_heat(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return d->N * (m[d->b] - m[d->a] * m[d->a]) / (d->T * d->T);
}

/* susceptibility N (<m^2> - <|m|>^2) / T: a = |m|, b = m^2 */
static double susceptibility(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return d->N * (m[d->b] - m[d->a] * m[d->a]) / d->T;
}

/* variance of the energy per unit, times N: N (<e^2> - <e>^2) (runs without a
 * temperature, e.g. variational Monte Carlo: Var(E_L) / N for e = E_L / N) */
static double variance(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return d->N * (m[d->b] - m[d->a] * m[d->a]);
}

/* "mean +- error" with the error to 2 significant digits and the mean to the same
 * decimal place (or %g when the error is not positive and finite) */
static void put_estimate(mcf_text *t, const char *name, double mean, double error)
{
    if (isfinite(error) && error > 0 && isfinite(mean)) {
        int digits = 1 - (int)floor(log10(error));
        if (digits < 0)
            digits = 0;
        if (digits > 15)
            digits = 15;
        mcfi_text_printf(t, "  %s %.*f +- %.*f", name, digits, mean, digits, error);
    } else {
        mcfi_text_printf(t, "  %s %.10g", name, mean);
    }
}

/* Binder cumulant 1 - <m^4> / (3 <m^2>^2): a = m^2, b = m^4 */
static double binder(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return 1.0 - m[d->b] / (3.0 * m[d->a] * m[d->a]);
}

static void put_number(mcf_text *t, double x)
{
    if (isnan(x))
        mcfi_text_printf(t, "\tnan");
    else
        mcfi_text_printf(t, "\t%.10g", x);
}

/* Mean and jackknife error of one curve point from its bins: the leave-one-bin-out means
 * m_(b) = (S - s_b) / (W - w_b) give err^2 = (n-1)/n sum_b (m_(b) - mean_b m_(b))^2. */
static void curve_point(const double *sums, size_t stride, const double *count, size_t nb,
                        double *mean, double *error)
{
    double S = 0, W = 0;
    size_t n = 0;
    for (size_t b = 0; b < nb; b++) {
        if (count[b] <= 0)
            continue;
        S += sums[b * stride];
        W += count[b];
        n++;
    }
    *mean = W > 0 ? S / W : NAN;
    if (n < 2) {
        *error = NAN;
        return;
    }
    double avg = 0, sq = 0;
    for (size_t b = 0; b < nb; b++)
        if (count[b] > 0)
            avg += (S - sums[b * stride]) / (W - count[b]);
    avg /= (double)n;
    for (size_t b = 0; b < nb; b++)
        if (count[b] > 0) {
            double d = (S - sums[b * stride]) / (W - count[b]) - avg;
            sq += d * d;
        }
    *error = sqrt((double)(n - 1) / (double)n * sq);
}

/* Points of curve k summed over the chains: 0 when the model switched it off. */
static size_t curve_total_points(const mcf_run *r, size_t k)
{
    size_t n = 0;
    for (size_t ci = 0; ci < r->n_chains; ci++)
        n += r->chains[ci].points[r->curve[k]];
    return n;
}

/* <dir>/<name>.tsv for every curve observable that some chain measures (curve_points() > 0):
 * scan columns, axis, value, error. */
static int write_curves(const mcf_run *r)
{
    const mcf_setup *s = r->setup;
    const mcf_observable_spec *obs = r->ops->observables;
    size_t nb = (size_t)s->bins;
    size_t R = (size_t)s->walkers, n_points = r->n_chains / R;
    int rc = MCF_OK;
    double *psum = malloc(R * nb * sizeof *psum), *pcount = malloc(R * nb * sizeof *pcount);
    if (!psum || !pcount) {
        free(psum);
        free(pcount);
        return mcf_fail(MCF_ENOMEM, "out of memory writing the curves");
    }
    for (size_t k = 0; k < r->n_curves && !rc; k++) {
        size_t o = r->curve[k];
        if (curve_total_points(r, k) == 0)
            continue;
        int geometric = (obs[o].flags & MCF_OBS_GEOMETRIC_MEAN) != 0;
        mcf_text t = {0};
        mcfi_text_printf(&t, "# mcf %s curve: %s — %s\n", MCF_VERSION_STRING, obs[o].name,
                         obs[o].doc ? obs[o].doc : "");
        mcfi_text_printf(&t, "# errors: jackknife over %zu bins of the measurements%s\n", nb,
                         geometric ? "; geometric mean exp<log x>, error exp(mean) x error of "
                                    "<log x>" : "");
        mcfi_text_printf(&t, "# scan:");
        for (size_t a = 0; a < s->n_axes; a++)
            mcfi_text_printf(&t, " %s", s->axes[a].name);
        mcfi_text_printf(&t, " %s\n", obs[o].axis);
        if (!s->n_axes)
            mcfi_text_printf(&t, "point");
        for (size_t a = 0; a < s->n_axes; a++)
            mcfi_text_printf(&t, "%s%s", a ? "\t" : "", s->axes[a].name);
        mcfi_text_printf(&t, "\t%s\t%s\t%s_err\n", obs[o].axis, obs[o].name, obs[o].name);
        /* one block of rows per scan point: the jackknife runs over the bins of all its
           walkers (bin b of walker w is a bin of its own) */
        for (size_t ci = 0; ci < n_points && !rc; ci++) {
            const mcf_chain *c = &r->chains[ci * R];
            size_t at = 0;
            for (size_t j = 0; j < k; j++)
                at += c->points[r->curve[j]];
            for (size_t w = 1; w < R && !rc; w++)
                if (r->chains[ci * R + w].points[o] != c->points[o])
                    rc = mcf_fail(MCF_EPLUGIN, "model %s: curve %s has %zu points in chain %zu "
                                  "but %zu in chain %zu of the same scan point", s->model_name,
                                  obs[o].name, r->chains[ci * R + w].points[o], ci * R + w,
                                  c->points[o], ci * R);
            for (size_t p = 0; p < c->points[o] && !rc; p++) {
                double mean, err;
                for (size_t w = 0; w < R; w++) {
                    const mcf_chain *cw = &r->chains[ci * R + w];
                    size_t atw = 0;
                    for (size_t j = 0; j < k; j++)
                        atw += cw->points[r->curve[j]];
                    for (size_t b = 0; b < nb; b++) {
                        psum[w * nb + b] = cw->curve_bin_sum[b * cw->curve_values + atw + p];
                        pcount[w * nb + b] = cw->bin_count[b];
                    }
                }
                curve_point(psum, 1, pcount, R * nb, &mean, &err);
                if (geometric) {
                    mean = exp(mean);
                    err *= mean;
                }
                if (!s->n_axes)
                    mcfi_text_printf(&t, "%zu", ci);
                for (size_t a = 0; a < s->n_axes; a++)
                    mcfi_text_printf(&t, "%s%s", a ? "\t" : "", mcfi_setup_axis_value(s, a, ci)->text);
                put_number(&t, c->axis[at + p]);
                put_number(&t, mean);
                put_number(&t, err);
                mcfi_text_printf(&t, "\n");
            }
        }
        if (rc) {
        } else if (t.failed) {
            rc = mcf_fail(MCF_ENOMEM, "out of memory writing %s.tsv", obs[o].name);
        } else {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s.tsv", r->dir, obs[o].name);
            rc = mcfi_write_atomic(path, t.s, t.len);
        }
        free(t.s);
    }
    free(psum);
    free(pcount);
    return rc;
}

/* "L=16" or "L=16, walker 1": the scan point of chain k without its temperature */
static void describe_group(const mcf_run *r, size_t k, char *buf, size_t n)
{
    const mcf_setup *s = r->setup;
    size_t R = (size_t)s->walkers, used = 0;
    buf[0] = '\0';
    for (size_t a = 0; a + 1 < s->n_axes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", a ? " " : "",
                                 s->axes[a].name, mcfi_setup_axis_value(s, a, k / R)->text);
    if (R > 1 && used < n)
        snprintf(buf + used, n - used, "%swalker %zu", used ? ", " : "", k % R);
}

/* Parallel tempering: `# exchange:` lines per neighbouring pair of every group and
 * `# round trips:` lines per replica in results.tsv; per group one line of summary. */
static void write_tempering(const mcf_run *r, mcf_text *t, mcf_text *sum)
{
    const mcf_tempering *pt = r->pt;
    const mcf_setup *s = r->setup;
    size_t R = (size_t)s->walkers, nT = pt->n_temps;
    mcfi_text_printf(t, "# tempering: exchange_every %llu sweeps: neighbouring temperatures "
                     "of a group (chains differing only in T) swap with probability min(1, "
                     "exp[(1/T_i - 1/T_j)(E_i - E_j)]), even and odd pairs in turn; counted "
                     "after thermalization; a round trip is lowest T -> highest T -> lowest T\n",
                     (unsigned long long)pt->every);
    for (size_t g = 0; g < pt->n_groups; g++) {
        size_t c0 = ((g / R) * nT) * R + g % R;
        char grp[512], pre[520];
        describe_group(r, c0, grp, sizeof grp);
        snprintf(pre, sizeof pre, "%s%s", grp, grp[0] ? ": " : "");
        double amin = INFINITY, amax = -INFINITY;
        for (size_t j = 0; j + 1 < nT; j++) {
            uint64_t at = pt->attempts[g * (nT - 1) + j], ac = pt->accepted[g * (nT - 1) + j];
            double rate = at ? (double)ac / (double)at : NAN;
            mcfi_text_printf(t, "# exchange: %sT %s <-> %s: accepted %llu of %llu (%.4f)\n",
                             pre, s->axes[s->n_axes - 1].values[pt->order[j]].text,
                             s->axes[s->n_axes - 1].values[pt->order[j + 1]].text,
                             (unsigned long long)ac, (unsigned long long)at, rate);
            if (at && rate < amin)
                amin = rate;
            if (at && rate > amax)
                amax = rate;
        }
        uint64_t trips = 0, sweeps = 0;
        for (size_t j = 0; j < nT; j++) {
            size_t k = ((g / R) * nT + pt->order[j]) * R + g % R;
            trips += pt->trips[k];
            sweeps += pt->trip_sweeps[k];
            if (pt->trips[k])
                mcfi_text_printf(t, "# round trips: %sreplica starting at T %s: %llu, mean %.1f "
                                 "sweeps\n", pre,
                                 s->axes[s->n_axes - 1].values[pt->order[j]].text,
                                 (unsigned long long)pt->trips[k],
                                 (double)pt->trip_sweeps[k] / (double)pt->trips[k]);
            else
                mcfi_text_printf(t, "# round trips: %sreplica starting at T %s: 0\n", pre,
                                 s->axes[s->n_axes - 1].values[pt->order[j]].text);
        }
        if (g < 24) {
            mcfi_text_printf(sum, "tempering %sexchange acceptance %.3f to %.3f over %zu pairs; "
                             "%llu round trips", pre, amin, amax, nT - 1,
                             (unsigned long long)trips);
            if (trips)
                mcfi_text_printf(sum, ", mean %.0f sweeps", (double)sweeps / (double)trips);
            mcfi_text_printf(sum, "\n");
        }
    }
}

/* One line for the terminal: what the run measured, of what, where and how long.  The
 * model's parameters that differ from their defaults (and the scanned ones as ranges)
 * say "of what"; the observables with roles and the derived quantities "what". */
static void what_was_measured(const mcf_run *r, mcf_text *sum, int want_c, int want_chi,
                              int want_u, int want_var)
{
    const mcf_setup *s = r->setup;
    const mcf_observable_spec *obs = r->ops->observables;
    mcfi_text_printf(sum, "measured");
    for (size_t o = 0; o < r->n_obs; o++)
        mcfi_text_printf(sum, "%s%s", o ? ", " : " ", obs[r->scalar[o]].name);
    const char *derived[4] = {"specific_heat", "susceptibility", "binder", "variance"};
    const int want[4] = {want_c, want_chi, want_u, want_var};
    for (int q = 0; q < 4; q++)
        if (want[q])
            mcfi_text_printf(sum, ", %s", derived[q]);
    mcfi_text_printf(sum, " of %s", s->model_name);
    const mcf_section *m = &s->sections[0];
    int first = 1;
    for (size_t j = 0; j < m->n; j++) {
        const mcf_param_spec *spec = &m->specs[j];
        if (m->axis[j] >= 0 || !m->text[j] ||
            (spec->default_value && strcmp(spec->default_value, m->text[j]) == 0))
            continue;
        mcfi_text_printf(sum, "%s%s=%s", first ? " (" : ", ", spec->name, m->text[j]);
        first = 0;
    }
    mcfi_text_printf(sum, "%s", first ? "" : ")");
    if (s->evaluator)
        mcfi_text_printf(sum, " with %s", s->evaluator_name);
    for (size_t a = 0; a < s->n_axes; a++) {
        const mcf_axis *ax = &s->axes[a];
        if (ax->n == 1)
            mcfi_text_printf(sum, "%s %s=%s", a ? "," : " at", ax->name, ax->values[0].text);
        else
            mcfi_text_printf(sum, "%s %zu values of %s from %s to %s", a ? "," : " at", ax->n,
                             ax->name, ax->values[0].text, ax->values[ax->n - 1].text);
    }
    mcfi_text_printf(sum, "; %ld chain%s each, %ld sweeps after %ld of thermalization\n",
                     s->walkers, s->walkers > 1 ? "s" : "", s->sweeps, s->thermalize);
}

/* Each line of text (cut into lines in place) into the log, without its first `skip`
 * characters; file_only: not on the terminal. */
static void log_lines(mcf_log_level level, char *text, size_t skip, int file_only)
{
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (file_only)
            mcfi_log_file_only(level, "%s", line + skip);
        else
            mcf_log(level, "%s", line + skip);
        line = nl ? nl + 1 : NULL;
    }
}

int mcfi_results_write(const mcf_run *r, char **summary)
{
    mcf_text sum = {0};
    *summary = NULL;
    const mcf_setup *s = r->setup;
    const mcf_observable_spec *obs = r->ops->observables;
    mcf_text t = {0}, warn = {0};
    int has_T = s->has_temperature;
    int e = r->role[MCF_ROLE_ENERGY], m = r->role[MCF_ROLE_ORDER];
    int m2 = r->role[MCF_ROLE_ORDER2], m4 = r->role[MCF_ROLE_ORDER4];
    int want_c = has_T && e >= 0, want_chi = has_T && m >= 0 && m2 >= 0, want_u = m2 >= 0 && m4 >= 0;
    int want_var = !has_T && e >= 0;
    size_t nb = (size_t)s->bins;
    size_t R = (size_t)s->walkers, n_points = r->n_chains / R;
    double *means = malloc(R * nb * r->nvars * sizeof *means + 1);
    double *weights = malloc(R * nb * sizeof *weights + 1);
    if (!means || !weights) {
        free(means);
        free(weights);
        return mcf_fail(MCF_ENOMEM, "out of memory writing results");
    }

    mcfi_text_printf(&t, "# mcf %s results\n", MCF_VERSION_STRING);
    mcfi_text_printf(&t, "# model: %s %s\n", s->model_name, s->model->info->version);
    mcfi_text_printf(&t, "# evaluator: %s%s%s%s\n", s->evaluator_name,
                     s->evaluator ? " " : "", s->evaluator ? s->evaluator->info->version : "",
                     s->evaluator_auto ? " (auto)" : "");
    mcfi_text_printf(&t, "# seed: %llu\n", (unsigned long long)s->seed);
    mcfi_text_printf(&t, "# schedule: thermalize %ld, sweeps %ld, measure_every %ld, "
                     "measurements %llu per chain\n", s->thermalize, s->sweeps,
                     s->measure_every, (unsigned long long)r->n_meas);
    if (R > 1)
        mcfi_text_printf(&t, "# walkers: %zu chains per scan point, combined: mean of the walkers' "
                         "means, error sqrt(sum err^2) / %zu, tau the walkers' mean; jackknife "
                         "over the %zu x %zu bins of all walkers\n", R, R, R, nb);
    mcfi_text_printf(&t, "# errors: blocking analysis (Flyvbjerg-Petersen); tau_<name> in "
                     "sweeps; derived quantities: jackknife over %zu bins\n", nb);
    mcfi_text_printf(&t, "# scan:");
    for (size_t a = 0; a < s->n_axes; a++)
        mcfi_text_printf(&t, " %s", s->axes[a].name);
    mcfi_text_printf(&t, "\n");
    if (r->n_curves) {
        mcfi_text_printf(&t, "# curves:");
        for (size_t k = 0; k < r->n_curves; k++)
            if (curve_total_points(r, k))
                mcfi_text_printf(&t, " %s", obs[r->curve[k]].name);
        mcfi_text_printf(&t, "\n");
    }

    what_was_measured(r, &sum, want_c, want_chi, want_u, want_var);
    mcf_text pt_sum = {0};
    if (r->pt)
        write_tempering(r, &t, &pt_sum);

    /* rows first into a second buffer so the warnings can precede the header */
    mcf_text rows = {0};
    /* first the scan columns (a single point without axes is row "point" 0) */
    if (!s->n_axes)
        mcfi_text_printf(&rows, "point");
    for (size_t a = 0; a < s->n_axes; a++)
        mcfi_text_printf(&rows, "%s%s", a ? "\t" : "", s->axes[a].name);
    for (size_t k = 0; k < r->n_obs; k++) {
        const char *name = obs[r->scalar[k]].name;
        mcfi_text_printf(&rows, "\t%s\t%s_err\ttau_%s", name, name, name);
    }
    if (want_c)
        mcfi_text_printf(&rows, "\tspecific_heat\tspecific_heat_err");
    if (want_chi)
        mcfi_text_printf(&rows, "\tsusceptibility\tsusceptibility_err");
    if (want_u)
        mcfi_text_printf(&rows, "\tbinder\tbinder_err");
    if (want_var)
        mcfi_text_printf(&rows, "\tvariance\tvariance_err");
    mcfi_text_printf(&rows, "\tacceptance\n");

    for (size_t k = 0; k < n_points; k++) {
        const mcf_chain *c = &r->chains[k * R];
        char point[512] = "";
        size_t used = 0;
        if (!s->n_axes)
            mcfi_text_printf(&rows, "%zu", k);
        for (size_t a = 0; a < s->n_axes; a++) {
            const char *v = mcfi_setup_axis_value(s, a, k)->text;
            mcfi_text_printf(&rows, "%s%s", a ? "\t" : "", v);
            if (used < sizeof point)
                used += (size_t)snprintf(point + used, sizeof point - used, "%s%s=%s",
                                         a ? " " : "", s->axes[a].name, v);
        }
        /* the summary on the terminal: the first chains, their headline quantities */
        const size_t max_summary = 24;
        if (k < max_summary)
            mcfi_text_printf(&sum, "%s", s->n_axes ? point : "result");
        else if (k == max_summary)
            mcfi_text_printf(&sum, "... (%zu scan points in all: see results.tsv)\n",
                             n_points);
        for (size_t o = 0; o < r->n_obs; o++) {
            mcf_estimate est;
            mcfi_blocking_estimate(&c->blocking[o], &est);
            if (R > 1) {
                /* independent walkers with equal measurement counts */
                double sm = est.mean, se2 = est.error * est.error, st = est.tau;
                for (size_t w = 1; w < R; w++) {
                    mcf_estimate ew;
                    mcfi_blocking_estimate(&r->chains[k * R + w].blocking[o], &ew);
                    sm += ew.mean;
                    se2 += ew.error * ew.error;
                    st += ew.tau;
                }
                est.mean = sm / (double)R;
                est.error = sqrt(se2) / (double)R;
                est.tau = st / (double)R;
            }
            put_number(&rows, est.mean);
            put_number(&rows, est.error);
            put_number(&rows, est.tau * (double)s->measure_every);
            /* headline: the observables with a role (energy, |m|), or the first ones */
            const int role = (int)obs[r->scalar[o]].role;
            if (k < max_summary &&
                (role == MCF_ROLE_ENERGY || role == MCF_ROLE_ORDER ||
                 (e < 0 && m < 0 && o < 3)))
                put_estimate(&sum, obs[r->scalar[o]].name, est.mean, est.error);
        }
        /* jackknife bins: the union of the walkers' bins, each with its weight */
        size_t used_bins = 0;
        for (size_t w = 0; w < R; w++) {
            const mcf_chain *cw = &r->chains[k * R + w];
            for (size_t b = 0; b < nb; b++) {
                if (cw->bin_count[b] <= 0)
                    continue;
                for (size_t v = 0; v < r->nvars; v++)
                    means[used_bins * r->nvars + v] =
                        cw->bin_sum[b * r->nvars + v] / cw->bin_count[b];
                weights[used_bins++] = cw->bin_count[b];
            }
        }
        double N = (double)c->units, T = c->model_params->temperature;
        struct {
            int want;
            mcf_jackknife_fn f;
            int a, b;
            const char *name;
        } d[4] = {{want_c, specific_heat, e, (int)r->n_obs, "specific_heat"},
                  {want_chi, susceptibility, m, m2, "susceptibility"},
                  {want_u, binder, m2, m4, "binder"},
                  {want_var, variance, e, (int)r->n_obs, "variance"}};
        for (int q = 0; q < 4; q++) {
            if (!d[q].want)
                continue;
            derived_ctx ctx = {d[q].a, d[q].b, N, T};
            double value, error;
            mcfi_jackknife(means, weights, used_bins, r->nvars, d[q].f, &ctx, &value, &error);
            put_number(&rows, value);
            put_number(&rows, error);
            if (k < max_summary && (q == 2 || q == 3))
                put_estimate(&sum, d[q].name, value, error);
        }
        uint64_t accepted = 0, proposed = 0;
        for (size_t w = 0; w < R; w++) {
            accepted += r->chains[k * R + w].accepted;
            proposed += r->chains[k * R + w].proposed;
        }
        const double acc = proposed ? (double)accepted / (double)proposed : NAN;
        put_number(&rows, acc);
        mcfi_text_printf(&rows, "\n");
        if (k < max_summary)
            mcfi_text_printf(&sum, "  acceptance %.3f\n", acc);
    }
    free(means);
    free(weights);
    if (pt_sum.len) {
        /* the tempering lines go to the terminal with the summary and into the log */
        mcfi_text_printf(&sum, "%s", pt_sum.s);
        log_lines(MCF_LOG_INFO, pt_sum.s, 0, 0);
    }
    if (pt_sum.failed)
        sum.failed = 1;
    free(pt_sum.s);
    /* the checks: one "# warning:" line per finding here and in the log, a line per kind
       of finding on the terminal */
    mcf_text checks = {0};
    int rc = mcfi_equilibration_report(r, &warn, &checks);
    if (warn.len)
        mcfi_text_printf(&t, "%s", warn.s);
    mcfi_text_printf(&t, "%s", rows.s ? rows.s : "");
    if (!rc && (t.failed || rows.failed || warn.failed))
        rc = mcf_fail(MCF_ENOMEM, "out of memory writing results");
    if (!rc) {
        char path[4200];
        rc = write_curves(r);
        snprintf(path, sizeof path, "%s/results.tsv", r->dir);
        if (!rc)
            rc = mcfi_write_atomic(path, t.s, t.len);
        /* the details into the log, the summary lines to the terminal (and the log) */
        if (!rc) {
            log_lines(MCF_LOG_WARN, warn.s, strlen("# warning: "), 1);
            log_lines(MCF_LOG_WARN, checks.s, 0, 0);
        }
    }
    free(checks.s);
    free(t.s);
    free(rows.s);
    free(warn.s);
    if (!rc && !sum.failed)
        *summary = sum.s;
    else
        free(sum.s);
    return rc;
}
