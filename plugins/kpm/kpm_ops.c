/* kpm_ops.c — the fermion ops of the KPM evaluators over a backend (kpm_ops.h says what
 * each op does and what the backend supplies). */
#include "kpm_ops.h"

#include "mcf/mcf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- workspace -------------------------------------------------------------------- */

void kpm_ops_destroy(void *p)
{
    kpm_ops_ws *w = p;
    if (!w)
        return;
    if (w->be->release)
        w->be->release(w);
    kpm_dct_destroy(w->grid);
    kpm_contour_destroy(w->contour);
    free(w->converted);
    free(w->contour_dmu);
    free(w->g);
    free(w->mu_vec);
    free(w->mu);
    kpm_series_cache_free(&w->series);
    free(w);
}

/* the moment arrays and the kernel coefficients */
static int ops_alloc(kpm_ops_ws *w)
{
    const size_t rows = w->R > w->block ? w->R : w->block;
    w->g = malloc(w->M * sizeof *w->g);
    w->mu_vec = malloc(rows * w->M * sizeof *w->mu_vec);
    w->mu = malloc(w->M * sizeof *w->mu);
    if (!w->g || !w->mu_vec || !w->mu)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for %zu x %zu moments", w->be->name,
                        rows, w->M);
    kpm_kernel_coefficients(w->cfg.kernel, w->cfg.lambda, w->M, w->g);
    return MCF_OK;
}

int kpm_ops_create(const kpm_backend *be, const mcf_params *params, const mcf_hamiltonian *h,
                   void **out)
{
    *out = NULL;
    if (!h || h->dim < 1)
        return mcf_fail(MCF_EINVAL, "%s: no Hamiltonian (or an empty one) was given",
                        be->name);
    kpm_config c;
    int extrapolate = 0;
    int rc = kpm_config_read(params, &c, &extrapolate);
    if (!rc)
        rc = kpm_config_check(&c);
    if (rc)
        return mcf_fail_prefix(rc, "[%s] in %s", mcf_params_section(params),
                               mcf_params_origin(params));
    if (be->admit && (rc = be->admit(h)))
        return rc;
    kpm_ops_ws *w = calloc(1, be->size);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for a workspace", be->name);
    w->be = be;
    w->h = h;
    w->cfg = c;
    w->extrapolate = extrapolate;
    w->M = (size_t)c.moments;
    w->N = kpm_config_points(&c);
    w->R = (size_t)c.vectors;
    w->block = (size_t)c.block;
    if ((be->init && (rc = be->init(w))) || (rc = kpm_dct_create(w->N, w->M, &w->grid)) ||
        (rc = ops_alloc(w))) {
        kpm_ops_destroy(w);
        return rc;
    }
    *out = w;
    return MCF_OK;
}

void kpm_ops_scale(kpm_ops_ws *w)
{
    if (!w->scaled || w->version != w->h->version) {
        mcf_hamiltonian_scaling(w->h, w->cfg.margin, &w->a, &w->b);
        w->version = w->h->version;
        w->scaled = 1;
    }
}

/* the scaling, then the backend's preparation (the device copy, scratch) */
int kpm_ops_prepare(kpm_ops_ws *w)
{
    kpm_ops_scale(w);
    return w->be->prepare ? w->be->prepare(w) : MCF_OK;
}

size_t kpm_ops_energy_points(const void *p) { return ((const kpm_ops_ws *)p)->N; }

int kpm_ops_energies(void *p, double *E)
{
    kpm_ops_ws *w = p;
    kpm_ops_scale(w);
    kpm_dct_energies(w->grid, w->a, w->b, E);
    return MCF_OK;
}

/* ---- ops ---------------------------------------------------------------------------- */

static int ops_check_batch(const kpm_backend *be, void *const *ws, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        if (!ws[k])
            return mcf_fail(MCF_EINVAL, "%s: %s: workspace %zu of the batch is NULL", be->name,
                            what, k);
    return MCF_OK;
}

