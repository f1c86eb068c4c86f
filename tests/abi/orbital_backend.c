/* orbital_backend.c — the callers and scripts of orbital_backend.h. */
#include "orbital_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"
#include "mcf/rng.h"

/* ---- OB_TABLE1: an ABI-1 model's own bookkeeping of det handles --------------------- */

typedef struct t1_ws {
    void *inner;
    void *det[2];
    size_t m[2];
} t1_ws;

static void *t1_det(void *ws, int spin)
{
    return ((t1_ws *)ws)->det[spin];
}

/* ---- the verbs, by caller --------------------------------------------------------------- */

static int be_create(const ob_backend *be, const mcf_pw_orbitals *o, void **ws)
{
    if (be->kind == OB_TABLE2)
        return be->ops2->create(be->params, o, be->app_data, ws);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_workspace(be->handle, o, ws);
    t1_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = be->ops1->create(be->params, o, &w->inner);
    if (rc)
        free(w);
    *ws = rc ? NULL : w;
    return rc;
}

static void be_destroy(const ob_backend *be, void *ws)
{
    if (be->kind == OB_TABLE2) {
        be->ops2->destroy(ws);
    } else if (be->kind == OB_HELPERS) {
        mcf_orbital_release(be->handle, ws);
    } else if (ws) {
        t1_ws *w = ws;
        for (int s = 0; s < 2; s++)
            if (w->det[s])
                be->ops1->det_destroy(w->det[s]);
        be->ops1->destroy(w->inner);
        free(w);
    }
}

static int be_evaluate(const ob_backend *be, void *const *ws, size_t n, const double *const *r,
                       const size_t *np, double *const *phi, double *const *grad,
                       double *const *lap)
{
    if (be->kind == OB_TABLE2)
        return be->ops2->evaluate(be->batch, ws, n, r, np, phi, grad, lap);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_evaluate(be->batch, ws, n, r, np, phi, grad, lap);
    void *in[8];
    for (size_t k = 0; k < n; k++)
        in[k] = ((t1_ws *)ws[k])->inner;
    return grad ? be->ops1->vgl(in, n, r, np, phi, grad, lap)
                : be->ops1->values(in, n, r, np, phi);
}

static int be_det_set(const ob_backend *be, void *ws, int spin, size_t m, const double *r,
                      const double *A, const double *Ainv)
{
    if (be->kind == OB_TABLE2)
        return be->ops2->det_set(ws, spin, m, r, A, Ainv);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_set(be->handle, ws, spin, m, r, A, Ainv);
    t1_ws *w = ws;
    if (w->det[spin] && w->m[spin] != m) {
        be->ops1->det_destroy(w->det[spin]);
        w->det[spin] = NULL;
    }
    if (!m)
        return MCF_OK;
    if (!w->det[spin]) {
        int rc = be->ops1->det_create(w->inner, m, &w->det[spin]);
        if (rc)
            return rc;
        w->m[spin] = m;
    }
    return be->ops1->det_set(w->det[spin], r, A, Ainv);
}

static int be_det_get(const ob_backend *be, void *ws, int spin, double *r, double *A,
                      double *Ainv)
{
    if (be->kind == OB_TABLE2)
        return be->ops2->det_get(ws, spin, r, A, Ainv);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_get(be->handle, ws, spin, r, A, Ainv);
    void *d = t1_det(ws, spin);
    return d ? be->ops1->det_get(d, r, A, Ainv) : mcf_fail(MCF_EINVAL, "no determinant");
}

/* the handles of (ws[k], spin[k]) for OB_TABLE1 */
static void handles(void *const *ws, const int *spin, size_t n, void **det)
{
    for (size_t k = 0; k < n; k++)
        det[k] = t1_det(ws[k], spin[k]);
}

