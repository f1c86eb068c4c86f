/* falicov_kimball.c — a fermion model written against the installed headers only, as a
 * stranger would (test_install.sh step 7): the spinless Falicov–Kimball model.  Classical
 * occupations w_i in {0, 1} on a periodic lattice (square by default) and fermions
 *     H(w) = -t sum_<ij> (c+_i c_j + h.c.) + U sum_i w_i n_i,
 * grand canonical at (T, mu), weight exp(-S), S(w; T) = S_eff(H(w)) + E_c(w) / T with
 * S_eff = -sum_nu log(1 + exp(-(eps_nu - mu) / T)) and E_c = -mu_f sum_i w_i.
 * Move: flip w_i at a uniform site (symmetric): log ratio -dS_eff - dE_c / T, dS_eff from
 * the evaluator for the rank-1 change +-U of row i.  Observables per site (N sites):
 * energy (E_band + E_c) / N with E_band = sum eps f(eps); the checkerboard
 * m = (2/N) sum_i (-1)^(x+y) (w_i - 1/2) as |m|, m^2, m^4; density (fermions per site);
 * occupation (sum w / N); and for the core's specific heat d<energy>/dT at fixed mu, the
 * derivatives at fixed w: energy_dT (ENERGY_DT) and action_dT = dS/dT / N (ACTION_DT).
 * energy, density and energy_dT come from one trace of the evaluator, action_dT from a
 * second, independent one (mcf_fermion_occupation_heat; declared noise sets 1 and 2), so
 * that the core's <energy action_dT> carries no covariance of a stochastic trace's noise.
 * Written against ABI 2 (mcf_model, mcf/model.h; the ABI-2 helpers of mcf/fermion_model.h,
 * whose batched calls reach the batch's evaluator): the mcf 1.0 SDK, and it says so.
 * Checkpoint record (fk_state): "FKM1", int64 N, N bytes w, the measurement stream — the
 * bytes of this model's ABI-1 version. */
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"

#if !MCF_VERSION_AT_LEAST(1, 0, 0)
#error "falicov-kimball needs the mcf 1.0 SDK (ABI 2's mcf_model and fermion helpers)"
#endif

/* the model's own random stream (mcf/model.h): chain k's measurement stream is stream
 * 2^61 + k of the run's seed, far from the chains' own streams (0, 1, ...), as since the
 * model's first version */
static const mcf_stream_spec fk_streams[] = {
    {"measurement", UINT64_C(1) << 61, 0, "the random vectors of a stochastic evaluator"},
    {NULL, 0, 0, NULL}};

static const mcf_param_spec fk_params[] = {
    MCF_LATTICE_PARAMS("chain|square|cubic", "square", "4"),
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "nearest-neighbour hopping"},
    {"U", MCF_PARAM_REAL, "4", 0, 0, 0, NULL, .doc = "on-site coupling U w_i n_i"},
    {"mu", MCF_PARAM_REAL, "2", 0, 0, 0, NULL,
     .doc = "fermion chemical potential (U/2 = 2: half filling for the default U)"},
    {"mu_f", MCF_PARAM_REAL, "2", 0, 0, 0, NULL, .doc = "chemical potential of the w_i"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|checkerboard",
     .doc = "initial w: independent fair coins, or w_i = 1 on the even sublattice"},
    {0}};

enum { OBS_E, OBS_ABS_M, OBS_M2, OBS_M4, OBS_DENSITY, OBS_OCC, OBS_E_DT, OBS_S_DT };

