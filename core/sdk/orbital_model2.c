/* orbital_model2.c — the helpers of mcf/orbital_model.h as a model of ABI 2 sees them (the
 * _v2 symbols): every verb of the evaluator checked and passed on through orbital_calls.h,
 * whichever ABI the evaluator has; the evaluator of a batched call is the batch's. */
#include "mcf/orbital_model.h"

#include "mcf/error.h"
#include "orbital_calls.h"

#include <math.h>

int mcf_orbital_bind(const mcf_services *s, const mcf_params *model_params, const char *model,
                     unsigned needs, mcf_orbital *out)
{
    const char *origin;
    const mcf_plugin_info *e = mcfi_om_bind(s, model_params, model, needs, &origin);
    if (!e)
        return MCF_EINVAL;
    *out = (mcf_orbital){.evaluator = e, .name = e->name, .params = s->evaluator_params,
                         .model = model, .origin = origin};
    return MCF_OK;
}

static mcfi_orbital_target target(const mcf_orbital *o)
{
    return mcfi_orbital_target_of(o->evaluator, NULL, o->model);
}

int mcf_orbital_has(const mcf_orbital *o, unsigned needs)
{
    if (!o || !o->evaluator)
        return 0;
    const mcfi_orbital_target t = target(o);
    return !mcfi_orbital_missing(&t, needs);
}

int mcf_orbital_workspace(const mcf_orbital *o, const mcf_pw_orbitals *orbitals, void **ws)
{
    *ws = NULL;
    const mcfi_orbital_target t = target(o);
    const char *bad = mcfi_orbital_missing(&t, 0);
    if (bad)
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s %s (bind it first: "
                        "mcf_orbital_bind)", o->model, o->name, bad);
    int rc = mcfi_orbital_create(&t, o->params, orbitals, ws);
    if (rc) {
        *ws = NULL;
        return mcf_fail_prefix(rc, "%s: evaluator %s", o->model, o->name);
    }
    return MCF_OK;
}

void mcf_orbital_release(const mcf_orbital *o, void *ws)
{
    if (o && o->evaluator && ws) {
        const mcfi_orbital_target t = target(o);
        mcfi_orbital_destroy(&t, ws);
    }
}

/* ---- checks ----------------------------------------------------------------------- */

/* "MCF_ORBITAL_DETERMINANTS", "MCF_ORBITAL_WALKER_SWEEP" or "MCF_ORBITAL_DRIFT_SWEEP" */
static const char *bit_name(unsigned bit)
{
    return bit == MCF_ORBITAL_WALKER_SWEEP  ? "MCF_ORBITAL_WALKER_SWEEP"
           : bit == MCF_ORBITAL_DRIFT_SWEEP ? "MCF_ORBITAL_DRIFT_SWEEP"
                                            : "MCF_ORBITAL_DETERMINANTS";
}

/* t provides `bit` (0: nothing to check), or a message for `op` */
static int provided(const mcfi_orbital_target *t, unsigned bit, const char *op)
{
    const char *why = mcfi_orbital_missing(t, bit);
    if (why)
        return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: the evaluator %s (bind it with %s, "
                        "or ask mcf_orbital_has first)", t->model, t->name, op, why,
                        bit_name(bit));
    return MCF_OK;
}

/* the target of a batched call (the batch's evaluator, with `bit`), or a message */
static int bound(mcf_batch *b, unsigned bit, const char *op, mcfi_orbital_target *t)
{
    *t = mcfi_orbital_target_of(mcf_batch_evaluator(b), b, mcf_batch_model(b));
    if (!t->ops1 && !t->ops2)
        return mcf_fail(MCF_EINTERNAL, "%s: %s: the batch has no orbital evaluator (the core "
                        "sets it: mcf_batch_set_evaluator; a bug, please report it)", t->model,
                        op);
    return provided(t, bit, op);
}

static int null_arg(const mcfi_orbital_target *t, const char *op, const char *what, size_t n)
{
    return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: NULL %s for a batch of %zu; pass one "
                    "entry per workspace", t->model, t->name, op, what, n);
}

static int bad_spin(const mcfi_orbital_target *t, const char *op, int spin, size_t k)
{
    return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: spin %d (entry %zu); a workspace "
                    "holds the determinants of spin 0 (up) and 1 (down)", t->model, t->name,
                    op, spin, k);
}

