/* anderson.c — the Anderson model of disorder.
 *
 *     H = -t sum_<ij> (c_i^+ c_j + h.c.) + sum_i eps_i c_i^+ c_i,   eps_i uniform in [-W/2, W/2],
 *
 * on a square, simple cubic or bcc lattice of linear size L with periodic or open
 * boundaries (mcf_lattice_create).  The model measures, per disorder realization, the
 * density of states, the typical density of states and the local density of states of
 * chosen sites, all as curves over the energy E computed by the configured fermion
 * evaluator ([run] evaluator = kpm, or ed for small lattices); it never knows how.
 *
 * Sweeps.  A "sweep" is one new disorder realization: units() = 1, propose() draws a
 * 64-bit key from the chain's stream into the move, log_ratio() is 0 (always accepted: the
 * realizations are independent draws, not a Markov chain with a weight), and accept()
 * draws eps_i, i = 0..N-1, from the Philox stream (key, ANDERSON_DISORDER_STREAM) and
 * installs them with mcf_hamiltonian_set_onsite().  So propose() does not touch the chain,
 * the move is self-contained, and a realization depends only on the chain's stream.
 * [schedule] thermalize = 0 is right for this model: there is nothing to equilibrate.
 *
 * Spectral bounds are fixed to +-(z |t| + W/2) (z = coordination), which bound the
 * spectrum of every realization (Gershgorin), so every realization shares one energy grid
 * and curves can be averaged point by point.
 *
 * Observables (curves over E, on the evaluator's grid; per state, each integrates to 1):
 *   dos          the DOS of the realization (a stochastic trace for kpm, exact for ed),
 *                averaged over realizations.
 *   typical_dos  rho_typ(E) = exp< log rho_i(E) >, the geometric mean of the LDOS over
 *                sites and realizations (MCF_OBS_GEOMETRIC_MEAN: the model measures, per
 *                realization, the mean of log rho_i(E) over `typical_sites` distinct
 *                sites drawn uniformly; the core averages the logs and exponentiates).
 *                rho_typ / rho falls to 0 at the Anderson transition (W_c = 16.5 t on the
 *                cubic lattice) as the LDOS breaks up into the isolated peaks of
 *                localized states.
 *   ldos         the arithmetic mean of the LDOS of the sites listed in `ldos_sites`,
 *                averaged over realizations; with ldos_sites = none (the default, no list:
 *                the core refuses an empty value), the arithmetic mean
 *                of the LDOS over the same sampled sites as typical_dos (an estimate of
 *                the DOS from the very sites whose geometric mean is typical_dos, so that
 *                typical_dos / ldos compares like with like).  Observables are declared
 *                statically, so the curve exists in every run; it cannot be left out.
 *
 * Random numbers.  Three streams, all fixed by the run's seed and the chain index:
 *   - the chain's own stream (the core's rng, handed to create() and propose()): the
 *     initial realization and the key of every later one;
 *   - (key, ANDERSON_DISORDER_STREAM) for each key: the on-site energies of one realization;
 *   - the measurement stream (seed, ANDERSON_MEASURE_STREAM + chain_index), kept in the
 *     chain (measure() is handed no rng): the sampled sites of typical_dos and the random
 *     vectors of a stochastic evaluator.  It is saved in checkpoints.
 *
 * Checkpoint record (host byte order): magic "AND1", int32 lattice kind, int32 boundary,
 * int64 L, int64 N, N doubles eps_i, uint64 realizations drawn, the measurement mcf_rng.
 * load() checks kind, boundary, L and N against the chain's parameters and that every
 * eps_i is finite and inside [-W/2, W/2]. */
#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Stream indices: chain k of the core uses stream k of the run's seed (k < 2^62). */
#define ANDERSON_MEASURE_STREAM (UINT64_C(1) << 62)
#define ANDERSON_DISORDER_STREAM (UINT64_C(1) << 63)

/* The LDOS is clamped at this floor before its logarithm is taken, only to keep
 * log rho_i(E) finite: a kernel-broadened LDOS is positive in exact arithmetic (Jackson
 * and Lorentz kernels), but where it is tiny (far from every level of a localized site) the
 * Chebyshev sum may round to 0 or a slightly negative value, and with kernel = none it
 * oscillates around 0.  A clamped value enters as log(1e-300) = -690.8, so a kernel that
 * goes negative drags the typical DOS down: use jackson (or lorentz) for typical_dos. */
