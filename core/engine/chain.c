/* chain.c — a chain's lifecycle and accumulators: parameters, random stream, model
 * instance, the layout of its measurements, and recording them. */
#include "chain.h"
#include "series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcfi_chain_release(const mcf_run *r, mcf_chain *c)
{
    if (c->state)
        MCFI_MODEL(r->model, destroy, c->state);
    free(c->model_params);
    free(c->evaluator_params);
    free(c->blocking);
    free(c->bin_sum);
    free(c->bin_count);
    free(c->offset);
    free(c->points);
    free(c->axis);
    free(c->curve_bin_sum);
    free(c->pending);
    free(c->series);
    memset(c, 0, sizeof *c);
}

/* "L=16 T=2.27" for messages */
static void describe_point(const mcf_setup *s, size_t point, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < s->n_axes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", a ? " " : "", s->axes[a].name,
                                 mcfi_setup_axis_value(s, a, point)->text);
}

void mcfi_chain_where(const mcf_run *r, size_t index, char *buf, size_t n)
{
    char point[512];
    describe_point(r->setup, index / (size_t)r->setup->walkers, point, sizeof point);
    snprintf(buf, n, "chain %zu%s%s%s", index, point[0] ? " (scan point " : "", point,
             point[0] ? ")" : "");
}

static char hot[] = "random", ordered[] = "ordered";

void mcfe_chain_services(uint64_t seed, size_t index, const mcf_plugin_info *evaluator,
                         const mcf_params *evaluator_params, mcf_services *services,
                         mcf_rng *rng)
{
    memset(services, 0, sizeof *services);
    services->struct_size = sizeof *services;
    services->seed = seed;
    services->chain_index = index;
    services->evaluator = evaluator;
    services->evaluator_params = evaluator_params;
    mcf_rng_init(rng, seed, index);
}

void mcfe_model_services(const mcf_plugin *model, mcf_services *services)
{
    if (MCF_PLUGIN_INFO_HAS(model->info, app_data))
        services->app_data = model->info->app_data;
    services->streams = model->model->streams;
}

/* Parameters, random stream and accumulators of chain i: what every copy of a chain has,
 * with or without a model instance. */
int mcfi_chain_init(mcf_run *r, size_t i)
{
    mcf_chain *c = &r->chains[i];
    mcf_setup *s = r->setup;
    /* chain i = point * walkers + walker: the walkers of a point share its parameters,
       the chain index (and so the random stream) tells them apart */
    size_t pt = i / (size_t)s->walkers;
    c->index = i;
    int rc = mcfe_setup_params(s, pt, 0, &c->model_params);
    if (!rc) { /* the walker, for what tells walkers apart by design (twist averaging) */
        c->model_params->walker = i % (size_t)s->walkers;
        c->model_params->walkers = (size_t)s->walkers;
    }
    /* [schedule] start = hot_cold: even walkers start random, odd ones ordered (the model
       declares both: mcfi_core_check_start) */
    for (size_t j = 0; !rc && s->start == MCFI_START_HOT_COLD && j < c->model_params->n; j++)
        if (strcmp(c->model_params->specs[j].name, "start") == 0) {
            mcf_value *v = &c->model_params->values[j];
            v->text = (i % (size_t)s->walkers) % 2 ? ordered : hot;
            v->i = mcfi_choice_index(c->model_params->specs[j].choices, v->text); /* choice */
        }
    if (!rc && s->evaluator)
        rc = mcfe_setup_params(s, pt, 1, &c->evaluator_params);
    if (rc)
        return rc;
    mcfe_chain_services(s->seed, i, s->evaluator ? s->evaluator->info : NULL,
                        c->evaluator_params, &c->services, &c->rng);
    mcfe_model_services(s->model, &c->services);
    c->blocking = calloc(r->n_obs ? r->n_obs : 1, sizeof *c->blocking);
    c->bin_sum = calloc((size_t)s->bins * r->nvars, sizeof *c->bin_sum);
    c->bin_count = calloc((size_t)s->bins, sizeof *c->bin_count);
    c->offset = calloc(r->n_declared, sizeof *c->offset);
    c->points = calloc(r->n_declared, sizeof *c->points);
    if (!c->blocking || !c->bin_sum || !c->bin_count || !c->offset || !c->points)
        return mcf_fail(MCF_ENOMEM, "out of memory for chain %zu's accumulators", i);
    for (size_t k = 0; k < r->n_obs; k++)
        mcfi_blocking_init(&c->blocking[k]);
    return MCF_OK;
}

/* The layout of the measured values from c->points (scalars take one value, curves their
 * length), and the curves' accumulators. */
int mcfi_chain_layout(const mcf_run *r, mcf_chain *c)
{
    const mcf_observable *obs = r->model->observables;
    c->n_values = c->curve_values = 0;
    for (size_t o = 0; o < r->n_declared; o++) {
        c->offset[o] = c->n_values;
        c->n_values += c->points[o];
        if (obs[o].axis)
            c->curve_values += c->points[o];
    }
    if (r->n_curves) {
        c->axis = calloc(c->curve_values + 1, sizeof *c->axis);
        c->curve_bin_sum = calloc((size_t)r->setup->bins * c->curve_values + 1,
                                  sizeof *c->curve_bin_sum);
        if (!c->axis || !c->curve_bin_sum)
            return mcf_fail(MCF_ENOMEM, "out of memory for chain %zu's curves", c->index);
    }
    return MCF_OK;
}

