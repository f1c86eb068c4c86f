/* equilibration.c — the checks of a finished run (see equilibration.h).
 *
 * Three questions, each answered from what the chains already accumulate (no extra memory,
 * nothing that a resume could change):
 *  - Did the error reach a plateau?  stats.c's blocking analysis says converged or not; when
 *    not, its tau is extrapolated from blocks shorter than the plateau needs (an estimate
 *    that assumes an exponential autocorrelation; a lower bound where even the longest
 *    usable blocks are shorter than tau).  The plateau rule needs about 512 tau (a
 *    usable level of >= 32 blocks with B^3 > 8 N tau^2, i.e. N > 512 tau); when the run has
 *    that many already, the blocking error still rose at the longest blocks and tau is larger
 *    than it says: the estimate then asks for twice the measurements.
 *  - Does a chain's series drift?  Geweke's comparison of the start and the end of the series
 *    (first fifth against last half), done on the time-ordered jackknife bins: the standard
 *    error comes from the bins' scatter within the two parts, so a drift does not inflate its
 *    own yardstick.  A chain frozen in one state does not drift: this test cannot see it.
 *  - Do the walkers of a scan point agree?  Independent chains (different streams, possibly
 *    hot and cold starts: [schedule] start = hot_cold) that froze in different states give
 *    means that differ far beyond their errors: chi^2 of the walkers' means.  This catches
 *    the chain frozen at low temperature that the drift test misses. */
#include "equilibration.h"

#include "internal.h"
#include "setup.h"
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* relative differences this small are rounding, not physics */
#define ROUNDING 1e-10

int mcfi_drift_test(const double *bin_sum, const double *bin_count, size_t bins,
                    size_t nvars, size_t var, double *t, double *p, double *mean_first,
                    double *mean_last)
{
    /* the parts: bins [0, bins / 5) and [bins - bins / 2, bins); only filled bins count */
    const size_t first_end = bins / 5, last_begin = bins - bins / 2;
    double sum[2] = {0, 0}, sumsq[2] = {0, 0}, n[2] = {0, 0};
    for (size_t b = 0; b < bins; b++) {
        const int part = b < first_end ? 0 : b >= last_begin ? 1 : -1;
        if (part < 0 || !(bin_count[b] > 0))
            continue;
        const double m = bin_sum[b * nvars + var] / bin_count[b];
        sum[part] += m;
        sumsq[part] += m * m;
        n[part] += 1;
    }
    if (n[0] < 2 || n[1] < 2 || n[0] + n[1] < 4)
        return 0;
    *mean_first = sum[0] / n[0];
    *mean_last = sum[1] / n[1];
    /* pooled variance of one bin mean within the parts (bins of one part hold about equal
       numbers of measurements) */
    double ss = 0;
    for (int k = 0; k < 2; k++) {
        double m = sum[k] / n[k], v = sumsq[k] - n[k] * m * m;
        ss += v > 0 ? v : 0;
    }
    const double dof = n[0] + n[1] - 2, s2 = ss / dof;
    double diff = *mean_first - *mean_last;
    /* a difference at the level of rounding is none (a density fixed by symmetry at 0.5
       varies by ~1e-17 from bin to bin, and 0 / 0 must not read as a drift) */
    if (fabs(diff) <= ROUNDING * fmax(fabs(*mean_first), fabs(*mean_last)))
        diff = 0;
    const double se = sqrt(s2 * (1.0 / n[0] + 1.0 / n[1]));
    if (!isfinite(diff))
        return 0;
    if (se > 0) {
        *t = diff / se;
        *p = 2.0 * gsl_cdf_tdist_Q(fabs(*t), dof);
    } else { /* every bin of a part equal: a difference is a drift, none is none */
        *t = diff == 0 ? 0 : copysign(INFINITY, diff);
        *p = diff == 0 ? 1 : 0;
    }
    return 1;
}

