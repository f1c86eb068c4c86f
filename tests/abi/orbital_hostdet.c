/* orbital_hostdet.c — a small host orbital evaluator that keeps determinants, for the tests
 * of the SDK's orbital adapters (test_orbital_adapters.c).  planewave has no determinants
 * and blip-cuda needs a device, so the determinant path of the adapters is checked on this
 * one: the orbitals are the plane-wave series of mcf/orbital.h summed directly, and each
 * determinant is a plain host matrix pair (rows A, inverse Ainv) moved by Sherman-Morrison
 * (mcf/orbital.h gives the formulas).  The same functions serve both tables, so ABI 1
 * and ABI 2 give the same numbers when the adapters make the same calls.  Built as test
 * plugins (tests/abi/CMakeLists.txt), one per macro:
 *   HOSTDET_ABI1       mcf-thostdet1.so: ABI 1, mcf_orbital_ops with all 15 ops
 *   HOSTDET_ABI2       mcf-thostdet2.so: ABI 2, mcf_orbital_evaluator providing all bits
 *                      (walker_drift_sweep of mcf 1.2: orbital_hostdet_drift.c)
 *   HOSTDET_V10        mcf-thostdet10.so: ABI 2 as built before mcf 1.2 (struct_size
 *                      MCF_ORBITAL_EVALUATOR_SIZE_1_0) stating DRIFT_SWEEP with the op set
 *                      beyond it: loaded, the drift sweep not offered
 *   HOSTDET_BAD_DET    mcf-thostdetbad.so: ABI 2 promising DETERMINANTS, det_local NULL
 *   HOSTDET_BAD_SWEEP  mcf-thostdetsweep.so: ABI 2 promising WALKER_SWEEP alone
 *   HOSTDET_SHORT      mcf-thostdetshort.so: ABI 2 whose struct_size is one pointer short
 *                      of MCF_ORBITAL_EVALUATOR_SIZE_1_0
 * The walker sweep ignores `delay` (every move is applied at once: exact either way).
 * Built against ABI 1's private headers (core/sdk/abi1: the table of HOSTDET_ABI1). */
#include "mcf/abi1_orbital.h"
#include "mcf/mcf.h"
#include "orbital_hostdet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const mcf_param_spec hd_params[] = {{0}};

/* ---- orbitals ----------------------------------------------------------------------- */

/* the first `count` orbitals at r, with gradients and Laplacians when grad is not NULL */
void hd_point(const hd_ws *w, const double *r, size_t count, double *phi, double *grad,
              double *lap)
{
    for (size_t l = 0; l < count; l++) {
        double v = 0, g[3] = {0, 0, 0}, lp = 0;
        for (size_t q = 0; q < w->ng; q++) {
            const double *G = w->G + 3 * q;
            const double ph = G[0] * r[0] + G[1] * r[1] + G[2] * r[2];
            const double c = cos(ph), s = sin(ph);
            const double t = w->a[l * w->ng + q] * c + w->b[l * w->ng + q] * s;
            const double dt = w->b[l * w->ng + q] * c - w->a[l * w->ng + q] * s;
            v += t;
            for (int d = 0; d < 3; d++)
                g[d] += G[d] * dt;
            lp -= (G[0] * G[0] + G[1] * G[1] + G[2] * G[2]) * t;
        }
        phi[l] = v;
        if (grad) {
            for (int d = 0; d < 3; d++)
                grad[3 * l + (size_t)d] = g[d];
            lap[l] = lp;
        }
    }
}

static void hd_free(hd_ws *w)
{
    if (!w)
        return;
    free(w->G);
    free(w->a);
    free(w->b);
    free(w);
}

