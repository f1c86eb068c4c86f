/* xy.c — the classical XY model as an mcf model plugin, built out of tree.
 *
 * Planar unit spins s_i = (cos θ_i, sin θ_i) on an L x L square lattice,
 *
 *     H = -J Σ_<ij> cos(θ_i - θ_j)        (each nearest-neighbour bond once)
 *
 * sampled with single-spin Metropolis moves θ_i -> θ_i + u, u uniform in [-δ, δ).
 * The proposal is symmetric, so the log of the acceptance ratio is -ΔE / T.  δ is the
 * parameter `step`; during thermalization the core moves δ toward 50 % acceptance.
 *
 * Observables, per site (N = L^2):  energy = E / N,  abs_m = |m|,  m2 = |m|^2,
 * m4 = |m|^4, with m = (1/N) Σ_i s_i.  From their roles the core derives the specific
 * heat, the susceptibility and the Binder cumulant.  The Berezinskii–Kosterlitz–Thouless
 * transition of this model is at T_BKT ≈ 0.893 J.
 *
 * Written against the model table of ABI 2 (mcf_model in mcf/model.h, SDK 1.0): every
 * operation takes a batch of n chains, and the chain's state is described once, in
 * xy_state(); the core saves and loads checkpoints and adapts δ from that description. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mcf/mcf.h"

#if !MCF_VERSION_AT_LEAST(1, 0, 0)
#error "the XY example needs the mcf 1.0 SDK (ABI 2's model table, frozen)"
#endif

#define XY_PI 3.14159265358979323846
#define XY_TWO_PI (2.0 * XY_PI)

/* Smallest step the adaptation will shrink δ to: far below anything a finite temperature
 * needs, it only keeps δ positive. */
#define XY_MIN_STEP 1e-6

/* ---- parameters: the core validates types, ranges and choices before create() ---- */

static const mcf_param_spec xy_params[] = {
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     .doc = "linear size of the L x L square lattice"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0,
     MCF_BOUNDARY_CHOICES, .doc = "periodic or open boundaries"},
    {"J", MCF_PARAM_REAL, "1.0", 0, 0, 0, NULL,
     .doc = "coupling: H = -J sum_<ij> cos(theta_i - theta_j); J > 0 is ferromagnetic"},
    {"step", MCF_PARAM_REAL, "1.0",
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_HAS_MAX, 0.0, XY_PI, NULL,
     .doc = "initial half-width delta of the angle update, in (0, pi]; adapted while "
     "thermalizing"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     .doc = "initial state: random angles (hot) or all theta = 0 (cold)"},
    {0}};

/* [model] start, in the order of its choices (mcf_params_choice) */
enum { XY_START_RANDOM, XY_START_ORDERED };

/* The observables, in the order measure() writes them.  The last four fields (a symbol
 * and a unit for plots, and a curve's axis symbol and unit) are left NULL here:
 * models/ising/ising.c shows them filled in. */
static const mcf_observable xy_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, in units of J", NULL, 0, NULL, NULL, NULL,
     NULL},
    {"abs_m", MCF_ROLE_ORDER, "|m|, modulus of the magnetization per site", NULL, 0, NULL,
     NULL, NULL, NULL},
    {"m2", MCF_ROLE_ORDER2, "|m|^2", NULL, 0, NULL, NULL, NULL, NULL},
    {"m4", MCF_ROLE_ORDER4, "|m|^4", NULL, 0, NULL, NULL, NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

/* ---- one chain -------------------------------------------------------------------- */

typedef struct xy_chain {
    mcf_lattice *lattice; /* owned */
    uint64_t sites;       /* N = L^2, the first field of the checkpoint record */
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
    const char *boundary_name;
    int start, rc;
    if ((rc = mcf_params_int(params, "L", &L)) != MCF_OK ||
        (rc = mcf_params_real(params, "J", &J)) != MCF_OK ||
        (rc = mcf_params_real(params, "step", &step)) != MCF_OK ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)) != MCF_OK ||
        (rc = mcf_params_choice(params, "start", &start)) != MCF_OK ||
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
    c->sites = c->lattice->sites;
    c->theta = malloc(c->lattice->sites * sizeof *c->theta);
    if (!c->theta) {
        size_t sites = c->lattice->sites;
        xy_destroy(c);
        return mcf_fail(MCF_ENOMEM, "xy: out of memory for %zu spins", sites);
    }
    c->J = J;
    c->beta = 1.0 / T;
    c->step = step;
    for (size_t i = 0; i < c->lattice->sites; i++)
        c->theta[i] = start == XY_START_ORDERED ? 0.0 : XY_TWO_PI * mcf_rng_uniform(rng);
    *out = c;
    return MCF_OK;
}

