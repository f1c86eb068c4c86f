/* tc_sources.c — what `mcf tc` may reweight together (tc.h): run folders of the same physics
 * (tc_same_physics), and the neighbouring temperatures of one size whose energy histograms
 * overlap enough for the reweighted curves between them to mean something (tc_overlap). */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include "mcf_engine.h"
#include "mcf/error.h"

#include <gsl/gsl_cdf.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* whether [section] key of a config.ini decides the sampled distribution: [run] model and
 * evaluator, every [model] key but the scanned size L, every [evaluator] key */
static int physics_key(const mcf_config_entry *e)
{
    if (!strcmp(e->section, "run"))
        return !strcmp(e->key, "model") || !strcmp(e->key, "evaluator");
    if (!strcmp(e->section, "model"))
        return strcmp(e->key, "L") != 0;
    return !strcmp(e->section, "evaluator");
}

static const mcf_config_entry *find(const mcf_config *c, const char *section, const char *key)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(c->entries[k].section, section) && !strcmp(c->entries[k].key, key))
            return &c->entries[k];
    return NULL;
}

/* the first physics key of a that b lacks or gives another value: refused, else MCF_OK */
static int compare(const mcf_config *a, const mcf_config *b)
{
    char wa[4200], wb[4200];
    for (size_t k = 0; k < a->n; k++) {
        const mcf_config_entry *e = &a->entries[k];
        if (!physics_key(e))
            continue;
        const mcf_config_entry *o = find(b, e->section, e->key);
        if (o && !strcmp(o->value, e->value))
            continue;
        mcfe_config_where(e, wa, sizeof wa);
        if (o)
            return mcf_fail(MCF_EINVAL, "mcf tc: %s: [%s] %s = %s, but %s has %s = %s: the "
                            "runs reweighted together must share the model, its parameters "
                            "(but L) and the evaluator", mcfe_config_where(o, wb, sizeof wb),
                            e->section, e->key, o->value, wa, e->key, e->value);
        return mcf_fail(MCF_EINVAL, "mcf tc: %s: [%s] %s = %s, which %s does not give: the runs "
                        "reweighted together must share the model, its parameters (but L) "
                        "and the evaluator", wa, e->section, e->key, e->value, b->path);
    }
    return MCF_OK;
}

int tc_same_physics(const char *first, const char *other)
{
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/config.ini", first);
    snprintf(pb, sizeof pb, "%s/config.ini", other);
    mcf_config *a = NULL, *b = NULL;
    int rc = mcfe_config_read(pa, &a);
    if (!rc)
        rc = mcfe_config_read(pb, &b);
    if (!rc)
        rc = compare(a, b);
    if (!rc)
        rc = compare(b, a);
    if (a)
        mcfe_config_free(a);
    if (b)
        mcfe_config_free(b);
    return rc;
}

