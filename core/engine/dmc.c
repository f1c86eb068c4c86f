/* dmc.c — [run] method = dmc: the population of each scan point (see dmc.h). */
#include "dmc.h"

#include "anneal.h"
#include "chain.h"
#include "comb.h"
#include "mcf_mpi.h"
#include "model_ops.h"
#include "ownership.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mcfi_dmc {
    size_t points, R, row;   /* scan points, walkers a point, doubles a chain's row */
    double *values;          /* n_chains x row: each walker's measurement of this step */
    double *e_tot;           /* n_chains: its total local energy of this step */
    double *e_old;           /* n_chains: its total local energy after the last step */
    uint64_t *acc, *prop;    /* n_chains: this step's accepted and proposed moves */
    uint64_t *acc_sum, *prop_sum; /* points: over all steps (tau_eff) */
    double *e_sum;           /* points: the step energies (total, weighted) so far (E_T) */
    uint64_t *steps;         /* points: their number */
    mcf_rng *rng, *rng0;     /* points: the comb's uniforms; their streams as they began */
    double *lw, *w, *e_new;  /* R log weights, R weights, R energies of the step */
    double *mean;            /* row weighted means */
    size_t *from, *pick;     /* n_chains hand-over sources; R comb result */
    mcfi_dmc_history *hist;  /* points: the population's rows (dmc.h) */
    double **ring;           /* points: the log mean weights of the last ring_len steps */
    uint64_t *ring_len, *ring_pos; /* points: T / tau steps (0: no correction); next slot */
};

int mcfi_dmc_supported(const mcfi_model *m)
{
    const mcf_model *v = mcfi_model_v2(m);
    return MCF_HAS(mcf_model, v, projector) && v->projector;
}

void mcfi_dmc_free(struct mcfi_dmc *d)
{
    if (!d)
        return;
    free(d->values), free(d->e_tot), free(d->e_old), free(d->acc), free(d->prop);
    free(d->acc_sum), free(d->prop_sum), free(d->e_sum), free(d->steps), free(d->rng);
    free(d->rng0), free(d->lw), free(d->w), free(d->e_new), free(d->mean), free(d->from);
    free(d->pick);
    for (size_t p = 0; d->hist && p < d->points; p++)
        free(d->hist[p].rows);
    for (size_t p = 0; d->ring && p < d->points; p++)
        free(d->ring[p]);
    free(d->hist), free(d->ring), free(d->ring_len), free(d->ring_pos);
    free(d);
}

