/* tetra.h — the density of states of a periodic tight-binding Hamiltonian (mcf/periodic.h)
 * by the linear tetrahedron method with Bloechl's correction: the static library
 * mcf_tetra_core (plain functions, prefix tetra_, hidden visibility).
 *
 * Reference: P. E. Bloechl, O. Jepsen, O. K. Andersen, "Improved tetrahedron method for
 * Brillouin-zone integrations", Phys. Rev. B 49, 16223 (1994) (BJA below).
 *
 * The k grid.  n_1 x n_2 x n_3 points k = (i_d + s_d) / n_d, i_d = 0..n_d-1, in reduced
 * coordinates (Monkhorst-Pack: s = 0 is Gamma-centred, s = 1/2 the shifted grid); n_d = 1
 * in the directions beyond dims.  At every k the Hermitian H(k) (mcf_periodic_hk) is
 * diagonalized; its eigenvalues eps_n(k), ascending, are the bands n = 0..orbitals-1, and
 * the orbital weights |<a|n,k>|^2 (sum over a = 1) are kept on request.
 *
 * The tetrahedra.  Every cell of the grid (the parallelepiped between neighbouring k
 * points, the grid wrapping periodically) is cut into 6 tetrahedra around its shortest
 * main diagonal, measured with the reciprocal metric of the lattice vectors (tetra_grid.c);
 * each tetrahedron holds the fraction v = 1 / (6 n_1 n_2 n_3) of the zone.  Inside a
 * tetrahedron eps_n(k) is interpolated linearly between its corners, which makes the number
 * of states below E a piecewise cubic in E with a closed form (tetra_weights.c).  In
 * dims < 3 the directions with n_d = 1 add nothing: the method is then exactly the linear
 * triangle (2D) or interval (1D) method.
 *
 * Units.  Everything per cell and per spin: the DOS integrates to `orbitals`, N(E) runs from
 * 0 to `orbitals`; divide by p->sites for densities per site.
 *
 * Threads and reproducibility.  Eigenproblems run in an OpenMP loop over k, each on its own
 * workspace; sums over tetrahedra go by TETRA_CHUNKS fixed chunks of cells, each with its
 * own partial sums, added in chunk order: every result is the same bit for bit on any
 * number of threads.
 *
 * Files: tetra_grid.c (the k grid, the eigenproblems, the tetrahedra), tetra_weights.c (the
 * corner weights of one tetrahedron; its formulas are tetra_point.inc, shared with the GPU),
 * tetra_dos.c (DOS, N(E), band energy), tetra_fermi.c (the Fermi level of a filling).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message (mcf_fail).
 * Pointers are borrowed; a grid is owned by the caller of tetra_grid_create. */
#ifndef MCF_TETRA_H
#define MCF_TETRA_H

#include <stddef.h>

#include "mcf/periodic.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TETRA_API __attribute__((visibility("hidden")))
#else
#define TETRA_API
#endif

#define TETRA_CHUNKS 32 /* fixed chunks of the tetrahedron sums (see "Threads") */

typedef struct tetra_grid tetra_grid;

/* The grid of n[0] x n[1] x n[2] k points shifted by shift[0..3) grid steps (NULL: none),
 * with the bands at every point and, when with_weights, the orbital weights (needed by
 * tetra_dos's orbital_dos).  p is checked with mcf_periodic_check and not retained.
 * n[d] >= 1, and n[d] = 1 for d >= p->dims.  *out is NULL on failure. */
TETRA_API int tetra_grid_create(const mcf_periodic *p, const size_t n[3], const double shift[3],
                                int with_weights, tetra_grid **out);
TETRA_API void tetra_grid_destroy(tetra_grid *g);