int mcfi_agreement_test(const double *mean, const double *error, size_t R, double *chi2,
                        double *p)
{
    if (R < 2)
        return 0;
    double w_sum = 0, wm_sum = 0;
    int all_equal = 1;
    for (size_t w = 0; w < R; w++) {
        if (!isfinite(mean[w]))
            return 0;
        all_equal = all_equal && fabs(mean[w] - mean[0]) <=
                                     ROUNDING * fmax(fabs(mean[w]), fabs(mean[0]));
        if (!(error[w] > 0) || !isfinite(error[w]))
            continue;
        w_sum += 1.0 / (error[w] * error[w]);
        wm_sum += mean[w] / (error[w] * error[w]);
    }
    if (all_equal) {
        *chi2 = 0;
        *p = 1;
        return 1;
    }
    for (size_t w = 0; w < R; w++)
        if (!(error[w] > 0) || !isfinite(error[w]))
            return 0;
    const double mbar = wm_sum / w_sum;
    double c = 0;
    for (size_t w = 0; w < R; w++)
        c += (mean[w] - mbar) * (mean[w] - mbar) / (error[w] * error[w]);
    *chi2 = c;
    *p = gsl_cdf_chisq_Q(c, (double)(R - 1));
    return 1;
}

/* "T=0.05 L=8" of scan point k */
static void point_text(const mcf_setup *s, size_t k, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < s->n_axes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", a ? " " : "",
                                 s->axes[a].name, mcfi_setup_axis_value(s, a, k)->text);
    if (!s->n_axes)
        snprintf(buf, n, "the point");
}

/* "a(b)": mean with its error in the last two digits, as a physicist writes it */
static void put_paren(char *buf, size_t n, double mean, double error)
{
    const int digits = isfinite(mean) ? mcfe_error_decimals(error) : -1;
    if (digits >= 0)
        snprintf(buf, n, "%.*f(%.0f)", digits, mean, error * pow(10.0, digits));
    else
        snprintf(buf, n, "%.6g", mean);
}

/* x rounded up to two significant digits: a number of sweeps to suggest */
static double round_up(double x)
{
    if (!(x > 0) || !isfinite(x))
        return x;
    const double unit = pow(10.0, floor(log10(x)) - 1.0);
    return ceil(x / unit - 1e-9) * unit;
}

/* up to three of a set of scan points for the summary line, then "..." */
typedef struct point_list {
    char text[200];
    size_t count;
} point_list;

static void point_list_add(point_list *l, const mcf_setup *s, size_t k)
{
    char p[96];
    point_text(s, k, p, sizeof p);
    /* a point already listed (several chains or observables of one point) counts once */
    if (l->count && strstr(l->text, p))
        return;
    size_t used = strlen(l->text);
    if (l->count < 3)
        snprintf(l->text + used, sizeof l->text - used, "%s%s", l->count ? ", " : "", p);
    else if (l->count == 3)
        snprintf(l->text + used, sizeof l->text - used, ", ...");
    l->count++;
}

/* the observable names of a set, in declaration order */
static void names_add(char *buf, size_t n, const char *name)
{
    size_t len = strlen(name), used = strlen(buf);
    for (const char *q = strstr(buf, name); q; q = strstr(q + 1, name))
        if ((q == buf || (q - buf >= 2 && q[-2] == ',' && q[-1] == ' ')) &&
            (q[len] == '\0' || q[len] == ','))
            return;
    if (used + len + 3 < n)
        snprintf(buf + used, n - used, "%s%s", used ? ", " : "", name);
}

/* what a hot_cold start gave walker w */
static const char *start_of(const mcf_setup *s, size_t w)
{
    if (s->start != MCFI_START_HOT_COLD)
        return "";
    return w % 2 == 0 ? ", random start" : ", ordered start";
}

typedef struct findings {
    size_t plateau_chains, drift_chains;
    double needed_sweeps;
    char plateau_obs[256], drift_obs[256], disagree_obs[256];
    point_list plateau_at, drift_at, disagree_at;
} findings;

