/* anderson.c — the Anderson model of disorder.
 *
 *     H = -t sum_<ij> (c_i^+ c_j + h.c.) + sum_i eps_i c_i^+ c_i,   eps_i uniform in [-W/2, W/2],
 *
 * on a square, simple cubic or bcc lattice of linear size L with periodic or open
 * boundaries (read and built by mcf_lattice_from_params).  The model measures, per
 * disorder realization, the density of states, the typical density of states and the local
 * density of states of chosen sites, all as curves over the energy E computed by the
 * configured fermion evaluator ([run] evaluator = kpm, or ed for small lattices; bound and
 * checked for dos and ldos by mcf_fermion_bind); it never knows how.
 *
 * Written against ABI 2 (mcf_model, mcf/model.h; docs/sdk-1.md), like ising.c; the fermion
 * evaluator is called through the SDK helpers of mcf/fermion_model.h.
 *
 * Sweeps.  A "sweep" is one new disorder realization: the layout's units are 1, propose()
 * draws a 64-bit key from the chain's stream into the move with log ratio 0 (always
 * accepted: the realizations are independent draws, not a Markov chain with a weight), and
 * apply() of an accepted move draws eps_i, i = 0..N-1, from the keyed stream "disorder"
 * for that key and installs them with mcf_hamiltonian_set_onsite().  So propose() does not
 * touch the chain, the move is self-contained, and a realization depends only on the
 * chain's stream.  [schedule] thermalize = 0 is right for this model:
 * there is nothing to equilibrate.
 *
 * Hopping.  A uniform -t is a factorized hopping of rank 0 (mcf/hamiltonian_factors.h):
 * mcf_hamiltonian_factorize(h, lattice, -t, 0) writes slot k of row i = neighbour k, and
 * tells an evaluator that may compute the hoppings instead of reading the table (kpm,
 * kpm-cuda: the DOS step then streams only the on-site energies).  A periodic L = 2
 * lattice (a pair joined by two bonds of the torus, -2t) is written entry by entry
 * (anderson_hopping), with each row's slots in neighbour-slot order as well.  A twist or a
 * magnetic field ([model] flux, Peierls phases: mcf/lattice.h) makes the hoppings complex:
 * they are then written with their phases (mcf_hamiltonian_set_hopping_gauged), not
 * factorized.
 *
 * Spectral bounds are fixed to +-(z |t| + W/2) (z = coordination), which bound the
 * spectrum of every realization (Gershgorin), so every realization shares one energy grid
 * and curves can be averaged point by point.
 *
 * Measurements.  dos, typical_dos and ldos, curves over E from the evaluator, and the
 * Chebyshev moments of dos and ldos (with an evaluator that has them), are
 * anderson_measure.c's; this file holds the parameters, the realizations, create/destroy,
 * the checkpoint record and the descriptor; anderson_internal.h is what the two share.
 *
 * Random numbers.  Three streams, all fixed by the run's seed and the chain index:
 *   - the chain's own stream (the core's rng, handed to create() and propose()): the
 *     initial realization and the key of every later one;
 *   - the keyed stream "disorder" for each key (anderson_streams): the on-site energies of
 *     one realization;
 *   - the measurement stream ("measurement", anderson_streams), kept in the
 *     chain (measurements are handed no rng): the sampled sites of typical_dos and the
 *     random vectors of a stochastic evaluator.  It is saved in checkpoints.
 *
 * Checkpoint record (host byte order), described once in anderson_state() (mcf/state.h;
 * the core saves and loads it): tag "AND1", int32 lattice kind, int32 boundary, int64 L,
 * int64 N (all four must match the configuration), N doubles eps_i (finite), uint64
 * realizations drawn, the measurement mcf_rng (a valid stream) — the bytes of the ABI-1
 * version of this model, so its checkpoints resume.  After a load, rebuild() checks that
 * every eps_i lies inside [-W/2, W/2] and records the new diagonal in the Hamiltonian. */
#include "anderson_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The model's own random streams (mcf/model.h), with the numbers they have had since the
 * model's first release (so results stay the same): chain k's measurement stream is
 * stream 2^62 + k of the run's seed; realization `key` draws from stream 2^63 of Philox
 * key `key`. */
static const mcf_stream_spec anderson_streams[] = {
    {"measurement", UINT64_C(1) << 62, 0,
     "the sites sampled for typical_dos and a stochastic evaluator's random vectors"},
    {"disorder", UINT64_C(1) << 63, MCF_STREAM_KEYED,
     "the on-site energies of one realization, per key"},
    {NULL, 0, 0, NULL}};