TETRA_API size_t tetra_grid_points(const tetra_grid *g); /* n_1 n_2 n_3 */
TETRA_API size_t tetra_grid_bands(const tetra_grid *g);  /* = orbitals */
/* k point index = i_1 + n_1 (i_2 + n_2 i_3); bands ascending */
TETRA_API double tetra_grid_energy(const tetra_grid *g, size_t k, size_t band);
/* |<a|n,k>|^2, or -1 where the grid has no weights */
TETRA_API double tetra_grid_weight(const tetra_grid *g, size_t k, size_t band, size_t a);
TETRA_API double tetra_grid_emin(const tetra_grid *g); /* lowest eigenvalue on the grid */
TETRA_API double tetra_grid_emax(const tetra_grid *g); /* highest */

/* At the n_E energies E (any order): dos[i] = rho(E_i), idos[i] = N(E_i) (states per cell
 * below E_i), orbital_dos[i orbitals + a] = rho_a(E_i) (the DOS projected on orbital a;
 * sum over a = dos[i]).  Any output may be NULL; orbital_dos needs a grid with weights.
 * bloechl adds the derivative of Bloechl's weight correction to orbital_dos; the total
 * dos and idos do not depend on it (the correction sums to zero over a tetrahedron). */
TETRA_API int tetra_dos(const tetra_grid *g, size_t n_E, const double *E, int bloechl,
                        double *dos, double *idos, double *orbital_dos);

/* electrons = int^{E_F} rho(E) dE and energy = int^{E_F} E rho(E) dE per cell, from the
 * corner integration weights w: sum w and sum w eps; bloechl adds Bloechl's correction to
 * w (which changes the energy only).  Either output may be NULL. */
TETRA_API int tetra_band_energy(const tetra_grid *g, double E_F, int bloechl, double *electrons,
                                double *energy);

/* The Fermi level for electrons_per_cell (0..orbitals): the middle of the energies where
 * N(E) = electrons_per_cell to 1e-12 orbitals, by bisection to 1e-13 of the band width (in a
 * gap, the middle of the gap).  Bloechl's correction leaves N(E) unchanged, so there is
 * no option for it. */
TETRA_API int tetra_fermi_level(const tetra_grid *g, double electrons_per_cell, double *E_F);

/* The Fermi level search of tetra_fermi_level for any integrator of N(E) (tetra_fermi.c;
 * the GPU plugin's grid uses it too): count(ctx, E, &N) the states per cell below E,
 * density(ctx, E, &rho) the DOS, each MCF_OK or an error code (returned as it is); bands,
 * emin and emax as the grid has them. */
typedef struct tetra_counter {
    void *ctx;
    int (*count)(void *ctx, double E, double *N);
    int (*density)(void *ctx, double E, double *rho);
    double bands, emin, emax;
} tetra_counter;

TETRA_API int tetra_fermi_search(const tetra_counter *c, double electrons_per_cell,
                                 double *E_F);

/* The reciprocal metric (A A^T)^-1 of the lattice vectors (rows of A) over the first
 * dims directions, zero elsewhere: b_i . b_j up to (2 pi)^2. */
TETRA_API void tetra_reciprocal_metric(const mcf_periodic *p, double G[3][3]);

/* The 6 tetrahedra of a cell of the n[0] x n[1] x n[2] grid with the metric G: corner[t][i]
 * the corner i of tetrahedron t as bits (bit d: one step along reciprocal vector d), Kuhn's
 * cut around the cell's shortest main diagonal (ties: the first; see tetra_grid.c). */
TETRA_API void tetra_cut_cells(const double G[3][3], const size_t n[3], unsigned corner[6][4]);

/* ---- one tetrahedron (tetra_weights.c) ------------------------------------------------ */

/* What one tetrahedron of unit volume gives at the energy E, its corner energies e[0..4)
 * sorted ascending: n = the volume below E, d = dn/dE, w[i] the integration weights of
 * the corners (sum = n), dw[i] = dw[i]/dE (sum = d), Bloechl's correction included in w
 * and dw when asked for. */
typedef struct tetra_point {
    double n, d, w[4], dw[4];
} tetra_point;

TETRA_API void tetra_point_at(const double e[4], double E, int bloechl, tetra_point *out);

#ifdef __cplusplus
}
#endif
#endif
