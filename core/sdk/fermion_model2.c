/* fermion_model2.c — the helpers of mcf/fermion_model.h as a model of ABI 2 sees them
 * (the _v2 symbols): the evaluator of a batched call is the batch's. */
#include "mcf/fermion_model.h"

#include <math.h>
#include <stdlib.h>

#include "fermion_model_internal.h"
#include "mcf/error.h"
#include "mcf/response.h"

int mcf_fermion_bind(const mcf_services *s, const mcf_params *model_params, const char *model,
                     unsigned needs, mcf_fermion *out)
{
    const char *origin;
    const mcf_plugin_info *e = mcfi_fm_bind(s, model_params, model, needs, &origin);
    if (!e)
        return MCF_EINVAL;
    *out = (mcf_fermion){.evaluator = e, .name = e->name, .params = s->evaluator_params,
                         .model = model, .origin = origin};
    return MCF_OK;
}

static mcfi_fermion_target target(const mcf_fermion *f)
{
    return mcfi_fermion_target_of(f->evaluator, NULL, f->model);
}

int mcf_fermion_has(const mcf_fermion *f, unsigned needs)
{
    if (!f || !f->evaluator)
        return 0;
    const mcfi_fermion_target t = target(f);
    return !mcfi_fm_missing(&t, needs);
}

int mcf_fermion_workspace(const mcf_fermion *f, const mcf_hamiltonian *h, void **ws)
{
    *ws = NULL;
    const mcfi_fermion_target t = target(f);
    int rc = mcfi_fermion_create(&t, f->params, h, ws);
    if (rc) {
        *ws = NULL;
        return mcf_fail_prefix(rc, "%s: evaluator %s", f->model, f->name);
    }
    return MCF_OK;
}

void mcf_fermion_release(const mcf_fermion *f, void *ws)
{
    if (f && f->evaluator && ws) {
        const mcfi_fermion_target t = target(f);
        mcfi_fermion_destroy(&t, ws);
    }
}

size_t mcf_fermion_grid(const mcf_fermion *f, void *ws, double *E)
{
    const mcfi_fermion_target t = target(f);
    if (mcfi_fm_missing(&t, MCF_FERMION_DOS) && mcfi_fm_missing(&t, MCF_FERMION_LDOS) &&
        mcfi_fm_missing(&t, MCF_FERMION_GREEN)) {
        mcf_fail(MCF_EINTERNAL, "%s: evaluator %s has no energy grid (bind it with "
                 "MCF_FERMION_DOS, LDOS or GREEN)", f->model, f->name);
        return 0;
    }
    mcf_spectra s = {.energies = E ? &E : NULL};
    int rc = mcfi_fermion_spectra(&t, &ws, 1, NULL, &s);
    if (rc) {
        mcf_fail_prefix(rc, "%s: evaluator %s: energies", f->model, f->name);
        return 0;
    }
    return s.points;
}

/* the target of a batched call: the batch's evaluator */
static mcfi_fermion_target batch_target(const mcf_fermion_batch *a)
{
    return mcfi_fermion_target_of(mcf_batch_evaluator(a->batch), a->batch,
                                  mcf_batch_model(a->batch));
}

static mcfi_fermion_arrays arrays(const mcf_fermion_batch *a)
{
    return (mcfi_fermion_arrays){a->ws, a->rngs, a->changes, a->T, a->mu, a->dS,
                                 a->err, a->density, a->energy, a->index};
}

static void from_arrays(const mcfi_fermion_arrays *x, mcf_batch *b, mcf_fermion_batch *a)
{
    *a = (mcf_fermion_batch){x->ws, x->rngs, x->changes, x->T, x->mu, x->dS,
                             x->err, x->density, x->energy, x->index, b};
}

int mcf_fermion_batch_get(mcf_batch *b, size_t n, mcf_fermion_batch *out)
{
    mcfi_fermion_arrays x;
    const int rc = mcfi_fm_batch_get(b, n, &x);
    if (!rc)
        from_arrays(&x, b, out);
    return rc;
}

int mcf_fermion_heat_get(mcf_batch *b, size_t n, mcf_fermion_batch *a, mcf_fermion_heat *h)
{
    mcfi_fermion_arrays x;
    const int rc = mcfi_fm_heat_get(b, n, &x, h);
    if (!rc)
        from_arrays(&x, b, a);
    return rc;
}

