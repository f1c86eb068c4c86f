/* holstein.c — the adiabatic Holstein model: classical lattice displacements x_i coupled to
 * spinless fermions on a square or simple cubic lattice, grand canonical at (T, mu),
 *     H = -t sum_<ij> (c+_i c_j + h.c.) - g sum_i x_i (n_i - 1/2) + (k/2) sum_i x_i^2,
 * weight exp(-E_cl / T - S_eff), E_cl = sum_i [(k/2) x_i^2 + (g/2) x_i], S_eff = -sum_nu
 * log(1 + exp(-(eps_nu - mu) / T)) over the eigenvalues of h(x) (hopping -t, on-site -g x_i).
 * Written against ABI 2 (mcf_model, mcf/model.h; docs/sdk-1.md), like ising.c; the fermion
 * evaluator is called through the SDK helpers of mcf/fermion_model.h.  The guide's appendix
 * (docs/plugin-guide-abi1.md, 10a) walks through the ABI-1 form of this file; docs/methods.md has the physics.
 *
 * Move: x_i += delta (2u - 1) at a uniform site (symmetric), log-ratio -dE_cl / T - dS with
 * dS from the evaluator for the rank-1 change -g dx of row i; delta adapts toward acceptance
 * 0.5 while thermalizing (the core does it: state's step).  Observables per site: energy
 * (E_cl + band energy) / N, the checkerboard CDW m = sum_i (-1)^(x+y+z) x_i / N as |m|,
 * m^2, m^4, <x>, <x^2>, density; a stochastic evaluator draws from the chain's measurement
 * stream.  Checkpoint record (ho_state): "HOL1", int64 N, double delta, N doubles x, the
 * measurement stream. */
#include "holstein_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the model's own random stream (mcf/model.h): chain k's measurement stream is stream
 * 2^62 + 2^59 + k of the run's seed, as since the model's first release */
static const mcf_stream_spec ho_streams[] = {
    {"measurement", (UINT64_C(1) << 62) + (UINT64_C(1) << 59), 0,
     "the random vectors of a stochastic evaluator's traces"},
    {NULL, 0, 0, NULL}};
#define HO_DELTA_MIN 1e-4
#define HO_DELTA_MAX 1e4

static const mcf_param_spec ho_params[] = {
    /* MCF_LATTICE_PARAMS's three keys, with L's symbol for the plots */
    {"lattice", MCF_PARAM_CHOICE, "square", MCF_PARAM_NO_SCAN, 0, 0, HO_LATTICES,
     .doc = "lattice: chain (L sites), square (L^2), cubic (L^3) or bcc (2 L^3); here "
            HO_LATTICES},
    {"L", MCF_PARAM_INT, "4", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     .doc = "linear size in conventional cells", .symbol = "L"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0,
     MCF_BOUNDARY_CHOICES, .doc = "boundary conditions of the lattice"},
    MCF_LATTICE_TWIST_PARAM,
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "nearest-neighbour hopping (0: isolated "
     "sites)"},
    {"g", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "electron-phonon coupling, -g x_i (n_i - 1/2)",
     .symbol = "g", .unit = "t"},
    {"k", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "lattice stiffness, (k/2) x_i^2", .symbol = "k", .unit = "t"},
    {"mu", MCF_PARAM_REAL, "0", 0, 0, 0, NULL, .doc = "chemical potential; 0 = half filling",
     .symbol = "μ", .unit = "t"},
    {"delta", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, HO_DELTA_MIN,
     HO_DELTA_MAX, NULL, .doc = "initial half-width of the displacement move, adapted toward "
     "acceptance 0.5 while thermalizing"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|zero",
     .doc = "initial x_i: independent Gaussians of variance T/k (the g = 0 equilibrium), or 0"},
    {0}};

/* [model] start, in the order of its choices (mcf_params_choice) */
enum { HO_START_RANDOM, HO_START_ZERO };

enum {
    OBS_ENERGY, OBS_ABS_M, OBS_M2, OBS_M4, OBS_X, OBS_X2, OBS_DENSITY, OBS_ENERGY_DT,
    OBS_ACTION_DT
};

