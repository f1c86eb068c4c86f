/* orbital_model.c — binding and workspaces of a model's orbital evaluator
 * (mcf/orbital_model.h), as fermion_model.c does for fermion evaluators. */
#include "mcf/orbital_model.h"

#include <stddef.h>

#include "mcf/error.h"
#include "mcf/plugin.h"

/* Whether ops has the nine determinant ops (the loader refuses a plugin with some of them,
 * but a model may be handed a table the loader never saw: check every one). */
static int has_determinants(const mcf_orbital_ops *ops)
{
    return ops->struct_size >= MCF_ORBITAL_OPS_DET_SIZE && ops->det_create &&
           ops->det_destroy && ops->det_set && ops->det_get && ops->det_trial &&
           ops->det_ratio && ops->det_accept && ops->det_refresh && ops->det_local;
}

/* The first of `needs` that ops lacks, as "lacks <op> (<what for>)", or NULL. */
static const char *orbital_missing(const mcf_orbital_ops *ops, unsigned needs)
{
    if (ops->struct_size < offsetof(mcf_orbital_ops, orbitals) + sizeof ops->orbitals ||
        !ops->create || !ops->destroy || !ops->orbitals)
        return "lacks create, destroy or orbitals (a malformed evaluator)";
    if ((needs & MCF_ORBITAL_VALUES) &&
        (ops->struct_size < offsetof(mcf_orbital_ops, vgl) + sizeof ops->vgl || !ops->values ||
         !ops->vgl))
        return "lacks the values/vgl operations (orbital values, gradients and Laplacians)";
    if ((needs & (MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP)) &&
        !has_determinants(ops))
        return "keeps no determinants (lacks the determinant ops det_create .. det_local, "
               "which blip-cuda has)";
    if ((needs & MCF_ORBITAL_WALKER_SWEEP) && !MCF_HAS(mcf_orbital_ops, ops, walker_sweep))
        return "makes no whole sweeps (lacks walker_sweep, which blip-cuda has)";
    return NULL;
}

int mcf_orbital_bind(const mcf_services *s, const mcf_params *model_params, const char *model,
                     unsigned needs, mcf_orbital *out)
{
    const char *origin = model_params ? mcf_params_origin(model_params) : "the configuration";
    const mcf_plugin_info *e =
        s && s->struct_size >= offsetof(mcf_services, evaluator_params) +
                                   sizeof s->evaluator_params
            ? s->evaluator
            : NULL;
    const mcf_orbital_ops *ops = e && e->kind == MCF_PLUGIN_ORBITAL_EVALUATOR ? e->ops : NULL;
    const char *why = !e     ? "gives no orbital evaluator, which this model needs"
                      : !ops ? "is not an orbital evaluator"
                             : orbital_missing(ops, needs);
    if (why)
        return mcf_fail(MCF_EINVAL, "%s: [run] evaluator = %s in %s %s; set [run] evaluator "
                        "= planewave (exact) or blip%s", model, e ? e->name : "none", origin,
                        why, needs & (MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP)
                                 ? ", or one that keeps the determinants (blip-cuda)"
                                 : "");
    *out = (mcf_orbital){.ops = ops, .name = e->name, .params = s->evaluator_params,
                         .model = model, .origin = origin};
    return MCF_OK;
}

int mcf_orbital_has(const mcf_orbital *o, unsigned needs)
{
    return o && o->ops && !orbital_missing(o->ops, needs);
}

int mcf_orbital_workspace(const mcf_orbital *o, const mcf_pw_orbitals *orbitals, void **ws)
{
    *ws = NULL;
    int rc = o->ops->create(o->params, orbitals, ws);
    if (rc) {
        *ws = NULL;
        return mcf_fail_prefix(rc, "%s: evaluator %s", o->model, o->name);
    }
    return MCF_OK;
}
