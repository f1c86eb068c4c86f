/* ed_batch.c — the ops of the ed evaluator (mcf/fermion.h, ABI 2): each checks its
 * arguments and runs one workspace's work (ed_spectra.c, ed_thermodynamics.c) for every
 * workspace of the batch.
 *
 * Batches.  The ops loop over workspaces with OpenMP (one workspace per thread); the
 * workspaces of one call must be distinct.  A failure in any workspace is reported on the
 * calling thread, naming the workspace's index in the batch.  Each workspace's numbers are
 * computed by one thread in a fixed order, so a batch reproduces single calls bit for bit.
 * change_action checks every change, T and mu before any work, naming the workspace (also
 * in a batch of one); action checks every T and mu likewise, naming workspace and point. */
#include "ed_internal.h"

#include <math.h>
#include <stdio.h>

enum { ED_DOS, ED_LDOS, ED_GREEN, ED_OCC, ED_DELTA, ED_ACTION, ED_OCC_DT };

typedef struct ed_request {
    int what;
    double *const *out;        /* dos, ldos, green re */
    double *const *out_im;     /* green im */
    const size_t *const *rows;
    size_t n_rows;
    double mu, T;
    double *density, *energy;
    double *ddensity, *denergy;             /* occupation_dT */
    const mcf_change *const *gchanges;      /* change_action: per workspace */
    const double *Ts, *mus;
    double *dS;
    size_t m;                  /* action: points per workspace (Ts, mus, S, err: n m) */
    double *S, *err;
} ed_request;

static void ed_run_one(ed_ws *w, const ed_request *q, size_t k)
{
    int rc = MCF_OK;
    switch (q->what) {
    case ED_DOS: rc = ed_dos_one(w, q->out[k]); break;
    case ED_LDOS: rc = ed_rows_one(w, q->rows[k], q->n_rows, q->out[k], NULL); break;
    case ED_GREEN:
        if (q->n_rows && !q->out_im[k])
            rc = mcf_fail(MCF_EINVAL, "ed: green: the output array of Im G is NULL");
        else
            rc = ed_rows_one(w, q->rows[k], q->n_rows, q->out[k], q->out_im[k]);
        break;
    case ED_OCC: rc = ed_occupation_one(w, q->mu, q->T, &q->density[k], &q->energy[k]); break;
    case ED_OCC_DT:
        rc = ed_occupation_dT_one(w, q->mu, q->T, &q->density[k], &q->energy[k],
                                  &q->ddensity[k], &q->denergy[k]);
        break;
    case ED_DELTA:
        rc = ed_delta_one(w, q->gchanges[k], q->Ts[k], q->mus[k], &q->dS[k]);
        if (!rc && q->err)
            q->err[k] = 0.0;
        break;
    case ED_ACTION:
        rc = ed_action_one(w, q->m, q->Ts + k * q->m, q->mus + k * q->m, q->S + k * q->m,
                           q->err ? q->err + k * q->m : NULL);
        break;
    }
    w->rc = rc;
    if (rc)
        snprintf(w->err, sizeof w->err, "%s", mcf_last_error());
}

static const char *const ed_op_names[] = {"dos", "ldos", "green", "occupation",
                                          "change_action", "action", "occupation_dT"};

/* change_action's input, checked on the calling thread before any work. */
static int ed_delta_check(void *const *ws, size_t n, const ed_request *q)
{
    for (size_t k = 0; k < n; k++) {
        const ed_ws *w = ws[k];
        int rc = mcf_change_check(q->gchanges[k], w->h->dim);
        if (rc)
            return mcf_fail_prefix(rc, "ed: change_action: workspace %zu of %zu", k, n);
        if (!(q->Ts[k] > 0.0) || !isfinite(q->Ts[k]))
            return mcf_fail(MCF_EINVAL,
                            "ed: change_action: workspace %zu of %zu: temperature T = %g must be "
                            "a finite number > 0 (the grand-canonical action needs T > 0; "
                            "approach T = 0 with a small T)",
                            k, n, q->Ts[k]);
        if (!isfinite(q->mus[k]))
            return mcf_fail(MCF_EINVAL,
                            "ed: change_action: workspace %zu of %zu: chemical potential mu = %g "
                            "must be finite",
                            k, n, q->mus[k]);
    }
    return MCF_OK;
}

/* action's input, checked on the calling thread before any work. */
static int ed_action_check(size_t n, const ed_request *q)
{
    for (size_t k = 0; k < n; k++)
        for (size_t p = 0; p < q->m; p++) {
            const double T = q->Ts[k * q->m + p], mu = q->mus[k * q->m + p];
            if (!(T > 0.0) || !isfinite(T))
                return mcf_fail(MCF_EINVAL,
                                "ed: action: workspace %zu of %zu, point %zu: temperature "
                                "T = %g must be a finite number > 0 (the grand-canonical action "
                                "needs T > 0)",
                                k, n, p, T);
            if (!isfinite(mu))
                return mcf_fail(MCF_EINVAL,
                                "ed: action: workspace %zu of %zu, point %zu: chemical "
                                "potential mu = %g must be finite",
                                k, n, p, mu);
        }
    return MCF_OK;
}