/* dos and occupation: the workspaces, and the random streams of their traces */
static int ops_check_traces(const kpm_backend *be, void *const *ws, size_t n,
                            mcf_rng *const *rngs, const char *what)
{
    int rc = ops_check_batch(be, ws, n, what);
    if (rc)
        return rc;
    if (n && !rngs)
        return mcf_fail(MCF_EINVAL, "%s: %s: the stochastic trace needs the chains' random "
                        "streams, but rngs is NULL", be->name, what);
    return MCF_OK;
}

int kpm_ops_dos(const kpm_backend *be, void *const *ws, size_t n, mcf_rng *const *rngs,
                double *const *dos)
{
    int rc = ops_check_traces(be, ws, n, rngs, "dos");
    if (rc || (rc = kpm_ops_traces(be, ws, n, rngs, "dos")))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = be->density(w, w->mu, 1, dos[k])))
            return mcf_fail_prefix(rc, "%s: dos of workspace %zu", be->name, k);
    }
    return MCF_OK;
}

/* dos() with the trace's moments, their per-vector variance and the scaling: the same
 * trace and reconstruction as kpm_ops_dos, so the same DOS bit for bit */
int kpm_ops_dos_moments(const kpm_backend *be, void *const *ws, size_t n,
                        mcf_rng *const *rngs, double *const *mu, double *const *var,
                        double *const *scale, double *const *dos)
{
    int rc = ops_check_traces(be, ws, n, rngs, "dos_moments");
    if (rc)
        return rc;
    if (n && (!mu || !scale))
        return mcf_fail(MCF_EINVAL, "%s: dos_moments: the %s array is NULL", be->name,
                        !mu ? "mu" : "scale");
    if ((rc = kpm_ops_traces(be, ws, n, rngs, "dos_moments")))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if (dos && dos[k] && (rc = be->density(w, w->mu, 1, dos[k])))
            return mcf_fail_prefix(rc, "%s: dos_moments of workspace %zu", be->name, k);
        memcpy(mu[k], w->mu, w->M * sizeof *w->mu);
        if (var)
            kpm_moments_variance(w->R, w->M, w->mu_vec, w->mu, var[k]);
        scale[k][0] = w->a;
        scale[k][1] = w->b;
    }
    return MCF_OK;
}

/* LDOS (out) or Green's functions (re, im) of rows, `block` rows at a time; with mu (ldos
 * only; out may then be NULL) also the rows' moments and the scaling */
static int ops_rows(const kpm_backend *be, void *const *ws, size_t n,
                    const size_t *const *rows, size_t n_rows, double *const *out,
                    double *const *re, double *const *im, double *const *mu,
                    double *const *scale, const char *what)
{
    int rc = ops_check_batch(be, ws, n, what);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = kpm_ops_prepare(w)))
            return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
        const size_t P = w->N, M = w->M;
        if (scale) {
            scale[k][0] = w->a;
            scale[k][1] = w->b;
        }
        for (size_t r0 = 0; r0 < n_rows; r0 += w->block) {
            const size_t nb = n_rows - r0 < w->block ? n_rows - r0 : w->block;
            rc = be->rows_moments(w, rows[k] + r0, nb);
            if (!rc && mu)
                memcpy(mu[k] + r0 * M, w->mu_vec, nb * M * sizeof *w->mu_vec);
            if (!rc && (out || !mu))
                rc = out ? be->density(w, w->mu_vec, nb, out[k] + r0 * P)
                         : be->green(w, w->mu_vec, nb, re[k] + r0 * P, im[k] + r0 * P);
            if (rc)
                return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
        }
    }
    return MCF_OK;
}

int kpm_ops_ldos(const kpm_backend *be, void *const *ws, size_t n, const size_t *const *rows,
                 size_t n_rows, double *const *out)
{
    return ops_rows(be, ws, n, rows, n_rows, out, NULL, NULL, NULL, NULL, "ldos");
}