#define ANDERSON_LDOS_FLOOR 1e-300

static const char anderson_magic[4] = {'A', 'N', 'D', '1'};

static const mcf_param_spec anderson_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "cubic", MCF_PARAM_NO_SCAN, 0, 0, "square|cubic|bcc",
     "lattice: square (L^2 sites, z = 4), simple cubic (L^3, z = 6) or bcc (2 L^3, z = 8)"},
    {"L", MCF_PARAM_INT, "16", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "linear size in conventional cells"},
    {"W", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "disorder strength: on-site energies uniform in [-W/2, W/2] (W_c = 16.5 t, cubic)"},
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "nearest-neighbour hopping, H_ij = -t"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     "boundary conditions of the lattice"},
    {"typical_sites", MCF_PARAM_INT, "32", MCF_PARAM_HAS_MIN, 1, 0, NULL,
     "distinct sites sampled per realization for typical_dos (at most the number of sites)"},
    {"ldos_sites", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "space-separated site indices whose mean LDOS is the curve ldos (none: the sampled "
     "typical_dos sites)"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

/* positions in anderson_observables; every curve has the evaluator's `points` values */
enum { OBS_DOS = 0, OBS_TYPICAL = 1, OBS_LDOS = 2 };

static const mcf_observable_spec anderson_observables[] = {
    {"dos", MCF_ROLE_NONE, "density of states per state, 1/energy", "E", 0},
    {"typical_dos", MCF_ROLE_NONE,
     "typical DOS exp<log rho_i(E)>, geometric mean of the LDOS over sites and realizations",
     "E", MCF_OBS_GEOMETRIC_MEAN},
    {"ldos", MCF_ROLE_NONE,
     "mean LDOS of the ldos_sites (none: of the sampled typical_dos sites), 1/energy", "E", 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

typedef struct anderson_move {
    uint64_t key; /* the Philox key of the new realization */
} anderson_move;

typedef struct anderson_chain {
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    long L;
    size_t n;                    /* sites */
    double W, t;
    uint64_t chain_index;
    mcf_hamiltonian *h;
    const mcf_fermion_ops *ev;   /* the evaluator's ops (static storage of the plugin) */
    const char *ev_name;
    void *ws;                    /* the evaluator's workspace, bound to h */
    size_t points;               /* energy grid */
    double *E;
    mcf_rng mrng;                /* the measurement stream */
    uint64_t realizations;       /* realizations drawn so far, the initial one included */
    size_t n_typical, n_ldos;    /* sampled sites; listed sites */
    size_t *rows;                /* n_typical sampled, then the n_ldos listed sites */
    unsigned char *mark;         /* n: scratch for sampling without replacement */
    double *ldos_buf;            /* (n_typical + n_ldos) x points */
} anderson_chain;

/* Draws the on-site energies of the realization with Philox key `key` into h. */
static int anderson_install(anderson_chain *c, uint64_t key)
{
    mcf_rng r;
    mcf_rng_init(&r, key, ANDERSON_DISORDER_STREAM);
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
        c->ev->destroy(c->ws);
    mcf_hamiltonian_destroy(c->h);
    free(c->E);
    free(c->rows);
    free(c->mark);
    free(c->ldos_buf);
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
    long L, n_typical;
    double W, t;
    const char *lattice_name, *boundary_name, *sites_text;
    int rc;
    if ((rc = mcf_params_string(params, "lattice", &lattice_name)) ||
        (rc = mcf_params_int(params, "L", &L)) || (rc = mcf_params_real(params, "W", &W)) ||
        (rc = mcf_params_real(params, "t", &t)) ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)) ||
        (rc = mcf_params_int(params, "typical_sites", &n_typical)) ||
        (rc = mcf_params_string(params, "ldos_sites", &sites_text)))
        return mcf_fail_prefix(rc, "anderson");
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (!isfinite(W) || W < 0)
        return mcf_fail(MCF_EINVAL,
                        "anderson: [%s] W = %g in %s: the disorder strength must be a finite "
                        "number >= 0 (on-site energies are uniform in [-W/2, W/2])",
                        sec, W, origin);
    if (!isfinite(t))
        return mcf_fail(MCF_EINVAL, "anderson: [%s] t = %g in %s must be a finite number", sec,
                        t, origin);
    if (t == 0 && W == 0)
        return mcf_fail(MCF_EINVAL,
                        "anderson: [%s] t = 0 and W = 0 in %s: the Hamiltonian is zero and its "
                        "spectrum a single point, so there is no density of states to compute; "
                        "set t != 0 or W > 0",
                        sec, origin);
    if (n_typical < 1)
        return mcf_fail(MCF_EINVAL, "anderson: [%s] typical_sites = %ld in %s must be >= 1",
                        sec, n_typical, origin);
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    if ((rc = mcf_lattice_kind_from_name(lattice_name, &kind)))
        return mcf_fail_prefix(rc, "anderson: [%s] lattice", sec);
    if ((rc = mcf_boundary_from_name(boundary_name, &boundary)))
        return mcf_fail_prefix(rc, "anderson: [%s] boundary", sec);

    /* the evaluator: a fermion evaluator is what computes every observable */
    const mcf_plugin_info *ev_info =
        services->struct_size >= offsetof(mcf_services, evaluator_params) +
                                     sizeof services->evaluator_params
            ? services->evaluator
            : NULL;
    if (!ev_info)
        return mcf_fail(MCF_EINVAL,
                        "anderson: %s names no evaluator, but the Anderson model computes its "
                        "DOS, typical DOS and LDOS with a fermion evaluator; set [run] "
                        "evaluator = kpm (or ed for small lattices)",
                        origin);
    if (ev_info->kind != MCF_PLUGIN_FERMION_EVALUATOR)
        return mcf_fail(MCF_EINVAL,
                        "anderson: [run] evaluator = %s in %s is not a fermion evaluator; set "
                        "[run] evaluator = kpm (or ed)",
                        ev_info->name, origin);
    const mcf_fermion_ops *ev = ev_info->ops;
    if (!ev || ev->struct_size < offsetof(mcf_fermion_ops, ldos) + sizeof ev->ldos ||
        !ev->create || !ev->destroy || !ev->energy_points || !ev->energies || !ev->dos ||
        !ev->ldos)
        return mcf_fail(MCF_EPLUGIN,
                        "anderson: the evaluator %s lacks the DOS/LDOS operations this model "
                        "needs; choose [run] evaluator = kpm (or ed)",
                        ev_info->name);

    mcf_lattice *lat = NULL;
    if ((rc = mcf_lattice_create(kind, L, boundary, &lat)))
        return mcf_fail_prefix(rc, "anderson: [%s] lattice = %s, L = %ld in %s", sec,
                               lattice_name, L, origin);
    if (lat->sites > (size_t)INT32_MAX) {
        size_t sites = lat->sites;
        mcf_lattice_destroy(lat);
        return mcf_fail(MCF_EINVAL, "anderson: [%s] L = %ld in %s gives %zu sites, too many "
                        "for the Hamiltonian's 32-bit column indices", sec, L, origin, sites);
    }
    if ((size_t)n_typical > lat->sites) {
        size_t sites = lat->sites;
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
    c->kind = kind;
    c->boundary = boundary;
    c->L = L;
    c->n = lat->sites;
    c->W = W;
    c->t = t;
    c->chain_index = services->chain_index;
    c->ev = ev;
    c->ev_name = ev_info->name;
    c->n_typical = (size_t)n_typical;
    mcf_rng_init(&c->mrng, services->seed, ANDERSON_MEASURE_STREAM + services->chain_index);

    size_t *listed = NULL;
    rc = anderson_parse_sites(params, sites_text, c->n, lattice_name, L, &listed, &c->n_ldos);
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
    if ((rc = anderson_hopping(c, lat)))
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
    /* the initial realization, from the chain's stream */
    if ((rc = anderson_install(c, mcf_rng_u64(rng))))
        goto fail;
    c->realizations = 1;
    if ((rc = mcf_hamiltonian_check(c->h))) {
        rc = mcf_fail_prefix(rc, "anderson: the Hamiltonian is malformed (a bug, please report "
                             "it)");
        goto fail;
    }

    if ((rc = ev->create(services->evaluator_params, c->h, &c->ws))) {
        c->ws = NULL;
        rc = mcf_fail_prefix(rc, "anderson: evaluator %s", c->ev_name);
        goto fail;
    }
    c->points = ev->energy_points(c->ws);
    if (c->points == 0) {
        rc = mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s has an empty energy grid",
                      c->ev_name);
        goto fail;
    }
    c->E = malloc(c->points * sizeof *c->E);
    c->ldos_buf = malloc(n_rows * c->points * sizeof *c->ldos_buf);
    if (!c->E || !c->ldos_buf) {
        rc = mcf_fail(MCF_ENOMEM, "anderson: out of memory for %zu LDOS curves of %zu points",
                      n_rows, c->points);
        goto fail;
    }
    if ((rc = ev->energies(c->ws, c->E))) {
        rc = mcf_fail_prefix(rc, "anderson: evaluator %s: energy grid", c->ev_name);
        goto fail;
    }
    for (size_t e = 0; e < c->points; e++)
        if (!isfinite(c->E[e]) || (e && !(c->E[e] > c->E[e - 1]))) {
            rc = mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s: its energy grid is not finite "
                          "and ascending at point %zu (E = %g)", c->ev_name, e, c->E[e]);
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

static size_t anderson_units(const void *chain)
{
    (void)chain;
    return 1;
}

static int anderson_propose(void *chain, mcf_rng *rng, void *move)
{
    (void)chain;
    ((anderson_move *)move)->key = mcf_rng_u64(rng);
    return MCF_OK;
}

/* Every realization is an independent draw: the move is always accepted. */
static int anderson_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    (void)chains;
    (void)moves;
    for (size_t k = 0; k < n; k++)
        out[k] = 0.0;
    return MCF_OK;
}

static int anderson_accept(void *chain, const void *move)
{
    anderson_chain *c = chain;
    int rc = anderson_install(c, ((const anderson_move *)move)->key);
    if (rc)
        return rc;
    c->realizations++;
    return MCF_OK;
}

static void anderson_reject(void *chain, const void *move)
{
    (void)chain;
    (void)move;
}

static size_t anderson_curve_points(const void *chain, size_t index, double *axis)
{
    const anderson_chain *c = chain;
    (void)index; /* every curve lives on the evaluator's grid */
    if (axis)
        memcpy(axis, c->E, c->points * sizeof *axis);
    return c->points;
}

/* Draws c->n_typical distinct sites uniformly into c->rows[0..n_typical) (Floyd's
 * algorithm: every subset equally likely), from the measurement stream.  All sites, in
 * order, when n_typical = N (nothing to sample). */
static void anderson_sample_sites(anderson_chain *c)
{
    const size_t k = c->n_typical, n = c->n;
    if (k == n) {
        for (size_t i = 0; i < n; i++)
            c->rows[i] = i;
        return;
    }
    size_t m = 0;
    for (size_t j = n - k; j < n; j++) {
        size_t s = (size_t)mcf_rng_below(&c->mrng, (uint64_t)j + 1);
        if (c->mark[s])
            s = j;
        c->mark[s] = 1;
        c->rows[m++] = s;
    }
    for (size_t q = 0; q < k; q++)
        c->mark[c->rows[q]] = 0;
}

/* Turns the LDOS curves in c->ldos_buf into the typical_dos and ldos values. */
static int anderson_reduce(const anderson_chain *c, double *values)
{
    const size_t P = c->points, S = c->n_typical;
    const double *buf = c->ldos_buf;
    const double *dos = values + OBS_DOS * P;
    double *typical = values + OBS_TYPICAL * P, *ldos = values + OBS_LDOS * P;
    for (size_t e = 0; e < P; e++) {
        if (!isfinite(dos[e]))
            return mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s returned DOS = %g at E = %g "
                            "(chain %llu, realization %llu)", c->ev_name, dos[e], c->E[e],
                            (unsigned long long)c->chain_index,
                            (unsigned long long)c->realizations);
    }
    for (size_t j = 0; j < S + c->n_ldos; j++)
        for (size_t e = 0; e < P; e++)
            if (!isfinite(buf[j * P + e]))
                return mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s returned LDOS = %g at "
                                "site %zu, E = %g (chain %llu, realization %llu)", c->ev_name,
                                buf[j * P + e], c->rows[j], c->E[e],
                                (unsigned long long)c->chain_index,
                                (unsigned long long)c->realizations);
    for (size_t e = 0; e < P; e++) {
        double sum_log = 0, sum = 0;
        for (size_t j = 0; j < S; j++) {
            const double x = buf[j * P + e];
            sum_log += log(x > ANDERSON_LDOS_FLOOR ? x : ANDERSON_LDOS_FLOOR);
            sum += x;
        }
        typical[e] = sum_log / (double)S;
        if (c->n_ldos) {
            sum = 0;
            for (size_t j = S; j < S + c->n_ldos; j++)
                sum += buf[j * P + e];
            ldos[e] = sum / (double)c->n_ldos;
        } else {
            ldos[e] = sum / (double)S;
        }
    }
    return MCF_OK;
}

