/* blip_core.h — what the blip orbital evaluators share: the static library mcf_blip_core,
 * linked into the CPU plugin blip (blip.c), the GPU plugin blip-cuda (cuda/blip-cuda), their
 * tests and benchmarks.  It builds the coefficient table on the host; each evaluator then
 * keeps and reads it its own way.  blip.c describes the representation, the fit and the
 * parameters.  Not part of the SDK: symbols carry the prefix blip_ and hidden visibility.
 *
 *   parameters   blip_param_specs: grid, grid_factor (the [evaluator] section of blip;
 *                blip-cuda declares BLIP_GRID_PARAM_SPECS and its own settings).
 *   grid         blip_choose_grid: n_x, n_y, n_z from the parameters and the orbitals'
 *                cutoff; refuses a grid below Nyquist naming the minimum.
 *   table        blip_build_table: c[((i n_y + j) n_z + k) L + l], double, the orbital
 *                index fastest, by one 3D FFT per pair of orbitals (OpenMP over pairs; the
 *                result does not depend on the thread count); blip_table_get/_put share
 *                one table among the walkers of a run (the same orbitals).
 *   stencil      blip_axis_setup (static inline, also compiled for the device by nvcc): the
 *                4 grid indices of a coordinate along one axis and the weights B(t - i),
 *                with first and second derivatives, in double.
 *
 * `who` names the evaluator in messages ("blip", "blip-cuda").  Errors: MCF_OK or an
 * MCF_E* code with a message (mcf_fail). */
#ifndef MCF_BLIP_CORE_H
#define MCF_BLIP_CORE_H

#include <math.h>
#include <stddef.h>

#include "mcf/orbital.h"
#include "mcf/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BLIP_API __attribute__((visibility("hidden")))
#else
#define BLIP_API
#endif

#ifdef __CUDACC__
#define BLIP_HD __host__ __device__
#else
#define BLIP_HD
#endif

/* The grid's parameters, grid and grid_factor: the initializers of two mcf_param_spec, for
 * the declarations of blip (blip_param_specs) and blip-cuda. */
#define BLIP_GRID_PARAM_SPECS                                                                 \
    {"grid", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN, 0, 0, NULL,                \
     .doc = "blip grid points along each side of the cell (the same on all three sides); must "    \
     "exceed 2 max|n_d| of the orbitals' plane waves (Nyquist); 0 = automatic from the "     \
     "cutoff: grid_factor x the plane-wave grid"},                                           \
    {"grid_factor", MCF_PARAM_REAL, "4",                                                     \
     MCF_PARAM_HAS_MIN | MCF_PARAM_FINITE | MCF_PARAM_NO_SCAN, 1, 0, NULL,                  \
     .doc = "with grid = 0: blip grid = ceil(grid_factor x (2 m + 1)) points per side, "    \
     "2 m + 1 the plane-wave FFT grid of the cutoff sphere; errors of values, gradients, " \
     "Laplacians fall as grid^-4, ^-3, ^-2 (about 1e-3, 6e-3, 4e-2 relative at the cutoff for 4)"}

/* The parameters of blip (NULL-name terminated). */
BLIP_API extern const mcf_param_spec blip_param_specs[];

/* The grid n[3] for orbitals o (checked by the caller) with the validated parameters.
 * MCF_EINVAL for a grid too coarse (the message names the minimum) or absurdly large. */
BLIP_API int blip_choose_grid(const char *who, const mcf_params *params,
                              const mcf_pw_orbitals *o, size_t n[3]);

/* MCF_EINVAL when a table of n[0] n[1] n[2] x L entries of elem_bytes each cannot be
 * addressed ("does not fit in memory; use a coarser grid"). */
BLIP_API int blip_table_fits(const char *who, const size_t n[3], size_t L, size_t elem_bytes);

/* Fills c (n[0] n[1] n[2] L doubles, the caller's) with the blip coefficients of o on the
 * grid n.  MCF_ENOMEM (FFT scratch), MCF_EINTERNAL (a GSL FFT failed). */
BLIP_API int blip_build_table(const char *who, const mcf_pw_orbitals *o, const size_t n[3],
                              double *c);

/* The table of o on the grid n, shared: the last one built while its inputs match (a run's
 * walkers carry the same orbitals), else built (blip_build_table) and kept for the next
 * call.  *c is read-only and lives until blip_table_put(*t), which every successful get
 * needs once.  MCF_ENOMEM naming the table's size, or blip_build_table's errors.
 * Thread-safe. */
typedef struct blip_table blip_table;
BLIP_API int blip_table_get(const char *who, const mcf_pw_orbitals *o, const size_t n[3],
                            blip_table **t, const double **c);
BLIP_API void blip_table_put(blip_table *t);

/* How many gets found the kept table (for tests). */
BLIP_API unsigned long blip_table_shared(void);

/* Stencil of one axis: the 4 grid indices and the weights B(t - i) (d = 0), their first
 * (d = 1) and second (d = 2) derivatives in the cell's units. */
typedef struct blip_axis_stencil {
    size_t idx[4];
    double w[3][4];
} blip_axis_stencil;

/* The stencil of coordinate x (anywhere: reduced into [0, cell)) on an axis of n points,
 * inv_h = n / cell; derivatives only when derivs. */
static inline BLIP_HD void blip_axis_setup(double x, double cell, double inv_h, size_t n,
                                           int derivs, blip_axis_stencil *s)
{
    x -= cell * floor(x / cell);           /* into [0, cell] (cell itself by rounding) */
    const double t = x * inv_h, fl = floor(t); /* t in [0, n] */
    const double u = t - fl, v = 1.0 - u;
    const long i0 = (long)fl;
    for (int a = 0; a < 4; a++)
        s->idx[a] = (size_t)((i0 - 1 + a + 2 * (long)n) % (long)n);
    const double u2 = u * u, v2 = v * v;
    s->w[0][0] = v2 * v / 6.0;                 /* B(u + 1) */
    s->w[0][1] = 2.0 / 3.0 - u2 + 0.5 * u2 * u; /* B(u) */
    s->w[0][2] = 2.0 / 3.0 - v2 + 0.5 * v2 * v; /* B(1 - u) */
    s->w[0][3] = u2 * u / 6.0;                 /* B(2 - u) */
    if (!derivs)
        return;
    /* d/dx = inv_h d/dt of B(t - i) */
    s->w[1][0] = -0.5 * v2 * inv_h;
    s->w[1][1] = (-2.0 * u + 1.5 * u2) * inv_h;
    s->w[1][2] = (2.0 * v - 1.5 * v2) * inv_h;
    s->w[1][3] = 0.5 * u2 * inv_h;
    const double ih2 = inv_h * inv_h;
    s->w[2][0] = v * ih2;
    s->w[2][1] = (3.0 * u - 2.0) * ih2;
    s->w[2][2] = (3.0 * v - 2.0) * ih2;
    s->w[2][3] = u * ih2;
}

#ifdef __cplusplus
}
#endif
#endif