int mcfi_dmc_create(mcf_run *r)
{
    const mcf_setup *s = r->setup;
    if (!s->dmc)
        return MCF_OK;
    if (r->n_curves)
        return mcf_fail(MCF_EINVAL, "%s: [run] method = dmc: model '%s' measures curves; DMC "
                        "weighs scalar observables only", s->config_path, s->model_name);
    struct mcfi_dmc *d = calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "out of memory for DMC");
    const size_t n = r->n_chains;
    d->R = (size_t)s->walkers;
    d->points = n / d->R;
    d->row = r->n_declared; /* scalars only: one value each, in declared order */
    d->values = calloc(n * d->row + 1, sizeof *d->values);
    d->e_tot = calloc(n, sizeof *d->e_tot);
    d->e_old = malloc(n * sizeof *d->e_old);
    d->acc = calloc(n, sizeof *d->acc);
    d->prop = calloc(n, sizeof *d->prop);
    d->acc_sum = calloc(d->points, sizeof *d->acc_sum);
    d->prop_sum = calloc(d->points, sizeof *d->prop_sum);
    d->e_sum = calloc(d->points, sizeof *d->e_sum);
    d->steps = calloc(d->points, sizeof *d->steps);
    d->rng = malloc(d->points * sizeof *d->rng);
    d->rng0 = malloc(d->points * sizeof *d->rng0);
    d->lw = malloc(d->R * sizeof *d->lw);
    d->w = malloc(d->R * sizeof *d->w);
    d->e_new = malloc(d->R * sizeof *d->e_new);
    d->mean = malloc((d->row + 1) * sizeof *d->mean);
    d->from = malloc(n * sizeof *d->from);
    d->pick = malloc(d->R * sizeof *d->pick);
    d->hist = calloc(d->points, sizeof *d->hist);
    d->ring = calloc(d->points, sizeof *d->ring);
    d->ring_len = calloc(d->points, sizeof *d->ring_len);
    d->ring_pos = calloc(d->points, sizeof *d->ring_pos);
    int ring_ok = d->ring && d->ring_len;
    for (size_t p = 0; ring_ok && p < d->points; p++) {
        const double T = s->dmc_memory / mcfi_setup_timestep(s, p);
        d->ring_len[p] = T > 0.0 ? (uint64_t)fmax(1.0, floor(T + 0.5)) : 0;
        if (d->ring_len[p] > ((uint64_t)1 << 24)) {
            mcfi_dmc_free(d);
            return mcf_fail(MCF_EINVAL, "%s: [run] population_correction = %g is %llu time "
                            "steps; at most 2^24", s->config_path, s->dmc_memory,
                            (unsigned long long)(T + 0.5));
        }
        ring_ok = (d->ring[p] = calloc(d->ring_len[p] + 1, sizeof **d->ring)) != NULL;
    }
    if (!ring_ok || !d->ring_pos || !d->hist || !d->values || !d->e_tot || !d->e_old ||
        !d->acc || !d->prop || !d->acc_sum || !d->prop_sum || !d->e_sum || !d->steps ||
        !d->rng || !d->rng0 || !d->lw || !d->w || !d->e_new || !d->mean || !d->from || !d->pick) {
        mcfi_dmc_free(d);
        return mcf_fail(MCF_ENOMEM, "out of memory for DMC");
    }
    for (size_t k = 0; k < n; k++)
        d->e_old[k] = NAN;
    for (size_t p = 0; p < d->points; p++) {
        mcf_rng_init(&d->rng[p], s->seed, UINT64_MAX - 1 - p);
        d->rng0[p] = d->rng[p];
    }
    const mcf_model *v = mcfi_model_v2(r->model);
    for (size_t i = 0; i < r->n_own; i++) {
        mcf_chain *c = &r->chains[r->own[i]];
        const double tau = mcfi_setup_timestep(s, c->index / d->R);
        int rc = v->projector(c->state, tau);
        if (rc) {
            mcfi_dmc_free(d);
            return mcf_fail_prefix(rc, "%s: [run] method = dmc, timestep = %g: model %s, chain "
                                   "%zu", s->config_path, tau, s->model_name, c->index);
        }
    }
    r->dmc = d;
    return MCF_OK;
}

void mcfi_dmc_announce(const mcf_run *r)
{
    const struct mcfi_dmc *d = r->dmc;
    const mcf_setup *s = r->setup;
    char steps[64];
    snprintf(steps, sizeof steps, "time step %g", s->dmc_tau);
    const long a = mcfi_timestep_axis(s);
    if (a >= 0)
        snprintf(steps, sizeof steps, "%zu time steps (the scan column timestep)",
                 s->axes[a].n);
    if (d && r->rank == 0)
        mcf_log(MCF_LOG_INFO, "diffusion Monte Carlo: %zu scan point%s, a population of %zu "
                "walkers each, %s; weights exp(-tau_eff ((E_before + E_after) / 2 - E_T)), a "
                "comb every sweep; each row the weighted (mixed) estimate", d->points,
                d->points == 1 ? "" : "s", d->R, steps);
}

void mcfi_dmc_state(const mcf_run *r, mcfi_dmc_view *v)
{
    const struct mcfi_dmc *d = r->dmc;
    v->points = d->points;
    v->R = d->R;
    v->e_old = d->e_old;
    v->e_sum = d->e_sum;
    v->acc_sum = d->acc_sum;
    v->prop_sum = d->prop_sum;
    v->steps = d->steps;
    v->rng = d->rng;
    v->rng0 = d->rng0;
    v->hist = d->hist;
    v->ring = d->ring;
    v->ring_len = d->ring_len;
    v->ring_pos = d->ring_pos;
}