int tc_overlap(const tc_size *s, size_t blocks, char *why, size_t len, double *worst_d,
               size_t *worst_bridging, double *worst_lo, double *worst_hi)
{
    const size_t K = s->n_chains;
    double *mean = calloc(3 * K, sizeof *mean), *var = mean + K, *cnt = var + K;
    size_t *order = malloc(K * sizeof *order);
    if (!mean || !order) {
        free(mean);
        free(order);
        return mcf_fail(MCF_ENOMEM, "mcf tc: out of memory");
    }
    for (size_t n = 0; n < s->n; n++) {
        mean[s->chain[n]] += s->q[n * TC_NQ + TC_E];
        cnt[s->chain[n]] += 1;
    }
    for (size_t k = 0; k < K; k++)
        mean[k] /= cnt[k];
    for (size_t n = 0; n < s->n; n++) {
        const double d = s->q[n * TC_NQ + TC_E] - mean[s->chain[n]];
        var[s->chain[n]] += d * d / cnt[s->chain[n]];
    }
    for (size_t k = 0; k < K; k++)
        order[k] = k;
    for (size_t a = 1; a < K; a++) /* ascending T: descending beta */
        for (size_t b = a; b > 0 && s->beta[order[b - 1]] < s->beta[order[b]]; b--) {
            const size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    size_t fewest = (size_t)-1;
    double fd = 0, flo = 0, fhi = 0;
    for (size_t i = 0; i + 1 < K; i++) {
        const size_t a = order[i], b = order[i + 1];
        if (s->beta[a] == s->beta[b]) /* two chains at one temperature: pooled, no gap */
            continue;
        const double mid = 0.5 * (mean[a] + mean[b]), up = mean[b] > mean[a] ? 1 : -1;
        size_t bridging = 0; /* a's measurements past mid toward b, and b's toward a */
        for (size_t n = 0; n < s->n; n++) {
            const double e = s->q[n * TC_NQ + TC_E];
            bridging += (s->chain[n] == a && up * (e - mid) > 0) ||
                        (s->chain[n] == b && up * (e - mid) < 0);
        }
        if (bridging < fewest) {
            fewest = bridging;
            fd = fabs(mean[b] - mean[a]) / sqrt(0.5 * (var[a] + var[b]));
            flo = 1.0 / s->beta[a];
            fhi = 1.0 / s->beta[b];
        }
    }
    free(mean);
    free(order);
    if (worst_d)
        *worst_d = fewest == (size_t)-1 ? 0 : fd;
    if (worst_bridging)
        *worst_bridging = fewest;
    if (worst_lo)
        *worst_lo = flo;
    if (worst_hi)
        *worst_hi = fhi;
    if (fewest == (size_t)-1 || fewest >= blocks)
        return 0;
    if (!why)
        return -1;
    /* temperatures that bring each gap to 2 standard deviations, evenly between the two */
    size_t add = (size_t)ceil(fd / 2) > 1 ? (size_t)ceil(fd / 2) - 1 : 1;
    char list[512] = "";
    for (size_t i = 1; i <= add && i <= 8; i++) {
        char one[40];
        snprintf(one, sizeof one, "%s%.6g", i > 1 ? ", " : "",
                 flo + (fhi - flo) * (double)i / (double)(add + 1));
        strncat(list, one, sizeof list - strlen(list) - 1);
    }
    snprintf(why, len, "L = %ld: the energy histograms of T = %g and %g hardly overlap: their "
             "means are %.1f standard deviations apart and %zu of their measurements lie past "
             "the midpoint (fewer than one a jackknife block, %zu), so the reweighted curves "
             "between them would rest on those few; add T = %s%s (a second run of the same "
             "configuration with those temperatures, then `mcf tc DIR1 DIR2` reweights both), "
             "or leave the gap out with --window LO:HI", s->L, flo, fhi, fd, fewest, blocks,
             list, add > 8 ? ", ..." : "");
    return -1;
}

void tc_chain_blocks(tc_size *s, size_t blocks)
{
    for (size_t c = 0; c < s->n_chains; c++) {
        size_t before = 0, m = 0; /* the temperature's measurements, first chain first */
        for (size_t e = 0; e < c; e++)
            before += s->beta[e] == s->beta[c];
        if (before) /* its chains were cut with the first of them */
            continue;
        for (size_t n = 0; n < s->n; n++)
            m += s->beta[s->chain[n]] == s->beta[c];
        for (size_t n = 0, i = 0; n < s->n; n++)
            if (s->beta[s->chain[n]] == s->beta[c])
                s->block[n] = (unsigned)((double)i++ * (double)blocks / (double)m);
    }
}

int tc_start_ratio(const tc_size *s, int q, double *ratio, double *err, size_t *chains,
                   size_t *longest)
{
    double sum = 0, sum2 = 0;
    size_t used = 0, most = 0;
    for (size_t a = 0, b; a < s->n; a = b) { /* chain s->chain[a]: measurements a .. b - 1 */
        for (b = a; b < s->n && s->chain[b] == s->chain[a]; b++)
            ;
        const size_t m = b - a, quarter = m / 4;
        most = m > most ? m : most;
        double whole = 0, first = 0;
        for (size_t n = a; n < b; n++) {
            whole += s->q[n * TC_NQ + q] / (double)m;
            first += n < a + quarter ? s->q[n * TC_NQ + q] / (double)quarter : 0.0;
        }
        if (m < 8 || !(whole > 0))
            continue;
        sum += first / whole;
        sum2 += first / whole * (first / whole);
        used++;
    }
    *chains = used;
    *longest = most;
    if (used < 2)
        return -1;
    *ratio = sum / (double)used;
    *err = sqrt(fmax(sum2 / (double)used - *ratio * *ratio, 0.0) / (double)(used - 1));
    return 0;
}

int tc_start_biased(const tc_size *s, double *ratio, double *err, size_t *chains,
                    size_t *longest)
{
    *ratio = 1.0;
    *err = 0.0;
    if (tc_start_ratio(s, TC_M2, ratio, err, chains, longest) || *chains < 4)
        return 0;
    /* two-sided p of Student's t with chains - 1 degrees of freedom, as the engine's drift
     * test (equilibration.c) takes it */
    const double d = fabs(*ratio - 1.0), dof = (double)(*chains - 1);
    return d > 0.05 && *err > 0 && 2.0 * gsl_cdf_tdist_Q(d / *err, dof) < 1e-3;
}

/* tau_int of x[0..n-1] by Sokal's automatic window (c = 6) */
static double tau_int(const double *x, size_t n)
{
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i] / (double)n;
    for (size_t i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean) / (double)n;
    if (!(var > 0))
        return 0.5;
    double tau = 0.5;
    for (size_t w = 1; w < n / 2; w++) {
        double c = 0;
        for (size_t i = 0; i + w < n; i++)
            c += (x[i] - mean) * (x[i + w] - mean);
        tau += c / ((double)(n - w) * var);
        if ((double)w >= 6.0 * tau)
            break;
    }
    return tau;
}