static const mcf_param_spec anderson_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "cubic", MCF_PARAM_NO_SCAN, 0, 0, ANDERSON_LATTICES,
     .doc = "lattice: square (L^2 sites, z = 4), simple cubic (L^3, z = 6) or bcc (2 L^3, z = 8)"},
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     .doc = "linear size in conventional cells", .symbol = "L"},
    {"W", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "disorder strength: on-site energies uniform in [-W/2, W/2] (W_c = 16.5 t, cubic)",
     .symbol = "W", .unit = "t"},
    {"t", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "nearest-neighbour hopping, H_ij = -t"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     .doc = "boundary conditions of the lattice"},
    MCF_LATTICE_TWIST_PARAM,
    MCF_LATTICE_FLUX_PARAM,
    {"typical_sites", MCF_PARAM_INT, "32", MCF_PARAM_HAS_MIN, 1, 0, NULL,
     .doc = "distinct sites sampled per realization for typical_dos (at most the number of sites)"},
    {"response_moments", MCF_PARAM_INT, "0",
     MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "Chebyshev moments M per index of the conductivity's two-dimensional moments "
     "(curves sigma_xx_moments, sigma_xy_moments of 2 M^2 + 5 values; `mcf response DIR` "
     "turns them into sigma with errors); 0 = none"},
    MCF_SPECTRAL_PARAMS,
    {"ldos_sites", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "space-separated site indices whose mean LDOS is the curve ldos (none: the sampled "
     "typical_dos sites)"},
    {0}};

