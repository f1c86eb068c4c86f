/* mcf/band.h — the table of a band evaluator (kind MCF_PLUGIN_BAND_EVALUATOR).
 *
 * A band evaluator integrates a crystal (mcf/periodic.h) over its Brillouin zone: the
 * density of states, total and per orbital, the number of states below an energy, the band
 * energy below a chemical potential and the Fermi level of a filling.  It never knows which
 * model described the crystal.  Everything is per cell (divide by the crystal's `sites` for
 * per site) and at zero temperature; energies in the crystal's unit.
 *
 * Normalization: the DOS integrates to `orbitals` per cell, and so does the number of
 * states above the highest band; the orbital DOS of orbital a integrates to 1 and the
 * orbitals sum to the total at every energy. */
#ifndef MCF_BAND_H
#define MCF_BAND_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#include "mcf/batch.h"
#include "mcf/params.h"
#include "mcf/periodic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The evaluator's table (ABI 2).  The computing ops get the caller's batch (mcf/batch.h:
 * keep slots for what an evaluator keeps per batch; the scratch is the caller's).  ABI 1's
 * table (mcf_band_ops, mcf 0.8 and before) is no longer declared here: evaluators built
 * with it keep working through the SDK's adapter. */
typedef struct mcf_band_evaluator {
    uint32_t struct_size; /* sizeof(mcf_band_evaluator) the plugin was built with */

    /* A workspace for the crystal p (read during the call only: the evaluator keeps what
     * it needs) with validated [evaluator] params (borrowed for the call) and the
     * descriptor's app_data: the bands on the evaluator's k grid.  *ws is the caller's,
     * freed with destroy(); NULL after a failure.  Errors: MCF_EINVAL (a description
     * mcf_periodic_check refuses, a grid too large), MCF_ENOMEM.  The other ops return
     * MCF_OK or MCF_EINVAL (non-finite input, an output the workspace cannot give) with a
     * message. */
    int (*create)(const mcf_params *params, const mcf_periodic *p, void *app_data, void **ws);
    void (*destroy)(void *ws);

    /* The lowest and highest band energy on the grid. */
    void (*range)(const void *ws, double *lowest, double *highest);

    /* At the n energies E (any order): dos[i] states per cell per unit energy, idos[i]
     * states per cell below E[i], orbital[i * orbitals + a] the DOS of orbital a.  Any of
     * the three may be NULL. */
    int (*dos)(mcf_batch *b, void *ws, size_t n, const double *E, double *dos, double *idos,
               double *orbital);

    /* Below the chemical potential mu: electrons per cell and the band energy per cell,
     * the integral of E rho(E) up to mu. */
    int (*occupation)(mcf_batch *b, void *ws, double mu, double *electrons, double *energy);

    /* The chemical potential with `electrons` per cell below it (0 < electrons <
     * orbitals); inside a gap, its middle.  MCF_EINVAL outside that range. */
    int (*fermi_level)(mcf_batch *b, void *ws, double electrons, double *mu);
} mcf_band_evaluator;

/* mcf 0.7: a band evaluator's ops, either ABI, for a program that uses one (`mcf band`):
 * e is its descriptor; b any batch (one per thread).  The meanings are the ops' above. */
struct mcf_plugin_info;
MCF_API int mcf_band_create(const struct mcf_plugin_info *e, const mcf_params *params,
                            const mcf_periodic *p, void **ws);
MCF_API void mcf_band_destroy(const struct mcf_plugin_info *e, void *ws);
MCF_API void mcf_band_range(const struct mcf_plugin_info *e, const void *ws, double *lowest,
                            double *highest);
MCF_API int mcf_band_dos(const struct mcf_plugin_info *e, mcf_batch *b, void *ws, size_t n,
                         const double *E, double *dos, double *idos, double *orbital);
MCF_API int mcf_band_occupation(const struct mcf_plugin_info *e, mcf_batch *b, void *ws,
                                double mu, double *electrons, double *energy);
MCF_API int mcf_band_fermi_level(const struct mcf_plugin_info *e, mcf_batch *b, void *ws,
                                 double electrons, double *mu);

#ifdef __cplusplus
}
#endif
#endif
