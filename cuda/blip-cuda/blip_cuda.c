/* blip_cuda.c — the GPU blip orbital evaluator "blip-cuda": the ops of mcf/orbital.h on an
 * NVIDIA GPU, with the parameters and the representation of the CPU plugin blip
 * (plugins/blip/blip.c describes the mathematics; blip_core.h the shared host side).
 *
 * create() builds the double coefficient table on the host exactly as blip does (the same
 * grid, the same FFT fit: mcf_blip_core), keeps it on the device rounded to float, and frees
 * the host copy; the device memory is asked for first, so a table that does not fit is
 * refused (MCF_ENOMEM, naming the bytes) before the FFTs run.  values and vgl evaluate all
 * points of all workspaces of a batch in one kernel launch (blip_cuda.h: one thread per
 * (point, orbital), weights in double then float, sums in float), one copy in and one out.
 *
 * The optional determinant ops keep each walker's Slater matrices and inverses on the device
 * (double), so that a particle-by-particle sweep sends a few numbers per move across the
 * bus instead of orbital rows (blip_cuda.h describes the kernels).
 *
 * Parameters: blip's grid and grid_factor, and two settings of the kernels that create()
 * hands to the device layer with the table (bcu_settings, per workspace): sum_precision
 * (single or double sums of the 64 terms) and orbitals_per_thread (1, 2, 4 in the values
 * kernel: speed only).  They were added after runs had been checkpointed, so config.ini
 * names them only when they are not at their defaults (MCF_PARAM_ECHO_IF_CHANGED).
 *
 * Precision: single (a relative error of about 1e-6 of the sum of |terms|, against the
 * CPU's 1e-15; tests/gpu/test_blip_cuda derives and checks the bound).  A machine without a
 * usable device makes create() fail with MCF_EDEVICE and the reason; [run] evaluator = auto
 * then takes the CPU plugin (the probe says why). */
#include "mcf/mcf.h"

#include "blip_core.h"
#include "blip_cuda.h"

#include <stdlib.h>
#include <string.h>

