/* heisenberg.c — the classical Heisenberg model of unit 3-vectors,
 *
 *     H = -J sum_<ij> S_i . S_j,      |S_i| = 1,
 *
 * on a chain, square, cubic or bcc lattice of linear size L with periodic or open
 * boundaries, at the chain's temperature T, weight exp(-H/T).  It is the double-exchange
 * model without its fermions: same spins, same moves, an energy that is a plain bond sum.
 *
 * Moves: at a uniformly chosen site, a new direction drawn uniformly on the sphere,
 * independent of the old one.  The proposal is symmetric, so the log of the Metropolis
 * ratio is -dE/T with dE = -J (S_new - S_old) . f_i, f_i the sum of the neighbours.
 * With [model] overrelax = p > 0, a move is instead, with probability p (a uniform drawn
 * after the site), the over-relaxation S -> 2 (S.f) f / |f|^2 - S, the reflection about the
 * local field (S kept where f = 0): an involution that keeps |S|, the energy and the
 * sphere's measure, so as a proposal it is symmetric and its ratio is 1 (dE = 0 up to
 * rounding; the result is renormalized to unit length).  It moves a spin far at no cost in
 * acceptance and cuts the autocorrelation near T_c (Creutz, Phys. Rev. D 36, 515 (1987);
 * Brown and Woch, Phys. Rev. Lett. 58, 2394 (1987)); p < 1 keeps the chain ergodic.  At
 * p = 0 (the default) nothing more is drawn: the same bits as before the key existed.
 *
 * Running sums: the magnetization vector M = sum_i S_i and the energy E are updated on
 * every accepted move (M += S_new - S_old, E += dE).  Floating-point updates drift by
 * rounding (a random walk of ~1e-16 per update), so after every N accepted moves (N the
 * number of sites, i.e. about once per sweep at full acceptance) both are recomputed from
 * the spins.  This costs O(N) per N accepted moves, i.e. O(1) per move, and keeps the
 * error of M and E at the level of one sweep's worth of rounding.  The counter of accepted
 * moves since the last refresh is part of the saved state, so a resumed chain refreshes
 * at the same moves and gives bit-identical numbers.
 *
 * Written against ABI 2 (mcf_model, mcf/model.h; docs/sdk-1.md), like ising.c.
 *
 * Observables (per site, N sites): energy E/N, abs_m |M|/N, m2 (|M|/N)^2, m4 (|M|/N)^4,
 * and m2_kmin |M(k_min)/N|^2, the structure factor at k_min = 2 pi / L averaged over the d
 * axes (the core's xi_over_l; recorded on request, [run] extra_observables = m2_kmin).  It
 * is summed from the spins at every measurement by mcf_kmin_structure_factor (mcf/lattice.h:
 * plane sums per axis, bcc's body centres at half cells, then 2 L phases).
 *
 * Parallel tempering: the core writes the chain's T (state's temperature) and rebuild()
 * sets beta; exchange() gives the running energy.  The temperature is not in the record.
 *
 * Checkpoint record (host byte order), described once in heis_state(): tag "HSB1", int32
 * lattice kind, int32 boundary, int64 L, int64 N (fixed by the configuration), 3N doubles
 * of spins, 3 doubles M, double E, int64 refresh counter — the bytes of the ABI-1 version
 * of this model, so its checkpoints resume.  The whole record is the configuration that
 * start = anneal hands on (no stream or step size in it). */
