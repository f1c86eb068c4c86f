/* orbital_test.h — an orbital evaluator's verbs for tests that call a plugin directly,
 * whichever ABI it was built for: ABI 1's call shapes (values, vgl, a handle per
 * determinant), passed to an ABI-1 table (mcf_orbital_ops) as they are, or to an ABI-2 table
 * (mcf_orbital_evaluator, mcf/orbital.h) as its verbs: values and vgl are evaluate (grad and
 * lap NULL for values), a determinant is (workspace, spin) of its workspace, and the
 * computing ops get one batch for the test process.  So a test states what it checks once,
 * and checks it against either build of a plugin (tests/evaluator_test.h does the same for
 * fermion evaluators). */
#ifndef MCF_ORBITAL_TEST_H
#define MCF_ORBITAL_TEST_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mcf/batch.h"
#include "mcf/error.h"
#include "mcf/model.h"
#include "mcf/orbital.h"
#include "mcf/plugin.h"

/* The test process's batch, made on first use.  tor_batch_release() destroys it (the next
 * tor_batch() makes a new one): call it before closing the plugins whose ops used it, since
 * the release of their keep slots is their code; otherwise it goes at exit. */
static inline void tor_batch_release(void);
static inline mcf_batch **tor_batch_slot_(void)
{
    static mcf_batch *b;
    return &b;
}
static inline void tor_batch_release(void)
{
    mcf_batch_destroy(*tor_batch_slot_());
    *tor_batch_slot_() = NULL;
}
static inline mcf_batch *tor_batch(void)
{
    mcf_batch **b = tor_batch_slot_();
    if (!*b) {
        if (!(*b = mcf_batch_create()))
            abort();
        atexit(tor_batch_release);
    }
    return *b;
}

static inline int tor_abi2(const mcf_plugin_info *e) { return e->abi_version == MCF_ABI_2; }
static inline const mcf_orbital_evaluator *tor_v2(const mcf_plugin_info *e)
{
    return (const mcf_orbital_evaluator *)e->ops;
}
static inline const mcf_orbital_ops *tor_v1(const mcf_plugin_info *e)
{
    return (const mcf_orbital_ops *)e->ops;
}

/* The struct_size of the plugin's table (both start with it). */
static inline uint32_t tor_table_size(const mcf_plugin_info *e)
{
    return *(const uint32_t *)e->ops;
}

/* 1 when the table holds the ops every evaluator has (ABI 1: create .. vgl; ABI 2: create,
 * destroy, evaluate). */
static inline int tor_table_ok(const mcf_plugin_info *e)
{
    if (tor_abi2(e))
        return tor_table_size(e) >= offsetof(mcf_orbital_evaluator, evaluate) + sizeof(void *) &&
               tor_v2(e)->create && tor_v2(e)->destroy && tor_v2(e)->evaluate;
    return tor_table_size(e) >= offsetof(mcf_orbital_ops, vgl) + sizeof(void *) &&
           tor_v1(e)->create && tor_v1(e)->destroy && tor_v1(e)->values && tor_v1(e)->vgl;
}

static inline int tor_create(const mcf_plugin_info *e, const mcf_params *p,
                             const mcf_pw_orbitals *o, void **ws)
{
    return tor_abi2(e) ? tor_v2(e)->create(p, o, e->app_data, ws) : tor_v1(e)->create(p, o, ws);
}

static inline void tor_destroy(const mcf_plugin_info *e, void *ws)
{
    if (tor_abi2(e))
        tor_v2(e)->destroy(ws);
    else
        tor_v1(e)->destroy(ws);
}

static inline int tor_values(const mcf_plugin_info *e, void *const *ws, size_t n,
                             const double *const *r, const size_t *n_points,
                             double *const *phi)
{
    if (!tor_abi2(e))
        return tor_v1(e)->values(ws, n, r, n_points, phi);
    return tor_v2(e)->evaluate(tor_batch(), ws, n, r, n_points, phi, NULL, NULL);
}

/* ABI 1's vgl (under ABI 2, grad and lap both NULL would ask for values only) */
static inline int tor_vgl(const mcf_plugin_info *e, void *const *ws, size_t n,
                          const double *const *r, const size_t *n_points, double *const *phi,
                          double *const *grad, double *const *lap)
{
    if (!tor_abi2(e))
        return tor_v1(e)->vgl(ws, n, r, n_points, phi, grad, lap);
    return tor_v2(e)->evaluate(tor_batch(), ws, n, r, n_points, phi, grad, lap);
}

/* L, the number of orbitals of ws: ABI 1's orbitals op.  ABI 2 has none (the model
 * described its orbitals), so there it is the number of values evaluate writes for one
 * point, counted in TOR_L_MAX entries that were NaN before (0 when evaluate fails): for
 * workspaces of at most TOR_L_MAX orbitals. */
#define TOR_L_MAX 4096
static inline size_t tor_orbitals(const mcf_plugin_info *e, void *ws)
{
    if (!tor_abi2(e))
        return tor_v1(e)->orbitals(ws);
    double *phi = malloc(TOR_L_MAX * sizeof *phi);
    if (!phi)
        abort();
    for (size_t l = 0; l < TOR_L_MAX; l++)
        phi[l] = NAN;
    const double r[3] = {0.1, 0.2, 0.3}, *rr = r;
    const size_t one = 1;
    size_t L = 0;
    if (tor_values(e, &ws, 1, &rr, &one, &phi) == MCF_OK)
        while (L < TOR_L_MAX && !isnan(phi[L]))
            L++;
    free(phi);
    return L;
}