/* the defaults are those of bcu_table_alloc (float sums, 2 orbitals per thread) */
static const mcf_param_spec bc_params[] = {
    BLIP_GRID_PARAM_SPECS,
    {"sum_precision", MCF_PARAM_CHOICE, "single",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "single|double",
     "precision of the sum of 64 blip terms in each orbital value (the table is single "
     "precision either way): single, or double for measurements (up to ~25% slower; values "
     "change at the 1e-7 level)"},
    {"orbitals_per_thread", MCF_PARAM_CHOICE, "2",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "1|2|4",
     "orbitals per GPU thread in the values kernel (fewer when the number of orbitals is "
     "not a multiple): speed only, the results are the same bits"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

typedef struct bc_ws {
    size_t L;
    bcu_table *t;
} bc_ws;

static void bc_destroy(void *p)
{
    bc_ws *w = p;
    if (!w)
        return;
    bcu_table_destroy(w->t);
    free(w);
}

static size_t bc_orbitals(const void *ws) { return ws ? ((const bc_ws *)ws)->L : 0; }

static int bc_create(const mcf_params *params, const mcf_pw_orbitals *o, void **out)
{
    if (!out)
        return mcf_fail(MCF_EINVAL, "blip-cuda: create: NULL output pointer; pass the address "
                        "of a void * to receive the workspace");
    *out = NULL;
    if (!params)
        return mcf_fail(MCF_EINVAL, "blip-cuda: create: no [evaluator] parameters were given; "
                        "pass the validated parameters (grid, grid_factor)");
    int rc = mcf_pw_orbitals_check(o);
    if (rc)
        return mcf_fail_prefix(rc, "blip-cuda");
    if ((rc = bcu_device_init()))
        return rc;
    size_t n[3];
    if ((rc = blip_choose_grid("blip-cuda", params, o, n)))
        return rc;
    const size_t L = o->n_orbitals;
    if ((rc = blip_table_fits("blip-cuda", n, L, sizeof(double))))
        return rc;
    /* sum_precision: single, double; orbitals_per_thread: 1, 2, 4 (the order of their
       choices, mcf_params_choice) */
    enum { BC_SUM_SINGLE, BC_SUM_DOUBLE };
    const char *precision = NULL;
    int sum, per_thread;
    if ((rc = mcf_params_choice(params, "sum_precision", &sum)) ||
        (rc = mcf_params_string(params, "sum_precision", &precision)) ||
        (rc = mcf_params_choice(params, "orbitals_per_thread", &per_thread)))
        return rc;
    const bcu_settings set = {.accumulate_double = sum == BC_SUM_DOUBLE,
                              .vec = 1 << per_thread};
    bc_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    w->L = L;
    if ((rc = bcu_table_alloc(n, L, o->cell, &w->t)) ||
        (rc = bcu_table_set_settings(w->t, &set))) {
        bc_destroy(w);
        return rc;
    }
    const size_t bytes = n[0] * n[1] * n[2] * L * sizeof(double);
    double *c = malloc(bytes);
    if (!c) {
        bc_destroy(w);
        return mcf_fail(MCF_ENOMEM, "blip-cuda: the host coefficient table of %zu x %zu x %zu "
                        "points x %zu orbitals needs %.3g GB (during create only); use a "
                        "coarser grid or fewer orbitals", n[0], n[1], n[2], L,
                        (double)bytes / 1e9);
    }
    rc = blip_build_table("blip-cuda", o, n, c);
    if (!rc)
        rc = bcu_table_upload(w->t, c);
    free(c);
    if (rc) {
        bc_destroy(w);
        return rc;
    }
    mcf_log(MCF_LOG_DEBUG, "blip-cuda: %zu orbitals on a %zu x %zu x %zu grid (%.3g MB of "
            "float coefficients on %s); sums in %s, %d orbitals per thread (values)", L, n[0],
            n[1], n[2], (double)bcu_table_bytes(w->t) / 1e6, bcu_device_name(), precision,
            set.vec);
    *out = w;
    return MCF_OK;
}

static int bc_eval(const char *op, void *const *ws, size_t n, const double *const *r,
                   const size_t *n_points, double *const *phi, double *const *grad,
                   double *const *lap, int want_gl)
{
    size_t *off = NULL, total = 0;
    int rc = mcf_orbital_batch_check("blip-cuda", op, ws, n, r, n_points, phi, grad, lap,
                                     want_gl, &off, &total);
    free(off);
    if (rc || total == 0)
        return rc;
    const bcu_table *stack[64];
    const bcu_table **t = n <= 64 ? stack : malloc(n * sizeof *t);
    if (!t)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: %s: out of memory for %zu workspaces", op, n);
    for (size_t k = 0; k < n; k++)
        t[k] = ((const bc_ws *)ws[k])->t;
    rc = bcu_eval(t, n, r, n_points, phi, grad, lap, want_gl);
    if (t != stack)
        free(t);
    return rc;
}

static int bc_values(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
                     double *const *phi)
{
    return bc_eval("values", ws, n, r, n_points, phi, NULL, NULL, 0);
}

static int bc_vgl(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
                  double *const *phi, double *const *grad, double *const *lap)
{
    return bc_eval("vgl", ws, n, r, n_points, phi, grad, lap, 1);
}

/* ---- the optional determinant ops (mcf/orbital.h; the device side: blip_cuda.h) ---- */

static int bc_det_create(void *ws, size_t m, void **det)
{
    if (!det)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_create: NULL output pointer");
    *det = NULL;
    if (!ws)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_create: NULL workspace");
    bcu_det *d = NULL;
    int rc = bcu_det_create(((bc_ws *)ws)->t, m, &d);
    *det = d;
    return rc;
}

static void bc_det_destroy(void *det) { bcu_det_destroy(det); }

static int bc_det_set(void *det, const double *r, const double *A, const double *Ainv)
{
    return bcu_det_set(det, r, A, Ainv);
}

static int bc_det_get(void *det, double *r, double *A, double *Ainv)
{
    return bcu_det_get(det, r, A, Ainv);
}

static int bc_det_trial(void *const *det, size_t n, const double *const *r_trial)
{
    return bcu_det_trial((bcu_det *const *)det, n, r_trial);
}

static int bc_det_ratio(void *const *det, size_t n, const size_t *electron, double *ratio)
{
    return bcu_det_ratio((bcu_det *const *)det, n, electron, ratio);
}

static int bc_det_accept(void *det, size_t electron) { return bcu_det_accept(det, electron); }

static int bc_det_refresh(void *const *det, size_t n, double *drift)
{
    return bcu_det_refresh((bcu_det *const *)det, n, drift);
}

static int bc_det_local(void *const *det, size_t n, double *const *grad_ratio,
                        double *const *lap_ratio)
{
    return bcu_det_local((bcu_det *const *)det, n, grad_ratio, lap_ratio);
}

static int bc_probe(char *why, size_t len) { return bcu_probe(why, len); }

static int bc_walker_sweep(mcf_walker_moves *w, size_t n, const mcf_pair_function u[2],
                           const double cell[3], size_t delay)
{
    return bcu_walker_sweep(w, n, u, cell, delay);
}

static const mcf_orbital_ops bc_ops = {
    .struct_size = sizeof(mcf_orbital_ops),
    .create = bc_create,
    .destroy = bc_destroy,
    .orbitals = bc_orbitals,
    .values = bc_values,
    .vgl = bc_vgl,
    .det_create = bc_det_create,
    .det_destroy = bc_det_destroy,
    .det_set = bc_det_set,
    .det_get = bc_det_get,
    .det_trial = bc_det_trial,
    .det_ratio = bc_det_ratio,
    .det_accept = bc_det_accept,
    .det_refresh = bc_det_refresh,
    .det_local = bc_det_local,
    .walker_sweep = bc_walker_sweep,
};

static const mcf_plugin_info bc_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_ORBITAL_EVALUATOR,
    .name = "blip-cuda",
    .version = "1.0",
    .summary = "blip orbitals (cubic B-splines fitted by FFT, the parameters of blip) on an "
               "NVIDIA GPU: single-precision table, values, gradients and Laplacians of all "
               "points of a batch of walkers in one kernel launch",
    .params = bc_params,
    .ops = &bc_ops,
    .auto_priority = 20, /* before blip (10) when a device is present */
    .probe = bc_probe,
    .one_batch = 1,      /* one kernel launch for all walkers of a step */
    .min_mcf_version = MCF_VERSION_NUMBER(0, 5, 0), /* mcf_params_choice */
};

MCF_PLUGIN(bc_info)
