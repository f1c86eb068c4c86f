/* double_exchange.c — the double-exchange model: classical unit spins S_i coupled to
 * fermions, on a square or simple cubic lattice of linear size L with periodic (L >= 3) or
 * open (L >= 2) boundaries, grand canonical at the chain's temperature T and chemical
 * potential mu.
 *
 * Weight.  A spin configuration {S} has the weight exp(-S_eff) with the fermion action
 *
 *     S_eff = -sum_nu log(1 + exp(-(eps_nu - mu) / T)),
 *
 * eps_nu the eigenvalues of the one-particle Hamiltonian H({S}) (every state counted once;
 * no spin-only energy).  The model builds H; the configured fermion evaluator ([run]
 * evaluator = kpm, or ed for small lattices) computes dS = S_eff(H + Delta) - S_eff(H) of a
 * proposed change Delta (the evaluator's change_action) and the occupation of H; the model
 * never knows how.  create() binds it with mcf_fermion_bind (mcf/fermion_model.h), which
 * refuses an evaluator without change_action, occupation or occupation_dT (the specific
 * heat: a refusal at setup, not a NaN in every measurement); dos is checked only with
 * dos_every > 0, action only when the run exchanges temperatures.
 *
 * Written against ABI 2 (mcf_model, mcf/model.h; docs/sdk-1.md), with the random draws,
 * evaluator calls and checkpoint bytes of its ABI-1 version, so its results and checkpoints
 * are the same.  This file holds the parameters, the observables (with their symbols and
 * units), create() and destroy() and the model table; the model's parts are files of
 * their own: the Hamiltonian from the spins
 * (de_hamiltonian.c), the single-spin move (de_moves.c: propose, apply), initial spins from
 * a file (de_spins_file.c), the measurements and the layout (de_measure.c), parallel tempering
 * (de_tempering.c: exchange) and the state the core saves, hands over and adapts
 * (de_checkpoint.c: state, rebuild); de_internal.h is what they share.
 *
 * Random numbers.  The chain's stream (the core's) draws the initial spins and the moves;
 * the measurement stream (de_streams, from the core), kept in the chain and saved, feeds
 * the random vectors of a stochastic evaluator's occupation().
 *
 * Initial spins.  start = random (independent uniform directions) or ordered (all +z); or
 * [model] spins = FILE (de_spins_file.c): one line "x y z" per site; it replaces `start`. */
#include "de_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The model's own random stream (mcf/model.h, mcf_stream_spec): chain k's measurement
 * stream is stream 2^62 + 2^60 + k of the run's seed, the number it has had since the
 * model's first release (so results stay the same). */
static const mcf_stream_spec de_streams[] = {
    {"measurement", (UINT64_C(1) << 62) + (UINT64_C(1) << 60), 0,
     "the random vectors of a stochastic evaluator's traces"},
    {NULL, 0, 0, NULL}};