/* One evaluator call for all chains of the batch (a GPU evaluator gets them at once); the
 * LDOS call groups chains by their row count, which differs only when typical_sites is a
 * scan axis. */
static int anderson_measure_batch(void *const *chains, size_t n, double *const *values)
{
    if (n == 0)
        return MCF_OK;
    void **ws = calloc(n, sizeof *ws);
    mcf_rng **rngs = calloc(n, sizeof *rngs);
    double **out = calloc(n, sizeof *out);
    const size_t **rows = calloc(n, sizeof *rows);
    unsigned char *done = calloc(n, 1);
    int rc = MCF_OK;
    if (!ws || !rngs || !out || !rows || !done) {
        rc = mcf_fail(MCF_ENOMEM, "anderson: out of memory measuring %zu chains", n);
        goto out;
    }
    const mcf_fermion_ops *ev = ((anderson_chain *)chains[0])->ev;
    for (size_t k = 0; k < n; k++)
        if (((anderson_chain *)chains[k])->ev != ev) {
            rc = mcf_fail(MCF_EINTERNAL, "anderson: chains of one batch use different "
                          "evaluators (a bug, please report it)");
            goto out;
        }
    /* per chain, from its measurement stream: first the sampled sites, then (inside the
     * evaluator's dos()) the random vectors; so each stream advances the same way whatever
     * the batch.  The LDOS comes first: an exact evaluator then diagonalizes once, for the
     * eigenvectors, and dos() reuses the eigenvalues. */
    for (size_t k = 0; k < n; k++)
        anderson_sample_sites(chains[k]);
    for (size_t first = 0; first < n; first++) {
        if (done[first])
            continue;
        const size_t n_rows = ((anderson_chain *)chains[first])->n_typical +
                              ((anderson_chain *)chains[first])->n_ldos;
        size_t m = 0;
        for (size_t k = first; k < n; k++) {
            anderson_chain *c = chains[k];
            if (done[k] || c->n_typical + c->n_ldos != n_rows)
                continue;
            done[k] = 1;
            ws[m] = c->ws;
            rows[m] = c->rows;
            out[m] = c->ldos_buf;
            m++;
        }
        rc = ev->ldos(ws, m, rows, n_rows, out);
        if (rc) {
            rc = mcf_fail_prefix(rc, "anderson: evaluator %s: LDOS",
                                 ((anderson_chain *)chains[first])->ev_name);
            goto out;
        }
    }
    for (size_t k = 0; k < n; k++) {
        anderson_chain *c = chains[k];
        ws[k] = c->ws;
        rngs[k] = &c->mrng;
        out[k] = values[k] + OBS_DOS * c->points;
    }
    rc = ev->dos(ws, n, rngs, out);
    if (rc) {
        rc = mcf_fail_prefix(rc, "anderson: evaluator %s: DOS",
                             ((anderson_chain *)chains[0])->ev_name);
        goto out;
    }
    for (size_t k = 0; k < n; k++)
        if ((rc = anderson_reduce(chains[k], values[k])))
            goto out;
out:
    free(ws);
    free(rngs);
    free(out);
    free(rows);
    free(done);
    return rc;
}

