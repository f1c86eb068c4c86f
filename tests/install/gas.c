/* gas.c — a model plugin written against the installed headers only, as a stranger would
 * (test_install.sh step 6): N classical particles in a periodic cube of side L with the
 * weight exp(2 sum_{i<j} u(r_ij)), u the rpa pair function of mcf/pair_function.h (what
 * |Jastrow|^2 samples).  Moves: particle i displaced uniformly in a cube of half-side step,
 * i in order.  [model] own_sweep = true makes the moves in the model's sweep op
 * (mcf/model.h), drawing exactly what the core's loop would (propose's three uniforms, then
 * the core's rule mcf_metropolis_accept of mcf/rng_device.h), so both must give the same
 * chain.  Observable u = sum_{i<j} u(r_ij); for N = 2 its mean is a ratio of two radial
 * integrals (the step computes them).  A model of ABI 2 (mcf_model, mcf/model.h); it
 * states the mcf it needs (1.0) to the compiler and, through the descriptor's
 * min_mcf_version, to the loader. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"
#include "mcf/pair_function.h"
#include "mcf/rng_device.h"

#if !MCF_VERSION_AT_LEAST(1, 0, 0)
#error "gas needs the mcf 1.0 SDK (ABI 2's model table, with the sweep op)"
#endif
#ifndef GAS_NEEDS /* the oldest mcf it runs with; the install test also asks for 9.0.0 */
#define GAS_NEEDS MCF_VERSION_NUMBER(1, 0, 0)
#endif

static const mcf_param_spec gas_params[] = {
    {"N", MCF_PARAM_INT, "2", MCF_PARAM_HAS_MIN, 2, 0, NULL, .doc = "particles"},
    {"L", MCF_PARAM_REAL, "4", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "side of the periodic cube"},
    {"A", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "rpa amplitude"},
    {"F", MCF_PARAM_REAL, "0.5", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "rpa length"},
    {"step", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "half-side of a move"},
    {"own_sweep", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "make the moves in the model's sweep op"},
    {0}};

static const mcf_observable gas_observables[] = {
    {"u", MCF_ROLE_NONE, "sum_{i<j} u(r_ij)", NULL, 0, .symbol = NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, .symbol = NULL}};

typedef struct gas {
    size_t n, next;
    double L, step, *r;
    int own;
    mcf_pair_function u;
} gas;

typedef struct gas_move {
    double r[3];
} gas_move;

static void gas_destroy(void *chain)
{
    gas *g = chain;
    if (g)
        free(g->r);
    free(g);
}

static int gas_create(const mcf_params *p, const mcf_services *s, mcf_rng *rng, void **out)
{
    (void)s;
    long n;
    double L, A, F, step;
    int own, rc;
    if ((rc = mcf_params_int(p, "N", &n)) || (rc = mcf_params_real(p, "L", &L)) ||
        (rc = mcf_params_real(p, "A", &A)) || (rc = mcf_params_real(p, "F", &F)) ||
        (rc = mcf_params_real(p, "step", &step)) || (rc = mcf_params_bool(p, "own_sweep", &own)))
        return rc;
    gas *g = calloc(1, sizeof *g);
    if (!g || !(g->r = malloc(3 * (size_t)n * sizeof *g->r))) {
        free(g);
        return mcf_fail(MCF_ENOMEM, "gas: out of memory");
    }
    g->n = (size_t)n, g->L = L, g->step = step, g->own = own;
    g->u = (mcf_pair_function){.form = MCF_PAIR_RPA, .cutoff = L / 2, .A = A, .F = F};
    for (size_t q = 0; q < 3 * g->n; q++)
        g->r[q] = L * mcf_rng_uniform(rng);
    *out = g;
    return MCF_OK;
}

static int gas_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const gas *)chain)->n; /* particle moves per sweep */
    return MCF_OK;
}

static double dist(const gas *g, const double *a, const double *b)
{
    double s2 = 0;
    for (int d = 0; d < 3; d++) {
        double x = a[d] - b[d];
        x -= g->L * nearbyint(x / g->L);
        s2 += x * x;
    }
    return sqrt(s2);
}