double tc_tau_max(const tc_size *s, int q, double *at, size_t *len)
{
    double worst = 0;
    double *x = malloc(s->n * sizeof *x);
    if (!x)
        return NAN;
    for (size_t c = 0; c < s->n_chains; c++) {
        size_t m = 0;
        for (size_t n = 0; n < s->n; n++)
            if (s->chain[n] == c)
                x[m++] = s->q[n * TC_NQ + q];
        const double tau = tau_int(x, m);
        if (tau > worst) {
            worst = tau;
            *at = 1.0 / s->beta[c];
            *len = m;
        }
    }
    free(x);
    return worst;
}

/* the chains of s at temperature T (the lowest or the highest) left out: their measurements
 * removed, the rest renumbered, the temperature range narrowed */
static void drop_temperature(tc_size *s, double T)
{
    size_t *to = malloc(s->n_chains * sizeof *to), kept = 0;
    if (!to)
        return;
    for (size_t c = 0; c < s->n_chains; c++) {
        to[c] = 1.0 / s->beta[c] == T ? (size_t)-1 : kept;
        if (to[c] != (size_t)-1)
            s->beta[kept++] = s->beta[c];
    }
    size_t m = 0;
    for (size_t n = 0; n < s->n; n++) {
        if (to[s->chain[n]] == (size_t)-1)
            continue;
        memmove(&s->q[m * TC_NQ], &s->q[n * TC_NQ], TC_NQ * sizeof *s->q);
        s->chain[m] = to[s->chain[n]];
        s->block[m++] = s->block[n];
    }
    free(to);
    s->n = m;
    s->n_chains = kept;
    s->t_min = INFINITY;
    s->t_max = -INFINITY;
    for (size_t c = 0; c < kept; c++) {
        s->t_min = fmin(s->t_min, 1.0 / s->beta[c]);
        s->t_max = fmax(s->t_max, 1.0 / s->beta[c]);
    }
}

int tc_keep_bridged(tc_size *s, size_t blocks)
{
    double d = 0, lo = 0, hi = 0;
    size_t bridging = 0;
    int left = 0;
    while (tc_overlap(s, blocks, NULL, 0, &d, &bridging, &lo, &hi)) {
        const int low = lo == s->t_min, high = hi == s->t_max;
        size_t temps = 0; /* distinct temperatures; at least 3 stay */
        for (size_t c = 0; c < s->n_chains; c++) {
            size_t e = 0;
            while (e < c && s->beta[e] != s->beta[c])
                e++;
            temps += e == c;
        }
        if ((!low && !high) || temps <= 3)
            break;
        printf("mcf tc: L = %ld: T = %g left out: its energy histogram does not reach T = %g's "
               "(%.1f standard deviations apart, %zu measurements past the midpoint)\n", s->L,
               low ? lo : hi, low ? hi : lo, d, bridging);
        drop_temperature(s, low ? lo : hi);
        left++;
    }
    return left;
}
