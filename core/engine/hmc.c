/* hmc.c — hybrid Monte Carlo, the core's global sampler ([run] sampler = hmc; mcf 1.1).
 *
 * A sweep of a group is one trajectory per chain.  The model gives its coordinates
 * (mcf_model.coordinates: unit 3- or 4-vectors or reals, moved in place in the chain's own
 * array; first put into the model's canonical form, MCF_ACTION_PREPARE)
 * and S(x) = -log(weight) with its gradient (global_action); the core knows no physics:
 *
 *   1. momenta p from the chain's stream: unit Gaussians, for a unit vector its 3 components
 *      projected on the tangent plane (a 2D unit Gaussian there);
 *   2. S(x0) and its gradient, the model refreshing its auxiliary fields (pseudofermions)
 *      from the chain's stream first;
 *   3. the chain's hmc_steps steps of its hmc_dt (the keys', or tuned per chain with
 *      hmc_dt = auto: hmc_tune.c) by the integrator (hmc_integrator), each a symmetric
 *      composition of kicks P(w): p -= w grad_perp S, and free flows X(t) (reals: x += t p;
 *      a unit vector along its great circle, x cos(|p| t) + p/|p| sin(|p| t), p turning
 *      with it: the exact geodesic flow, so every factor is reversible and keeps the measure
 *      of the tangent bundle, and so does their symmetric product):
 *        leapfrog  P(dt/2) X(dt) P(dt/2): one gradient a step;
 *        omelyan   P(l dt) X(dt/2) P((1-2l) dt) X(dt/2) P(l dt), l = 0.1931833275037836
 *                  (Omelyan, Mryglod and Folk's second-order minimum-norm scheme, Comput.
 *                  Phys. Commun. 151, 272 (2003)): two gradients a step, an energy error
 *                  of the same order dt^2 with a smaller coefficient;
 *   4. accept with min(1, e^{-dH}), dH the change of S + |p|^2/2, by mcf_metropolis_accept
 *      on the chain's stream; a rejected trajectory puts x0 back and the model syncs to it.
 *      S = +inf at a step is a configuration outside the model's domain (weight 0): that
 *      chain's trajectory stops there and is rejected.
 *
 * So the chain samples exp(-S) exactly whatever the step (only the acceptance depends on it),
 * with the model's S: for a fermion model the pseudofermion form, exact up to its stated
 * polynomial bound (docs/methods.md, "Hybrid Monte Carlo").  On the first sweep of a fresh
 * run the core checks each chain's gradient against central differences of S along 3
 * random directions (a model's chain rule that is wrong is refused, not sampled). */
#include "hmc.h"

#include "chain.h"
#include "mcf/rng_device.h"
#include "model_ops.h"
#include "progress.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mcfi_hmc {
    size_t n;              /* chains */
    mcf_coordinates *co;   /* n: each chain's coordinates */
    double **x0, **p, **g; /* n arrays of the coordinates' size */
    double *S, *S0, *H0;   /* n: S now, S(x0), the trajectory's starting energy */
    unsigned char *out;    /* n: the trajectory left the model's domain (S = +inf) */
    unsigned char *moving; /* n: the chain takes the current step (in the domain, steps left) */
    double *S_end;         /* n: S at the end of the chain's own steps */
    void **states;
    mcf_rng **rngs;
    /* action_moving's compacted arrays of the chains that move (n each) */
    void **sub_states;
    mcf_rng **sub_rngs;
    double *sub_S, **sub_g;
    size_t *sub_at;
    mcf_batch *batch;      /* the group's, for the model's batched calls */
    /* the energy errors of this process's trajectories, for the log: Creutz's equality
     * <exp(-dH)> = 1 holds for any step of a reversible map that keeps the measure, and
     * with it <dH> = <dH^2>/2 + O(dt^6), both ~ dt^4 for a second-order integrator */
    double sum_e, sum_e2, sum_dh, sum_dh2, sum_dh4;
    uint64_t count, taken;
    /* where the measured trajectories' wall time goes (the log's second line): the whole
     * trajectories, the model's global_action calls in them (its evaluator included) */
    int measuring;
    double wall, wall_action;
    uint64_t trajectories, calls;
};

