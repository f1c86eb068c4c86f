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
 * It uses the mcf 0.3 SDK (those roles, mcf_fermion_occupation_dT) and says so. */
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"

#if !MCF_VERSION_AT_LEAST(0, 3, 0)
#error "falicov-kimball needs the mcf 0.3 SDK (ENERGY_DT/ACTION_DT, occupation_dT)"
#endif

/* the measurement stream's index: far from the chains' own streams (0, 1, ...) */
#define FK_MEASURE_STREAM (UINT64_C(1) << 61)

static const mcf_param_spec fk_params[] = {
    MCF_LATTICE_PARAMS("chain|square|cubic", "square", "4"),
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "nearest-neighbour hopping"},
    {"U", MCF_PARAM_REAL, "4", 0, 0, 0, NULL, "on-site coupling U w_i n_i"},
    {"mu", MCF_PARAM_REAL, "2", 0, 0, 0, NULL,
     "fermion chemical potential (U/2 = 2: half filling for the default U)"},
    {"mu_f", MCF_PARAM_REAL, "2", 0, 0, 0, NULL, "chemical potential of the w_i"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|checkerboard",
     "initial w: independent fair coins, or w_i = 1 on the even sublattice"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

enum { OBS_E, OBS_ABS_M, OBS_M2, OBS_M4, OBS_DENSITY, OBS_OCC, OBS_E_DT, OBS_S_DT };

static const mcf_observable_spec fk_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "(sum eps f(eps) - mu_f sum w) / N, units of t", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "|m|, m = (2/N) sum_i (-1)^(x+y) (w_i - 1/2)", NULL, 0},
    {"m2", MCF_ROLE_ORDER2, "m^2", NULL, 0},
    {"m4", MCF_ROLE_ORDER4, "m^4", NULL, 0},
    {"density", MCF_ROLE_NONE, "fermions per site, sum f(eps) / N", NULL, 0},
    {"occupation", MCF_ROLE_NONE, "classical occupation, sum w / N", NULL, 0},
    {"energy_dT", MCF_ROLE_ENERGY_DT, "d(energy)/dT at fixed w and mu", NULL, 0},
    {"action_dT", MCF_ROLE_ACTION_DT, "dS/dT / N at fixed w: -(E_band - mu N_f + E_c) / "
     "(N T^2)", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

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
        c->fermion.ops->destroy(c->ws);
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
        (rc = mcf_lattice_from_params(p, "falicov-kimball", MCF_LATTICE_SIMPLE_BONDS, &c->lat)))
        goto fail;
    c->n = (int64_t)c->lat->sites;
    mcf_rng_init(&c->mrng, s->seed, FK_MEASURE_STREAM + s->chain_index);
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

static size_t fk_units(const void *chain) { return ((const fk_chain *)chain)->lat->sites; }

static int fk_propose(void *chain, mcf_rng *rng, void *move)
{
    const fk_chain *c = chain;
    fk_move *m = move;
    m->site = (size_t)mcf_rng_below(rng, c->lat->sites);
    mcf_change_onsite(&m->change, m->site, c->w[m->site] ? -c->U : c->U);
    return MCF_OK;
}

static int fk_log_ratio(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                        double *out)
{
    const fk_move *mv = moves;
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
    if ((rc = mcf_fermion_change_action(&((fk_chain *)chains[0])->fermion, &a, n)))
        return rc;
    for (size_t q = 0; q < n; q++) {
        const fk_chain *c = chains[q];
        const double dEc = c->w[mv[q].site] ? c->mu_f : -c->mu_f; /* E_c = -mu_f sum w */
        out[q] = -a.dS[q] - dEc / c->T;
    }
    return MCF_OK;
}

static int fk_accept(void *chain, const void *move)
{
    fk_chain *c = chain;
    const size_t i = ((const fk_move *)move)->site;
    c->w[i] = !c->w[i];
    return mcf_hamiltonian_set_onsite(c->h, i, c->U * c->w[i]);
}

static int fk_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    mcf_fermion_batch a;
    int rc = mcf_fermion_batch_get(b, n, &a);
    if (rc || n == 0)
        return rc;
    for (size_t q = 0; q < n; q++) {
        fk_chain *c = chains[q];
        a.ws[q] = c->ws;
        a.rngs[q] = &c->mrng;
        a.T[q] = c->T;
        a.mu[q] = c->mu;
    }
    /* per state = per site (one orbital); d(density)/dT into a.dS, d(energy)/dT into a.err */
    if ((rc = mcf_fermion_occupation_dT(&((fk_chain *)chains[0])->fermion, &a, n, a.dS,
                                        a.err)))
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
        v[OBS_E_DT] = a.err[q];
        v[OBS_S_DT] = -(eband - c->mu * a.density[q] + ec) / (c->T * c->T);
    }
    return MCF_OK;
}

static size_t fk_state(fk_chain *c, mcf_state_field f[3])
{
    f[0] = MCF_STATE_FIXED("number of sites", &c->n, sizeof c->n);
    f[1] = MCF_STATE_DATA("occupations w", c->w, c->lat->sites);
    f[2] = MCF_STATE_RNG("measurement stream", &c->mrng);
    return 3;
}

static int fk_save(const void *chain, mcf_stream *out)
{
    mcf_state_field f[3];
    return mcf_state_save(out, "FKM1", f, fk_state((fk_chain *)chain, f));
}

static int fk_load(void *chain, mcf_stream *in)
{
    fk_chain *c = chain;
    mcf_state_field f[3];
    int rc = mcf_state_load(in, "FKM1", "falicov-kimball", f, fk_state(c, f));
    for (size_t i = 0; i < c->lat->sites && !rc; i++) {
        if (c->w[i] > 1)
            return mcf_fail(MCF_EFORMAT, "falicov-kimball: the checkpoint's w_%zu = %d is "
                            "not 0 or 1", i, c->w[i]);
        rc = mcf_hamiltonian_set_onsite(c->h, i, c->U * c->w[i]); /* H follows from w */
    }
    return rc;
}

static const mcf_model_ops fk_ops = {
    .struct_size = sizeof(mcf_model_ops), .move_size = sizeof(fk_move),
    .observables = fk_observables, .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .create = fk_create, .destroy = fk_destroy, .units = fk_units, .propose = fk_propose,
    .batch_log_ratio = fk_log_ratio, .accept = fk_accept, .batch_measure = fk_measure,
    .save = fk_save, .load = fk_load,
    .weight_form = MCF_WEIGHT_ACTION, /* exp(-S(w; T)): C from energy_dT and action_dT */
};

MCF_PLUGIN_DEFINE_NEEDS(MCF_PLUGIN_MODEL, "falicov-kimball", "0.1.0",
                        "spinless Falicov-Kimball: classical w_i in {0,1}, fermions + U w_i n_i",
                        fk_params, &fk_ops, MCF_VERSION_NUMBER(0, 3, 0))