static const mcf_observable ho_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "(E_cl + fermion band energy) / N, units of t", NULL,
     MCF_OBS_NOISE(1), "E/N", "t", NULL, NULL},
    {"abs_m", MCF_ROLE_ORDER, "|m|, m = sum_i (-1)^(x+y+z) x_i / N (checkerboard)", NULL, 0,
     "⟨|m|⟩", NULL, NULL, NULL},
    {"m2", MCF_ROLE_ORDER2, "m^2", NULL, 0, "⟨m²⟩", NULL, NULL, NULL},
    {"m4", MCF_ROLE_ORDER4, "m^4", NULL, 0, "⟨m⁴⟩", NULL, NULL, NULL},
    {"x_mean", MCF_ROLE_NONE, "sum_i x_i / N", NULL, 0, "⟨x⟩", NULL, NULL, NULL},
    {"x2_mean", MCF_ROLE_NONE, "sum_i x_i^2 / N", NULL, 0, "⟨x²⟩", NULL, NULL, NULL},
    {"density", MCF_ROLE_NONE, "electrons per site, sum_nu f(eps_nu) / N", NULL,
     MCF_OBS_NOISE(1), "n", NULL, NULL, NULL},
    {"energy_dT", MCF_ROLE_ENERGY_DT, "d(energy)/dT at fixed x: sum_nu eps_nu df/dT / N", NULL,
     MCF_OBS_NOISE(1), "∂_T E/N", NULL, NULL, NULL},
    {"action_dT", MCF_ROLE_ACTION_DT, "d(E_cl / T + S_eff)/dT at fixed x per site: "
     "-(E_cl / N + band energy - mu density) / T^2 (band energy and density from a trace "
     "independent of energy's)", NULL, MCF_OBS_NOISE(2), "∂_T S/N", "1/t", NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

/* symbols and units of the parameters, for the plots (the observables carry theirs) */

typedef struct ho_move {
    size_t site;
    double x_new;
    mcf_change change; /* -g (x_new - x_old) on row site */
} ho_move;


/* the chain's lattice and its Hamiltonian h(x), for holstein_periodic.c */
const mcf_hamiltonian *ho_chain_hamiltonian(const void *chain, const mcf_lattice **lat,
                                            const double **theta)
{
    *lat = ((const ho_chain *)chain)->lat;
    *theta = ((const ho_chain *)chain)->theta;
    return ((const ho_chain *)chain)->h;
}

static void ho_destroy(void *chain)
{
    ho_chain *c = chain;
    if (c->ws)
        mcf_fermion_release(&c->fermion, c->ws);
    mcf_hamiltonian_destroy(c->h);
    mcf_lattice_destroy(c->lat);
    free(c->x);
    mcf_fermion_hmc_release(&c->pf);
    free(c);
}

static int ho_create(const mcf_params *p, const mcf_services *services, mcf_rng *rng,
                     void **chain)
{
    double t;
    int start, rc;
    ho_chain *c = calloc(1, sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "holstein: out of memory");
    if ((rc = mcf_params_real(p, "t", &t)) || (rc = mcf_params_real(p, "g", &c->g)) ||
        (rc = mcf_params_real(p, "k", &c->k)) || (rc = mcf_params_real(p, "mu", &c->mu)) ||
        (rc = mcf_params_real(p, "delta", &c->delta)) ||
        (rc = mcf_params_choice(p, "start", &start)) ||
        (rc = mcf_params_temperature(p, &c->T)) ||
        (rc = mcf_fermion_bind(services, p, "holstein",
                               MCF_FERMION_CHANGE_ACTION | MCF_FERMION_OCCUPATION |
                                   MCF_FERMION_OCCUPATION_DT,
                               &c->fermion)) ||
        (rc = mcf_lattice_from_params(p, "holstein", MCF_LATTICE_SIMPLE_BONDS, &c->lat)) ||
        (rc = mcf_lattice_twist(p, "holstein", c->lat, c->theta)))
        goto fail;
    c->n = (int64_t)c->lat->sites;
    { /* issue 42: the electrons' |E - mu N| <= N (z|t| + |mu|), the phonons' scale N (g^2/k
         + T); a product that overflows is refused, not written as NaN */
        const double zt = c->lat->coordination * fabs(t), gk = c->g * c->g / c->k;
        const char *key = zt >= fabs(c->mu) && zt >= gk ? "t" : fabs(c->mu) >= gk ? "mu" : "g";
        if ((rc = mcf_params_check_scale(p, "holstein", key, "sites (z|t| + |mu| + g^2/k + T)",
                                         (double)c->lat->sites * (zt + fabs(c->mu) + gk + c->T),
                                         c->T)))
            goto fail;
    }
    if ((rc = mcf_services_stream(services, "measurement", &c->mrng)))
        goto fail;
    if (!(c->x = malloc(c->lat->sites * sizeof *c->x))) {
        rc = mcf_fail(MCF_ENOMEM, "holstein: out of memory for %zu sites", c->lat->sites);
        goto fail;
    }
    /* the hopping: factorized (rank 0) without a twist; with one the table holds the
       phases, which the factorized form has no place for */
    if ((rc = mcf_hamiltonian_create(c->lat->sites, 1, c->lat->coordination, &c->h)) ||
        (rc = mcf_twist_nonzero(c->theta)
                  ? mcf_hamiltonian_set_hopping_twisted(c->h, c->lat, t, c->theta)
                  : mcf_hamiltonian_factorize(c->h, c->lat, -t, 0)))
        goto fail;
    for (size_t i = 0; i < c->lat->sites; i++) {
        c->x[i] = start != HO_START_ZERO ? sqrt(c->T / c->k) * mcf_rng_normal(rng) : 0.0;
        if ((rc = mcf_hamiltonian_set_onsite(c->h, i, -c->g * c->x[i])))
            goto fail;
    }
    if ((rc = mcf_fermion_workspace(&c->fermion, c->h, &c->ws)))
        goto fail;
    *chain = c;
    return MCF_OK;
fail: /* every message above names the model, the file and the fix */
    ho_destroy(c);
    return rc;
}

static int ho_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const ho_chain *)chain)->lat->sites;
    return MCF_OK;
}

