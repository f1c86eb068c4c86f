/* tetra_params.h — the [evaluator] keys of the k grid and the integration, the same in the
 * band evaluators tetra (plugins/tetra) and tetra-cuda (cuda/tetra-cuda): kpoints, shift,
 * bloechl, as mcf_param_spec initializers for the front of a plugin's list, and what both
 * plugins make of them (tetra_params.c, in mcf_tetra_core). */
#ifndef MCF_TETRA_PARAMS_H
#define MCF_TETRA_PARAMS_H

#include <stddef.h>

#include "mcf/params.h"
#include "mcf/periodic.h"
#include "tetra.h"

#define TETRA_GRID_PARAMS \
    {"kpoints", MCF_PARAM_INT, "24", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN, \
     1, 1024, NULL, .doc = \
     "k points per periodic direction (n x n x n grid); the DOS converges as 1/n^2"}, \
    {"shift", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | \
     MCF_PARAM_MAX_EXCLUSIVE | MCF_PARAM_NO_SCAN, 0, 1, NULL, .doc = \
     "grid offset in grid steps: 0 Gamma-centred, 0.5 the shifted Monkhorst-Pack grid"}, \
    {"bloechl", MCF_PARAM_BOOL, "yes", MCF_PARAM_NO_SCAN, 0, 0, NULL, .doc = \
     "Bloechl's correction of the band energy and the orbital DOS (error 1/n^4 instead " \
     "of 1/n^2 for smooth bands)"}

/* The grid a band evaluator `who` ("tetra", "tetra-cuda") makes of its validated [evaluator]
 * keys for the crystal p: p checked (mcf_periodic_check), n[d] = kpoints and s[d] = shift
 * along the periodic directions (1 and 0 beyond), *bloechl; MCF_EINVAL, prefixed with who,
 * for a bad crystal or a grid of more than 2e8 band energies. */
TETRA_API int tetra_grid_settings(const mcf_params *params, const mcf_periodic *p,
                                  const char *who, size_t n[3], double s[3], int *bloechl);

/* What mcf/band.h's fermi_level asks: MCF_OK for 0 < electrons < bands, else MCF_EINVAL
 * with a message prefixed with who. */
TETRA_API int tetra_filling_check(double electrons, size_t bands, const char *who);

#endif
