/* gas.c — a model plugin written against the installed headers only, as a stranger would
 * (test_install.sh step 6): N classical particles in a periodic cube of side L with the
 * weight exp(2 sum_{i<j} u(r_ij)), u the rpa pair function of mcf/pair_function.h (what
 * |Jastrow|^2 samples).  Moves: particle i displaced uniformly in a cube of half-side step,
 * i in order.  [model] own_sweep = true makes the moves in the model's sweep op
 * (mcf/model.h), drawing exactly what the core's loop would (propose's three uniforms, then
 * the core's rule mcf_metropolis_accept of mcf/rng_device.h), so both must give the same
 * chain.  Observable u = sum_{i<j} u(r_ij); for N = 2 its mean is a ratio of two radial
 * integrals (the step computes them).  It states the mcf it needs (0.2) to the compiler
 * and, through the descriptor's min_mcf_version, to the loader. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"
#include "mcf/pair_function.h"
#include "mcf/rng_device.h"

#if !MCF_VERSION_AT_LEAST(0, 2, 0)
#error "gas needs the mcf 0.2 SDK (the sweep op, mcf/pair_function.h)"
#endif
#ifndef GAS_NEEDS /* the oldest mcf it runs with; the install test also asks for 9.0.0 */
#define GAS_NEEDS MCF_VERSION_NUMBER(0, 2, 0)
#endif

static const mcf_param_spec gas_params[] = {
    {"N", MCF_PARAM_INT, "2", MCF_PARAM_HAS_MIN, 2, 0, NULL, "particles"},
    {"L", MCF_PARAM_REAL, "4", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "side of the periodic cube"},
    {"A", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "rpa amplitude"},
    {"F", MCF_PARAM_REAL, "0.5", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "rpa length"},
    {"step", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "half-side of a move"},
    {"own_sweep", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "make the moves in the model's sweep op"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

static const mcf_observable_spec gas_observables[] = {
    {"u", MCF_ROLE_NONE, "sum_{i<j} u(r_ij)", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

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

static size_t gas_units(const void *chain) { return ((const gas *)chain)->n; }

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

static int gas_propose(void *chain, mcf_rng *rng, void *move)
{
    trial(chain, rng, ((gas_move *)move)->r);
    return MCF_OK;
}

static int gas_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    const gas_move *m = moves;
    for (size_t k = 0; k < n; k++)
        out[k] = gas_lr(chains[k], ((gas *)chains[k])->next, m[k].r);
    return MCF_OK;
}

static int gas_accept(void *chain, const void *move)
{
    gas *g = chain;
    memcpy(g->r + 3 * g->next, ((const gas_move *)move)->r, 3 * sizeof(double));
    g->next = (g->next + 1) % g->n;
    return MCF_OK;
}

static void gas_reject(void *chain, const void *move)
{
    (void)move;
    gas *g = chain;
    g->next = (g->next + 1) % g->n;
}

static int gas_sweep(void *const *chains, size_t n, mcf_rng *const *rng, uint64_t *accepted)
{
    if (!((gas *)chains[0])->own)
        return MCF_SWEEP_DECLINED;
    for (size_t k = 0; k < n; k++) {
        gas *g = chains[k];
        gas_move m;
        accepted[k] = 0;
        for (size_t i = 0; i < g->n; i++) {
            trial(g, rng[k], m.r);
            if (mcf_metropolis_accept(rng[k], gas_lr(g, g->next, m.r))) {
                gas_accept(g, &m);
                accepted[k]++;
            } else {
                gas_reject(g, &m);
            }
        }
    }
    return MCF_OK;
}

static int gas_measure(void *chain, double *v)
{
    const gas *g = chain;
    double s = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = i + 1; j < g->n; j++)
            s += mcf_pair_value(&g->u, dist(g, g->r + 3 * i, g->r + 3 * j));
    v[0] = s;
    return MCF_OK;
}

static int gas_save(const void *chain, mcf_stream *out)
{
    const gas *g = chain;
    return mcf_stream_write(out, g->r, 3 * g->n * sizeof(double));
}

static int gas_load(void *chain, mcf_stream *in)
{
    gas *g = chain;
    g->next = 0;
    return mcf_stream_read(in, g->r, 3 * g->n * sizeof(double));
}

static const mcf_model_ops gas_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(gas_move),
    .observables = gas_observables,
    .create = gas_create,
    .destroy = gas_destroy,
    .units = gas_units,
    .propose = gas_propose,
    .log_ratio = gas_log_ratio,
    .accept = gas_accept,
    .reject = gas_reject,
    .measure = gas_measure,
    .save = gas_save,
    .load = gas_load,
    .sweep = gas_sweep,
};

static const mcf_plugin_info gas_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "gas",
    .version = "0.1.0",
    .summary = "classical particles weighted by exp(2 sum u(r_ij)), u rpa",
    .params = gas_params,
    .ops = &gas_ops,
    .min_mcf_version = GAS_NEEDS,
};

MCF_PLUGIN(gas_info)