static const mcf_param_spec de_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "cubic", MCF_PARAM_NO_SCAN, 0, 0, DE_LATTICES,
     .doc = "lattice: square (L^2 sites, z = 4) or simple cubic (L^3 sites, z = 6)"},
    {"L", MCF_PARAM_INT, "4", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     .doc = "linear size; L >= 3 with periodic boundaries (L = 2 would list a neighbour twice)", .symbol = "L"},
    {"t", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "hopping amplitude, finite and nonzero: H_ij = -t <chi_i|chi_j> (hund = inf) or -t "
     "per spin (finite hund)"},
    {"mu", MCF_PARAM_REAL, "0", MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "chemical potential (grand canonical); 0 is half filling of the hund = inf band",
     .symbol = "μ", .unit = "t"},
    {"hund", MCF_PARAM_REAL, "inf", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "Hund coupling J_H > 0: inf = spinless fermions slaved to the spins (N x N), a "
     "number = "
     "two orbitals per site with -J_H S.sigma (2N x 2N)", .symbol = "J_H", .unit = "t"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     .doc = "boundary conditions of the lattice"},
    MCF_LATTICE_TWIST_PARAM,
    MCF_LATTICE_FLUX_PARAM,
    {"move", MCF_PARAM_CHOICE, "uniform", MCF_PARAM_NO_SCAN, 0, 0, "uniform|rotation",
     .doc = "single-spin move: a uniform new direction, or one in a cap of half-angle alpha around "
     "the old (alpha adapted toward acceptance 0.5 while thermalizing)"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     .doc = "initial spins: independent uniform directions, or all along +z"},
    {"spins", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "none, or a text file of initial spins, one line \"x y z\" per site ('#' comments; a "
     "relative path is relative to the working directory); replaces start"},
    {"dos_every", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "measure the DOS curve (dos.tsv) at every k-th measurement, repeating the last one in "
     "between; 0 = no DOS curve"},
    {"response_moments", MCF_PARAM_INT, "0",
     MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "Chebyshev moments M per index of the conductivity's two-dimensional moments at every "
     "measurement (curves sigma_xx_moments, sigma_xy_moments of 2 M^2 + 5 values; `mcf response "
     "DIR` turns them into sigma with errors); 0 = none"},
    MCF_SPECTRAL_PARAMS,
    {0}};

/* [model] move and start, in the order of their choices (mcf_params_choice) */
enum { DE_MOVE_UNIFORM, DE_MOVE_ROTATION };
enum { DE_START_RANDOM, DE_START_ORDERED };