int mcfi_dmc_history_at(const mcf_setup *s, uint64_t t)
{
    const uint64_t every = (uint64_t)s->measure_every;
    return t % every == (uint64_t)s->thermalize % every;
}

uint64_t mcfi_dmc_history_rows(const mcf_setup *s, uint64_t t)
{
    const uint64_t every = (uint64_t)s->measure_every, ph = (uint64_t)s->thermalize % every;
    return (t + every - ph) / every - (ph == 0);
}

double mcfi_dmc_history_sweep(const mcf_setup *s, uint64_t i)
{
    const uint64_t every = (uint64_t)s->measure_every, ph = (uint64_t)s->thermalize % every;
    return (double)((ph ? ph : every) + i * every);
}

int mcfi_dmc_history_reserve(mcfi_dmc_history *h, size_t n)
{
    if (n <= h->cap)
        return MCF_OK;
    size_t cap = h->cap ? h->cap : 256;
    while (cap < n)
        cap *= 2;
    double *rows = realloc(h->rows, cap * MCFI_DMC_HIST * sizeof *rows);
    if (!rows)
        return mcf_fail(MCF_ENOMEM, "out of memory for the population's history (%zu rows)", n);
    h->rows = rows;
    h->cap = cap;
    return MCF_OK;
}

void mcfi_dmc_keep(const mcf_run *r, const mcf_chain *c, const double *values, uint64_t accepted,
                   uint64_t proposed)
{
    struct mcfi_dmc *d = r->dmc;
    if (values) {
        memcpy(d->values + c->index * d->row, values, d->row * sizeof *values);
        const size_t ie = r->scalar[r->role[MCF_ROLE_ENERGY]];
        d->e_tot[c->index] = values[c->offset[ie]] * (double)c->units;
    }
    d->acc[c->index] += accepted;
    d->prop[c->index] += proposed;
}

/* The point's weights into d->w (relative: the largest 1), its energies e (total) of this
 * step; tau_eff from the moves so far, the trial energy used; returns the largest log
 * weight (what d->w is relative to). */
static double weigh(const mcf_run *r, struct mcfi_dmc *d, size_t p, double *e_new,
                    double *tau_eff, double *e_trial_out)
{
    const size_t R = d->R;
    for (size_t w = 0; w < R; w++) {
        const size_t k = p * R + w;
        d->acc_sum[p] += d->acc[k];
        d->prop_sum[p] += d->prop[k];
        d->acc[k] = d->prop[k] = 0;
        e_new[w] = d->e_tot[k];
    }
    const double tau = mcfi_setup_timestep(r->setup, p);
    *tau_eff = d->prop_sum[p] ? tau * (double)d->acc_sum[p] / (double)d->prop_sum[p] : tau;
    double e_mean = 0.0;
    for (size_t w = 0; w < R; w++)
        e_mean += e_new[w] / (double)R;
    const double e_trial = d->steps[p] ? d->e_sum[p] / (double)d->steps[p] : e_mean;
    *e_trial_out = e_trial;
    double top = -INFINITY;
    for (size_t w = 0; w < R; w++) {
        const double old = isnan(d->e_old[p * R + w]) ? e_new[w] : d->e_old[p * R + w];
        d->lw[w] = -*tau_eff * (0.5 * (old + e_new[w]) - e_trial);
        top = d->lw[w] > top ? d->lw[w] : top;
    }
    for (size_t w = 0; w < R; w++)
        d->w[w] = exp(d->lw[w] - top);
    return top;
}

/* Point p's row of the history (dmc.h) for this step: W and W2 the sums of its relative
 * weights and their squares, lwbar the log of its mean weight, S the sum of the last ring's. */
static int remember(struct mcfi_dmc *d, size_t p, uint64_t sweep, double e_mix, double W,
                    double W2, double lwbar, double S, double e_trial, double tau_eff)
{
    mcfi_dmc_history *h = &d->hist[p];
    int rc = mcfi_dmc_history_reserve(h, h->n + 1);
    if (rc)
        return rc;
    double *x = h->rows + h->n++ * MCFI_DMC_HIST;
    x[0] = (double)sweep + 1.0;
    x[1] = e_mix;
    x[2] = lwbar;
    x[3] = W * W / W2;
    x[4] = e_trial;
    x[5] = tau_eff;
    x[6] = S;
    return MCF_OK;
}