static int hd_new(const mcf_pw_orbitals *o, void **out)
{
    *out = NULL;
    int rc = mcf_pw_orbitals_check(o);
    if (rc)
        return mcf_fail_prefix(rc, "hostdet");
    hd_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
    w->L = o->n_orbitals;
    w->ng = o->n_g;
    w->G = malloc(3 * w->ng * sizeof *w->G);
    w->a = malloc(w->L * w->ng * sizeof *w->a);
    w->b = malloc(w->L * w->ng * sizeof *w->b);
    if (!w->G || !w->a || !w->b) {
        hd_free(w);
        return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
    }
    for (size_t k = 0; k < 3 * w->ng; k++)
        w->G[k] = 6.28318530717958647692 * (double)o->g[k] / o->cell[k % 3];
    memcpy(w->a, o->cos_coef, w->L * w->ng * sizeof *w->a);
    memcpy(w->b, o->sin_coef, w->L * w->ng * sizeof *w->b);
    *out = w;
    return MCF_OK;
}

static int hd_evaluate(void *const *ws, size_t n, const double *const *r, const size_t *np,
                       double *const *phi, double *const *grad, double *const *lap)
{
    for (size_t k = 0; k < n; k++) {
        const hd_ws *w = ws[k];
        if (!w)
            return mcf_fail(MCF_EINVAL, "hostdet: workspace %zu is NULL", k);
        for (size_t p = 0; p < np[k]; p++)
            hd_point(w, r[k] + 3 * p, w->L, phi[k] + p * w->L,
                     grad ? grad[k] + 3 * p * w->L : NULL, lap ? lap[k] + p * w->L : NULL);
    }
    return MCF_OK;
}

/* ---- determinants --------------------------------------------------------------------- */

static void det_free(hd_det *d)
{
    if (!d)
        return;
    free(d->r);
    free(d->A);
    free(d->Ainv);
    free(d->rt);
    free(d->vt);
    free(d);
}

static int det_new(const hd_ws *w, size_t m, hd_det **out)
{
    *out = NULL;
    if (m < 1 || m > w->L)
        return mcf_fail(MCF_EINVAL, "hostdet: %zu electrons for %zu orbitals", m, w->L);
    hd_det *d = calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
    d->ws = w;
    d->m = d->last = m;
    d->r = malloc(3 * m * sizeof *d->r);
    d->rt = calloc(3 * m, sizeof *d->rt);
    d->A = malloc(m * m * sizeof *d->A);
    d->Ainv = malloc(m * m * sizeof *d->Ainv);
    d->vt = calloc(m * m, sizeof *d->vt);
    if (!d->r || !d->rt || !d->A || !d->Ainv || !d->vt) {
        det_free(d);
        return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
    }
    *out = d;
    return MCF_OK;
}

static int det_load(hd_det *d, const double *r, const double *A, const double *Ainv)
{
    if (!d || !r || !A || !Ainv)
        return mcf_fail(MCF_EINVAL, "hostdet: det_set: NULL argument");
    memcpy(d->r, r, 3 * d->m * sizeof *r);
    memcpy(d->A, A, d->m * d->m * sizeof *A);
    memcpy(d->Ainv, Ainv, d->m * d->m * sizeof *Ainv);
    d->last = d->m;
    return MCF_OK;
}

static int det_store(const hd_det *d, double *r, double *A, double *Ainv)
{
    if (!d)
        return mcf_fail(MCF_EINVAL, "hostdet: det_get: no determinant");
    if (r)
        memcpy(r, d->r, 3 * d->m * sizeof *r);
    if (A)
        memcpy(A, d->A, d->m * d->m * sizeof *A);
    if (Ainv)
        memcpy(Ainv, d->Ainv, d->m * d->m * sizeof *Ainv);
    return MCF_OK;
}

static void det_trial(hd_det *d, const double *rt)
{
    memcpy(d->rt, rt, 3 * d->m * sizeof *rt);
    for (size_t i = 0; i < d->m; i++)
        hd_point(d->ws, rt + 3 * i, d->m, d->vt + i * d->m, NULL, NULL);
    d->last = d->m;
}

static double det_ratio(hd_det *d, size_t e)
{
    double R = 0;
    for (size_t l = 0; l < d->m; l++)
        R += d->vt[e * d->m + l] * d->Ainv[l * d->m + e];
    d->last = e;
    d->last_R = R;
    return R;
}

