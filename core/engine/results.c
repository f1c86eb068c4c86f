/* results.c — results.tsv: one row per scan point with every observable's mean, error
 * (blocking) and autocorrelation time, derived quantities with jackknife errors, and the
 * acceptance rate (the numbers: results_table.c), the curve files, the checks' warnings
 * (equilibration.c) and the summary for the terminal.  Nothing time- or host-dependent goes
 * in them, so a resumed run writes the same bytes as an uninterrupted one. */
#include "results.h"

#include "equilibration.h"
#include "fileio.h"
#include "labels.h"
#include "results_table.h"
#include "timestep_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "mean +- error" with the error to 2 significant digits and the mean to the same
 * decimal place (or %g when the error is not positive and finite) */
static void put_estimate(mcf_text *t, const char *name, double mean, double error)
{
    const int digits = isfinite(mean) ? mcfe_error_decimals(error) : -1;
    if (digits >= 0)
        mcfe_text_printf(t, "  %s %.*f +- %.*f", name, digits, mean, digits, error);
    else
        mcfe_text_printf(t, "  %s %.10g", name, mean);
}

static void put_number(mcf_text *t, double x)
{
    if (isnan(x))
        mcfe_text_printf(t, "\tnan");
    else
        mcfe_text_printf(t, "\t%.10g", x);
}

/* Points of curve k summed over the chains: 0 when the model switched it off. */
static size_t curve_total_points(const mcf_run *r, size_t k)
{
    size_t n = 0;
    for (size_t ci = 0; ci < r->n_chains; ci++)
        n += r->chains[ci].points[r->curve[k]];
    return n;
}

/* The scan columns of scan point k, as config.ini wrote them (a row of results.tsv or of
 * a curve file starts with them). */
static void put_scan(mcf_text *t, const mcf_setup *s, size_t k)
{
    if (!s->n_axes)
        mcfe_text_printf(t, "%zu", k);
    for (size_t a = 0; a < s->n_axes; a++)
        mcfe_text_printf(t, "%s%s", a ? "\t" : "", mcfi_setup_axis_value(s, a, k)->text);
}

/* The walkers of a scan point must agree on a curve's length (results_table.c reads the
 * bins of all of them as one set). */
static int check_curve_lengths(const mcf_run *r, size_t o)
{
    const size_t R = (size_t)r->setup->walkers;
    for (size_t ci = 0; ci < r->n_chains; ci++)
        if (r->chains[ci].points[o] != r->chains[ci - ci % R].points[o])
            return mcf_fail(MCF_EPLUGIN, "model %s: curve %s has %zu points in chain %zu but "
                            "%zu in chain %zu of the same scan point", r->setup->model_name,
                            r->model->observables[o].name, r->chains[ci].points[o], ci,
                            r->chains[ci - ci % R].points[o], ci - ci % R);
    return MCF_OK;
}

/* The "# labels:" line of a table's columns. */
static void put_labels(mcf_text *t, const mcfi_labels *labels, const mcfi_table *tab)
{
    const char **names = malloc((tab->n_cols + 1) * sizeof *names);
    if (!names) {
        t->failed = 1;
        return;
    }
    for (size_t c = 0; c < tab->n_cols; c++)
        names[c] = tab->cols[c].name;
    mcfi_labels_line(labels, names, tab->n_cols, t);
    free(names);
}

/* <dir>/<name>.tsv for every curve observable that some chain measures (curve_points() > 0):
 * scan columns, axis, value, error; the numbers are results_table.c's. */
