/* fermion_model.c — binding, workspaces and batched calls of a fermion model's evaluator
 * (mcf/fermion_model.h): the helpers of both ABIs over a target (fermion_calls.h), and
 * ABI 1's public helpers over them (ABI 2's: fermion_model2.c). */
#include "mcf/abi1_fermion_model.h" /* ABI 1's helpers, implemented here (first) */

#include "fermion_model_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"
#include "mcf/plugin.h"

const char *mcfi_fm_missing(const mcfi_fermion_target *t, unsigned needs)
{
    const unsigned p = mcfi_fermion_provides(t);
    if (!p && (!t->ops1 || !t->ops1->create || !t->ops1->destroy) && !t->ops2)
        return "lacks create or destroy (a malformed evaluator)";
    if ((needs & MCF_FERMION_CHANGE_ACTION) && !(p & MCF_PROVIDES_CHANGE_ACTION))
        return "lacks change_action (the action change of a move, every finite-rank change)";
    if ((needs & MCF_FERMION_DELTA_ACTION) &&
        !(t->ops1 && MCF_HAS(mcf_fermion_ops, t->ops1, delta_action)))
        return "lacks delta_action (the action change of a move, mcf 0.2)";
    if ((needs & MCF_FERMION_ACTION) && !(p & MCF_PROVIDES_ACTION))
        return "lacks action (the fermion action itself, for parallel tempering)";
    if ((needs & MCF_FERMION_OCCUPATION) && !(p & MCF_PROVIDES_OCCUPATION))
        return "lacks occupation (density and band energy, for the observables)";
    if ((needs & MCF_FERMION_OCCUPATION_DT) && !(p & MCF_PROVIDES_OCCUPATION_DT))
        return "lacks occupation_dT (the temperature derivatives of density and band "
               "energy, for the specific heat)";
    if ((needs & MCF_FERMION_DOS) && !(p & MCF_PROVIDES_DOS))
        return "lacks dos (the density of states curve)";
    if ((needs & MCF_FERMION_LDOS) && !(p & MCF_PROVIDES_LDOS))
        return "lacks ldos (the local density of states)";
    if ((needs & MCF_FERMION_GREEN) && !(p & MCF_PROVIDES_GREEN))
        return "lacks green (diagonal Green's functions)";
    if ((needs & MCF_FERMION_MOMENTS) && !(p & MCF_PROVIDES_MOMENTS))
        return "lacks dos_moments (Chebyshev moments of the DOS and LDOS)";
    if ((needs & MCF_FERMION_DENSITY_MATRIX) && !(p & MCF_PROVIDES_DENSITY_MATRIX))
        return "lacks density_matrix (the forces dOmega/dH of a global sampler: ed, kpm or "
               "kpm-cuda of mcf 1.1)";
    if ((needs & MCF_FERMION_PSEUDOFERMION) && !(p & MCF_PROVIDES_PSEUDOFERMION))
        return "lacks pseudofermion (the exact weight and forces of hybrid Monte Carlo: ed, "
               "kpm or kpm-cuda of mcf 1.1)";
    if ((needs & MCF_FERMION_RESPONSE) && !(p & MCF_PROVIDES_RESPONSE))
        return "lacks response (two-dimensional Chebyshev moments, for conductivities: ed, "
               "kpm or kpm-cuda of mcf 1.2)";
    if ((needs & MCF_FERMION_VECTOR_MOMENTS) && !(p & MCF_PROVIDES_VECTOR_MOMENTS))
        return "lacks vector_moments (Chebyshev moments of given vectors, for spectral "
               "functions: ed, kpm or kpm-cuda of mcf 1.2)";
    return NULL;
}

const mcf_plugin_info *mcfi_fm_bind(const mcf_services *s, const mcf_params *model_params,
                                    const char *model, unsigned needs, const char **origin)
{
    *origin = model_params ? mcf_params_origin(model_params) : "the configuration";
    const mcf_plugin_info *e =
        s && s->struct_size >= offsetof(mcf_services, evaluator_params) +
                                   sizeof s->evaluator_params
            ? s->evaluator
            : NULL;
    const int fermion = e && e->kind == MCF_PLUGIN_FERMION_EVALUATOR && e->ops;
    const mcfi_fermion_target t = mcfi_fermion_target_of(e, NULL, model);
    const char *why = !e        ? "gives no fermion evaluator, which this model needs"
                      : !fermion ? "is not a fermion evaluator"
                                 : mcfi_fm_missing(&t, needs);
    if (why) {
        mcf_fail(MCF_EINVAL, "%s: [run] evaluator = %s in %s %s; set [run] evaluator = kpm "
                 "(or ed for small lattices)", model, e ? e->name : "none", *origin, why);
        return NULL;
    }
    return e;
}

