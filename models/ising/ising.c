/* ising.c — the 2D square-lattice Ising model, the reference model of mcf.
 *
 *     H = -J sum_<ij> s_i s_j - h sum_i s_i,      s_i = +-1,
 *
 * on an L x L square lattice with periodic or open boundaries (mcf_lattice_create), at the
 * chain's temperature T ([schedule] temperatures), weight exp(-H/T) (k_B = 1).
 *
 * Written against ABI 2 (mcf_model, mcf/model.h; docs/sdk-1.md): the first model of the
 * tree on it, and its reference.
 *
 * Moves: single-spin-flip Metropolis.  propose() picks a site uniformly for every chain of
 * the batch; flipping s_i changes the energy by dE = 2 s_i (J f_i + h) with f_i the sum of
 * the neighbouring spins, and the log ratio is -dE/T (the proposal is symmetric).
 *
 * State: spins as int8 in an array of N + 1 entries whose last entry is a spin 0 that
 * stands for a missing neighbour (open boundary), so the hot path has no branch; the
 * neighbour table is copied into a 4-slot int32 table pointing at that entry.  The bond
 * sum B = sum_<ij> s_i s_j and the magnetization M = sum_i s_i are kept as running
 * integers updated on every accepted flip: exact, with no drift, so E = -J B - h M.
 *
 * Observables (per site, N = L^2): energy E/N, abs_m |M|/N, m2 (M/N)^2, m4 (M/N)^4, with
 * the roles the core uses for specific heat, susceptibility and the Binder cumulant, and
 * m2_kmin |M(k_min)/N|^2, the structure factor at k_min = 2 pi / L averaged over x and y
 * (the core's xi_over_l; recorded on request, [run] extra_observables = m2_kmin): from
 * the integer column and row sums of the spins, O(N) integer additions per measurement,
 * then L complex terms per direction.
 *
 * Parallel tempering: the core writes the chain's T (state's temperature) and rebuild()
 * sets beta; exchange() gives the energy -J B - h M from the running sums.  The
 * temperature is not in the checkpoint record: the core sets it again on resume.
 *
 * Checkpoint record (host byte order), described once in ising_state(): tag "ISG1", int64
 * L, int32 boundary, int32 0, int64 N (the three fixed by the configuration), N int8
 * spins, int64 B, int64 M — the bytes of the ABI-1 version of this model, so its
 * checkpoints resume.  After a load, rebuild() checks that every spin is +-1 and that B
 * and M agree with the spins.  The whole record is the configuration that start = anneal
 * hands on (no stream, counter or step size in it). */
#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ISING_COORD 4
/* the largest L: L^2 sites must fit the lattice's int32_t site numbers (mcf_lattice_create) */
#define ISING_MAX_L 46340

static const mcf_param_spec ising_params[] = {
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 2, ISING_MAX_L, NULL,
     .doc = "linear size: the lattice has L x L sites", .symbol = "L"},
    {"J", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "nearest-neighbour coupling (J > 0 ferromagnetic), in units of temperature"},
    {"h", MCF_PARAM_REAL, "0", MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "uniform magnetic field, energy -h sum_i s_i", .symbol = "h", .unit = "J"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     .doc = "boundary conditions of the lattice"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     .doc = "initial spins: independent random signs, or all +1"},
    {0}};

/* [model] start, in the order of its choices (mcf_params_choice) */
enum { ISING_START_RANDOM, ISING_START_ORDERED };