int mcfi_chain_create(mcf_run *r, size_t i)
{
    mcf_chain *c = &r->chains[i];
    mcf_setup *s = r->setup;
    int rc = mcfi_chain_init(r, i);
    if (rc)
        return rc;
    mcf_clear_error();
    rc = MCFI_MODEL(r->model, create, c->model_params, &c->services, &c->rng, &c->state);
    if (rc) {
        char point[512];
        describe_point(s, i / (size_t)s->walkers, point, sizeof point);
        c->state = NULL;
        if (!point[0])
            return mcf_fail_prefix(rc, "model %s, chain %zu", s->model_name, i);
        return mcf_fail_prefix(rc, "model %s, chain %zu (%s)", s->model_name, i, point);
    }
    c->units = MCFI_MODEL(r->model, units, c->state);
    c->moves = MCFI_MODEL(r->model, moves, c->state);
    if (c->units == 0 || c->moves == 0)
        return mcf_fail(MCF_EPLUGIN, "model %s: units() returned 0 for chain %zu",
                        s->model_name, i);
    const mcf_observable *obs = r->model->observables;
    for (size_t o = 0; o < r->n_declared; o++)
        c->points[o] = obs[o].axis ? MCFI_MODEL(r->model, curve_points, c->state, o, NULL) : 1;
    rc = mcfi_chain_layout(r, c);
    if (rc)
        return rc;
    size_t at = 0;
    for (size_t k = 0; k < r->n_curves; k++) {
        size_t o = r->curve[k];
        MCFI_MODEL(r->model, curve_points, c->state, o, c->axis + at);
        at += c->points[o];
    }
    return MCF_OK;
}

/* Adds one measurement (values laid out as measure() writes them) to the accumulators. */
void mcfi_chain_record(const mcf_run *r, mcf_chain *c, const double *values)
{
    uint64_t t = c->measurements++;
    size_t bin = (size_t)(t * (uint64_t)r->setup->bins / r->n_meas);
    double *sum = c->bin_sum + bin * r->nvars;
    for (size_t k = 0; k < r->n_obs; k++) {
        double x = values[c->offset[r->scalar[k]]];
        mcfi_blocking_add(&c->blocking[k], x);
        sum[k] += x;
    }
    if (r->role[MCF_ROLE_ENERGY] >= 0) {
        double e = values[c->offset[r->scalar[r->role[MCF_ROLE_ENERGY]]]];
        sum[r->n_obs] += e * e;
        if (r->var_es >= 0)
            sum[r->var_es] += e * values[c->offset[r->scalar[r->role[MCF_ROLE_ACTION_DT]]]];
    }
    c->bin_count[bin] += 1.0;
    mcfi_series_add(r, c, values);
    if (!r->n_curves) /* and curve_bin_sum is NULL: no pointer arithmetic on it */
        return;
    double *csum = c->curve_bin_sum + bin * c->curve_values;
    size_t at = 0;
    for (size_t k = 0; k < r->n_curves; k++) {
        size_t o = r->curve[k];
        const double *v = values + c->offset[o];
        for (size_t p = 0; p < c->points[o]; p++)
            csum[at + p] += v[p];
        at += c->points[o];
    }
}

/* Bin b of n bins of `width` doubles each := bins 2b and 2b + 1 (those that exist); in
 * place, ascending: bin b is written after bins 2b and 2b + 1 >= b are read. */
static void merge_pairs(double *bins, size_t n, size_t width)
{
    for (size_t b = 0; b < n; b++)
        for (size_t v = 0; v < width; v++) {
            double sum = 2 * b < n ? bins[2 * b * width + v] : 0.0;
            if (2 * b + 1 < n)
                sum += bins[(2 * b + 1) * width + v];
            bins[b * width + v] = sum;
        }
}

void mcfi_chain_merge_bins(const mcf_run *r, mcf_chain *c)
{
    size_t nb = (size_t)r->setup->bins;
    merge_pairs(c->bin_sum, nb, r->nvars);
    merge_pairs(c->bin_count, nb, 1);
    if (c->curve_bin_sum && c->curve_values)
        merge_pairs(c->curve_bin_sum, nb, c->curve_values);
}

/* Keeps one measurement of a tempering replica until the chunk's end (0, or -1 when out
 * of memory). */
int mcfi_chain_pend(mcf_chain *c, const double *values)
{
    if (c->pending_rows == c->pending_cap) {
        size_t cap = c->pending_cap ? 2 * c->pending_cap : 16;
        double *p = realloc(c->pending, cap * (c->n_values ? c->n_values : 1) * sizeof *p);
        if (!p)
            return -1;
        c->pending = p;
        c->pending_cap = cap;
    }
    memcpy(c->pending + c->pending_rows * c->n_values, values, c->n_values * sizeof *values);
    c->pending_rows++;
    return 0;
}
