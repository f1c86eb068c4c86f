/* kpm_ops.c — the fermion evaluator of the KPM plugins over a backend (kpm_ops.h says what
 * each op does and what the backend supplies): the workspace, spectra, occupation, action,
 * reconstruct and the table; change_action is in kpm_ops_gfmc.c. */
#include "kpm_ops.h"

#include "mcf/mcf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- workspace -------------------------------------------------------------------- */

static void kpm_ops_destroy(void *p)
{
    kpm_ops_ws *w = p;
    if (!w)
        return;
    if (w->be->release)
        w->be->release(w);
    kpm_dct_destroy(w->grid);
    kpm_contour_destroy(w->contour);
    free(w->contour_dmu);
    free(w->g);
    free(w->mu_vec);
    free(w->mu);
    kpm_series_cache_free(&w->series);
    kpm_ops_density_free(w);
    kpm_ops_pf_free(w);
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

/* create (mcf/fermion.h): app_data is the plugin's backend; refuses a missing or empty h,
 * reads and checks the [evaluator] parameters (messages name the section and file),
 * be->admit, a zeroed workspace of be->size bytes with the head filled in, be->init (the
 * plugin's members and keys), the host grid, the moment arrays and the kernel
 * coefficients.  destroy: be->release, then the head's members and the workspace itself
 * (NULL is fine). */
static int kpm_ops_create(const mcf_params *params, const mcf_hamiltonian *h, void *app_data,
                      void **out)
{
    const kpm_backend *be = app_data;
    *out = NULL;
    if (!be)
        return mcf_fail(MCF_EINTERNAL, "kpm: create without the plugin's backend (the "
                        "descriptor's app_data is NULL; a bug, please report it)");
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
    if ((be->init && (rc = be->init(w, params))) ||
        (rc = kpm_dct_create(w->N, w->M, &w->grid)) || (rc = ops_alloc(w))) {
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

/* ---- batches ------------------------------------------------------------------------ */

const kpm_backend *kpm_ops_batch(void *const *ws, size_t n, const char *what, int *rc)
{
    *rc = MCF_OK;
    if (n && !ws) {
        *rc = mcf_fail(MCF_EINVAL, "kpm: %s: the workspace array is NULL", what);
        return NULL;
    }
    const kpm_backend *be = NULL;
    for (size_t k = 0; k < n && !be; k++)
        if (ws[k])
            be = ((const kpm_ops_ws *)ws[k])->be;
    for (size_t k = 0; k < n; k++) {
        const kpm_ops_ws *w = ws[k];
        if (!w) {
            *rc = mcf_fail(MCF_EINVAL, "%s: %s: workspace %zu of the batch is NULL",
                           be ? be->name : "kpm", what, k);
            return NULL;
        }
        if (w->be != be) {
            *rc = mcf_fail(MCF_EINVAL, "%s: %s: workspace %zu of the batch was made by "
                           "evaluator %s", be->name, what, k, w->be->name);
            return NULL;
        }
    }
    return be;
}

/* dos and occupation: the random streams of their traces */
static int ops_check_rngs(const kpm_backend *be, size_t n, mcf_rng *const *rngs,
                          const char *what)
{
    if (n && !rngs)
        return mcf_fail(MCF_EINVAL, "%s: %s: the stochastic trace needs the chains' random "
                        "streams, but rngs is NULL", be->name, what);
    return MCF_OK;
}

/* ---- spectra ------------------------------------------------------------------------ */

static int ops_dos(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                   mcf_rng *const *rngs, double *const *dos)
{
    int rc = ops_check_rngs(be, n, rngs, "dos");
    if (rc || (rc = kpm_ops_traces(be, b, ws, n, rngs, "dos")))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = be->density(w, w->mu, 1, dos[k])))
            return mcf_fail_prefix(rc, "%s: dos of workspace %zu", be->name, k);
    }
    return MCF_OK;
}

/* the DOS with the trace's moments, their per-vector variance and the scaling: the same
 * trace and reconstruction as ops_dos, so the same DOS bit for bit */