/* the target of an ABI-1 handle */
static mcfi_fermion_target target1(const mcf_fermion *f)
{
    return (mcfi_fermion_target){.ops1 = f->ops, .model = f->model, .name = f->name};
}

/* ---- what an evaluator provides; reconstruct (both ABIs) -------------------------- */
unsigned mcf_fermion_provides(const mcf_plugin_info *e)
{
    const mcfi_fermion_target t = mcfi_fermion_target_of(e, NULL, "");
    return t.ops1 || t.ops2 ? mcfi_fermion_provides(&t) : 0;
}

int mcf_fermion_reconstruct(const mcf_plugin_info *e, const mcf_params *params,
                            const char *kernel, size_t M, size_t sets, const double *mu,
                            double a, double b, size_t points, const double *E, double *grid,
                            double *out)
{
    if (!(mcf_fermion_provides(e) & MCF_PROVIDES_MOMENTS))
        return mcf_fail(MCF_EINVAL, "evaluator %s cannot reconstruct densities from moments "
                        "(no reconstruct op)", e ? e->name : "none");
    const mcfi_fermion_target t = mcfi_fermion_target_of(e, NULL, "");
    return t.ops2 ? t.ops2->reconstruct(t.app_data, params, kernel, M, sets, mu, a, b, points,
                                        E, grid, out)
                  : t.ops1->reconstruct(params, kernel, M, sets, mu, a, b, points, E, grid,
                                        out);
}

/* ---- ABI 1's public helpers ------------------------------------------------------- */

int mcf_fermion_bind(const mcf_services *s, const mcf_params *model_params, const char *model,
                     unsigned needs, mcf_fermion *out)
{
    const char *origin;
    const mcf_plugin_info *e = mcfi_fm_bind(s, model_params, model, needs, &origin);
    if (!e)
        return MCF_EINVAL;
    /* an ABI-2 evaluator: the ABI-1 view of it (the down adapter) */
    const mcf_fermion_ops *ops = mcfi_fermion_is_abi2(e) ? mcfi_fermion_abi1_view(e) : e->ops;
    *out = (mcf_fermion){.ops = ops, .name = e->name, .params = s->evaluator_params,
                         .model = model, .origin = origin};
    return MCF_OK;
}

int mcf_fermion_has(const mcf_fermion *f, unsigned needs)
{
    if (!f || !f->ops)
        return 0;
    const mcfi_fermion_target t = target1(f);
    return !mcfi_fm_missing(&t, needs);
}

int mcf_fermion_workspace(const mcf_fermion *f, const mcf_hamiltonian *h, void **ws)
{
    *ws = NULL;
    int rc = f->ops->create(f->params, h, ws);
    if (rc) {
        *ws = NULL;
        return mcf_fail_prefix(rc, "%s: evaluator %s", f->model, f->name);
    }
    return MCF_OK;
}

static mcfi_fermion_arrays arrays1(const mcf_fermion_batch *a)
{
    return (mcfi_fermion_arrays){a->ws, a->rngs, a->changes, a->T, a->mu, a->dS,
                                 a->err, a->density, a->energy, a->index};
}

static void from_arrays1(const mcfi_fermion_arrays *x, mcf_fermion_batch *a)
{
    *a = (mcf_fermion_batch){x->ws, x->rngs, x->changes, x->T, x->mu, x->dS,
                             x->err, x->density, x->energy, x->index};
}

int mcf_fermion_batch_get(mcf_batch *b, size_t n, mcf_fermion_batch *out)
{
    mcfi_fermion_arrays x;
    const int rc = mcfi_fm_batch_get(b, n, &x);
    if (!rc)
        from_arrays1(&x, out);
    return rc;
}

int mcf_fermion_heat_get(mcf_batch *b, size_t n, mcf_fermion_batch *a, mcf_fermion_heat *h)
{
    mcfi_fermion_arrays x;
    const int rc = mcfi_fm_heat_get(b, n, &x, h);
    if (!rc)
        from_arrays1(&x, a);
    return rc;
}

int mcf_fermion_change_action(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n)
{
    const mcfi_fermion_target t = target1(f);
    const mcfi_fermion_arrays x = arrays1(a);
    return mcfi_fm_change_action(&t, &x, n);
}