int kpm_ops_ldos_moments(const kpm_backend *be, void *const *ws, size_t n,
                         const size_t *const *rows, size_t n_rows, double *const *mu,
                         double *const *scale, double *const *ldos)
{
    if (n && (!mu || !scale))
        return mcf_fail(MCF_EINVAL, "%s: ldos_moments: the %s array is NULL", be->name,
                        !mu ? "mu" : "scale");
    return ops_rows(be, ws, n, rows, n_rows, ldos, NULL, NULL, mu, scale, "ldos_moments");
}

int kpm_ops_green(const kpm_backend *be, void *const *ws, size_t n, const size_t *const *rows,
                  size_t n_rows, double *const *re, double *const *im)
{
    return ops_rows(be, ws, n, rows, n_rows, NULL, re, im, NULL, NULL, "green");
}

size_t kpm_ops_moment_count(const void *w) { return ((const kpm_ops_ws *)w)->M; }

int kpm_ops_occupation(const kpm_backend *be, void *const *ws, size_t n,
                       mcf_rng *const *rngs, double mu, double T, double *density,
                       double *energy)
{
    int rc = ops_check_traces(be, ws, n, rngs, "occupation");
    if (rc || (rc = kpm_ops_traces(be, ws, n, rngs, "occupation")))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = kpm_occupation_cached(&w->series, w->mu, w->g, w->M, w->a, w->b, mu, T,
                                        density + k, energy + k)))
            return mcf_fail_prefix(rc, "%s: occupation of workspace %zu", be->name, k);
    }
    return MCF_OK;
}

/* occupation() from the same trace and its T-derivatives: T checked before the trace is
 * drawn (a refusal leaves the streams alone); density and energy by kpm_occupation_cached as
 * in kpm_ops_occupation, so the same bits */
int kpm_ops_occupation_dT(const kpm_backend *be, void *const *ws, size_t n,
                          mcf_rng *const *rngs, double mu, double T, double *density,
                          double *energy, double *ddensity, double *denergy)
{
    int rc = ops_check_traces(be, ws, n, rngs, "occupation_dT");
    if (rc)
        return rc;
    if (!(T > 0.0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "%s: occupation_dT: temperature T = %g must be finite and "
                        "> 0 (the T = 0 step has no temperature derivative; use a small T > 0) "
                        "and mu = %g finite", be->name, T, mu);
    if (n && (!density || !energy || !ddensity || !denergy))
        return mcf_fail(MCF_EINVAL, "%s: occupation_dT: an output array is NULL", be->name);
    if ((rc = kpm_ops_traces(be, ws, n, rngs, "occupation_dT")))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = kpm_occupation_cached(&w->series, w->mu, w->g, w->M, w->a, w->b, mu, T,
                                        density + k, energy + k)) ||
            (rc = kpm_occupation_dT_cached(&w->series, w->mu, w->g, w->M, w->a, w->b, mu, T,
                                           ddensity + k, denergy + k)))
            return mcf_fail_prefix(rc, "%s: occupation_dT of workspace %zu", be->name, k);
    }
    return MCF_OK;
}

/* delta_action's preamble for workspace k of the batch */
static int ops_gfmc_prepare(const kpm_backend *be, kpm_ops_ws *w, size_t k,
                            const mcf_local_change *change, double T, double mu)
{
    kpm_ops_scale(w);
    int rc;
    if (be->check_changes) {
        if ((rc = mcf_local_change_check(change, w->h->dim)))
            return mcf_fail_prefix(rc, "%s: delta_action of workspace %zu", be->name, k);
        if (!(T > 0) || !isfinite(T) || !isfinite(mu))
            return mcf_fail(MCF_EINVAL, "%s: delta_action of workspace %zu: temperature "
                            "T = %g must be finite and > 0, and mu = %g finite", be->name, k,
                            T, mu);
    }
    if ((rc = be->gfmc_need(w)))
        return mcf_fail_prefix(rc, "%s: delta_action of workspace %zu", be->name, k);
    /* the Lorentz kernel's resolution lambda a / M (= kpm_gfmc_resolution of the scratch) */
    const double M_res = (double)w->M;
    kpm_gfmc_warn_resolution(w->cfg.lambda * w->a / M_res, T, w->M, w->extrapolate,
                             &w->warned_T, be->name);
    return MCF_OK;
}