#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const mcf_param_spec heis_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "cubic", MCF_PARAM_NO_SCAN, 0, 0, MCF_LATTICE_CHOICES,
     .doc = "lattice: chain (1D), square (2D), simple cubic or bcc (3D)"},
    {"L", MCF_PARAM_INT, "6", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     .doc = "linear size in conventional cells (L^d sites; bcc 2 L^3)", .symbol = "L"},
    {"J", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "nearest-neighbour exchange (J > 0 ferromagnetic), in units of temperature"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     .doc = "boundary conditions of the lattice"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     .doc = "initial spins: independent uniform directions, or all along +z"},
    /* added after runs were checkpointed: at its default config.ini stays as it was */
    {"overrelax", MCF_PARAM_REAL, "0",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED | MCF_PARAM_MAX_EXCLUSIVE |
         MCF_PARAM_RANGE(0, 1),
     .doc = "the probability that a move is an over-relaxation (the spin reflected about its "
     "local field: energy kept, always accepted) instead of a new random direction; 0.5 to "
     "0.9 shortens the autocorrelation near T_c several-fold"},
    {0}};

/* [model] start, in the order of its choices (mcf_params_choice) */
enum { HEIS_START_RANDOM, HEIS_START_ORDERED };

static const mcf_observable heis_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, -J sum_<ij> S_i.S_j / N", NULL, 0, "E/N", "J",
     NULL, NULL},
    {"abs_m", MCF_ROLE_ORDER, "length of the magnetization per site, |sum_i S_i| / N", NULL, 0,
     "⟨|m|⟩", NULL, NULL, NULL},
    {"m2", MCF_ROLE_ORDER2, "its square, |sum_i S_i / N|^2", NULL, 0, "⟨m²⟩", NULL, NULL, NULL},
    {"m4", MCF_ROLE_ORDER4, "its fourth power, |sum_i S_i / N|^4", NULL, 0, "⟨m⁴⟩", NULL, NULL,
     NULL},
    {"m2_kmin", MCF_ROLE_ORDER_KMIN, "structure factor at k_min = 2 pi / L, |sum_i S_i "
     "exp(i k_min r_i) / N|^2 averaged over k_min along each axis", NULL, MCF_OBS_ON_REQUEST,
     "⟨|m(k_min)|²⟩",
     NULL, NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

/* symbols and units of the parameters, for the plots (the observables carry theirs) */

typedef struct heis_move {
    int64_t site;
    double s[3]; /* the proposed new direction */
} heis_move;

typedef struct heis_chain {
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    long L;
    size_t n;          /* sites */
    int z;             /* neighbour slots per site */
    double J, T, beta; /* beta = 1 / T */
    double overrelax;  /* the probability of an over-relaxation move */
    int32_t fixed_lattice[2];  /* the record's fixed fields: kind and boundary, */
    int64_t fixed_L, fixed_n;  /*   L and N */
    double *spin;      /* 3 (N + 1) doubles; site N is the zero vector (missing neighbour) */
    int32_t *nb;       /* N x z; a missing neighbour is N */
    double mag[3];     /* running sum_i S_i */
    double energy;     /* running E */
    int64_t since_refresh; /* accepted moves since M and E were last recomputed */
    mcf_kmin *kmin;    /* m2_kmin's tables (mcf/lattice.h) */
} heis_chain;

/* f = sum of the neighbouring spins of site i. */
static inline void heis_field(const heis_chain *c, size_t i, double f[3])
{
    const int32_t *nb = c->nb + (size_t)c->z * i;
    double fx = 0, fy = 0, fz = 0;
    for (int k = 0; k < c->z; k++) {
        const double *s = c->spin + 3 * (size_t)nb[k];
        fx += s[0];
        fy += s[1];
        fz += s[2];
    }
    f[0] = fx;
    f[1] = fy;
    f[2] = fz;
}

/* M and E from scratch: bonds along the even slots, each bond once (mcf/lattice.h). */
static void heis_sums(const heis_chain *c, double m[3], double *energy)
{
    double bonds = 0;
    m[0] = m[1] = m[2] = 0;
    for (size_t i = 0; i < c->n; i++) {
        const double *s = c->spin + 3 * i;
        const int32_t *nb = c->nb + (size_t)c->z * i;
        for (int k = 0; k < c->z; k += 2) {
            const double *t = c->spin + 3 * (size_t)nb[k];
            bonds += s[0] * t[0] + s[1] * t[1] + s[2] * t[2];
        }
        m[0] += s[0];
        m[1] += s[1];
        m[2] += s[2];
    }
    *energy = -c->J * bonds;
}

static void heis_refresh(heis_chain *c)
{
    heis_sums(c, c->mag, &c->energy);
    c->since_refresh = 0;
}

static void heis_destroy(void *chain)
{
    heis_chain *c = chain;
    if (!c)
        return;
    free(c->spin);
    free(c->nb);
    mcf_kmin_destroy(c->kmin);
    free(c);
}

static int heis_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                       void **chain)
{
    (void)services;
    *chain = NULL;
    long L;
    double J, T, overrelax;
    const char *lattice_name, *boundary_name;
    int start;
    int rc;
    if ((rc = mcf_params_string(params, "lattice", &lattice_name)) ||
        (rc = mcf_params_int(params, "L", &L)) || (rc = mcf_params_real(params, "J", &J)) ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)) ||
        (rc = mcf_params_choice(params, "start", &start)) ||
        (rc = mcf_params_real(params, "overrelax", &overrelax)) ||
        (rc = mcf_params_temperature(params, &T)))
        return mcf_fail_prefix(rc, "heisenberg");
    if (!(T > 0))
        return mcf_fail(MCF_EINVAL,
                        "heisenberg: temperature T = %g in %s must be > 0; fix [schedule] "
                        "temperatures",
                        T, mcf_params_origin(params));
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    if ((rc = mcf_lattice_kind_from_name(lattice_name, &kind)))
        return mcf_fail_prefix(rc, "heisenberg: [%s] lattice", mcf_params_section(params));
    if ((rc = mcf_boundary_from_name(boundary_name, &boundary)))
        return mcf_fail_prefix(rc, "heisenberg: [%s] boundary", mcf_params_section(params));

    mcf_lattice *lat = NULL;
    if ((rc = mcf_lattice_create(kind, L, boundary, &lat)))
        return mcf_fail_prefix(rc, "heisenberg: [%s] L = %ld in %s",
                               mcf_params_section(params), L, mcf_params_origin(params));
    /* issue 42: |E| <= N z |J| / 2 (unit spins; N z / 2 bonds) */
    if ((rc = mcf_params_check_scale(params, "heisenberg", "J", "sites z |J|",
                                     (double)lat->sites * lat->coordination * fabs(J), T))) {
        mcf_lattice_destroy(lat);
        return rc;
    }

    heis_chain *c = calloc(1, sizeof *c);
    if (!c) {
        mcf_lattice_destroy(lat);
        return mcf_fail(MCF_ENOMEM, "heisenberg: out of memory");
    }
    c->kind = kind;
    c->boundary = boundary;
    c->L = L;
    c->n = lat->sites;
    c->z = lat->coordination;
    c->J = J;
    c->overrelax = overrelax;
    c->T = T;
    c->beta = 1.0 / T; /* T = inf gives beta = 0 */
    c->fixed_lattice[0] = (int32_t)kind;
    c->fixed_lattice[1] = (int32_t)boundary;
    c->fixed_L = L;
    c->fixed_n = (int64_t)lat->sites;
    c->spin = calloc(3 * (c->n + 1), sizeof *c->spin);
    c->nb = malloc(c->n * (size_t)c->z * sizeof *c->nb);
    const int krc = mcf_kmin_create(lat, 3, &c->kmin);
    if (!c->spin || !c->nb || krc) {
        size_t n = c->n;
        mcf_lattice_destroy(lat);
        heis_destroy(c);
        return krc ? mcf_fail_prefix(krc, "heisenberg")
                   : mcf_fail(MCF_ENOMEM, "heisenberg: out of memory for %zu sites (L = %ld)",
                              n, L);
    }
    for (size_t i = 0; i < c->n * (size_t)c->z; i++) {
        const int32_t j = lat->neighbours[i];
        c->nb[i] = j < 0 ? (int32_t)c->n : j;
    }
    mcf_lattice_destroy(lat);

    const int ordered = start == HEIS_START_ORDERED;
    for (size_t i = 0; i < c->n; i++) {
        double *s = c->spin + 3 * i;
        if (ordered) {
            s[0] = s[1] = 0;
            s[2] = 1;
        } else {
            mcf_rng_unit_vector(rng, s);
        }
    }
    /* c->spin[3N..3N+2] stays the zero vector from calloc */
    heis_refresh(c);
    *chain = c;
    return MCF_OK;
}