static const mcf_observable ising_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy per site, (-J sum_<ij> s_i s_j - h sum_i s_i) / N", NULL,
     0, "E/N", "J", NULL, NULL},
    {"abs_m", MCF_ROLE_ORDER, "absolute magnetization per site, |sum_i s_i| / N", NULL, 0,
     "⟨|m|⟩", NULL, NULL, NULL},
    {"m2", MCF_ROLE_ORDER2, "squared magnetization per site, (sum_i s_i / N)^2", NULL, 0, "⟨m²⟩",
     NULL, NULL, NULL},
    {"m4", MCF_ROLE_ORDER4, "fourth power of the magnetization per site, (sum_i s_i / N)^4",
     NULL, 0, "⟨m⁴⟩", NULL, NULL, NULL},
    {"m2_kmin", MCF_ROLE_ORDER_KMIN, "structure factor at k_min = 2 pi / L, |sum_i s_i "
     "exp(i k_min r_i) / N|^2 averaged over k_min along x and along y", NULL, MCF_OBS_ON_REQUEST,
     "⟨|m(k_min)|²⟩", NULL, NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

/* symbols and units of the parameters, for the plots (the observables carry theirs) */

typedef struct ising_move {
    int64_t site;
} ising_move;

typedef struct ising_chain {
    long L;
    mcf_boundary boundary;
    size_t n;          /* sites N = L^2 */
    double J, h, T, beta; /* beta = 1 / T */
    int64_t fixed_L, fixed_n;  /* the record's fixed fields: L, N, */
    int32_t fixed_boundary[2]; /*   and the boundary with a 0 beside it */
    int8_t *spin;      /* N + 1 entries; spin[N] = 0 is the missing neighbour */
    int32_t *nb;       /* N x 4; a missing neighbour is N */
    int64_t bond_sum;  /* sum_<ij> s_i s_j, each bond once */
    int64_t mag;       /* sum_i s_i */
    double *phase;     /* 2 L: cos and sin of k_min x, x = 0..L-1 */
    int64_t *line_sum; /* 2 L scratch: column sums (over y) and row sums (over x) */
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
    free(c->phase);
    free(c->line_sum);
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
    c->T = T;
    c->beta = 1.0 / T; /* T = inf gives beta = 0 */
    c->fixed_L = L;
    c->fixed_n = (int64_t)lat->sites;
    c->fixed_boundary[0] = (int32_t)boundary;
    c->spin = malloc(c->n + 1);
    c->nb = malloc(c->n * ISING_COORD * sizeof *c->nb);
    c->phase = malloc(2 * (size_t)L * sizeof *c->phase);
    c->line_sum = malloc(2 * (size_t)L * sizeof *c->line_sum);
    if (!c->spin || !c->nb || !c->phase || !c->line_sum) {
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
    for (long x = 0; x < L; x++) {
        const double kx = 2.0 * 3.14159265358979323846 * (double)x / (double)L;
        c->phase[2 * x] = cos(kx);
        c->phase[2 * x + 1] = sin(kx);
    }

    const int ordered = start == ISING_START_ORDERED;
    for (size_t i = 0; i < c->n; i++)
        c->spin[i] = ordered ? 1 : ((mcf_rng_u32(rng) >> 31) ? 1 : -1);
    c->spin[c->n] = 0;
    ising_sums(c, &c->bond_sum, &c->mag);
    *chain = c;
    return MCF_OK;
}

static int ising_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const ising_chain *)chain)->n;
    return MCF_OK;
}

static int ising_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                         void *moves, double *log_ratio)
{
    (void)b;
    ising_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const ising_chain *c = chains[k];
        const size_t i = mcf_rng_below(rngs[k], c->n);
        mv[k].site = (int64_t)i;
        const double dE = 2.0 * c->spin[i] * (c->J * ising_field(c, i) + c->h);
        log_ratio[k] = -c->beta * dE;
    }
    return MCF_OK;
}

static int ising_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                       const unsigned char *accepted)
{
    (void)b;
    const ising_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        if (!accepted[k])
            continue;
        ising_chain *c = chains[k];
        const size_t i = (size_t)mv[k].site;
        const int s = c->spin[i];
        c->bond_sum -= 2 * s * ising_field(c, i);
        c->mag -= 2 * s;
        c->spin[i] = (int8_t)-s;
    }
    return MCF_OK;
}

/* The total energy from the running sums: exact at any moment, not only at measurements. */
static double ising_energy(const ising_chain *c)
{
    return -c->J * (double)c->bond_sum - c->h * (double)c->mag;
}

/* |sum_i s_i exp(i k_min . r_i)|^2 / N^2 averaged over k_min along x and along y: the
 * column sums (site x + L y) and row sums are integers, so only 2 L phases are summed */