static int be_det_trial(const ob_backend *be, void *const *ws, const int *spin, size_t n,
                        const double *const *rt)
{
    void *det[8];
    if (be->kind == OB_TABLE2)
        return be->ops2->det_trial(be->batch, ws, spin, n, rt);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_trial(be->batch, ws, spin, n, rt);
    handles(ws, spin, n, det);
    return be->ops1->det_trial(det, n, rt);
}

static int be_det_ratio(const ob_backend *be, void *const *ws, const int *spin, size_t n,
                        const size_t *e, double *R)
{
    void *det[8];
    if (be->kind == OB_TABLE2)
        return be->ops2->det_ratio(be->batch, ws, spin, n, e, R);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_ratio(be->batch, ws, spin, n, e, R);
    handles(ws, spin, n, det);
    return be->ops1->det_ratio(det, n, e, R);
}

static int be_det_accept(const ob_backend *be, void *ws, int spin, size_t e)
{
    if (be->kind == OB_TABLE2)
        return be->ops2->det_accept(be->batch, ws, spin, e);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_accept(be->batch, ws, spin, e);
    return be->ops1->det_accept(t1_det(ws, spin), e);
}

static int be_det_refresh(const ob_backend *be, void *const *ws, const int *spin, size_t n,
                          double *drift)
{
    void *det[8];
    if (be->kind == OB_TABLE2)
        return be->ops2->det_refresh(be->batch, ws, spin, n, drift);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_refresh(be->batch, ws, spin, n, drift);
    handles(ws, spin, n, det);
    return be->ops1->det_refresh(det, n, drift);
}

static int be_det_local(const ob_backend *be, void *const *ws, const int *spin, size_t n,
                        double *const *g, double *const *l)
{
    void *det[8];
    if (be->kind == OB_TABLE2)
        return be->ops2->det_local(be->batch, ws, spin, n, g, l);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_det_local(be->batch, ws, spin, n, g, l);
    handles(ws, spin, n, det);
    return be->ops1->det_local(det, n, g, l);
}

static int be_walker_sweep(const ob_backend *be, const mcf_walker *w, size_t n,
                           const mcf_pair_function u[2], const double cell[3])
{
    if (be->kind == OB_TABLE2)
        return be->ops2->walker_sweep(be->batch, w, n, u, cell, 0);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_walker_sweep(be->batch, w, n, u, cell, 0);
    mcf_walker_moves mv[8];
    for (size_t k = 0; k < n; k++)
        mv[k] = (mcf_walker_moves){{t1_det(w[k].ws, 0), t1_det(w[k].ws, 1)}, w[k].r,
                                   w[k].trial, w[k].rng, w[k].accepted, w[k].log_ratio};
    return be->ops1->walker_sweep(mv, n, u, cell, 0);
}

static int be_walker_drift_sweep(const ob_backend *be, const mcf_drift_walker *w, size_t n,
                                 const mcf_pair_function u[2], const double cell[3])
{
    if (be->kind == OB_TABLE2)
        return be->ops2->walker_drift_sweep(be->batch, w, n, u, cell);
    if (be->kind == OB_HELPERS)
        return mcf_orbital_walker_drift_sweep(be->batch, w, n, u, cell);
    return mcf_fail(MCF_EINVAL, "an ABI-1 table has no walker_drift_sweep");
}

/* ---- records ------------------------------------------------------------------------- */

void ob_record_free(ob_record *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}

static void rec(ob_record *r, const double *v, size_t n)
{
    if (r->n + n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < r->n + n)
            cap *= 2;
        double *p = realloc(r->v, cap * sizeof *p);
        if (!p)
            abort();
        r->v = p;
        r->cap = cap;
    }
    memcpy(r->v + r->n, v, n * sizeof *v);
    r->n += n;
}

/* a call's status: 1 when it failed (recorded with its message; the script stops) */
static int failed(ob_record *r, const ob_backend *be, const char *op, int rc)
{
    if (!rc)
        return 0;
    r->failed = 1;
    snprintf(r->what, sizeof r->what, "%s: %s: rc %d: %s", be->name, op, rc, mcf_last_error());
    return 1;
}