static const mcf_observable anderson_observables[] = {
    {"dos", MCF_ROLE_NONE, "density of states per state, 1/energy", "E", 0, "ρ(E)", "1/t", "E",
     "t"},
    {"typical_dos", MCF_ROLE_NONE,
     "typical DOS exp<log rho_i(E)>, geometric mean of the LDOS over sites and realizations",
     "E", MCF_OBS_GEOMETRIC_MEAN, "ρ_typ(E)", "1/t", "E", "t"},
    {"ldos", MCF_ROLE_NONE,
     "mean LDOS of the ldos_sites (none: of the sampled typical_dos sites), 1/energy", "E", 0,
     "ρ_i(E)", "1/t", "E", "t"},
    MCF_FERMION_MOMENT_OBSERVABLES,
    {"ldos_moments", MCF_ROLE_NONE,
     "Chebyshev moments of ldos (their mean over its sites; exact per site), no kernel", "n",
     MCF_OBS_MOMENTS, NULL, NULL, NULL, NULL},
    {"sigma_xx_moments", MCF_ROLE_NONE,
     "moments (1/N) Tr[J_x T_n(H~) J_x T_m(H~)] of the conductivity sigma_xx and its scaling "
     "(mcf/response.h; response_moments > 0)", "k", MCF_OBS_RESPONSE_MOMENTS, NULL, NULL, NULL,
     NULL},
    {"sigma_xy_moments", MCF_ROLE_NONE,
     "moments (1/N) Tr[J_x T_n(H~) J_y T_m(H~)] of the conductivity sigma_xy and its scaling "
     "(mcf/response.h; response_moments > 0)", "k", MCF_OBS_RESPONSE_MOMENTS, NULL, NULL, NULL,
     NULL},
    {"spectral_function_moments", MCF_ROLE_NONE,
     "moments <k| T_n(H~) |k> of the Bloch states along spectral_path (the spectral function "
     "A(k, E)), with the wave vectors and the scaling (mcf/response.h; spectral_moments > 0)",
     "j", MCF_OBS_SPECTRAL_MOMENTS, NULL, NULL, NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

/* symbols and units of the parameters, for the plots (the observables carry theirs) */

typedef struct anderson_move {
    uint64_t key; /* the Philox key of the new realization */
} anderson_move;

/* Draws the on-site energies of the realization with Philox key `key` into h. */
static int anderson_install(anderson_chain *c, uint64_t key)
{
    mcf_rng r;
    int rc0 = mcf_services_keyed_stream(c->services, "disorder", key, &r);
    if (rc0)
        return mcf_fail_prefix(rc0, "anderson");
    for (size_t i = 0; i < c->n; i++) {
        const double eps = c->W * (mcf_rng_uniform(&r) - 0.5);
        int rc = mcf_hamiltonian_set_onsite(c->h, i, eps);
        if (rc)
            return mcf_fail_prefix(rc, "anderson: setting the on-site energy of site %zu", i);
    }
    return MCF_OK;
}

/* Parses the space-separated site list of [model] ldos_sites into *out (malloc'ed, owned by
 * the caller, NULL when the list is empty) and *count.  "none" (the default: the core
 * refuses an empty value) is the empty list. */
static int anderson_parse_sites(const mcf_params *params, const char *text, size_t sites,
                                const char *lattice, long L, size_t **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    const char *p = strcmp(text, "none") == 0 ? "" : text;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *end;
        if (*p == '-' || *p == '+' || *p < '0' || *p > '9') {
            free(*out);
            *out = NULL;
            return mcf_fail(MCF_EINVAL,
                            "anderson: [%s] ldos_sites = \"%s\" in %s: '%.20s' is not a site "
                            "index; write non-negative integers separated by spaces",
                            mcf_params_section(params), text, mcf_params_origin(params), p);
        }
        unsigned long long v = strtoull(p, &end, 10);
        if (*end && *end != ' ' && *end != '\t') {
            free(*out);
            *out = NULL;
            return mcf_fail(MCF_EINVAL,
                            "anderson: [%s] ldos_sites = \"%s\" in %s: '%.20s' is not a site "
                            "index; write non-negative integers separated by spaces (no commas)",
                            mcf_params_section(params), text, mcf_params_origin(params), p);
        }
        if (v >= (unsigned long long)sites) {
            free(*out);
            *out = NULL;
            return mcf_fail(MCF_EINVAL,
                            "anderson: [%s] ldos_sites in %s: site %llu is outside the %s "
                            "lattice with L = %ld, which has %zu sites (0..%zu): a lattice too "
                            "small for the requested LDOS sites; raise L or list smaller "
                            "indices",
                            mcf_params_section(params), mcf_params_origin(params), v, lattice,
                            L, sites, sites - 1);
        }
        if (*count == cap) {
            cap = cap ? 2 * cap : 8;
            size_t *grown = realloc(*out, cap * sizeof *grown);
            if (!grown) {
                free(*out);
                *out = NULL;
                return mcf_fail(MCF_ENOMEM, "anderson: out of memory for ldos_sites");
            }
            *out = grown;
        }
        (*out)[(*count)++] = (size_t)v;
        p = end;
    }
    return MCF_OK;
}

static void anderson_destroy(void *chain)
{
    anderson_chain *c = chain;
    if (!c)
        return;
    if (c->ws)
        mcf_fermion_release(&c->ev, c->ws);
    mcf_hamiltonian_destroy(c->h);
    mcf_hamiltonian_destroy(c->jx);
    mcf_hamiltonian_destroy(c->jy);
    mcf_kpath_destroy(c->kpath);
    free(c->bloch);
    free(c->E);
    free(c->rows);
    free(c->mark);
    free(c->ldos_buf);
    free(c->ldos_mu);
    free(c);
}

/* Fills the hopping -t between nearest neighbours.  A pair listed k times in a row of the
 * neighbour table (periodic L = 2: the +d and -d neighbours coincide, two bonds of the
 * torus) gets the amplitude -k t. */
static int anderson_hopping(anderson_chain *c, const mcf_lattice *lat)
{
    const int z = lat->coordination;
    for (size_t i = 0; i < c->n; i++) {
        const int32_t *nb = lat->neighbours + (size_t)z * i;
        for (int k = 0; k < z; k++) {
            const int32_t j = nb[k];
            if (j < 0 || (size_t)j <= i)
                continue; /* missing, or the pair is set from row j */
            int first = 1, mult = 0;
            for (int q = 0; q < z; q++) {
                if (nb[q] == j) {
                    if (q < k)
                        first = 0;
                    mult++;
                }
            }
            if (!first)
                continue;
            int rc = mcf_hamiltonian_set(c->h, i, (size_t)j, -c->t * mult, 0.0);
            if (rc)
                return mcf_fail_prefix(rc, "anderson: hopping %zu -> %d", i, (int)j);
        }
    }
    return MCF_OK;
}

static int anderson_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                           void **chain)
{
    *chain = NULL;
    long n_typical, n_response, n_spectral;
    double W, t;
    const char *lattice_name, *sites_text, *kpath;
    int rc;
    if ((rc = mcf_params_string(params, "lattice", &lattice_name)) ||
        (rc = mcf_params_real(params, "W", &W)) || (rc = mcf_params_real(params, "t", &t)) ||
        (rc = mcf_params_int(params, "typical_sites", &n_typical)) ||
        (rc = mcf_params_int(params, "response_moments", &n_response)) ||
        (rc = mcf_params_int(params, "spectral_moments", &n_spectral)) ||
        (rc = mcf_params_string(params, "spectral_path", &kpath)) ||
        (rc = mcf_params_string(params, "ldos_sites", &sites_text)))
        return mcf_fail_prefix(rc, "anderson");
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (t == 0 && W == 0)
        return mcf_fail(MCF_EINVAL,
                        "anderson: [%s] t = 0 and W = 0 in %s: the Hamiltonian is zero and its "
                        "spectrum a single point, so there is no density of states to compute; "
                        "set t != 0 or W > 0",
                        sec, origin);

    /* the evaluator: a fermion evaluator is what computes every observable */
    mcf_fermion ev;
    const unsigned needs = MCF_FERMION_DOS | MCF_FERMION_LDOS |
                           (n_response > 0 ? MCF_FERMION_RESPONSE : 0u) |
                           (n_spectral > 0 ? MCF_FERMION_VECTOR_MOMENTS : 0u);
    if (n_response == 1)
        return mcf_fail(MCF_EINVAL, "anderson: [%s] response_moments = 1 in %s: the Kubo "
                        "formulas need at least 2 moments (0 measures none)", sec, origin);
    if ((rc = mcf_fermion_bind(services, params, "anderson", needs, &ev)))
        return rc;

    /* periodic L = 2 is allowed: anderson_hopping gives a doubled bond -2t */
    mcf_lattice *lat = NULL;
    if ((rc = mcf_lattice_from_params(params, "anderson", 0, &lat)))
        return rc;
    if ((size_t)n_typical > lat->sites) {
        const size_t sites = lat->sites;
        const long L = lat->L;
        mcf_lattice_destroy(lat);
        return mcf_fail(MCF_EINVAL,
                        "anderson: [%s] typical_sites = %ld in %s exceeds the %zu sites of the "
                        "%s lattice with L = %ld; set typical_sites <= %zu (distinct sites are "
                        "sampled per realization)",
                        sec, n_typical, origin, sites, lattice_name, L, sites);
    }

    anderson_chain *c = calloc(1, sizeof *c);
    if (!c) {
        mcf_lattice_destroy(lat);
        return mcf_fail(MCF_ENOMEM, "anderson: out of memory");
    }
    double flux = 0.0;
    if ((rc = mcf_lattice_twist(params, "anderson", lat, c->theta)) ||
        (rc = mcf_lattice_flux(params, "anderson", lat, &flux)))
        goto fail;
    c->lattice[0] = (int32_t)lat->kind;
    c->lattice[1] = (int32_t)lat->boundary;
    c->L = lat->L;
    c->sites = (int64_t)lat->sites;
    c->n = lat->sites;
    c->W = W;
    c->t = t;
    c->chain_index = services->chain_index;
    c->services = services;
    c->ev = ev;
    c->n_typical = (size_t)n_typical;
    size_t *listed = NULL;
    rc = mcf_services_stream(services, "measurement", &c->mrng);
    if (!rc)
        rc = anderson_parse_sites(params, sites_text, c->n, lattice_name, lat->L, &listed,
                                  &c->n_ldos);
    if (rc)
        goto fail;
    const size_t n_rows = c->n_typical + c->n_ldos;
    c->rows = malloc(n_rows * sizeof *c->rows);
    c->mark = calloc(c->n, 1);
    if (!c->rows || !c->mark) {
        free(listed);
        rc = mcf_fail(MCF_ENOMEM, "anderson: out of memory for %zu sites", c->n);
        goto fail;
    }
    for (size_t j = 0; j < c->n_ldos; j++)
        c->rows[c->n_typical + j] = listed[j];
    free(listed);

    if ((rc = mcf_hamiltonian_create(c->n, 1, lat->coordination, &c->h))) {
        rc = mcf_fail_prefix(rc, "anderson: the Hamiltonian of %zu sites", c->n);
        goto fail;
    }
    const int doubled = lat->boundary == MCF_BOUNDARY_PERIODIC && lat->L == 2 &&
                        lat->kind != MCF_LATTICE_BCC;
    if (doubled && (mcf_twist_nonzero(c->theta) || flux != 0.0))
        rc = mcf_fail(MCF_EINVAL, "anderson: [%s] %s in %s on the periodic L = 2 lattice, "
                      "whose bonds come in pairs that a phase tells apart; use L >= 3 or "
                      "%s = 0", sec, flux != 0.0 ? "flux" : "twist", origin,
                      flux != 0.0 ? "flux" : "twist");
    else if (doubled)
        rc = anderson_hopping(c, lat);
    else if (mcf_twist_nonzero(c->theta) || flux != 0.0) /* the table holds the phases */
        rc = mcf_hamiltonian_set_hopping_gauged(c->h, lat, t, c->theta, flux);
    else if ((rc = mcf_hamiltonian_factorize(c->h, lat, -t, 0)))
        rc = mcf_fail_prefix(rc, "anderson: the hopping");
    if (rc)
        goto fail;
    /* every realization's spectrum lies within Gershgorin's discs, |E| <= z|t| + W/2 */
    const double bound = lat->coordination * fabs(t) + 0.5 * W;
    if (!isfinite(bound)) {
        rc = mcf_fail(MCF_EINVAL, "anderson: [%s] t = %g, W = %g in %s: the spectral bound "
                      "z|t| + W/2 overflows; choose smaller values", sec, t, W, origin);
        goto fail;
    }
    if ((rc = mcf_hamiltonian_fix_bounds(c->h, -bound, bound))) {
        rc = mcf_fail_prefix(rc, "anderson: fixing the spectral bounds +-%g", bound);
        goto fail;
    }
    /* the current operators: the hoppings are fixed, so are they */
    c->Mr = (size_t)n_response;
    c->response_tail[0] = -bound;
    c->response_tail[1] = bound;
    c->response_tail[2] = (double)lat->sites / pow((double)lat->L, (double)lat->dim);
    if (c->Mr && ((rc = mcf_current_operator(c->h, lat, 0, &c->jx)) ||
                  (rc = mcf_current_operator(c->h, lat, 1, &c->jy)))) {
        rc = mcf_fail_prefix(rc, "anderson: [%s] response_moments in %s", sec, origin);
        goto fail;
    }
    /* the Bloch vectors of spectral_moments: the hoppings are fixed, so are they */
    if ((c->Ms = (size_t)n_spectral) > 0) {
        if ((rc = mcf_kpath_create(lat, kpath, c->theta, &c->kpath))) {
            rc = mcf_fail_prefix(rc, "anderson: [%s] spectral_path = %s in %s", sec, kpath,
                                 origin);
            goto fail;
        }
        if (!(c->bloch = malloc(2 * c->kpath->points * c->n * sizeof *c->bloch))) {
            rc = mcf_fail(MCF_ENOMEM, "anderson: out of memory for the Bloch vectors");
            goto fail;
        }
        for (size_t j = 0; j < c->kpath->points; j++)
            mcf_bloch_vector(lat, c->kpath->k + 3 * j, 1, 0, NULL, c->bloch + 2 * j * c->n);
    }
    /* the initial realization, from the chain's stream */
    if ((rc = anderson_install(c, mcf_rng_u64(rng))))
        goto fail;
    c->realizations = 1;
    if ((rc = mcf_hamiltonian_check(c->h))) {
        rc = mcf_fail_prefix(rc, "anderson: the Hamiltonian is malformed (a bug, please report "
                             "it)");
        goto fail;
    }

    if ((rc = mcf_fermion_workspace(&c->ev, c->h, &c->ws)))
        goto fail;
    c->points = mcf_fermion_grid(&c->ev, c->ws, NULL);
    if (c->points == 0) {
        rc = mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s has an empty energy grid",
                      c->ev.name);
        goto fail;
    }
    c->E = malloc(c->points * sizeof *c->E);
    c->ldos_buf = malloc(n_rows * c->points * sizeof *c->ldos_buf);
    /* the moment curves, with an evaluator that has them (kpm, kpm-cuda; not ed) */
    c->M = mcf_fermion_moment_points(&c->ev, c->ws, 0, NULL);
    c->ldos_mu = c->M ? malloc(n_rows * c->M * sizeof *c->ldos_mu) : NULL;
    if (!c->E || !c->ldos_buf || (c->M && !c->ldos_mu)) {
        rc = mcf_fail(MCF_ENOMEM, "anderson: out of memory for %zu LDOS curves of %zu points",
                      n_rows, c->points);
        goto fail;
    }
    if (mcf_fermion_grid(&c->ev, c->ws, c->E) != c->points) {
        rc = mcf_fail_prefix(MCF_EPLUGIN, "anderson: evaluator %s: energy grid", c->ev.name);
        goto fail;
    }
    for (size_t e = 0; e < c->points; e++)
        if (!isfinite(c->E[e]) || (e && !(c->E[e] > c->E[e - 1]))) {
            rc = mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s: its energy grid is not finite "
                          "and ascending at point %zu (E = %g)", c->ev.name, e, c->E[e]);
            goto fail;
        }
    mcf_lattice_destroy(lat);
    *chain = c;
    return MCF_OK;