/* 1 when some error of chain c did not reach a plateau (a detail line written) */
static int check_plateau(const mcf_run *r, const mcf_chain *c, const char *where,
                         mcf_text *details, findings *f)
{
    const mcf_setup *s = r->setup;
    const mcf_observable *obs = r->model->observables;
    char names[512] = "";
    double tau = 0, needed = 0;
    uint64_t count = 0;
    int grew = 0; /* the largest need is a run long enough for its tau: the error still grew */
    int bound = 0; /* some tau is only a lower bound (blocks shorter than tau) */
    for (size_t o = 0; o < r->n_obs; o++) {
        mcf_estimate est;
        mcfi_blocking_estimate(&c->blocking[o], &est);
        if (est.converged || est.count < 2)
            continue;
        names_add(names, sizeof names, obs[r->scalar[o]].name);
        names_add(f->plateau_obs, sizeof f->plateau_obs, obs[r->scalar[o]].name);
        count = est.count;
        bound |= est.lower_bound;
        if (est.tau > tau)
            tau = est.tau;
        const double N = (double)est.count;
        const double need = N < 512.0 * est.tau ? 512.0 * est.tau : 2.0 * N;
        if (need > needed) {
            needed = need;
            grew = N >= 512.0 * est.tau;
        }
    }
    if (!names[0])
        return 0;
    const double every = (double)s->measure_every, sweeps = needed * every;
    const double made = (double)count * every;
    if (grew)
        mcfe_text_printf(details, "# warning: chain %zu (%s): the errors of %s did not reach a "
                         "plateau: %.0f measured sweeps would resolve a tau of %.3g sweeps, "
                         "but the error still grew at the longest blocks, so tau is longer "
                         "than that; about %.0f measured sweeps (twice this run) are needed\n",
                         c->index, where, names, made, made / 512.0, round_up(sweeps));
    else
        mcfe_text_printf(details, "# warning: chain %zu (%s): the errors of %s did not reach a "
                         "plateau: tau is %s %.3g sweeps (%s), a plateau needs about 512 "
                         "tau, %.0f measured sweeps (this run: %.0f)\n", c->index, where,
                         names, bound ? "at least" : "about", tau * every,
                         bound ? "a lower bound: longer than the blocks"
                               : "extrapolated from short blocks",
                         round_up(sweeps), made);
    if (sweeps > f->needed_sweeps)
        f->needed_sweeps = sweeps;
    return 1;
}

/* 1 when some observable of chain c drifts (a detail line for each) */
static int check_drift(const mcf_run *r, const mcf_chain *c, const char *where,
                       mcf_text *details, findings *f)
{
    int drifts = 0;
    const mcf_observable *obs = r->model->observables;
    for (size_t o = 0; o < r->n_obs; o++) {
        double t, p, first, last;
        if (!mcfi_drift_test(c->bin_sum, c->bin_count, (size_t)r->setup->bins, r->nvars, o,
                             &t, &p, &first, &last) || !(p < MCFI_DRIFT_P))
            continue;
        mcfe_text_printf(details, "# warning: chain %zu (%s): %s drifts: %.6g over the first "
                         "fifth of the measurements, %.6g over the last half (t = %.3g, p %s "
                         "%.2g); not in equilibrium: thermalize longer\n", c->index, where,
                         obs[r->scalar[o]].name, first, last, t, p < 1e-99 ? "<" : "=",
                         p < 1e-99 ? 1e-99 : p);
        names_add(f->drift_obs, sizeof f->drift_obs, obs[r->scalar[o]].name);
        drifts = 1;
    }
    return drifts;
}

static void check_walkers(const mcf_run *r, size_t k, const char *where, mcf_text *details,
                          findings *f, double *mean, double *error)
{
    const mcf_setup *s = r->setup;
    const size_t R = (size_t)s->walkers;
    const mcf_observable *obs = r->model->observables;
    for (size_t o = 0; o < r->n_obs; o++) {
        for (size_t w = 0; w < R; w++) {
            mcf_estimate est;
            mcfi_blocking_estimate(&r->chains[k * R + w].blocking[o], &est);
            mean[w] = est.mean;
            error[w] = est.error;
        }
        double chi2, p;
        if (!mcfi_agreement_test(mean, error, R, &chi2, &p) || !(p < MCFI_AGREE_P))
            continue;
        mcf_text list = {0};
        for (size_t w = 0; w < R && w < 8; w++) {
            char v[64];
            put_paren(v, sizeof v, mean[w], error[w]);
            const char *st = start_of(s, w);
            mcfe_text_printf(&list, "%s%s%s%s%s", w ? ", " : "", v, st[0] ? " (" : "",
                             st[0] ? st + 2 : "", st[0] ? ")" : "");
        }
        mcfe_text_printf(details, "# warning: %s: the %zu walkers disagree on %s: %s%s "
                         "(chi2 = %.3g for %zu degree%s of freedom, p %s %.2g); not in "
                         "equilibrium: thermalize longer\n", where, R, obs[r->scalar[o]].name,
                         list.s ? list.s : "", R > 8 ? ", ..." : "", chi2, R - 1,
                         R > 2 ? "s" : "", p < 1e-99 ? "<" : "=", p < 1e-99 ? 1e-99 : p);
        free(list.s);
        names_add(f->disagree_obs, sizeof f->disagree_obs, obs[r->scalar[o]].name);
        point_list_add(&f->disagree_at, s, k);
    }
}

