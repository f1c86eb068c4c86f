/* dmc_history.c — the population's history of a DMC run (dmc.h) as a table for results.h5's
 * /dmc, and its summary in the log: how far the weights spread (the effective population),
 * how much the population would have grown or shrunk (the log weights), and the energy
 * corrected for the population-control factors, per scan point, over the measured steps.
 *
 * The correction (Umrigar, Nightingale and Runge, J. Chem. Phys. 99, 2865 (1993)): a
 * population of fixed size renormalizes its weights every step, dropping the factor W_t (the
 * step's mean weight) by which a free population would have grown; the estimate that keeps
 * them weighs step t by prod_{j < T/tau} W_{t-j}, the product over the last T/tau steps.
 * Truncating the product at a finite T leaves a bias that falls as T grows beyond the
 * population's memory, and the weights' spread grows the variance; the plain mean
 * (results.tsv) is the T = 0 case.  Its error: a jackknife of the ratio over contiguous
 * blocks of the measured steps, and of its difference from the plain mean on the same blocks
 * (the two are strongly correlated, so the difference is resolved far better than either). */
#include "dmc.h"
#include "results_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[MCFI_DMC_HIST] = {
    "sweep", "energy", "log_weight", "effective_population", "trial_energy",
    "timestep_effective", "log_product"};

#define DMC_BLOCKS 32

int mcfi_dmc_corrected(const mcfi_dmc_history *h, double from, size_t blocks, double out[5])
{
    size_t first = 0;
    while (first < h->n && h->rows[first * MCFI_DMC_HIST] <= from)
        first++;
    const size_t n = h->n - first, per = blocks ? n / blocks : 0;
    if (blocks < 2 || per == 0)
        return MCF_EINVAL;
    double top = -INFINITY;
    for (size_t i = first; i < h->n; i++)
        top = fmax(top, h->rows[i * MCFI_DMC_HIST + 6]);
    /* per block: sum E, count, sum w E, sum w (w = e^{S - top}); the tail joins the last */
    double tot[4] = {0, 0, 0, 0}, (*b)[4] = calloc(blocks, sizeof *b);
    if (!b)
        return MCF_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const double *x = h->rows + (first + i) * MCFI_DMC_HIST;
        const size_t k = i / per < blocks ? i / per : blocks - 1;
        const double w = exp(x[6] - top);
        b[k][0] += x[1], b[k][1] += 1.0, b[k][2] += w * x[1], b[k][3] += w;
    }
    for (size_t k = 0; k < blocks; k++)
        for (int c = 0; c < 4; c++)
            tot[c] += b[k][c];
    out[0] = tot[0] / tot[1];
    out[1] = tot[2] / tot[3];
    out[3] = out[1] - out[0];
    double sc = 0.0, s2c = 0.0, sd = 0.0, s2d = 0.0;
    for (size_t k = 0; k < blocks; k++) { /* leave block k out */
        const double c = (tot[2] - b[k][2]) / (tot[3] - b[k][3]);
        const double d = c - (tot[0] - b[k][0]) / (tot[1] - b[k][1]);
        sc += c, s2c += c * c, sd += d, s2d += d * d;
    }
    const double nb = (double)blocks, f = (nb - 1.0) / nb;
    out[2] = sqrt(fmax(f * (s2c - sc * sc / nb), 0.0));
    out[4] = sqrt(fmax(f * (s2d - sd * sd / nb), 0.0));
    free(b);
    return MCF_OK;
}

int mcfi_dmc_table(const mcf_run *r, mcfi_table *t)
{
    memset(t, 0, sizeof *t);
    if (!r->dmc)
        return MCF_OK;
    mcfi_dmc_view v;
    mcfi_dmc_state(r, &v);
    for (size_t p = 0; p < v.points; p++)
        t->n_rows += v.hist[p].n;
    size_t *point_of = malloc((t->n_rows + 1) * sizeof *point_of);
    int ok = point_of != NULL;
    for (size_t p = 0, j = 0; ok && p < v.points; p++)
        for (size_t i = 0; i < v.hist[p].n; i++)
            point_of[j++] = p;
    ok = ok && !mcfi_table_add_scan_columns(r, t, point_of);
    const size_t first = t->n_cols;
    for (size_t c = 0; c < MCFI_DMC_HIST && ok; c++)
        ok = mcfi_table_add_column(t, 0, "%s", columns[c]) != NULL;
    for (size_t p = 0, j = 0; ok && p < v.points; p++)
        for (size_t i = 0; i < v.hist[p].n; i++, j++)
            for (size_t c = 0; c < MCFI_DMC_HIST; c++)
                t->cols[first + c].x[j] = v.hist[p].rows[i * MCFI_DMC_HIST + c];
    free(point_of);
    if (!ok) {
        mcfi_table_free(t);
        return mcf_fail(MCF_ENOMEM, "out of memory for the DMC history's table");
    }
    return MCF_OK;
}

void mcfi_dmc_report(const mcf_run *r)
{
    if (!r->dmc || r->rank != 0)
        return;
    mcfi_dmc_view v;
    mcfi_dmc_state(r, &v);
    const uint64_t from = (uint64_t)r->setup->thermalize;
    for (size_t p = 0; p < v.points; p++) {
        double n_sum = 0.0, n_min = INFINITY, lw = 0.0, lw2 = 0.0;
        size_t n = 0;
        for (size_t i = 0; i < v.hist[p].n; i++) {
            const double *x = v.hist[p].rows + i * MCFI_DMC_HIST;
            if (x[0] <= (double)from)
                continue; /* thermalizing */
            n++;
            n_sum += x[3];
            n_min = x[3] < n_min ? x[3] : n_min;
            lw += x[2];
            lw2 += x[2] * x[2];
        }
        if (!n)
            continue;
        const double m = lw / (double)n, sd = sqrt(fmax(lw2 / (double)n - m * m, 0.0));
        mcf_log(MCF_LOG_INFO, "DMC, point %zu: over %zu measured steps the effective "
                "population (sum w)^2 / sum w^2 was %.1f on average and %.1f at least, of %zu "
                "walkers; the log of the mean weight per step %.3g +- %.3g (sd); per step in "
                "results.h5's /dmc", p, n, n_sum / (double)n, n_min, v.R, m, sd);
        double c[5];
        if (!v.ring_len[p] || mcfi_dmc_corrected(&v.hist[p], (double)from, DMC_BLOCKS, c))
            continue;
        /* a bias resolved (2 sigma of the difference) that matters (half the error bar) */
        const int bad = fabs(c[3]) > 2.0 * c[4] && fabs(c[3]) > 0.5 * c[2];
        mcf_log(bad ? MCF_LOG_WARN : MCF_LOG_INFO, "DMC, point %zu: the energy corrected for "
                "the population factors of the last %llu steps ([run] population_correction = "
                "%g) is %.8g +- %.2g in total, %+.3g +- %.2g from the plain %.8g (jackknife, %d "
                "blocks)%s", p, (unsigned long long)v.ring_len[p], r->setup->dmc_memory, c[1],
                c[2], c[3], c[4], c[0], DMC_BLOCKS, bad ? ": a population-control bias of "
                "more than half the error bar; more walkers make it smaller (it falls as "
                "1/walkers)" : "");
    }
}
