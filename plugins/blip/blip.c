/* blip.c — the orbital evaluator "blip" (CPU, OpenMP): real orbitals as blips, cubic
 * B-splines on a periodic grid, fitted to the plane-wave description by FFT.
 *
 * Representation.  A grid of n_x x n_y x n_z points R_ijk = (i h_x, j h_y, k h_z) over the
 * cell, h_d = L_d / n_d, and
 *
 *     phi_l(r) = sum_{ijk} c_{ijk,l} B(x/h_x - i) B(y/h_y - j) B(z/h_z - k)
 *
 * (indices periodic), B the cubic B-spline: B(t) = 2/3 - t^2 + |t|^3/2 for |t| < 1,
 * (2 - |t|)^3 / 6 for 1 <= |t| < 2, 0 beyond.  Its support is 4 grid cells, so a point sees
 * 4 x 4 x 4 = 64 nonzero terms.  The table is c[((i n_y + j) n_z + k) L + l]: the orbital
 * index fastest, so each of the 64 terms reads one contiguous row of L doubles (and, away
 * from the z wrap, the four z neighbours are four consecutive rows).
 *
 * Which transform to divide by.  Take one dimension and one plane wave e^{iGx},
 * G = 2 pi m / L, theta = G h = 2 pi m / n, and blip coefficients c_j = C e^{i theta j}.
 * By Poisson summation, with t = x / h and Bhat(q) = int B(u) e^{-iqu} du = [sin(q/2) /
 * (q/2)]^4 (B is the fourfold convolution of the unit box),
 *
 *     sum_j e^{i theta j} B(t - j) = sum_k Bhat(theta - 2 pi k) e^{i (theta - 2 pi k) t}
 *                                  = Bhat(theta) e^{iGx} + sum_{k != 0} (aliases).
 *
 *   - Dividing by the continuous transform, C = 1 / Bhat(theta) (Alfe and Gillan, PRB 70,
 *     161101 (2004)), makes the k = 0 term exactly the plane wave: the blip orbital's
 *     projection on every plane wave inside the cutoff is the plane-wave coefficient,
 *     exactly, and the whole error is in the aliases at G - 2 pi k / h, of relative
 *     amplitude Bhat(theta - 2 pi k) / Bhat(theta) = (m / (m - n k))^4
 *     (sin^4 is 2 pi-periodic in the numerator).
 *   - Dividing by the discrete transform, C = 1 / sum_j B(j) e^{-i theta j} =
 *     1 / (2/3 + cos(theta) / 3), makes the spline interpolate the plane wave at the grid
 *     points; then the k = 0 term is Bhat(theta) / (2/3 + cos(theta)/3) = 1 - theta^4/720 +
 *     O(theta^6) times the plane wave: the same aliases plus an error in the principal
 *     component.
 *
 * We divide by the continuous transform: it leaves nothing but aliases, so kinetic energies
 * and overlaps of the represented orbitals are right up to alias terms, and the error is
 * the pure alias sum.  The convergence orders follow from the aliases: a k = +-1 alias
 * carries (m/n)^4 relative to the plane wave (values ~ h^4), each derivative multiplies it
 * by (G - 2 pi k / h) ~ 1/h relative to G (gradients ~ h^3, Laplacians ~ h^2).  These are
 * the orders of the interpolating cubic spline as well; tests/orbitals checks the slopes and
 * the exact projection, which tells the two transforms apart.
 *
 * Construction.  For each orbital the plane-wave coefficients are placed on the grid's
 * Fourier lattice, (a - ib)/2 at m and (a + ib)/2 at -m (mod n), each divided by
 * Bhat(theta_x) Bhat(theta_y) Bhat(theta_z) of its true m (not m mod n), and one backward
 * 3D complex FFT (GSL mixed radix, axis by axis) gives the blip coefficients at every grid
 * point: O(S log S) per orbital, S = n_x n_y n_z, instead of O(S n_g) for the direct sum
 * over plane waves.  The coefficients of real orbitals are real, so two orbitals share one
 * complex transform (orbital l in the real part, l + 1 in the imaginary part).  The grid
 * must resolve every plane wave: |m_d| < n_d / 2 (Nyquist), else m and m - n_d would be the
 * same grid frequency and the orbital could not be represented; create() refuses a coarser
 * grid and names the minimum, 2 max |m_d| + 1.
 *
 * Parameters ([evaluator]):
 *   grid         points along each side of the cell (the same number on all three sides);
 *                0 = automatic: n_d = ceil(grid_factor x (2 m_cut,d + 1)), at least 4, with
 *                m_cut,d = floor(G_max L_d / 2 pi) the plane-wave FFT grid of the orbitals'
 *                cutoff sphere |G| <= G_max.
 *   grid_factor  with grid = 0: how many times finer than that plane-wave grid (>= 1;
 *                default 4).  For the plane wave at the cutoff the relative errors are about
 *                2 (m/(n - m))^4 (values), 2 (m/(n - m))^3 (gradients), 2 (m/(n - m))^2
 *                (Laplacians); grid_factor 4 gives about 1e-3, 6e-3, 4e-2 there.
 *
 * Evaluation: positions reduced into the cell, the 4 weights (and first and second
 * derivatives) per axis, then for each of the 16 (x, y) neighbours the four z rows are
 * read once and accumulated into the values (and gradients and Laplacians: 5 sums from the
 * same 4 rows).  Memory traffic per point: 64 rows of L doubles, 512 L bytes, for values and
 * for vgl alike.  Every point of every workspace is independent; batches are spread over
 * OpenMP threads when they hold enough work, and each result is the same sequence of
 * operations whatever the batch or the thread count (batch = single calls, bit for bit).
 * Memory per workspace: S L doubles (the table); during create() one complex grid per
 * thread as well.
 *
 * The parameters, the grid choice, the FFT fit and the stencil weights live in the static
 * library mcf_blip_core (blip_core.h), shared with the GPU evaluator blip-cuda.
 *
 * The table of ABI 2 (mcf_orbital_evaluator, mcf/orbital.h): create, destroy and evaluate
 * (values, or values, gradients and Laplacians); no determinants, so no other op. */