static void summarize(const mcf_run *r, const findings *f, mcf_text *summary)
{
    const mcf_setup *s = r->setup;
    if (f->plateau_chains)
        mcfe_text_printf(summary, "the errors of %s in %zu of %zu chains (%s) did not reach a "
                         "plateau: about %.0f measured sweeps are needed, this run has %llu "
                         "([schedule] sweeps%s); details in %s/log\n", f->plateau_obs,
                         f->plateau_chains, r->n_chains, f->plateau_at.text,
                         round_up(f->needed_sweeps), (unsigned long long)r->sweeps,
                         s->n_targets ? ", doubled by error_target" : "", r->dir);
    if (f->drift_chains || f->disagree_at.count) {
        mcf_text what = {0};
        if (f->drift_chains)
            mcfe_text_printf(&what, "a drift of %s in %zu chain%s (%s)", f->drift_obs,
                             f->drift_chains, f->drift_chains > 1 ? "s" : "", f->drift_at.text);
        if (f->disagree_at.count)
            mcfe_text_printf(&what, "%sthe walkers disagree on %s (%s)",
                             f->drift_chains ? "; " : "", f->disagree_obs, f->disagree_at.text);
        mcfe_text_printf(summary, "not in equilibrium: %s; thermalize longer, or use parallel "
                         "tempering ([schedule] exchange_every); details in %s/log\n",
                         what.s ? what.s : "", r->dir);
        free(what.s);
    }
}

/* [model] twist = average:M (mcf/lattice.h): the walkers of a point sit at different twists,
   so their means differ by design and their agreement is no test of equilibrium */
static int twist_averaged(const mcf_params *p)
{
    for (size_t j = 0; p && j < p->n; j++)
        if (strcmp(p->specs[j].name, "twist") == 0 && p->specs[j].type == MCF_PARAM_STRING &&
            p->values[j].text && strncmp(p->values[j].text, "average:", 8) == 0)
            return 1;
    return 0;
}

int mcfi_equilibration_report(const mcf_run *r, mcf_text *details, mcf_text *summary)
{
    const mcf_setup *s = r->setup;
    const size_t R = (size_t)s->walkers, n_points = r->n_chains / R;
    double *mean = malloc(R * sizeof *mean), *error = malloc(R * sizeof *error);
    findings *f = calloc(1, sizeof *f);
    if (!mean || !error || !f) {
        free(mean);
        free(error);
        free(f);
        return mcf_fail(MCF_ENOMEM, "out of memory checking the chains");
    }
    for (size_t k = 0; k < n_points; k++) {
        char point[128];
        point_text(s, k, point, sizeof point);
        /* DMC: walker 0 holds the population's series, the others none (dmc.h) */
        for (size_t w = 0; w < (s->dmc ? 1 : R); w++) {
            const mcf_chain *c = &r->chains[k * R + w];
            char where[192];
            if (R > 1)
                snprintf(where, sizeof where, "%s, walker %zu%s", point, w, start_of(s, w));
            else
                snprintf(where, sizeof where, "%s", point);
            if (check_plateau(r, c, where, details, f)) {
                f->plateau_chains++;
                point_list_add(&f->plateau_at, s, k);
            }
            if (check_drift(r, c, where, details, f)) {
                f->drift_chains++;
                point_list_add(&f->drift_at, s, k);
            }
        }
        if (R > 1 && !s->dmc && !twist_averaged(r->chains[k * R].model_params))
            check_walkers(r, k, point, details, f, mean, error);
    }
    summarize(r, f, summary);
    free(mean);
    free(error);
    free(f);
    return details->failed || summary->failed ? mcf_fail(MCF_ENOMEM, "out of memory") : MCF_OK;
}
