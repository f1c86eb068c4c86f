/* holstein_periodic.c — displacement patterns of the Holstein model as crystals
 * (mcf/periodic.h), for band evaluators: the one-particle Hamiltonian h(x) of holstein.c
 * (hopping -t, on site -g x_i) for
 *   uniform:X   x_i = X everywhere: one site per cell, the band shifted by -g X;
 *   cdw:X       the checkerboard x_i = X (-1)^(x+y+z): two sites per cell, bands
 *               +-sqrt(eps_k^2 + (g X)^2), the Peierls gap 2 |g X| at half filling;
 *   state NULL or "" with a chain: the chain's displacements, its L^d box as one cell
 *               (lattice vectors L e_d, sites x fastest) with the on-site energies of its
 *               h(x), a bond leaving the box going to the neighbouring cell: H(k = 0) is
 *               the chain's h(x), its twist included (the bonds across the box's
 *               boundary carry its phases).  Open boundaries are refused.
 * The classical energy sum_i [(k/2) x_i^2 + (g/2) x_i] is not a band property and is not
 * described; add it per site to a band energy to compare patterns. */
#include "holstein_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ho_pattern {
    double t, g, X;
    int checkerboard;
    const double *onsite; /* not NULL: a chain's on-site energies, its box of side L */
    const double *theta;  /* with a chain: its twist (radians) */
    long L;
    unsigned dims;
} ho_pattern;

static void ho_onsite(void *ctx, const int r[3], double *block)
{
    const ho_pattern *p = ctx;
    if (p->onsite) { /* r lies in the box: site x + L (y + L z) */
        size_t i = 0;
        for (unsigned d = p->dims; d-- > 0;)
            i = i * (size_t)p->L + (size_t)r[d];
        block[0] = p->onsite[i];
        return;
    }
    const double x = p->checkerboard && ((r[0] + r[1] + r[2]) & 1) ? -p->X : p->X;
    block[0] = -p->g * x;
}

static void ho_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    const ho_pattern *p = ctx;
    block[0] = -p->t;
    /* a chain's bond across the box's boundary: <r + e_d| H |r> = -t exp(-i theta_d), the
       conjugate of the twisted hopping <r| H |r + e_d> (mcf/lattice.h) */
    if (p->onsite && p->theta && p->theta[d] != 0.0 && r[d] == p->L - 1) {
        block[0] = -p->t * cos(p->theta[d]);
        block[1] = p->t * sin(p->theta[d]);
    }
}

/* the chain's own displacements: its box as one cell */
static int describe_chain(const mcf_params *params, ho_pattern *p, const void *chain,
                          mcf_cell *cell)
{
    const mcf_lattice *lat;
    p->onsite = ho_chain_hamiltonian(chain, &lat, &p->theta)->onsite;
    int rc = mcf_cell_box_boundary(params, "holstein", lat->boundary);
    if (rc)
        return rc;
    p->L = lat->L;
    p->dims = (unsigned)lat->dim;
    const int L = (int)lat->L, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    return mcf_cell_lattice(cell, p->dims, box, 1, ho_onsite, ho_hop, p);
}

int ho_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell)
{
    ho_pattern p = {0, 0, 0, 0, NULL, NULL, 0, 0};
    int lattice, rc;
    if ((rc = mcf_params_real(params, "t", &p.t)) || (rc = mcf_params_real(params, "g", &p.g)) ||
        (rc = mcf_params_choice(params, "lattice", &lattice)))
        return mcf_fail_prefix(rc, "holstein");
    if ((!state || !*state) && chain)
        return describe_chain(params, &p, chain, cell);
    const int uniform = state && strncmp(state, "uniform:", 8) == 0;
    p.checkerboard = state && strncmp(state, "cdw:", 4) == 0;
    char *end = NULL;
    if (uniform || p.checkerboard)
        p.X = strtod(state + (uniform ? 8 : 4), &end);
    if (!end || end == state + (uniform ? 8 : 4) || *end || !isfinite(p.X))
        return mcf_fail(MCF_EINVAL, "holstein: state '%s': the states are uniform:X (x_i = X) "
                        "and cdw:X (x_i = X (-1)^(x+y+z)), or, with a chain, its own "
                        "displacements (state configuration of mcf band)", state ? state : "");
    const unsigned dims = lattice == HO_LATTICE_SQUARE ? 2 : 3;
    static const int one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int g2[9] = {1, 1, 0, 1, -1, 0, 0, 0, 1};
    static const int g3[9] = {1, 1, 0, 1, 0, 1, 0, 1, 1};
    const int *a = !p.checkerboard ? one : dims == 2 ? g2 : g3;
    return mcf_cell_lattice(cell, dims, a, 1, ho_onsite, ho_hop, &p);
}
