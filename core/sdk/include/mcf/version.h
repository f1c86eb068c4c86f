/* mcf/version.h — release and ABI versions of the mcf SDK: the one place they are written
 * (the top CMakeLists.txt reads MCF_VERSION_MAJOR/MINOR/PATCH from here for the library,
 * the CMake package and mcf.pc).
 *
 * The release version grows whenever the SDK grows: 0.1 was the first SDK; 0.2 appended the
 * fermion ops (delta_action, change_action, ...), mcf/change.h, mcf/batch.h,
 * mcf/fermion_model.h, mcf/state.h, the orbital determinant and walker_sweep ops,
 * mcf/pair_function.h, mcf/rng_device.h, the model's sweep op and weight_form, the
 * descriptor's min_mcf_version; 0.3 the specific heat of a general weight (the roles
 * ENERGY_DT and ACTION_DT, the fermion op occupation_dT, mcf_fermion_occupation_dT); 0.4
 * the noise sets of observables (MCF_OBS_NOISE) and the specific heat from two independent
 * traces (mcf_fermion_heat_get, mcf_fermion_occupation_heat), the model's ordered_state
 * and mu_key (the setup's check of degenerate shells at mu), mcf_params_where and
 * mcf_params_check_scale; 0.5 the first pieces of SDK 1.0 (docs/sdk-1.md): the batch's
 * keep slots (mcf_batch_keep), the descriptor's app_data (mcf_services.app_data), a
 * model's declared random streams (mcf_stream_spec, mcf_services_stream),
 * mcf_params_choice (a CHOICE key's value as the position of its word, for enums in the
 * order of the choices), the parameter flag MCF_PARAM_FINITE (a REAL refuses inf) and
 * mcf/orbital_model.h (mcf_orbital_bind, mcf_orbital_has, mcf_orbital_workspace: an
 * orbital model's evaluator bound and checked once, as mcf_fermion_bind does for fermion
 * models); 0.6 the model of ABI 2 (mcf_model, abi_version MCF_ABI_2: one op per verb,
 * batched; the chain's state described once; observables with their symbols and units),
 * which the core runs natively beside ABI-1 models; 0.7 the fermion evaluator of ABI 2
 * (mcf_fermion_evaluator: spectra, occupation, change_action, action, reconstruct; the
 * MCF_PROVIDES_* bits), the batch's evaluator (mcf_batch_set_evaluator) and ABI 2's
 * helpers of mcf/fermion_model.h (MCF_WANT_ABI 2), mcf_fermion_provides and
 * mcf_fermion_reconstruct; 0.8 the orbital evaluator of ABI 2 (mcf_orbital_evaluator:
 * evaluate, determinants by (workspace, spin), walker_sweep; ABI 2's helpers of
 * mcf/orbital_model.h), the variational parameters folded into the chain's state
 * (mcf_chain_state.variational) and measure() (mcf_batch_variational); 1.0 the flip: ABI 2
 * is MCF_ABI_VERSION, frozen, and the public headers describe it alone (ABI 1's tables and
 * helpers went to mcf's private headers; libmcf still exports ABI 1's helpers and the core
 * still runs ABI-1 plugins), ABI 2's helper names are the default (no MCF_WANT_ABI), and
 * MCF_PLUGIN_DESCRIPTOR records the release that built the plugin (built_with: the core
 * refuses an ABI-2 plugin built before the flip) and states min_mcf_version 1.0.0; the
 * parameter spec carries its symbol and unit (parameter_labels goes; the core converts the
 * specs of a plugin built before 1.0), mcf_layout.moves, the bond helpers of
 * mcf/lattice.h and MCF_PARAM_RANGE; 1.1 the forces: density_matrix appended to the fermion
 * evaluator's table (MCF_PROVIDES_DENSITY_MATRIX; tables of 1.0's size still load), the
 * helpers mcf_fermion_density_matrix, mcf_density_matrix_force and
 * mcf_hamiltonian_factors_gradient; pseudofermion (MCF_PROVIDES_PSEUDOFERMION, the exact
 * weight of hybrid Monte Carlo and its gradient) and mcf_fermion_pseudofermion; the model's
 * coordinates and global_action (mcf_coordinates, MCF_ACTION_*) for [run] sampler = hmc;
 * 1.2 (not yet released; the version numbers below stay 1.1.0 until it is): the model's
 * driven_crystal (`mcf kbe`) and projector ([run] method = dmc) appended; the orbital
 * evaluator's walker_drift_sweep (MCF_ORBITAL_DRIFT_SWEEP, mcf_drift_walker: DMC's moves where
 * the determinants are; tables of 1.0's size still load, MCF_ORBITAL_EVALUATOR_SIZE_1_0),
 * mcf_orbital_walker_drift_sweep and mcf_pair_derivative appended; the fermion evaluator's
 * response (MCF_PROVIDES_RESPONSE: two-dimensional Chebyshev moments of two operators; tables
 * of 1.1's size still load), after it vector_moments (MCF_PROVIDES_VECTOR_MOMENTS: Chebyshev
 * moments of given vectors, the spectral function A(k, E) of Bloch states), and
 * mcf/response.h (current operators, Kubo-Greenwood and Kubo-Bastin conductivities from those
 * moments; mcf_spectral_function and mcf_spectral_occupation; paths through the Brillouin
 * zone and Bloch vectors, mcf_kpath_create and mcf_bloch_vector), the model helpers
 * mcf_fermion_vector_moments and mcf_fermion_spectral_curves (MCF_FERMION_VECTOR_MOMENTS) and
 * the curve flag MCF_OBS_SPECTRAL_MOMENTS (`mcf response`'s A(k, E) and n(k)).  A
 * plugin states the oldest release whose SDK it uses:
 * find_package(mcf 1.0) or pkg-config --atleast-version=1.0 when it is built,
 * MCF_VERSION_AT_LEAST in its source, and the descriptor's min_mcf_version (mcf/plugin.h)
 * when it is loaded.
 *
 * MCF_ABI_VERSION changes whenever a table or descriptor changes in a way an
 * already-built plugin cannot survive (a field removed, reordered or retyped).
 * Appending a field does not change it: descriptors and tables carry their own
 * struct_size, and the core reads appended fields only when struct_size covers them.
 * ABI 1 (mcf 0.1-0.8) was the first; ABI 2 (mcf 1.0) rebuilt the tables around one
 * operation per verb, batched (docs/sdk-1.md).  The core loads plugins of both. */