int ob_same(const ob_record *a, const ob_record *b, const char *what)
{
    if (a->failed || b->failed) {
        printf("%s: a script failed: %s %s\n", what, a->what, b->what);
        return 0;
    }
    if (a->n != b->n) {
        printf("%s: %zu and %zu numbers recorded\n", what, a->n, b->n);
        return 0;
    }
    for (size_t k = 0; k < a->n; k++)
        if (memcmp(&a->v[k], &b->v[k], sizeof(double)) != 0) {
            printf("%s: number %zu of %zu differs: %.17g vs %.17g\n", what, k, a->n, a->v[k],
                   b->v[k]);
            return 0;
        }
    return a->n > 0;
}

/* ---- the values script ------------------------------------------------------------------ */

void ob_script_values(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out)
{
    enum { MAXP = 6 };
    const size_t L = o->n_orbitals, np[3] = {4, 0, 6};
    double r[3][3 * MAXP];
    mcf_rng rng;
    mcf_rng_init(&rng, 11, 0);
    for (size_t k = 0; k < 3; k++)
        for (size_t p = 0; p < 3 * MAXP; p++)
            r[k][p] = o->cell[p % 3] * (3.0 * mcf_rng_uniform(&rng) - 1.0);
    double *buf = calloc(3 * 5 * MAXP * L, sizeof *buf);
    if (!buf)
        abort();
    double *phi[3], *grad[3], *lap[3];
    for (size_t k = 0; k < 3; k++) {
        phi[k] = buf + k * 5 * MAXP * L;
        grad[k] = phi[k] + MAXP * L;
        lap[k] = grad[k] + 3 * MAXP * L;
    }
    const double *rr[3] = {r[0], r[1], r[2]};
    void *ws[3] = {NULL, NULL, NULL};
    int bad = 0;
    for (size_t k = 0; k < 3 && !bad; k++)
        bad = failed(out, be, "create", be_create(be, o, &ws[k]));
    if (!bad && !failed(out, be, "values", be_evaluate(be, ws, 3, rr, np, phi, NULL, NULL)))
        for (size_t k = 0; k < 3; k++)
            rec(out, phi[k], np[k] * L);
    if (!bad && !out->failed &&
        !failed(out, be, "vgl", be_evaluate(be, ws, 3, rr, np, phi, grad, lap)))
        for (size_t k = 0; k < 3; k++) {
            rec(out, phi[k], np[k] * L);
            rec(out, grad[k], 3 * np[k] * L);
            rec(out, lap[k], np[k] * L);
        }
    for (size_t k = 0; k < 3; k++)
        if (ws[k])
            be_destroy(be, ws[k]);
    free(buf);
}

/* ---- the determinants script -------------------------------------------------------------- */

/* the inverse X of the m x m matrix A (row major; X A = 1) by Gauss-Jordan elimination with
 * partial pivoting; 0 for a singular A */
static int invert(size_t m, const double *A, double *X)
{
    double M[2 * 8 * 8];
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < 2 * m; j++)
            M[i * 2 * m + j] = j < m ? A[i * m + j] : (j - m == i ? 1.0 : 0.0);
    for (size_t c = 0; c < m; c++) {
        size_t p = c;
        for (size_t i = c + 1; i < m; i++)
            if (fabs(M[i * 2 * m + c]) > fabs(M[p * 2 * m + c]))
                p = i;
        if (M[p * 2 * m + c] == 0.0)
            return 0;
        for (size_t j = 0; j < 2 * m; j++) {
            const double t = M[c * 2 * m + j];
            M[c * 2 * m + j] = M[p * 2 * m + j];
            M[p * 2 * m + j] = t;
        }
        const double piv = M[c * 2 * m + c];
        for (size_t j = 0; j < 2 * m; j++)
            M[c * 2 * m + j] /= piv;
        for (size_t i = 0; i < m; i++)
            if (i != c) {
                const double f = M[i * 2 * m + c];
                for (size_t j = 0; j < 2 * m; j++)
                    M[i * 2 * m + j] -= f * M[c * 2 * m + j];
            }
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
            X[i * m + j] = M[i * 2 * m + m + j];
    return 1;
}

