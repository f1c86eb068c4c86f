/* mcf/fermion.h — the vtable of a fermion evaluator (kind MCF_PLUGIN_FERMION_EVALUATOR).
 *
 * A fermion evaluator knows one piece of mathematics on one kind of hardware: spectral
 * functions of a tight-binding Hamiltonian (mcf/hamiltonian.h) — density of states, local
 * density of states, diagonal Green's functions, occupations.  It never knows which model
 * asked.  A model creates one workspace per chain, bound to that chain's Hamiltonian, and
 * calls the batched ops with the workspaces of many chains at once, so that a GPU evaluator
 * gets enough independent work to fill the device; a CPU evaluator may simply loop.
 *
 * Curves are returned on the evaluator's energy grid (energy_points() values, ascending;
 * Chebyshev nodes for KPM).  The grid depends only on the evaluator's parameters and the
 * Hamiltonian's bounds, so with fixed bounds every realization shares one grid.
 * Normalization: per state, so that the DOS integrates to 1 and the LDOS of every row
 * integrates to 1; Green's functions are retarded, G_rr(E + i0+), with the kernel's
 * broadening, so that -Im G_rr / pi is the LDOS. */
#ifndef MCF_FERMION_H
#define MCF_FERMION_H

#include <stddef.h>
#include "mcf/hamiltonian.h"
#include "mcf/params.h"
#include "mcf/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_fermion_ops {
    uint32_t struct_size;  /* sizeof(mcf_fermion_ops) the plugin was built with */

    /* A workspace for h (borrowed: must outlive the workspace; the model changes it only
     * between calls) with validated [evaluator] params (borrowed likewise).  *ws is freed
     * with destroy().  Errors: MCF_EINVAL (e.g. h too large for an exact method), ENOMEM. */
    int (*create)(const mcf_params *params, const mcf_hamiltonian *h, void **ws);
    void (*destroy)(void *ws);

    /* The energy grid: number of points, and the energies (ascending) into E.  energies()
     * reads h's current bounds. */
    size_t (*energy_points)(const void *ws);
    int (*energies)(void *ws, double *E);

    /* For n workspaces: the DOS per state at the grid energies into dos[k] (points
     * values).  A stochastic evaluator draws its random vectors from rngs[k] (the chain's
     * stream); an exact one ignores rngs (which may then be NULL). */
    int (*dos)(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos);

    /* For n workspaces: the LDOS of rows[k][0..n_rows) into out[k][j * points + e]. */
    int (*ldos)(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                double *const *out);

    /* For n workspaces: G_rr(E + i0+) of rows[k][0..n_rows) at the grid energies, into
     * re[k][j * points + e] and im[k][...]. */
    int (*green)(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                 double *const *re, double *const *im);

    /* For n workspaces: electron density per state, n = integral rho(E) f(E), and band
     * energy per state, e = integral E rho(E) f(E), with the Fermi function
     * f = 1 / (1 + exp((E - mu) / T)) (T = 0: step); stochastic like dos(). */
    int (*occupation)(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                      double *density, double *energy);
} mcf_fermion_ops;

#ifdef __cplusplus
}
#endif
#endif