#ifndef MCF_VERSION_H
#define MCF_VERSION_H

#include "mcf/api.h"

#define MCF_VERSION_MAJOR 1
#define MCF_VERSION_MINOR 1
#define MCF_VERSION_PATCH 0

#define MCF_VERSION_STR_(x) #x
#define MCF_VERSION_XSTR_(x) MCF_VERSION_STR_(x)
#define MCF_VERSION_STRING                                                                \
    MCF_VERSION_XSTR_(MCF_VERSION_MAJOR) "." MCF_VERSION_XSTR_(MCF_VERSION_MINOR) "."    \
        MCF_VERSION_XSTR_(MCF_VERSION_PATCH)

/* One number per release, ordered like the releases: 0.2.0 is 200, 1.3.12 is 10312. */
#define MCF_VERSION_NUMBER(major, minor, patch) ((major) * 10000u + (minor) * 100u + (patch))
#define MCF_VERSION                                                                       \
    MCF_VERSION_NUMBER(MCF_VERSION_MAJOR, MCF_VERSION_MINOR, MCF_VERSION_PATCH)

/* In a plugin's source: #if !MCF_VERSION_AT_LEAST(0, 2, 0) #error ... #endif */
#define MCF_VERSION_AT_LEAST(major, minor, patch)                                         \
    (MCF_VERSION >= MCF_VERSION_NUMBER(major, minor, patch))

#define MCF_ABI_VERSION 2u

/* The ABI whose helper declarations a source file sees (mcf/fermion_model.h,
 * mcf/orbital_model.h): ABI 2's.  ABI 1's (the same names in the source, other symbols)
 * are no longer public: only mcf's own private headers select them, for the SDK's
 * implementation of ABI 1 and the tests of that path.  Defining MCF_WANT_ABI 2, as plugins
 * written between mcf 0.7 and 1.0 do, is harmless. */
#ifndef MCF_WANT_ABI
#define MCF_WANT_ABI 2
#endif
#if MCF_WANT_ABI < 2 && !defined(MCF_ABI1_PRIVATE)
#error "MCF_WANT_ABI 1: ABI 1's declarations are no longer public (mcf 1.0 has ABI 2). \
Build this plugin against the frozen headers of an older mcf (0.8 or before), whose \
binaries this mcf still loads, or port it to ABI 2 (docs/plugin-guide.md)"
#endif

#endif
