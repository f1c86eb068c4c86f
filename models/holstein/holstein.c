/* holstein.c — the adiabatic Holstein model: classical lattice displacements x_i coupled to
 * spinless fermions on a square or simple cubic lattice, grand canonical at (T, mu),
 *
 *     H = -t sum_<ij> (c+_i c_j + h.c.) - g sum_i x_i (n_i - 1/2) + (k/2) sum_i x_i^2.
 *
 * Weight.  Tracing out the fermions, w(x) = exp(-E_cl / T - S_eff) with
 *     E_cl  = sum_i [(k/2) x_i^2 + (g/2) x_i],
 *     S_eff = -sum_nu log(1 + exp(-(eps_nu - mu) / T)),
 * eps_nu the eigenvalues of h(x): hopping -t between nearest neighbours (row i = site i,
 * one bond written once from its even neighbour slot) and on-site -g x_i.  Bounds are
 * Gershgorin's (x is unbounded).  At mu = 0 on a bipartite lattice (even L if periodic)
 * the weight is even in x: half filling.
 *
 * Move.  A site i uniform (units = sites), x_i' = x_i + delta (2u - 1): symmetric, so the
 * log-ratio is -dE_cl / T - dS, dS from the evaluator's change_action for the rank-1 change
 * -g (x_i' - x_i) of row i, all chains of a log_ratio batch in one call.  delta is adapted
 * while thermalizing as double-exchange adapts its cap: delta *= clamp(acceptance / 0.5,
 * 1/2, 2), kept in [1e-4, 1e4]; it is part of the checkpoint.  accept() writes the row's
 * new on-site energy (mcf_hamiltonian_set_onsite, from x_i', never incremented).
 *
 * Observables (per site): energy = (E_cl + sum_nu eps_nu f(eps_nu)) / N from the
 * evaluator's occupation (per state; dim = N), the staggered displacement m = sum_i s_i x_i
 * / N (s_i = (-1)^(x+y+z): the checkerboard CDW) as |m|, m^2, m^4, x_mean, x2_mean and the
 * density.  A stochastic evaluator's random vectors come from the chain's measurement
 * stream (seed, HO_MEASURE_STREAM + chain), which is saved.
 *
 * Checkpoint record: "HOL1", int64 N, double delta, N doubles x, the measurement stream.
 * load() rebuilds the diagonal of H from x. */
#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HO_MEASURE_STREAM ((UINT64_C(1) << 62) + (UINT64_C(1) << 59))
#define HO_DELTA_MIN 1e-4
#define HO_DELTA_MAX 1e4

static const char ho_magic[4] = {'H', 'O', 'L', '1'};