static int write_curves(const mcf_run *r, const mcfi_labels *labels)
{
    const mcf_setup *s = r->setup;
    const mcf_observable *obs = r->model->observables;
    size_t nb = (size_t)s->bins;
    size_t R = (size_t)s->walkers, n_points = r->n_chains / R;
    int rc = MCF_OK;
    for (size_t k = 0; k < r->n_curves && !rc; k++) {
        size_t o = r->curve[k];
        if (curve_total_points(r, k) == 0)
            continue;
        mcfi_table tab;
        if ((rc = check_curve_lengths(r, o)) || (rc = mcfi_curve_table(r, k, &tab)))
            break;
        int geometric = (obs[o].flags & MCF_OBS_GEOMETRIC_MEAN) != 0;
        mcf_text t = {0};
        mcfe_text_printf(&t, "# mcf %s curve: %s — %s\n", MCF_VERSION_STRING, obs[o].name,
                         obs[o].doc ? obs[o].doc : "");
        mcfe_text_printf(&t, "# errors: jackknife over %zu bins of the measurements%s\n", nb,
                         geometric ? "; geometric mean exp<log x>, error exp(mean) x error of "
                                    "<log x>" : "");
        mcfe_text_printf(&t, "# scan:");
        for (size_t a = 0; a < s->n_axes; a++)
            mcfe_text_printf(&t, " %s", s->axes[a].name);
        mcfe_text_printf(&t, " %s\n", obs[o].axis);
        put_labels(&t, labels, &tab);
        if (!s->n_axes)
            mcfe_text_printf(&t, "point");
        for (size_t a = 0; a < s->n_axes; a++)
            mcfe_text_printf(&t, "%s%s", a ? "\t" : "", s->axes[a].name);
        mcfe_text_printf(&t, "\t%s\t%s\t%s_err\n", obs[o].axis, obs[o].name, obs[o].name);
        /* one block of rows per scan point, in the table's order; its last three columns
           are the axis, the value and the error */
        const mcfi_column *axis = &tab.cols[tab.n_cols - 3];
        for (size_t ci = 0, j = 0; ci < n_points; ci++)
            for (size_t p = 0; p < r->chains[ci * R].points[o]; p++, j++) {
                put_scan(&t, s, ci);
                put_number(&t, axis[0].x[j]);
                put_number(&t, axis[1].x[j]);
                put_number(&t, axis[2].x[j]);
                mcfe_text_printf(&t, "\n");
            }
        mcfi_table_free(&tab);
        if (t.failed) {
            rc = mcf_fail(MCF_ENOMEM, "out of memory writing %s.tsv", obs[o].name);
        } else {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s.tsv", r->dir, obs[o].name);
            rc = mcfe_write_atomic(path, t.s, t.len);
        }
        free(t.s);
    }
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
    mcfe_text_printf(t, "# tempering: exchange_every %llu sweeps: neighbouring temperatures "
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
            mcfe_text_printf(t, "# exchange: %sT %s <-> %s: accepted %llu of %llu (%.4f)\n",
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
                mcfe_text_printf(t, "# round trips: %sreplica starting at T %s: %llu, mean %.1f "
                                 "sweeps\n", pre,
                                 s->axes[s->n_axes - 1].values[pt->order[j]].text,
                                 (unsigned long long)pt->trips[k],
                                 (double)pt->trip_sweeps[k] / (double)pt->trips[k]);
            else
                mcfe_text_printf(t, "# round trips: %sreplica starting at T %s: 0\n", pre,
                                 s->axes[s->n_axes - 1].values[pt->order[j]].text);
        }
        if (g < 24) {
            mcfe_text_printf(sum, "tempering %sexchange acceptance %.3f to %.3f over %zu pairs; "
                             "%llu round trips", pre, amin, amax, nT - 1,
                             (unsigned long long)trips);
            if (trips)
                mcfe_text_printf(sum, ", mean %.0f sweeps", (double)sweeps / (double)trips);
            mcfe_text_printf(sum, "\n");
        }
    }
}

/* One line for the terminal: what the run measured, of what, where and how long.  The
 * model's parameters that differ from their defaults (and the scanned ones as ranges)
 * say "of what"; the observables and the derived quantities of the table "what" (the
 * table's columns after the observables' NAME, NAME_err, tau_NAME come in pairs, value and
 * error, up to the acceptance). */
