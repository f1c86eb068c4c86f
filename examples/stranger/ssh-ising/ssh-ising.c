/* ssh-ising.c — SSH-like model for mcf: bonds sigma_b = +-1 set the hopping t_b = t (1 + delta
 * sigma_b) of spinless fermions on a periodic chain, square or cubic lattice; collinear neighbour
 * bonds couple, E_cl = -K sum sigma_b sigma_b'.  Weight exp(-E_cl/T - S_eff(sigma)), S_eff the
 * fermions' grand-canonical action at mu.  A move flips a bond (a rank-2 change of H_f). */
#define MCF_WANT_ABI 2 /* ABI 2's fermion helpers; before the first mcf header */
#include <math.h>
#include <stdlib.h>
#include "mcf/mcf.h"

static const mcf_stream_spec ssh_streams[] = { /* the model's own random streams */
    {"measurement", 0, 0, "the random vectors of a stochastic evaluator"}, {NULL, 0, 0, NULL}};

#define RANGE(a, b) MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, a, b, NULL
static const mcf_param_spec ssh_params[] = { /* checked before create() */
    {"lattice", MCF_PARAM_CHOICE, "chain", MCF_PARAM_NO_SCAN, 0, 0, "chain|square|cubic",
     .doc = "lattice: chain (L sites), square (L^2), cubic (L^3); bond b = d + dim i joins i, i + e_d"},
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN, 3, 0, NULL, .doc = "linear size (L >= 3)"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, "periodic", .doc = "periodic"},
    {"t", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL, .doc = "mean hopping between neighbours"},
    {"delta", MCF_PARAM_REAL, "0.2", RANGE(-1, 1), .doc = "bond modulation, t_b = t (1 + delta sigma_b)"},
    {"K", MCF_PARAM_REAL, "0", RANGE(-100, 100), .doc = "-K sigma_b sigma_b' (K < 0: alternation)"},
    {"mu", MCF_PARAM_REAL, "0", MCF_PARAM_FINITE, 0, 0, NULL, .doc = "chemical potential"},
    {0}};

/* measure()'s values: energy, density, energy_dT from one trace, action_dT from another.  m:
 * the dimerization, sigma_b times (-1)^x_b, x_b = the first site's x_d (columnar in 2D, 3D). */
enum { OBS_E, OBS_ABS_M, OBS_M2, OBS_M4, OBS_BOND, OBS_DENSITY, OBS_E_DT, OBS_S_DT };
static const mcf_observable ssh_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "(E_f + E_cl) / bonds", .flags = MCF_OBS_NOISE(1),
     .symbol = "E/N_b", .unit = "t"},
    {"abs_m", MCF_ROLE_ORDER, "|m|, m = sum_b (-1)^x_b sigma_b / bonds", .symbol = "⟨|m|⟩"},
    {"m2", MCF_ROLE_ORDER2, "m^2", .symbol = "⟨m²⟩"},
    {"m4", MCF_ROLE_ORDER4, "m^4", .symbol = "⟨m⁴⟩"},
    {"bond", MCF_ROLE_NONE, "mean bond variable, sum_b sigma_b / bonds", .symbol = "⟨σ⟩"},
    {"density", MCF_ROLE_NONE, "fermions per site", .flags = MCF_OBS_NOISE(1), .symbol = "n"},
    {"energy_dT", MCF_ROLE_ENERGY_DT, "d(energy)/dT at fixed sigma", .flags = MCF_OBS_NOISE(1)},
    {"action_dT", MCF_ROLE_ACTION_DT, "dS/dT / bonds at fixed sigma", .flags = MCF_OBS_NOISE(2)},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

typedef struct ssh_chain {
    mcf_lattice *lat;    /* neighbour k of site i: lat->neighbours[i * coordination + k] */
    int64_t n;           /* bonds, sites x dim: fixed by the configuration */
    int8_t *s;           /* the bond variables sigma_b */
    double t, delta, K, mu, T;
    mcf_hamiltonian *H;  /* H_f(sigma), what the evaluator sees */
    mcf_fermion fermion; /* the run's evaluator, bound once */
    void *ws;            /* its workspace for H */
    mcf_rng mrng;        /* the measurement stream */
} ssh_chain;
typedef struct ssh_move { size_t b; mcf_change change; } ssh_move;

