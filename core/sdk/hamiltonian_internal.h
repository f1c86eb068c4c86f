/* hamiltonian_internal.h — what hamiltonian.c and hamiltonian_factors.c share inside
 * libmcf; not part of the SDK (hidden: not exported). */
#ifndef MCF_HAMILTONIAN_INTERNAL_H
#define MCF_HAMILTONIAN_INTERNAL_H

#include <stddef.h>

#include "mcf/hamiltonian.h"

/* mcf_hamiltonian_set without the refusal of a factorized Hamiltonian (set_field's writes) */
int mcfi_hamiltonian_put(mcf_hamiltonian *h, size_t i, size_t j, double re, double im);

#endif