static double ising_m2_kmin(ising_chain *c)
{
    const size_t L = (size_t)c->L;
    int64_t *col = c->line_sum, *row = c->line_sum + L;
    memset(c->line_sum, 0, 2 * L * sizeof *c->line_sum);
    for (size_t y = 0; y < L; y++) {
        const int8_t *s = c->spin + y * L;
        int64_t r = 0;
        for (size_t x = 0; x < L; x++) {
            col[x] += s[x];
            r += s[x];
        }
        row[y] = r;
    }
    double cx = 0, sx = 0, cy = 0, sy = 0;
    for (size_t x = 0; x < L; x++) {
        cx += (double)col[x] * c->phase[2 * x];
        sx += (double)col[x] * c->phase[2 * x + 1];
        cy += (double)row[x] * c->phase[2 * x];
        sy += (double)row[x] * c->phase[2 * x + 1];
    }
    const double N = (double)c->n;
    return 0.5 * (cx * cx + sx * sx + cy * cy + sy * sy) / (N * N);
}

static int ising_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    for (size_t k = 0; k < n; k++) {
        ising_chain *c = chains[k];
        const double N = (double)c->n;
        const double m = (double)c->mag / N;
        const double m2 = m * m;
        values[k][0] = ising_energy(c) / N;
        values[k][1] = fabs(m);
        values[k][2] = m2;
        values[k][3] = m2 * m2;
        values[k][4] = ising_m2_kmin(c);
    }
    return MCF_OK;
}

/* Parallel tempering: the energies (a Boltzmann weight) */
static int ising_exchange(mcf_batch *b, void *const *chains, size_t n, const double *T_new,
                          double *out)
{
    (void)b, (void)T_new;
    for (size_t k = 0; k < n; k++)
        out[k] = ising_energy(chains[k]);
    return MCF_OK;
}

/* The record (all of it the configuration) and the temperature tempering writes. */
static int ising_state(void *chain, mcf_chain_state *st)
{
    ising_chain *c = chain;
    const unsigned conf = MCF_STATE_CONFIGURATION;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_FIXED("L", &c->fixed_L, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("boundary", c->fixed_boundary, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("site count", &c->fixed_n, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("spins", c->spin, c->n), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("bond sum", &c->bond_sum, 8), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("magnetization", &c->mag, 8), conf)))
        return mcf_fail(rc, "ising: too many state fields (a bug, please report it)");
    st->temperature = &c->T;
    return MCF_OK;
}

/* After a load or an anneal hand-over: the spins are +-1 and the running sums theirs;
 * after tempering moved the chain: beta. */
static int ising_rebuild(void *chain, unsigned what)
{
    ising_chain *c = chain;
    if (what & MCF_REBUILD_TEMPERATURE) {
        if (!(c->T > 0))
            return mcf_fail(MCF_EINVAL, "ising: temperature T = %g must be > 0", c->T);
        c->beta = 1.0 / c->T;
    }
    if (!(what & (MCF_REBUILD_LOAD | MCF_REBUILD_CONFIGURATION)))
        return MCF_OK;
    for (size_t i = 0; i < c->n; i++)
        if (c->spin[i] != 1 && c->spin[i] != -1)
            return mcf_fail(MCF_EFORMAT, "ising: the checkpoint has spin %d at site %zu; spins "
                            "must be +1 or -1 (the checkpoint is corrupt)", c->spin[i], i);
    int64_t b, m;
    ising_sums(c, &b, &m);
    if (b != c->bond_sum || m != c->mag)
        return mcf_fail(MCF_EFORMAT, "ising: the checkpoint's bond sum %lld and magnetization "
                        "%lld do not match its spins (%lld, %lld): the checkpoint is corrupt",
                        (long long)c->bond_sum, (long long)c->mag, (long long)b, (long long)m);
    return MCF_OK;
}

static const mcf_model ising_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(ising_move),
    .observables = ising_observables,
    .energy_unit = "J",
    .state_tag = {'I', 'S', 'G', '1'},
    .configuration_tag = {'I', 'S', 'G', '1'},
    .create = ising_create,
    .destroy = ising_destroy,
    .layout = ising_layout,
    .propose = ising_propose,
    .apply = ising_apply,
    .measure = ising_measure,
    .state = ising_state,
    .rebuild = ising_rebuild,
    .exchange = ising_exchange,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "ising", "1.0",
                      "2D square-lattice Ising model, single-spin-flip Metropolis (reference "
                      "model)",
                      ising_params, &ising_model)