int mcfi_hmc_supported(const mcfi_model *m)
{
    const mcf_model *v = mcfi_model_v2(m);
    return MCF_HAS(mcf_model, v, coordinates) && MCF_HAS(mcf_model, v, global_action);
}

/* the dimension of each unit vector (0: reals) */
static size_t sphere(const mcf_coordinates *c)
{
    return c->kind == MCF_COORDINATES_UNIT3 ? 3 : c->kind == MCF_COORDINATES_UNIT4 ? 4 : 0;
}

static size_t doubles(const mcf_coordinates *c)
{
    return sphere(c) ? sphere(c) * c->count : c->count;
}

static double dot(const double *a, const double *b, size_t d)
{
    double s = 0.0;
    for (size_t q = 0; q < d; q++)
        s += a[q] * b[q];
    return s;
}

void mcfi_hmc_free(mcfi_hmc *h)
{
    if (!h)
        return;
    if (h->count > 1) {
        const double c = (double)h->count, e = h->sum_e / c;
        const double se = sqrt(fmax(h->sum_e2 / c - e * e, 0.0) / (c - 1.0));
        const double d = h->sum_dh / c, d2 = h->sum_dh2 / c;
        const double sd = sqrt(fmax(d2 - d * d, 0.0) / (c - 1.0));
        const double sd2 = 0.5 * sqrt(fmax(h->sum_dh4 / c - d2 * d2, 0.0) / (c - 1.0));
        mcf_log(MCF_LOG_INFO, "hybrid Monte Carlo: %llu measured trajectories of %zu chains: "
                "<exp(-dH)> = %.5f +- %.5f (1 for a correct integrator: Creutz's equality), "
                "<dH> = %.5g +- %.2g, <dH^2>/2 = %.5g +- %.2g, acceptance %.3f",
                (unsigned long long)h->count, h->n, e, se, d, sd, 0.5 * d2, sd2,
                (double)h->taken / c);
    }
    if (h->trajectories > 0 && h->calls > 0) {
        const double t = (double)h->trajectories;
        mcf_log(MCF_LOG_INFO, "hybrid Monte Carlo's wall time: %.4g s a measured trajectory "
                "of the group (%zu chains): %.4g s in %.4g calls of the model's "
                "global_action (%.4g ms a call, its evaluator included), %.4g s in the "
                "core's integrator; measurements are not in these", h->wall / t, h->n,
                h->wall_action / t, (double)h->calls / t,
                1e3 * h->wall_action / (double)h->calls, (h->wall - h->wall_action) / t);
    }
    for (size_t k = 0; k < h->n; k++) {
        free(h->x0 ? h->x0[k] : NULL);
        free(h->p ? h->p[k] : NULL);
        free(h->g ? h->g[k] : NULL);
    }
    free(h->co);
    free(h->x0);
    free(h->p);
    free(h->g);
    free(h->S);
    free(h->S0);
    free(h->H0);
    free(h->out);
    free(h->moving);
    free(h->S_end);
    free(h->states);
    free(h->rngs);
    free(h->sub_states);
    free(h->sub_rngs);
    free(h->sub_S);
    free(h->sub_g);
    free(h->sub_at);
    free(h);
}