/* the batch's target, or a message when the core set no evaluator on it */
static int bound(const mcf_fermion_batch *a, size_t n, mcfi_fermion_target *t)
{
    *t = batch_target(a);
    if (n && !t->ops1 && !t->ops2)
        return mcf_fail(MCF_EINTERNAL, "%s: the batch has no fermion evaluator (the core sets "
                        "it: mcf_batch_set_evaluator; a bug, please report it)", t->model);
    return MCF_OK;
}

int mcf_fermion_change_action(const mcf_fermion_batch *a, size_t n)
{
    mcfi_fermion_target t;
    const mcfi_fermion_arrays x = arrays(a);
    int rc = bound(a, n, &t);
    return rc ? rc : mcfi_fm_change_action(&t, &x, n);
}

int mcf_fermion_occupation(const mcf_fermion_batch *a, size_t n)
{
    mcfi_fermion_target t;
    const mcfi_fermion_arrays x = arrays(a);
    int rc = bound(a, n, &t);
    return rc ? rc : mcfi_fm_occupation(&t, &x, n, NULL, NULL);
}

int mcf_fermion_occupation_dT(const mcf_fermion_batch *a, size_t n, double *ddensity,
                              double *denergy)
{
    mcfi_fermion_target t;
    const mcfi_fermion_arrays x = arrays(a);
    int rc = bound(a, n, &t);
    if (!rc && n && (!ddensity || !denergy))
        rc = mcf_fail(MCF_EINVAL, "%s: mcf_fermion_occupation_dT without output arrays",
                      t.model);
    return rc ? rc : mcfi_fm_occupation(&t, &x, n, ddensity, denergy);
}

int mcf_fermion_occupation_heat(const mcf_fermion_batch *a, size_t n, const mcf_fermion_heat *h)
{
    mcfi_fermion_target t;
    const mcfi_fermion_arrays x = arrays(a);
    int rc = bound(a, n, &t);
    return rc ? rc : mcfi_fm_occupation_heat(&t, &x, n, h);
}

size_t mcf_fermion_moment_points(const mcf_fermion *f, const void *ws, size_t q, double *axis)
{
    if (!f || !f->evaluator)
        return 0;
    const mcfi_fermion_target t = target(f);
    return mcfi_fm_moment_points(&t, ws, q, axis);
}

int mcf_fermion_dos_moments(const mcf_fermion_batch *a, size_t n, double *const *dos,
                            double *const *moments)
{
    mcfi_fermion_target t;
    const mcfi_fermion_arrays x = arrays(a);
    int rc = bound(a, n, &t);
    return rc ? rc : mcfi_fm_dos_moments(&t, &x, n, dos, moments);
}

int mcf_fermion_action(const mcf_fermion_batch *a, size_t n, size_t m, const double *T,
                       const double *mu, double *S, double *err)
{
    mcfi_fermion_target t;
    int rc = bound(a, n, &t);
    if (rc || n == 0)
        return rc;
    if (mcfi_fm_missing(&t, MCF_FERMION_ACTION))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_ACTION (a bug in the model)", t.model, t.name);
    if ((rc = mcfi_fermion_action(&t, a->ws, n, m, T, mu, S, err)))
        return mcf_fail_prefix(rc, "%s: evaluator %s: action", t.model, t.name);
    return MCF_OK;
}

/* the first curve of s that t does not provide, or NULL */
static const char *spectra_missing(const mcfi_fermion_target *t, const mcf_spectra *s)
{
    const unsigned p = mcfi_fermion_provides(t);
    const unsigned grid = MCF_PROVIDES_DOS | MCF_PROVIDES_LDOS | MCF_PROVIDES_GREEN;
    if (s->energies && !(p & grid))
        return "energies";
    if ((s->dos) && !(p & MCF_PROVIDES_DOS))
        return "dos";
    if (s->ldos && !(p & MCF_PROVIDES_LDOS))
        return "ldos";
    if ((s->green_re || s->green_im) && !(p & MCF_PROVIDES_GREEN))
        return "green";
    if ((s->dos_moments || s->dos_moments_var || s->ldos_moments || s->moment_scale) &&
        !(p & MCF_PROVIDES_MOMENTS))
        return "moments";
    return NULL;
}

