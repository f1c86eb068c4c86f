/* tetra_plugin.c — the band evaluator "tetra" (mcf/band.h) over the static library
 * mcf_tetra_core (tetra.h): a crystal's bands on a Monkhorst-Pack grid of [evaluator]
 * kpoints per direction, integrated with linear tetrahedra (Bloechl's correction on the
 * band energy and the orbital DOS when bloechl = yes). */
#include "tetra.h"
#include "tetra_params.h"

#include "mcf/mcf.h"

#include <math.h>
#include <stdlib.h>

static const mcf_param_spec tetra_params[] = {
    TETRA_GRID_PARAMS,
    {0}};

typedef struct tetra_ws {
    tetra_grid *grid;
    int bloechl;
    int weights;
} tetra_ws;

/* the orbital weights are kept for cells up to this many orbitals (memory: points x
 * orbitals^2 doubles) */
#define TETRA_WEIGHTS_MAX_ORBITALS 64

static int tp_create(const mcf_params *params, const mcf_periodic *p, void *app_data,
                     void **out)
{
    (void)app_data;
    *out = NULL;
    size_t n[3];
    double s[3];
    int bloechl;
    int rc = tetra_grid_settings(params, p, "tetra", n, s, &bloechl);
    if (rc)
        return rc;
    tetra_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "tetra: out of memory");
    w->bloechl = bloechl;
    w->weights = p->orbitals <= TETRA_WEIGHTS_MAX_ORBITALS;
    if ((rc = tetra_grid_create(p, n, s, w->weights, &w->grid))) {
        free(w);
        return mcf_fail_prefix(rc, "tetra");
    }
    *out = w;
    return MCF_OK;
}

static void tp_destroy(void *ws)
{
    tetra_ws *w = ws;
    if (!w)
        return;
    tetra_grid_destroy(w->grid);
    free(w);
}

static void tp_range(const void *ws, double *lowest, double *highest)
{
    const tetra_ws *w = ws;
    *lowest = tetra_grid_emin(w->grid);
    *highest = tetra_grid_emax(w->grid);
}

static int tp_dos(mcf_batch *b, void *ws, size_t n, const double *E, double *dos,
                  double *idos, double *orbital)
{
    (void)b;
    tetra_ws *w = ws;
    if (orbital && !w->weights)
        return mcf_fail(MCF_EINVAL, "tetra: the orbital DOS of a cell of %zu orbitals (more "
                        "than %d) is not kept", tetra_grid_bands(w->grid),
                        TETRA_WEIGHTS_MAX_ORBITALS);
    return tetra_dos(w->grid, n, E, w->bloechl, dos, idos, orbital);
}

static int tp_occupation(mcf_batch *b, void *ws, double mu, double *electrons,
                         double *energy)
{
    (void)b;
    tetra_ws *w = ws;
    if (!isfinite(mu))
        return mcf_fail(MCF_EINVAL, "tetra: the chemical potential %g is not finite", mu);
    return tetra_band_energy(w->grid, mu, w->bloechl, electrons, energy);
}

static int tp_fermi_level(mcf_batch *b, void *ws, double electrons, double *mu)
{
    (void)b;
    tetra_ws *w = ws;
    const int rc = tetra_filling_check(electrons, tetra_grid_bands(w->grid), "tetra");
    return rc ? rc : tetra_fermi_level(w->grid, electrons, mu);
}

static const mcf_band_evaluator tetra_ops = {
    .struct_size = sizeof(mcf_band_evaluator),
    .create = tp_create,
    .destroy = tp_destroy,
    .range = tp_range,
    .dos = tp_dos,
    .occupation = tp_occupation,
    .fermi_level = tp_fermi_level,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_BAND_EVALUATOR, "tetra", "0.1",
                      "band evaluator: linear tetrahedra with Bloechl's correction on a "
                      "Monkhorst-Pack grid (CPU)",
                      tetra_params, &tetra_ops)
