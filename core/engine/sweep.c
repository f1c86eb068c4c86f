/* sweep.c — one group of chains advanced in lockstep: the Metropolis sweep of a batch,
 * with the model's batch context (mcf_batch), adaptation and measurement. */
#include "sweep.h"
#include "chain.h"
#include "dmc.h"
#include "hmc.h"

#include "mcf/rng_device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int group_fail(mcf_group *g, int rc)
{
    g->status = rc;
    snprintf(g->message, sizeof g->message, "%s", mcf_last_error());
    return rc;
}

int mcfi_group_init(const mcf_run *r, mcf_group *gr, size_t g, size_t groups)
{
    gr->n = g < r->n_own ? (r->n_own - g + groups - 1) / groups : 0;
    gr->chains = calloc(gr->n, sizeof *gr->chains);
    gr->states = calloc(gr->n, sizeof *gr->states);
    gr->active_states = calloc(gr->n, sizeof *gr->active_states);
    gr->active = calloc(gr->n, sizeof *gr->active);
    gr->moves = calloc(gr->n, r->model->move_size);
    gr->decided = calloc(gr->n, 1);
    gr->active_chains = calloc(gr->n, sizeof *gr->active_chains);
    gr->active_rngs = calloc(gr->n, sizeof *gr->active_rngs);
    gr->log_ratio = calloc(gr->n, sizeof *gr->log_ratio);
    gr->rngs = calloc(gr->n, sizeof *gr->rngs);
    gr->accepted = calloc(gr->n, sizeof *gr->accepted);
    for (size_t k = 0; gr->chains && k < gr->n; k++) {
        gr->chains[k] = &r->chains[r->own[g + k * groups]];
        if (gr->chains[k]->n_values > gr->stride)
            gr->stride = gr->chains[k]->n_values;
    }
    gr->values = calloc(gr->n * gr->stride, sizeof *gr->values);
    gr->value_rows = calloc(gr->n, sizeof *gr->value_rows);
    gr->batch = mcf_batch_create();
    if (gr->batch) /* the evaluator of ABI 2's batched helpers (mcf/fermion_model.h) */
        mcf_batch_set_evaluator(gr->batch, r->setup->evaluator ? r->setup->evaluator->info : NULL,
                                r->setup->model->info->name);
    if (!gr->chains || !gr->states || !gr->active_states || !gr->active || !gr->moves ||
        !gr->decided || !gr->active_rngs || !gr->active_chains ||
        !gr->log_ratio || !gr->rngs || !gr->accepted || !gr->values || !gr->value_rows ||
        !gr->batch)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    for (size_t k = 0; k < gr->n; k++) {
        gr->value_rows[k] = gr->values + k * gr->stride;
        gr->states[k] = gr->chains[k]->state;
    }
    return MCF_OK;
}

void mcfi_group_release(mcf_group *g)
{
    free(g->chains);
    free(g->states);
    free(g->active_states);
    free(g->active);
    free(g->moves);
    free(g->decided);
    free(g->active_chains);
    free(g->active_rngs);
    free(g->log_ratio);
    free(g->rngs);
    free(g->accepted);
    free(g->values);
    free(g->value_rows);
    mcf_batch_destroy(g->batch);
    mcfi_hmc_free(g->hmc);
}

/* Counts a chain's accepted and proposed moves where the phase keeps them. */
static void count_moves(const mcf_run *r, mcf_chain *c, int measuring, uint64_t accepted,
                        uint64_t proposed)
{
    if (r->dmc) /* this sweep's moves, for DMC's effective time step */
        mcfi_dmc_keep(r, c, NULL, accepted, proposed);
    if (measuring && r->pt) {
        /* tempering: counted for the slot the replica holds, at the chunk's end */
        c->pending_accepted += accepted;
        c->pending_proposed += proposed;
    } else if (measuring) {
        c->accepted += accepted;
        c->proposed += proposed;
    } else {
        c->block_accepted += accepted;
        c->block_proposed += proposed;
    }
}

/* The model's whole-sweep op (mcf/model.h), when it has one: 1 when it made the moves, 0
 * when it declined (the core's loop makes them), or an error. */