int mcf_fermion_spectra(const mcf_fermion_batch *a, size_t n, mcf_spectra *s)
{
    mcfi_fermion_target t;
    int rc = bound(a, n, &t);
    if (rc)
        return rc;
    const char *what = spectra_missing(&t, s);
    if (what)
        return mcf_fail(MCF_EINVAL, "%s: evaluator %s has no %s (ask mcf_fermion_has first)",
                        t.model, t.name, what);
    if ((rc = mcfi_fermion_spectra(&t, a->ws, n, a->rngs, s)))
        return mcf_fail_prefix(rc, "%s: evaluator %s: spectra", t.model, t.name);
    for (size_t k = 0; k < n && !rc; k++) {
        const size_t M = s->moments;
        for (size_t m = 0; s->moment_scale && m < 2 && !rc; m++)
            if (!isfinite(s->moment_scale[k][m]))
                rc = mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned the moment scale %g "
                              "(chain %zu of the batch): not finite", t.model, t.name,
                              s->moment_scale[k][m], k);
        for (size_t m = 0; s->dos_moments && m < M && !rc; m++)
            if (!isfinite(s->dos_moments[k][m]))
                rc = mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned the moment %g (moment "
                              "%zu, chain %zu of the batch): not finite", t.model, t.name,
                              s->dos_moments[k][m], m, k);
    }
    return rc;
}

int mcf_fermion_density_matrix(const mcf_fermion_batch *a, size_t n,
                               const mcf_density_matrix *out)
{
    mcfi_fermion_target t;
    int rc = bound(a, n, &t);
    if (rc || n == 0)
        return rc;
    if (mcfi_fm_missing(&t, MCF_FERMION_DENSITY_MATRIX))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_DENSITY_MATRIX (a bug in the model)", t.model, t.name);
    if (!out || !out->diag || !out->bond_re || !out->bond_im)
        return mcf_fail(MCF_EINVAL, "%s: mcf_fermion_density_matrix without output arrays",
                        t.model);
    if ((rc = mcfi_fermion_density_matrix(&t, a->ws, n, a->rngs, a->T, a->mu, out)))
        return mcf_fail_prefix(rc, "%s: evaluator %s: density_matrix", t.model, t.name);
    for (size_t k = 0; k < n; k++)
        if (out->truncation && !(out->truncation[k] >= 0.0))
            return mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned the truncation bound %g "
                            "(chain %zu of the batch): not a number >= 0", t.model, t.name,
                            out->truncation[k], k);
    return MCF_OK;
}

int mcf_fermion_response(const mcf_fermion_batch *a, size_t n, const mcf_response *r)
{
    mcfi_fermion_target t;
    int rc = bound(a, n, &t);
    if (rc || n == 0)
        return rc;
    if (mcfi_fm_missing(&t, MCF_FERMION_RESPONSE))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_RESPONSE (a bug in the model)", t.model, t.name);
    if (!r)
        return mcf_fail(MCF_EINVAL, "%s: mcf_fermion_response without a request", t.model);
    if ((rc = mcfi_fermion_response(&t, a->ws, n, a->rngs, r)))
        return mcf_fail_prefix(rc, "%s: evaluator %s: response", t.model, t.name);
    const size_t MM = r->moments * r->moments;
    for (size_t k = 0; k < n; k++) {
        int finite = !r->moment_scale || (isfinite(r->moment_scale[k][0]) &&
                                          isfinite(r->moment_scale[k][1]));
        for (size_t q = 0; q < MM && finite; q++)
            finite = isfinite(r->mu_re[k][q]) && isfinite(r->mu_im[k][q]);
        if (!finite)
            return mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned response moments or a "
                            "scale that are not finite (chain %zu of the batch)", t.model,
                            t.name, k);
    }
    return MCF_OK;
}

int mcf_fermion_response_curves(const mcf_fermion_batch *a, size_t n, size_t M,
                                const mcf_hamiltonian *const *jx,
                                const mcf_hamiltonian *const *jy, double *const *xx,
                                double *const *xy, const double *const *tail)
{
    if (n == 0)
        return MCF_OK;
    const mcf_hamiltonian **B = malloc(n * sizeof *B);
    double **re = malloc(3 * n * sizeof *re);
    int rc = !B || !re ? mcf_fail(MCF_ENOMEM, "response curves of %zu chains", n) : MCF_OK;
    for (int which = 0; which < 2 && !rc; which++) {
        double *const *out = which ? xy : xx;
        double **im = re + n, **scale = im + n;
        for (size_t k = 0; k < n; k++) {
            B[k] = which ? jy[k] : jx[k];
            re[k] = out[k];
            im[k] = out[k] + M * M;
            scale[k] = out[k] + 2 * M * M;
            for (int q = 0; q < 3; q++)
                out[k][2 * M * M + 2 + (size_t)q] = tail[k][q];
        }
        const mcf_response r = {.moments = M, .op_a = jx, .op_b = B, .mu_re = re,
                                .mu_im = im, .moment_scale = scale};
        if ((rc = mcf_fermion_response(a, n, &r)))
            rc = mcf_fail_prefix(rc, "sigma_%s moments", which ? "xy" : "xx");
    }
    free(B);
    free(re);
    return rc;
}