static const mcf_param_spec ho_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "square", MCF_PARAM_NO_SCAN, 0, 0, "square|cubic",
     "square (L^2 sites) or simple cubic (L^3 sites)"},
    {"L", MCF_PARAM_INT, "4", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "linear size; L >= 3 when periodic; even L for the checkerboard order"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     "boundary conditions"},
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "nearest-neighbour hopping (0: isolated sites)"},
    {"g", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "electron-phonon coupling, -g x_i (n_i - 1/2)"},
    {"k", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "lattice stiffness, (k/2) x_i^2"},
    {"mu", MCF_PARAM_REAL, "0", 0, 0, 0, NULL, "chemical potential; 0 = half filling"},
    {"delta", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, HO_DELTA_MIN,
     HO_DELTA_MAX, NULL, "initial half-width of the displacement move, adapted toward "
     "acceptance 0.5 while thermalizing"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|zero",
     "initial x_i: independent Gaussians of variance T/k (the g = 0 equilibrium), or 0"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

enum { OBS_ENERGY, OBS_ABS_M, OBS_M2, OBS_M4, OBS_X, OBS_X2, OBS_DENSITY };

static const mcf_observable_spec ho_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "(E_cl + fermion band energy) / N, units of t", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "|m|, m = sum_i (-1)^(x+y+z) x_i / N (checkerboard CDW)", NULL,
     0},
    {"m2", MCF_ROLE_ORDER2, "m^2", NULL, 0},
    {"m4", MCF_ROLE_ORDER4, "m^4", NULL, 0},
    {"x_mean", MCF_ROLE_NONE, "sum_i x_i / N", NULL, 0},
    {"x2_mean", MCF_ROLE_NONE, "sum_i x_i^2 / N", NULL, 0},
    {"density", MCF_ROLE_NONE, "electrons per site, sum_nu f(eps_nu) / N", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

typedef struct ho_move {
    int64_t site;
    double x_new;
    mcf_change change; /* -g (x_new - x_old) on row site */
} ho_move;

typedef struct ho_chain {
    mcf_lattice *lat;
    size_t n;
    double g, k, mu, T, delta;
    double *x;
    mcf_hamiltonian *h;
    const mcf_fermion_ops *ev;
    const char *ev_name;
    void *ws;
    mcf_rng mrng;
    size_t cap;    /* log_ratio's batch scratch (in the batch's first chain) */
    void *scratch; /* cap x (ws, change, T, mu, dS, err) */
} ho_chain;

static double ho_stagger(const mcf_lattice *lat, size_t i)
{
    const double *p = lat->positions + 3 * i;
    return (lround(p[0]) + lround(p[1]) + lround(p[2])) % 2 ? -1.0 : 1.0;
}

static void ho_destroy(void *chain)
{
    ho_chain *c = chain;
    if (!c)
        return;
    if (c->ws)
        c->ev->destroy(c->ws);
    mcf_hamiltonian_destroy(c->h);
    mcf_lattice_destroy(c->lat);
    free(c->x);
    free(c->scratch);
    free(c);
}

/* The evaluator of services, refused unless it has change_action and occupation. */
static int ho_evaluator(const mcf_services *s, const char *origin, const mcf_plugin_info **out)
{
    const mcf_plugin_info *e =
        s->struct_size >= offsetof(mcf_services, evaluator_params) + sizeof s->evaluator_params
            ? s->evaluator : NULL;
    const mcf_fermion_ops *ops = e && e->kind == MCF_PLUGIN_FERMION_EVALUATOR ? e->ops : NULL;
    const char *why = !e ? "gives no fermion evaluator, which every move needs"
                      : !ops ? "is not a fermion evaluator"
                      : ops->struct_size < offsetof(mcf_fermion_ops, change_action) +
                                               sizeof ops->change_action ||
                              !ops->change_action || !ops->occupation
                          ? "lacks change_action (the action change of a move) or occupation"
                          : NULL;
    if (why)
        return mcf_fail(MCF_EINVAL, "holstein: [run] evaluator = %s in %s %s; set [run] "
                        "evaluator = kpm (or ed for small lattices)", e ? e->name : "none",
                        origin, why);
    *out = e;
    return MCF_OK;
}

static int ho_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **chain)
{
    long L;
    double t, g, k, mu, delta, T;
    const char *lattice, *boundary, *start, *origin = mcf_params_origin(params);
    const mcf_plugin_info *ev = NULL;
    mcf_lattice_kind kind;
    mcf_boundary bc;
    int rc;
    if ((rc = mcf_params_string(params, "lattice", &lattice)) ||
        (rc = mcf_params_int(params, "L", &L)) ||
        (rc = mcf_params_string(params, "boundary", &boundary)) ||
        (rc = mcf_params_real(params, "t", &t)) || (rc = mcf_params_real(params, "g", &g)) ||
        (rc = mcf_params_real(params, "k", &k)) || (rc = mcf_params_real(params, "mu", &mu)) ||
        (rc = mcf_params_real(params, "delta", &delta)) ||
        (rc = mcf_params_string(params, "start", &start)) ||
        (rc = mcf_params_temperature(params, &T)) ||
        (rc = mcf_lattice_kind_from_name(lattice, &kind)) ||
        (rc = mcf_boundary_from_name(boundary, &bc)))
        return mcf_fail_prefix(rc, "holstein");
    if (!(T > 0) || !isfinite(T))
        return mcf_fail(MCF_EINVAL, "holstein: T = %g in %s: the weight needs a finite T > 0; "
                        "fix [schedule] temperatures", T, origin);
    if (bc == MCF_BOUNDARY_PERIODIC && L < 3)
        return mcf_fail(MCF_EINVAL, "holstein: [model] L = 2 in %s with periodic boundaries "
                        "lists a neighbour twice; use L >= 3 or boundary = open", origin);
    if ((rc = ho_evaluator(services, origin, &ev)))
        return rc;
    ho_chain *c = calloc(1, sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "holstein: out of memory");
    *c = (ho_chain){.g = g, .k = k, .mu = mu, .T = T, .delta = delta, .ev = ev->ops,
                    .ev_name = ev->name};
    mcf_rng_init(&c->mrng, services->seed, HO_MEASURE_STREAM + services->chain_index);
    if ((rc = mcf_lattice_create(kind, L, bc, &c->lat)))
        goto fail;
    c->n = c->lat->sites;
    const int z = c->lat->coordination;
    if (!(c->x = malloc(c->n * sizeof *c->x))) {
        rc = mcf_fail(MCF_ENOMEM, "holstein: out of memory for %zu sites", c->n);
        goto fail;
    }
    if ((rc = mcf_hamiltonian_create(c->n, 1, z, &c->h)))
        goto fail;
    for (size_t i = 0; i < c->n; i++) {
        c->x[i] = strcmp(start, "zero") ? sqrt(T / k) * mcf_rng_normal(rng) : 0.0;
        for (int s = 0; s < z; s += 2) { /* even slots: every bond once */
            const int32_t j = c->lat->neighbours[i * (size_t)z + (size_t)s];
            if (j >= 0 && (rc = mcf_hamiltonian_set(c->h, i, (size_t)j, -t, 0.0)))
                goto fail;
        }
        if ((rc = mcf_hamiltonian_set_onsite(c->h, i, -g * c->x[i])))
            goto fail;
    }
    if ((rc = c->ev->create(services->evaluator_params, c->h, &c->ws))) {
        c->ws = NULL;
        goto fail;
    }
    *chain = c;
    return MCF_OK;
fail:
    ho_destroy(c);
    return mcf_fail_prefix(rc, "holstein: creating the chain (%s L = %ld)", lattice, L);
}