/* Per chain: the site and the shift from the chain's stream, then the log ratios of the
 * batch, dS from one batched call of the evaluator. */
static int ho_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                      void *moves, double *log_ratio)
{
    ho_move *mv = moves;
    for (size_t q = 0; q < n; q++) {
        const ho_chain *c = chains[q];
        ho_move *m = &mv[q];
        m->site = (size_t)mcf_rng_below(rngs[q], c->lat->sites);
        m->x_new = c->x[m->site] + c->delta * (2.0 * mcf_rng_uniform(rngs[q]) - 1.0);
        mcf_change_onsite(&m->change, m->site, -c->g * m->x_new - -c->g * c->x[m->site]);
    }
    mcf_fermion_batch a;
    mcf_fermion_heat heat;
    int rc = mcf_fermion_heat_get(b, n, &a, &heat);
    for (size_t q = 0; q < n && !rc; q++) {
        const ho_chain *c = chains[q];
        a.ws[q] = c->ws;
        a.changes[q] = &mv[q].change;
        a.T[q] = c->T;
        a.mu[q] = c->mu;
    }
    /* the run's evaluator is the batch's (mcf/fermion_model.h, ABI 2) */
    if (rc || n == 0 || (rc = mcf_fermion_change_action(&a, n)))
        return rc;
    for (size_t q = 0; q < n; q++) {
        const ho_chain *c = chains[q];
        const double x0 = c->x[mv[q].site], x1 = mv[q].x_new;
        const double dE = 0.5 * c->k * (x1 * x1 - x0 * x0) + 0.5 * c->g * (x1 - x0);
        log_ratio[q] = -dE / c->T - a.dS[q];
    }
    return MCF_OK;
}