static int heis_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const heis_chain *)chain)->n;
    return MCF_OK;
}

/* dE of move mv at its site's field f: -J (S_new - S_old) . f */
static inline double heis_delta_at(const heis_chain *c, const heis_move *mv, const double f[3])
{
    const double *old = c->spin + 3 * (size_t)mv->site;
    return -c->J * ((mv->s[0] - old[0]) * f[0] + (mv->s[1] - old[1]) * f[1] +
                    (mv->s[2] - old[2]) * f[2]);
}

/* dE of move mv, its site's field summed here */
static inline double heis_delta(const heis_chain *c, const heis_move *mv)
{
    double f[3];
    heis_field(c, (size_t)mv->site, f);
    return heis_delta_at(c, mv, f);
}

/* s = 2 (S.f) f / |f|^2 - S renormalized: S of site i reflected about its field f (S itself
 * where f = 0) */
static void heis_reflect(const heis_chain *c, size_t i, const double f[3], double s[3])
{
    const double *old = c->spin + 3 * i;
    const double ff = f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
    if (!(ff > 0.0)) {
        memcpy(s, old, 3 * sizeof *s);
        return;
    }
    const double w = 2.0 * (old[0] * f[0] + old[1] * f[1] + old[2] * f[2]) / ff;
    for (int a = 0; a < 3; a++)
        s[a] = w * f[a] - old[a];
    const double r = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int a = 0; a < 3; a++)
        s[a] /= r;
}