static int sweep_by_model(mcf_run *r, mcf_group *g, int measuring)
{
    if (!r->model->has_sweep)
        return 0;
    mcf_chain *const *chains = g->chains;
    for (size_t k = 0; k < g->n; k++)
        g->rngs[k] = &chains[k]->rng;
    int rc = MCFI_MODEL(r->model, sweep, g->batch, g->states, g->n, g->rngs, g->accepted);
    if (rc == MCF_SWEEP_DECLINED)
        return 0;
    if (rc)
        return group_fail(g, mcf_fail_prefix(rc, "model %s: sweep", r->setup->model_name));
    for (size_t k = 0; k < g->n; k++) {
        if (g->accepted[k] > chains[k]->moves)
            return group_fail(g, mcf_fail(MCF_EPLUGIN, "model %s: sweep accepted %llu of "
                                          "%zu moves (chain %zu)", r->setup->model_name,
                                          (unsigned long long)g->accepted[k],
                                          chains[k]->moves, chains[k]->index));
        count_moves(r, chains[k], measuring, g->accepted[k], chains[k]->moves);
    }
    return 1;
}

/* Where curve observable o starts in chain c's axis (the curves in declaration order). */
static size_t curve_at(const mcf_run *r, const mcf_chain *c, size_t o)
{
    size_t at = 0;
    for (size_t k = 0; k < r->n_curves && r->curve[k] != o; k++)
        at += c->points[r->curve[k]];
    return at;
}

/* Issue 42: every value of a measurement is finite, or the run fails naming the chain (and
 * its scan point), the sweep (counted from 1, as the progress line counts) and the
 * observable; nothing of the measurement is recorded, so the last checkpoint stays the
 * run's. */
static int check_finite(const mcf_run *r, mcf_group *g, const mcf_chain *c,
                        const double *values, uint64_t sweep)
{
    const mcf_observable *obs = r->model->observables;
    for (size_t o = 0; o < r->n_declared; o++)
        for (size_t p = 0; p < c->points[o]; p++) {
            const double x = values[c->offset[o] + p];
            if (isfinite(x))
                continue;
            char where[640], point[96] = "";
            mcfi_chain_where(r, c->index, where, sizeof where);
            if (obs[o].axis)
                snprintf(point, sizeof point, " at %s = %g (point %zu of its curve)",
                         obs[o].axis, c->axis ? c->axis[curve_at(r, c, o) + p] : NAN, p + 1);
            return group_fail(g, mcf_fail(MCF_EPLUGIN, "model %s measured a value that is not "
                                          "finite: %s, sweep %llu, observable %s%s = %g; the "
                                          "run stops, its last checkpoint stays",
                                          r->setup->model_name, where,
                                          (unsigned long long)sweep + 1, obs[o].name, point,
                                          x));
        }
    return MCF_OK;
}

/* A failed op of the model, naming the chain when the op was one chain's. */
static int op_fail(const mcf_run *r, mcf_group *g, int rc, const char *op, size_t failed,
                   size_t n, mcf_chain *const *chain_of)
{
    if (failed < n)
        return group_fail(g, mcf_fail_prefix(rc, "model %s: %s (chain %zu)",
                                             r->setup->model_name, op, chain_of[failed]->index));
    return group_fail(g, mcf_fail_prefix(rc, "model %s: %s", r->setup->model_name, op));
}

/* Every chain of the group measures into g->value_rows, each row checked finite. */
static int measure_group(mcf_run *r, mcf_group *g, uint64_t sweep)
{
    size_t failed;
    int rc = MCFI_MODEL(r->model, measure, g->batch, g->states, g->n, g->value_rows, &failed);
    if (rc)
        return op_fail(r, g, rc, "measure", failed, g->n, g->chains);
    for (size_t k = 0; k < g->n; k++)
        if (check_finite(r, g, g->chains[k], g->value_rows[k], sweep))
            return g->status;
    return MCF_OK;
}

