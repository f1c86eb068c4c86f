/* orbital_abi1_view.c — the down adapter (docs/sdk-1.md): an ABI-1 model that binds an
 * ABI-2 orbital evaluator gets this mcf_orbital_ops, whose ops pass every call on to the
 * evaluator.
 *
 * create has no workspace to find the evaluator by, and ABI 1's create no app_data: it
 * takes the evaluator recorded by the bind (a run has one).  A workspace of the view wraps
 * the evaluator's with a batch of its own (its evaluator set, as the core sets a run's)
 * and remembers L, the number of orbitals it was created for (ABI 2 has no `orbitals`).
 * A batched call hands the evaluator the batch of its first workspace (the chain that
 * leads the model's batch, whose workspace ABI-1 evaluators kept batch state in).
 *
 * Determinants: ABI 2 keeps a walker's two in its workspace, addressed by spin; ABI 1 hands
 * out handles.  The view's det_create(ws, m) hands out the handle of spin 0, then of spin
 * 1, of that workspace (a third is refused), and remembers m for det_set; det_destroy
 * empties it (det_set with m = 0).  Private to the SDK library. */
#include "orbital_calls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mcf/error.h"

static _Atomic(const mcf_plugin_info *) bound_evaluator;
static _Atomic(const char *) bound_model;

typedef struct view_ws view_ws;

/* the handle of determinant `spin` of workspace w */
typedef struct view_det {
    view_ws *w;
    int spin;
    size_t m;  /* its electrons (det_create) */
    int used;  /* handed out and not destroyed */
} view_det;

struct view_ws {
    const mcf_orbital_evaluator *ops;
    void *inner;
    mcf_batch *batch;
    size_t L;
    view_det det[2];
};

static int no_evaluator(void)
{
    return mcf_fail(MCF_EINTERNAL, "no orbital evaluator bound (a bug, please report it)");
}

static int view_create(const mcf_params *params, const mcf_pw_orbitals *o, void **ws)
{
    const mcf_plugin_info *e = atomic_load(&bound_evaluator);
    if (!ws)
        return mcf_fail(MCF_EINVAL, "create: NULL output pointer");
    *ws = NULL;
    if (!e)
        return no_evaluator();
    view_ws *w = calloc(1, sizeof *w);
    if (!w || !(w->batch = mcf_batch_create())) {
        free(w);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    mcf_batch_set_evaluator(w->batch, e, atomic_load(&bound_model));
    w->ops = e->ops;
    void *app_data = MCF_PLUGIN_INFO_HAS(e, app_data) ? e->app_data : NULL;
    int rc = w->ops->create(params, o, app_data, &w->inner);
    if (rc) {
        mcf_batch_destroy(w->batch);
        free(w);
        return rc;
    }
    w->L = o->n_orbitals; /* o was checked by create */
    for (int s = 0; s < 2; s++)
        w->det[s] = (view_det){.w = w, .spin = s};
    *ws = w;
    return MCF_OK;
}

static void view_destroy(void *ws)
{
    view_ws *w = ws;
    if (!w)
        return;
    w->ops->destroy(w->inner);
    mcf_batch_destroy(w->batch);
    free(w);
}

static size_t view_orbitals(const void *ws)
{
    return ws ? ((const view_ws *)ws)->L : 0;
}

/* the result of an ABI-2 call over `in`, after freeing in */
static int done(void **in, int rc)
{
    free(in);
    return rc;
}

/* values and vgl: the evaluator's workspaces of ws[0..n) (malloc'd: the batch's scratch
 * is the evaluator's during the call; NULL stays NULL, for the evaluator to name), with the
 * batch of the first */
static int evaluate(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
                    double *const *phi, double *const *grad, double *const *lap)
{
    if (!n)
        return MCF_OK;
    if (!ws || !ws[0])
        return mcf_fail(MCF_EINVAL, "NULL workspace %s for a batch of %zu",
                        ws ? "0" : "array", n);
    void **in = malloc(n * sizeof *in);
    if (!in)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++)
        in[k] = ws[k] ? ((view_ws *)ws[k])->inner : NULL;
    const view_ws *w0 = ws[0];
    return done(in, w0->ops->evaluate(w0->batch, in, n, r, n_points, phi, grad, lap));
}