static int anderson_measure(void *chain, double *values)
{
    void *const chains[1] = {chain};
    double *const rows[1] = {values};
    return anderson_measure_batch(chains, 1, rows);
}

static int anderson_save(const void *chain, mcf_stream *out)
{
    const anderson_chain *c = chain;
    const int32_t head[2] = {(int32_t)c->kind, (int32_t)c->boundary};
    const int64_t L = c->L, n = (int64_t)c->n;
    int rc;
    if ((rc = mcf_stream_write(out, anderson_magic, sizeof anderson_magic)) ||
        (rc = mcf_stream_write(out, head, sizeof head)) ||
        (rc = mcf_stream_write(out, &L, sizeof L)) ||
        (rc = mcf_stream_write(out, &n, sizeof n)) ||
        (rc = mcf_stream_write(out, c->h->onsite, c->n * sizeof *c->h->onsite)) ||
        (rc = mcf_stream_write(out, &c->realizations, sizeof c->realizations)) ||
        (rc = mcf_stream_write(out, &c->mrng, sizeof c->mrng)))
        return mcf_fail_prefix(rc, "anderson: saving the chain");
    return MCF_OK;
}

static int anderson_load(void *chain, mcf_stream *in)
{
    anderson_chain *c = chain;
    char magic[4];
    int32_t head[2];
    int64_t L, n;
    int rc;
    if ((rc = mcf_stream_read(in, magic, sizeof magic)))
        return mcf_fail_prefix(rc, "anderson: loading the chain");
    if (memcmp(magic, anderson_magic, sizeof magic) != 0)
        return mcf_fail(MCF_EFORMAT, "anderson: the checkpoint record is not an anderson chain "
                                     "(bad magic); was it written by another model?");
    if ((rc = mcf_stream_read(in, head, sizeof head)) || (rc = mcf_stream_read(in, &L, sizeof L)) ||
        (rc = mcf_stream_read(in, &n, sizeof n)))
        return mcf_fail_prefix(rc, "anderson: loading the chain");
    if (head[0] != (int32_t)c->kind || head[1] != (int32_t)c->boundary || L != c->L ||
        n != (int64_t)c->n)
        return mcf_fail(MCF_EFORMAT,
                        "anderson: the checkpoint's lattice (kind %d, boundary %d, L = %lld, "
                        "%lld sites) does not match the configuration's (kind %d, boundary %d, "
                        "L = %ld, %zu sites); resume with the configuration the run was "
                        "started with",
                        (int)head[0], (int)head[1], (long long)L, (long long)n, (int)c->kind,
                        (int)c->boundary, c->L, c->n);
    double *eps = malloc(c->n * sizeof *eps);
    if (!eps)
        return mcf_fail(MCF_ENOMEM, "anderson: out of memory loading the chain");
    uint64_t realizations;
    mcf_rng mrng;
    if ((rc = mcf_stream_read(in, eps, c->n * sizeof *eps)) ||
        (rc = mcf_stream_read(in, &realizations, sizeof realizations)) ||
        (rc = mcf_stream_read(in, &mrng, sizeof mrng))) {
        free(eps);
        return mcf_fail_prefix(rc, "anderson: loading the chain");
    }
    for (size_t i = 0; i < c->n; i++)
        if (!isfinite(eps[i]) || fabs(eps[i]) > 0.5 * c->W) {
            const double bad = eps[i];
            free(eps);
            return mcf_fail(MCF_EFORMAT,
                            "anderson: the checkpoint has on-site energy %g at site %zu, outside "
                            "[-W/2, W/2] with W = %g (the checkpoint is corrupt or from another "
                            "configuration)",
                            bad, i, c->W);
        }
    if (mrng.used > 4) {
        free(eps);
        return mcf_fail(MCF_EFORMAT, "anderson: the checkpoint's measurement stream is corrupt");
    }
    for (size_t i = 0; i < c->n; i++)
        if ((rc = mcf_hamiltonian_set_onsite(c->h, i, eps[i]))) {
            free(eps);
            return mcf_fail_prefix(rc, "anderson: loading the chain");
        }
    free(eps);
    c->realizations = realizations;
    c->mrng = mrng;
    return MCF_OK;
}

static const mcf_model_ops anderson_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(anderson_move),
    .observables = anderson_observables,
    .create = anderson_create,
    .destroy = anderson_destroy,
    .units = anderson_units,
    .begin_sweep = NULL,
    .propose = anderson_propose,
    .log_ratio = anderson_log_ratio,
    .accept = anderson_accept,
    .reject = anderson_reject,
    .measure = anderson_measure,
    .save = anderson_save,
    .load = anderson_load,
    .adapt = NULL,
    .curve_points = anderson_curve_points,
    .measure_batch = anderson_measure_batch,
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
};

static const mcf_plugin_info anderson_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "anderson",
    .version = "1.0",
    .summary = "Anderson model of disorder: DOS, typical DOS and LDOS over disorder "
               "realizations (needs a fermion evaluator)",
    .params = anderson_params,
    .ops = &anderson_ops,
};

MCF_PLUGIN(anderson_info)
