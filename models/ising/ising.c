/* ising.c — the 2D square-lattice Ising model, the reference model of mcf.
 *
 *     H = -J sum_<ij> s_i s_j - h sum_i s_i,      s_i = +-1,
 *
 * on an L x L square lattice with periodic or open boundaries (mcf_lattice_create), at the
 * chain's temperature T ([schedule] temperatures), weight exp(-H/T) (k_B = 1).
 *
 * Moves: single-spin-flip Metropolis.  propose() picks a site uniformly; flipping s_i
 * changes the energy by dE = 2 s_i (J f_i + h) with f_i the sum of the neighbouring
 * spins, and log_ratio() returns -dE/T (the proposal is symmetric).
 *
 * State: spins as int8 in an array of N + 1 entries whose last entry is a spin 0 that
 * stands for a missing neighbour (open boundary), so the hot path has no branch; the
 * neighbour table is copied into a 4-slot int32 table pointing at that entry.  The bond
 * sum B = sum_<ij> s_i s_j and the magnetization M = sum_i s_i are kept as running
 * integers updated on every accepted flip: exact, with no drift, so E = -J B - h M.
 *
 * Observables (per site, N = L^2): energy E/N, abs_m |M|/N, m2 (M/N)^2, m4 (M/N)^4, with
 * the roles the core uses for specific heat, susceptibility and the Binder cumulant.
 *
 * Parallel tempering: set_temperature() changes beta only; energy() is -J B - h M from the
 * running sums.  The temperature is not in the checkpoint record: the core sets it again
 * on resume.
 *
 * Checkpoint record (host byte order): magic "ISG1", int64 L, int32 boundary, int32 0,
 * int64 N, N int8 spins, int64 B, int64 M.  load() checks L, boundary and N against the
 * chain's parameters, that every spin is +-1 and that B and M agree with the spins. */
#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ISING_COORD 4
/* the largest L: L^2 sites must fit the lattice's int32_t site numbers (mcf_lattice_create) */
#define ISING_MAX_L 46340

static const char ising_magic[4] = {'I', 'S', 'G', '1'};