static size_t ho_units(const void *chain)
{
    return ((const ho_chain *)chain)->n;
}

static int ho_propose(void *chain, mcf_rng *rng, void *move)
{
    const ho_chain *c = chain;
    ho_move *m = move;
    const size_t i = (size_t)mcf_rng_below(rng, c->n);
    m->site = (int64_t)i;
    m->x_new = c->x[i] + c->delta * (2.0 * mcf_rng_uniform(rng) - 1.0);
    mcf_change_onsite(&m->change, i, -c->g * m->x_new - -c->g * c->x[i]);
    return MCF_OK;
}

static int ho_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    if (n == 0)
        return MCF_OK;
    ho_chain *c0 = chains[0];
    const ho_move *mv = moves;
    if (n > c0->cap) {
        void *p = realloc(c0->scratch, n * (2 * sizeof(void *) + 4 * sizeof(double)));
        if (!p)
            return mcf_fail(MCF_ENOMEM, "holstein: out of memory for a batch of %zu", n);
        c0->scratch = p;
        c0->cap = n;
    }
    void **ws = c0->scratch;
    const mcf_change **ch = (const mcf_change **)(ws + n);
    double *T = (double *)(ch + n), *mu = T + n, *dS = mu + n, *err = dS + n;
    for (size_t q = 0; q < n; q++) {
        const ho_chain *c = chains[q];
        ws[q] = c->ws;
        ch[q] = &mv[q].change;
        T[q] = c->T;
        mu[q] = c->mu;
    }
    int rc = c0->ev->change_action(ws, n, ch, T, mu, dS, err);
    if (rc)
        return mcf_fail_prefix(rc, "holstein: evaluator %s: change_action", c0->ev_name);
    for (size_t q = 0; q < n; q++) {
        const ho_chain *c = chains[q];
        const double x0 = c->x[mv[q].site], x1 = mv[q].x_new;
        const double dE = 0.5 * c->k * (x1 * x1 - x0 * x0) + 0.5 * c->g * (x1 - x0);
        out[q] = -dE / c->T - dS[q];
    }
    return MCF_OK;
}

static int ho_accept(void *chain, const void *move)
{
    ho_chain *c = chain;
    const ho_move *m = move;
    c->x[m->site] = m->x_new;
    return mcf_hamiltonian_set_onsite(c->h, (size_t)m->site, -c->g * m->x_new);
}

static void ho_reject(void *chain, const void *move)
{
    (void)chain;
    (void)move;
}

static void ho_adapt(void *chain, double acceptance)
{
    ho_chain *c = chain;
    c->delta *= fmin(fmax(acceptance / 0.5, 0.5), 2.0);
    c->delta = fmin(fmax(c->delta, HO_DELTA_MIN), HO_DELTA_MAX);
}

