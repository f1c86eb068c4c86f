/* orbital_abi1.c — the up adapter: an ABI-1 orbital evaluator (mcf_orbital_ops) called with
 * ABI 2's verbs (orbital_calls.h).
 *
 * ABI 2 addresses a walker's two Slater determinants by (workspace, spin); ABI 1 hands out
 * determinant handles, det_create(ws, m).  So the SDK's workspace of an ABI-1 evaluator is
 * a small wrapper: the evaluator's workspace and, per spin, the handle and its electron
 * count m.  det_set(ws, spin, m, ...) makes the handle when m changes (the old one
 * destroyed first; m = 0 leaves none), then sets it; destroy frees the handles, then the
 * evaluator's workspace.  Each verb makes the calls an ABI-1 model made itself, in the
 * same order with the same arguments, so the numbers are the same bits. */
#include "orbital_calls.h"

#include <stdlib.h>

#include "mcf/error.h"

typedef struct abi1_ws {
    void *inner;   /* the evaluator's workspace */
    void *det[2];  /* the determinant of each spin (NULL: none) */
    size_t m[2];   /* its electrons */
} abi1_ws;

static int has_determinants(const mcf_orbital_ops *o)
{
    return o->struct_size >= MCF_ORBITAL_OPS_DET_SIZE && o->det_create && o->det_destroy &&
           o->det_set && o->det_get && o->det_trial && o->det_ratio && o->det_accept &&
           o->det_refresh && o->det_local;
}

unsigned mcfi_abi1_orbital_provides(const mcf_orbital_ops *o)
{
    unsigned p = 0;
    if (o->struct_size >= offsetof(mcf_orbital_ops, vgl) + sizeof o->vgl && o->values &&
        o->vgl)
        p |= MCF_ORBITAL_VALUES;
    if (has_determinants(o))
        p |= MCF_ORBITAL_DETERMINANTS;
    if ((p & MCF_ORBITAL_DETERMINANTS) && MCF_HAS(mcf_orbital_ops, o, walker_sweep))
        p |= MCF_ORBITAL_WALKER_SWEEP;
    return p;
}

int mcfi_abi1_orbital_create(const mcf_orbital_ops *ops, const mcf_params *params,
                             const mcf_pw_orbitals *o, void **ws)
{
    *ws = NULL;
    abi1_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = ops->create(params, o, &w->inner);
    if (rc) {
        free(w);
        return rc;
    }
    *ws = w;
    return MCF_OK;
}

void mcfi_abi1_orbital_destroy(const mcf_orbital_ops *ops, void *ws)
{
    abi1_ws *w = ws;
    if (!w)
        return;
    for (int s = 0; s < 2; s++)
        if (w->det[s])
            ops->det_destroy(w->det[s]);
    ops->destroy(w->inner);
    free(w);
}

/* the evaluator's workspaces of ws[0..n) into in[0..n) (NULL stays NULL: the evaluator
 * names it) */
static void unwrap(void *const *ws, size_t n, void **in)
{
    for (size_t k = 0; k < n; k++)
        in[k] = ws[k] ? ((abi1_ws *)ws[k])->inner : NULL;
}

int mcfi_abi1_orbital_evaluate(const mcf_orbital_ops *ops, void *const *ws, size_t n,
                               const double *const *r, const size_t *n_points,
                               double *const *phi, double *const *grad, double *const *lap)
{
    void *one, **in = n > 1 ? malloc(n * sizeof *in) : &one;
    if (!in)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    if (ws)
        unwrap(ws, n, in);
    void *const *arg = ws ? in : NULL;
    const int rc = grad || lap ? ops->vgl(arg, n, r, n_points, phi, grad, lap)
                               : ops->values(arg, n, r, n_points, phi);
    if (in != &one)
        free(in);
    return rc;
}

static int bad_spin(int spin)
{
    return mcf_fail(MCF_EINVAL, "spin %d: a workspace holds the determinants of spin 0 (up) "
                    "and 1 (down)", spin);
}