/* ---- determinants ------------------------------------------------------------------------
 * One determinant as a test holds it: spin `spin` of workspace ws (ABI 2), or ABI 1's handle
 * det, made over ws by tor_det_set.  m: its electrons (0: none, the state after a failure
 * too).  Initialize with {.ws = ws, .spin = s}. */
typedef struct tor_det {
    void *ws;
    int spin;
    void *det; /* ABI 1's handle (NULL under ABI 2) */
    size_t m;
} tor_det;

/* 1 when the evaluator keeps determinants (ABI 1: the nine det ops; ABI 2: the bit). */
static inline int tor_has_dets(const mcf_plugin_info *e)
{
    if (tor_abi2(e))
        return (tor_v2(e)->provides & MCF_ORBITAL_DETERMINANTS) != 0;
    return tor_table_size(e) >= MCF_ORBITAL_OPS_DET_SIZE && tor_v1(e)->det_create;
}

/* ABI 2's det_set: m electrons at r with rows A and inverse Ainv (m = 0: none); ABI 1's
 * det_create (again when m changes) and det_set.  After a failure the det is empty. */
static inline int tor_det_set(const mcf_plugin_info *e, tor_det *d, size_t m, const double *r,
                              const double *A, const double *Ainv)
{
    int rc;
    if (tor_abi2(e)) {
        rc = tor_v2(e)->det_set(d->ws, d->spin, m, r, A, Ainv);
        d->m = rc ? 0 : m;
        return rc;
    }
    const mcf_orbital_ops *o = tor_v1(e);
    if (d->det && d->m != m) {
        o->det_destroy(d->det);
        d->det = NULL;
        d->m = 0;
    }
    if (m == 0)
        return MCF_OK;
    if (!d->det && (rc = o->det_create(d->ws, m, &d->det)))
        return rc;
    d->m = m;
    if ((rc = o->det_set(d->det, r, A, Ainv))) {
        o->det_destroy(d->det);
        d->det = NULL;
        d->m = 0;
    }
    return rc;
}

/* empties the det (ABI 1: det_destroy) */
static inline void tor_det_free(const mcf_plugin_info *e, tor_det *d)
{
    if (tor_abi2(e) && d->m)
        tor_v2(e)->det_set(d->ws, d->spin, 0, NULL, NULL, NULL);
    else if (!tor_abi2(e) && d->det)
        tor_v1(e)->det_destroy(d->det);
    d->det = NULL;
    d->m = 0;
}

static inline int tor_det_get(const mcf_plugin_info *e, const tor_det *d, double *r, double *A,
                              double *Ainv)
{
    return tor_abi2(e) ? tor_v2(e)->det_get(d->ws, d->spin, r, A, Ainv)
                       : tor_v1(e)->det_get(d->det, r, A, Ainv);
}

static inline int tor_det_accept(const mcf_plugin_info *e, const tor_det *d, size_t electron)
{
    return tor_abi2(e) ? tor_v2(e)->det_accept(tor_batch(), d->ws, d->spin, electron)
                       : tor_v1(e)->det_accept(d->det, electron);
}

/* The arguments of a batched det op for n dets: ABI 1's handles, ABI 2's (workspace, spin)
 * pairs (one block, free() it). */
typedef struct tor_det_args {
    void **det, **ws;
    int *spin;
} tor_det_args;

static inline tor_det_args tor_det_args_make(tor_det *const *d, size_t n)
{
    const size_t m = n ? n : 1;
    tor_det_args a;
    a.det = malloc(m * (2 * sizeof(void *) + sizeof(int)));
    if (!a.det)
        abort();
    a.ws = a.det + m;
    a.spin = (int *)(a.ws + m);
    for (size_t k = 0; k < n; k++) {
        a.det[k] = d[k]->det;
        a.ws[k] = d[k]->ws;
        a.spin[k] = d[k]->spin;
    }
    return a;
}

static inline int tor_det_trial(const mcf_plugin_info *e, tor_det *const *d, size_t n,
                                const double *const *r_trial)
{
    tor_det_args a = tor_det_args_make(d, n);
    int rc = tor_abi2(e) ? tor_v2(e)->det_trial(tor_batch(), a.ws, a.spin, n, r_trial)
                         : tor_v1(e)->det_trial(a.det, n, r_trial);
    free(a.det);
    return rc;
}

static inline int tor_det_ratio(const mcf_plugin_info *e, tor_det *const *d, size_t n,
                                const size_t *electron, double *ratio)
{
    tor_det_args a = tor_det_args_make(d, n);
    int rc = tor_abi2(e) ? tor_v2(e)->det_ratio(tor_batch(), a.ws, a.spin, n, electron, ratio)
                         : tor_v1(e)->det_ratio(a.det, n, electron, ratio);
    free(a.det);
    return rc;
}

static inline int tor_det_refresh(const mcf_plugin_info *e, tor_det *const *d, size_t n,
                                  double *drift)
{
    tor_det_args a = tor_det_args_make(d, n);
    int rc = tor_abi2(e) ? tor_v2(e)->det_refresh(tor_batch(), a.ws, a.spin, n, drift)
                         : tor_v1(e)->det_refresh(a.det, n, drift);
    free(a.det);
    return rc;
}

static inline int tor_det_local(const mcf_plugin_info *e, tor_det *const *d, size_t n,
                                double *const *grad_ratio, double *const *lap_ratio)
{
    tor_det_args a = tor_det_args_make(d, n);
    int rc = tor_abi2(e) ? tor_v2(e)->det_local(tor_batch(), a.ws, a.spin, n, grad_ratio,
                                                lap_ratio)
                         : tor_v1(e)->det_local(a.det, n, grad_ratio, lap_ratio);
    free(a.det);
    return rc;
}

#endif