static const mcf_param_spec ising_params[] = {
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 2, ISING_MAX_L, NULL,
     "linear size: the lattice has L x L sites"},
    {"J", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL,
     "nearest-neighbour coupling (J > 0 ferromagnetic), in units of temperature"},
    {"h", MCF_PARAM_REAL, "0", MCF_PARAM_FINITE, 0, 0, NULL,
     "uniform magnetic field, energy -h sum_i s_i"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     "boundary conditions of the lattice"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     "initial spins: independent random signs, or all +1"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

/* [model] start, in the order of its choices (mcf_params_choice) */
enum { ISING_START_RANDOM, ISING_START_ORDERED };

static const mcf_observable_spec ising_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, (-J sum_<ij> s_i s_j - h sum_i s_i) / N", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "absolute magnetization per site, |sum_i s_i| / N", NULL, 0},
    {"m2", MCF_ROLE_ORDER2, "squared magnetization per site, (sum_i s_i / N)^2", NULL, 0},
    {"m4", MCF_ROLE_ORDER4, "fourth power of the magnetization per site, (sum_i s_i / N)^4", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

/* symbols and units for the plots (mcf_label) */
static const mcf_label ising_labels[] = {
    {"T", "T", "J"}, {"L", "L", NULL}, {"h", "h", "J"}, {"energy", "E/N", "J"},
    {"abs_m", "⟨|m|⟩", NULL}, {"m2", "⟨m²⟩", NULL}, {"m4", "⟨m⁴⟩", NULL}, {NULL, NULL, NULL}};

typedef struct ising_move {
    int64_t site;
} ising_move;

typedef struct ising_chain {
    long L;
    mcf_boundary boundary;
    size_t n;          /* sites N = L^2 */
    double J, h, beta;
    int8_t *spin;      /* N + 1 entries; spin[N] = 0 is the missing neighbour */
    int32_t *nb;       /* N x 4; a missing neighbour is N */
    int64_t bond_sum;  /* sum_<ij> s_i s_j, each bond once */
    int64_t mag;       /* sum_i s_i */
} ising_chain;

static inline int32_t ising_field(const ising_chain *c, size_t i)
{
    const int32_t *nb = c->nb + ISING_COORD * i;
    const int8_t *s = c->spin;
    return (int32_t)s[nb[0]] + s[nb[1]] + s[nb[2]] + s[nb[3]];
}

/* Bond sum and magnetization from scratch.  Bond k of site i for even k only: each bond
 * once (mcf/lattice.h); a missing neighbour has spin 0 and adds nothing. */
static void ising_sums(const ising_chain *c, int64_t *bond_sum, int64_t *mag)
{
    int64_t b = 0, m = 0;
    for (size_t i = 0; i < c->n; i++) {
        const int32_t *nb = c->nb + ISING_COORD * i;
        const int s = c->spin[i];
        b += s * (c->spin[nb[0]] + c->spin[nb[2]]);
        m += s;
    }
    *bond_sum = b;
    *mag = m;
}

static void ising_destroy(void *chain)
{
    ising_chain *c = chain;
    if (!c)
        return;
    free(c->spin);
    free(c->nb);
    free(c);
}

static int ising_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                        void **chain)
{
    (void)services;
    *chain = NULL;
    long L;
    double J, h, T;
    const char *boundary_name;
    int start, rc;
    if ((rc = mcf_params_int(params, "L", &L)) || (rc = mcf_params_real(params, "J", &J)) ||
        (rc = mcf_params_real(params, "h", &h)) ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)) ||
        (rc = mcf_params_choice(params, "start", &start)) ||
        (rc = mcf_params_temperature(params, &T)))
        return mcf_fail_prefix(rc, "ising");
    if (!(T > 0))
        return mcf_fail(MCF_EINVAL,
                        "ising: temperature T = %g in %s must be > 0; fix [schedule] "
                        "temperatures",
                        T, mcf_params_origin(params));
    /* issue 42: |E| <= L^2 (2|J| + |h|) (2 L^2 bonds); J = 1e308 made results.tsv NaN */
    if ((rc = mcf_params_check_scale(params, "ising", fabs(J) >= fabs(h) ? "J" : "h",
                                     "L^2 (2|J| + |h|)",
                                     (double)L * (double)L * (2.0 * fabs(J) + fabs(h)), T)))
        return rc;
    mcf_boundary boundary;
    if ((rc = mcf_boundary_from_name(boundary_name, &boundary)))
        return mcf_fail_prefix(rc, "ising: [%s] boundary", mcf_params_section(params));

    mcf_lattice *lat = NULL;
    if ((rc = mcf_lattice_create(MCF_LATTICE_SQUARE, L, boundary, &lat)))
        return mcf_fail_prefix(rc, "ising: [%s] L = %ld in %s", mcf_params_section(params), L,
                               mcf_params_origin(params));

    ising_chain *c = calloc(1, sizeof *c);
    if (!c) {
        mcf_lattice_destroy(lat);
        return mcf_fail(MCF_ENOMEM, "ising: out of memory");
    }
    c->L = L;
    c->boundary = boundary;
    c->n = lat->sites;
    c->J = J;
    c->h = h;
    c->beta = 1.0 / T; /* T = inf gives beta = 0 */
    c->spin = malloc(c->n + 1);
    c->nb = malloc(c->n * ISING_COORD * sizeof *c->nb);
    if (!c->spin || !c->nb) {
        size_t n = c->n;
        mcf_lattice_destroy(lat);
        ising_destroy(c);
        return mcf_fail(MCF_ENOMEM, "ising: out of memory for %zu sites (L = %ld)", n, L);
    }
    for (size_t i = 0; i < c->n * ISING_COORD; i++) {
        const int32_t j = lat->neighbours[i];
        c->nb[i] = j < 0 ? (int32_t)c->n : j;
    }
    mcf_lattice_destroy(lat);

    const int ordered = start == ISING_START_ORDERED;
    for (size_t i = 0; i < c->n; i++)
        c->spin[i] = ordered ? 1 : ((mcf_rng_u32(rng) >> 31) ? 1 : -1);
    c->spin[c->n] = 0;
    ising_sums(c, &c->bond_sum, &c->mag);
    *chain = c;
    return MCF_OK;
}