static int ho_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                    const unsigned char *accepted)
{
    (void)b;
    const ho_move *mv = moves;
    for (size_t q = 0; q < n; q++) {
        if (!accepted[q])
            continue;
        ho_chain *c = chains[q];
        c->x[mv[q].site] = mv[q].x_new;
        int rc = mcf_hamiltonian_set_onsite(c->h, mv[q].site, -c->g * mv[q].x_new);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

static int ho_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    mcf_fermion_batch a;
    mcf_fermion_heat heat;
    int rc = mcf_fermion_heat_get(b, n, &a, &heat);
    for (size_t q = 0; q < n && !rc; q++) {
        ho_chain *c = chains[q];
        a.ws[q] = c->ws;
        a.rngs[q] = &c->mrng;
        a.T[q] = c->T;
        a.mu[q] = c->mu;
    }
    if (rc || n == 0)
        return rc;
    /* energy, density and energy_dT from one trace, action_dT from an independent one (the
       same with an exact trace): their product in the specific heat has no noise bias */
    if ((rc = mcf_fermion_occupation_heat(&a, n, &heat)))
        return rc;
    for (size_t q = 0; q < n; q++) {
        const ho_chain *c = chains[q];
        double *v = values[q], ecl = 0, m = 0, x1 = 0, x2 = 0;
        for (size_t i = 0; i < c->lat->sites; i++) {
            const double x = c->x[i];
            ecl += 0.5 * c->k * x * x + 0.5 * c->g * x;
            m += mcf_lattice_parity(c->lat, i) * x;
            x1 += x;
            x2 += x * x;
        }
        const double N = (double)c->n;
        m /= N;
        v[OBS_ENERGY] = ecl / N + a.energy[q]; /* band energy and density are per state */
        v[OBS_ABS_M] = fabs(m);
        v[OBS_M2] = m * m;
        v[OBS_M4] = m * m * m * m;
        v[OBS_X] = x1 / N;
        v[OBS_X2] = x2 / N;
        v[OBS_DENSITY] = a.density[q];
        v[OBS_ENERGY_DT] = heat.denergy[q];
        v[OBS_ACTION_DT] =
            -(ecl / N + heat.energy2[q] - c->mu * heat.density2[q]) / (c->T * c->T);
    }
    return MCF_OK;
}

/* The checkpointed state, described once: the record "HOL1" of the ABI-1 version of this
 * model, so its checkpoints resume; and the step the core adapts toward acceptance 0.5
 * while thermalizing (mcf_adapt_step, as the ABI-1 adapt did). */
static int ho_state(void *chain, mcf_chain_state *st)
{
    ho_chain *c = chain;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_FIXED("number of sites", &c->n, sizeof c->n),
                                  0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("step delta", &c->delta, 1), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("displacements x", c->x, c->lat->sites),
                                  0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &c->mrng), 0)))
        return mcf_fail(rc, "holstein: too many state fields (a bug, please report it)");
    st->step = &c->delta;
    st->step_target = 0.5;
    st->step_min = HO_DELTA_MIN;
    st->step_max = HO_DELTA_MAX;
    return MCF_OK;
}

/* After a load: the step's range, and h(x), which follows from x. */
static int ho_rebuild(void *chain, unsigned what)
{
    ho_chain *c = chain;
    int rc = MCF_OK;
    if (!(what & MCF_REBUILD_LOAD))
        return MCF_OK;
    if (!(c->delta >= HO_DELTA_MIN && c->delta <= HO_DELTA_MAX))
        return mcf_fail(MCF_EFORMAT, "holstein: the checkpoint's step %g is corrupt", c->delta);
    for (size_t i = 0; i < c->lat->sites && !rc; i++)
        rc = mcf_hamiltonian_set_onsite(c->h, i, -c->g * c->x[i]);
    return rc;
}

static const mcf_model ho_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(ho_move),
    .observables = ho_observables,
    .energy_unit = "t",
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .weight_form = MCF_WEIGHT_ACTION, /* exp(-S(T)): C from energy_dT and action_dT */
    .streams = ho_streams,
    .state_tag = {'H', 'O', 'L', '1'},
    .create = ho_create,
    .destroy = ho_destroy,
    .layout = ho_layout,
    .propose = ho_propose,
    .apply = ho_apply,
    .measure = ho_measure,
    .state = ho_state,
    .rebuild = ho_rebuild,
    .periodic = ho_periodic,
    .coordinates = ho_coordinates,
    .global_action = ho_global_action,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "holstein", "1.2",
                      "adiabatic Holstein model: classical displacements and spinless fermions, "
                      "weight exp(-E_cl/T - S_eff) from a fermion evaluator (kpm, kpm-cuda or ed)",
                      ho_params, &ho_model)
