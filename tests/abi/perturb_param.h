/* perturb_param.h — for the test abi_xy_perturbed only (not a snapshot): force-included
 * (-include) into one build, it multiplies the real parameter named MCF_ABI_PERTURB_KEY by
 * MCF_ABI_PERTURB_FACTOR (default 1.001), so that build's results differ from the reference's, and the
 * test checks that test_abi_builds.sh says so.  The wrapper is defined before the macro
 * that routes the source's calls to it; mcf/params.h's include guard keeps the source's
 * own #include from declaring the function again under the macro's name. */
#ifndef MCF_ABI_PERTURB_PARAM_H
#define MCF_ABI_PERTURB_PARAM_H

#include <string.h>

#include "mcf/error.h"
#include "mcf/params.h"

#ifndef MCF_ABI_PERTURB_FACTOR
#define MCF_ABI_PERTURB_FACTOR 1.001
#endif

static inline int mcf_abi_perturbed_real(const mcf_params *p, const char *key, double *out)
{
    int rc = mcf_params_real(p, key, out);
    if (rc == MCF_OK && strcmp(key, MCF_ABI_PERTURB_KEY) == 0)
        *out *= MCF_ABI_PERTURB_FACTOR;
    return rc;
}

#define mcf_params_real mcf_abi_perturbed_real

#endif