static int setup(const mcfi_model *m, mcf_chain *const *chains, size_t n, mcfi_hmc **out)
{
    mcfi_hmc *h = calloc(1, sizeof *h);
    if (!h)
        return mcf_fail(MCF_ENOMEM, "hmc: out of memory");
    h->n = n;
    h->co = calloc(n, sizeof *h->co);
    h->x0 = calloc(n, sizeof *h->x0);
    h->p = calloc(n, sizeof *h->p);
    h->g = calloc(n, sizeof *h->g);
    h->S = calloc(n, sizeof *h->S);
    h->S0 = calloc(n, sizeof *h->S0);
    h->H0 = calloc(n, sizeof *h->H0);
    h->out = calloc(n, sizeof *h->out);
    h->moving = calloc(n, sizeof *h->moving);
    h->S_end = calloc(n, sizeof *h->S_end);
    h->states = calloc(n, sizeof *h->states);
    h->rngs = calloc(n, sizeof *h->rngs);
    h->sub_states = calloc(n, sizeof *h->sub_states);
    h->sub_rngs = calloc(n, sizeof *h->sub_rngs);
    h->sub_S = calloc(n, sizeof *h->sub_S);
    h->sub_g = calloc(n, sizeof *h->sub_g);
    h->sub_at = calloc(n, sizeof *h->sub_at);
    int rc = !h->co || !h->x0 || !h->p || !h->g || !h->S || !h->S0 || !h->H0 || !h->out ||
                     !h->moving || !h->S_end || !h->states || !h->rngs || !h->sub_states ||
                     !h->sub_rngs || !h->sub_S || !h->sub_g || !h->sub_at
                 ? mcf_fail(MCF_ENOMEM, "hmc: out of memory")
                 : MCF_OK;
    for (size_t k = 0; !rc && k < n; k++) {
        if ((rc = mcfi_model_v2(m)->coordinates(chains[k]->state, &h->co[k])))
            break;
        const mcf_coordinates *c = &h->co[k];
        if ((c->kind != MCF_COORDINATES_UNIT3 && c->kind != MCF_COORDINATES_UNIT4 &&
             c->kind != MCF_COORDINATES_REAL) || !c->x || !c->count) {
            rc = mcf_fail(MCF_EPLUGIN, "model %s: coordinates: kind %d, %zu of them at %p (a "
                          "kind of mcf/model.h and at least one)", m->name, (int)c->kind,
                          c->count, (void *)c->x);
            break;
        }
        const size_t d = doubles(c);
        h->x0[k] = malloc(d * sizeof(double));
        h->p[k] = malloc(d * sizeof(double));
        h->g[k] = malloc(d * sizeof(double));
        if (!h->x0[k] || !h->p[k] || !h->g[k])
            rc = mcf_fail(MCF_ENOMEM, "hmc: out of memory for %zu coordinates", d);
        h->states[k] = chains[k]->state;
        h->rngs[k] = &chains[k]->rng;
    }
    if (rc) {
        mcfi_hmc_free(h);
        return rc;
    }
    *out = h;
    return MCF_OK;
}

/* the model's S (and gradient) of n chains; at[j]: chain j's place in the group */
static int action_of(const mcfi_model *m, mcfi_hmc *h, unsigned what, void *const *states,
                     size_t n, mcf_rng *const *rngs, double *S, double *const *g,
                     const size_t *at)
{
    const double t0 = h->measuring ? mcfi_now_seconds() : 0.0;
    int rc = mcfi_model_v2(m)->global_action(h->batch, states, n, rngs, what, S, g);
    if (h->measuring) {
        h->wall_action += mcfi_now_seconds() - t0;
        h->calls++;
    }
    if (rc)
        return mcf_fail_prefix(rc, "model %s: global_action", m->name);
    for (size_t k = 0; !(what & MCF_ACTION_SYNC) && k < n; k++)
        if (isnan(S[k]) || S[k] == -INFINITY || (S[k] == INFINITY && (what & MCF_ACTION_REFRESH)))
            return mcf_fail(MCF_EPLUGIN, "model %s: global_action gave S = %g (chain %zu of "
                            "the group)%s", m->name, S[k], at ? at[k] : k,
                            S[k] == INFINITY ? " for the chain's own state (weight 0)"
                                             : ": not a number < inf");
    return MCF_OK;
}

static int action(const mcfi_model *m, mcfi_hmc *h, unsigned what)
{
    return action_of(m, h, what, h->states, h->n, h->rngs, h->S, h->g, NULL);
}

/* S and its gradient of the chains that take this step, the model asked for those alone: a
 * chain that stands still (its own steps done, or out of the domain) keeps its S and
 * gradient, the numbers a call at the same x gives, without the work */
static int action_moving(const mcfi_model *m, mcfi_hmc *h)
{
    size_t n = 0;
    for (size_t k = 0; k < h->n; k++)
        if (h->moving[k]) {
            h->sub_states[n] = h->states[k];
            h->sub_rngs[n] = h->rngs[k];
            h->sub_g[n] = h->g[k];
            h->sub_at[n++] = k;
        }
    if (n == h->n)
        return action(m, h, MCF_ACTION_GRADIENT);
    if (n == 0)
        return MCF_OK;
    int rc = action_of(m, h, MCF_ACTION_GRADIENT, h->sub_states, n, h->sub_rngs, h->sub_S,
                       h->sub_g, h->sub_at);
    for (size_t j = 0; !rc && j < n; j++)
        h->S[h->sub_at[j]] = h->sub_S[j];
    return rc;
}

