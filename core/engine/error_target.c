/* error_target.c — [schedule] error_target: measure until the error bars are small enough
 * (error_target.h says how doubling keeps the bins and the checkpoints). */
#define _POSIX_C_SOURCE 200809L
#include "error_target.h"
#include "chain.h"
#include "mcf_mpi.h"
#include "results_table.h"
#include "run_state.h"
#include "series.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcfi_error_target_free(mcf_setup *s)
{
    for (size_t k = 0; k < s->n_targets; k++)
        free(s->targets[k].name);
    free(s->targets);
    s->targets = NULL;
    s->n_targets = 0;
}

const mcfi_error_target *mcfi_error_target_find(const mcf_setup *s, const char *name)
{
    for (size_t k = 0; k < s->n_targets; k++)
        if (!strcmp(s->targets[k].name, name))
            return &s->targets[k];
    return NULL;
}

/* One "NAME:VALUE[%]" (trimmed, not empty) into *t. */
static int parse_one(char *item, const char *where, mcfi_error_target *t)
{
    char *colon = strchr(item, ':');
    if (!colon)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] error_target: '%s' is not NAME:VALUE "
                        "(e.g. abs_m:0.005, or abs_m:1%% for 1%% of |abs_m|)", where, item);
    *colon = '\0';
    char *name = mcfi_trim(item), *num = mcfi_trim(colon + 1);
    size_t n = strlen(num);
    int relative = n > 0 && num[n - 1] == '%';
    if (relative)
        num[--n] = '\0';
    mcfi_trim(num);
    for (const char *q = name; *q; q++)
        if (!(islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_'))
            return mcf_fail(MCF_EINVAL, "%s: [schedule] error_target: '%s' is not a column "
                            "name (lower_snake_case, as in results.tsv)", where, name);
    errno = 0;
    char *end = NULL;
    double v = strtod(num, &end);
    if (!*name || !*num || !end || *end || errno || !isfinite(v) || v <= 0)
        return mcf_fail(MCF_EINVAL, "%s: [schedule] error_target: '%s:%s%s' needs a column "
                        "name and a finite value > 0 (e.g. abs_m:0.005, or abs_m:1%%)", where,
                        name, num, relative ? "%" : "");
    t->name = strdup(name);
    t->value = relative ? v / 100.0 : v;
    t->relative = relative;
    return t->name ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory");
}

int mcfi_error_target_parse(const char *text, const char *where, mcf_setup *s)
{
    char *copy = strdup(text);
    if (!copy)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    size_t cap = 1;
    for (const char *q = text; *q; q++)
        cap += *q == ' ' || *q == '\t';
    s->targets = calloc(cap, sizeof *s->targets);
    int rc = s->targets ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory");
    char *save = NULL;
    for (char *item = strtok_r(copy, " \t", &save); item && !rc;
         item = strtok_r(NULL, " \t", &save)) {
        item = mcfi_trim(item);
        if (!*item || (rc = parse_one(item, where, &s->targets[s->n_targets])))
            continue;
        const char *name = s->targets[s->n_targets++].name;
        for (size_t k = 0; k + 1 < s->n_targets && !rc; k++)
            if (strcmp(s->targets[k].name, name) == 0)
                rc = mcf_fail(MCF_EINVAL, "%s: [schedule] error_target names %s twice", where,
                              name);
    }
    if (!rc && s->n_targets == 0)
        rc = mcf_fail(MCF_EINVAL, "%s: [schedule] error_target is empty; give NAME:VALUE (e.g. "
                      "abs_m:0.005) or leave the key out", where);
    free(copy);
    return rc;
}

int mcfi_error_target_check(const mcf_config *c, mcf_setup *s)
{
    char where[512];
    if (!s->n_targets) {
        mcfe_config_key_where(c, "schedule", "max_sweeps", where, sizeof where);
        if (s->max_sweeps)
            return mcf_fail(MCF_EINVAL, "%s: [schedule] max_sweeps = %ld caps the doubling of "
                            "error_target, which is not given; give error_target or leave "
                            "max_sweeps out", where, s->max_sweeps);
        return MCF_OK;
    }
    mcfe_config_key_where(c, "schedule", "error_target", where, sizeof where);
    for (size_t k = 0; k < s->n_targets; k++) /* tc: the driver's (run.c refuses without) */
        if (strcmp(s->targets[k].name, "tc") && !mcfi_results_error_column(s, s->targets[k].name))
            return mcf_fail(MCF_EINVAL, "%s: [schedule] error_target: results.tsv of model '%s' "
                            "has no column %s with an error (%s_err): name a scalar "
                            "observable (`mcf describe %s`) or a derived quantity the run "
                            "has (specific_heat, susceptibility, binder, variance, "
                            "xi_over_l)", where,
                            s->model_name, s->targets[k].name, s->targets[k].name,
                            s->model_name);
    if (s->sweeps % s->measure_every != 0) {
        mcfe_config_key_where(c, "schedule", "sweeps", where, sizeof where);
        return mcf_fail(MCF_EINVAL, "%s: [schedule] error_target doubles the measured sweeps, "
                        "which needs sweeps = %ld to be a multiple of measure_every = %ld; "
                        "use sweeps = %ld", where, s->sweeps, s->measure_every,
                        (s->sweeps / s->measure_every + 1) * s->measure_every);
    }
    if (s->max_sweeps == 0)
        s->max_sweeps = s->sweeps <= LONG_MAX / 16 ? 16 * s->sweeps : s->sweeps;
    if (s->max_sweeps < s->sweeps) {
        mcfe_config_key_where(c, "schedule", "max_sweeps", where, sizeof where);
        return mcf_fail(MCF_EINVAL, "%s: [schedule] max_sweeps = %ld is below sweeps = %ld; "
                        "the run measures sweeps, then doubles up to max_sweeps", where,
                        s->max_sweeps, s->sweeps);
    }
    long top = s->sweeps;
    while (top <= s->max_sweeps / 2)
        top *= 2;
    s->max_sweeps = top;
    /* a measurement's bin is t * bins / n_meas in 64 bits (core_keys.c checked sweeps) */
    if ((uint64_t)top / (uint64_t)s->measure_every > UINT64_MAX / (uint64_t)s->bins) {
        mcfe_config_key_where(c, "schedule", "max_sweeps", where, sizeof where);
        return mcf_fail(MCF_EINVAL, "%s: [schedule] max_sweeps: %ld measured sweeps are too "
                        "many to count in %ld bins; lower max_sweeps", where, top, s->bins);
    }
    return MCF_OK;
}

uint64_t mcfi_measured_sweeps_at(const mcf_setup *s, uint64_t position)
{
    uint64_t sweeps = (uint64_t)s->sweeps, therm = (uint64_t)s->thermalize;
    if (!s->n_targets)
        return sweeps;
    while (position > therm + sweeps && sweeps < (uint64_t)s->max_sweeps)
        sweeps *= 2;
    return sweeps;
}

uint64_t mcfi_measured_sweeps_max(const mcf_setup *s)
{
    return s->n_targets ? (uint64_t)s->max_sweeps : (uint64_t)s->sweeps;
}

void mcfi_run_set_measured(mcf_run *r, uint64_t sweeps)
{
    r->sweeps = sweeps;
    r->n_meas = sweeps / (uint64_t)r->setup->measure_every;
    r->total = (uint64_t)r->setup->thermalize + sweeps;
}

/* Column index of `name` in t, or n_cols */
static size_t column(const mcfi_table *t, const char *name)
{
    size_t k = 0;
    while (k < t->n_cols && strcmp(t->cols[k].name, name) != 0)
        k++;
    return k;
}

/* "T = 0.1, L = 4": the scan columns of row j (the columns before the first observable's,
 * which are the scan's: results_table.h) */
static void describe_row(const mcf_run *r, const mcfi_table *t, size_t j, char *out, size_t n)
{
    size_t scan = r->setup->n_axes ? r->setup->n_axes : 1, at = 0;
    out[0] = '\0';
    for (size_t k = 0; k < scan && k < t->n_cols && at < n; k++) {
        const mcfi_column *c = &t->cols[k];
        int w = c->x ? snprintf(out + at, n - at, "%s%s = %.6g", k ? ", " : "", c->name, c->x[j])
                     : snprintf(out + at, n - at, "%s%s = %s", k ? ", " : "", c->name,
                                c->text[j]);
        at += w > 0 ? (size_t)w : 0;
    }
}

/* 1 when the errors behind column `name` at scan point p reached a plateau in every walker
 * (stats.c): an observable's own, or for a derived column (specific_heat, binder, ...) those
 * of the observables with a role.  An error without a plateau is an extrapolation from
 * blocks not much longer than tau (docs/methods.md), too uncertain to stop on, so a target
 * it seems to meet is not met. */
static int point_plateau(const mcf_run *r, size_t p, const char *name)
{
    const size_t R = (size_t)r->setup->walkers;
    int own = -1;
    for (size_t o = 0; o < r->n_obs && own < 0; o++)
        if (strcmp(r->model->observables[r->scalar[o]].name, name) == 0)
            own = (int)o;
    for (size_t w = 0; w < R; w++) {
        const mcf_chain *c = &r->chains[p * R + w];
        for (size_t o = 0; o < r->n_obs; o++) {
            int used = own >= 0 ? (int)o == own : 0;
            for (size_t k = 1; own < 0 && k < sizeof r->role / sizeof r->role[0]; k++)
                used |= r->role[k] == (int)o;
            if (!used)
                continue;
            mcf_estimate est;
            mcfi_blocking_estimate(&c->blocking[o], &est);
            if (!est.converged && est.count >= 2)
                return 0;
        }
    }
    return 1;
}

/* Rank 0: how the targets stand in table t.  Returns 1 when every point meets every
 * target; the worst miss (or, when all are met, the point closest to its bound) goes into
 * the report. */
static int targets_met(mcf_run *r, const mcfi_table *t, char *report, size_t n)
{
    const mcf_setup *s = r->setup;
    double worst = -1.0;
    size_t short_points = 0;
    char what[512] = "";
    for (size_t j = 0; j < t->n_rows; j++) {
        int row_short = 0;
        for (size_t q = 0; q < s->n_targets; q++) {
            const mcfi_error_target *g = &s->targets[q];
            char err_name[256];
            snprintf(err_name, sizeof err_name, "%s_err", g->name);
            size_t cv = column(t, g->name), ce = column(t, err_name);
            if (cv == t->n_cols || ce == t->n_cols)
                continue; /* checked at setup: not reached */
            double mean = t->cols[cv].x[j], err = t->cols[ce].x[j];
            double bound = g->relative ? g->value * fabs(mean) : g->value;
            /* a NaN error (too few bins filled) or bound misses; ratio sorts the misses */
            double ratio = isfinite(err) && bound > 0 ? err / bound : INFINITY;
            const int plateau = point_plateau(r, j, g->name);
            if (!plateau && ratio <= 1.0)
                ratio = 1.0 + 1e-9 * ratio; /* a miss, ranked below the real ones */
            if (!(ratio <= 1.0))
                row_short = 1;
            if (ratio > worst || worst < 0) {
                worst = ratio;
                char point[256];
                describe_row(r, t, j, point, sizeof point);
                const char *lower = plateau ? "" : ", not trusted: no plateau yet";
                if (g->relative)
                    snprintf(what, sizeof what, "%s_err = %.3g is %.3g%% of |%s| = %.6g "
                             "(target %.3g%%%s)%s%s", g->name, err,
                             100.0 * err / fabs(mean), g->name, fabs(mean), 100.0 * g->value,
                             lower, point[0] ? " at " : "", point);
                else
                    snprintf(what, sizeof what, "%s_err = %.3g (target %.3g%s)%s%s", g->name,
                             err, g->value, lower, point[0] ? " at " : "", point);
            }
        }
        short_points += (size_t)row_short;
    }
    if (short_points)
        snprintf(report, n, "%zu of %zu scan points miss the target; the furthest: %s",
                 short_points, t->n_rows, what);
    else
        snprintf(report, n, "every scan point meets it; the closest: %s", what);
    return short_points == 0;
}

/* Rank 0: target tc, T_c's error from the analysis of the series written so far (the
 * mcf tc driver's tc_estimate); *met is and-ed with it and its standing joins the report
 * (replaces it when tc is the only target). */
static int tc_met(mcf_run *r, const mcfi_error_target *g, int alone, char *report, size_t n,
                  uint64_t *met)
{
    double tc = NAN, err = NAN;
    int rc = r->tc_estimate(r->dir, ".series-partial", r->tc_ctx, &tc, &err);
    if (rc)
        return rc;
    const double bound = g->relative ? g->value * fabs(tc) : g->value;
    const int ok = isfinite(err) && err <= bound;
    char line[256];
    if (g->relative)
        snprintf(line, sizeof line, "T_c = %.6g +- %.3g, %.3g%% (target %.3g%%)", tc, err,
                 100.0 * err / fabs(tc), 100.0 * g->value);
    else
        snprintf(line, sizeof line, "T_c = %.6g +- %.3g (target %.3g)", tc, err, g->value);
    if (alone) {
        snprintf(report, n, "%s", line);
        *met = (uint64_t)ok;
    } else {
        size_t used = strlen(report);
        snprintf(report + used, n - used, "; %s", line);
        *met = *met && ok;
    }
    return MCF_OK;
}

int mcfi_error_target_decide(mcf_run *r, int *extend)
{
    const mcf_setup *s = r->setup;
    *extend = 0;
    if (!s->n_targets)
        return MCF_OK;
    uint64_t head[2] = {0, 0}; /* met, status */
    char report[512] = "";
    const mcfi_error_target *tc = mcfi_error_target_find(s, "tc");
    int flushed = tc ? mcfe_mpi_agree(mcfi_series_flush(r)) : MCF_OK;
    if (flushed)
        return flushed;
    if (r->rank == 0) {
        mcfi_table t;
        int rc = mcfi_results_table(r, &t);
        if (!rc) {
            head[0] = (uint64_t)targets_met(r, &t, report, sizeof report);
            mcfi_table_free(&t);
        }
        if (!rc && tc) /* T_c's error from the series so far, by the driver's analysis */
            rc = tc_met(r, tc, s->n_targets == 1, report, sizeof report, &head[0]);
        head[1] = (uint64_t)rc;
    }
    mcfi_mpi_bcast_u64(head, 2);
    int rc = mcfe_mpi_agree((int)head[1]);
    if (rc)
        return rc;
    const int met = (int)head[0];
    const int can_double = r->sweeps <= (uint64_t)s->max_sweeps / 2;
    *extend = !met && can_double;
    r->target_state = met ? 1 : can_double ? 0 : 2;
    if (r->rank == 0) {
        if (met)
            snprintf(r->target_report, sizeof r->target_report, "error target met after %llu "
                     "measured sweeps: %s", (unsigned long long)r->sweeps, report);
        else if (can_double)
            snprintf(r->target_report, sizeof r->target_report, "error target missed after "
                     "%llu measured sweeps: %s; measuring on to %llu sweeps",
                     (unsigned long long)r->sweeps, report, 2 * (unsigned long long)r->sweeps);
        else
            snprintf(r->target_report, sizeof r->target_report, "error target missed at "
                     "max_sweeps = %ld: %s; a new run with a larger [schedule] max_sweeps "
                     "(or sweeps) gets there",
                     s->max_sweeps, report);
        /* the final state reaches the terminal with the results' summary (results.c) */
        if (!met && can_double)
            mcf_log(MCF_LOG_INFO, "%s", r->target_report);
        else
            mcf_log_file_only(met ? MCF_LOG_INFO : MCF_LOG_WARN, "%s", r->target_report);
    }
    if (!*extend)
        return MCF_OK;
    /* every chain with accumulators here (rank 0 holds copies of all; they are replaced at
       the next gather) */
    for (size_t k = 0; k < r->n_chains; k++)
        if (r->chains[k].bin_count)
            mcfi_chain_merge_bins(r, &r->chains[k]);
    mcfi_run_set_measured(r, 2 * r->sweeps);
    return MCF_OK;
}