static int ho_measure(void *chain, double *v)
{
    ho_chain *c = chain;
    mcf_rng *rngs[1] = {&c->mrng};
    double dens, band, ecl = 0, m = 0, x1 = 0, x2 = 0;
    int rc = c->ev->occupation(&c->ws, 1, rngs, c->mu, c->T, &dens, &band);
    if (rc)
        return mcf_fail_prefix(rc, "holstein: evaluator %s: occupation", c->ev_name);
    for (size_t i = 0; i < c->n; i++) {
        const double x = c->x[i];
        ecl += 0.5 * c->k * x * x + 0.5 * c->g * x;
        m += ho_stagger(c->lat, i) * x;
        x1 += x;
        x2 += x * x;
    }
    const double N = (double)c->n;
    m /= N;
    v[OBS_ENERGY] = ecl / N + band; /* band energy and density are per state, dim = N */
    v[OBS_ABS_M] = fabs(m);
    v[OBS_M2] = m * m;
    v[OBS_M4] = m * m * m * m;
    v[OBS_X] = x1 / N;
    v[OBS_X2] = x2 / N;
    v[OBS_DENSITY] = dens;
    return MCF_OK;
}

static int ho_save(const void *chain, mcf_stream *out)
{
    const ho_chain *c = chain;
    const int64_t n = (int64_t)c->n;
    int rc;
    if ((rc = mcf_stream_write(out, ho_magic, sizeof ho_magic)) ||
        (rc = mcf_stream_write(out, &n, sizeof n)) ||
        (rc = mcf_stream_write(out, &c->delta, sizeof c->delta)) ||
        (rc = mcf_stream_write(out, c->x, c->n * sizeof *c->x)) ||
        (rc = mcf_stream_write(out, &c->mrng, sizeof c->mrng)))
        return mcf_fail_prefix(rc, "holstein: saving the chain");
    return MCF_OK;
}

static int ho_load(void *chain, mcf_stream *in)
{
    ho_chain *c = chain;
    char magic[4];
    int64_t n;
    int rc;
    if ((rc = mcf_stream_read(in, magic, sizeof magic)) ||
        (rc = mcf_stream_read(in, &n, sizeof n)))
        return mcf_fail_prefix(rc, "holstein: loading the chain");
    if (memcmp(magic, ho_magic, sizeof magic) || n != (int64_t)c->n)
        return mcf_fail(MCF_EFORMAT, "holstein: the checkpoint record is not a holstein chain "
                        "of %zu sites; resume with the configuration the run was started with",
                        c->n);
    if ((rc = mcf_stream_read(in, &c->delta, sizeof c->delta)) ||
        (rc = mcf_stream_read(in, c->x, c->n * sizeof *c->x)) ||
        (rc = mcf_stream_read(in, &c->mrng, sizeof c->mrng)))
        return mcf_fail_prefix(rc, "holstein: loading the chain");
    if (!(c->delta >= HO_DELTA_MIN && c->delta <= HO_DELTA_MAX) || c->mrng.used > 4)
        return mcf_fail(MCF_EFORMAT, "holstein: the checkpoint's step or stream is corrupt");
    for (size_t i = 0; i < c->n; i++)
        if ((rc = mcf_hamiltonian_set_onsite(c->h, i, -c->g * c->x[i]))) /* refuses NaN, inf */
            return mcf_fail(MCF_EFORMAT, "holstein: the checkpoint's x_%zu = %g is corrupt", i,
                            c->x[i]);
    return MCF_OK;
}

static const mcf_model_ops ho_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(ho_move),
    .observables = ho_observables,
    .create = ho_create,
    .destroy = ho_destroy,
    .units = ho_units,
    .propose = ho_propose,
    .log_ratio = ho_log_ratio,
    .accept = ho_accept,
    .reject = ho_reject,
    .measure = ho_measure,
    .save = ho_save,
    .load = ho_load,
    .adapt = ho_adapt,
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
};

static const mcf_plugin_info ho_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "holstein",
    .version = "1.0",
    .summary = "adiabatic Holstein model: classical displacements and spinless fermions, "
               "weight exp(-E_cl/T - S_eff) from a fermion evaluator (kpm, kpm-cuda or ed)",
    .params = ho_params,
    .ops = &ho_ops,
};

MCF_PLUGIN(ho_info)