#include "mcf/mcf.h"

#include "blip_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct blip_ws {
    size_t L;
    size_t n[3];     /* grid points per side */
    double cell[3];
    double inv_h[3]; /* n_d / L_d */
    const double *c; /* n_x n_y n_z L coefficients, orbital index fastest: `table`'s */
    blip_table *table; /* shared by the workspaces of the same orbitals (blip_core.h) */
} blip_ws;

static void blip_destroy(void *p)
{
    blip_ws *w = p;
    if (!w)
        return;
    if (w->table)
        blip_table_put(w->table);
    free(w);
}

/* create (mcf/orbital.h, ABI 2): blip has no settings beyond its parameters, so no
 * app_data */
static int blip_create(const mcf_params *params, const mcf_pw_orbitals *o, void *app_data,
                       void **out)
{
    (void)app_data;
    if (!out)
        return mcf_fail(MCF_EINVAL, "blip: create: NULL output pointer; pass the address of a "
                        "void * to receive the workspace");
    *out = NULL;
    if (!params)
        return mcf_fail(MCF_EINVAL, "blip: create: no [evaluator] parameters were given; pass "
                        "the validated parameters (grid, grid_factor)");
    int rc = mcf_pw_orbitals_check(o);
    if (rc)
        return mcf_fail_prefix(rc, "blip");
    size_t n[3];
    if ((rc = blip_choose_grid("blip", params, o, n)))
        return rc;
    const size_t L = o->n_orbitals;
    const double S = (double)n[0] * (double)n[1] * (double)n[2];
    if ((rc = blip_table_fits("blip", n, L, sizeof(double))))
        return rc;
    blip_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "blip: out of memory");
    w->L = L;
    for (int d = 0; d < 3; d++) {
        w->n[d] = n[d];
        w->cell[d] = o->cell[d];
        w->inv_h[d] = (double)n[d] / o->cell[d];
    }
    const size_t bytes = (size_t)S * L * sizeof(double);
    if ((rc = blip_table_get("blip", o, w->n, &w->table, &w->c))) {
        blip_destroy(w);
        return rc;
    }
    mcf_log(MCF_LOG_DEBUG, "blip: %zu orbitals on a %zu x %zu x %zu grid (%.3g MB of "
            "coefficients)", L, n[0], n[1], n[2], (double)bytes / 1e6);
    *out = w;
    return MCF_OK;
}