/* kick and flow move each coordinate alone: from this many on (a 16^3 lattice) they run on
 * the OpenMP threads (nested in a group's thread: one thread), the same bits on any number */
static const size_t hmc_parallel_sites = 4096;

/* p -= w grad, projected on the tangent planes (unit vectors) */
static void kick(const mcf_coordinates *c, double *p, const double *g, double w)
{
    const size_t d = sphere(c);
    if (!d) {
        for (size_t i = 0; i < c->count; i++)
            p[i] -= w * g[i];
        return;
    }
#pragma omp parallel for schedule(static) if (c->count >= hmc_parallel_sites)
    for (size_t i = 0; i < c->count; i++) {
        const double *x = c->x + d * i, *gi = g + d * i;
        const double gx = dot(gi, x, d);
        for (size_t a = 0; a < d; a++)
            p[d * i + a] -= w * (gi[a] - gx * x[a]);
    }
}

/* the free flow for dt: straight lines, or great circles with p transported along */
static void flow(const mcf_coordinates *c, double *p, double dt)
{
    const size_t d = sphere(c);
    if (!d) {
        for (size_t i = 0; i < c->count; i++)
            c->x[i] += dt * p[i];
        return;
    }
#pragma omp parallel for schedule(static) if (c->count >= hmc_parallel_sites)
    for (size_t i = 0; i < c->count; i++) {
        double *x = c->x + d * i, *pi = p + d * i;
        const double w = sqrt(dot(pi, pi, d));
        if (w > 0.0) {
            const double cs = cos(w * dt), sn = sin(w * dt);
            for (size_t a = 0; a < d; a++) {
                const double xa = x[a], ua = pi[a] / w;
                x[a] = xa * cs + ua * sn;
                pi[a] = w * (ua * cs - xa * sn);
            }
        }
        /* rounding: back onto the sphere and its tangent plane */
        const double r = sqrt(dot(x, x, d));
        for (size_t a = 0; a < d; a++)
            x[a] /= r;
        const double px = dot(pi, x, d);
        for (size_t a = 0; a < d; a++)
            pi[a] -= px * x[a];
    }
}

static double kinetic(const mcf_coordinates *c, const double *p)
{
    return 0.5 * dot(p, p, doubles(c));
}

static void momenta(const mcf_coordinates *c, double *p, mcf_rng *rng)
{
    const size_t d = sphere(c);
    for (size_t q = 0; q < doubles(c); q++)
        p[q] = mcf_rng_normal(rng);
    for (size_t i = 0; d && i < c->count; i++) {
        const double *x = c->x + d * i;
        double *pi = p + d * i;
        const double px = dot(pi, x, d);
        for (size_t a = 0; a < d; a++)
            pi[a] -= px * x[a];
    }
}

/* ---- the gradient against central differences (the first sweep of a fresh run) ------- */

/* direction e of coordinate i of chain k's check q: a unit tangent vector (a unit vector's
 * coordinates) or 1, from a stream of the chain's index that nothing else uses */
static size_t check_direction(const mcf_coordinates *c, size_t chain, size_t q, double e[4])
{
    mcf_rng rng;
    mcf_rng_init(&rng, 0x4843484543ull + chain, q); /* "HCHEC" */
    const size_t i = (size_t)mcf_rng_below(&rng, c->count), d = sphere(c);
    if (!d) {
        e[0] = 1.0;
        return i;
    }
    const double *x = c->x + d * i;
    double v[4];
    for (size_t a = 0; a < d; a++)
        v[a] = mcf_rng_normal(&rng);
    const double vx = dot(v, x, d);
    for (size_t a = 0; a < d; a++)
        v[a] -= vx * x[a];
    const double r = sqrt(dot(v, v, d));
    for (size_t a = 0; a < d; a++)
        e[a] = v[a] / r;
    return i;
}