/* one determinant (ws, spin) */
static int check_det(const mcfi_orbital_target *t, const char *op, const void *ws, int spin)
{
    if (!ws)
        return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: NULL workspace", t->model, t->name,
                        op);
    return spin == 0 || spin == 1 ? MCF_OK : bad_spin(t, op, spin, 0);
}

/* n determinants (ws[k], spin[k]) */
static int check_dets(const mcfi_orbital_target *t, const char *op, void *const *ws,
                      const int *spin, size_t n)
{
    if (!ws || !spin)
        return null_arg(t, op, !ws ? "workspace array" : "spin array", n);
    for (size_t k = 0; k < n; k++) {
        if (!ws[k])
            return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: workspace %zu of %zu is NULL",
                            t->model, t->name, op, k, n);
        if (spin[k] != 0 && spin[k] != 1)
            return bad_spin(t, op, spin[k], k);
    }
    return MCF_OK;
}

/* every entry of a per-determinant array set */
static int check_each(const mcfi_orbital_target *t, const char *op, const char *what,
                      const void *const *a, size_t n)
{
    if (!a)
        return null_arg(t, op, what, n);
    for (size_t k = 0; k < n; k++)
        if (!a[k])
            return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: entry %zu of the %s is NULL",
                            t->model, t->name, op, k, what);
    return MCF_OK;
}

/* the result of calling `op`: its message prefixed */
static int called(const mcfi_orbital_target *t, const char *op, int rc)
{
    return rc ? mcf_fail_prefix(rc, "%s: evaluator %s: %s", t->model, t->name, op) : MCF_OK;
}

/* ---- the verbs -------------------------------------------------------------------- */

int mcf_orbital_evaluate(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                         const size_t *n_points, double *const *phi, double *const *grad,
                         double *const *lap)
{
    static const char op[] = "evaluate";
    mcfi_orbital_target t;
    int rc = n ? bound(b, 0, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    if (!ws || !r || !n_points || !phi)
        return null_arg(&t, op, !ws ? "workspace array" : !r ? "position array"
                                : !n_points ? "n_points array" : "phi array", n);
    if (!grad != !lap)
        return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: grad %s NULL but lap %s; pass "
                        "both (values, gradients, Laplacians) or neither (values)", t.model,
                        t.name, op, grad ? "is not" : "is", lap ? "is not" : "is");
    return called(&t, op, mcfi_orbital_evaluate(&t, ws, n, r, n_points, phi, grad, lap));
}

int mcf_orbital_det_set(const mcf_orbital *o, void *ws, int spin, size_t m, const double *r,
                        const double *A, const double *Ainv)
{
    static const char op[] = "det_set";
    if (!o || !o->evaluator)
        return mcf_fail(MCF_EINTERNAL, "det_set: no orbital evaluator bound (a bug in the "
                        "model)");
    const mcfi_orbital_target t = target(o);
    int rc = provided(&t, MCF_ORBITAL_DETERMINANTS, op);
    rc = rc ? rc : check_det(&t, op, ws, spin);
    if (!rc && m && (!r || !A || !Ainv))
        rc = mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: NULL %s for %zu electrons", t.model,
                      t.name, op, !r ? "positions" : !A ? "rows" : "inverse", m);
    return rc ? rc : called(&t, op, mcfi_orbital_det_set(&t, ws, spin, m, r, A, Ainv));
}

int mcf_orbital_det_get(const mcf_orbital *o, void *ws, int spin, double *r, double *A,
                        double *Ainv)
{
    static const char op[] = "det_get";
    if (!o || !o->evaluator)
        return mcf_fail(MCF_EINTERNAL, "det_get: no orbital evaluator bound (a bug in the "
                        "model)");
    const mcfi_orbital_target t = target(o);
    int rc = provided(&t, MCF_ORBITAL_DETERMINANTS, op);
    rc = rc ? rc : check_det(&t, op, ws, spin);
    return rc ? rc : called(&t, op, mcfi_orbital_det_get(&t, ws, spin, r, A, Ainv));
}