/* Bond b = d + dim i joins i to j = i + e_d.  k = 0: j; 1, 2: the next, previous bond along e_d */
static size_t ssh_at(const ssh_chain *c, size_t b, int k)
{
    const size_t dim = (size_t)c->lat->dim, d = b % dim, z = (size_t)c->lat->coordination;
    const size_t j = (size_t)c->lat->neighbours[b / dim * z + 2 * d + (k == 2)];
    return k ? j * dim + d : j;
}

static int ssh_hop(ssh_chain *c, size_t b) /* H_f's entry of bond b: -t_b */
{
    return mcf_hamiltonian_set(c->H, b / (size_t)c->lat->dim, ssh_at(c, b, 0),
                               -c->t * (1 + c->delta * c->s[b]), 0);
}
static int ssh_rebuild(void *chain, unsigned what) /* after a load, and create(): H_f(sigma) */
{
    ssh_chain *c = chain;
    int rc = MCF_OK;
    for (size_t b = 0; what && b < (size_t)c->n && !rc; b++)
        rc = c->s[b] * c->s[b] != 1 ? mcf_fail(MCF_EFORMAT, "ssh-ising: sigma %d", c->s[b])
                                    : ssh_hop(c, b);
    return rc;
}

static void ssh_destroy(void *chain)
{
    ssh_chain *c = chain;
    mcf_fermion_release(&c->fermion, c->ws);
    mcf_hamiltonian_destroy(c->H), mcf_lattice_destroy(c->lat), free(c->s), free(c);
}

static int ssh_create(const mcf_params *p, const mcf_services *sv, mcf_rng *rng, void **out)
{
    const unsigned needs = MCF_FERMION_CHANGE_ACTION | MCF_FERMION_OCCUPATION_DT; /* ed, kpm */
    int rc;
    ssh_chain *c = calloc(1, sizeof *c);
    if (!c) return mcf_fail(MCF_ENOMEM, "ssh-ising: out of memory");
    if ((rc = mcf_params_real(p, "t", &c->t)) || (rc = mcf_params_real(p, "delta", &c->delta)) ||
        (rc = mcf_params_real(p, "K", &c->K)) || (rc = mcf_params_real(p, "mu", &c->mu)) ||
        (rc = mcf_params_temperature(p, &c->T)) ||
        (rc = mcf_fermion_bind(sv, p, "ssh-ising", needs, &c->fermion)) ||
        (rc = mcf_services_stream(sv, "measurement", &c->mrng)) ||
        (rc = mcf_lattice_from_params(p, "ssh-ising", MCF_LATTICE_SIMPLE_BONDS, &c->lat)) ||
        (rc = (c->s = malloc(c->lat->sites * 3)) ? 0 : mcf_fail(MCF_ENOMEM, "ssh-ising")) ||
        (rc = mcf_hamiltonian_create(c->lat->sites, 1, c->lat->coordination, &c->H)))
        goto fail;
    c->n = (int64_t)(c->lat->sites * (size_t)c->lat->dim);
    for (int64_t b = 0; b < c->n; b++) /* the initial configuration */
        c->s[b] = mcf_rng_uniform(rng) < 0.5 ? 1 : -1;
    if ((rc = ssh_rebuild(c, MCF_REBUILD_LOAD)) ||
        (rc = mcf_fermion_workspace(&c->fermion, c->H, &c->ws)))
        goto fail;
    *out = c;
    return MCF_OK;
fail:
    ssh_destroy(c);
    return rc;
}

static int ssh_layout(const void *chain, mcf_layout *layout)
{
    layout->units = (size_t)((const ssh_chain *)chain)->n; /* moves per sweep; N: bonds */
    return MCF_OK;
}

/* A random bond's flip: H_ij = H_ji = -t_b change by 2 t delta sigma_b; dS_eff in one call. */
static int ssh_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                       void *moves, double *log_ratio)
{
    ssh_move *mv = moves;
    mcf_fermion_batch a; /* arrays for n chains, from the batch's scratch */
    int rc = mcf_fermion_batch_get(b, n, &a);
    for (size_t k = 0; k < n && !rc; k++) {
        const ssh_chain *c = chains[k];
        const size_t i = mv[k].b = (size_t)mcf_rng_below(rngs[k], (uint64_t)c->n);
        const double dh = 2 * c->t * c->delta * c->s[i], block[4] = {0, dh, dh, 0};
        const int64_t rows[2] = {(int64_t)(i / (size_t)c->lat->dim), (int64_t)ssh_at(c, i, 0)};
        rc = mcf_change_from_block(&mv[k].change, rows, 2, block, NULL);
        a.ws[k] = c->ws, a.changes[k] = &mv[k].change, a.T[k] = c->T, a.mu[k] = c->mu;
        log_ratio[k] = -2.0 * c->K * c->s[i] * (c->s[ssh_at(c, i, 1)] + c->s[ssh_at(c, i, 2)]) /
                       c->T; /* -dE_cl/T */
    }
    if (rc || n == 0 || (rc = mcf_fermion_change_action(&a, n))) /* into a.dS */
        return rc;
    for (size_t k = 0; k < n; k++)
        log_ratio[k] -= a.dS[k];
    return MCF_OK;
}