fail:
    mcf_lattice_destroy(lat);
    anderson_destroy(c);
    return rc;
}

/* units 1 (a sweep is one realization); the curves' lengths and axes (anderson_measure.c) */
static int anderson_layout(const void *chain, mcf_layout *layout)
{
    layout->units = 1;
    for (size_t o = 0; anderson_observables[o].name; o++)
        layout->points[o] = anderson_curve_points(chain, o, layout->axis ? layout->axis[o] : NULL);
    return MCF_OK;
}

/* Per chain: the key of the next realization from the chain's stream; log ratio 0 (every
 * realization is an independent draw: the move is always accepted). */
static int anderson_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                            void *moves, double *log_ratio)
{
    (void)b, (void)chains;
    anderson_move *mv = moves;
    for (size_t k = 0; k < n; k++)
        mv[k].key = mcf_rng_u64(rngs[k]);
    for (size_t k = 0; k < n; k++)
        log_ratio[k] = 0.0;
    return MCF_OK;
}

/* an accepted move installs its realization; a rejected one changed nothing */
static int anderson_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                          const unsigned char *accepted)
{
    (void)b;
    const anderson_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        if (!accepted[k])
            continue;
        anderson_chain *c = chains[k];
        int rc = anderson_install(c, mv[k].key);
        if (rc)
            return rc;
        c->realizations++;
    }
    return MCF_OK;
}