/* ---- evaluation -------------------------------------------------------------------- */

static void blip_point_values(const blip_ws *w, const double *r, double *restrict phi)
{
    const size_t L = w->L, ny = w->n[1], nz = w->n[2];
    blip_axis_stencil sx, sy, sz;
    blip_axis_setup(r[0], w->cell[0], w->inv_h[0], w->n[0], 0, &sx);
    blip_axis_setup(r[1], w->cell[1], w->inv_h[1], w->n[1], 0, &sy);
    blip_axis_setup(r[2], w->cell[2], w->inv_h[2], w->n[2], 0, &sz);
    for (size_t l = 0; l < L; l++)
        phi[l] = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            const double wxy = sx.w[0][a] * sy.w[0][b];
            const size_t base = (sx.idx[a] * ny + sy.idx[b]) * nz;
            const double *restrict r0 = w->c + (base + sz.idx[0]) * L;
            const double *restrict r1 = w->c + (base + sz.idx[1]) * L;
            const double *restrict r2 = w->c + (base + sz.idx[2]) * L;
            const double *restrict r3 = w->c + (base + sz.idx[3]) * L;
            const double w0 = wxy * sz.w[0][0], w1 = wxy * sz.w[0][1];
            const double w2 = wxy * sz.w[0][2], w3 = wxy * sz.w[0][3];
#pragma omp simd
            for (size_t l = 0; l < L; l++)
                phi[l] += w0 * r0[l] + w1 * r1[l] + w2 * r2[l] + w3 * r3[l];
        }
}

/* values, gradients (scratch g: 3 L doubles, gx | gy | gz) and Laplacians of one point */
static void blip_point_vgl(const blip_ws *w, const double *r, double *restrict phi,
                           double *restrict grad, double *restrict lap, double *restrict g)
{
    const size_t L = w->L, ny = w->n[1], nz = w->n[2];
    blip_axis_stencil sx, sy, sz;
    blip_axis_setup(r[0], w->cell[0], w->inv_h[0], w->n[0], 1, &sx);
    blip_axis_setup(r[1], w->cell[1], w->inv_h[1], w->n[1], 1, &sy);
    blip_axis_setup(r[2], w->cell[2], w->inv_h[2], w->n[2], 1, &sz);
    double *restrict gx = g, *restrict gy = g + L, *restrict gz = g + 2 * L;
    for (size_t l = 0; l < L; l++)
        phi[l] = gx[l] = gy[l] = gz[l] = lap[l] = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            const double vxy = sx.w[0][a] * sy.w[0][b];  /* B_x B_y */
            const double dxy = sx.w[1][a] * sy.w[0][b];  /* B_x' B_y */
            const double xdy = sx.w[0][a] * sy.w[1][b];  /* B_x B_y' */
            const double lxy = sx.w[2][a] * sy.w[0][b] + sx.w[0][a] * sy.w[2][b];
            const size_t base = (sx.idx[a] * ny + sy.idx[b]) * nz;
            const double *restrict r0 = w->c + (base + sz.idx[0]) * L;
            const double *restrict r1 = w->c + (base + sz.idx[1]) * L;
            const double *restrict r2 = w->c + (base + sz.idx[2]) * L;
            const double *restrict r3 = w->c + (base + sz.idx[3]) * L;
            double wv[4], wgx[4], wgy[4], wgz[4], wl[4];
            for (int c = 0; c < 4; c++) {
                wv[c] = vxy * sz.w[0][c];
                wgx[c] = dxy * sz.w[0][c];
                wgy[c] = xdy * sz.w[0][c];
                wgz[c] = vxy * sz.w[1][c];
                wl[c] = lxy * sz.w[0][c] + vxy * sz.w[2][c];
            }
#pragma omp simd
            for (size_t l = 0; l < L; l++) {
                const double c0 = r0[l], c1 = r1[l], c2 = r2[l], c3 = r3[l];
                phi[l] += wv[0] * c0 + wv[1] * c1 + wv[2] * c2 + wv[3] * c3;
                gx[l] += wgx[0] * c0 + wgx[1] * c1 + wgx[2] * c2 + wgx[3] * c3;
                gy[l] += wgy[0] * c0 + wgy[1] * c1 + wgy[2] * c2 + wgy[3] * c3;
                gz[l] += wgz[0] * c0 + wgz[1] * c1 + wgz[2] * c2 + wgz[3] * c3;
                lap[l] += wl[0] * c0 + wl[1] * c1 + wl[2] * c2 + wl[3] * c3;
            }
        }
    for (size_t l = 0; l < L; l++) {
        grad[3 * l] = gx[l];
        grad[3 * l + 1] = gy[l];
        grad[3 * l + 2] = gz[l];
    }
}

