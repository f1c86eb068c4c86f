/* test_noisy_model.c — one Ising spin in a field whose energy is measured by a noisy
 * estimator, for the core's rule on products of noisy estimates (mcf/model.h,
 * MCF_OBS_NOISE): tests/cli/test_noise_products.sh.
 *
 * The model: s = +-1, e = -h s, single-flip Metropolis at temperature T.  Each measurement
 * reports e + sigma xi with xi a standard normal deviate from the chain's own measurement
 * stream — an unbiased estimate of e, like a stochastic trace.  Exact:
 *     <e> = -h tanh(h/T),   C = d<e>/dT = (h/T)^2 / cosh^2(h/T).
 * Built three times:
 *   TNOISY_SHARED       mcf-tnoisyshared.so  weight exp(-S), S = -h s / T, e_T = 0 and
 *                                            s_T = -e / T^2 from the SAME noisy estimate
 *                                            (both noise set 1): <e s_T> would carry
 *                                            -sigma^2 / T^2, C would be sigma^2 / T^2 too
 *                                            high; the core must leave C out
 *   TNOISY_INDEPENDENT  mcf-tnoisyindep.so   the same with s_T from a second, independent
 *                                            deviate (noise set 2): C must be right
 *   TNOISY_BOLTZMANN    mcf-tnoisyboltz.so   the Boltzmann form with the noisy energy (set
 *                                            1): <e^2> would carry sigma^2; the core must
 *                                            leave C out */
#include <math.h>
#include <stdlib.h>

#include "mcf/mcf.h"

/* the measurement stream of chain k: (seed, NOISY_STREAM + k), above the core's streams */
#define NOISY_STREAM ((UINT64_C(1) << 62) + (UINT64_C(1) << 58))

typedef struct chain {
    int s;
    double h, T, sigma;
    mcf_rng mrng;
} chain;

typedef struct move {
    int flip;
} move;

static int create(const mcf_params *p, const mcf_services *sv, mcf_rng *rng, void **out)
{
    chain *c = malloc(sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = mcf_params_real(p, "h", &c->h);
    if (!rc)
        rc = mcf_params_real(p, "sigma", &c->sigma);
    if (!rc)
        rc = mcf_params_temperature(p, &c->T);
    if (rc) {
        free(c);
        return rc;
    }
    c->s = mcf_rng_uniform(rng) < 0.5 ? 1 : -1;
    mcf_rng_init(&c->mrng, sv->seed, NOISY_STREAM + sv->chain_index);
    *out = c;
    return MCF_OK;
}

static void destroy(void *c) { free(c); }
static size_t units(const void *c) { (void)c; return 1; }

static int propose(void *c, mcf_rng *rng, void *mv)
{
    (void)c;
    (void)rng;
    ((move *)mv)->flip = 1;
    return MCF_OK;
}

static int log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    (void)moves;
    for (size_t k = 0; k < n; k++) {
        const chain *c = chains[k];
        out[k] = -2.0 * c->h * c->s / c->T; /* flipping s changes e = -h s by 2 h s */
    }
    return MCF_OK;
}

static int accept(void *c, const void *mv)
{
    (void)mv;
    ((chain *)c)->s = -((chain *)c)->s;
    return MCF_OK;
}

static void reject(void *c, const void *mv) { (void)c; (void)mv; }

/* energy (noisy), abs_m, energy_dT, action_dT (the last two unused by the Boltzmann form) */
static int measure(void *cv, double *v)
{
    chain *c = cv;
    const double e = -c->h * c->s;
    v[0] = e + c->sigma * mcf_rng_normal(&c->mrng);
    v[1] = 1.0;
    v[2] = 0.0;
#if defined(TNOISY_INDEPENDENT)
    v[3] = -(e + c->sigma * mcf_rng_normal(&c->mrng)) / (c->T * c->T);
#else
    v[3] = -v[0] / (c->T * c->T);
#endif
    return MCF_OK;
}

static int save(const void *cv, mcf_stream *out)
{
    const chain *c = cv;
    int rc = mcf_stream_write(out, &c->s, sizeof c->s);
    return rc ? rc : mcf_stream_write(out, &c->mrng, sizeof c->mrng);
}

static int load(void *cv, mcf_stream *in)
{
    chain *c = cv;
    int rc = mcf_stream_read(in, &c->s, sizeof c->s);
    if (!rc)
        rc = mcf_stream_read(in, &c->mrng, sizeof c->mrng);
    if (!rc && c->s != 1 && c->s != -1)
        return mcf_fail(MCF_EFORMAT, "spin %d is not +-1", c->s);
    return rc;
}

#if defined(TNOISY_INDEPENDENT)
#define NAME "tnoisyindep"
#define ACTION_NOISE MCF_OBS_NOISE(2)
#else
#define NAME "tnoisyshared"
#define ACTION_NOISE MCF_OBS_NOISE(1)
#endif
#if defined(TNOISY_BOLTZMANN)
#undef NAME
#define NAME "tnoisyboltz"
#endif

static const mcf_observable_spec observables[] = {
    {"energy", MCF_ROLE_ENERGY, "-h s plus sigma times a normal deviate", NULL,
     MCF_OBS_NOISE(1)},
    {"abs_m", MCF_ROLE_ORDER, "|s| (always 1)", NULL, 0},
#if defined(TNOISY_BOLTZMANN)
    {"energy_dT", MCF_ROLE_NONE, "0 (unused)", NULL, 0},
    {"action_dT", MCF_ROLE_NONE, "unused", NULL, 0},
#else
    {"energy_dT", MCF_ROLE_ENERGY_DT, "0: e does not depend on T at fixed s", NULL, 0},
    {"action_dT", MCF_ROLE_ACTION_DT, "dS/dT = -e / T^2 from a noisy estimate of e", NULL,
     ACTION_NOISE},
#endif
    {NULL, 0, NULL, NULL, 0}};

static const mcf_model_ops ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(move),
    .observables = observables,
    .create = create,
    .destroy = destroy,
    .units = units,
    .propose = propose,
    .log_ratio = log_ratio,
    .accept = accept,
    .reject = reject,
    .measure = measure,
    .save = save,
    .load = load,
#if defined(TNOISY_BOLTZMANN)
    .weight_form = MCF_WEIGHT_BOLTZMANN,
#else
    .weight_form = MCF_WEIGHT_ACTION,
#endif
};

static const mcf_param_spec params[] = {
    {"h", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "field"},
    {"sigma", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "standard deviation of the energy estimate's noise"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

static const mcf_plugin_info info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = NAME,
    .version = "1",
    .summary = "test model: one spin in a field, its energy measured with noise",
    .params = params,
    .ops = &ops,
};

MCF_PLUGIN(info)
