/* tetra_crystal8.h — the crystal of the GPU tetrahedron test and benchmark
 * (tests/gpu/test_tetra_cuda.c, tests/bench/tetra_gpu.c): 8 bands, the size of seed 000's
 * benchmark, with a complex H(k) and no symmetry that would make bands cross generically.
 *
 * The simple cubic lattice in a 2 x 2 x 2 cell (8 sites, one orbital each): on-site energies
 * 0.45 cos(pi/8 (1 + 3 x + 5 y + 7 z + x y z)) and hoppings -t e^{i A} to the neighbour at
 * +e_d with t = 1 + 0.1 d and the vector potential A = 0.7 x (along y), 0.4 (x + y) (along
 * z), 0 along x — a flux through the plaquettes, periodic with the cell.  Built through the
 * SDK (mcf_cell_lattice), as a model would. */
#ifndef MCF_TETRA_CRYSTAL8_H
#define MCF_TETRA_CRYSTAL8_H

#include <math.h>

#include "mcf/periodic.h"

static void crystal8_onsite(void *ctx, const int r[3], double *block)
{
    (void)ctx;
    const int x = r[0] & 1, y = r[1] & 1, z = r[2] & 1;
    block[0] = 0.45 * cos(3.14159265358979323846 / 8.0 * (1 + 3 * x + 5 * y + 7 * z + x * y * z));
}

static void crystal8_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    (void)ctx;
    const int x = r[0] & 1, y = r[1] & 1;
    const double A = d == 1 ? 0.7 * x : d == 2 ? 0.4 * (x + y) : 0.0, t = 1.0 + 0.1 * d;
    block[0] = -t * cos(A);
    block[1] = -t * sin(A);
}

/* the crystal into a new cell (*cell the caller's, mcf_cell_destroy); NULL on failure */
static const mcf_periodic *crystal8(mcf_cell **cell)
{
    static const int a[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
    if (mcf_cell_create(cell))
        return NULL;
    if (mcf_cell_lattice(*cell, 3, a, 1, crystal8_onsite, crystal8_hop, NULL) ||
        mcf_cell_status(*cell))
        return NULL;
    return mcf_cell_view(*cell);
}

#endif
