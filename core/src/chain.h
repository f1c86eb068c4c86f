/* chain.h — a chain's lifecycle and accumulators (chain.c; internal). */
#ifndef MCF_CHAIN_H
#define MCF_CHAIN_H

#include "run_state.h"

void mcfi_chain_release(const mcf_run *r, mcf_chain *c);
/* The fields of services that come from the model's descriptor (mcf 0.5): app_data and
 * the model's declared streams. */
void mcfi_model_services(const mcf_plugin *model, mcf_services *services);
/* What the model's create() of chain `index` gets besides its parameters, in a run and
 * outside one (`mcf band`'s state configuration): the services (seed, chain index, the
 * evaluator and its values, borrowed) and the chain's random stream (seed, index). */
void mcfi_chain_services(uint64_t seed, size_t index, const mcf_plugin_info *evaluator,
                         const mcf_params *evaluator_params, mcf_services *services,
                         mcf_rng *rng);
/* Parameters, random stream and accumulators of chain i: what every copy of a chain has,
 * with or without a model instance. */
int mcfi_chain_init(mcf_run *r, size_t i);
/* The layout of the measured values from c->points, and the curves' accumulators. */
int mcfi_chain_layout(const mcf_run *r, mcf_chain *c);
/* mcfi_chain_init, then the model instance and its layout. */
int mcfi_chain_create(mcf_run *r, size_t i);
/* "chain 3 (scan point L=16 T=2.27)" of chain `index`, for messages. */
void mcfi_chain_where(const mcf_run *r, size_t index, char *buf, size_t n);
/* Adds one measurement (values laid out as measure() writes them) to the accumulators. */
void mcfi_chain_record(const mcf_run *r, mcf_chain *c, const double *values);
/* Keeps one measurement of a tempering replica until the chunk's end (0, or -1 when out
 * of memory). */
int mcfi_chain_pend(mcf_chain *c, const double *values);
/* The jackknife bins of a chain whose measurements double (error_target.h): bin b takes
 * the sums of bins 2b and 2b + 1, the upper half is emptied for the new measurements. */
void mcfi_chain_merge_bins(const mcf_run *r, mcf_chain *c);

#endif
