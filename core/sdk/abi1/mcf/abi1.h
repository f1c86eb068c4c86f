/* mcf/abi1.h — every declaration of ABI 1 (mcf 0.1-0.8), private to mcf: its tables, its
 * descriptor macros and its helpers.  For a test that builds an ABI-1 plugin against
 * today's tree to check the path the core and the SDK adapt (docs/sdk-1.md, "The flip");
 * include it first, instead of mcf/mcf.h, which it includes. */
#ifndef MCF_ABI1_H
#define MCF_ABI1_H

#include "mcf/abi1_fermion_model.h"
#include "mcf/abi1_orbital_model.h"
#include "mcf/abi1_band.h"
#include "mcf/mcf.h"

#endif