int mcf_fermion_vector_moments(const mcf_fermion_batch *a, size_t n, const mcf_vector_moments *r)
{
    mcfi_fermion_target t;
    int rc = bound(a, n, &t);
    if (rc || n == 0)
        return rc;
    if (mcfi_fm_missing(&t, MCF_FERMION_VECTOR_MOMENTS))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_VECTOR_MOMENTS (a bug in the model)", t.model, t.name);
    if (!r)
        return mcf_fail(MCF_EINVAL, "%s: mcf_fermion_vector_moments without a request",
                        t.model);
    if ((rc = mcfi_fermion_vector_moments(&t, a->ws, n, r)))
        return mcf_fail_prefix(rc, "%s: evaluator %s: vector_moments", t.model, t.name);
    const size_t len = r->moments * r->vectors;
    for (size_t k = 0; k < n; k++) {
        int finite = !r->moment_scale || (isfinite(r->moment_scale[k][0]) &&
                                          isfinite(r->moment_scale[k][1]));
        for (size_t q = 0; q < len && finite; q++)
            finite = isfinite(r->mu[k][q]);
        if (!finite)
            return mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned vector moments or a scale "
                            "that are not finite (chain %zu of the batch)", t.model, t.name, k);
    }
    return MCF_OK;
}

int mcf_fermion_spectral_curves(const mcf_fermion_batch *a, size_t n, size_t M,
                                const mcf_kpath *path, size_t per_k, const double *const *v,
                                double *const *out)
{
    if (n == 0)
        return MCF_OK;
    if (M < 1 || per_k < 1 || !path || path->points < 1 || !v || !out)
        return mcf_fail(MCF_EINVAL, "spectral moments: M = %zu, %zu vectors a wave vector (both "
                        ">= 1) and a path with points are wanted", M, per_k);
    const size_t nk = path->points, nv = nk * per_k;
    double **mu = malloc(2 * n * sizeof *mu);
    double *buf = mu ? malloc(n * (nv * M + 2) * sizeof *buf) : NULL;
    int rc = !buf ? mcf_fail(MCF_ENOMEM, "spectral moments of %zu chains", n) : MCF_OK;
    if (!rc) {
        double **scale = mu + n;
        for (size_t k = 0; k < n; k++) {
            mu[k] = buf + k * (nv * M + 2);
            scale[k] = mu[k] + nv * M;
        }
        const mcf_vector_moments r = {.moments = M, .vectors = nv, .v = v, .mu = mu,
                                      .moment_scale = scale};
        if ((rc = mcf_fermion_vector_moments(a, n, &r)))
            rc = mcf_fail_prefix(rc, "spectral moments");
    }
    for (size_t k = 0; k < n && !rc; k++) {
        double *o = out[k];
        o[0] = (double)M;
        o[1] = (double)nk;
        o[2] = mu[n + k][0];
        o[3] = mu[n + k][1];
        for (size_t j = 0; j < nk; j++) {
            for (int d = 0; d < 3; d++)
                o[4 + 4 * j + (size_t)d] = path->k[3 * j + (size_t)d];
            o[4 + 4 * j + 3] = path->s[j];
            double *dst = o + 4 + 4 * nk + j * M;
            const double *src = mu[k] + j * per_k * M;
            for (size_t m = 0; m < M; m++) { /* the per_k vectors in order: fixed bits */
                double sum = 0.0;
                for (size_t q = 0; q < per_k; q++)
                    sum += src[q * M + m];
                dst[m] = sum;
            }
        }
    }
    free(buf);
    free(mu);
    return rc;
}

int mcf_fermion_pseudofermion(const mcf_fermion_batch *a, size_t n, mcf_pseudofermion *p)
{
    mcfi_fermion_target t;
    int rc = bound(a, n, &t);
    if (rc || n == 0)
        return rc;
    if (mcfi_fm_missing(&t, MCF_FERMION_PSEUDOFERMION))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_PSEUDOFERMION (a bug in the model)", t.model, t.name);
    if ((rc = mcfi_fermion_pseudofermion(&t, a->ws, n, a->rngs, a->T, a->mu, p)))
        return mcf_fail_prefix(rc, "%s: evaluator %s: pseudofermion", t.model, t.name);
    return MCF_OK;
}