/* 2 (U(r_i -> t) - U) */
static double gas_lr(const gas *g, size_t i, const double *t)
{
    double s = 0;
    for (size_t j = 0; j < g->n; j++)
        if (j != i)
            s += mcf_pair_value(&g->u, dist(g, t, g->r + 3 * j)) -
                 mcf_pair_value(&g->u, dist(g, g->r + 3 * i, g->r + 3 * j));
    return 2 * s;
}

static void trial(const gas *g, mcf_rng *rng, double *t)
{
    for (int d = 0; d < 3; d++) {
        double x = g->r[3 * g->next + d] + g->step * (2 * mcf_rng_uniform(rng) - 1);
        t[d] = x - g->L * floor(x / g->L);
    }
}

/* the trial position of the next particle and its log ratio, chain by chain */
static int gas_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                       void *moves, double *log_ratio)
{
    (void)b;
    gas_move *m = moves;
    for (size_t k = 0; k < n; k++) {
        const gas *g = chains[k];
        trial(g, rngs[k], m[k].r);
        log_ratio[k] = gas_lr(g, g->next, m[k].r);
    }
    return MCF_OK;
}

/* the next particle moves if accepted; either way the one after it is next */
static void gas_settle(gas *g, const gas_move *m, int accepted)
{
    if (accepted)
        memcpy(g->r + 3 * g->next, m->r, 3 * sizeof(double));
    g->next = (g->next + 1) % g->n;
}

static int gas_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                     const unsigned char *accepted)
{
    (void)b;
    const gas_move *m = moves;
    for (size_t k = 0; k < n; k++)
        gas_settle(chains[k], &m[k], accepted[k]);
    return MCF_OK;
}

static int gas_sweep(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rng,
                     uint64_t *accepted)
{
    (void)b;
    if (!((gas *)chains[0])->own)
        return MCF_SWEEP_DECLINED;
    for (size_t k = 0; k < n; k++) {
        gas *g = chains[k];
        gas_move m;
        accepted[k] = 0;
        for (size_t i = 0; i < g->n; i++) {
            trial(g, rng[k], m.r);
            const int yes = mcf_metropolis_accept(rng[k], gas_lr(g, g->next, m.r));
            gas_settle(g, &m, yes);
            accepted[k] += (uint64_t)yes;
        }
    }
    return MCF_OK;
}

static int gas_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++) {
        const gas *g = chains[k];
        double s = 0;
        for (size_t i = 0; i < g->n; i++)
            for (size_t j = i + 1; j < g->n; j++)
                s += mcf_pair_value(&g->u, dist(g, g->r + 3 * i, g->r + 3 * j));
        values[k][0] = s;
    }
    return MCF_OK;
}

/* the record: the positions (no tag); a checkpoint is taken between sweeps, when the next
 * particle is the first */
static int gas_state(void *chain, mcf_chain_state *st)
{
    gas *g = chain;
    return mcf_chain_state_add(st, MCF_STATE_REALS("positions", g->r, 3 * g->n),
                               0);
}

static int gas_rebuild(void *chain, unsigned what)
{
    (void)what;
    ((gas *)chain)->next = 0;
    return MCF_OK;
}

static const mcf_model gas_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(gas_move),
    .observables = gas_observables,
    .create = gas_create,
    .destroy = gas_destroy,
    .layout = gas_layout,
    .propose = gas_propose,
    .apply = gas_apply,
    .sweep = gas_sweep,
    .measure = gas_measure,
    .state = gas_state,
    .rebuild = gas_rebuild,
};

/* min_mcf_version: after the ops, where MCF_PLUGIN_DESCRIPTOR takes further fields (it
 * overrides the macro's 1.0.0) */
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "gas", "0.1.0",
                      "classical particles weighted by exp(2 sum u(r_ij)), u rpa", gas_params,
                      &gas_model, .min_mcf_version = GAS_NEEDS)