static int view_values(void *const *ws, size_t n, const double *const *r,
                       const size_t *n_points, double *const *phi)
{
    return evaluate(ws, n, r, n_points, phi, NULL, NULL);
}

static int view_vgl(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
                    double *const *phi, double *const *grad, double *const *lap)
{
    if (n && (!grad || !lap)) /* NULL would ask ABI 2 for values only */
        return mcf_fail(MCF_EINVAL, "vgl: NULL %s array for a batch of %zu workspaces",
                        !grad ? "grad" : "lap", n);
    return evaluate(ws, n, r, n_points, phi, grad, lap);
}

/* ---- determinants ----------------------------------------------------------------- */

static int view_det_create(void *ws, size_t m, void **det)
{
    view_ws *w = ws;
    if (!w || !det)
        return mcf_fail(MCF_EINVAL, "det_create: NULL %s", !w ? "workspace" : "output");
    *det = NULL;
    if (m < 1 || m > w->L)
        return mcf_fail(MCF_EINVAL, "det_create: %zu electrons; a determinant holds 1 .. %zu "
                        "(the orbitals)", m, w->L);
    for (int s = 0; s < 2; s++)
        if (!w->det[s].used) {
            w->det[s].used = 1;
            w->det[s].m = m;
            *det = &w->det[s];
            return MCF_OK;
        }
    return mcf_fail(MCF_EINVAL, "det_create: the workspace holds two determinants already "
                    "(spin up and down, ABI 2); destroy one first");
}

static void view_det_destroy(void *det)
{
    view_det *d = det;
    if (!d || !d->used)
        return;
    d->used = 0;
    (void)d->w->ops->det_set(d->w->inner, d->spin, 0, NULL, NULL, NULL); /* empties it */
}

static int view_det_set(void *det, const double *r, const double *A, const double *Ainv)
{
    const view_det *d = det;
    if (!d)
        return mcf_fail(MCF_EINVAL, "det_set: NULL determinant");
    return d->w->ops->det_set(d->w->inner, d->spin, d->m, r, A, Ainv);
}

static int view_det_get(void *det, double *r, double *A, double *Ainv)
{
    const view_det *d = det;
    if (!d)
        return mcf_fail(MCF_EINVAL, "det_get: NULL determinant");
    return d->w->ops->det_get(d->w->inner, d->spin, r, A, Ainv);
}

/* The (workspace, spin) pairs of dets[0..n) into *in (one malloc: *spin follows the
 * workspaces; NULL for n = 0) and the view's workspace of the first, which lends its
 * batch. */
static int pairs(void *const *dets, size_t n, void ***in, int **spin, const view_ws **w0)
{
    *in = NULL;
    *w0 = NULL;
    if (!n)
        return MCF_OK;
    if (!dets)
        return mcf_fail(MCF_EINVAL, "NULL determinant array for a batch of %zu", n);
    void **p = malloc(n * (sizeof *p + sizeof **spin));
    if (!p)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    *spin = (int *)(p + n);
    for (size_t k = 0; k < n; k++) {
        const view_det *d = dets[k];
        if (!d) {
            free(p);
            return mcf_fail(MCF_EINVAL, "determinant %zu of %zu is NULL", k, n);
        }
        p[k] = d->w->inner;
        (*spin)[k] = d->spin;
    }
    *w0 = ((const view_det *)dets[0])->w;
    *in = p;
    return MCF_OK;
}

static int view_det_trial(void *const *det, size_t n, const double *const *r_trial)
{
    int *spin;
    void **in;
    const view_ws *w0;
    int rc = pairs(det, n, &in, &spin, &w0);
    if (rc || !in)
        return rc;
    return done(in, w0->ops->det_trial(w0->batch, in, spin, n, r_trial));
}

static int view_det_ratio(void *const *det, size_t n, const size_t *electron, double *ratio)
{
    int *spin;
    void **in;
    const view_ws *w0;
    int rc = pairs(det, n, &in, &spin, &w0);
    if (rc || !in)
        return rc;
    return done(in, w0->ops->det_ratio(w0->batch, in, spin, n, electron, ratio));
}

static int view_det_accept(void *det, size_t electron)
{
    const view_det *d = det;
    if (!d)
        return mcf_fail(MCF_EINVAL, "det_accept: NULL determinant");
    return d->w->ops->det_accept(d->w->batch, d->w->inner, d->spin, electron);
}

