/* tetra_params.c — the grid of the [evaluator] keys (tetra_params.h), shared by the band
 * evaluators tetra and tetra-cuda. */
#include "tetra_params.h"

#include "mcf/error.h"

#include <stdint.h>

int tetra_grid_settings(const mcf_params *params, const mcf_periodic *p, const char *who,
                        size_t n[3], double s[3], int *bloechl)
{
    long kp;
    double shift;
    int rc;
    if ((rc = mcf_params_int(params, "kpoints", &kp)) ||
        (rc = mcf_params_real(params, "shift", &shift)) ||
        (rc = mcf_params_bool(params, "bloechl", bloechl)))
        return mcf_fail_prefix(rc, "%s", who);
    if ((rc = mcf_periodic_check(p, who)))
        return rc;
    for (uint32_t d = 0; d < 3; d++) {
        n[d] = d < p->dims ? (size_t)kp : 1;
        s[d] = d < p->dims ? shift : 0.0;
    }
    const double points = (double)n[0] * (double)n[1] * (double)n[2];
    if (points * p->orbitals > 2e8)
        return mcf_fail(MCF_EINVAL, "%s: [evaluator] kpoints = %ld gives %.3g k points x %u "
                        "bands, more than 2e8 band energies; use fewer k points", who, kp,
                        points, p->orbitals);
    return MCF_OK;
}

int tetra_filling_check(double electrons, size_t bands, const char *who)
{
    if (electrons > 0.0 && electrons < (double)bands)
        return MCF_OK;
    return mcf_fail(MCF_EINVAL, "%s: %g electrons per cell: a Fermi level needs between 0 and "
                    "%zu (the number of bands), exclusive", who, electrons, bands);
}