enum { NW = 2, NE = 5, MUP = 3 }; /* walkers; electrons; of them up */

/* the electrons' count and first index of spin s */
static size_t spin_m(int s) { return s ? NE - MUP : MUP; }
static size_t spin_first(int s) { return s ? MUP : 0; }

/* det_set of both spins of walker w at positions r (NE x 3): rows from evaluate */
static int load_walker(const ob_backend *be, void *ws, const double *r, size_t L,
                       ob_record *out)
{
    double phi[NE * 16], A[MUP * MUP], X[MUP * MUP];
    const size_t np = NE;
    const double *rr = r;
    if (failed(out, be, "evaluate rows", be_evaluate(be, &ws, 1, &rr, &np,
                                                     (double *const[]){phi}, NULL, NULL)))
        return 1;
    for (int s = 0; s < 2; s++) {
        const size_t m = spin_m(s), f = spin_first(s);
        for (size_t i = 0; i < m; i++)
            for (size_t l = 0; l < m; l++)
                A[i * m + l] = phi[(f + i) * L + l];
        if (!invert(m, A, X))
            return failed(out, be, "invert", mcf_fail(MCF_EINVAL, "a singular Slater matrix"));
        if (failed(out, be, "det_set", be_det_set(be, ws, s, m, r + 3 * f, A, X)))
            return 1;
    }
    return 0;
}

/* det_get of both spins of every walker, recorded */
static int record_dets(const ob_backend *be, void *const *ws, ob_record *out)
{
    double r[3 * MUP], A[MUP * MUP], X[MUP * MUP];
    for (size_t w = 0; w < NW; w++)
        for (int s = 0; s < 2; s++) {
            const size_t m = spin_m(s);
            if (failed(out, be, "det_get", be_det_get(be, ws[w], s, r, A, X)))
                return 1;
            rec(out, r, 3 * m);
            rec(out, A, m * m);
            rec(out, X, m * m);
        }
    return 0;
}

/* one walker after a sweep: its positions, log ratios, stream and decisions */
static void rec_walker(ob_record *out, const double *pos, const double *lr, const mcf_rng *wr,
                       const unsigned char *acc)
{
    rec(out, pos, 3 * NE);
    rec(out, lr, NE);
    const double st[3] = {(double)wr->counter, (double)wr->used, 0};
    rec(out, st, 3);
    for (size_t e = 0; e < NE; e++) {
        out->accepted += acc[e];
        rec(out, &(double){acc[e]}, 1);
    }
}

