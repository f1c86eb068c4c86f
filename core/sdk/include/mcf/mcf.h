/* mcf/mcf.h — everything a plugin needs: include this one header. */
#ifndef MCF_MCF_H
#define MCF_MCF_H

#include "mcf/api.h"
#include "mcf/version.h"
#include "mcf/error.h"
#include "mcf/log.h"
#include "mcf/rng.h"
#include "mcf/rng_device.h"
#include "mcf/params.h"
#include "mcf/stream.h"
#include "mcf/state.h"
#include "mcf/batch.h"
#include "mcf/lattice.h"
#include "mcf/plugin.h"
#include "mcf/model.h"
#include "mcf/change.h"
#include "mcf/hamiltonian.h"
#include "mcf/hamiltonian_factors.h"
#include "mcf/periodic.h"
#include "mcf/band.h"
#include "mcf/dynamics.h"
#include "mcf/fermion.h"
#include "mcf/response.h"
#include "mcf/fermion_model.h"
#include "mcf/orbital.h"
#include "mcf/orbital_model.h"
#endif
