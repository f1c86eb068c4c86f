/* test_moves_model.c — mcf-tmoves: a model of ABI 2 whose proposals per sweep differ from its
 * units (mcf_layout.moves, mcf 0.8), for tests/cli/test_layout_moves.sh.  `n` sites
 * (layout.units = n) and `moves` proposals per sweep (0: leave layout.moves 0, i.e. n).
 * Every move is accepted; measure() reports how many proposals the chain received since the
 * last measurement, which with measure_every = 1 is the proposals per sweep, exactly. */
#include <stdlib.h>

#include "mcf/mcf.h"

static const mcf_param_spec tm_params[] = {
    {"n", MCF_PARAM_INT, "4", MCF_PARAM_RANGE(1, 1000), NULL, .doc = "sites (the units)"},
    {"moves", MCF_PARAM_INT, "0", MCF_PARAM_RANGE(0, 1000), NULL,
     .doc = "proposals per sweep (0: the units)"},
    {0}};

static const mcf_observable tm_observables[] = {
    {"proposals", MCF_ROLE_NONE, "proposals since the last measurement", .symbol = "P"},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

typedef struct tm_chain {
    long n, moves;
    int64_t since; /* proposals since the last measurement (part of the state) */
} tm_chain;

static int tm_create(const mcf_params *p, const mcf_services *sv, mcf_rng *rng, void **out)
{
    (void)sv, (void)rng;
    tm_chain *c = calloc(1, sizeof *c);
    int rc = !c ? mcf_fail(MCF_ENOMEM, "tmoves: out of memory")
                : mcf_params_int(p, "n", &c->n) ? MCF_EINVAL
                                                 : mcf_params_int(p, "moves", &c->moves);
    if (rc) {
        free(c);
        return rc;
    }
    *out = c;
    return MCF_OK;
}

static void tm_destroy(void *chain) { free(chain); }

static int tm_layout(const void *chain, mcf_layout *l)
{
    const tm_chain *c = chain;
    l->units = (size_t)c->n;
    l->moves = (size_t)c->moves;
    return MCF_OK;
}

static int tm_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                      void *moves, double *log_ratio)
{
    (void)b, (void)rngs, (void)moves;
    for (size_t k = 0; k < n; k++) {
        ((tm_chain *)chains[k])->since++;
        log_ratio[k] = 0;
    }
    return MCF_OK;
}

static int tm_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                    const unsigned char *accepted)
{
    (void)b, (void)chains, (void)moves, (void)n, (void)accepted;
    return MCF_OK;
}

static int tm_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++) {
        tm_chain *c = chains[k];
        values[k][0] = (double)c->since;
        c->since = 0;
    }
    return MCF_OK;
}

static int tm_state(void *chain, mcf_chain_state *st)
{
    tm_chain *c = chain;
    return mcf_chain_state_add(st, MCF_STATE_DATA("since", &c->since, sizeof c->since), 0);
}

static const mcf_model tm_model = {
    .struct_size = sizeof(mcf_model), .move_size = 1, .observables = tm_observables,
    .state_tag = {'T', 'M', 'V', '1'}, .create = tm_create, .destroy = tm_destroy,
    .layout = tm_layout, .propose = tm_propose, .apply = tm_apply, .measure = tm_measure,
    .state = tm_state};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "tmoves", "1.0", "proposals per sweep != units (test)",
                      tm_params, &tm_model)