/* the determinant (ws, spin), or NULL with a message */
static void *det_of(void *ws, int spin)
{
    if (!ws) {
        mcf_fail(MCF_EINVAL, "NULL workspace");
        return NULL;
    }
    if (spin != 0 && spin != 1) {
        bad_spin(spin);
        return NULL;
    }
    void *d = ((abi1_ws *)ws)->det[spin];
    if (!d)
        mcf_fail(MCF_EINVAL, "the determinant of spin %d holds no electrons (det_set it "
                 "first)", spin);
    return d;
}

int mcfi_abi1_orbital_det_set(const mcf_orbital_ops *ops, void *ws, int spin, size_t m,
                              const double *r, const double *A, const double *Ainv)
{
    abi1_ws *w = ws;
    if (!w)
        return mcf_fail(MCF_EINVAL, "NULL workspace");
    if (spin != 0 && spin != 1)
        return bad_spin(spin);
    if (w->det[spin] && w->m[spin] != m) {
        ops->det_destroy(w->det[spin]);
        w->det[spin] = NULL;
        w->m[spin] = 0;
    }
    if (m == 0)
        return MCF_OK;
    if (!w->det[spin]) {
        int rc = ops->det_create(w->inner, m, &w->det[spin]);
        if (rc) {
            w->det[spin] = NULL;
            return rc;
        }
        w->m[spin] = m;
    }
    return ops->det_set(w->det[spin], r, A, Ainv);
}

int mcfi_abi1_orbital_det_get(const mcf_orbital_ops *ops, void *ws, int spin, double *r,
                              double *A, double *Ainv)
{
    void *d = det_of(ws, spin);
    return d ? ops->det_get(d, r, A, Ainv) : MCF_EINVAL;
}

int mcfi_abi1_orbital_dets(const mcf_orbital_ops *ops, mcfi_abi1_det_op op,
                           void *const *ws, const int *spin, size_t n,
                           const mcfi_abi1_det_args *a)
{
    void *one, **det = n > 1 ? malloc(n * sizeof *det) : &one;
    if (!det)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++)
        if (!(det[k] = det_of(ws[k], spin[k])))
            rc = mcf_fail_prefix(MCF_EINVAL, "determinant %zu of %zu", k, n);
    if (!rc && n) {
        switch (op) {
        case MCFI_DET_TRIAL:
            rc = ops->det_trial(det, n, a->r_trial);
            break;
        case MCFI_DET_RATIO:
            rc = ops->det_ratio(det, n, a->electron, a->ratio);
            break;
        case MCFI_DET_REFRESH:
            rc = ops->det_refresh(det, n, a->drift);
            break;
        case MCFI_DET_LOCAL:
            rc = ops->det_local(det, n, a->grad_ratio, a->lap_ratio);
            break;
        }
    }
    if (det != &one)
        free(det);
    return rc;
}

int mcfi_abi1_orbital_det_accept(const mcf_orbital_ops *ops, void *ws, int spin,
                                 size_t electron)
{
    void *d = det_of(ws, spin);
    return d ? ops->det_accept(d, electron) : MCF_EINVAL;
}

/* ABI 1's walker: the handles of the wrapper, the rest as it is */
int mcfi_abi1_orbital_walker_sweep(const mcf_orbital_ops *ops, const mcf_walker *w, size_t n,
                                   const mcf_pair_function u[2], const double cell[3],
                                   size_t delay)
{
    mcf_walker_moves one, *mv = n > 1 ? malloc(n * sizeof *mv) : &one;
    if (!mv)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        const abi1_ws *x = w[k].ws;
        if (!x) {
            rc = mcf_fail(MCF_EINVAL, "walker %zu of %zu: NULL workspace", k, n);
            break;
        }
        mv[k] = (mcf_walker_moves){{x->det[0], x->det[1]}, w[k].r, w[k].trial, w[k].rng,
                                   w[k].accepted, w[k].log_ratio};
    }
    if (!rc && n)
        rc = ops->walker_sweep(mv, n, u, cell, delay);
    if (mv != &one)
        free(mv);
    return rc;
}