/* ---- GFMC on the contour ------------------------------------------------------------ */

/* change_action's input for workspace k, checked before any work */
static int ops_contour_check(const kpm_backend *be, kpm_ops_ws *w, size_t k,
                             const mcf_change *change, double T, double mu, const char *what)
{
    int rc = mcf_change_check(change, w->h->dim);
    if (rc)
        return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
    if (!(T > 0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "%s: %s of workspace %zu: temperature T = %g must be "
                        "finite and > 0, and mu = %g finite", be->name, what, k, T, mu);
    kpm_ops_scale(w);
    if (!w->contour &&
        (rc = kpm_contour_create(w->h->dim, w->M, (size_t)w->cfg.points, w->cfg.margin,
                                 &w->contour)))
        return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
    return MCF_OK;
}

/* the bound against 0.05 (5% of the acceptance ratio), once per workspace and T */
static void ops_contour_warn(const kpm_backend *be, kpm_ops_ws *w, double T, double err)
{
    if (!(err > 0.05) || w->warned_err_T == T)
        return;
    w->warned_err_T = T;
    const double need = kpm_contour_moments_for(w->contour, err, 0.01);
    double m2 = 2;
    while (m2 < need)
        m2 *= 2;
    mcf_log(MCF_LOG_WARN,
            "%s: GFMC at T = %.3g with moments = %zu: the error bound of dS is %.2g "
            "(above 0.05, a 5%% error of the acceptance ratio); moments >= %.0f bring it "
            "below 0.01",
            be->name, T, w->M, err, m2);
}

/* keeps the failure of the lowest workspace k of a parallel loop (its code and message):
 * the batch reports the same one on any thread count */
static void ops_first_failure(int r, size_t k, int *failed, size_t *bad, char *msg,
                              size_t len)
{
#pragma omp critical(kpm_contour_error)
    if (!*failed || k < *bad) {
        *failed = r;
        *bad = k;
        snprintf(msg, len, "%s", mcf_last_error());
    }
}

/* the batch's error bounds into err (may be NULL), and the warnings */
static void ops_contour_bounds(const kpm_backend *be, void *const *ws, size_t n,
                               const double *T, double *err)
{
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if (err)
            err[k] = w->contour_err;
        ops_contour_warn(be, w, T[k], w->contour_err);
    }
}

/* the contour for a batch: chains are independent, so the batch is shared among OpenMP
 * threads; the first failure (lowest workspace) is reported; err may be NULL */