/* per chain: the site, then (overrelax > 0) the kind of move, then the new direction, from
 * the chain's stream; log ratio -dE/T */
static int heis_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                        void *moves, double *log_ratio)
{
    (void)b;
    heis_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const heis_chain *c = chains[k];
        const size_t i = (size_t)mcf_rng_below(rngs[k], c->n);
        double f[3];
        heis_field(c, i, f);
        mv[k].site = (int64_t)i;
        if (c->overrelax > 0.0 && mcf_rng_uniform(rngs[k]) < c->overrelax)
            heis_reflect(c, i, f, mv[k].s);
        else
            mcf_rng_unit_vector(rngs[k], mv[k].s);
        log_ratio[k] = -c->beta * heis_delta_at(c, &mv[k], f);
    }
    return MCF_OK;
}

static int heis_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                      const unsigned char *accepted)
{
    (void)b;
    const heis_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        if (!accepted[k])
            continue;
        heis_chain *c = chains[k];
        double *s = c->spin + 3 * (size_t)mv[k].site;
        c->energy += heis_delta(c, &mv[k]);
        for (int a = 0; a < 3; a++) {
            c->mag[a] += mv[k].s[a] - s[a];
            s[a] = mv[k].s[a];
        }
        if (++c->since_refresh >= (int64_t)c->n)
            heis_refresh(c);
    }
    return MCF_OK;
}

static int heis_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++) {
        heis_chain *c = chains[k];
        const double N = (double)c->n;
        const double m2 =
            (c->mag[0] * c->mag[0] + c->mag[1] * c->mag[1] + c->mag[2] * c->mag[2]) / (N * N);
        values[k][0] = c->energy / N;
        values[k][1] = sqrt(m2);
        values[k][2] = m2;
        values[k][3] = m2 * m2;
        values[k][4] = mcf_kmin_structure_factor(c->kmin, c->spin);
    }
    return MCF_OK;
}