static int dets_body(const ob_backend *be, const mcf_pw_orbitals *o, void **ws,
                     ob_record *out)
{
    const size_t L = o->n_orbitals;
    if (L < MUP || L > 16)
        return failed(out, be, "script", mcf_fail(MCF_EINVAL, "%zu orbitals: 3 .. 16", L));
    double r[NW][3 * NE], trial[NW][3 * NE];
    mcf_rng rng;
    mcf_rng_init(&rng, 23, 0);
    for (size_t w = 0; w < NW; w++) {
        for (size_t p = 0; p < 3 * NE; p++)
            r[w][p] = o->cell[p % 3] * mcf_rng_uniform(&rng);
        if (load_walker(be, ws[w], r[w], L, out))
            return 1;
    }
    /* the four determinants in one call each: (w0, up), (w0, down), (w1, up), (w1, down) */
    void *const dws[4] = {ws[0], ws[0], ws[1], ws[1]};
    const int spin[4] = {0, 1, 0, 1};
    const double *rt[4];
    for (size_t k = 0; k < 4; k++) {
        for (size_t p = 0; p < 3 * NE; p++)
            trial[k / 2][p] = r[k / 2][p] + 0.3 * (mcf_rng_uniform(&rng) - 0.5);
        rt[k] = trial[k / 2] + 3 * spin_first(spin[k]);
    }
    double R[4], drift[4], g[4][3 * MUP], lp[4][MUP];
    const size_t e1[4] = {1, 0, 2, 1}, e2[4] = {0, 1, 1, 0};
    if (failed(out, be, "det_trial", be_det_trial(be, dws, spin, 4, rt)) ||
        failed(out, be, "det_ratio", be_det_ratio(be, dws, spin, 4, e1, R)))
        return 1;
    rec(out, R, 4);
    if (failed(out, be, "det_accept", be_det_accept(be, ws[1], 1, 1)))
        return 1;
    if (failed(out, be, "det_ratio", be_det_ratio(be, dws, spin, 1, e1, R)))
        return 1;
    rec(out, R, 1);
    if (failed(out, be, "det_accept", be_det_accept(be, ws[0], 0, 1)) ||
        failed(out, be, "det_ratio", be_det_ratio(be, dws, spin, 4, e2, R)))
        return 1;
    rec(out, R, 4);
    if (failed(out, be, "det_refresh", be_det_refresh(be, dws, spin, 4, drift)) ||
        failed(out, be, "det_local",
               be_det_local(be, dws, spin, 4, (double *const[]){g[0], g[1], g[2], g[3]},
                            (double *const[]){lp[0], lp[1], lp[2], lp[3]})))
        return 1;
    rec(out, drift, 4);
    for (size_t k = 0; k < 4; k++) {
        rec(out, g[k], 3 * spin_m(spin[k]));
        rec(out, lp[k], spin_m(spin[k]));
    }
    if (record_dets(be, ws, out))
        return 1;
    /* a walker sweep over new trial positions, with a Jastrow factor */
    for (size_t w = 0; w < NW; w++)
        for (size_t p = 0; p < 3 * NE; p++)
            trial[w][p] = r[w][p] + 0.5 * (mcf_rng_uniform(&rng) - 0.5);
    if (failed(out, be, "det_trial", be_det_trial(be, dws, spin, 4, rt)) ||
        record_dets(be, ws, out))
        return 1;
    double pos[NW][3 * NE], lr[NW][NE];
    unsigned char acc[NW][NE];
    mcf_rng wr[NW];
    mcf_walker walk[NW];
    for (size_t w = 0; w < NW; w++) {
        mcf_rng_init(&wr[w], 31, w);
        for (int s = 0; s < 2; s++) /* the positions the determinants hold */
            if (failed(out, be, "det_get",
                       be_det_get(be, ws[w], s, pos[w] + 3 * spin_first(s), NULL, NULL)))
                return 1;
        walk[w] = (mcf_walker){ws[w], pos[w], trial[w], &wr[w], acc[w], lr[w]};
    }
    const double L0 = o->cell[0];
    const mcf_pair_function u[2] = {{.form = MCF_PAIR_RPA, .cutoff = 0.5 * L0, .A = 0.2,
                                     .F = 0.7},
                                    {.form = MCF_PAIR_RPA, .cutoff = 0.5 * L0, .A = 0.3,
                                     .F = 0.9}};
    if (failed(out, be, "walker_sweep", be_walker_sweep(be, walk, NW, u, o->cell)))
        return 1;
    for (size_t w = 0; w < NW; w++)
        rec_walker(out, pos[w], lr[w], &wr[w], acc[w]);
    if (record_dets(be, ws, out))
        return 1;
    /* another m for (w0, down), an emptied (w1, down) */
    double A1 = 0.5, X1 = 2.0;
    if (failed(out, be, "det_set m = 1", be_det_set(be, ws[0], 1, 1, pos[0], &A1, &X1)) ||
        failed(out, be, "det_set m = 0", be_det_set(be, ws[1], 1, 0, NULL, NULL, NULL)))
        return 1;
    double rb[3], Ab, Xb;
    if (failed(out, be, "det_get m = 1", be_det_get(be, ws[0], 1, rb, &Ab, &Xb)))
        return 1;
    rec(out, rb, 3);
    rec(out, (const double[]){Ab, Xb}, 2);
    const int rc = be_det_get(be, ws[1], 1, rb, &Ab, &Xb);
    rec(out, &(double){rc == MCF_OK}, 1); /* an empty determinant has nothing to get */
    return 0;
}

