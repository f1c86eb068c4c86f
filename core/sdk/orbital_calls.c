/* orbital_calls.c — ABI 2's verbs over an orbital evaluator of either ABI
 * (orbital_calls.h). */
#include "orbital_calls.h"

#include "mcf/error.h"
#include "mcf/plugin.h"

int mcfi_orbital_is_abi2(const mcf_plugin_info *e)
{
    return e && e->abi_version == MCF_ABI_2;
}

mcfi_orbital_target mcfi_orbital_target_of(const mcf_plugin_info *e, mcf_batch *b,
                                           const char *model)
{
    mcfi_orbital_target t = {.batch = b, .model = model, .name = e ? e->name : "none"};
    if (e && e->kind == MCF_PLUGIN_ORBITAL_EVALUATOR && e->ops) {
        if (mcfi_orbital_is_abi2(e)) {
            t.ops2 = e->ops;
            t.app_data = MCF_PLUGIN_INFO_HAS(e, app_data) ? e->app_data : NULL;
        } else {
            t.ops1 = e->ops;
        }
    }
    return t;
}

/* why t cannot be called at all, or NULL (a table the loader never saw may be handed to a
 * helper by a test or an embedding program: check what every call needs) */
static const char *malformed(const mcfi_orbital_target *t)
{
    const mcf_orbital_evaluator *e = t->ops2;
    const mcf_orbital_ops *o = t->ops1;
    if (e)
        return e->struct_size < MCF_ORBITAL_EVALUATOR_SIZE_1_0 || !e->create || !e->destroy ||
                       !e->evaluate
                   ? "lacks create, destroy or evaluate (a malformed evaluator)"
                   : NULL;
    if (o)
        return o->struct_size < offsetof(mcf_orbital_ops, orbitals) + sizeof o->orbitals ||
                       !o->create || !o->destroy || !o->orbitals
                   ? "lacks create, destroy or orbitals (a malformed evaluator)"
                   : NULL;
    return "is not an orbital evaluator";
}

/* an ABI-2 table's bits whose ops are all set (the loader checks it; a table it never saw
 * is believed no further than its ops) */
static unsigned abi2_provides(const mcf_orbital_evaluator *e)
{
    unsigned p = MCF_ORBITAL_VALUES;
    if ((e->provides & MCF_ORBITAL_DETERMINANTS) && e->det_set && e->det_get && e->det_trial &&
        e->det_ratio && e->det_accept && e->det_refresh && e->det_local)
        p |= MCF_ORBITAL_DETERMINANTS;
    if ((p & MCF_ORBITAL_DETERMINANTS) && (e->provides & MCF_ORBITAL_WALKER_SWEEP) &&
        e->walker_sweep)
        p |= MCF_ORBITAL_WALKER_SWEEP;
    if ((p & MCF_ORBITAL_DETERMINANTS) && (e->provides & MCF_ORBITAL_DRIFT_SWEEP) &&
        MCF_HAS(mcf_orbital_evaluator, e, walker_drift_sweep))
        p |= MCF_ORBITAL_DRIFT_SWEEP;
    return p;
}

unsigned mcfi_orbital_provides(const mcfi_orbital_target *t)
{
    if (malformed(t))
        return 0;
    return t->ops2 ? abi2_provides(t->ops2) : mcfi_abi1_orbital_provides(t->ops1);
}

const char *mcfi_orbital_missing(const mcfi_orbital_target *t, unsigned needs)
{
    const char *bad = malformed(t);
    if (bad)
        return bad;
    const unsigned p = mcfi_orbital_provides(t);
    if ((needs & MCF_ORBITAL_VALUES) && !(p & MCF_ORBITAL_VALUES))
        return "lacks the values/vgl operations (orbital values, gradients and Laplacians)";
    if ((needs & (MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP |
                  MCF_ORBITAL_DRIFT_SWEEP)) &&
        !(p & MCF_ORBITAL_DETERMINANTS))
        return t->ops2 ? "keeps no determinants (lacks the determinant ops det_set .. "
                         "det_local, which blip-cuda has)"
                       : "keeps no determinants (lacks the determinant ops det_create .. "
                         "det_local, which blip-cuda has)";
    if ((needs & MCF_ORBITAL_WALKER_SWEEP) && !(p & MCF_ORBITAL_WALKER_SWEEP))
        return "makes no whole sweeps (lacks walker_sweep, which blip-cuda has)";
    if ((needs & MCF_ORBITAL_DRIFT_SWEEP) && !(p & MCF_ORBITAL_DRIFT_SWEEP))
        return "makes no drift-diffusion sweeps (lacks walker_drift_sweep of mcf 1.2, which "
               "blip-cuda has)";
    return NULL;
}

