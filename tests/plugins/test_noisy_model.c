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
 *                                            leave C out
 * A model of ABI 2 (mcf/model.h); its record, the spin and the measurement stream, has no
 * tag, as its ABI-1 save() of mcf 0.4-0.8 wrote it. */
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
    if (!rc)
        rc = mcf_services_stream(sv, "measurement", &c->mrng);
    if (rc) {
        free(c);
        return rc;
    }
    c->s = mcf_rng_uniform(rng) < 0.5 ? 1 : -1;
    *out = c;
    return MCF_OK;
}

static void destroy(void *c) { free(c); }

static int layout(const void *c, mcf_layout *l)
{
    (void)c;
    l->units = 1;
    return MCF_OK;
}

static int propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                   void *moves, double *log_ratio)
{
    (void)b;
    (void)rngs;
    for (size_t k = 0; k < n; k++) {
        const chain *c = chains[k];
        ((move *)moves)[k].flip = 1;
        log_ratio[k] = -2.0 * c->h * c->s / c->T; /* flipping s changes e = -h s by 2 h s */
    }
    return MCF_OK;
}

static int apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                 const unsigned char *accepted)
{
    (void)b;
    (void)moves;
    for (size_t k = 0; k < n; k++)
        if (accepted[k])
            ((chain *)chains[k])->s = -((chain *)chains[k])->s;
    return MCF_OK;
}

/* energy (noisy), abs_m, energy_dT, action_dT (the last two unused by the Boltzmann form) */
static int measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++) {
        chain *c = chains[k];
        double *v = values[k];
        const double e = -c->h * c->s;
        v[0] = e + c->sigma * mcf_rng_normal(&c->mrng);
        v[1] = 1.0;
        v[2] = 0.0;
#if defined(TNOISY_INDEPENDENT)
        v[3] = -(e + c->sigma * mcf_rng_normal(&c->mrng)) / (c->T * c->T);
#else
        v[3] = -v[0] / (c->T * c->T);
#endif
    }
    return MCF_OK;
}

/* the record: the spin, then the measurement stream (no tag) */
static int state(void *cv, mcf_chain_state *st)
{
    chain *c = cv;
    int rc = mcf_chain_state_add(st, MCF_STATE_DATA("spin", &c->s, sizeof c->s), 0);
    return rc ? rc : mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &c->mrng), 0);
}

static int rebuild(void *cv, unsigned what)
{
    const chain *c = cv;
    if ((what & MCF_REBUILD_LOAD) && c->s != 1 && c->s != -1)
        return mcf_fail(MCF_EFORMAT, "spin %d is not +-1", c->s);
    return MCF_OK;
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

static const mcf_observable observables[] = {
    {"energy", MCF_ROLE_ENERGY, "-h s plus sigma times a normal deviate", NULL,
     MCF_OBS_NOISE(1), .symbol = NULL},
    {"abs_m", MCF_ROLE_ORDER, "|s| (always 1)", NULL, 0, .symbol = NULL},
#if defined(TNOISY_BOLTZMANN)
    {"energy_dT", MCF_ROLE_NONE, "0 (unused)", NULL, 0, .symbol = NULL},
    {"action_dT", MCF_ROLE_NONE, "unused", NULL, 0, .symbol = NULL},
#else
    {"energy_dT", MCF_ROLE_ENERGY_DT, "0: e does not depend on T at fixed s", NULL, 0,
     .symbol = NULL},
    {"action_dT", MCF_ROLE_ACTION_DT, "dS/dT = -e / T^2 from a noisy estimate of e", NULL,
     ACTION_NOISE, .symbol = NULL},
#endif
    {NULL, 0, NULL, NULL, 0, .symbol = NULL}};

static const mcf_stream_spec streams[] = {
    {"measurement", NOISY_STREAM, 0, "the noise of the energy estimates"},
    {NULL, 0, 0, NULL}};

static const mcf_model model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(move),
    .observables = observables,
#if defined(TNOISY_BOLTZMANN)
    .weight_form = MCF_WEIGHT_BOLTZMANN,
#else
    .weight_form = MCF_WEIGHT_ACTION,
#endif
    .streams = streams,
    .create = create,
    .destroy = destroy,
    .layout = layout,
    .propose = propose,
    .apply = apply,
    .measure = measure,
    .state = state,
    .rebuild = rebuild,
};

static const mcf_param_spec params[] = {
    {"h", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "field"},
    {"sigma", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "standard deviation of the energy estimate's noise"},
    {0}};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, NAME, "1",
                      "test model: one spin in a field, its energy measured with noise", params,
                      &model)
