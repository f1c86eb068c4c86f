/* mcf/abi1_band.h — ABI 1's band evaluator table (mcf_band_ops), private to mcf.
 *
 * Not installed: since mcf 1.0 (ABI 2) the public headers describe ABI 2 only.  This is
 * what plugins built against mcf 0.1-0.8 have in their binaries, moved here verbatim from
 * the public header of mcf 0.8, so the layouts never change: the SDK's adapters (the
 * core/sdk files named abi1) call such an evaluator, and the tests that exist to check
 * that path build against these headers (docs/sdk-1.md, "The flip").  A new evaluator is
 * written for ABI 2; one that must stay ABI 1 builds against the frozen headers of an older
 * mcf. */
#ifndef MCF_ABI1_BAND_H
#define MCF_ABI1_BAND_H

#include "mcf/abi1_plugin.h"
#include "mcf/band.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_band_ops {
    uint32_t struct_size; /* sizeof(mcf_band_ops) the plugin was built with */

    /* A workspace for the crystal p (read during the call only: the evaluator keeps what
     * it needs) with validated [evaluator] params (borrowed for the call): the bands on the
     * evaluator's k grid.  *ws is the caller's, freed with destroy(); NULL after a
     * failure.  Errors: MCF_EINVAL (a description mcf_periodic_check refuses, a grid too
     * large), MCF_ENOMEM.  The other ops return MCF_OK or MCF_EINVAL (non-finite input,
     * an output the workspace cannot give) with a message. */
    int (*create)(const mcf_params *params, const mcf_periodic *p, void **ws);
    void (*destroy)(void *ws);

    /* The lowest and highest band energy on the grid. */
    void (*range)(const void *ws, double *lowest, double *highest);

    /* At the n energies E (any order): dos[i] states per cell per unit energy, idos[i]
     * states per cell below E[i], orbital[i * orbitals + a] the DOS of orbital a.  Any of
     * the three may be NULL. */
    int (*dos)(void *ws, size_t n, const double *E, double *dos, double *idos,
               double *orbital);

    /* Below the chemical potential mu: electrons per cell and the band energy per cell,
     * the integral of E rho(E) up to mu. */
    int (*occupation)(void *ws, double mu, double *electrons, double *energy);

    /* The chemical potential with `electrons` per cell below it (0 < electrons <
     * orbitals); inside a gap, its middle.  MCF_EINVAL outside that range. */
    int (*fermi_level)(void *ws, double electrons, double *mu);
} mcf_band_ops;

#ifdef __cplusplus
}
#endif
#endif