/* a script's body on NW fresh workspaces, destroyed after it */
static void on_workspaces(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out,
                          int (*body)(const ob_backend *, const mcf_pw_orbitals *, void **,
                                      ob_record *))
{
    void *ws[NW] = {NULL, NULL};
    int bad = 0;
    for (size_t w = 0; w < NW && !bad; w++)
        bad = failed(out, be, "create", be_create(be, o, &ws[w]));
    if (!bad)
        body(be, o, ws, out);
    for (size_t w = 0; w < NW; w++)
        if (ws[w])
            be_destroy(be, ws[w]);
}

void ob_script_dets(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out)
{
    on_workspaces(be, o, out, dets_body);
}

/* ---- the drift script ------------------------------------------------------------------- */

/* two drift sweeps of both walkers (the first without, the second with fixed node) */
static int drift_body(const ob_backend *be, const mcf_pw_orbitals *o, void **ws,
                      ob_record *out)
{
    const size_t L = o->n_orbitals;
    if (L < MUP || L > 16)
        return failed(out, be, "script", mcf_fail(MCF_EINVAL, "%zu orbitals: 3 .. 16", L));
    double pos[NW][3 * NE], chi[NW][3 * NE], lr[NW][NE];
    unsigned char acc[NW][NE];
    mcf_rng rng, wr[NW];
    mcf_rng_init(&rng, 41, 0);
    mcf_drift_walker dw[NW];
    for (size_t w = 0; w < NW; w++) {
        for (size_t p = 0; p < 3 * NE; p++)
            pos[w][p] = o->cell[p % 3] * mcf_rng_uniform(&rng);
        if (load_walker(be, ws[w], pos[w], L, out))
            return 1;
        mcf_rng_init(&wr[w], 43, w);
        dw[w] = (mcf_drift_walker){{ws[w], pos[w], NULL, &wr[w], acc[w], lr[w]}, chi[w],
                                   0.05 + 0.1 * (double)w, 0, 0};
    }
    const double L0 = o->cell[0];
    const mcf_pair_function u[2] = {{.form = MCF_PAIR_RPA, .cutoff = 0.5 * L0, .A = 0.2,
                                     .F = 0.7},
                                    {.form = MCF_PAIR_RPA, .cutoff = 0.5 * L0, .A = 0.3,
                                     .F = 0.9}};
    for (int sweep = 0; sweep < 2; sweep++) {
        for (size_t w = 0; w < NW; w++) {
            for (size_t p = 0; p < 3 * NE; p++)
                chi[w][p] = mcf_rng_normal(&rng);
            dw[w].fixed_node = sweep;
        }
        if (failed(out, be, "walker_drift_sweep",
                   be_walker_drift_sweep(be, dw, NW, u, o->cell)))
            return 1;
        for (size_t w = 0; w < NW; w++) {
            rec_walker(out, pos[w], lr[w], &wr[w], acc[w]);
            for (size_t e = 0; e < NE; e++) {
                for (size_t c = 0; c < 3; c++) /* accepted: reduced into the cell */
                    if (acc[w][e] && !(pos[w][3 * e + c] >= 0.0 &&
                                       pos[w][3 * e + c] < o->cell[c]))
                        return failed(out, be, "positions",
                                      mcf_fail(MCF_EINVAL, "electron %zu of walker %zu at "
                                               "%.17g, outside [0, %g)", e, w,
                                               pos[w][3 * e + c], o->cell[c]));
            }
        }
        if (record_dets(be, ws, out))
            return 1;
    }
    return 0;
}

void ob_script_drift(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out)
{
    on_workspaces(be, o, out, drift_body);
}