/* Parallel tempering: the energies (a Boltzmann weight), the running sums refreshed from
 * the spins every N accepted moves. */
static int heis_exchange(mcf_batch *b, void *const *chains, size_t n, const double *T_new,
                         double *out)
{
    (void)b, (void)T_new;
    for (size_t k = 0; k < n; k++)
        out[k] = ((const heis_chain *)chains[k])->energy;
    return MCF_OK;
}

/* The record (all of it the configuration and what follows from it: spins, running
 * magnetization and energy, moves since their last refresh; no stream or step size) and
 * the temperature tempering writes. */
static int heis_state(void *chain, mcf_chain_state *st)
{
    heis_chain *c = chain;
    const unsigned conf = MCF_STATE_CONFIGURATION;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_FIXED("lattice (kind, boundary)",
                                                      c->fixed_lattice, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("L", &c->fixed_L, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("site count", &c->fixed_n, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("spins", c->spin, 3 * c->n), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("magnetization", c->mag, 3), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("energy", &c->energy, 1), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("moves since the refresh",
                                                     &c->since_refresh, 8), conf)))
        return mcf_fail(rc, "heisenberg: too many state fields (a bug, please report it)");
    st->temperature = &c->T;
    return MCF_OK;
}

/* After a load or an anneal hand-over: unit spins, and running sums that agree with them
 * up to accumulated rounding (a loose bound: 1e-9 per site).  The record's running values
 * are kept bit for bit, so the chain continues exactly as the saved one would have.  After
 * tempering moved the chain: beta. */
static int heis_rebuild(void *chain, unsigned what)
{
    heis_chain *c = chain;
    if (what & MCF_REBUILD_TEMPERATURE) {
        if (!(c->T > 0))
            return mcf_fail(MCF_EINVAL, "heisenberg: temperature T = %g must be > 0", c->T);
        c->beta = 1.0 / c->T;
    }
    if (!(what & (MCF_REBUILD_LOAD | MCF_REBUILD_CONFIGURATION)))
        return MCF_OK;
    for (size_t i = 0; i < c->n; i++) {
        const double *s = c->spin + 3 * i;
        const double len2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
        if (!(fabs(len2 - 1.0) < 1e-9))
            return mcf_fail(MCF_EFORMAT, "heisenberg: the checkpoint's spin at site %zu has "
                            "length^2 %.17g, not 1 (the checkpoint is corrupt)", i, len2);
    }
    if (c->since_refresh < 0 || c->since_refresh >= (int64_t)c->n)
        return mcf_fail(MCF_EFORMAT, "heisenberg: the checkpoint's running sums are invalid "
                        "(the checkpoint is corrupt)");
    double mag[3], energy;
    heis_sums(c, mag, &energy);
    const double tol = 1e-9 * (double)c->n * (1.0 + fabs(c->J));
    if (fabs(c->energy - energy) > tol || fabs(c->mag[0] - mag[0]) > tol ||
        fabs(c->mag[1] - mag[1]) > tol || fabs(c->mag[2] - mag[2]) > tol)
        return mcf_fail(MCF_EFORMAT, "heisenberg: the checkpoint's energy %.17g and "
                        "magnetization do not match its spins (energy %.17g): the checkpoint "
                        "is corrupt", c->energy, energy);
    return MCF_OK;
}

static const mcf_model heis_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(heis_move),
    .observables = heis_observables,
    .energy_unit = "J",
    .state_tag = {'H', 'S', 'B', '1'},
    .configuration_tag = {'H', 'S', 'B', '1'},
    .create = heis_create,
    .destroy = heis_destroy,
    .layout = heis_layout,
    .propose = heis_propose,
    .apply = heis_apply,
    .measure = heis_measure,
    .state = heis_state,
    .rebuild = heis_rebuild,
    .exchange = heis_exchange,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "heisenberg", "1.0",
                      "classical Heisenberg model of unit 3-vectors (double exchange without "
                      "fermions)",
                      heis_params, &heis_model)