/* evaluate (ABI 2): values, and gradients and Laplacians when grad or lap is given (both
 * must be; mcf_orbital_batch_check names a missing one).  The batch is not needed: each
 * thread's gradient scratch lives for the call only. */
static int blip_evaluate(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                         const size_t *n_points, double *const *phi, double *const *grad,
                         double *const *lap)
{
    (void)b;
    const int want_gl = grad != NULL || lap != NULL;
    const char *op = "evaluate";
    size_t *off = NULL, total = 0;
    int rc = mcf_orbital_batch_check("blip", op, ws, n, r, n_points, phi, grad, lap, want_gl,
                                     &off, &total);
    if (rc || total == 0) {
        free(off);
        return rc;
    }
    size_t Lmax = 0;
    double work = 0;
    for (size_t k = 0; k < n; k++) {
        const blip_ws *w = ws[k];
        if (w->L > Lmax)
            Lmax = w->L;
        work += 64.0 * (double)n_points[k] * (double)w->L;
    }
    int failed = 0;
    const long nq = (long)total;
#pragma omp parallel if (work > 2e5)
    {
        double *g = want_gl ? malloc(3 * Lmax * sizeof *g) : NULL;
        if (want_gl && !g) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (long q = 0; q < nq; q++) {
            const size_t k = mcf_orbital_batch_owner(off, n, (size_t)q), p = (size_t)q - off[k];
            const blip_ws *w = ws[k];
            if (!want_gl)
                blip_point_values(w, r[k] + 3 * p, phi[k] + p * w->L);
            else if (g)
                blip_point_vgl(w, r[k] + 3 * p, phi[k] + p * w->L, grad[k] + 3 * p * w->L,
                               lap[k] + p * w->L, g);
        }
        free(g);
    }
    free(off);
    if (failed)
        return mcf_fail(MCF_ENOMEM, "blip: %s: out of memory for the per-thread gradients "
                        "(%zu orbitals)", op, Lmax);
    return MCF_OK;
}

/* values, gradients and Laplacians only: blip keeps no determinants (provides 0) */
static const mcf_orbital_evaluator blip_evaluator = {
    .struct_size = sizeof(mcf_orbital_evaluator),
    .provides = MCF_ORBITAL_VALUES,
    .create = blip_create,
    .destroy = blip_destroy,
    .evaluate = blip_evaluate,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_ORBITAL_EVALUATOR, "blip", "1.0",
                      "real orbitals as blips (cubic B-splines, 64 terms per point) fitted to "
                      "the plane-wave orbitals by FFT: values, gradients and Laplacians, OpenMP",
                      blip_param_specs, &blip_evaluator,
                      .auto_priority = 10 /* the CPU choice of evaluator = auto */)