static int ops_contour_batch(const kpm_backend *be, void *const *ws, size_t n,
                             const mcf_change *const *changes, const double *T,
                             const double *mu, double *dS, double *err, const char *what)
{
    int failed = 0;
    size_t bad = 0;
    char msg[1024] = "";
    const long nn = (long)n;
    /* a backend that computes the moments (a GPU: one launch for the batch) when every change
     * is one it takes; each workspace gets its change's scaling for it */
    int device = be->contour_moments != NULL;
    for (size_t k = 0; device && k < n; k++) {
        kpm_ops_ws *w = ws[k];
        device = kpm_change_to_local(changes[k], &w->contour_local);
    }
    if (device) {
        int rc = MCF_OK;
        for (size_t k = 0; !rc && k < n; k++) {
            kpm_ops_ws *w = ws[k];
            if (!w->contour_dmu && !(w->contour_dmu = malloc(4 * w->M * sizeof *w->contour_dmu)))
                rc = mcf_fail(MCF_ENOMEM, "%s: %s: out of memory", be->name, what);
        }
        /* every change's scaling, and, for a backend that finishes the contour itself, its
         * plan (the ellipse and the enclosed poles): per chain, so over the host's cores */
        const int plans = be->contour_action != NULL;
        int whole = plans;
#pragma omp parallel for schedule(static) if (n > 8) reduction(&& : whole)
        for (long i = 0; i < nn; i++) {
            const size_t k = (size_t)i;
            kpm_ops_ws *w = ws[k];
            kpm_contour_scaling(w->h, w->a, w->b, w->cfg.margin, changes[k], &w->contour_a,
                                &w->contour_b);
            if (!plans)
                continue;
            const int r = kpm_contour_plan_for(w->contour, w->contour_a, w->contour_b, T[k],
                                               mu[k], &w->contour_plan);
            if (r)
                ops_first_failure(r, k, &failed, &bad, msg, sizeof msg);
            whole = whole && !r && !w->contour_plan.too_many;
        }
        if (!rc && failed)
            return mcf_fail(failed, "%s: %s of workspace %zu: %s", be->name, what, bad, msg);
        if (!rc && whole) {
            if ((rc = be->contour_action(ws, n, T, mu, dS)))
                return mcf_fail_prefix(rc, "%s: %s", be->name, what);
            ops_contour_bounds(be, ws, n, T, err);
            return MCF_OK;
        }
        if (!rc)
            rc = be->contour_moments(ws, n);
        if (rc)
            return mcf_fail_prefix(rc, "%s: %s", be->name, what);
    }
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long i = 0; i < nn; i++) {
        const size_t k = (size_t)i;
        kpm_ops_ws *w = ws[k];
        int r = device ? kpm_contour_finish_diag(w->contour, w->contour_a, w->contour_b,
                                                 changes[k], w->contour_dmu, T[k], mu[k],
                                                 dS + k, &w->contour_err)
                       : kpm_contour_delta_action(w->contour, w->h, w->a, w->b, changes[k],
                                                  T[k], mu[k], dS + k, &w->contour_err);
        if (r)
            ops_first_failure(r, k, &failed, &bad, msg, sizeof msg);
    }
    if (failed)
        return mcf_fail(failed, "%s: %s of workspace %zu: %s", be->name, what, bad, msg);
    ops_contour_bounds(be, ws, n, T, err);
    return MCF_OK;
}

/* dS of n changes on the contour; err may be NULL */
static int ops_contour(const kpm_backend *be, void *const *ws, size_t n,
                       const mcf_change *const *changes, const double *T, const double *mu,
                       double *dS, double *err, const char *what)
{
    int rc;
    for (size_t k = 0; k < n; k++)
        if ((rc = ops_contour_check(be, ws[k], k, changes[k], T[k], mu[k], what)))
            return rc;
    return ops_contour_batch(be, ws, n, changes, T, mu, dS, err, what);
}

int kpm_ops_change_action(const kpm_backend *be, void *const *ws, size_t n,
                          const mcf_change *const *changes, const double *T,
                          const double *mu, double *dS, double *err)
{
    int rc = ops_check_batch(be, ws, n, "change_action");
    if (rc)
        return rc;
    if (n && (!changes || !T || !mu || !dS))
        return mcf_fail(MCF_EINVAL, "%s: change_action: the %s array is NULL", be->name,
                        !changes ? "change" : !T ? "T" : !mu ? "mu" : "dS");
    if (n && ((const kpm_ops_ws *)ws[0])->cfg.gfmc == KPM_GFMC_REAL_AXIS) {
        /* the real axis takes the older changes only */
        mcf_local_change *lc = calloc(n, sizeof *lc);
        const mcf_local_change **lp = malloc(n * sizeof *lp);
        if (!lc || !lp) {
            free(lc);
            free(lp);
            return mcf_fail(MCF_ENOMEM, "%s: change_action: out of memory", be->name);
        }
        for (size_t k = 0; k < n && !rc; k++) {
            if (!kpm_change_to_local(changes[k], lc + k))
                rc = mcf_fail(MCF_EINVAL, "%s: change_action of workspace %zu: gfmc = "
                              "real-axis takes changes of rank <= %d with <= %d entries a "
                              "vector (this one has rank %d); use gfmc = contour", be->name, k,
                              MCF_CHANGE_MAX_RANK, MCF_CHANGE_MAX_ENTRIES,
                              changes[k] ? changes[k]->rank : 0);
            lp[k] = lc + k;
        }
        if (!rc)
            rc = kpm_ops_delta_action(be, ws, n, lp, T, mu, dS);
        for (size_t k = 0; !rc && err && k < n; k++)
            err[k] = NAN;
        free(lc);
        free(lp);
        return rc;
    }
    return ops_contour(be, ws, n, changes, T, mu, dS, err, "change_action");
}