int mcf_fermion_occupation(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n)
{
    const mcfi_fermion_target t = target1(f);
    const mcfi_fermion_arrays x = arrays1(a);
    return mcfi_fm_occupation(&t, &x, n, NULL, NULL);
}

int mcf_fermion_occupation_dT(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n,
                              double *ddensity, double *denergy)
{
    if (n && (!ddensity || !denergy))
        return mcf_fail(MCF_EINVAL, "%s: mcf_fermion_occupation_dT without output arrays",
                        f->model);
    const mcfi_fermion_target t = target1(f);
    const mcfi_fermion_arrays x = arrays1(a);
    return mcfi_fm_occupation(&t, &x, n, ddensity, denergy);
}

int mcf_fermion_occupation_heat(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n,
                                const mcf_fermion_heat *h)
{
    const mcfi_fermion_target t = target1(f);
    const mcfi_fermion_arrays x = arrays1(a);
    return mcfi_fm_occupation_heat(&t, &x, n, h);
}

size_t mcf_fermion_moment_points(const mcf_fermion *f, const void *ws, size_t q, double *axis)
{
    if (!f || !f->ops)
        return 0;
    const mcfi_fermion_target t = target1(f);
    return mcfi_fm_moment_points(&t, ws, q, axis);
}

int mcf_fermion_dos_moments(const mcf_fermion *f, const mcf_fermion_batch *a, size_t n,
                            double *const *dos, double *const *moments)
{
    const mcfi_fermion_target t = target1(f);
    const mcfi_fermion_arrays x = arrays1(a);
    return mcfi_fm_dos_moments(&t, &x, n, dos, moments);
}

/* ---- the helpers over a target ---------------------------------------------------- */

/* bytes of part k of a batch of n, aligned to 16 */
static size_t batch_part(size_t bytes)
{
    return (bytes + 15) & ~(size_t)15;
}

int mcfi_fm_batch_get(mcf_batch *b, size_t n, mcfi_fermion_arrays *out)
{
    const size_t m = n ? n : 1;
    if (m > SIZE_MAX / 128)
        return mcf_fail(MCF_ENOMEM, "a batch of %zu chains is too large", n);
    const size_t p = batch_part(m * sizeof(void *)), d = batch_part(m * sizeof(double));
    const size_t total = 3 * p + 6 * d + batch_part(m * sizeof(size_t));
    unsigned char *s = mcf_batch_scratch(b, total);
    if (!s)
        return b ? MCF_ENOMEM : MCF_EINTERNAL;
    out->ws = (void **)s;
    out->rngs = (mcf_rng **)(s + p);
    out->changes = (const mcf_change **)(s + 2 * p);
    double *x = (double *)(s + 3 * p);
    const size_t dn = d / sizeof(double);
    out->T = x;
    out->mu = x + dn;
    out->dS = x + 2 * dn;
    out->err = x + 3 * dn;
    out->density = x + 4 * dn;
    out->energy = x + 5 * dn;
    out->index = (size_t *)(s + 3 * p + 6 * d);
    return MCF_OK;
}

int mcfi_fm_change_action(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a, size_t n)
{
    if (n == 0)
        return MCF_OK;
    if (!(mcfi_fermion_provides(t) & MCF_PROVIDES_CHANGE_ACTION))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_CHANGE_ACTION (a bug in the model)", t->model, t->name);
    int rc = mcfi_fermion_change_action(t, a->ws, n, a->changes, a->T, a->mu, a->dS, a->err);
    if (rc)
        return mcf_fail_prefix(rc, "%s: evaluator %s: change_action", t->model, t->name);
    return MCF_OK;
}

/* One occupation (dd NULL) or occupation_dT call for n chains (ws, rngs) at (mu, T). */
static int occupation_call(const mcfi_fermion_target *t, void *const *ws, size_t n,
                           mcf_rng *const *rngs, double mu, double T, double *dens, double *en,
                           double *dd, double *de)
{
    const mcf_occupation out = {dens, en, dd, dd ? de : NULL};
    int rc = mcfi_fermion_occupation(t, ws, n, rngs, mu, T, &out);
    if (rc)
        return mcf_fail_prefix(rc, "%s: evaluator %s: %s", t->model, t->name,
                               dd ? "occupation_dT" : "occupation");
    return MCF_OK;
}