static size_t ising_units(const void *chain)
{
    return ((const ising_chain *)chain)->n;
}

static int ising_propose(void *chain, mcf_rng *rng, void *move)
{
    const ising_chain *c = chain;
    ((ising_move *)move)->site = (int64_t)mcf_rng_below(rng, c->n);
    return MCF_OK;
}

static int ising_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    const ising_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const ising_chain *c = chains[k];
        const size_t i = (size_t)mv[k].site;
        const double dE = 2.0 * c->spin[i] * (c->J * ising_field(c, i) + c->h);
        out[k] = -c->beta * dE;
    }
    return MCF_OK;
}

static int ising_accept(void *chain, const void *move)
{
    ising_chain *c = chain;
    const size_t i = (size_t)((const ising_move *)move)->site;
    const int s = c->spin[i];
    c->bond_sum -= 2 * s * ising_field(c, i);
    c->mag -= 2 * s;
    c->spin[i] = (int8_t)-s;
    return MCF_OK;
}

static void ising_reject(void *chain, const void *move)
{
    (void)chain;
    (void)move;
}

static int ising_measure(void *chain, double *values)
{
    const ising_chain *c = chain;
    const double n = (double)c->n;
    const double m = (double)c->mag / n;
    const double m2 = m * m;
    values[0] = (-c->J * (double)c->bond_sum - c->h * (double)c->mag) / n;
    values[1] = fabs(m);
    values[2] = m2;
    values[3] = m2 * m2;
    return MCF_OK;
}

/* Parallel tempering: the core moves the chain to another temperature between sweeps. */
static int ising_set_temperature(void *chain, double T)
{
    if (!(T > 0))
        return mcf_fail(MCF_EINVAL, "ising: temperature T = %g must be > 0", T);
    ((ising_chain *)chain)->beta = 1.0 / T;
    return MCF_OK;
}

/* The total energy from the running sums: exact at any moment, not only at measurements. */
static double ising_energy(const void *chain)
{
    const ising_chain *c = chain;
    return -c->J * (double)c->bond_sum - c->h * (double)c->mag;
}

static int ising_save(const void *chain, mcf_stream *out)
{
    const ising_chain *c = chain;
    const int64_t L = c->L, n = (int64_t)c->n;
    const int32_t head[2] = {(int32_t)c->boundary, 0};
    int rc;
    if ((rc = mcf_stream_write(out, ising_magic, sizeof ising_magic)) ||
        (rc = mcf_stream_write(out, &L, sizeof L)) ||
        (rc = mcf_stream_write(out, head, sizeof head)) ||
        (rc = mcf_stream_write(out, &n, sizeof n)) ||
        (rc = mcf_stream_write(out, c->spin, c->n)) ||
        (rc = mcf_stream_write(out, &c->bond_sum, sizeof c->bond_sum)) ||
        (rc = mcf_stream_write(out, &c->mag, sizeof c->mag)))
        return mcf_fail_prefix(rc, "ising: saving the chain");
    return MCF_OK;
}

