/* orbital_abi1_side.h — ABI 1's orbital helpers for a test whose own file uses ABI 2's
 * (orbital_abi1_side.c).  The model is called "abi1-model" in messages. */
#ifndef MCF_TEST_ORBITAL_ABI1_SIDE_H
#define MCF_TEST_ORBITAL_ABI1_SIDE_H

#include "mcf/model.h"
#include "mcf/orbital.h"

/* mcf_orbital_bind of ABI 1: *ops the table an ABI-1 model calls (NULL when refused) */
int abi1_bind(const mcf_services *s, const mcf_params *model_params, unsigned needs,
              const mcf_orbital_ops **ops);
/* mcf_orbital_has of ABI 1 after a bind with no needs (-1: the bind failed) */
int abi1_has(const mcf_services *s, const mcf_params *model_params, unsigned needs);
/* mcf_orbital_workspace of ABI 1 */
int abi1_workspace(const mcf_services *s, const mcf_params *model_params,
                   const mcf_pw_orbitals *orbitals, void **ws);

#endif
