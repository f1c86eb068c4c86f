/* anderson_periodic.c — the Anderson model as a crystal (mcf/periodic.h), for band
 * evaluators:
 *   state "clean" (no chain, W = 0): one site per cell, hopping -t to the nearest neighbours
 *     of the square, simple cubic or bcc lattice (bcc: primitive vectors (-1/2, 1/2, 1/2),
 *     (1/2, -1/2, 1/2), (1/2, 1/2, -1/2) in conventional lattice constants, the 8
 *     neighbours at +-a_1, +-a_2, +-a_3, +-(a_1 + a_2 + a_3)).  With W > 0 the on-site
 *     energies are random: no unit cell, and the state is refused.
 *   state NULL or "" with a chain: the chain's disorder realization, its L^d box of
 *     conventional cells as one cell (lattice vectors L e_d; the sites in the lattice's
 *     order, mcf/lattice.h), the on-site energies of its Hamiltonian and -t on every bond
 *     of the neighbour table, a bond that leaves the box going to the neighbouring cell.
 *     H(k = 0) is then the chain's Hamiltonian (periodic L = 2 too: the two bonds of a pair,
 *     -t each at different offsets, add up to its -2t), its twist included (a bond across
 *     the boundary carries the phase of mcf_lattice_bond_phase; the crystal of repeated
 *     boxes is the same, its k shifted by the twist).  Open boundaries are refused. */
#include "anderson_internal.h"

#include <math.h>
#include <string.h>

/* the even neighbour slots' bond vectors (mcf/lattice.h), conventional lattice constant */
static const double bcc_bond[4][3] = {
    {0.5, 0.5, 0.5}, {-0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0.5, 0.5, -0.5}};

static void clean_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    (void)r;
    (void)d;
    block[0] = -*(const double *)ctx;
}

/* the chain's realization: its box as one cell, bonds from the lattice's neighbour table */
static int describe_chain(const mcf_params *params, const anderson_chain *c, mcf_cell *cell)
{
    const mcf_lattice_kind kind = (mcf_lattice_kind)c->lattice[0];
    int rc = mcf_cell_box_boundary(params, "anderson", (mcf_boundary)c->lattice[1]);
    mcf_lattice *lat = NULL;
    if (rc || (rc = mcf_lattice_create(kind, c->L, MCF_BOUNDARY_PERIODIC, &lat)))
        return rc;
    const double L = (double)c->L, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    const unsigned dims = (unsigned)lat->dim;
    mcf_cell_shape(cell, dims, (unsigned)c->n, (unsigned)c->n, box);
    const int z = lat->coordination;
    for (size_t i = 0; i < c->n; i++) {
        mcf_cell_onsite(cell, (unsigned)i, c->h->onsite[i]);
        for (int k = 0; k < z; k += 2) { /* slot 2m points along +d_m: each bond once */
            const size_t j = (size_t)lat->neighbours[(size_t)z * i + (size_t)k];
            const double *ri = lat->positions + 3 * i, *rj = lat->positions + 3 * j;
            int R[3] = {0, 0, 0}; /* r_i + d_m = r_j + R L */
            for (unsigned d = 0; d < dims; d++) {
                const double dm = kind == MCF_LATTICE_BCC ? bcc_bond[k / 2][d]
                                                          : (double)(k / 2 == (int)d);
                R[d] = (int)lround((ri[d] + dm - rj[d]) / L);
            }
            /* <j, R| H |i, 0> = conj(H_ij), H_ij = -t exp(i phi_ij) (the twist) */
            double cs, sn;
            mcf_lattice_bond_phase(lat, c->theta, i, k, &cs, &sn);
            mcf_cell_bond(cell, R[0], R[1], R[2], (unsigned)j, (unsigned)i, -c->t * cs,
                          sn != 0.0 ? c->t * sn : 0.0);
        }
    }
    mcf_lattice_destroy(lat);
    return mcf_cell_status(cell);
}

int anderson_periodic(const mcf_params *params, const void *chain, const char *state,
                      mcf_cell *cell)
{
    double W, t;
    int lattice, rc;
    if ((rc = mcf_params_real(params, "W", &W)) || (rc = mcf_params_real(params, "t", &t)) ||
        (rc = mcf_params_choice(params, "lattice", &lattice)))
        return mcf_fail_prefix(rc, "anderson");
    if ((!state || !*state) && chain)
        return describe_chain(params, chain, cell);
    if (!state || strcmp(state, "clean") != 0)
        return mcf_fail(MCF_EINVAL, "anderson: state '%s': the one state is clean (W = 0); a "
                        "disorder realization is described with its chain (state "
                        "configuration of mcf band)", state ? state : "");
    if (W != 0.0)
        return mcf_fail(MCF_EINVAL, "anderson: state clean with [%s] W = %g in %s: random "
                        "on-site energies have no unit cell; set W = 0",
                        mcf_params_section(params), W, mcf_params_origin(params));
    if (lattice == ANDERSON_BCC) {
        static const double a[9] = {-0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5, -0.5};
        mcf_cell_shape(cell, 3, 1, 1, a);
        mcf_cell_bond(cell, 1, 0, 0, 0, 0, -t, 0);
        mcf_cell_bond(cell, 0, 1, 0, 0, 0, -t, 0);
        mcf_cell_bond(cell, 0, 0, 1, 0, 0, -t, 0);
        return mcf_cell_bond(cell, 1, 1, 1, 0, 0, -t, 0);
    }
    static const int one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    return mcf_cell_lattice(cell, lattice == ANDERSON_SQUARE ? 2 : 3, one, 1, NULL,
                            clean_hop, &t);
}