int mcfi_sweep_group(mcf_run *r, mcf_group *g, uint64_t sweep)
{
    const mcfi_model *md = r->model;
    const mcf_setup *s = r->setup;
    mcf_chain *const *chains = g->chains;
    int measuring = !g->plain && sweep >= (uint64_t)s->thermalize;
    size_t max_moves = 0;
    for (size_t k = 0; k < g->n; k++) {
        g->states[k] = chains[k]->state;
        if (chains[k]->moves > max_moves)
            max_moves = chains[k]->moves;
    }
    int by_model = s->hmc ? 1 : sweep_by_model(r, g, measuring);
    if (by_model < 0)
        return by_model;
    if (s->hmc) {
        /* hybrid Monte Carlo: the sweep is one trajectory per chain; the first sweep of a
         * fresh run also checks the model's gradient (hmc.c) */
        double *prob = g->log_ratio; /* free during an HMC sweep: one per chain */
        int rc = mcfi_hmc_trajectory(md, g->batch, &g->hmc, chains, g->n, s->hmc_integrator,
                                     sweep == 0 ? 3 : 0, measuring, g->decided, prob);
        if (rc)
            return group_fail(g, rc);
        for (size_t k = 0; k < g->n; k++) {
            count_moves(r, chains[k], measuring, (uint64_t)g->decided[k], 1);
            /* hmc_dt = auto: the step tuned during thermalization, frozen after it */
            if (!g->plain && !measuring) {
                mcfi_hmc_tune(s, chains[k], sweep, prob[k]);
                if (sweep + 1 == (uint64_t)s->thermalize)
                    mcfi_hmc_tune_report(r, chains[k]);
            } else if (!g->plain && sweep == 0) {
                mcfi_hmc_tune_report(r, chains[k]); /* thermalize = 0: the start guess */
            }
        }
    }
    for (size_t step = 0; step < (by_model ? 0 : max_moves); step++) {
        /* the chains with a move left at this step: their moves and log ratios in one call */
        size_t na = 0, failed;
        for (size_t k = 0; k < g->n; k++) {
            if (chains[k]->moves <= step)
                continue;
            g->active[na] = k;
            g->active_states[na] = chains[k]->state;
            g->active_rngs[na] = &chains[k]->rng;
            g->active_chains[na] = chains[k];
            na++;
        }
        int rc = MCFI_MODEL(md, propose, g->batch, g->active_states, na, g->active_rngs,
                            g->moves, g->log_ratio, &failed);
        if (rc)
            return op_fail(r, g, rc, "propose", failed, na, g->active_chains);
        for (size_t a = 0; a < na; a++) {
            mcf_chain *c = g->active_chains[a];
            double lr = g->log_ratio[a];
            if (isnan(lr)) {
                char where[640];
                mcfi_chain_where(r, c->index, where, sizeof where);
                return group_fail(g, mcf_fail(MCF_EPLUGIN, "model %s returned a NaN log-ratio "
                                              "(%s, sweep %llu): the move can be neither "
                                              "accepted nor rejected; the run stops, its last "
                                              "checkpoint stays", s->model_name, where,
                                              (unsigned long long)sweep + 1));
            }
            g->decided[a] = (unsigned char)mcf_metropolis_accept(&c->rng, lr);
        }
        rc = MCFI_MODEL(md, apply, g->batch, g->active_states, g->moves, na, g->decided, &failed);
        if (rc)
            return op_fail(r, g, rc, "accept", failed, na, g->active_chains);
        for (size_t a = 0; a < na; a++)
            count_moves(r, g->active_chains[a], measuring, (uint64_t)g->decided[a], 1);
    }
    /* after the sweep: adapt during thermalization, measure afterwards */
    if (g->plain)
        return MCF_OK;
    if (r->dmc) { /* DMC: no step adapted; every sweep measured, weighed by dmc.c */
        const uint64_t t = (uint64_t)s->thermalize, every = (uint64_t)s->adapt_every;
        for (size_t k = 0; k < g->n && !measuring; k++) /* the blocks end where they would */
            if ((sweep + 1) % every == 0 || sweep + 1 == t)
                chains[k]->block_accepted = chains[k]->block_proposed = 0;
        int rc = measure_group(r, g, sweep);
        for (size_t k = 0; k < g->n && !rc; k++)
            mcfi_dmc_keep(r, chains[k], g->value_rows[k], 0, 0);
        return rc;
    }
    if (!measuring) {
        for (size_t k = 0; k < g->n; k++) {
            mcf_chain *c = chains[k];
            if ((sweep + 1) % (uint64_t)s->adapt_every == 0 || sweep + 1 == (uint64_t)s->thermalize) {
                if (c->block_proposed)
                    MCFI_MODEL(md, adapt, c->state,
                               (double)c->block_accepted / (double)c->block_proposed);
                c->block_accepted = c->block_proposed = 0;
            }
        }
        return MCF_OK;
    }
    uint64_t m = sweep - (uint64_t)s->thermalize;
    if ((m + 1) % (uint64_t)s->measure_every != 0)
        return MCF_OK;
    int rc = measure_group(r, g, sweep);
    if (rc)
        return rc;
    for (size_t k = 0; k < g->n; k++) {
        if (!r->pt) {
            mcfi_chain_record(r, chains[k], g->value_rows[k]);
        } else if (mcfi_chain_pend(chains[k], g->value_rows[k])) {
            return group_fail(g, mcf_fail(MCF_ENOMEM, "out of memory for the measurements of "
                                          "chain %zu", chains[k]->index));
        }
    }
    return MCF_OK;
}