/* The observables, with the symbols and units of the plots (the DOS curve's axis too). */
static const mcf_observable de_observables[] = {
    {"energy", MCF_ROLE_ENERGY,
     "fermion energy per site, sum_nu eps_nu f(eps_nu) / N (units of t)", NULL,
     MCF_OBS_NOISE(1), "E/N", "t", NULL, NULL},
    {"abs_m", MCF_ROLE_ORDER, "length of the magnetization per site, |sum_i S_i| / N", NULL,
     0, "⟨|m|⟩", NULL, NULL, NULL},
    {"m2", MCF_ROLE_ORDER2, "its square, |sum_i S_i / N|^2", NULL, 0, "⟨m²⟩", NULL, NULL, NULL},
    {"m4", MCF_ROLE_ORDER4, "its fourth power, |sum_i S_i / N|^4", NULL, 0, "⟨m⁴⟩", NULL, NULL,
     NULL},
    {"density", MCF_ROLE_NONE, "electrons per site, sum_nu f(eps_nu) / N", NULL,
     MCF_OBS_NOISE(1), "n", NULL, NULL, NULL},
    {"nn_correlation", MCF_ROLE_NONE,
     "mean of S_i . S_j over nearest-neighbour bonds", NULL, 0, "⟨S_i·S_j⟩", NULL, NULL, NULL},
    {"energy_dT", MCF_ROLE_ENERGY_DT,
     "d(energy)/dT at fixed spins, sum_nu eps_nu df/dT / N (the specific heat's first term)",
     NULL, MCF_OBS_NOISE(1), "∂_T E/N", NULL, NULL, NULL},
    {"action_dT", MCF_ROLE_ACTION_DT,
     "dS_eff/dT at fixed spins per site, -(energy - mu density) / T^2 (the specific heat's "
     "covariance term; from a trace independent of energy's)", NULL, MCF_OBS_NOISE(2),
     "∂_T S/N", "1/t", NULL, NULL},
    {"m2_kmin", MCF_ROLE_ORDER_KMIN, "structure factor at k_min = 2 pi / L, |sum_i S_i "
     "exp(i k_min r_i) / N|^2 averaged over k_min along each axis (for xi_over_l; on request: "
     "[run] extra_observables = m2_kmin)", NULL, MCF_OBS_ON_REQUEST, "⟨|m(k_min)|²⟩", NULL,
     NULL, NULL},
    {"dos", MCF_ROLE_NONE,
     "density of states per state of the fermions, 1/energy (only with dos_every > 0)", "E", 0,
     "ρ(E)", "1/t", "E", "t"},
    {"sigma_xx_moments", MCF_ROLE_NONE,
     "moments (1/dim) Tr[J_x T_n(H~) J_x T_m(H~)] of the conductivity sigma_xx and its scaling "
     "(mcf/response.h; response_moments > 0)", "k", MCF_OBS_RESPONSE_MOMENTS, NULL, NULL, NULL,
     NULL},
    {"sigma_xy_moments", MCF_ROLE_NONE,
     "moments (1/dim) Tr[J_x T_n(H~) J_y T_m(H~)] of the conductivity sigma_xy and its scaling "
     "(mcf/response.h; response_moments > 0)", "k", MCF_OBS_RESPONSE_MOMENTS, NULL, NULL, NULL,
     NULL},
    {"spectral_function_moments", MCF_ROLE_NONE,
     "moments sum_s <k s| T_n(H~) |k s> of the electrons' spectral function A(k, E) along "
     "spectral_path, with the wave vectors and the scaling (mcf/response.h; spectral_moments > 0)",
     "j", MCF_OBS_SPECTRAL_MOMENTS, NULL, NULL, NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

/* symbols and units of the parameters, for the plots (T's unit is energy_unit) */

/* ---- create / destroy ---------------------------------------------------------------- */

static void de_destroy(void *chain)
{
    de_chain *c = chain;
    if (!c)
        return;
    if (c->ws)
        mcf_fermion_release(&c->fermion, c->ws);
    mcf_hamiltonian_destroy(c->h);
    mcf_hamiltonian_destroy(c->scratch);
    mcf_kpath_destroy(c->kpath);
    free(c->bloch);
    free(c->bloch_w);
    mcf_hamiltonian_destroy(c->jx);
    mcf_hamiltonian_destroy(c->jy);
    mcf_lattice_destroy(c->lat);
    free(c->phase);
    free(c->spin);
    free(c->nb);
    mcf_kmin_destroy(c->kmin);
    free(c->dos_last);
    mcf_fermion_hmc_release(&c->pf);
    free(c->spinor);
    free(c->slot);
    free(c);
}

static int de_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **chain)
{
    *chain = NULL;
    long dos_every, n_response, n_spectral;
    double t, mu, hund, T;
    const char *spins_path, *kpath;
    int move, start, rc;
    if ((rc = mcf_params_real(params, "t", &t)) || (rc = mcf_params_real(params, "mu", &mu)) ||
        (rc = mcf_params_real(params, "hund", &hund)) ||
        (rc = mcf_params_choice(params, "move", &move)) ||
        (rc = mcf_params_choice(params, "start", &start)) ||
        (rc = mcf_params_string(params, "spins", &spins_path)) ||
        (rc = mcf_params_int(params, "dos_every", &dos_every)) ||
        (rc = mcf_params_int(params, "response_moments", &n_response)) ||
        (rc = mcf_params_int(params, "spectral_moments", &n_spectral)) ||
        (rc = mcf_params_string(params, "spectral_path", &kpath)) ||
        (rc = mcf_params_temperature(params, &T)))
        return mcf_fail_prefix(rc, "double-exchange");
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (t == 0.0) /* finite: the declaration's; nonzero is no range */
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] t = %g in %s: the hopping must be a finite "
                        "nonzero number (t = 1 sets the energy unit)",
                        sec, t, origin);
    if (n_response == 1)
        return mcf_fail(MCF_EINVAL, "double-exchange: [%s] response_moments = 1 in %s: the Kubo "
                        "formulas need at least 2 moments (0 measures none)", sec, origin);
    if (!(T > 0.0) || !isfinite(T))
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: temperature T = %g in %s: the fermion weight needs a "
                        "finite T > 0; fix [schedule] temperatures",
                        T, origin);

    /* the lattice (lattice, L, boundary; periodic L = 2 refused: one entry per bond) */
    mcf_lattice *lat = NULL;
    de_chain *c = NULL;
    if ((rc = mcf_lattice_from_params(params, "double-exchange", MCF_LATTICE_SIMPLE_BONDS,
                                      &lat)))
        return rc;
    const long L = lat->L;
    const double h_bound_t = (lat->kind == MCF_LATTICE_SQUARE ? 4.0 : 6.0) * fabs(t);
    const int finite = isfinite(hund);
    const double bound = finite ? h_bound_t + hund : h_bound_t;
    if (!isfinite(bound)) {
        rc = mcf_fail(MCF_EINVAL,
                      "double-exchange: [%s] t = %g, hund = %g in %s: the spectral bound "
                      "z|t| + J_H overflows; choose smaller values",
                      sec, t, hund, origin);
        goto fail;
    }
    /* issue 42: |E - mu N| <= N (z|t| + J_H + |mu|); t = 1e300 or hund = 1e300 made the
       energy NaN in results.tsv */
    {
        const double hu = finite ? hund : 0.0;
        const char *key = h_bound_t >= hu && h_bound_t >= fabs(mu) ? "t"
                          : hu >= fabs(mu)                      ? "hund"
                                                                : "mu";
        if ((rc = mcf_params_check_scale(params, "double-exchange", key,
                                         "sites (z|t| + hund + |mu|)",
                                         (double)lat->sites * (bound + fabs(mu)), T)))
            goto fail;
        /* action_dT, the action's T-derivative, is of size E / T^2: summed squared too */
        const double a = (double)lat->sites * (bound + fabs(mu)) / T / T;
        if (!isfinite(a * a * 1e20)) {
            rc = mcf_fail(MCF_EINVAL, "double-exchange: temperature T = %g in %s ([schedule] "
                          "temperatures) is too small for the energy scale: the action's "
                          "T-derivative, sites (z|t| + hund + |mu|) / T^2 = %g, overflows when "
                          "squared and summed; give a larger T", T, origin, a);
            goto fail;
        }
    }

    /* the evaluator: change_action for the moves, occupation for the observables (each
       chain keeps its own copy of the handle; a batch's calls reach the batch's evaluator) */
    mcf_fermion fermion;
    if ((rc = mcf_fermion_bind(services, params, "double-exchange",
                               MCF_FERMION_CHANGE_ACTION | MCF_FERMION_OCCUPATION |
                                   MCF_FERMION_OCCUPATION_DT |
                                   (n_response > 0 ? MCF_FERMION_RESPONSE : 0u) |
                                   (n_spectral > 0 ? MCF_FERMION_VECTOR_MOMENTS : 0u),
                               &fermion)))
        goto fail;
    if (lat->sites > (size_t)INT32_MAX / 2) {
        rc = mcf_fail(MCF_EINVAL,
                      "double-exchange: [%s] L = %ld in %s gives %zu sites, too many for the "
                      "Hamiltonian's 32-bit column indices; choose a smaller L",
                      sec, L, origin, lat->sites);
        goto fail;
    }
    if (lat->coordination > MCF_CHANGE_ENTRIES) {
        rc = mcf_fail(MCF_EINTERNAL, "double-exchange: coordination %d exceeds the %d entries "
                      "of a change's vector (a bug, please report it)",
                      lat->coordination, MCF_CHANGE_ENTRIES);
        goto fail;
    }

    c = calloc(1, sizeof *c);
    if (!c) {
        rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory");
        goto fail;
    }
    c->kind = lat->kind;
    c->boundary = lat->boundary;
    c->L = L;
    c->n = lat->sites;
    c->z = lat->coordination;
    c->bonds = mcf_lattice_bonds(lat);
    c->finite = finite;
    c->hund = hund;
    c->t = t;
    c->mu = mu;
    c->T = T;
    c->rotation = move == DE_MOVE_ROTATION;
    c->alpha = DE_ALPHA_START;
    c->chain_index = services->chain_index;
    c->fermion = fermion;
    if ((rc = mcf_services_stream(services, "measurement", &c->mrng)))
        goto fail;
    c->spin = malloc(3 * c->n * sizeof *c->spin);
    c->nb = malloc(c->n * (size_t)c->z * sizeof *c->nb);
    if (!c->spin || !c->nb) {
        rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for %zu sites (L = %ld)",
                      c->n, L);
        goto fail;
    }
    memcpy(c->nb, lat->neighbours, c->n * (size_t)c->z * sizeof *c->nb);
    if ((rc = mcf_kmin_create(lat, 3, &c->kmin)))
        goto fail;
    /* the twist and the field: the phase of every hopping, kept per (site, slot) */
    if ((rc = mcf_lattice_twist(params, "double-exchange", lat, c->theta)) ||
        (rc = mcf_lattice_flux(params, "double-exchange", lat, &c->flux)))
        goto fail;
    c->twisted = mcf_twist_nonzero(c->theta) || c->flux != 0.0;
    if (c->twisted) {
        if (!(c->phase = malloc(2 * c->n * (size_t)c->z * sizeof *c->phase))) {
            rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for the hoppings' phases");
            goto fail;
        }
        for (size_t i = 0; i < c->n; i++)
            for (int k = 0; k < c->z; k++) {
                double *ph = c->phase + 2 * (i * (size_t)c->z + (size_t)k), tr, ti, fr, fi;
                mcf_lattice_bond_phase(lat, c->theta, i, k, &tr, &ti);
                mcf_lattice_field_phase(lat, c->flux, i, k, &fr, &fi);
                ph[0] = fi == 0.0 ? tr : tr * fr - ti * fi; /* exactly the twist's without */
                ph[1] = fi == 0.0 ? ti : tr * fi + ti * fr;
            }
    }

    /* initial spins */
    if (strcmp(spins_path, "none") != 0) {
        if ((rc = de_read_spins(params, spins_path, c->n, c->spin)))
            goto fail;
    } else {
        const int ordered = start == DE_START_ORDERED;
        for (size_t i = 0; i < c->n; i++) {
            double *s = c->spin + 3 * i;
            if (ordered) {
                s[0] = s[1] = 0.0;
                s[2] = 1.0;
            } else {
                mcf_rng_unit_vector(rng, s);
            }
        }
    }
    de_refresh(c);

    /* the Hamiltonian and its scratch twin */
    const int orbitals = finite ? 2 : 1, width = finite ? c->z + 1 : c->z;
    const int own_table = finite || c->twisted; /* checked against a rebuilt scratch */
    if ((rc = mcf_hamiltonian_create(c->n, orbitals, width, &c->h)) ||
        (own_table && (rc = mcf_hamiltonian_create(c->n, orbitals, width, &c->scratch)))) {
        rc = mcf_fail_prefix(rc, "double-exchange: the Hamiltonian of %zu sites", c->n);
        goto fail;
    }
    /* hund = inf: H_ij = -t conj(chi_i) . chi_j, hoppings factorized over the spinors (an
     * evaluator may stream them instead of the table); with a twist not factorized: the
     * phases exp(i phi_ij) of the bonds across the boundary live in the table only */
    if (!own_table && (rc = mcf_hamiltonian_factorize(c->h, lat, -t, 2))) {
        rc = mcf_fail_prefix(rc, "double-exchange: the hoppings");
        goto fail;
    }
    if ((rc = de_build(c, c->h)))
        goto fail;
    if ((rc = mcf_hamiltonian_fix_bounds(c->h, -bound, bound)) ||
        (own_table && (rc = mcf_hamiltonian_fix_bounds(c->scratch, -bound, bound)))) {
        rc = mcf_fail_prefix(rc, "double-exchange: fixing the spectral bounds +-%g", bound);
        goto fail;
    }
    if ((rc = mcf_hamiltonian_check(c->h))) {
        rc = mcf_fail_prefix(rc, "double-exchange: the Hamiltonian is malformed (a bug, please "
                             "report it)");
        goto fail;
    }
    if ((rc = de_verify(c)) || (rc = mcf_fermion_workspace(&c->fermion, c->h, &c->ws)))
        goto fail;
    c->dos_every = dos_every;
    if (dos_every > 0) {
        if (!mcf_fermion_has(&c->fermion, MCF_FERMION_DOS)) {
            rc = mcf_fail(MCF_EINVAL, "double-exchange: [%s] dos_every = %ld in %s, but the "
                          "evaluator %s computes no DOS; set dos_every = 0", sec, dos_every,
                          origin, c->fermion.name);
            goto fail;
        }
        c->dos_points = mcf_fermion_grid(&c->fermion, c->ws, NULL);
        c->dos_last = calloc(c->dos_points ? c->dos_points : 1, sizeof *c->dos_last);
        if (!c->dos_last) {
            rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for the DOS curve");
            goto fail;
        }
    }
    if (mu <= -bound || mu >= bound)
        mcf_log(MCF_LOG_WARN,
                "double-exchange: chain %llu: [%s] mu = %g in %s lies outside the spectrum "
                "[%g, %g] of every spin configuration: the band is %s and the spins feel no "
                "fermions (S_eff is the same for every configuration up to exponentially "
                "small terms); choose mu inside the band",
                (unsigned long long)c->chain_index, sec, mu, origin, -bound, bound,
                mu <= -bound ? "empty" : "full");
    c->response_tail[0] = -bound;
    c->response_tail[1] = bound;
    c->response_tail[2] = (double)c->h->dim / (double)c->n; /* lattice constant 1 */
    if ((c->Mr = (size_t)n_response) > 0) { /* the lattice stays: the currents' geometry */
        if ((rc = mcf_current_operator(c->h, lat, 0, &c->jx)) ||
            (rc = mcf_current_operator(c->h, lat, 1, &c->jy))) {
            rc = mcf_fail_prefix(rc, "double-exchange: [%s] response_moments in %s", sec, origin);
            goto fail;
        }
    }
    if ((c->Ms = (size_t)n_spectral) > 0 && (rc = de_spectral_setup(c, lat, kpath))) {
        rc = mcf_fail_prefix(rc, "double-exchange: [%s] spectral_path = %s in %s", sec, kpath,
                             origin);
        goto fail;
    }
    if (c->Mr || c->Ms) { /* the lattice stays: the currents' geometry, the Bloch phases */
        c->lat = lat;
        lat = NULL;
    }
    mcf_lattice_destroy(lat);
    *chain = c;
    return MCF_OK;

fail:
    mcf_lattice_destroy(lat);
    de_destroy(c);
    return rc;
}

static const mcf_model de_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(de_move),
    .observables = de_observables,
    .energy_unit = "t",
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .weight_form = MCF_WEIGHT_ACTION, /* exp(-S(T)): C from energy_dT and action_dT */
    .ordered_state = "ferro",         /* start = ordered: every spin along +z */
    .mu_key = "mu",
    .streams = de_streams,
    .state_tag = DE_STATE_TAG,
    .configuration_tag = DE_CONFIGURATION_TAG,
    .create = de_create,
    .destroy = de_destroy,
    .layout = de_layout,
    .propose = de_propose,
    .apply = de_apply,
    .measure = de_measure,
    .state = de_state,
    .rebuild = de_rebuild,
    .exchange = de_exchange,
    .periodic = de_periodic,
    .coordinates = de_coordinates,
    .global_action = de_global_action,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "double-exchange", "1.1",
                      "double-exchange model: classical spins and fermions, infinite or finite "
                      "Hund coupling, weight exp(-S_eff) from a fermion evaluator (kpm, "
                      "kpm-cuda or ed)",
                      de_params, &de_model)