/* coordinate i of c moved by t along e (from the saved x0) */
static void displace(const mcf_coordinates *c, const double *x0, size_t i, const double *e,
                     double t)
{
    const size_t d = sphere(c);
    if (!d) {
        c->x[i] = x0[i] + t;
        return;
    }
    for (size_t a = 0; a < d; a++)
        c->x[d * i + a] = x0[d * i + a] * cos(t) + e[a] * sin(t);
}

static int check_gradient(const mcfi_model *m, mcfi_hmc *h, mcf_chain *const *chains,
                          long checks)
{
    const size_t n = h->n;
    double *want = malloc(n * sizeof *want), *D = malloc(2 * n * sizeof *D);
    double *e = malloc(4 * n * sizeof *e);
    size_t *at = malloc(n * sizeof *at);
    int rc = !want || !D || !e || !at ? mcf_fail(MCF_ENOMEM, "hmc: out of memory") : MCF_OK;
    for (long q = 0; !rc && q < checks; q++) {
        for (size_t k = 0; k < n; k++) {
            const mcf_coordinates *c = &h->co[k];
            at[k] = check_direction(c, chains[k]->index, (size_t)q, e + 4 * k);
            const size_t d = sphere(c);
            want[k] = d ? dot(h->g[k] + d * at[k], e + 4 * k, d) : h->g[k][at[k]];
        }
        for (int half = 0; !rc && half < 2; half++) {
            const double d = half ? 5e-5 : 1e-4;
            for (int sg = 0; !rc && sg < 2; sg++) {
                for (size_t k = 0; k < n; k++)
                    displace(&h->co[k], h->x0[k], at[k], e + 4 * k, sg ? -d : d);
                rc = action(m, h, 0);
                for (size_t k = 0; !rc && k < n; k++)
                    D[half * n + k] = sg ? (D[half * n + k] - h->S[k]) / (2 * d) : h->S[k];
            }
        }
        for (size_t k = 0; !rc && k < n; k++) {
            memcpy(h->co[k].x, h->x0[k], doubles(&h->co[k]) * sizeof(double));
            const double d1 = D[k], d2 = D[n + k];
            const double tol = 2.0 * fabs(d1 - d2) + 1e-12 * (fabs(h->S0[k]) + 1.0) / 5e-5 +
                               1e-6 * fabs(want[k]);
            if (!(fabs(d2 - want[k]) <= tol))
                rc = mcf_fail(MCF_EPLUGIN, "model %s: global_action's gradient is not the "
                              "derivative of its action (chain %zu, coordinate %zu): along a "
                              "test direction the gradient gives %.10g, central differences "
                              "of S give %.10g (tolerance %.2e); the run stops before "
                              "sampling a wrong weight (a bug in the model's chain rule)",
                              m->name, chains[k]->index, at[k], want[k], d2, tol);
        }
    }
    free(want);
    free(D);
    free(e);
    free(at);
    return rc;
}

/* ---- one trajectory per chain ---------------------------------------------------------- */

/* Omelyan, Mryglod and Folk's lambda: the second-order scheme of least error norm */
static const double omelyan_lambda = 0.1931833275037836;

/* a kick of w dt then a flow of t dt (dt each chain's step) for every chain that moves,
 * then S and its gradient at the new x; a chain whose S is +inf has left the domain and
 * moves no further */
static int kick_flow_force(const mcfi_model *m, mcfi_hmc *h, mcf_chain *const *chains,
                           double w, double t)
{
    for (size_t k = 0; k < h->n; k++)
        if (h->moving[k]) {
            kick(&h->co[k], h->p[k], h->g[k], w * chains[k]->hmc_dt);
            flow(&h->co[k], h->p[k], t * chains[k]->hmc_dt);
        }
    int rc = action_moving(m, h);
    for (size_t k = 0; !rc && k < h->n; k++)
        h->out[k] |= h->moving[k] && h->S[k] == INFINITY;
    return rc;
}

/* the closing kick of a step (w dt) */
static void kick_all(mcfi_hmc *h, mcf_chain *const *chains, double w)
{
    for (size_t k = 0; k < h->n; k++)
        if (h->moving[k] && !h->out[k])
            kick(&h->co[k], h->p[k], h->g[k], w * chains[k]->hmc_dt);
}