/* no symbols or units (the four NULLs at the end of each): the results carry no labels */
static const mcf_observable fk_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "(sum eps f(eps) - mu_f sum w) / N, units of t", NULL,
     MCF_OBS_NOISE(1), NULL, NULL, NULL, NULL},
    {"abs_m", MCF_ROLE_ORDER, "|m|, m = (2/N) sum_i (-1)^(x+y) (w_i - 1/2)", NULL, 0, NULL,
     NULL, NULL, NULL},
    {"m2", MCF_ROLE_ORDER2, "m^2", NULL, 0, NULL, NULL, NULL, NULL},
    {"m4", MCF_ROLE_ORDER4, "m^4", NULL, 0, NULL, NULL, NULL, NULL},
    {"density", MCF_ROLE_NONE, "fermions per site, sum f(eps) / N", NULL, MCF_OBS_NOISE(1),
     NULL, NULL, NULL, NULL},
    {"occupation", MCF_ROLE_NONE, "classical occupation, sum w / N", NULL, 0, NULL, NULL, NULL,
     NULL},
    {"energy_dT", MCF_ROLE_ENERGY_DT, "d(energy)/dT at fixed w and mu", NULL, MCF_OBS_NOISE(1),
     NULL, NULL, NULL, NULL},
    {"action_dT", MCF_ROLE_ACTION_DT, "dS/dT / N at fixed w: -(E_band - mu N_f + E_c) / "
     "(N T^2), from a trace independent of energy's", NULL, MCF_OBS_NOISE(2), NULL, NULL, NULL,
     NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

typedef struct fk_move {
    size_t site;
    mcf_change change; /* U (w_new - w_old) on row site */
} fk_move;

typedef struct fk_chain {
    mcf_lattice *lat;
    int64_t n;
    double U, mu, mu_f, T;
    unsigned char *w;
    mcf_hamiltonian *h;
    mcf_fermion fermion;
    void *ws;
    mcf_rng mrng; /* the measurement stream (for a stochastic evaluator) */
} fk_chain;

static void fk_destroy(void *chain)
{
    fk_chain *c = chain;
    if (c->ws)
        mcf_fermion_release(&c->fermion, c->ws);
    mcf_hamiltonian_destroy(c->h);
    mcf_lattice_destroy(c->lat);
    free(c->w);
    free(c);
}

static int fk_create(const mcf_params *p, const mcf_services *s, mcf_rng *rng, void **out)
{
    double t;
    const char *start;
    int rc;
    fk_chain *c = calloc(1, sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "falicov-kimball: out of memory");
    if ((rc = mcf_params_real(p, "t", &t)) || (rc = mcf_params_real(p, "U", &c->U)) ||
        (rc = mcf_params_real(p, "mu", &c->mu)) || (rc = mcf_params_real(p, "mu_f", &c->mu_f)) ||
        (rc = mcf_params_string(p, "start", &start)) ||
        (rc = mcf_params_temperature(p, &c->T)) ||
        (rc = mcf_fermion_bind(s, p, "falicov-kimball", MCF_FERMION_CHANGE_ACTION |
                               MCF_FERMION_OCCUPATION | MCF_FERMION_OCCUPATION_DT,
                               &c->fermion)) ||
        (rc = mcf_lattice_from_params(p, "falicov-kimball", MCF_LATTICE_SIMPLE_BONDS, &c->lat)) ||
        (rc = mcf_services_stream(s, "measurement", &c->mrng)))
        goto fail;
    c->n = (int64_t)c->lat->sites;
    if (!(c->w = malloc(c->lat->sites))) {
        rc = mcf_fail(MCF_ENOMEM, "falicov-kimball: out of memory");
        goto fail;
    }
    /* the amplitude is the number in H: -t (mcf/hamiltonian_factors.h) */
    if ((rc = mcf_hamiltonian_create(c->lat->sites, 1, c->lat->coordination, &c->h)) ||
        (rc = mcf_hamiltonian_factorize(c->h, c->lat, -t, 0)))
        goto fail;
    for (size_t i = 0; i < c->lat->sites; i++) {
        if (strcmp(start, "checkerboard") == 0)
            c->w[i] = mcf_lattice_parity(c->lat, i) > 0;
        else
            c->w[i] = mcf_rng_uniform(rng) < 0.5;
        if ((rc = mcf_hamiltonian_set_onsite(c->h, i, c->U * c->w[i])))
            goto fail;
    }
    if ((rc = mcf_fermion_workspace(&c->fermion, c->h, &c->ws)))
        goto fail;
    *out = c;
    return MCF_OK;
fail:
    fk_destroy(c);
    return rc;
}

static int fk_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const fk_chain *)chain)->lat->sites;
    return MCF_OK;
}

/* Per chain a site from the chain's stream, then the log ratios of the batch: dS_eff from
 * one call of the batch's evaluator. */
static int fk_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                      void *moves, double *log_ratio)
{
    fk_move *mv = moves;
    for (size_t q = 0; q < n; q++) {
        const fk_chain *c = chains[q];
        mv[q].site = (size_t)mcf_rng_below(rngs[q], c->lat->sites);
        mcf_change_onsite(&mv[q].change, mv[q].site, c->w[mv[q].site] ? -c->U : c->U);
    }
    mcf_fermion_batch a;
    int rc = mcf_fermion_batch_get(b, n, &a);
    if (rc || n == 0)
        return rc;
    for (size_t q = 0; q < n; q++) {
        const fk_chain *c = chains[q];
        a.ws[q] = c->ws;
        a.changes[q] = &mv[q].change;
        a.T[q] = c->T;
        a.mu[q] = c->mu;
    }
    if ((rc = mcf_fermion_change_action(&a, n)))
        return rc;
    for (size_t q = 0; q < n; q++) {
        const fk_chain *c = chains[q];
        const double dEc = c->w[mv[q].site] ? c->mu_f : -c->mu_f; /* E_c = -mu_f sum w */
        log_ratio[q] = -a.dS[q] - dEc / c->T;
    }
    return MCF_OK;
}