/* Sherman-Morrison (orbital_hostdet.h): row e of A becomes v, w = v^T Ainv (w_e = R) */
void hd_replace_row(hd_det *d, size_t e, const double *v, double R, const double *r_new)
{
    const size_t m = d->m;
    for (size_t j = 0; j < m; j++) {
        if (j == e)
            continue;
        double wj = 0;
        for (size_t l = 0; l < m; l++)
            wj += v[l] * d->Ainv[l * m + j];
        for (size_t l = 0; l < m; l++)
            d->Ainv[l * m + j] -= d->Ainv[l * m + e] * wj / R;
    }
    for (size_t l = 0; l < m; l++)
        d->Ainv[l * m + e] /= R;
    memcpy(d->A + e * m, v, m * sizeof *v);
    memcpy(d->r + 3 * e, r_new, 3 * sizeof *d->r);
    d->last = m;
}

/* the move of the last det_ratio: its trial row and position */
static int det_accept(hd_det *d, size_t e)
{
    if (e >= d->m || e != d->last || d->last_R == 0)
        return mcf_fail(MCF_EINVAL, "hostdet: det_accept of electron %zu: not the last "
                        "det_ratio's, or its ratio was 0", e);
    hd_replace_row(d, e, d->vt + e * d->m, d->last_R, d->rt + 3 * e);
    return MCF_OK;
}

/* the drift max |Ainv A - 1|, then one Newton step Ainv <- 2 Ainv - Ainv A Ainv below 0.25 */
static int det_refresh(hd_det *d, double *drift)
{
    const size_t m = d->m;
    double *P = malloc(2 * m * m * sizeof *P), worst = 0;
    if (!P)
        return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
    double *N = P + m * m;
    for (size_t l = 0; l < m; l++)
        for (size_t j = 0; j < m; j++) {
            double s = 0;
            for (size_t i = 0; i < m; i++)
                s += d->Ainv[l * m + i] * d->A[i * m + j];
            P[l * m + j] = s;
            const double dev = fabs(s - (l == j ? 1.0 : 0.0));
            worst = dev > worst ? dev : worst;
        }
    *drift = worst;
    if (worst < 0.25) {
        for (size_t l = 0; l < m; l++)
            for (size_t i = 0; i < m; i++) {
                double s = 0;
                for (size_t j = 0; j < m; j++)
                    s += P[l * m + j] * d->Ainv[j * m + i];
                N[l * m + i] = 2.0 * d->Ainv[l * m + i] - s;
            }
        memcpy(d->Ainv, N, m * m * sizeof *N);
    }
    free(P);
    return MCF_OK;
}

static int det_local(const hd_det *d, double *g, double *lp)
{
    const size_t m = d->m;
    double *phi = malloc(5 * m * sizeof *phi);
    if (!phi)
        return mcf_fail(MCF_ENOMEM, "hostdet: out of memory");
    double *grad = phi + m, *lap = grad + 3 * m;
    for (size_t i = 0; i < m; i++) {
        hd_point(d->ws, d->r + 3 * i, m, phi, grad, lap);
        double gi[3] = {0, 0, 0}, li = 0;
        for (size_t l = 0; l < m; l++) {
            for (int c = 0; c < 3; c++)
                gi[c] += grad[3 * l + (size_t)c] * d->Ainv[l * m + i];
            li += lap[l] * d->Ainv[l * m + i];
        }
        for (int c = 0; c < 3; c++)
            g[3 * i + (size_t)c] = gi[c];
        lp[i] = li;
    }
    free(phi);
    return MCF_OK;
}

/* the nearest image of x - y in the orthorhombic cell: each component less the multiple of
 * the cell's side nearest to it (orbital_hostdet.h) */
double hd_image(const double *x, const double *y, const double cell[3], double *d)
{
    double s = 0;
    for (int c = 0; c < 3; c++) {
        double dx = x[c] - y[c];
        dx -= cell[c] * nearbyint(dx / cell[c]);
        if (d)
            d[c] = dx;
        s += dx * dx;
    }
    return sqrt(s);
}