int mcf_orbital_det_trial(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                          const double *const *r_trial)
{
    static const char op[] = "det_trial";
    mcfi_orbital_target t;
    int rc = n ? bound(b, MCF_ORBITAL_DETERMINANTS, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    rc = check_dets(&t, op, ws, spin, n);
    rc = rc ? rc : check_each(&t, op, "trial positions", (const void *const *)r_trial, n);
    return rc ? rc : called(&t, op, mcfi_orbital_det_trial(&t, ws, spin, n, r_trial));
}

int mcf_orbital_det_ratio(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                          const size_t *electron, double *ratio)
{
    static const char op[] = "det_ratio";
    mcfi_orbital_target t;
    int rc = n ? bound(b, MCF_ORBITAL_DETERMINANTS, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    rc = check_dets(&t, op, ws, spin, n);
    if (!rc && (!electron || !ratio))
        rc = null_arg(&t, op, !electron ? "electron array" : "ratio array", n);
    return rc ? rc : called(&t, op, mcfi_orbital_det_ratio(&t, ws, spin, n, electron, ratio));
}

int mcf_orbital_det_accept(mcf_batch *b, void *ws, int spin, size_t electron)
{
    static const char op[] = "det_accept";
    mcfi_orbital_target t;
    int rc = bound(b, MCF_ORBITAL_DETERMINANTS, op, &t);
    rc = rc ? rc : check_det(&t, op, ws, spin);
    return rc ? rc : called(&t, op, mcfi_orbital_det_accept(&t, ws, spin, electron));
}

int mcf_orbital_det_refresh(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                            double *drift)
{
    static const char op[] = "det_refresh";
    mcfi_orbital_target t;
    int rc = n ? bound(b, MCF_ORBITAL_DETERMINANTS, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    rc = check_dets(&t, op, ws, spin, n);
    if (!rc && !drift)
        rc = null_arg(&t, op, "drift array", n);
    return rc ? rc : called(&t, op, mcfi_orbital_det_refresh(&t, ws, spin, n, drift));
}

int mcf_orbital_det_local(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                          double *const *grad_ratio, double *const *lap_ratio)
{
    static const char op[] = "det_local";
    mcfi_orbital_target t;
    int rc = n ? bound(b, MCF_ORBITAL_DETERMINANTS, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    rc = check_dets(&t, op, ws, spin, n);
    rc = rc ? rc : check_each(&t, op, "gradient ratios", (const void *const *)grad_ratio, n);
    rc = rc ? rc : check_each(&t, op, "Laplacian ratios", (const void *const *)lap_ratio, n);
    return rc ? rc
              : called(&t, op, mcfi_orbital_det_local(&t, ws, spin, n, grad_ratio, lap_ratio));
}

int mcf_orbital_walker_sweep(mcf_batch *b, const mcf_walker *w, size_t n,
                             const mcf_pair_function u[2], const double cell[3], size_t delay)
{
    static const char op[] = "walker_sweep";
    mcfi_orbital_target t;
    int rc = n ? bound(b, MCF_ORBITAL_WALKER_SWEEP, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    if (!w || !u || !cell)
        return null_arg(&t, op, !w ? "walker array" : !u ? "pair function" : "cell", n);
    for (size_t k = 0; k < n; k++) {
        const char *what = !w[k].ws ? "workspace" : !w[k].r ? "positions"
                           : !w[k].trial ? "trial positions" : !w[k].rng ? "stream"
                           : !w[k].accepted ? "accepted array" : NULL;
        if (what)
            return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: the %s of walker %zu of %zu "
                            "is NULL", t.model, t.name, op, what, k, n);
    }
    return called(&t, op, mcfi_orbital_walker_sweep(&t, w, n, u, cell, delay));
}

int mcf_orbital_walker_drift_sweep(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                                   const mcf_pair_function u[2], const double cell[3])
{
    static const char op[] = "walker_drift_sweep";
    mcfi_orbital_target t;
    int rc = n ? bound(b, MCF_ORBITAL_DRIFT_SWEEP, op, &t) : MCF_OK;
    if (rc || !n)
        return rc;
    if (!w || !u || !cell)
        return null_arg(&t, op, !w ? "walker array" : !u ? "pair function" : "cell", n);
    for (size_t k = 0; k < n; k++) {
        const mcf_walker *x = &w[k].w;
        const char *what = !x->ws ? "workspace" : !x->r ? "positions" : !w[k].chi ? "Gaussians"
                           : !x->rng ? "stream" : !x->accepted ? "accepted array" : NULL;
        if (what)
            return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: the %s of walker %zu of %zu "
                            "is NULL", t.model, t.name, op, what, k, n);
        if (!(w[k].tau > 0.0) || !isfinite(w[k].tau))
            return mcf_fail(MCF_EINVAL, "%s: evaluator %s: %s: walker %zu of %zu has time "
                            "step %g (positive, finite)", t.model, t.name, op, k, n, w[k].tau);
    }
    return called(&t, op, mcfi_orbital_walker_drift_sweep(&t, w, n, u, cell));
}