static int fk_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                    const unsigned char *accepted)
{
    (void)b;
    const fk_move *mv = moves;
    for (size_t q = 0; q < n; q++) {
        if (!accepted[q])
            continue;
        fk_chain *c = chains[q];
        const size_t i = mv[q].site;
        c->w[i] = !c->w[i];
        int rc = mcf_hamiltonian_set_onsite(c->h, i, c->U * c->w[i]);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

static int fk_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    mcf_fermion_batch a;
    mcf_fermion_heat heat;
    int rc = mcf_fermion_heat_get(b, n, &a, &heat);
    if (rc || n == 0)
        return rc;
    for (size_t q = 0; q < n; q++) {
        fk_chain *c = chains[q];
        a.ws[q] = c->ws;
        a.rngs[q] = &c->mrng;
        a.T[q] = c->T;
        a.mu[q] = c->mu;
    }
    /* per state = per site (one orbital); action_dT from a second trace, independent of the
       energy's (with a stochastic trace; the same numbers with an exact one) */
    if ((rc = mcf_fermion_occupation_heat(&a, n, &heat)))
        return rc;
    for (size_t q = 0; q < n; q++) {
        const fk_chain *c = chains[q];
        const double N = (double)c->n;
        double *v = values[q], m = 0, occ = 0;
        for (size_t i = 0; i < c->lat->sites; i++) {
            m += mcf_lattice_parity(c->lat, i) * (c->w[i] - 0.5);
            occ += c->w[i];
        }
        m *= 2 / N;
        const double ec = -c->mu_f * occ / N, eband = a.energy[q];
        v[OBS_E] = eband + ec;
        v[OBS_ABS_M] = m < 0 ? -m : m;
        v[OBS_M2] = m * m;
        v[OBS_M4] = m * m * m * m;
        v[OBS_DENSITY] = a.density[q];
        v[OBS_OCC] = occ / N;
        v[OBS_E_DT] = heat.denergy[q];
        v[OBS_S_DT] = -(heat.energy2[q] - c->mu * heat.density2[q] + ec) / (c->T * c->T);
    }
    return MCF_OK;
}

/* The checkpointed state, described once: the core writes the record "FKM1" from it and
 * calls fk_rebuild after loading one. */
static int fk_state(void *chain, mcf_chain_state *st)
{
    fk_chain *c = chain;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_FIXED("number of sites", &c->n, sizeof c->n),
                                  0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("occupations w", c->w, c->lat->sites),
                                  0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &c->mrng), 0)))
        return mcf_fail(rc, "falicov-kimball: too many state fields (a bug)");
    return MCF_OK;
}

/* After a load: every w_i is 0 or 1, and H follows from w. */
static int fk_rebuild(void *chain, unsigned what)
{
    fk_chain *c = chain;
    int rc = MCF_OK;
    if (!(what & MCF_REBUILD_LOAD))
        return MCF_OK;
    for (size_t i = 0; i < c->lat->sites && !rc; i++) {
        if (c->w[i] > 1)
            return mcf_fail(MCF_EFORMAT, "falicov-kimball: the checkpoint's w_%zu = %d is "
                            "not 0 or 1", i, c->w[i]);
        rc = mcf_hamiltonian_set_onsite(c->h, i, c->U * c->w[i]);
    }
    return rc;
}

static const mcf_model fk_model = {
    .struct_size = sizeof(mcf_model), .move_size = sizeof(fk_move),
    .observables = fk_observables, .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .weight_form = MCF_WEIGHT_ACTION, /* exp(-S(w; T)): C from energy_dT and action_dT */
    .streams = fk_streams, .state_tag = {'F', 'K', 'M', '1'},
    .create = fk_create, .destroy = fk_destroy, .layout = fk_layout, .propose = fk_propose,
    .apply = fk_apply, .measure = fk_measure, .state = fk_state, .rebuild = fk_rebuild,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "falicov-kimball", "0.1.0",
                      "spinless Falicov-Kimball: classical w_i in {0,1}, fermions + U w_i n_i",
                      fk_params, &fk_model)
