/* dmc_history.c — the population's history of a DMC run (dmc.h) as a table for results.h5's
 * /dmc, and its summary in the log: how far the weights spread (the effective population)
 * and how much the population would have grown or shrunk (the log weights), per scan point,
 * over the measured steps. */
#include "dmc.h"
#include "results_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[MCFI_DMC_HIST] = {
    "sweep", "energy", "log_weight", "effective_population", "trial_energy",
    "timestep_effective"};

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
    }
}