/* The checkpoint record "AND1", described once: what the configuration fixes (the
 * lattice), then the realization and the counters, the bytes of the ABI-1 version of this
 * model.  The on-site energies are read straight into the Hamiltonian's diagonal; rebuild()
 * then records them in its journal. */
static int anderson_state(void *chain, mcf_chain_state *st)
{
    anderson_chain *c = chain;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_FIXED("lattice (kind, boundary)", c->lattice,
                                                      sizeof c->lattice), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("L", &c->L, sizeof c->L), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("number of sites", &c->sites,
                                                      sizeof c->sites), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("on-site energies", c->h->onsite, c->n),
                                  0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("realization count", &c->realizations,
                                                     sizeof c->realizations), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &c->mrng), 0)))
        return mcf_fail(rc, "anderson: too many state fields (a bug, please report it)");
    return MCF_OK;
}

/* After a load: every eps_i inside [-W/2, W/2], and the new diagonal recorded. */
static int anderson_rebuild(void *chain, unsigned what)
{
    anderson_chain *c = chain;
    if (!(what & MCF_REBUILD_LOAD))
        return MCF_OK;
    for (size_t i = 0; i < c->n; i++)
        if (fabs(c->h->onsite[i]) > 0.5 * c->W)
            return mcf_fail(MCF_EFORMAT,
                            "anderson: the checkpoint has on-site energy %g at site %zu, outside "
                            "[-W/2, W/2] with W = %g (the checkpoint is corrupt or from another "
                            "configuration)",
                            c->h->onsite[i], i, c->W);
    /* the diagonal was written in place: record every row as changed, as installing a
     * realization does, so that an evaluator re-reads it */
    for (size_t i = 0; i < c->n; i++) {
        int rc = mcf_hamiltonian_set_onsite(c->h, i, c->h->onsite[i]);
        if (rc)
            return mcf_fail_prefix(rc, "anderson: loading the chain");
    }
    return MCF_OK;
}

static const mcf_model anderson_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(anderson_move),
    .observables = anderson_observables,
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .streams = anderson_streams,
    .state_tag = {'A', 'N', 'D', '1'},
    .create = anderson_create,
    .destroy = anderson_destroy,
    .layout = anderson_layout,
    .propose = anderson_propose,
    .apply = anderson_apply,
    .measure = anderson_measure,
    .state = anderson_state,
    .rebuild = anderson_rebuild,
    .periodic = anderson_periodic,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "anderson", "1.0",
                      "Anderson model of disorder: DOS, typical DOS and LDOS over disorder "
                      "realizations (needs a fermion evaluator)",
                      anderson_params, &anderson_model)
