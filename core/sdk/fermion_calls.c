/* fermion_calls.c — ABI 2's verbs over a fermion evaluator of either ABI
 * (fermion_calls.h). */
#include "fermion_calls.h"

#include "mcf/error.h"
#include "mcf/model.h"

int mcfi_fermion_is_abi2(const mcf_plugin_info *e)
{
    return e && e->abi_version == MCF_ABI_2;
}

mcfi_fermion_target mcfi_fermion_target_of(const mcf_plugin_info *e, mcf_batch *b,
                                           const char *model)
{
    mcfi_fermion_target t = {.batch = b, .model = model, .name = e ? e->name : "none"};
    if (e && e->kind == MCF_PLUGIN_FERMION_EVALUATOR && e->ops) {
        if (mcfi_fermion_is_abi2(e)) {
            t.ops2 = e->ops;
            t.app_data = MCF_PLUGIN_INFO_HAS(e, app_data) ? e->app_data : NULL;
        } else {
            t.ops1 = e->ops;
        }
    }
    return t;
}

unsigned mcfi_fermion_provides(const mcfi_fermion_target *t)
{
    if (!t->ops2)
        return mcfi_abi1_fermion_provides(t->ops1);
    unsigned p = t->ops2->provides;
    /* a table of mcf 1.0 has no density_matrix, whatever its bits say */
    if (!MCF_HAS(mcf_fermion_evaluator, t->ops2, density_matrix))
        p &= ~(unsigned)MCF_PROVIDES_DENSITY_MATRIX;
    if (!MCF_HAS(mcf_fermion_evaluator, t->ops2, pseudofermion))
        p &= ~(unsigned)MCF_PROVIDES_PSEUDOFERMION;
    /* nor one of mcf 1.1 a response */
    if (!MCF_HAS(mcf_fermion_evaluator, t->ops2, response))
        p &= ~(unsigned)MCF_PROVIDES_RESPONSE;
    if (!MCF_HAS(mcf_fermion_evaluator, t->ops2, vector_moments))
        p &= ~(unsigned)MCF_PROVIDES_VECTOR_MOMENTS;
    return p;
}

int mcfi_fermion_create(const mcfi_fermion_target *t, const mcf_params *params,
                        const mcf_hamiltonian *h, void **ws)
{
    return t->ops2 ? t->ops2->create(params, h, t->app_data, ws)
                   : t->ops1->create(params, h, ws);
}

void mcfi_fermion_destroy(const mcfi_fermion_target *t, void *ws)
{
    if (!ws)
        return;
    if (t->ops2)
        t->ops2->destroy(ws);
    else
        t->ops1->destroy(ws);
}

int mcfi_fermion_spectra(const mcfi_fermion_target *t, void *const *ws, size_t n,
                         mcf_rng *const *rngs, mcf_spectra *s)
{
    return t->ops2 ? t->ops2->spectra(t->batch, ws, n, rngs, s)
                   : mcfi_abi1_fermion_spectra(t->ops1, ws, n, rngs, s);
}

int mcfi_fermion_occupation(const mcfi_fermion_target *t, void *const *ws, size_t n,
                            mcf_rng *const *rngs, double mu, double T,
                            const mcf_occupation *out)
{
    if (t->ops2)
        return t->ops2->occupation(t->batch, ws, n, rngs, mu, T, out);
    return out->ddensity ? t->ops1->occupation_dT(ws, n, rngs, mu, T, out->density,
                                                  out->energy, out->ddensity, out->denergy)
                         : t->ops1->occupation(ws, n, rngs, mu, T, out->density, out->energy);
}

int mcfi_fermion_change_action(const mcfi_fermion_target *t, void *const *ws, size_t n,
                               const mcf_change *const *changes, const double *T,
                               const double *mu, double *dS, double *err)
{
    return t->ops2 ? t->ops2->change_action(t->batch, ws, n, changes, T, mu, dS, err)
                   : t->ops1->change_action(ws, n, changes, T, mu, dS, err);
}

int mcfi_fermion_action(const mcfi_fermion_target *t, void *const *ws, size_t n, size_t m,
                        const double *T, const double *mu, double *S, double *err)
{
    return t->ops2 ? t->ops2->action(t->batch, ws, n, m, T, mu, S, err)
                   : t->ops1->action(ws, n, m, T, mu, S, err);
}

int mcfi_fermion_density_matrix(const mcfi_fermion_target *t, void *const *ws, size_t n,
                                mcf_rng *const *rngs, const double *T, const double *mu,
                                const mcf_density_matrix *out)
{
    if (!(mcfi_fermion_provides(t) & MCF_PROVIDES_DENSITY_MATRIX))
        return mcf_fail(MCF_EINVAL, "evaluator %s has no density_matrix", t->name);
    return t->ops2->density_matrix(t->batch, ws, n, rngs, T, mu, out);
}

int mcfi_fermion_pseudofermion(const mcfi_fermion_target *t, void *const *ws, size_t n,
                               mcf_rng *const *rngs, const double *T, const double *mu,
                               mcf_pseudofermion *p)
{
    if (!(mcfi_fermion_provides(t) & MCF_PROVIDES_PSEUDOFERMION))
        return mcf_fail(MCF_EINVAL, "evaluator %s has no pseudofermion", t->name);
    return t->ops2->pseudofermion(t->batch, ws, n, rngs, T, mu, p);
}

int mcfi_fermion_response(const mcfi_fermion_target *t, void *const *ws, size_t n,
                          mcf_rng *const *rngs, const mcf_response *r)
{
    if (!(mcfi_fermion_provides(t) & MCF_PROVIDES_RESPONSE))
        return mcf_fail(MCF_EINVAL, "evaluator %s has no response", t->name);
    return t->ops2->response(t->batch, ws, n, rngs, r);
}

int mcfi_fermion_vector_moments(const mcfi_fermion_target *t, void *const *ws, size_t n,
                                const mcf_vector_moments *r)
{
    if (!(mcfi_fermion_provides(t) & MCF_PROVIDES_VECTOR_MOMENTS))
        return mcf_fail(MCF_EINVAL, "evaluator %s has no vector_moments", t->name);
    return t->ops2->vector_moments(t->batch, ws, n, r);
}
