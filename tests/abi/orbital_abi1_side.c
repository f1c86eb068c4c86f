/* orbital_abi1_side.c — what an ABI-1 model sees of its orbital evaluator, for
 * test_orbital_adapters.c: ABI 1's helpers of mcf/orbital_model.h (mcf_orbital_bind, has,
 * workspace), whose names that file (MCF_WANT_ABI 2) gives to ABI 2's.  Bound to an ABI-2
 * evaluator they hand out the down adapter's view (core/sdk/orbital_abi1_view.c). */
#include "mcf/orbital_model.h"

#include "orbital_abi1_side.h"

int abi1_bind(const mcf_services *s, const mcf_params *model_params, unsigned needs,
              const mcf_orbital_ops **ops)
{
    mcf_orbital o;
    int rc = mcf_orbital_bind(s, model_params, "abi1-model", needs, &o);
    *ops = rc ? NULL : o.ops;
    return rc;
}

int abi1_has(const mcf_services *s, const mcf_params *model_params, unsigned needs)
{
    mcf_orbital o;
    return mcf_orbital_bind(s, model_params, "abi1-model", 0, &o) ? -1
                                                                   : mcf_orbital_has(&o, needs);
}

int abi1_workspace(const mcf_services *s, const mcf_params *model_params,
                   const mcf_pw_orbitals *orbitals, void **ws)
{
    mcf_orbital o;
    int rc = mcf_orbital_bind(s, model_params, "abi1-model", 0, &o);
    return rc ? rc : mcf_orbital_workspace(&o, orbitals, ws);
}