/* One call for the chains idx[0..m) (all with mu, T); tmp holds 4 m doubles. */
static int occupation_group(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a,
                            const size_t *idx, size_t m, void **ws, mcf_rng **rngs,
                            double *tmp, double *dd, double *de)
{
    for (size_t q = 0; q < m; q++) {
        ws[q] = a->ws[idx[q]];
        rngs[q] = a->rngs[idx[q]];
    }
    int rc = occupation_call(t, ws, m, rngs, a->mu[idx[0]], a->T[idx[0]], tmp, tmp + m,
                             dd ? tmp + 2 * m : NULL, tmp + 3 * m);
    if (rc)
        return rc;
    for (size_t q = 0; q < m; q++) {
        a->density[idx[q]] = tmp[q];
        a->energy[idx[q]] = tmp[m + q];
        if (dd) {
            dd[idx[q]] = tmp[2 * m + q];
            de[idx[q]] = tmp[3 * m + q];
        }
    }
    return MCF_OK;
}

/* occupation (dd NULL) and occupation_dT, grouped by (mu, T) */
int mcfi_fm_occupation(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a, size_t n,
                       double *dd, double *de)
{
    if (n == 0)
        return MCF_OK;
    if (!(mcfi_fermion_provides(t) &
          (dd ? MCF_PROVIDES_OCCUPATION_DT : MCF_PROVIDES_OCCUPATION)))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without "
                        "MCF_FERMION_OCCUPATION%s (a bug in the model)", t->model, t->name,
                        dd ? "_DT" : "");
    for (size_t k = 0; k < n; k++) /* NaN would also break the grouping by equality */
        if (!(a->T[k] > 0) || !isfinite(a->T[k]) || !isfinite(a->mu[k]))
            return mcf_fail(MCF_EINVAL, "%s: occupation at T = %g, mu = %g (chain %zu of the "
                            "batch): T must be finite and > 0 and mu finite", t->model,
                            a->T[k], a->mu[k], k);
    int rc = MCF_OK;
    size_t same = 1;
    while (same < n && a->T[same] == a->T[0] && a->mu[same] == a->mu[0])
        same++;
    if (same == n) { /* the usual case: one (mu, T) for the whole batch */
        rc = occupation_call(t, a->ws, n, a->rngs, a->mu[0], a->T[0], a->density, a->energy,
                             dd, de);
        if (rc)
            return rc;
    } else {
        void **ws = malloc(n * (2 * sizeof(void *) + 4 * sizeof(double) + 1));
        if (!ws)
            return mcf_fail(MCF_ENOMEM, "%s: out of memory measuring %zu chains", t->model, n);
        mcf_rng **rngs = (mcf_rng **)(ws + n);
        double *tmp = (double *)(rngs + n);
        unsigned char *done = (unsigned char *)(tmp + 4 * n);
        memset(done, 0, n);
        for (size_t first = 0; first < n && !rc; first++) {
            if (done[first])
                continue;
            size_t m = 0;
            for (size_t k = first; k < n; k++)
                if (!done[k] && a->T[k] == a->T[first] && a->mu[k] == a->mu[first]) {
                    done[k] = 1;
                    a->index[m++] = k;
                }
            rc = occupation_group(t, a, a->index, m, ws, rngs, tmp, dd, de);
        }
        free(ws);
        if (rc)
            return rc;
    }
    for (size_t k = 0; k < n; k++)
        if (!isfinite(a->density[k]) || !isfinite(a->energy[k]) ||
            (dd && (!isfinite(dd[k]) || !isfinite(de[k]))))
            return mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned density %g, energy %g%s "
                            "(chain %zu of the batch): not finite", t->model, t->name,
                            a->density[k], a->energy[k],
                            dd ? " or their temperature derivatives" : "", k);
    return MCF_OK;
}

int mcfi_fm_heat_get(mcf_batch *b, size_t n, mcfi_fermion_arrays *a, mcf_fermion_heat *h)
{
    const size_t m = n ? n : 1;
    if (m > SIZE_MAX / 256)
        return mcf_fail(MCF_ENOMEM, "a batch of %zu chains is too large", n);
    const size_t p = batch_part(m * sizeof(void *)), d = batch_part(m * sizeof(double));
    const size_t first = 3 * p + 6 * d + batch_part(m * sizeof(size_t));
    const size_t total = first + 4 * d + batch_part(m * sizeof(mcf_rng));
    /* mcfi_fm_batch_get's layout at the start, h's arrays after it: one scratch call */
    unsigned char *s = mcf_batch_scratch(b, total);
    if (!s)
        return b ? MCF_ENOMEM : MCF_EINTERNAL;
    int rc = mcfi_fm_batch_get(b, n, a); /* the same memory, not grown: no copy lost */
    if (rc)
        return rc;
    double *x = (double *)(s + first);
    const size_t dn = d / sizeof(double);
    h->ddensity = x;
    h->denergy = x + dn;
    h->density2 = x + 2 * dn;
    h->energy2 = x + 3 * dn;
    h->before = (mcf_rng *)(s + first + 4 * d);
    return MCF_OK;
}

