/* blume-capel.c — the Blume-Capel model for mcf: spins s_i in {-1, 0, +1} on a chain, square
 * or cubic lattice, H = -J sum_<ij> s_i s_j + D sum_i s_i^2 - h sum_i s_i, weight exp(-H/T),
 * single-site moves.  check.sh compares a periodic chain with its transfer matrix. */
#include <math.h>
#include <stdlib.h>
#include "mcf/mcf.h"

#define RANGE100 MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, -100, 100, NULL /* in [-100, 100] */
static const mcf_param_spec bc_params[] = { /* checked by the core before create() */
    MCF_LATTICE_PARAMS("chain|square|cubic", "square", "8"), /* lattice, L, boundary */
    {"J", MCF_PARAM_REAL, "1", RANGE100, .doc = "coupling, -J s_i s_j per bond (J > 0: ferro)"},
    {"D", MCF_PARAM_REAL, "0", RANGE100, .doc = "crystal field, +D s_i^2 per site (D > 0: s_i = 0)"},
    {"h", MCF_PARAM_REAL, "0", RANGE100, .doc = "field, -h s_i per site"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     .doc = "initial spins: uniform among -1, 0, +1, or all +1 (for [schedule] start = hot_cold)"},
    {0}};
enum { START_RANDOM, START_ORDERED };

/* measure()'s values in order; the core derives C, chi, Binder from the roles. */
static const mcf_observable bc_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, H / N", .symbol = "E/N", .unit = "J"},
    {"abs_m", MCF_ROLE_ORDER, "|m|, m = sum_i s_i / N", .symbol = "⟨|m|⟩"},
    {"m2", MCF_ROLE_ORDER2, "m^2", .symbol = "⟨m²⟩"},
    {"m4", MCF_ROLE_ORDER4, "m^4", .symbol = "⟨m⁴⟩"},
    {"q", MCF_ROLE_NONE, "density of magnetic sites, q = sum_i s_i^2 / N", .symbol = "⟨s²⟩"},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

typedef struct bc_chain {
    mcf_lattice *lat; /* neighbour k of site i: lat->neighbours[i * coordination + k] */
    int64_t n;        /* sites: fixed by the configuration (checked when resuming) */
    int8_t *s;        /* the spins, -1, 0 or +1 */
    double J, D, h, T;
} bc_chain;
typedef struct bc_move { size_t site; int8_t to; } bc_move;

static void bc_destroy(void *chain)
{
    bc_chain *c = chain;
    mcf_lattice_destroy(c->lat), free(c->s), free(c);
}

static int bc_create(const mcf_params *p, const mcf_services *sv, mcf_rng *rng, void **out)
{
    (void)sv; /* no evaluator, no streams of its own */
    int start, rc;
    bc_chain *c = calloc(1, sizeof *c);
    if (!c) return mcf_fail(MCF_ENOMEM, "blume-capel: out of memory");
    if ((rc = mcf_params_real(p, "J", &c->J)) || (rc = mcf_params_real(p, "D", &c->D)) ||
        (rc = mcf_params_real(p, "h", &c->h)) || (rc = mcf_params_choice(p, "start", &start)) ||
        (rc = mcf_params_temperature(p, &c->T)) ||
        (rc = mcf_lattice_from_params(p, "blume-capel", 0, &c->lat)) ||
        (rc = (c->s = malloc(c->lat->sites)) ? 0 : mcf_fail(MCF_ENOMEM, "blume-capel: memory"))) {
        bc_destroy(c);
        return rc;
    }
    c->n = (int64_t)c->lat->sites;
    for (size_t i = 0; i < c->lat->sites; i++)
        c->s[i] = start == START_ORDERED ? 1 : (int8_t)((int)mcf_rng_below(rng, 3) - 1);
    *out = c;
    return MCF_OK;
}