static int view_det_refresh(void *const *det, size_t n, double *drift)
{
    int *spin;
    void **in;
    const view_ws *w0;
    int rc = pairs(det, n, &in, &spin, &w0);
    if (rc || !in)
        return rc;
    return done(in, w0->ops->det_refresh(w0->batch, in, spin, n, drift));
}

static int view_det_local(void *const *det, size_t n, double *const *grad_ratio,
                          double *const *lap_ratio)
{
    int *spin;
    void **in;
    const view_ws *w0;
    int rc = pairs(det, n, &in, &spin, &w0);
    if (rc || !in)
        return rc;
    return done(in, w0->ops->det_local(w0->batch, in, spin, n, grad_ratio, lap_ratio));
}

/* ABI 1's walkers as ABI 2's: the workspace of their determinants, which must be spin 0
 * (up) and 1 (down) of it, as ABI 2 counts the electrons */
static int view_walker_sweep(mcf_walker_moves *wm, size_t n, const mcf_pair_function u[2],
                             const double cell[3], size_t delay)
{
    if (!n)
        return MCF_OK;
    if (!wm)
        return mcf_fail(MCF_EINVAL, "walker_sweep: NULL walker array for %zu walkers", n);
    mcf_walker *w = malloc(n * sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    const view_ws *w0 = NULL;
    for (size_t k = 0; k < n; k++) {
        const view_det *d0 = wm[k].det[0], *d1 = wm[k].det[1];
        const view_det *d = d0 ? d0 : d1;
        if (!d || (d0 && d0->spin != 0) || (d1 && d1->spin != 1) ||
            (d0 && d1 && d0->w != d1->w)) {
            free(w);
            return mcf_fail(MCF_EINVAL, "walker_sweep: walker %zu of %zu: %s", k, n,
                            !d ? "no determinants"
                               : "det[0] and det[1] must be the first and the second "
                                 "determinant created on one workspace (spin up, down)");
        }
        if (!w0)
            w0 = d->w;
        w[k] = (mcf_walker){d->w->inner, wm[k].r, wm[k].trial, wm[k].rng, wm[k].accepted,
                            wm[k].log_ratio};
    }
    const int rc = w0->ops->walker_sweep(w0->batch, w, n, u, cell, delay);
    free(w);
    return rc;
}

/* the view of an evaluator providing everything */
static const mcf_orbital_ops view_all = {
    .struct_size = sizeof(mcf_orbital_ops),
    .create = view_create,
    .destroy = view_destroy,
    .orbitals = view_orbitals,
    .values = view_values,
    .vgl = view_vgl,
    .det_create = view_det_create,
    .det_destroy = view_det_destroy,
    .det_set = view_det_set,
    .det_get = view_det_get,
    .det_trial = view_det_trial,
    .det_ratio = view_det_ratio,
    .det_accept = view_det_accept,
    .det_refresh = view_det_refresh,
    .det_local = view_det_local,
    .walker_sweep = view_walker_sweep,
};

/* the views made: one for each set of provides bits */
const mcf_orbital_ops *mcfi_orbital_abi1_view(const mcf_plugin_info *e, const char *model)
{
    static mcf_orbital_ops views[3];
    static int made[3];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    atomic_store(&bound_model, model);
    atomic_store(&bound_evaluator, e);
    const mcfi_orbital_target t = mcfi_orbital_target_of(e, NULL, model);
    const unsigned p = mcfi_orbital_provides(&t);
    /* what the evaluator lacks is NULL, so an ABI-1 model's checks see the truth */
    const int k = (p & MCF_ORBITAL_WALKER_SWEEP) ? 2 : (p & MCF_ORBITAL_DETERMINANTS) ? 1 : 0;
    pthread_mutex_lock(&lock);
    if (!made[k]) {
        mcf_orbital_ops ops = view_all;
        if (k < 1)
            ops.det_create = NULL, ops.det_destroy = NULL, ops.det_set = NULL,
            ops.det_get = NULL, ops.det_trial = NULL, ops.det_ratio = NULL,
            ops.det_accept = NULL, ops.det_refresh = NULL, ops.det_local = NULL;
        if (k < 2)
            ops.walker_sweep = NULL;
        views[k] = ops;
        made[k] = 1;
    }
    pthread_mutex_unlock(&lock);
    return &views[k];
}
