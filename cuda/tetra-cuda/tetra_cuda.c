/* tetra_cuda.c — the band evaluator "tetra-cuda" (mcf/band.h) over the static library
 * mcf_tetra_cuda (tetra_cuda.h): the tetrahedron method of plugins/tetra with the bands of
 * every k point found in one batched pass on the GPU and the sums over tetrahedra done
 * there; the same keys as tetra, and the eigensolver and the precision of the sums. */
#include "tetra_cuda.h"

#include "mcf_cuda.h"
#include "tetra_params.h"

#include "mcf/mcf.h"

#include <stdlib.h>
#include <string.h>

static const mcf_param_spec tc_params[] = {
    TETRA_GRID_PARAMS,
    {"eigensolver", MCF_PARAM_CHOICE, "jacobi", MCF_PARAM_NO_SCAN, 0, 0, "jacobi|cusolver",
     .doc = "the batched eigensolver of all k points: mcf's Jacobi kernel (any size) or cuSOLVER's "
     "zheevjBatched (up to 32 orbitals)"},
    {"precision", MCF_PARAM_CHOICE, "double", MCF_PARAM_NO_SCAN, 0, 0, "double|mixed|single",
     .doc = "the DOS sums: double throughout, float arithmetic with double sums, or float "
     "throughout (docs/methods.md: the single-precision bound)"},
    {0}};

/* the orbital weights are kept up to this many orbitals (the DOS kernel keeps one column
 * of the orbital DOS per thread in shared memory), and the Jacobi kernel's matrices, one per
 * thread, stay that small */
#define TC_MAX_ORBITALS 64

typedef struct tc_ws {
    tcu_grid *grid;
    int bloechl;
    tcu_precision precision;
} tc_ws;

static int tc_create(const mcf_params *params, const mcf_periodic *p, void *app_data,
                     void **out)
{
    (void)app_data;
    *out = NULL;
    size_t n[3];
    double s[3];
    int bloechl;
    /* eigensolver: jacobi, cusolver; precision: double, mixed, single (the order of their
       choices, mcf_params_choice; the same as tcu_solver's and tcu_precision's) */
    int solver, precision;
    int rc = tetra_grid_settings(params, p, "tetra-cuda", n, s, &bloechl);
    if (rc)
        return rc;
    if ((rc = mcf_params_choice(params, "eigensolver", &solver)) ||
        (rc = mcf_params_choice(params, "precision", &precision)))
        return mcf_fail_prefix(rc, "tetra-cuda");
    if (p->orbitals > TC_MAX_ORBITALS)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: the crystal has %u orbitals per cell, more "
                        "than the %d the GPU evaluator takes; use evaluator = tetra (CPU)",
                        p->orbitals, TC_MAX_ORBITALS);
    if ((rc = mcu_device_init("tetra-cuda", "tetra")))
        return rc;
    tc_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "tetra-cuda: out of memory");
    w->bloechl = bloechl;
    static const tcu_precision precisions[] = {TCU_DOUBLE, TCU_MIXED, TCU_SINGLE};
    static const tcu_solver solvers[] = {TCU_JACOBI, TCU_CUSOLVER};
    w->precision = precisions[precision];
    const tcu_solver sv = solvers[solver];
    if ((rc = tcu_grid_create(p, n, s, 1, sv, &w->grid))) {
        free(w);
        return rc;
    }
    *out = w;
    return MCF_OK;
}

static void tc_destroy(void *ws)
{
    tc_ws *w = ws;
    if (!w)
        return;
    tcu_grid_destroy(w->grid);
    free(w);
}

static void tc_range(const void *ws, double *lowest, double *highest)
{
    const tc_ws *w = ws;
    *lowest = tcu_grid_emin(w->grid);
    *highest = tcu_grid_emax(w->grid);
}

static int tc_dos(mcf_batch *b, void *ws, size_t n, const double *E, double *dos,
                  double *idos, double *orbital)
{
    (void)b;
    tc_ws *w = ws;
    return tcu_dos(w->grid, n, E, w->bloechl, w->precision, dos, idos, orbital);
}

static int tc_occupation(mcf_batch *b, void *ws, double mu, double *electrons,
                         double *energy)
{
    (void)b;
    tc_ws *w = ws;
    return tcu_band_energy(w->grid, mu, w->bloechl, electrons, energy);
}

static int tc_fermi_level(mcf_batch *b, void *ws, double electrons, double *mu)
{
    (void)b;
    tc_ws *w = ws;
    const int rc = tetra_filling_check(electrons, tcu_grid_bands(w->grid), "tetra-cuda");
    return rc ? rc : tcu_fermi_level(w->grid, electrons, mu);
}

static const mcf_band_evaluator tc_ops = {
    .struct_size = sizeof(mcf_band_evaluator),
    .create = tc_create,
    .destroy = tc_destroy,
    .range = tc_range,
    .dos = tc_dos,
    .occupation = tc_occupation,
    .fermi_level = tc_fermi_level,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_BAND_EVALUATOR, "tetra-cuda", "0.1",
                      "band evaluator: linear tetrahedra with Bloechl's correction on an NVIDIA "
                      "GPU (CUDA; batched eigensolver, cuSOLVER)",
                      tc_params, &tc_ops)
