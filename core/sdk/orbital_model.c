/* orbital_model.c — binding and workspaces of a model's orbital evaluator
 * (mcf/orbital_model.h), as fermion_model.c does for fermion evaluators: the binding that
 * both ABIs' helpers share, and ABI 1's public helpers (ABI 2's: orbital_model2.c). */
#include "mcf/abi1_orbital_model.h" /* ABI 1's helpers, implemented here (first) */

#include <stddef.h>

#include "mcf/error.h"
#include "mcf/plugin.h"
#include "orbital_calls.h"

const mcf_plugin_info *mcfi_om_bind(const mcf_services *s, const mcf_params *model_params,
                                    const char *model, unsigned needs, const char **origin)
{
    *origin = model_params ? mcf_params_origin(model_params) : "the configuration";
    const mcf_plugin_info *e =
        s && s->struct_size >= offsetof(mcf_services, evaluator_params) +
                                   sizeof s->evaluator_params
            ? s->evaluator
            : NULL;
    const mcfi_orbital_target t = mcfi_orbital_target_of(e, NULL, model);
    const char *why = !e ? "gives no orbital evaluator, which this model needs"
                         : mcfi_orbital_missing(&t, needs);
    if (why) {
        mcf_fail(MCF_EINVAL, "%s: [run] evaluator = %s in %s %s; set [run] evaluator "
                 "= planewave (exact) or blip%s", model, e ? e->name : "none", *origin,
                 why, needs & (MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP |
                               MCF_ORBITAL_DRIFT_SWEEP)
                          ? ", or one that keeps the determinants (blip-cuda)"
                          : "");
        return NULL;
    }
    return e;
}

/* the target of an ABI-1 handle (the evaluator's table, or the view of an ABI-2 one) */
static mcfi_orbital_target target1(const mcf_orbital *o)
{
    return (mcfi_orbital_target){.ops1 = o->ops, .model = o->model, .name = o->name};
}

int mcf_orbital_bind(const mcf_services *s, const mcf_params *model_params, const char *model,
                     unsigned needs, mcf_orbital *out)
{
    const char *origin;
    const mcf_plugin_info *e = mcfi_om_bind(s, model_params, model, needs, &origin);
    if (!e)
        return MCF_EINVAL;
    /* an ABI-2 evaluator: the ABI-1 view of it (the down adapter) */
    const mcf_orbital_ops *ops =
        mcfi_orbital_is_abi2(e) ? mcfi_orbital_abi1_view(e, model) : e->ops;
    *out = (mcf_orbital){.ops = ops, .name = e->name, .params = s->evaluator_params,
                         .model = model, .origin = origin};
    return MCF_OK;
}

int mcf_orbital_has(const mcf_orbital *o, unsigned needs)
{
    if (!o || !o->ops)
        return 0;
    const mcfi_orbital_target t = target1(o);
    return !mcfi_orbital_missing(&t, needs);
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