static int ops_dos_moments(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                           mcf_rng *const *rngs, double *const *mu, double *const *var,
                           double *const *scale, double *const *dos)
{
    int rc = ops_check_rngs(be, n, rngs, "dos_moments");
    if (rc || (rc = kpm_ops_traces(be, b, ws, n, rngs, "dos_moments")))
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
    int rc;
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

/* a request whose outputs lack what they need (the rows, the scale, dos_moments, the
 * other half of G) is refused */
static int ops_spectra_check(const kpm_backend *be, const mcf_spectra *s)
{
    const char *bad = (s->ldos || s->ldos_moments || s->green_re || s->green_im) &&
                              s->n_rows && !s->rows
                          ? "rows is NULL, but LDOS or Green's functions were asked for"
                      : (s->dos_moments || s->ldos_moments) && !s->moment_scale
                          ? "moments were asked for without moment_scale"
                      : s->dos_moments_var && !s->dos_moments
                          ? "dos_moments_var was asked for without dos_moments"
                      : !s->green_re != !s->green_im
                          ? "the Green's functions need both green_re and green_im"
                          : NULL;
    return bad ? mcf_fail(MCF_EINVAL, "%s: spectra: %s", be->name, bad) : MCF_OK;
}

/* spectra (mcf/fermion.h): the sizes of ws[0]; then the grid, the LDOS (with its moments),
 * the Green's functions and the DOS (with its moments, from one trace), in that order */
static int ops_spectra(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                       mcf_spectra *s)
{
    if (!s)
        return mcf_fail(MCF_EINVAL, "kpm: spectra: the request is NULL");
    s->points = s->moments = 0;
    int rc;
    const kpm_backend *be = kpm_ops_batch(ws, n, "spectra", &rc);
    if (rc || n == 0)
        return rc;
    if ((rc = ops_spectra_check(be, s)))
        return rc;
    const kpm_ops_ws *w0 = ws[0];
    s->points = w0->N;
    s->moments = w0->M;
    for (size_t k = 0; s->energies && k < n; k++) {
        kpm_ops_ws *w = ws[k];
        kpm_ops_scale(w);
        kpm_dct_energies(w->grid, w->a, w->b, s->energies[k]);
    }
    if (s->ldos_moments)
        rc = ops_rows(be, ws, n, s->rows, s->n_rows, s->ldos, NULL, NULL, s->ldos_moments,
                      s->moment_scale, "ldos_moments");
    else if (s->ldos)
        rc = ops_rows(be, ws, n, s->rows, s->n_rows, s->ldos, NULL, NULL, NULL, NULL, "ldos");
    if (!rc && s->green_re)
        rc = ops_rows(be, ws, n, s->rows, s->n_rows, NULL, s->green_re, s->green_im, NULL,
                      NULL, "green");
    if (!rc && s->dos_moments)
        rc = ops_dos_moments(be, b, ws, n, rngs, s->dos_moments, s->dos_moments_var,
                             s->moment_scale, s->dos);
    else if (!rc && s->dos)
        rc = ops_dos(be, b, ws, n, rngs, s->dos);
    return rc;
}

/* ---- occupation --------------------------------------------------------------------- */

/* density and energy from the trace's mean moments; with the T-derivatives asked for, T
 * checked before the trace is drawn (a refusal leaves the streams alone) and the
 * derivatives from the same moments, density and energy by the same call, so the same
 * bits */
static int ops_occupation(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                          double mu, double T, const mcf_occupation *out)
{
    const int dT = out && (out->ddensity || out->denergy);
    const char *what = dT ? "occupation_dT" : "occupation";
    int rc;
    const kpm_backend *be = kpm_ops_batch(ws, n, what, &rc);
    if (rc || n == 0)
        return rc;
    if ((rc = ops_check_rngs(be, n, rngs, what)))
        return rc;
    if (dT && (!(T > 0.0) || !isfinite(T) || !isfinite(mu)))
        return mcf_fail(MCF_EINVAL, "%s: occupation_dT: temperature T = %g must be finite and "
                        "> 0 (the T = 0 step has no temperature derivative; use a small T > 0) "
                        "and mu = %g finite", be->name, T, mu);
    if (!out || !out->density || !out->energy || (dT && (!out->ddensity || !out->denergy)))
        return mcf_fail(MCF_EINVAL, "%s: %s: an output array is NULL", be->name, what);
    if ((rc = kpm_ops_traces(be, b, ws, n, rngs, what)))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if ((rc = kpm_occupation_cached(&w->series, w->mu, w->g, w->M, w->a, w->b, mu, T,
                                        out->density + k, out->energy + k)) ||
            (dT && (rc = kpm_occupation_dT_cached(&w->series, w->mu, w->g, w->M, w->a, w->b,
                                                  mu, T, out->ddensity + k,
                                                  out->denergy + k))))
            return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
    }
    return MCF_OK;
}

/* ---- action ------------------------------------------------------------------------- */

/* the action: per workspace the exact trace once, then the plain Chebyshev series of every
 * point (kpm_action_series); everything checked before any work */
static int ops_action(mcf_batch *b, void *const *ws, size_t n, size_t m, const double *T,
                      const double *mu, double *S, double *err)
{
    int rc;
    const kpm_backend *be = kpm_ops_batch(ws, n, "action", &rc);
    if (rc || n == 0)
        return rc;
    if (m && (!T || !mu || !S))
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
    if ((rc = kpm_ops_traces(be, b, ws, n, NULL, "action")))
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

/* ---- the table ---------------------------------------------------------------------- */

/* reconstruct: the host's arithmetic, the plugin's name in the messages */
static int ops_reconstruct(void *app_data, const mcf_params *params, const char *kernel,
                           size_t M, size_t sets, const double *mu, double a, double b,
                           size_t points, const double *E, double *grid, double *out)
{
    const kpm_backend *be = app_data;
    return kpm_ops_reconstruct(be ? be->name : "kpm", params, kernel, M, sets, mu, a, b,
                               points, E, grid, out);
}

const mcf_fermion_evaluator kpm_ops_evaluator = {
    .struct_size = sizeof(mcf_fermion_evaluator),
    .provides = MCF_PROVIDES_CHANGE_ACTION | MCF_PROVIDES_OCCUPATION | MCF_PROVIDES_DOS |
                MCF_PROVIDES_LDOS | MCF_PROVIDES_GREEN | MCF_PROVIDES_ACTION |
                MCF_PROVIDES_MOMENTS | MCF_PROVIDES_OCCUPATION_DT | MCF_PROVIDES_DENSITY_MATRIX |
                MCF_PROVIDES_PSEUDOFERMION | MCF_PROVIDES_RESPONSE |
                MCF_PROVIDES_VECTOR_MOMENTS,
    .create = kpm_ops_create,
    .destroy = kpm_ops_destroy,
    .spectra = ops_spectra,
    .occupation = ops_occupation,
    .change_action = kpm_ops_change_action,
    .action = ops_action,
    .reconstruct = ops_reconstruct,
    .density_matrix = kpm_ops_density_matrix,
    .pseudofermion = kpm_ops_pseudofermion,
    .response = kpm_ops_response,
    .vector_moments = kpm_ops_vector_moments,
};
