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
 * Observables (per site, N sites): energy E/N, abs_m |M|/N, m2 (|M|/N)^2, m4 (|M|/N)^4.
 *
 * Parallel tempering: set_temperature() sets beta, energy() returns the running energy.
 *
 * Checkpoint record (host byte order): magic "HSB1", int32 lattice kind, int32 boundary,
 * int64 L, int64 N, 3N doubles of spins, 3 doubles M, double E, int64 refresh counter. */
#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char heis_magic[4] = {'H', 'S', 'B', '1'};

static const mcf_param_spec heis_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "cubic", MCF_PARAM_NO_SCAN, 0, 0, MCF_LATTICE_CHOICES,
     "lattice: chain (1D), square (2D), simple cubic or bcc (3D)"},
    {"L", MCF_PARAM_INT, "6", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "linear size in conventional cells (L^d sites; bcc 2 L^3)"},
    {"J", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL,
     "nearest-neighbour exchange (J > 0 ferromagnetic), in units of temperature"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     "boundary conditions of the lattice"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     "initial spins: independent uniform directions, or all along +z"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

/* [model] start, in the order of its choices (mcf_params_choice) */
enum { HEIS_START_RANDOM, HEIS_START_ORDERED };

static const mcf_observable_spec heis_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, -J sum_<ij> S_i.S_j / N", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "length of the magnetization per site, |sum_i S_i| / N", NULL, 0},
    {"m2", MCF_ROLE_ORDER2, "its square, |sum_i S_i / N|^2", NULL, 0},
    {"m4", MCF_ROLE_ORDER4, "its fourth power, |sum_i S_i / N|^4", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

/* symbols and units for the plots (mcf_label) */
static const mcf_label heis_labels[] = {
    {"T", "T", "J"}, {"L", "L", NULL}, {"energy", "E/N", "J"}, {"abs_m", "⟨|m|⟩", NULL},
    {"m2", "⟨m²⟩", NULL}, {"m4", "⟨m⁴⟩", NULL}, {NULL, NULL, NULL}};

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
    double J, beta;
    double *spin;      /* 3 (N + 1) doubles; site N is the zero vector (missing neighbour) */
    int32_t *nb;       /* N x z; a missing neighbour is N */
    double mag[3];     /* running sum_i S_i */
    double energy;     /* running E */
    int64_t since_refresh; /* accepted moves since M and E were last recomputed */
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
static void heis_refresh(heis_chain *c)
{
    double m[3] = {0, 0, 0}, bonds = 0;
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
    memcpy(c->mag, m, sizeof m);
    c->energy = -c->J * bonds;
    c->since_refresh = 0;
}

static void heis_destroy(void *chain)
{
    heis_chain *c = chain;
    if (!c)
        return;
    free(c->spin);
    free(c->nb);
    free(c);
}

static int heis_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                       void **chain)
{
    (void)services;
    *chain = NULL;
    long L;
    double J, T;
    const char *lattice_name, *boundary_name;
    int start;
    int rc;
    if ((rc = mcf_params_string(params, "lattice", &lattice_name)) ||
        (rc = mcf_params_int(params, "L", &L)) || (rc = mcf_params_real(params, "J", &J)) ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)) ||
        (rc = mcf_params_choice(params, "start", &start)) ||
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
    c->beta = 1.0 / T; /* T = inf gives beta = 0 */
    c->spin = calloc(3 * (c->n + 1), sizeof *c->spin);
    c->nb = malloc(c->n * (size_t)c->z * sizeof *c->nb);
    if (!c->spin || !c->nb) {
        size_t n = c->n;
        mcf_lattice_destroy(lat);
        heis_destroy(c);
        return mcf_fail(MCF_ENOMEM, "heisenberg: out of memory for %zu sites (L = %ld)", n, L);
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

static size_t heis_units(const void *chain)
{
    return ((const heis_chain *)chain)->n;
}

static int heis_propose(void *chain, mcf_rng *rng, void *move)
{
    const heis_chain *c = chain;
    heis_move *mv = move;
    mv->site = (int64_t)mcf_rng_below(rng, c->n);
    mcf_rng_unit_vector(rng, mv->s);
    return MCF_OK;
}

/* dE of move mv: -J (S_new - S_old) . f */
static inline double heis_delta(const heis_chain *c, const heis_move *mv)
{
    const size_t i = (size_t)mv->site;
    const double *old = c->spin + 3 * i;
    double f[3];
    heis_field(c, i, f);
    return -c->J * ((mv->s[0] - old[0]) * f[0] + (mv->s[1] - old[1]) * f[1] +
                    (mv->s[2] - old[2]) * f[2]);
}

static int heis_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    const heis_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const heis_chain *c = chains[k];
        out[k] = -c->beta * heis_delta(c, &mv[k]);
    }
    return MCF_OK;
}