static int ssh_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                     const unsigned char *accepted)
{
    (void)b;
    const ssh_move *mv = moves;
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++)
        if (accepted[k]) /* the move, in sigma and in H_f */
            ((ssh_chain *)chains[k])->s[mv[k].b] *= -1, rc = ssh_hop(chains[k], mv[k].b);
    return rc;
}

static int ssh_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    mcf_fermion_batch a;
    mcf_fermion_heat heat; /* d/dT, and the second trace */
    int rc = mcf_fermion_heat_get(b, n, &a, &heat);
    for (size_t k = 0; k < n && !rc; k++) {
        ssh_chain *c = chains[k];
        a.ws[k] = c->ws, a.rngs[k] = &c->mrng, a.T[k] = c->T, a.mu[k] = c->mu;
    }
    if (rc || n == 0 || (rc = mcf_fermion_occupation_heat(&a, n, &heat))) /* per site */
        return rc;
    for (size_t k = 0; k < n; k++) {
        const ssh_chain *c = chains[k];
        const double N = (double)c->n, f = (double)c->lat->sites / N; /* per site -> per bond */
        double m = 0, u = 0, ecl = 0, *v = values[k];
        for (size_t i = 0, dim = (size_t)c->lat->dim; i < (size_t)c->n; i++) { /* pairs once */
            const double x = c->lat->positions[3 * (i / dim) + i % dim]; /* i's x_d */
            m += ((long)lround(x) % 2 ? -1 : 1) * c->s[i] / N, u += c->s[i] / N;
            ecl -= c->K * c->s[i] * c->s[ssh_at(c, i, 1)] / N;
        }
        v[OBS_E] = a.energy[k] * f + ecl, v[OBS_DENSITY] = a.density[k], v[OBS_BOND] = u;
        v[OBS_ABS_M] = fabs(m), v[OBS_M2] = m * m, v[OBS_M4] = m * m * m * m;
        v[OBS_E_DT] = heat.denergy[k] * f; /* and dS/dT = -(E_f - mu N_f + E_cl) / T^2 */
        v[OBS_S_DT] = -((heat.energy2[k] - c->mu * heat.density2[k]) * f + ecl) / (c->T * c->T);
    }
    return MCF_OK;
}

static int ssh_state(void *chain, mcf_chain_state *st) /* record "SSH1": new digit on change */
{
    ssh_chain *c = chain;
    const unsigned conf = MCF_STATE_CONFIGURATION;
    if (mcf_chain_state_add(st, MCF_STATE_FIXED("bonds", &c->n, sizeof c->n), conf) ||
        mcf_chain_state_add(st, MCF_STATE_DATA("bond variables", c->s, (size_t)c->n), conf) ||
        mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &c->mrng), 0))
        return mcf_fail(MCF_EINTERNAL, "ssh-ising: too many state fields");
    return MCF_OK;
}

static const mcf_model ssh_model = {
    .struct_size = sizeof(mcf_model), .move_size = sizeof(ssh_move),
    .observables = ssh_observables, .streams = ssh_streams, .energy_unit = "t",
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR, .weight_form = MCF_WEIGHT_ACTION, /* e^-S */
    .state_tag = {'S', 'S', 'H', '1'}, .configuration_tag = {'S', 'S', 'H', '1'},
    .create = ssh_create, .destroy = ssh_destroy, .layout = ssh_layout, .propose = ssh_propose,
    .apply = ssh_apply, .measure = ssh_measure, .state = ssh_state, .rebuild = ssh_rebuild};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "ssh-ising", "0.1.0", "Ising bonds set fermion hoppings",
                      ssh_params, &ssh_model, .min_mcf_version = MCF_VERSION_NUMBER(0, 7, 0))
