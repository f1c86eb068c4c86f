/* xy.c — the classical XY model as an mcf model plugin, built out of tree.
 *
 * Planar unit spins s_i = (cos θ_i, sin θ_i) on an L x L square lattice,
 *
 *     H = -J Σ_<ij> cos(θ_i - θ_j)        (each nearest-neighbour bond once)
 *
 * sampled with single-spin Metropolis moves θ_i -> θ_i + u, u uniform in [-δ, δ).
 * The proposal is symmetric, so the log of the acceptance ratio is -ΔE / T.  δ is the
 * parameter `step`; during thermalization the core reports the acceptance rate and
 * adapt() moves δ toward 50 % acceptance.
 *
 * Observables, per site (N = L^2):  energy = E / N,  abs_m = |m|,  m2 = |m|^2,
 * m4 = |m|^4, with m = (1/N) Σ_i s_i.  From their roles the core derives the specific
 * heat, the susceptibility and the Binder cumulant.  The Berezinskii–Kosterlitz–Thouless
 * transition of this model is at T_BKT ≈ 0.893 J. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"

#define XY_PI 3.14159265358979323846
#define XY_TWO_PI (2.0 * XY_PI)

/* Smallest step adapt() will shrink δ to: far below anything a finite temperature
 * needs, it only keeps δ positive. */
#define XY_MIN_STEP 1e-6

/* ---- parameters: the core validates types, ranges and choices before create() ---- */

static const mcf_param_spec xy_params[] = {
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "linear size of the L x L square lattice"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0,
     MCF_BOUNDARY_CHOICES, "periodic or open boundaries"},
    {"J", MCF_PARAM_REAL, "1.0", 0, 0, 0, NULL,
     "coupling: H = -J sum_<ij> cos(theta_i - theta_j); J > 0 is ferromagnetic"},
    {"step", MCF_PARAM_REAL, "1.0",
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_HAS_MAX, 0.0, XY_PI, NULL,
     "initial half-width delta of the angle update, in (0, pi]; adapted while "
     "thermalizing"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     "initial state: random angles (hot) or all theta = 0 (cold)"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

static const mcf_observable_spec xy_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, in units of J", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "|m|, modulus of the magnetization per site", NULL, 0},
    {"m2", MCF_ROLE_ORDER2, "|m|^2", NULL, 0},
    {"m4", MCF_ROLE_ORDER4, "|m|^4", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

/* ---- one chain -------------------------------------------------------------------- */

typedef struct xy_chain {
    mcf_lattice *lattice; /* owned */
    double *theta;        /* one angle per site, in [0, 2π) */
    double J;
    double beta;          /* 1 / T */
    double step;          /* δ: adapted during thermalization, saved in checkpoints */
} xy_chain;

typedef struct xy_move {
    uint64_t site;
    double theta_new;
} xy_move;

/* θ reduced to [0, 2π). */
static double wrap(double theta)
{
    double t = fmod(theta, XY_TWO_PI);
    if (t < 0)
        t += XY_TWO_PI;
    if (t >= XY_TWO_PI) /* fmod of a tiny negative number plus 2π can round up */
        t = 0.0;
    return t;
}

static void xy_destroy(void *chain)
{
    xy_chain *c = chain;
    if (!c)
        return;
    mcf_lattice_destroy(c->lattice);
    free(c->theta);
    free(c);
}

static int xy_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **out)
{
    (void)services; /* the XY model needs no evaluator */
    long L;
    double J, step, T;
    const char *boundary_name, *start;
    int rc;
    if ((rc = mcf_params_int(params, "L", &L)) != MCF_OK ||
        (rc = mcf_params_real(params, "J", &J)) != MCF_OK ||
        (rc = mcf_params_real(params, "step", &step)) != MCF_OK ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)) != MCF_OK ||
        (rc = mcf_params_string(params, "start", &start)) != MCF_OK ||
        (rc = mcf_params_temperature(params, &T)) != MCF_OK)
        return rc;
    if (!(T > 0))
        return mcf_fail(MCF_EINVAL, "%s: [schedule] temperatures: T = %g; the XY model "
                                    "needs T > 0",
                        mcf_params_origin(params), T);
    mcf_boundary boundary;
    if ((rc = mcf_boundary_from_name(boundary_name, &boundary)) != MCF_OK)
        return rc;

    xy_chain *c = calloc(1, sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "xy: out of memory for a chain");
    if ((rc = mcf_lattice_create(MCF_LATTICE_SQUARE, L, boundary, &c->lattice)) != MCF_OK) {
        free(c);
        return rc;
    }
    c->theta = malloc(c->lattice->sites * sizeof *c->theta);
    if (!c->theta) {
        size_t sites = c->lattice->sites;
        xy_destroy(c);
        return mcf_fail(MCF_ENOMEM, "xy: out of memory for %zu spins", sites);
    }
    c->J = J;
    c->beta = 1.0 / T;
    c->step = step;
    int ordered = strcmp(start, "ordered") == 0; /* the core admits only the choices */
    for (size_t i = 0; i < c->lattice->sites; i++)
        c->theta[i] = ordered ? 0.0 : XY_TWO_PI * mcf_rng_uniform(rng);
    *out = c;
    return MCF_OK;
}

static size_t xy_units(const void *chain)
{
    const xy_chain *c = chain;
    return c->lattice->sites;
}

