/* anderson_periodic.c — the clean Anderson model (W = 0) as a crystal (mcf/periodic.h), the
 * reference a band evaluator integrates exactly: state "clean", one site per cell, hopping
 * -t to the nearest neighbours of the square, simple cubic or bcc lattice (bcc: primitive
 * vectors (-1/2, 1/2, 1/2), (1/2, -1/2, 1/2), (1/2, 1/2, -1/2) in conventional lattice
 * constants, the 8 neighbours at +-a_1, +-a_2, +-a_3, +-(a_1 + a_2 + a_3)).  With W > 0 the
 * on-site energies are random: no crystal, and the state is refused. */
#include "anderson_internal.h"

#include <math.h>
#include <string.h>

static void clean_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    (void)r;
    (void)d;
    block[0] = -*(const double *)ctx;
}

int anderson_periodic(const mcf_params *params, const void *chain, const char *state,
                      mcf_cell *cell)
{
    (void)chain;
    double W, t;
    const char *lattice;
    int rc;
    if ((rc = mcf_params_real(params, "W", &W)) || (rc = mcf_params_real(params, "t", &t)) ||
        (rc = mcf_params_string(params, "lattice", &lattice)))
        return mcf_fail_prefix(rc, "anderson");
    if (!state || strcmp(state, "clean") != 0)
        return mcf_fail(MCF_EINVAL, "anderson: state '%s': the one state is clean (W = 0); a "
                        "chain's own disordered configuration as a crystal is not available "
                        "yet", state ? state : "");
    if (W != 0.0)
        return mcf_fail(MCF_EINVAL, "anderson: state clean with [%s] W = %g in %s: random "
                        "on-site energies have no unit cell; set W = 0",
                        mcf_params_section(params), W, mcf_params_origin(params));
    if (strcmp(lattice, "bcc") == 0) {
        static const double a[9] = {-0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5, -0.5};
        mcf_cell_shape(cell, 3, 1, 1, a);
        mcf_cell_bond(cell, 1, 0, 0, 0, 0, -t, 0);
        mcf_cell_bond(cell, 0, 1, 0, 0, 0, -t, 0);
        mcf_cell_bond(cell, 0, 0, 1, 0, 0, -t, 0);
        return mcf_cell_bond(cell, 1, 1, 1, 0, 0, -t, 0);
    }
    static const int one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    return mcf_cell_lattice(cell, strcmp(lattice, "square") == 0 ? 2 : 3, one, 1, NULL,
                            clean_hop, &t);
}
