/* placeholder: written by the hamiltonian helper */
#include "mcf/hamiltonian.h"