static int ising_load(void *chain, mcf_stream *in)
{
    ising_chain *c = chain;
    char magic[4];
    int64_t L, n, bond_sum, mag;
    int32_t head[2];
    int rc;
    if ((rc = mcf_stream_read(in, magic, sizeof magic)))
        return mcf_fail_prefix(rc, "ising: loading the chain");
    if (memcmp(magic, ising_magic, sizeof magic) != 0)
        return mcf_fail(MCF_EFORMAT, "ising: the checkpoint record is not an ising chain "
                                     "(bad magic); was it written by another model?");
    if ((rc = mcf_stream_read(in, &L, sizeof L)) || (rc = mcf_stream_read(in, head, sizeof head)) ||
        (rc = mcf_stream_read(in, &n, sizeof n)))
        return mcf_fail_prefix(rc, "ising: loading the chain");
    if (L != c->L)
        return mcf_fail(MCF_EFORMAT,
                        "ising: the checkpoint has L = %lld but the configuration says L = %ld; "
                        "resume with the configuration the run was started with",
                        (long long)L, c->L);
    if (head[0] != (int32_t)c->boundary || n != (int64_t)c->n)
        return mcf_fail(MCF_EFORMAT,
                        "ising: the checkpoint's boundary or site count does not match the "
                        "configuration; resume with the configuration the run was started with");
    int8_t *spin = malloc(c->n);
    if (!spin)
        return mcf_fail(MCF_ENOMEM, "ising: out of memory loading the chain");
    if ((rc = mcf_stream_read(in, spin, c->n)) ||
        (rc = mcf_stream_read(in, &bond_sum, sizeof bond_sum)) ||
        (rc = mcf_stream_read(in, &mag, sizeof mag))) {
        free(spin);
        return mcf_fail_prefix(rc, "ising: loading the chain");
    }
    for (size_t i = 0; i < c->n; i++)
        if (spin[i] != 1 && spin[i] != -1) {
            const int bad = spin[i];
            free(spin);
            return mcf_fail(MCF_EFORMAT,
                            "ising: the checkpoint has spin %d at site %zu; spins must be +1 "
                            "or -1 (the checkpoint is corrupt)",
                            bad, i);
        }
    /* Commit, then check the running sums against the spins. */
    int8_t *old = malloc(c->n);
    if (!old) {
        free(spin);
        return mcf_fail(MCF_ENOMEM, "ising: out of memory loading the chain");
    }
    memcpy(old, c->spin, c->n);
    memcpy(c->spin, spin, c->n);
    free(spin);
    int64_t b, m;
    ising_sums(c, &b, &m);
    if (b != bond_sum || m != mag) {
        memcpy(c->spin, old, c->n);
        free(old);
        return mcf_fail(MCF_EFORMAT,
                        "ising: the checkpoint's bond sum %lld and magnetization %lld do not "
                        "match its spins (%lld, %lld): the checkpoint is corrupt",
                        (long long)bond_sum, (long long)mag, (long long)b, (long long)m);
    }
    free(old);
    c->bond_sum = b;
    c->mag = m;
    return MCF_OK;
}

static const mcf_model_ops ising_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(ising_move),
    .observables = ising_observables,
    .labels = ising_labels,
    .create = ising_create,
    .destroy = ising_destroy,
    .units = ising_units,
    .begin_sweep = NULL,
    .propose = ising_propose,
    .log_ratio = ising_log_ratio,
    .accept = ising_accept,
    .reject = ising_reject,
    .measure = ising_measure,
    .save = ising_save,
    .load = ising_load,
    .adapt = NULL,
    .set_temperature = ising_set_temperature,
    .energy = ising_energy,
    /* start = anneal: the record is the configuration alone (spins and their running sums;
       no stream, counter or step size), so the same pair serves */
    .save_configuration = ising_save,
    .load_configuration = ising_load,
};

static const mcf_plugin_info ising_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "ising",
    .version = "1.0",
    .summary = "2D square-lattice Ising model, single-spin-flip Metropolis (reference model)",
    .params = ising_params,
    .ops = &ising_ops,
    .min_mcf_version = MCF_VERSION_NUMBER(0, 5, 0), /* mcf_params_choice */
};

MCF_PLUGIN(ising_info)
