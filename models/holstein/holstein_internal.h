/* holstein_internal.h — what holstein.c and holstein_periodic.c share (not an SDK header). */
#ifndef MCF_HOLSTEIN_INTERNAL_H
#define MCF_HOLSTEIN_INTERNAL_H

#include "mcf/mcf.h"

/* [model] lattice: its choices, and their positions (mcf_params_choice) */
#define HO_LATTICES "square|cubic"
enum { HO_LATTICE_SQUARE, HO_LATTICE_CUBIC };

typedef struct ho_chain {
    mcf_lattice *lat;
    int64_t n;
    double g, k, mu, T, delta;
    double *x;
    double theta[3];     /* the twist, radians (mcf_lattice_twist) */
    mcf_hamiltonian *h;
    mcf_fermion fermion; /* the evaluator */
    void *ws;            /* its workspace for h */
    mcf_rng mrng;        /* the measurement stream */
    /* sampler = hmc (holstein_hmc.c): the pseudofermions, and the domain |x_i| <= xmax
     * whose spectral bounds are fixed (0: not yet, a local run) */
    mcf_fermion_hmc pf;
    double xmax;
} ho_chain;

/* holstein_hmc.c: hybrid Monte Carlo ([run] sampler = hmc; mcf_model.coordinates and
 * global_action, mcf 1.1) */
int ho_coordinates(void *chain, mcf_coordinates *out);
int ho_global_action(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                     unsigned what, double *S, double *const *grad);

/* holstein_periodic.c: uniform and checkerboard displacements, or a chain's own, as
 * crystals (mcf_model.periodic) */
int ho_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell);

/* holstein.c: a chain's one-particle Hamiltonian h(x), its lattice and its twist (radians;
 * borrowed from the chain, valid while it lives) */
const mcf_hamiltonian *ho_chain_hamiltonian(const void *chain, const mcf_lattice **lat,
                                            const double **theta);

#endif
