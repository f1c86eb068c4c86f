/* fermion_model_internal.h — the helpers of mcf/fermion_model.h over a target
 * (fermion_calls.h), shared by ABI 1's public helpers (fermion_model.c) and ABI 2's
 * (fermion_model2.c).  Private to the SDK library. */
#ifndef MCF_FERMION_MODEL_INTERNAL_H
#define MCF_FERMION_MODEL_INTERNAL_H

#include "fermion_calls.h"
#include "mcf/fermion_model.h"

/* The arrays of a batched helper call (the fields of either ABI's mcf_fermion_batch). */
typedef struct mcfi_fermion_arrays {
    void **ws;
    mcf_rng **rngs;
    const mcf_change **changes;
    double *T, *mu;
    double *dS, *err;
    double *density, *energy;
    size_t *index;
} mcfi_fermion_arrays;

/* fermion_model.c: the helpers of both ABIs over a target (messages prefixed
 * "<model>: evaluator <name>: <op>") */
int mcfi_fm_batch_get(mcf_batch *b, size_t n, mcfi_fermion_arrays *out);
int mcfi_fm_heat_get(mcf_batch *b, size_t n, mcfi_fermion_arrays *a, mcf_fermion_heat *h);
int mcfi_fm_change_action(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a,
                          size_t n);
int mcfi_fm_occupation(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a, size_t n,
                       double *ddensity, double *denergy);
int mcfi_fm_occupation_heat(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a,
                            size_t n, const mcf_fermion_heat *h);
size_t mcfi_fm_moment_points(const mcfi_fermion_target *t, const void *ws, size_t q,
                             double *axis);
int mcfi_fm_dos_moments(const mcfi_fermion_target *t, const mcfi_fermion_arrays *a, size_t n,
                        double *const *dos, double *const *moments);
/* "lacks <op> (<what for>)" for the first of `needs` that t lacks, or NULL */
const char *mcfi_fm_missing(const mcfi_fermion_target *t, unsigned needs);
/* the binding of services->evaluator (mcf_fermion_bind of either ABI): its descriptor, or
 * NULL with the message of ABI 1's bind */
const mcf_plugin_info *mcfi_fm_bind(const mcf_services *s, const mcf_params *model_params,
                                    const char *model, unsigned needs, const char **origin);

#endif