int mcfi_hmc_trajectory(const mcfi_model *m, mcf_batch *b, mcfi_hmc **state,
                        mcf_chain *const *chains, size_t n, int integrator, long checks,
                        int measuring, unsigned char *accepted, double *probability)
{
    int rc = MCF_OK;
    if (!*state && (rc = setup(m, chains, n, state)))
        return rc;
    mcfi_hmc *h = *state;
    h->batch = b;
    h->measuring = measuring;
    const double t_start = measuring ? mcfi_now_seconds() : 0.0;
    if ((rc = action(m, h, MCF_ACTION_PREPARE | MCF_ACTION_SYNC)))
        return rc;
    double *H0 = h->H0;
    unsigned char *out = h->out;
    memset(out, 0, n);
    for (size_t k = 0; k < n; k++) {
        const mcf_coordinates *c = &h->co[k];
        memcpy(h->x0[k], c->x, doubles(c) * sizeof(double));
        momenta(c, h->p[k], h->rngs[k]);
    }
    rc = action(m, h, MCF_ACTION_REFRESH | MCF_ACTION_GRADIENT);
    for (size_t k = 0; !rc && k < n; k++) {
        h->S0[k] = h->S[k];
        H0[k] = h->S[k] + kinetic(&h->co[k], h->p[k]);
    }
    if (!rc && checks > 0) {
        /* the differences move x and the state: back to x0 and its gradient afterwards */
        rc = check_gradient(m, h, chains, checks);
        if (!rc)
            rc = action(m, h, MCF_ACTION_GRADIENT);
    }
    /* S = +inf: the trajectory left the model's domain (weight 0); it stops there and is
     * rejected.  Chain k takes its own hmc_steps steps of its own hmc_dt; the group's
     * batched calls go on until the longest is done, the shorter ones standing still (left
     * out of the model's calls, their S at their own end kept in S_end) */
    const double l = omelyan_lambda;
    long steps = 0;
    for (size_t k = 0; k < n; k++)
        if (chains[k]->hmc_steps > steps)
            steps = chains[k]->hmc_steps;
    for (size_t k = 0; !rc && k < n; k++)
        h->S_end[k] = h->S[k];
    for (long s = 0; !rc && s < steps; s++) {
        for (size_t k = 0; k < n; k++)
            h->moving[k] = !out[k] && s < chains[k]->hmc_steps;
        if (integrator == MCFI_HMC_OMELYAN) {
            rc = kick_flow_force(m, h, chains, l, 0.5);
            if (!rc)
                rc = kick_flow_force(m, h, chains, 1.0 - 2.0 * l, 0.5);
            if (!rc)
                kick_all(h, chains, l);
        } else if (!(rc = kick_flow_force(m, h, chains, 0.5, 1.0))) {
            kick_all(h, chains, 0.5);
        }
        for (size_t k = 0; !rc && k < n; k++)
            if (h->moving[k])
                h->S_end[k] = h->S[k];
    }
    int any_rejected = 0;
    for (size_t k = 0; !rc && k < n; k++) {
        const double dH = out[k] ? INFINITY
                                 : h->S_end[k] + kinetic(&h->co[k], h->p[k]) - H0[k];
        accepted[k] = (unsigned char)mcf_metropolis_accept(h->rngs[k], isnan(dH) ? -INFINITY
                                                                                  : -dH);
        if (probability)
            probability[k] = isnan(dH) ? 0.0 : dH <= 0.0 ? 1.0 : exp(-dH);
        if (measuring && isfinite(dH)) {
            const double e = exp(-dH);
            h->sum_e += e;
            h->sum_e2 += e * e;
            h->sum_dh += dH;
            h->sum_dh2 += dH * dH;
            h->sum_dh4 += dH * dH * dH * dH;
            h->count++;
            h->taken += accepted[k];
        }
        if (!accepted[k]) {
            memcpy(h->co[k].x, h->x0[k], doubles(&h->co[k]) * sizeof(double));
            any_rejected = 1;
        }
    }
    if (!rc && any_rejected)
        rc = action(m, h, MCF_ACTION_SYNC);
    if (measuring) {
        h->wall += mcfi_now_seconds() - t_start;
        h->trajectories++;
    }
    return rc;
}