static int xy_propose(void *chain, mcf_rng *rng, void *move)
{
    xy_chain *c = chain;
    xy_move *m = move;
    m->site = mcf_rng_below(rng, c->lattice->sites);
    double u = 2.0 * mcf_rng_uniform(rng) - 1.0; /* [-1, 1) */
    m->theta_new = wrap(c->theta[m->site] + c->step * u);
    return MCF_OK;
}

/* -ΔE / T of one move: only the bonds of the moved site change. */
static double xy_log_ratio_one(const xy_chain *c, const xy_move *m)
{
    const mcf_lattice *lat = c->lattice;
    const int32_t *nb = lat->neighbours + m->site * (size_t)lat->coordination;
    double old_theta = c->theta[m->site], sum = 0.0;
    for (int k = 0; k < lat->coordination; k++) {
        if (nb[k] < 0) /* open boundary */
            continue;
        double tj = c->theta[nb[k]];
        sum += cos(m->theta_new - tj) - cos(old_theta - tj);
    }
    double delta_e = -c->J * sum;
    return -c->beta * delta_e;
}

/* Batched over chains: one call for the moves of n chains. */
static int xy_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    const xy_move *m = moves;
    for (size_t i = 0; i < n; i++)
        out[i] = xy_log_ratio_one(chains[i], &m[i]);
    return MCF_OK;
}

static int xy_accept(void *chain, const void *move)
{
    xy_chain *c = chain;
    const xy_move *m = move;
    c->theta[m->site] = m->theta_new;
    return MCF_OK;
}

static void xy_reject(void *chain, const void *move)
{
    (void)chain; /* nothing was changed by propose() */
    (void)move;
}

static int xy_measure(void *chain, double *values)
{
    const xy_chain *c = chain;
    const mcf_lattice *lat = c->lattice;
    size_t n = lat->sites;
    double bonds = 0.0, mx = 0.0, my = 0.0;
    for (size_t i = 0; i < n; i++) {
        const int32_t *nb = lat->neighbours + i * (size_t)lat->coordination;
        for (int k = 0; k < lat->coordination; k += 2) /* +x, +y: each bond once */
            if (nb[k] >= 0)
                bonds += cos(c->theta[i] - c->theta[nb[k]]);
        mx += cos(c->theta[i]);
        my += sin(c->theta[i]);
    }
    mx /= (double)n;
    my /= (double)n;
    double m2 = mx * mx + my * my;
    values[0] = -c->J * bonds / (double)n;
    values[1] = sqrt(m2);
    values[2] = m2;
    values[3] = m2 * m2;
    return MCF_OK;
}

/* Tunes δ toward 50 % acceptance: multiply by (acceptance / 0.5), by at most a factor
 * of two either way per call, and never beyond π (at high T every δ is accepted often). */
static void xy_adapt(void *chain, double acceptance)
{
    xy_chain *c = chain;
    if (!(acceptance >= 0.0 && acceptance <= 1.0))
        return;
    double factor = acceptance / 0.5;
    if (factor < 0.5)
        factor = 0.5;
    if (factor > 2.0)
        factor = 2.0;
    c->step *= factor;
    if (c->step > XY_PI)
        c->step = XY_PI;
    if (c->step < XY_MIN_STEP)
        c->step = XY_MIN_STEP;
}

/* Checkpoint record: site count, δ, then every angle, bit for bit.  Doubles are
 * written as their bytes, so a resumed chain continues exactly where it stopped. */
static int xy_save(const void *chain, mcf_stream *out)
{
    const xy_chain *c = chain;
    uint64_t n = c->lattice->sites;
    int rc;
    if ((rc = mcf_stream_write(out, &n, sizeof n)) != MCF_OK ||
        (rc = mcf_stream_write(out, &c->step, sizeof c->step)) != MCF_OK ||
        (rc = mcf_stream_write(out, c->theta, n * sizeof *c->theta)) != MCF_OK)
        return rc;
    return MCF_OK;
}

static int xy_load(void *chain, mcf_stream *in)
{
    xy_chain *c = chain;
    uint64_t n;
    double step;
    int rc;
    if ((rc = mcf_stream_read(in, &n, sizeof n)) != MCF_OK)
        return rc;
    if (n != c->lattice->sites)
        return mcf_fail(MCF_EFORMAT, "xy: the checkpoint holds %llu spins, but this chain "
                                     "has L^2 = %zu; it belongs to another configuration",
                        (unsigned long long)n, c->lattice->sites);
    if ((rc = mcf_stream_read(in, &step, sizeof step)) != MCF_OK)
        return rc;
    if (!(step > 0.0 && step <= XY_PI))
        return mcf_fail(MCF_EFORMAT, "xy: the checkpoint holds step = %g, outside (0, pi]",
                        step);
    if ((rc = mcf_stream_read(in, c->theta, n * sizeof *c->theta)) != MCF_OK)
        return rc;
    c->step = step;
    return MCF_OK;
}

static const mcf_model_ops xy_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(xy_move),
    .observables = xy_observables,
    .create = xy_create,
    .destroy = xy_destroy,
    .units = xy_units,
    .begin_sweep = NULL,
    .propose = xy_propose,
    .log_ratio = xy_log_ratio,
    .accept = xy_accept,
    .reject = xy_reject,
    .measure = xy_measure,
    .save = xy_save,
    .load = xy_load,
    .adapt = xy_adapt,
};

static const mcf_plugin_info xy_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "xy",
    .version = "0.1.0",
    .summary = "classical XY model (planar unit spins) on the square lattice",
    .params = xy_params,
    .ops = &xy_ops,
};

MCF_PLUGIN(xy_info)
