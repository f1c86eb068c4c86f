/* kpm_ops_gfmc.c — change_action of the KPM evaluators (kpm_ops.h): GFMC on the contour
 * (gfmc = contour, the default) for every change, or on the real axis (gfmc = real-axis,
 * the seed thesis's method) for the changes of rank <= 2 that ABI 1's mcf_local_change
 * holds.  The batch is handed on to the backend's batched steps (kpm-cuda keeps its job
 * lists in it). */
#include "kpm_ops.h"

#include "mcf/mcf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- GFMC on the real axis ---------------------------------------------------------- */

/* the real axis's preamble for workspace k of the batch */
static int ops_gfmc_prepare(const kpm_backend *be, kpm_ops_ws *w, size_t k,
                            const mcf_local_change *change, double T, double mu)
{
    kpm_ops_scale(w);
    int rc;
    if (be->check_changes) {
        if ((rc = mcf_local_change_check(change, w->h->dim)))
            return mcf_fail_prefix(rc, "%s: change_action of workspace %zu", be->name, k);
        if (!(T > 0) || !isfinite(T) || !isfinite(mu))
            return mcf_fail(MCF_EINVAL, "%s: change_action of workspace %zu: temperature "
                            "T = %g must be finite and > 0, and mu = %g finite", be->name, k,
                            T, mu);
    }
    if ((rc = be->gfmc_need(w)))
        return mcf_fail_prefix(rc, "%s: change_action of workspace %zu", be->name, k);
    /* the Lorentz kernel's resolution lambda a / M (= kpm_gfmc_resolution of the scratch) */
    const double M_res = (double)w->M;
    kpm_gfmc_warn_resolution(w->cfg.lambda * w->a / M_res, T, w->M, w->extrapolate,
                             &w->warned_T, be->name);
    return MCF_OK;
}

/* dS of n changes on the real axis: each change in the older form (rank <= 2, at most
 * MCF_CHANGE_MAX_ENTRIES entries a vector, else refused naming gfmc = contour), every
 * workspace's preamble, then the backend's batch; err (may be NULL) NaN: no bound */
static int ops_real_axis(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                         const mcf_change *const *changes, const double *T, const double *mu,
                         double *dS, double *err)
{
    int rc = MCF_OK;
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
    for (size_t k = 0; k < n && !rc; k++)
        rc = ops_gfmc_prepare(be, ws[k], k, lp[k], T[k], mu[k]);
    if (!rc)
        rc = be->gfmc_batch(b, ws, n, lp, T, mu, dS);
    for (size_t k = 0; !rc && err && k < n; k++)
        err[k] = NAN;
    free(lc);
    free(lp);
    return rc;
}

/* ---- GFMC on the contour ------------------------------------------------------------ */

/* change_action's input for workspace k, checked before any work */
static int ops_contour_check(const kpm_backend *be, kpm_ops_ws *w, size_t k,
                             const mcf_change *change, double T, double mu)
{
    int rc = mcf_change_check(change, w->h->dim);
    if (rc)
        return mcf_fail_prefix(rc, "%s: change_action of workspace %zu", be->name, k);
    if (!(T > 0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "%s: change_action of workspace %zu: temperature T = %g "
                        "must be finite and > 0, and mu = %g finite", be->name, k, T, mu);
    kpm_ops_scale(w);
    if (!w->contour &&
        (rc = kpm_contour_create(w->h->dim, w->M, (size_t)w->cfg.points, w->cfg.margin,
                                 &w->contour)))
        return mcf_fail_prefix(rc, "%s: change_action of workspace %zu", be->name, k);
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
static int ops_contour_batch(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                             const mcf_change *const *changes, const double *T,
                             const double *mu, double *dS, double *err)
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
                rc = mcf_fail(MCF_ENOMEM, "%s: change_action: out of memory", be->name);
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
            return mcf_fail(failed, "%s: change_action of workspace %zu: %s", be->name, bad, msg);
        if (!rc && whole) {
            if ((rc = be->contour_action(b, ws, n, T, mu, dS)))
                return mcf_fail_prefix(rc, "%s: change_action", be->name);
            ops_contour_bounds(be, ws, n, T, err);
            return MCF_OK;
        }
        if (!rc)
            rc = be->contour_moments(b, ws, n);
        if (rc)
            return mcf_fail_prefix(rc, "%s: change_action", be->name);
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
        return mcf_fail(failed, "%s: change_action of workspace %zu: %s", be->name, bad, msg);
    ops_contour_bounds(be, ws, n, T, err);
    return MCF_OK;
}

/* dS of n changes on the contour; err may be NULL */
static int ops_contour(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                       const mcf_change *const *changes, const double *T, const double *mu,
                       double *dS, double *err)
{
    int rc;
    for (size_t k = 0; k < n; k++)
        if ((rc = ops_contour_check(be, ws[k], k, changes[k], T[k], mu[k])))
            return rc;
    return ops_contour_batch(be, b, ws, n, changes, T, mu, dS, err);
}


/* ---- change_action ------------------------------------------------------------------ */

int kpm_ops_change_action(mcf_batch *b, void *const *ws, size_t n,
                          const mcf_change *const *changes, const double *T,
                          const double *mu, double *dS, double *err)
{
    int rc;
    const kpm_backend *be = kpm_ops_batch(ws, n, "change_action", &rc);
    if (rc || n == 0)
        return rc;
    if (!changes || !T || !mu || !dS)
        return mcf_fail(MCF_EINVAL, "%s: change_action: the %s array is NULL", be->name,
                        !changes ? "change" : !T ? "T" : !mu ? "mu" : "dS");
    if (((const kpm_ops_ws *)ws[0])->cfg.gfmc == KPM_GFMC_REAL_AXIS)
        return ops_real_axis(be, b, ws, n, changes, T, mu, dS, err);
    return ops_contour(be, b, ws, n, changes, T, mu, dS, err);
}