int kpm_ops_delta_action(const kpm_backend *be, void *const *ws, size_t n,
                         const mcf_local_change *const *changes, const double *T,
                         const double *mu, double *dS)
{
    int rc = ops_check_batch(be, ws, n, "delta_action");
    if (rc)
        return rc;
    if (n && ((const kpm_ops_ws *)ws[0])->cfg.gfmc == KPM_GFMC_CONTOUR) {
        const mcf_change **cp = malloc(n * sizeof *cp);
        if (!cp)
            return mcf_fail(MCF_ENOMEM, "%s: delta_action: out of memory", be->name);
        for (size_t k = 0; k < n && !rc; k++) {
            kpm_ops_ws *w = ws[k];
            if (!w->converted && !(w->converted = malloc(sizeof *w->converted)))
                rc = mcf_fail(MCF_ENOMEM, "%s: delta_action: out of memory", be->name);
            else if ((rc = mcf_change_from_local(changes[k], w->converted)))
                rc = mcf_fail_prefix(rc, "%s: delta_action of workspace %zu", be->name, k);
            cp[k] = w->converted;
        }
        if (!rc)
            rc = ops_contour(be, ws, n, cp, T, mu, dS, NULL, "delta_action");
        free(cp);
        return rc;
    }
    for (size_t k = 0; k < n; k++)
        if ((rc = ops_gfmc_prepare(be, ws[k], k, changes[k], T[k], mu[k])))
            return rc;
    return be->gfmc_batch(ws, n, changes, T, mu, dS);
}

/* the action: per workspace the exact trace once, then the plain Chebyshev series of every
 * point (kpm_action_series); everything checked before any work */
int kpm_ops_action(const kpm_backend *be, void *const *ws, size_t n, size_t m, const double *T,
                   const double *mu, double *S, double *err)
{
    if (n && !ws)
        return mcf_fail(MCF_EINVAL, "%s: action: the workspace array is NULL", be->name);
    int rc = ops_check_batch(be, ws, n, "action");
    if (rc)
        return rc;
    if (n && m && (!T || !mu || !S))
        return mcf_fail(MCF_EINVAL, "%s: action: the %s array is NULL", be->name,
                        !T ? "T" : !mu ? "mu" : "S");
    for (size_t k = 0; k < n; k++) {
        const kpm_ops_ws *w = ws[k];
        if (m && w->R != 0)
            return mcf_fail(MCF_EINVAL, "%s: action needs the exact trace: set [evaluator] "
                            "vectors = 0 (now %zu, workspace %zu); a stochastic trace would "
                            "make the action random", be->name, w->R, k);
        for (size_t p = 0; p < m; p++) {
            const double t = T[k * m + p], u = mu[k * m + p];
            if (!(t > 0.0) || !isfinite(t))
                return mcf_fail(MCF_EINVAL, "%s: action of workspace %zu, point %zu: "
                                "temperature T = %g must be a finite number > 0", be->name, k,
                                p, t);
            if (!isfinite(u))
                return mcf_fail(MCF_EINVAL, "%s: action of workspace %zu, point %zu: chemical "
                                "potential mu = %g must be finite", be->name, k, p, u);
        }
    }
    if (!m)
        return MCF_OK;
    if ((rc = kpm_ops_traces(be, ws, n, NULL, "action")))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        const double dim = (double)w->h->dim;
        for (size_t p = 0; p < m; p++) {
            const size_t q = k * m + p;
            double s, e;
            if ((rc = kpm_action_series_cached(&w->series, w->mu, w->M, w->a, w->b, T[q], mu[q],
                                               &s, &e)))
                return mcf_fail_prefix(rc, "%s: action of workspace %zu, point %zu", be->name,
                                       k, p);
            S[q] = dim * s;
            if (err)
                err[q] = dim * e;
        }
    }
    return MCF_OK;
}