/* one walker's sweep over its determinants det[0] (up) and det[1] (down; NULL: none) */
static int hd_sweep(hd_det *const det[2], double *r, const double *trial, mcf_rng *rng,
                    unsigned char *accepted, double *log_ratio, const mcf_pair_function u[2],
                    const double cell[3])
{
    const size_t mu = det[0] ? det[0]->m : 0, n = mu + (det[1] ? det[1]->m : 0);
    for (size_t e = 0; e < n; e++) {
        const int s = e >= mu;
        hd_det *d = det[s];
        const size_t ie = s ? e - mu : e;
        const double R = det_ratio(d, ie);
        double dj = 0;
        for (size_t j = 0; j < n; j++)
            if (j != e) {
                const mcf_pair_function *f = &u[(j >= mu) != s];
                dj += mcf_pair_value(f, hd_image(trial + 3 * e, r + 3 * j, cell, NULL)) -
                      mcf_pair_value(f, hd_image(r + 3 * e, r + 3 * j, cell, NULL));
            }
        const double lr = R == 0 ? -INFINITY : 2.0 * log(fabs(R)) + 2.0 * dj;
        if (isnan(lr))
            return mcf_fail(MCF_EPLUGIN, "hostdet: a NaN log ratio");
        accepted[e] = (unsigned char)mcf_metropolis_accept(rng, lr);
        if (log_ratio)
            log_ratio[e] = lr;
        if (accepted[e]) {
            int rc = det_accept(d, ie);
            if (rc)
                return rc;
            memcpy(r + 3 * e, trial + 3 * e, 3 * sizeof *r);
        }
    }
    return MCF_OK;
}

#if defined(HOSTDET_ABI1)
/* ---- ABI 1: determinant handles ------------------------------------------------------- */

static int hd1_create(const mcf_params *p, const mcf_pw_orbitals *o, void **ws)
{
    (void)p;
    return hd_new(o, ws);
}
static void hd1_destroy(void *ws) { hd_free(ws); }
static size_t hd1_orbitals(const void *ws) { return ((const hd_ws *)ws)->L; }
static int hd1_values(void *const *ws, size_t n, const double *const *r, const size_t *np,
                      double *const *phi)
{
    return hd_evaluate(ws, n, r, np, phi, NULL, NULL);
}
static int hd1_vgl(void *const *ws, size_t n, const double *const *r, const size_t *np,
                   double *const *phi, double *const *grad, double *const *lap)
{
    return hd_evaluate(ws, n, r, np, phi, grad, lap);
}
static int hd1_det_create(void *ws, size_t m, void **det)
{
    return det_new(ws, m, (hd_det **)det);
}
static void hd1_det_destroy(void *det) { det_free(det); }
static int hd1_det_set(void *det, const double *r, const double *A, const double *Ainv)
{
    return det_load(det, r, A, Ainv);
}
static int hd1_det_get(void *det, double *r, double *A, double *Ainv)
{
    return det_store(det, r, A, Ainv);
}
static int hd1_det_trial(void *const *det, size_t n, const double *const *rt)
{
    for (size_t k = 0; k < n; k++)
        det_trial(det[k], rt[k]);
    return MCF_OK;
}
static int hd1_det_ratio(void *const *det, size_t n, const size_t *e, double *ratio)
{
    for (size_t k = 0; k < n; k++)
        ratio[k] = det_ratio(det[k], e[k]);
    return MCF_OK;
}
static int hd1_det_accept(void *det, size_t e) { return det_accept(det, e); }
static int hd1_det_refresh(void *const *det, size_t n, double *drift)
{
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++)
        rc = det_refresh(det[k], &drift[k]);
    return rc;
}
static int hd1_det_local(void *const *det, size_t n, double *const *g, double *const *l)
{
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++)
        rc = det_local(det[k], g[k], l[k]);
    return rc;
}
static int hd1_walker_sweep(mcf_walker_moves *w, size_t n, const mcf_pair_function u[2],
                            const double cell[3], size_t delay)
{
    (void)delay;
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        hd_det *const det[2] = {w[k].det[0], w[k].det[1]};
        rc = hd_sweep(det, w[k].r, w[k].trial, w[k].rng, w[k].accepted, w[k].log_ratio, u,
                      cell);
    }
    return rc;
}