/* The proposals per sweep (also the N of per-site observables): one per site. */
static int xy_layout(const void *chain, mcf_layout *layout)
{
    const xy_chain *c = chain;
    layout->units = c->lattice->sites;
    return MCF_OK;
}

/* -ΔE / T of one move: only the bonds of the moved site change. */
static double xy_log_ratio(const xy_chain *c, const xy_move *m)
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

/* For each of the n chains: a move drawn from the chain's own stream rngs[k], and the log
 * of its acceptance ratio.  The batch b is the core's scratch space; this model needs
 * none. */
static int xy_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                      void *moves, double *log_ratio)
{
    (void)b;
    xy_move *m = moves;
    for (size_t k = 0; k < n; k++) {
        const xy_chain *c = chains[k];
        m[k].site = mcf_rng_below(rngs[k], c->lattice->sites);
        double u = 2.0 * mcf_rng_uniform(rngs[k]) - 1.0; /* [-1, 1) */
        m[k].theta_new = wrap(c->theta[m[k].site] + c->step * u);
        log_ratio[k] = xy_log_ratio(c, &m[k]);
    }
    return MCF_OK;
}

/* The core decided each move: apply the accepted ones; propose() changed nothing, so a
 * rejected move needs no undoing. */
static int xy_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                    const unsigned char *accepted)
{
    (void)b;
    const xy_move *m = moves;
    for (size_t k = 0; k < n; k++) {
        if (!accepted[k])
            continue;
        xy_chain *c = chains[k];
        c->theta[m[k].site] = m[k].theta_new;
    }
    return MCF_OK;
}

/* The observables of one chain, in the order of xy_observables. */
static void xy_measure_one(const xy_chain *c, double *values)
{
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
}

static int xy_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++)
        xy_measure_one(chains[k], values[k]);
    return MCF_OK;
}

/* The chain's state, described once.  The core writes the checkpoint record from it —
 * the site count, δ, then every angle, bit for bit (a resumed chain continues exactly
 * where it stopped) — reads it back, and calls xy_rebuild() after a load.  The site
 * count is FIXED: a checkpoint of another L is refused.  REALS fields must be finite.
 *
 * It also names the step δ, which the core tunes toward 50 % acceptance while
 * thermalizing: δ times acceptance / 0.5, by at most a factor of two either way per
 * call, and never beyond π (at high T every δ is accepted often). */
static int xy_state(void *chain, mcf_chain_state *st)
{
    xy_chain *c = chain;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_FIXED("site count", &c->sites, 8), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("step", &c->step, 1), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("angles", c->theta, c->sites), 0)))
        return mcf_fail(rc, "xy: too many state fields (a bug)");
    st->step = &c->step;
    st->step_target = 0.5;
    st->step_min = XY_MIN_STEP;
    st->step_max = XY_PI;
    return MCF_OK;
}

/* After a load: refuse a step outside (0, π].  (Nothing else follows from the fields.) */
static int xy_rebuild(void *chain, unsigned what)
{
    xy_chain *c = chain;
    if ((what & MCF_REBUILD_LOAD) && !(c->step > 0.0 && c->step <= XY_PI))
        return mcf_fail(MCF_EFORMAT, "xy: the checkpoint holds step = %g, outside (0, pi]",
                        c->step);
    return MCF_OK;
}

static const mcf_model xy_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(xy_move),
    .observables = xy_observables,
    /* No state_tag (zeros): the ABI-1 version of this example wrote its record without a
     * tag, and the core writes none for a zero tag (mcf 0.7), so its checkpoints resume.  A
     * new model names its record instead, e.g. .state_tag = {'X', 'Y', 'M', '1'}. */
    .create = xy_create,
    .destroy = xy_destroy,
    .layout = xy_layout,
    .propose = xy_propose,
    .apply = xy_apply,
    .measure = xy_measure,
    .state = xy_state,
    .rebuild = xy_rebuild,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "xy", "0.1.0",
                      "classical XY model (planar unit spins) on the square lattice", xy_params,
                      &xy_model)