/* Over MPI ranks: every rank gets every walker's row, energy and moves of the step (the
 * others' slots -inf and 0 before an element-wise maximum and sum: each chain has one
 * owner), so that every rank weighs, averages and combs alike, in chain order. */
static void share(const mcf_run *r, struct mcfi_dmc *d)
{
    if (r->ranks < 2)
        return;
    const size_t n = r->n_chains;
    for (size_t k = 0; k < n; k++)
        if (!mcfi_owns(r, k)) {
            for (size_t v = 0; v < d->row; v++)
                d->values[k * d->row + v] = -INFINITY;
            d->e_tot[k] = -INFINITY;
            d->acc[k] = d->prop[k] = 0;
        }
    mcfi_mpi_max_doubles(d->values, (int)(n * d->row));
    mcfi_mpi_max_doubles(d->e_tot, (int)n);
    mcfi_mpi_sum_u64(d->acc, (int)n);
    mcfi_mpi_sum_u64(d->prop, (int)n);
}

int mcfi_dmc_step(mcf_run *r)
{
    struct mcfi_dmc *d = r->dmc;
    const mcf_setup *s = r->setup;
    const uint64_t sweep = r->position - 1;
    const int measuring = sweep >= (uint64_t)s->thermalize &&
                          (sweep - (uint64_t)s->thermalize + 1) % (uint64_t)s->measure_every == 0;
    const size_t R = d->R, row = d->row;
    double *e_new = d->e_new;
    share(r, d);
    int rc = MCF_OK;
    for (size_t p = 0; p < d->points && !rc; p++) {
        double tau_eff, e_trial, W = 0.0, W2 = 0.0, e_w = 0.0;
        const double top = weigh(r, d, p, e_new, &tau_eff, &e_trial);
        for (size_t v = 0; v < row; v++)
            d->mean[v] = 0.0;
        for (size_t w = 0; w < R; w++) {
            W += d->w[w];
            W2 += d->w[w] * d->w[w];
            e_w += d->w[w] * e_new[w];
            const double *x = d->values + (p * R + w) * row;
            for (size_t v = 0; v < row; v++)
                d->mean[v] += d->w[w] * x[v];
        }
        for (size_t v = 0; v < row; v++)
            d->mean[v] /= W;
        /* the population factor of this step into the point's ring, and their sum */
        const double lwbar = top + log(W / (double)R);
        double S = 0.0;
        if (d->ring_len[p]) {
            d->ring[p][d->ring_pos[p]] = lwbar;
            d->ring_pos[p] = (d->ring_pos[p] + 1) % d->ring_len[p];
            for (uint64_t i = 0; i < d->ring_len[p]; i++) /* in slot order: no drift */
                S += d->ring[p][i];
        }
        if (mcfi_dmc_history_at(s, sweep + 1))
            rc = remember(d, p, sweep, e_w / W, W, W2, lwbar, S, e_trial, tau_eff);
        d->e_sum[p] += e_w / W;
        d->steps[p]++;
        if (measuring && mcfi_owns(r, p * R)) /* walker 0 records its point */
            mcfi_chain_record(r, &r->chains[p * R], d->mean);
        if (!rc)
            rc = mcfi_comb(d->w, R, mcf_rng_uniform(&d->rng[p]), NULL, d->pick);
        for (size_t w = 0; w < R && !rc; w++) {
            d->from[p * R + w] = d->pick[w] == w ? SIZE_MAX : p * R + d->pick[w];
            d->e_old[p * R + w] = e_new[d->pick[w]];
        }
    }
    if (rc)
        return mcfe_mpi_agree(mcf_fail_prefix(rc, "DMC at sweep %llu",
                                              (unsigned long long)r->position));
    return mcfi_hand_over(r, d->from, "DMC's comb");
}