static const mcf_orbital_ops hd1_ops = {
    .struct_size = sizeof(mcf_orbital_ops), .create = hd1_create, .destroy = hd1_destroy,
    .orbitals = hd1_orbitals, .values = hd1_values, .vgl = hd1_vgl,
    .det_create = hd1_det_create, .det_destroy = hd1_det_destroy, .det_set = hd1_det_set,
    .det_get = hd1_det_get, .det_trial = hd1_det_trial, .det_ratio = hd1_det_ratio,
    .det_accept = hd1_det_accept, .det_refresh = hd1_det_refresh,
    .det_local = hd1_det_local, .walker_sweep = hd1_walker_sweep};

MCF_PLUGIN_DEFINE(MCF_PLUGIN_ORBITAL_EVALUATOR, "thostdet1", "0",
                  "test: host orbitals with determinants (ABI 1)", hd_params, &hd1_ops)
#else
/* ---- ABI 2: the determinants of a workspace, by spin ----------------------------------- */

/* the batch must be there: the adapters hand one to every computing op */
static int need_batch(const mcf_batch *b, const char *op)
{
    return b ? MCF_OK : mcf_fail(MCF_EINVAL, "hostdet: %s: no batch", op);
}

/* determinant (ws, spin), or NULL with a message */
static hd_det *det_at(void *ws, int spin)
{
    hd_det *d = ws && (spin == 0 || spin == 1) ? ((hd_ws *)ws)->det[spin] : NULL;
    if (!d)
        mcf_fail(MCF_EINVAL, "hostdet: no determinant of spin %d", spin);
    return d;
}

static int hd2_create(const mcf_params *p, const mcf_pw_orbitals *o, void *app_data,
                      void **ws)
{
    (void)p, (void)app_data;
    return hd_new(o, ws);
}
static void hd2_destroy(void *ws)
{
    hd_ws *w = ws;
    if (w)
        det_free(w->det[0]), det_free(w->det[1]);
    hd_free(w);
}
static int hd2_evaluate(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                        const size_t *np, double *const *phi, double *const *grad,
                        double *const *lap)
{
    int rc = need_batch(b, "evaluate");
    return rc ? rc : hd_evaluate(ws, n, r, np, phi, grad, lap);
}
static int hd2_det_set(void *ws, int spin, size_t m, const double *r, const double *A,
                       const double *Ainv)
{
    hd_ws *w = ws;
    if (!w || (spin != 0 && spin != 1))
        return mcf_fail(MCF_EINVAL, "hostdet: det_set: bad workspace or spin %d", spin);
    if (w->det[spin] && w->det[spin]->m != m) {
        det_free(w->det[spin]);
        w->det[spin] = NULL;
    }
    if (!m)
        return MCF_OK;
    int rc = w->det[spin] ? MCF_OK : det_new(w, m, &w->det[spin]);
    return rc ? rc : det_load(w->det[spin], r, A, Ainv);
}
static int hd2_det_get(void *ws, int spin, double *r, double *A, double *Ainv)
{
    const hd_det *d = det_at(ws, spin);
    return d ? det_store(d, r, A, Ainv) : MCF_EINVAL;
}
static int hd2_det_trial(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                         const double *const *rt)
{
    int rc = need_batch(b, "det_trial");
    for (size_t k = 0; k < n && !rc; k++) {
        hd_det *d = det_at(ws[k], spin[k]);
        if (d)
            det_trial(d, rt[k]);
        else
            rc = MCF_EINVAL;
    }
    return rc;
}
static int hd2_det_ratio(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                         const size_t *e, double *ratio)
{
    int rc = need_batch(b, "det_ratio");
    for (size_t k = 0; k < n && !rc; k++) {
        hd_det *d = det_at(ws[k], spin[k]);
        if (d)
            ratio[k] = det_ratio(d, e[k]);
        else
            rc = MCF_EINVAL;
    }
    return rc;
}
static int hd2_det_accept(mcf_batch *b, void *ws, int spin, size_t e)
{
    int rc = need_batch(b, "det_accept");
    hd_det *d = rc ? NULL : det_at(ws, spin);
    return rc ? rc : d ? det_accept(d, e) : MCF_EINVAL;
}
static int hd2_det_refresh(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                           double *drift)
{
    int rc = need_batch(b, "det_refresh");
    for (size_t k = 0; k < n && !rc; k++) {
        hd_det *d = det_at(ws[k], spin[k]);
        rc = d ? det_refresh(d, &drift[k]) : MCF_EINVAL;
    }
    return rc;
}
static int hd2_det_local(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                         double *const *g, double *const *l)
{
    int rc = need_batch(b, "det_local");
    for (size_t k = 0; k < n && !rc; k++) {
        const hd_det *d = det_at(ws[k], spin[k]);
        rc = d ? det_local(d, g[k], l[k]) : MCF_EINVAL;
    }
    return rc;
}