static int ed_run(void *const *ws, size_t n, const ed_request *q)
{
    const char *op = ed_op_names[q->what];
    if (!n)
        return MCF_OK;
    if (!ws)
        return mcf_fail(MCF_EINVAL, "ed: %s: the workspace array is NULL", op);
    for (size_t k = 0; k < n; k++)
        if (!ws[k])
            return mcf_fail(MCF_EINVAL, "ed: %s: workspace %zu of %zu is NULL", op, k, n);
    const int curves = q->what == ED_DOS || q->what == ED_LDOS || q->what == ED_GREEN;
    if ((curves && !q->out) || (q->what == ED_GREEN && !q->out_im) ||
        ((q->what == ED_LDOS || q->what == ED_GREEN) && q->n_rows && !q->rows) ||
        (q->what == ED_OCC && (!q->density || !q->energy)) ||
        (q->what == ED_OCC_DT && (!q->density || !q->energy || !q->ddensity || !q->denergy)))
        return mcf_fail(MCF_EINVAL, "ed: %s: an output or row array is NULL", op);
    if (q->what == ED_DELTA) {
        if (!q->gchanges || !q->Ts || !q->mus || !q->dS)
            return mcf_fail(MCF_EINVAL, "ed: change_action: the %s array is NULL",
                            !q->gchanges ? "change" : !q->Ts ? "T" : !q->mus ? "mu" : "dS");
        const int rc = ed_delta_check(ws, n, q);
        if (rc)
            return rc;
    }
    if (q->what == ED_ACTION) {
        if (!q->m)
            return MCF_OK;
        if (!q->Ts || !q->mus || !q->S)
            return mcf_fail(MCF_EINVAL, "ed: action: the %s array is NULL",
                            !q->Ts ? "T" : !q->mus ? "mu" : "S");
        const int rc = ed_action_check(n, q);
        if (rc)
            return rc;
    }
    const long nn = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long k = 0; k < nn; k++)
        ed_run_one(ws[k], q, (size_t)k);
    return ed_batch_status(ws, n);
}

int ed_batch_status(void *const *ws, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const ed_ws *w = ws[k];
        if (w->rc)
            return n > 1 ? mcf_fail(w->rc, "%s (workspace %zu of %zu)", w->err, k, n)
                         : mcf_fail(w->rc, "%s", w->err);
    }
    return MCF_OK;
}

/* the grid's size and the curves asked for, in the order of the SDK's adapter for ABI 1
 * (core/sdk/fermion_abi1.c): energies, LDOS, Green's functions, DOS.  No moments. */
int ed_spectra(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs, mcf_spectra *s)
{
    (void)b;
    (void)rngs; /* exact: no random vectors */
    if (!s)
        return mcf_fail(MCF_EINVAL, "ed: spectra: the request is NULL");
    s->points = n && ws && ws[0] ? ((const ed_ws *)ws[0])->points : 0;
    s->moments = 0;
    if (s->dos_moments || s->dos_moments_var || s->ldos_moments || s->moment_scale)
        return mcf_fail(MCF_EINVAL, "ed: spectra: ed has no Chebyshev moments (use kpm)");
    for (size_t k = 0; s->energies && k < n; k++) {
        if (!ws || !ws[k] || !s->energies[k])
            return mcf_fail(MCF_EINVAL, "ed: energies: the %s is NULL",
                            !ws || !ws[k] ? "workspace" : "output array");
        ed_grid(ws[k], s->energies[k]);
    }
    int rc = MCF_OK;
    if (s->ldos) {
        const ed_request q = {.what = ED_LDOS, .out = s->ldos, .rows = s->rows,
                              .n_rows = s->n_rows};
        rc = ed_run(ws, n, &q);
    }
    if (!rc && (s->green_re || s->green_im)) {
        const ed_request q = {.what = ED_GREEN, .out = s->green_re, .out_im = s->green_im,
                              .rows = s->rows, .n_rows = s->n_rows};
        rc = ed_run(ws, n, &q);
    }
    if (!rc && s->dos) {
        const ed_request q = {.what = ED_DOS, .out = s->dos};
        rc = ed_run(ws, n, &q);
    }
    return rc;
}

int ed_occupation(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                  double T, const mcf_occupation *out)
{
    (void)b;
    (void)rngs;
    const int dT = out && (out->ddensity || out->denergy);
    const char *op = dT ? "occupation_dT" : "occupation";
    if (!out || !out->ddensity != !out->denergy)
        return mcf_fail(MCF_EINVAL, "ed: %s: an output array is NULL (the derivatives come in "
                        "pairs)", op);
    if (!isfinite(mu))
        return mcf_fail(MCF_EINVAL, "ed: %s: chemical potential mu = %g must be finite", op,
                        mu);
    if (dT && (!(T > 0.0) || !isfinite(T)))
        return mcf_fail(MCF_EINVAL, "ed: occupation_dT: temperature T = %g must be a finite "
                        "number > 0 (the T = 0 step has no temperature derivative; use a small "
                        "T > 0)", T);
    if (!(T >= 0.0))
        return mcf_fail(MCF_EINVAL, "ed: occupation: temperature T = %g must be >= 0", T);
    const ed_request q = {.what = dT ? ED_OCC_DT : ED_OCC, .mu = mu, .T = T,
                          .density = out->density, .energy = out->energy,
                          .ddensity = out->ddensity, .denergy = out->denergy};
    return ed_run(ws, n, &q);
}

int ed_change_action(mcf_batch *b, void *const *ws, size_t n, const mcf_change *const *changes,
                     const double *T, const double *mu, double *dS, double *err)
{
    (void)b;
    const ed_request q = {
        .what = ED_DELTA, .gchanges = changes, .Ts = T, .mus = mu, .dS = dS, .err = err};
    return ed_run(ws, n, &q);
}

int ed_action(mcf_batch *b, void *const *ws, size_t n, size_t m, const double *T,
              const double *mu, double *S, double *err)
{
    (void)b;
    const ed_request q = {
        .what = ED_ACTION, .m = m, .Ts = T, .mus = mu, .S = S, .err = err};
    return ed_run(ws, n, &q);
}