/* Spins on every step-th neighbour slot of site i (step 2: +x, +y, +z, each bond once). */
static double bc_field(const bc_chain *c, size_t i, int step)
{
    const int32_t *nb = c->lat->neighbours + i * (size_t)c->lat->coordination;
    double f = 0;
    for (int k = 0; k < c->lat->coordination; k += step)
        f += nb[k] >= 0 ? c->s[nb[k]] : 0;
    return f;
}

static int bc_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const bc_chain *)chain)->lat->sites; /* moves per sweep; N */
    return MCF_OK;
}

/* A random site to one of its two other values (a symmetric proposal): log ratio -dE/T. */
static int bc_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                      void *moves, double *log_ratio)
{
    (void)b;
    bc_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const bc_chain *c = chains[k];
        const size_t i = mv[k].site = (size_t)mcf_rng_below(rngs[k], c->lat->sites);
        const int s = c->s[i], to = (s + 2 + (int)mcf_rng_below(rngs[k], 2)) % 3 - 1;
        const double ds = to - s, ds2 = to * to - s * s;
        mv[k].to = (int8_t)to;
        log_ratio[k] = (ds * (c->J * bc_field(c, i, 1) + c->h) - c->D * ds2) / c->T;
    }
    return MCF_OK;
}

static int bc_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                    const unsigned char *accepted)
{
    (void)b;
    const bc_move *mv = moves;
    for (size_t k = 0; k < n; k++)
        if (accepted[k])
            ((bc_chain *)chains[k])->s[mv[k].site] = mv[k].to;
    return MCF_OK;
}

static int bc_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++) {
        const bc_chain *c = chains[k];
        const double N = (double)c->n;
        const int8_t *s = c->s;
        double e = 0, m = 0, q = 0, *v = values[k];
        for (size_t i = 0; i < c->lat->sites; i++) /* per bond once, per site once */
            e += s[i] * (c->D * s[i] - c->J * bc_field(c, i, 2) - c->h), m += s[i], q += abs(s[i]);
        m /= N;
        v[0] = e / N, v[1] = fabs(m), v[2] = m * m, v[3] = m * m * m * m, v[4] = q / N;
    }
    return MCF_OK;
}

/* Checkpoints and anneal hand-overs: the record "BCM1" (a new digit when fields change). */
static int bc_state(void *chain, mcf_chain_state *st)
{
    bc_chain *c = chain;
    const unsigned conf = MCF_STATE_CONFIGURATION;
    if (mcf_chain_state_add(st, MCF_STATE_FIXED("sites", &c->n, sizeof c->n), conf) ||
        mcf_chain_state_add(st, MCF_STATE_DATA("spins", c->s, c->lat->sites), conf))
        return mcf_fail(MCF_EINTERNAL, "blume-capel: too many state fields");
    return MCF_OK;
}

static int bc_rebuild(void *chain, unsigned what) /* refuses spins other than -1, 0, 1 */
{
    const bc_chain *c = chain;
    for (size_t i = 0; what && i < c->lat->sites; i++)
        if (c->s[i] < -1 || c->s[i] > 1)
            return mcf_fail(MCF_EFORMAT, "blume-capel: spin %d at site %zu", c->s[i], i);
    return MCF_OK;
}

static const mcf_model bc_model = {
    .struct_size = sizeof(mcf_model), .move_size = sizeof(bc_move), .observables = bc_observables,
    .energy_unit = "J", .state_tag = {'B', 'C', 'M', '1'}, .configuration_tag = {'B','C','M','1'},
    .create = bc_create, .destroy = bc_destroy, .layout = bc_layout, .propose = bc_propose,
    .apply = bc_apply, .measure = bc_measure, .state = bc_state, .rebuild = bc_rebuild};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "blume-capel", "0.1.0", "Blume-Capel, s = -1, 0, 1",
                      bc_params, &bc_model, .min_mcf_version = MCF_VERSION_NUMBER(0, 7, 0))
