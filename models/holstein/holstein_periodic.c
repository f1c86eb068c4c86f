/* holstein_periodic.c — ideal displacement patterns of the Holstein model as crystals
 * (mcf/periodic.h), for band evaluators: the one-particle Hamiltonian h(x) of holstein.c
 * (hopping -t, on site -g x_i) for
 *   uniform:X   x_i = X everywhere: one site per cell, the band shifted by -g X;
 *   cdw:X       the checkerboard x_i = X (-1)^(x+y+z): two sites per cell, bands
 *               +-sqrt(eps_k^2 + (g X)^2), the Peierls gap 2 |g X| at half filling.
 * The classical energy sum_i [(k/2) x_i^2 + (g/2) x_i] is not a band property and is not
 * described; add it per site to a band energy to compare patterns. */
#include "mcf/mcf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ho_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell);

typedef struct ho_pattern {
    double t, g, X;
    int checkerboard;
} ho_pattern;

static void ho_onsite(void *ctx, const int r[3], double *block)
{
    const ho_pattern *p = ctx;
    const double x = p->checkerboard && ((r[0] + r[1] + r[2]) & 1) ? -p->X : p->X;
    block[0] = -p->g * x;
}

static void ho_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    (void)r;
    (void)d;
    block[0] = -((const ho_pattern *)ctx)->t;
}

int ho_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell)
{
    (void)chain;
    const char *lattice;
    ho_pattern p = {0, 0, 0, 0};
    int rc;
    if ((rc = mcf_params_real(params, "t", &p.t)) || (rc = mcf_params_real(params, "g", &p.g)) ||
        (rc = mcf_params_string(params, "lattice", &lattice)))
        return mcf_fail_prefix(rc, "holstein");
    const int uniform = state && strncmp(state, "uniform:", 8) == 0;
    p.checkerboard = state && strncmp(state, "cdw:", 4) == 0;
    char *end = NULL;
    if (uniform || p.checkerboard)
        p.X = strtod(state + (uniform ? 8 : 4), &end);
    if (!end || end == state + (uniform ? 8 : 4) || *end || !isfinite(p.X))
        return mcf_fail(MCF_EINVAL, "holstein: state '%s': the states are uniform:X (x_i = X) "
                        "and cdw:X (x_i = X (-1)^(x+y+z)); the chain's own configuration as "
                        "a crystal is not available yet", state ? state : "");
    const unsigned dims = strcmp(lattice, "square") == 0 ? 2 : 3;
    static const int one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int g2[9] = {1, 1, 0, 1, -1, 0, 0, 0, 1};
    static const int g3[9] = {1, 1, 0, 1, 0, 1, 0, 1, 1};
    const int *a = !p.checkerboard ? one : dims == 2 ? g2 : g3;
    return mcf_cell_lattice(cell, dims, a, 1, ho_onsite, ho_hop, &p);
}
