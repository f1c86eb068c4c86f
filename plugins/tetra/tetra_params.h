/* tetra_params.h — the [evaluator] keys of the k grid and the integration, the same in the
 * band evaluators tetra (plugins/tetra) and tetra-cuda (cuda/tetra-cuda): kpoints, shift,
 * bloechl, as mcf_param_spec initializers for the front of a plugin's list. */
#ifndef MCF_TETRA_PARAMS_H
#define MCF_TETRA_PARAMS_H

#include "mcf/params.h"

#define TETRA_GRID_PARAMS \
    {"kpoints", MCF_PARAM_INT, "24", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN, \
     1, 1024, NULL, \
     "k points per periodic direction (n x n x n grid); the DOS converges as 1/n^2"}, \
    {"shift", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | \
     MCF_PARAM_MAX_EXCLUSIVE | MCF_PARAM_NO_SCAN, 0, 1, NULL, \
     "grid offset in grid steps: 0 Gamma-centred, 0.5 the shifted Monkhorst-Pack grid"}, \
    {"bloechl", MCF_PARAM_BOOL, "yes", MCF_PARAM_NO_SCAN, 0, 0, NULL, \
     "Bloechl's correction of the band energy and the orbital DOS (error 1/n^4 instead " \
     "of 1/n^2 for smooth bands)"}

#endif