static int hd2_walker_sweep(mcf_batch *b, const mcf_walker *w, size_t n,
                            const mcf_pair_function u[2], const double cell[3], size_t delay)
{
    (void)delay;
#if defined(HOSTDET_BAD_DET)
    (void)hd2_det_local; /* the table of this variant lacks it */
#endif
    int rc = need_batch(b, "walker_sweep");
    for (size_t k = 0; k < n && !rc; k++) {
        const hd_ws *x = w[k].ws;
        hd_det *const det[2] = {x->det[0], x->det[1]};
        rc = hd_sweep(det, w[k].r, w[k].trial, w[k].rng, w[k].accepted, w[k].log_ratio, u,
                      cell);
    }
    return rc;
}

#if defined(HOSTDET_BAD_SWEEP)
#define HD_PROVIDES (MCF_ORBITAL_VALUES | MCF_ORBITAL_WALKER_SWEEP)
#define HD_NAME "thostdetsweep"
#elif defined(HOSTDET_BAD_DET)
#define HD_PROVIDES (MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS)
#define HD_NAME "thostdetbad"
#define HD_DET_LOCAL NULL /* promised, not there */
#elif defined(HOSTDET_SHORT)
#define HD_PROVIDES MCF_ORBITAL_VALUES
#define HD_NAME "thostdetshort"
#define HD_SIZE (MCF_ORBITAL_EVALUATOR_SIZE_1_0 - sizeof(void *))
#else
#define HD_PROVIDES                                                                        \
    (MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP |            \
     MCF_ORBITAL_DRIFT_SWEEP)
#if defined(HOSTDET_V10)
#define HD_NAME "thostdet10"
#define HD_SIZE MCF_ORBITAL_EVALUATOR_SIZE_1_0 /* walker_drift_sweep lies beyond it */
#else
#define HD_NAME "thostdet2"
#endif
#endif

#ifndef HD_DET_LOCAL
#define HD_DET_LOCAL hd2_det_local
#endif
#ifndef HD_SIZE
#define HD_SIZE sizeof(mcf_orbital_evaluator)
#endif

static const mcf_orbital_evaluator hd2_table = {
    .struct_size = (uint32_t)(HD_SIZE),
    .provides = HD_PROVIDES, .create = hd2_create, .destroy = hd2_destroy,
    .evaluate = hd2_evaluate, .det_set = hd2_det_set, .det_get = hd2_det_get,
    .det_trial = hd2_det_trial, .det_ratio = hd2_det_ratio, .det_accept = hd2_det_accept,
    .det_refresh = hd2_det_refresh,
    .det_local = HD_DET_LOCAL,
    .walker_sweep = hd2_walker_sweep, .walker_drift_sweep = hd2_walker_drift_sweep};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_ORBITAL_EVALUATOR, HD_NAME, "0",
                      "test: host orbitals with determinants (ABI 2)", hd_params, &hd2_table)
#endif