int mcfi_fm_occupation_heat(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a,
                            size_t n, const mcf_fermion_heat *h)
{
    for (size_t k = 0; k < n; k++)
        if (a->rngs[k]) /* NULL: an exact evaluator's chain without a stream */
            h->before[k] = *a->rngs[k];
    if (n && (!h->ddensity || !h->denergy))
        return mcf_fail(MCF_EINVAL, "%s: mcf_fermion_occupation_dT without output arrays",
                        t->model);
    int rc = mcfi_fm_occupation(t, a, n, h->ddensity, h->denergy);
    if (rc)
        return rc;
    int drew = 0;
    for (size_t k = 0; k < n && !drew; k++)
        drew = a->rngs[k] && (a->rngs[k]->counter != h->before[k].counter ||
                              a->rngs[k]->used != h->before[k].used);
    if (!drew) {
        memcpy(h->density2, a->density, n * sizeof *h->density2);
        memcpy(h->energy2, a->energy, n * sizeof *h->energy2);
        return MCF_OK;
    }
    mcfi_fermion_arrays again = *a;
    again.density = h->density2;
    again.energy = h->energy2;
    return mcfi_fm_occupation(t, &again, n, NULL, NULL);
}

/* M of ws (0: no moments) */
static size_t moment_count(const mcfi_fermion_target *t, const void *ws)
{
    mcf_spectra s = {0};
    void *w = (void *)ws;
    return mcfi_fermion_spectra(t, &w, 1, NULL, &s) ? 0 : s.moments;
}

size_t mcfi_fm_moment_points(const mcfi_fermion_target *t, const void *ws, size_t q,
                             double *axis)
{
    if (q > 2 || !ws || mcfi_fm_missing(t, MCF_FERMION_MOMENTS))
        return 0;
    const size_t M = q == 2 ? 2 : moment_count(t, ws);
    for (size_t m = 0; axis && m < M; m++)
        axis[m] = (double)m;
    return M;
}

int mcfi_fm_dos_moments(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a, size_t n,
                        double *const *dos, double *const *moments)
{
    if (n == 0)
        return MCF_OK;
    if (mcfi_fm_missing(t, MCF_FERMION_DOS))
        return mcf_fail(MCF_EINTERNAL, "%s: evaluator %s was bound without MCF_FERMION_DOS "
                        "(a bug in the model)", t->model, t->name);
    const int with = moments && !mcfi_fm_missing(t, MCF_FERMION_MOMENTS);
    /* the arrays' pointers, then each chain's moment count (asked once per chain) */
    double **p = with ? malloc(3 * n * sizeof *p + n * sizeof(size_t)) : NULL;
    if (with && !p)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory measuring %zu chains", t->model, n);
    size_t *Mk = with ? (size_t *)(p + 3 * n) : NULL;
    for (size_t k = 0; with && k < n; k++) {
        const size_t M = Mk[k] = moment_count(t, a->ws[k]);
        p[k] = moments[k];
        p[n + k] = moments[k] + M;
        p[2 * n + k] = moments[k] + 2 * M;
    }
    mcf_spectra s = {.dos = dos, .dos_moments = with ? p : NULL,
                     .dos_moments_var = with ? p + n : NULL,
                     .moment_scale = with ? p + 2 * n : NULL};
    int rc = mcfi_fermion_spectra(t, a->ws, n, a->rngs, &s);
    if (rc) {
        free(p);
        return mcf_fail_prefix(rc, "%s: evaluator %s: dos", t->model, t->name);
    }
    for (size_t k = 0; k < n && with && !rc; k++) {
        const size_t M = Mk[k];
        for (size_t m = 0; m < 2 * M + 2 && !rc; m++) {
            const double x = moments[k][m];
            /* the variance of a single vector is NaN: not a failure */
            if (!isfinite(x) && !(m >= M && m < 2 * M && isnan(x)))
                rc = mcf_fail(MCF_EPLUGIN, "%s: evaluator %s returned the moment value %g "
                              "(%s %zu, chain %zu of the batch): not finite", t->model,
                              t->name, x, m < M ? "moment" : m < 2 * M ? "variance" : "scale",
                              m < 2 * M ? m % M : m - 2 * M, k);
        }
    }
    free(p);
    return rc;
}