static void what_was_measured(const mcf_run *r, const mcfi_table *tab, mcf_text *sum)
{
    const mcf_setup *s = r->setup;
    const mcf_observable *obs = r->model->observables;
    mcfe_text_printf(sum, "measured");
    for (size_t o = 0; o < r->n_obs; o++)
        mcfe_text_printf(sum, "%s%s", o ? ", " : " ", obs[r->scalar[o]].name);
    const size_t derived = (s->n_axes ? s->n_axes : 1) + 3 * r->n_obs;
    for (size_t col = derived; col + 1 < tab->n_cols; col += 2)
        mcfe_text_printf(sum, ", %s", tab->cols[col].name);
    mcfe_text_printf(sum, " of %s", s->model_name);
    const mcf_section *m = &s->sections[0];
    int first = 1;
    for (size_t j = 0; j < m->n; j++) {
        const mcf_param_spec *spec = &m->specs[j];
        if (m->axis[j] >= 0 || !m->text[j] ||
            (spec->default_value && strcmp(spec->default_value, m->text[j]) == 0))
            continue;
        mcfe_text_printf(sum, "%s%s=%s", first ? " (" : ", ", spec->name, m->text[j]);
        first = 0;
    }
    mcfe_text_printf(sum, "%s", first ? "" : ")");
    if (s->evaluator)
        mcfe_text_printf(sum, " with %s", s->evaluator_name);
    for (size_t a = 0; a < s->n_axes; a++) {
        const mcf_axis *ax = &s->axes[a];
        if (ax->n == 1)
            mcfe_text_printf(sum, "%s %s=%s", a ? "," : " at", ax->name, ax->values[0].text);
        else
            mcfe_text_printf(sum, "%s %zu values of %s from %s to %s", a ? "," : " at", ax->n,
                             ax->name, ax->values[0].text, ax->values[ax->n - 1].text);
    }
    mcfe_text_printf(sum, "; %ld chain%s each, %llu sweeps after %ld of thermalization\n",
                     s->walkers, s->walkers > 1 ? "s" : "", (unsigned long long)r->sweeps,
                     s->thermalize);
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
            mcf_log_file_only(level, "%s", line + skip);
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
    const mcf_observable *obs = r->model->observables;
    mcf_text t = {0}, warn = {0};
    const int e = r->role[MCF_ROLE_ENERGY], m = r->role[MCF_ROLE_ORDER];
    size_t nb = (size_t)s->bins;
    size_t R = (size_t)s->walkers, n_points = r->n_chains / R;
    /* the numbers are results_table.c's (results.h5 has the same), printed with 10 digits */
    mcfi_table tab;
    mcfi_labels labels;
    int rc = mcfi_results_table(r, &tab);
    if (rc)
        return rc;
    if ((rc = mcfi_labels_build(r, &labels))) {
        mcfi_table_free(&tab);
        return rc;
    }

    mcfe_text_printf(&t, "# mcf %s results\n", MCF_VERSION_STRING);
    mcfe_text_printf(&t, "# model: %s %s\n", s->model_name, s->model->info->version);
    mcfe_text_printf(&t, "# evaluator: %s%s%s%s\n", s->evaluator_name,
                     s->evaluator ? " " : "", s->evaluator ? s->evaluator->info->version : "",
                     s->evaluator_auto ? " (auto)" : "");
    mcfe_text_printf(&t, "# seed: %llu\n", (unsigned long long)s->seed);
    mcfe_text_printf(&t, "# schedule: thermalize %ld, sweeps %llu, measure_every %ld, "
                     "measurements %llu per chain\n", s->thermalize,
                     (unsigned long long)r->sweeps, s->measure_every,
                     (unsigned long long)r->n_meas);
    /* error_target: met (a note), or missed at max_sweeps (a warning, also on the
       terminal with the checks' lines) */
    if (r->target_state == 1)
        mcfe_text_printf(&t, "# %s\n", r->target_report);
    char dmc_step[32];
    snprintf(dmc_step, sizeof dmc_step, "%g", s->dmc_tau);
    if (s->dmc)
        mcfe_text_printf(&t, "# dmc: a population of %zu walkers per scan point, time step %s; "
                         "every measured sweep the weighted mean of the walkers' values (the "
                         "mixed estimator), one series per point: its errors by blocking over "
                         "sweeps; timestep_effective = timestep x acceptance\n", R,
                         mcfi_timestep_axis(s) >= 0 ? "the scan column timestep" : dmc_step);
    else if (R > 1)
        mcfe_text_printf(&t, "# walkers: %zu chains per scan point, combined: mean of the walkers' "
                         "means, error sqrt(sum err^2) / %zu, tau the walkers' mean; jackknife "
                         "over the %zu x %zu bins of all walkers\n", R, R, R, nb);
    mcfe_text_printf(&t, "# errors: blocking analysis (Flyvbjerg-Petersen); tau_<name> in "
                     "sweeps; derived quantities: jackknife over %zu bins\n", nb);
    mcfe_text_printf(&t, "# scan:");
    for (size_t a = 0; a < s->n_axes; a++)
        mcfe_text_printf(&t, " %s", s->axes[a].name);
    mcfe_text_printf(&t, "\n");
    if (r->n_curves) {
        mcfe_text_printf(&t, "# curves:");
        for (size_t k = 0; k < r->n_curves; k++)
            if (curve_total_points(r, k))
                mcfe_text_printf(&t, " %s", obs[r->curve[k]].name);
        mcfe_text_printf(&t, "\n");
    }
    put_labels(&t, &labels, &tab);

    what_was_measured(r, &tab, &sum);
    mcf_text pt_sum = {0};
    if (r->pt)
        write_tempering(r, &t, &pt_sum);

    /* rows first into a second buffer so the warnings can precede the header */
    const size_t n_scan = s->n_axes ? s->n_axes : 1, first = n_scan;
    mcf_text rows = {0};
    for (size_t col = 0; col < tab.n_cols; col++)
        mcfe_text_printf(&rows, "%s%s", col ? "\t" : "", tab.cols[col].name);
    mcfe_text_printf(&rows, "\n");
    /* the derived quantities' columns follow the observables' (name, _err, tau_) */
    const size_t derived = first + 3 * r->n_obs;
    for (size_t k = 0; k < n_points; k++) {
        put_scan(&rows, s, k);
        for (size_t col = n_scan; col < tab.n_cols; col++)
            put_number(&rows, tab.cols[col].x[k]);
        mcfe_text_printf(&rows, "\n");
        /* the summary on the terminal: the first points, their headline quantities (the
           observables with a role, energy and |m|, or the first ones; the Binder cumulant
           or the variance) and the acceptance */
        const size_t max_summary = 24;
        if (k == max_summary)
            mcfe_text_printf(&sum, "... (%zu scan points in all: see results.tsv)\n",
                             n_points);
        if (k >= max_summary)
            continue;
        if (!s->n_axes)
            mcfe_text_printf(&sum, "result");
        for (size_t a = 0; a < s->n_axes; a++)
            mcfe_text_printf(&sum, "%s%s=%s", a ? " " : "", s->axes[a].name,
                             mcfi_setup_axis_value(s, a, k)->text);
        for (size_t o = 0; o < r->n_obs; o++) {
            const int role = (int)obs[r->scalar[o]].role;
            if (role == MCF_ROLE_ENERGY || role == MCF_ROLE_ORDER || (e < 0 && m < 0 && o < 3))
                put_estimate(&sum, obs[r->scalar[o]].name, tab.cols[first + 3 * o].x[k],
                             tab.cols[first + 3 * o + 1].x[k]);
        }
        for (size_t col = derived; col + 1 < tab.n_cols; col += 2)
            if (!strcmp(tab.cols[col].name, "binder") || !strcmp(tab.cols[col].name, "variance"))
                put_estimate(&sum, tab.cols[col].name, tab.cols[col].x[k], tab.cols[col + 1].x[k]);
        /* the last column, or under DMC the one before timestep_effective */
        mcfe_text_printf(&sum, "  acceptance %.3f\n",
                         tab.cols[tab.n_cols - (s->dmc ? 2 : 1)].x[k]);
    }
    /* DMC over time steps: E(tau) -> 0 (timestep.tsv; its warnings lead the header) */
    rc = mcfi_timestep_report(r, &tab, &sum, &warn);
    mcfi_table_free(&tab);
    if (rc) {
        mcfi_labels_free(&labels);
        free(t.s);
        free(rows.s);
        free(warn.s);
        free(sum.s);
        free(pt_sum.s);
        return rc;
    }
    if (pt_sum.len) {
        /* the tempering lines go to the terminal with the summary and into the log */
        mcfe_text_printf(&sum, "%s", pt_sum.s);
        log_lines(MCF_LOG_INFO, pt_sum.s, 0, 1); /* the terminal has it in the summary */
    }
    if (pt_sum.failed)
        sum.failed = 1;
    free(pt_sum.s);
    /* the checks: one "# warning:" line per finding here and in the log, a line per kind
       of finding on the terminal */
    mcf_text checks = {0};
    mcfi_shells_report(s, &t); /* degenerate shells at mu (the log had them at the start) */
    if (r->target_state == 2) { /* the log has it from error_target.c */
        mcfe_text_printf(&t, "# warning: %s\n", r->target_report);
        mcfe_text_printf(&sum, "warning: %s\n", r->target_report);
    } else if (r->target_state == 1) {
        mcfe_text_printf(&sum, "%s\n", r->target_report);
    }
    for (int q = 0; q < 4; q++) { /* the log and the terminal had it at the start */
        char why[1024];
        if (mcfi_results_noise_message(s, q, why, sizeof why))
            mcfe_text_printf(&t, "# warning: %s\n", why);
    }
    rc = mcfi_equilibration_report(r, &warn, &checks);
    if (warn.len)
        mcfe_text_printf(&t, "%s", warn.s);
    mcfe_text_printf(&t, "%s", rows.s ? rows.s : "");
    if (!rc && (t.failed || rows.failed || warn.failed))
        rc = mcf_fail(MCF_ENOMEM, "out of memory writing results");
    if (!rc) {
        char path[4200];
        rc = write_curves(r, &labels);
        snprintf(path, sizeof path, "%s/results.tsv", r->dir);
        if (!rc)
            rc = mcfe_write_atomic(path, t.s, t.len);
        /* the details into the log, the summary lines to the terminal (and the log) */
        if (!rc) {
            log_lines(MCF_LOG_WARN, warn.s, strlen("# warning: "), 1);
            log_lines(MCF_LOG_WARN, checks.s, 0, 0);
        }
    }
    mcfi_labels_free(&labels);
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
