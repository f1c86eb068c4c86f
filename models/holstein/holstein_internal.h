/* holstein_internal.h — what holstein.c and holstein_periodic.c share (not an SDK header). */
#ifndef MCF_HOLSTEIN_INTERNAL_H
#define MCF_HOLSTEIN_INTERNAL_H

#include "mcf/mcf.h"

/* [model] lattice: its choices, and their positions (mcf_params_choice) */
#define HO_LATTICES "square|cubic"
enum { HO_LATTICE_SQUARE, HO_LATTICE_CUBIC };

/* holstein_periodic.c: uniform and checkerboard displacements, or a chain's own, as
 * crystals (mcf_model.periodic) */
int ho_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell);

/* holstein.c: a chain's one-particle Hamiltonian h(x), its lattice and its twist (radians;
 * borrowed from the chain, valid while it lives) */
const mcf_hamiltonian *ho_chain_hamiltonian(const void *chain, const mcf_lattice **lat,
                                            const double **theta);

#endif