int mcfi_orbital_create(const mcfi_orbital_target *t, const mcf_params *params,
                        const mcf_pw_orbitals *o, void **ws)
{
    return t->ops2 ? t->ops2->create(params, o, t->app_data, ws)
                   : mcfi_abi1_orbital_create(t->ops1, params, o, ws);
}

void mcfi_orbital_destroy(const mcfi_orbital_target *t, void *ws)
{
    if (!ws)
        return;
    if (t->ops2)
        t->ops2->destroy(ws);
    else
        mcfi_abi1_orbital_destroy(t->ops1, ws);
}

int mcfi_orbital_evaluate(const mcfi_orbital_target *t, void *const *ws, size_t n,
                          const double *const *r, const size_t *n_points, double *const *phi,
                          double *const *grad, double *const *lap)
{
    return t->ops2 ? t->ops2->evaluate(t->batch, ws, n, r, n_points, phi, grad, lap)
                   : mcfi_abi1_orbital_evaluate(t->ops1, ws, n, r, n_points, phi, grad, lap);
}

int mcfi_orbital_det_set(const mcfi_orbital_target *t, void *ws, int spin, size_t m,
                         const double *r, const double *A, const double *Ainv)
{
    return t->ops2 ? t->ops2->det_set(ws, spin, m, r, A, Ainv)
                   : mcfi_abi1_orbital_det_set(t->ops1, ws, spin, m, r, A, Ainv);
}

int mcfi_orbital_det_get(const mcfi_orbital_target *t, void *ws, int spin, double *r,
                         double *A, double *Ainv)
{
    return t->ops2 ? t->ops2->det_get(ws, spin, r, A, Ainv)
                   : mcfi_abi1_orbital_det_get(t->ops1, ws, spin, r, A, Ainv);
}

int mcfi_orbital_det_trial(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                           size_t n, const double *const *r_trial)
{
    if (t->ops2)
        return t->ops2->det_trial(t->batch, ws, spin, n, r_trial);
    const mcfi_abi1_det_args a = {.r_trial = r_trial};
    return mcfi_abi1_orbital_dets(t->ops1, MCFI_DET_TRIAL, ws, spin, n, &a);
}

int mcfi_orbital_det_ratio(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                           size_t n, const size_t *electron, double *ratio)
{
    if (t->ops2)
        return t->ops2->det_ratio(t->batch, ws, spin, n, electron, ratio);
    const mcfi_abi1_det_args a = {.electron = electron, .ratio = ratio};
    return mcfi_abi1_orbital_dets(t->ops1, MCFI_DET_RATIO, ws, spin, n, &a);
}

int mcfi_orbital_det_accept(const mcfi_orbital_target *t, void *ws, int spin,
                            size_t electron)
{
    return t->ops2 ? t->ops2->det_accept(t->batch, ws, spin, electron)
                   : mcfi_abi1_orbital_det_accept(t->ops1, ws, spin, electron);
}

int mcfi_orbital_det_refresh(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                             size_t n, double *drift)
{
    if (t->ops2)
        return t->ops2->det_refresh(t->batch, ws, spin, n, drift);
    const mcfi_abi1_det_args a = {.drift = drift};
    return mcfi_abi1_orbital_dets(t->ops1, MCFI_DET_REFRESH, ws, spin, n, &a);
}

int mcfi_orbital_det_local(const mcfi_orbital_target *t, void *const *ws, const int *spin,
                           size_t n, double *const *grad_ratio, double *const *lap_ratio)
{
    if (t->ops2)
        return t->ops2->det_local(t->batch, ws, spin, n, grad_ratio, lap_ratio);
    const mcfi_abi1_det_args a = {.grad_ratio = grad_ratio, .lap_ratio = lap_ratio};
    return mcfi_abi1_orbital_dets(t->ops1, MCFI_DET_LOCAL, ws, spin, n, &a);
}

int mcfi_orbital_walker_sweep(const mcfi_orbital_target *t, const mcf_walker *w, size_t n,
                              const mcf_pair_function u[2], const double cell[3],
                              size_t delay)
{
    return t->ops2 ? t->ops2->walker_sweep(t->batch, w, n, u, cell, delay)
                   : mcfi_abi1_orbital_walker_sweep(t->ops1, w, n, u, cell, delay);
}

int mcfi_orbital_walker_drift_sweep(const mcfi_orbital_target *t, const mcf_drift_walker *w,
                                    size_t n, const mcf_pair_function u[2],
                                    const double cell[3])
{
    /* provided only by ABI-2 tables (orbital_model2.c checked the bit) */
    return t->ops2->walker_drift_sweep(t->batch, w, n, u, cell);
}