static int heis_accept(void *chain, const void *move)
{
    heis_chain *c = chain;
    const heis_move *mv = move;
    double *s = c->spin + 3 * (size_t)mv->site;
    c->energy += heis_delta(c, mv);
    for (int a = 0; a < 3; a++) {
        c->mag[a] += mv->s[a] - s[a];
        s[a] = mv->s[a];
    }
    if (++c->since_refresh >= (int64_t)c->n)
        heis_refresh(c);
    return MCF_OK;
}

static void heis_reject(void *chain, const void *move)
{
    (void)chain;
    (void)move;
}

static int heis_measure(void *chain, double *values)
{
    const heis_chain *c = chain;
    const double n = (double)c->n;
    const double m2 = (c->mag[0] * c->mag[0] + c->mag[1] * c->mag[1] + c->mag[2] * c->mag[2]) /
                      (n * n);
    values[0] = c->energy / n;
    values[1] = sqrt(m2);
    values[2] = m2;
    values[3] = m2 * m2;
    return MCF_OK;
}

/* Parallel tempering: the moves do not depend on T, so a new temperature is a new beta;
 * the energy is the running sum (refreshed from the spins every N accepted moves). */
static int heis_set_temperature(void *chain, double T)
{
    if (!(T > 0))
        return mcf_fail(MCF_EINVAL, "heisenberg: temperature T = %g must be > 0", T);
    ((heis_chain *)chain)->beta = 1.0 / T;
    return MCF_OK;
}

static double heis_energy(const void *chain)
{
    return ((const heis_chain *)chain)->energy;
}

static int heis_save(const void *chain, mcf_stream *out)
{
    const heis_chain *c = chain;
    const int32_t head[2] = {(int32_t)c->kind, (int32_t)c->boundary};
    const int64_t L = c->L, n = (int64_t)c->n;
    int rc;
    if ((rc = mcf_stream_write(out, heis_magic, sizeof heis_magic)) ||
        (rc = mcf_stream_write(out, head, sizeof head)) ||
        (rc = mcf_stream_write(out, &L, sizeof L)) ||
        (rc = mcf_stream_write(out, &n, sizeof n)) ||
        (rc = mcf_stream_write(out, c->spin, 3 * c->n * sizeof *c->spin)) ||
        (rc = mcf_stream_write(out, c->mag, sizeof c->mag)) ||
        (rc = mcf_stream_write(out, &c->energy, sizeof c->energy)) ||
        (rc = mcf_stream_write(out, &c->since_refresh, sizeof c->since_refresh)))
        return mcf_fail_prefix(rc, "heisenberg: saving the chain");
    return MCF_OK;
}

