/* band_chain.h — `mcf band`'s state configuration: a run's chain 0 as a crystal
 * (band_chain.c).  The program's, not libmcf's. */
#ifndef MCF_BAND_CHAIN_H
#define MCF_BAND_CHAIN_H

#include "mcf_engine.h"

/* The configuration of chain 0 of a run of `model` with model_params at [run] seed (sec[0],
 * the band command's [run]; sec[1], its [band], may give the temperature), created as a run
 * creates it, described into cell by the model's periodic op with state NULL, and
 * destroyed.  A fermion model's chain gets the evaluator ed at its defaults (c gives their
 * origin).  Errors as the model's create and periodic ops give them, prefixed with the
 * seed and the temperature. */
int mcfi_band_chain_cell(mcf_config *c, const mcf_plugin *model,
                         const mcf_params *model_params, const mcf_section sec[2],
                         mcf_cell *cell);

#endif
