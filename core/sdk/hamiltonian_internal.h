/* hamiltonian_internal.h — what hamiltonian.c and hamiltonian_factors.c share inside
 * libmcf; not part of the SDK (hidden: not exported). */
#ifndef MCF_HAMILTONIAN_INTERNAL_H
#define MCF_HAMILTONIAN_INTERNAL_H

#include <stddef.h>

#include "mcf/hamiltonian.h"
#include "mcf/hamiltonian_factors.h"

/* mcf_hamiltonian_set without the refusal of a factorized Hamiltonian (set_field's writes) */
int mcfi_hamiltonian_put(mcf_hamiltonian *h, size_t i, size_t j, double re, double im);
/* frees h->factors (NULL is ignored) */
void mcfi_hamiltonian_factors_free(const struct mcf_hamiltonian_factors *f);
/* mcf_hamiltonian_check's part for factorized hoppings: every slot holds the lattice's
 * neighbour and the field's entry, bit for bit (MCF_OK without factors) */
int mcfi_hamiltonian_factors_check(const mcf_hamiltonian *h);

#endif