static int heis_load(void *chain, mcf_stream *in)
{
    heis_chain *c = chain;
    char magic[4];
    int32_t head[2];
    int64_t L, n, since;
    double mag[3], energy;
    int rc;
    if ((rc = mcf_stream_read(in, magic, sizeof magic)))
        return mcf_fail_prefix(rc, "heisenberg: loading the chain");
    if (memcmp(magic, heis_magic, sizeof magic) != 0)
        return mcf_fail(MCF_EFORMAT, "heisenberg: the checkpoint record is not a heisenberg "
                                     "chain (bad magic); was it written by another model?");
    if ((rc = mcf_stream_read(in, head, sizeof head)) || (rc = mcf_stream_read(in, &L, sizeof L)) ||
        (rc = mcf_stream_read(in, &n, sizeof n)))
        return mcf_fail_prefix(rc, "heisenberg: loading the chain");
    if (head[0] != (int32_t)c->kind || head[1] != (int32_t)c->boundary || L != c->L ||
        n != (int64_t)c->n)
        return mcf_fail(MCF_EFORMAT,
                        "heisenberg: the checkpoint's lattice (kind %d, boundary %d, L = %lld) "
                        "does not match the configuration's (kind %d, boundary %d, L = %ld); "
                        "resume with the configuration the run was started with",
                        (int)head[0], (int)head[1], (long long)L, (int)c->kind,
                        (int)c->boundary, c->L);
    const size_t bytes = 3 * c->n * sizeof *c->spin;
    /* N + 1 entries like c->spin, the last the zero vector, so it can replace c->spin */
    double *spin = calloc(3 * (c->n + 1), sizeof *spin);
    if (!spin)
        return mcf_fail(MCF_ENOMEM, "heisenberg: out of memory loading the chain");
    if ((rc = mcf_stream_read(in, spin, bytes)) || (rc = mcf_stream_read(in, mag, sizeof mag)) ||
        (rc = mcf_stream_read(in, &energy, sizeof energy)) ||
        (rc = mcf_stream_read(in, &since, sizeof since))) {
        free(spin);
        return mcf_fail_prefix(rc, "heisenberg: loading the chain");
    }
    for (size_t i = 0; i < c->n; i++) {
        const double *s = spin + 3 * i;
        const double len2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
        if (!(fabs(len2 - 1.0) < 1e-9)) {
            free(spin);
            return mcf_fail(MCF_EFORMAT,
                            "heisenberg: the checkpoint's spin at site %zu has length^2 %.17g, "
                            "not 1 (the checkpoint is corrupt)",
                            i, len2);
        }
    }
    if (!isfinite(mag[0]) || !isfinite(mag[1]) || !isfinite(mag[2]) || !isfinite(energy) ||
        since < 0 || since >= (int64_t)c->n) {
        free(spin);
        return mcf_fail(MCF_EFORMAT, "heisenberg: the checkpoint's running sums are invalid "
                                     "(the checkpoint is corrupt)");
    }
    /* Swap the loaded spins in; the running sums must agree with them up to accumulated
     * rounding (a loose bound: 1e-9 per site); a larger difference means a corrupt record,
     * and the chain is put back as it was. */
    double *old = c->spin, old_mag[3], old_energy = c->energy;
    const int64_t old_since = c->since_refresh;
    memcpy(old_mag, c->mag, sizeof old_mag);
    c->spin = spin;
    heis_refresh(c);
    const double tol = 1e-9 * (double)c->n * (1.0 + fabs(c->J));
    if (fabs(energy - c->energy) > tol || fabs(mag[0] - c->mag[0]) > tol ||
        fabs(mag[1] - c->mag[1]) > tol || fabs(mag[2] - c->mag[2]) > tol) {
        const double recomputed = c->energy;
        c->spin = old;
        memcpy(c->mag, old_mag, sizeof old_mag);
        c->energy = old_energy;
        c->since_refresh = old_since;
        free(spin);
        return mcf_fail(MCF_EFORMAT,
                        "heisenberg: the checkpoint's energy %.17g and magnetization do not "
                        "match its spins (energy %.17g): the checkpoint is corrupt",
                        energy, recomputed);
    }
    free(old);
    /* Restore the saved running values bit for bit, so the resumed chain continues
     * exactly as the saved one would have. */
    memcpy(c->mag, mag, sizeof mag);
    c->energy = energy;
    c->since_refresh = since;
    return MCF_OK;
}

static const mcf_model_ops heis_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(heis_move),
    .observables = heis_observables,
    .labels = heis_labels,
    .create = heis_create,
    .destroy = heis_destroy,
    .units = heis_units,
    .begin_sweep = NULL,
    .propose = heis_propose,
    .log_ratio = heis_log_ratio,
    .accept = heis_accept,
    .reject = heis_reject,
    .measure = heis_measure,
    .save = heis_save,
    .load = heis_load,
    .adapt = NULL,
    .set_temperature = heis_set_temperature,
    .energy = heis_energy,
    /* start = anneal: the record is the configuration and what follows from it (spins,
       running magnetization and energy, moves since their last refresh), no stream or step
       size, so the same pair serves */
    .save_configuration = heis_save,
    .load_configuration = heis_load,
};

static const mcf_plugin_info heis_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "heisenberg",
    .version = "1.0",
    .summary = "classical Heisenberg model of unit 3-vectors (double exchange without fermions)",
    .params = heis_params,
    .ops = &heis_ops,
    .min_mcf_version = MCF_VERSION_NUMBER(0, 5, 0), /* mcf_params_choice */
};

MCF_PLUGIN(heis_info)
