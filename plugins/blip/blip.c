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
 * thread as well. */
#include "mcf/mcf.h"

#include <gsl/gsl_fft_complex.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mcf_param_spec blip_params[] = {
    {"grid", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "blip grid points along each side of the cell (the same on all three sides); must "
     "exceed 2 max|n_d| of the orbitals' plane waves (Nyquist); 0 = automatic from the "
     "cutoff: grid_factor x the plane-wave grid"},
    {"grid_factor", MCF_PARAM_REAL, "4", MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN, 1, 0, NULL,
     "with grid = 0: blip grid = ceil(grid_factor x (2 m + 1)) points per side, 2 m + 1 the "
     "plane-wave FFT grid of the cutoff sphere; errors of values, gradients, Laplacians fall "
     "as grid^-4, ^-3, ^-2 (about 1e-3, 6e-3, 4e-2 relative at the cutoff for 4)"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

typedef struct blip_ws {
    size_t L;
    size_t n[3];     /* grid points per side */
    double cell[3];
    double inv_h[3]; /* n_d / L_d */
    double *c;       /* n_x n_y n_z L coefficients, orbital index fastest */
} blip_ws;

static void blip_destroy(void *p)
{
    blip_ws *w = p;
    if (!w)
        return;
    free(w->c);
    free(w);
}

static size_t blip_orbitals(const void *ws) { return ws ? ((const blip_ws *)ws)->L : 0; }

/* ---- construction ------------------------------------------------------------------ */

/* the continuous Fourier transform of the cubic B-spline at theta: [sin(theta/2)/(theta/2)]^4 */
static double bspline_ft(double theta)
{
    if (theta == 0.0)
        return 1.0;
    const double s = sin(0.5 * theta) / (0.5 * theta);
    return (s * s) * (s * s);
}

static size_t mod_index(long m, size_t n)
{
    long r = m % (long)n;
    return (size_t)(r < 0 ? r + (long)n : r);
}

/* a plane wave is used when some orbital has a nonzero coefficient on it */
static int pw_used(const mcf_pw_orbitals *o, size_t g)
{
    for (size_t l = 0; l < o->n_orbitals; l++)
        if (o->cos_coef[l * o->n_g + g] != 0.0 || o->sin_coef[l * o->n_g + g] != 0.0)
            return 1;
    return 0;
}

/* The grid from the parameters and the orbitals; refuses one too coarse. */
static int blip_choose_grid(const mcf_params *params, const mcf_pw_orbitals *o, size_t n[3])
{
    long grid = 0;
    double factor = 4;
    int rc;
    if ((rc = mcf_params_int(params, "grid", &grid)) ||
        (rc = mcf_params_real(params, "grid_factor", &factor)))
        return rc;
    if (grid < 0 || !(factor >= 1) || !isfinite(factor))
        return mcf_fail(MCF_EINVAL, "blip: grid = %ld, grid_factor = %g; use grid >= 0 (0 = "
                        "automatic) and a finite grid_factor >= 1", grid, factor);
    /* Nyquist: the largest |m_d| of the used plane waves must be < n_d / 2 */
    long mmax[3] = {0, 0, 0};
    for (size_t g = 0; g < o->n_g; g++) {
        if (!pw_used(o, g))
            continue;
        for (int d = 0; d < 3; d++) {
            const long m = labs((long)o->g[3 * g + (size_t)d]);
            if (m > mmax[d])
                mmax[d] = m;
        }
    }
    const double two_pi = 6.28318530717958647692;
    const double gmax = sqrt(mcf_pw_orbitals_gmax2(o));
    for (int d = 0; d < 3; d++) {
        const size_t need = (size_t)(2 * mmax[d] + 1);
        if (grid > 0) {
            n[d] = (size_t)grid;
        } else {
            const double mcut = floor(gmax * o->cell[d] / two_pi + 1e-9);
            const double npw = 2.0 * mcut + 1.0;
            double na = ceil(factor * npw - 1e-9);
            if (na < 4)
                na = 4;
            if (na > 1e6)
                return mcf_fail(MCF_EINVAL, "blip: the automatic grid along axis %d would "
                                "have %.0f points (grid_factor %g x plane-wave grid %.0f); "
                                "set grid explicitly (at least %zu)", d, na, factor, npw, need);
            n[d] = (size_t)na;
        }
        if (n[d] < need) {
            return mcf_fail(MCF_EINVAL, "blip: grid = %zu points along axis %c is too coarse "
                            "for the orbitals' plane waves, which reach |n_%c| = %ld: a grid "
                            "of n points resolves |n_%c| < n/2 only (Nyquist); use grid >= %zu",
                            n[d], "xyz"[d], "xyz"[d], mmax[d], "xyz"[d], need);
        }
    }
    return MCF_OK;
}

/* Backward (e^{+i}) unnormalized 3D DFT of the complex grid z (k fastest) in place. */
static int fft3_backward(double *z, const size_t n[3], gsl_fft_complex_wavetable *const wt[3],
                         gsl_fft_complex_workspace *work)
{
    const size_t nx = n[0], ny = n[1], nz = n[2];
    int rc = 0;
    for (size_t ij = 0; ij < nx * ny && !rc; ij++)
        rc = gsl_fft_complex_backward(z + 2 * ij * nz, 1, nz, wt[2], work);
    for (size_t i = 0; i < nx && !rc; i++)
        for (size_t k = 0; k < nz && !rc; k++)
            rc = gsl_fft_complex_backward(z + 2 * (i * ny * nz + k), nz, ny, wt[1], work);
    for (size_t jk = 0; jk < ny * nz && !rc; jk++)
        rc = gsl_fft_complex_backward(z + 2 * jk, ny * nz, nx, wt[0], work);
    return rc;
}

/* Adds the plane-wave spectrum of orbital l, each term divided by the B-spline transform
 * (inv_bhat), to the complex grid z: as it is, or times i when imaginary_slot is set (the
 * second orbital of a pair). */
static void add_spectrum(double *z, const mcf_pw_orbitals *o, size_t l, const size_t n[3],
                         const double *inv_bhat, int imaginary_slot)
{
    for (size_t g = 0; g < o->n_g; g++) {
        const double a = o->cos_coef[l * o->n_g + g], b = o->sin_coef[l * o->n_g + g];
        if (a == 0.0 && b == 0.0)
            continue;
        const long m[3] = {o->g[3 * g], o->g[3 * g + 1], o->g[3 * g + 2]};
        const double s = 0.5 * inv_bhat[g];
        /* a cos + b sin = (a - ib)/2 e^{+iG.r} + (a + ib)/2 e^{-iG.r} */
        for (int sign = 1; sign >= -1; sign -= 2) {
            const size_t idx =
                (mod_index(sign * m[0], n[0]) * n[1] + mod_index(sign * m[1], n[1])) * n[2] +
                mod_index(sign * m[2], n[2]);
            const double re = s * a, im = -sign * s * b;
            if (!imaginary_slot) {
                z[2 * idx] += re;
                z[2 * idx + 1] += im;
            } else { /* i (re + i im) = -im + i re */
                z[2 * idx] -= im;
                z[2 * idx + 1] += re;
            }
        }
    }
}

static int blip_build(blip_ws *w, const mcf_pw_orbitals *o)
{
    const size_t S = w->n[0] * w->n[1] * w->n[2], L = w->L;
    const double two_pi = 6.28318530717958647692;
    double *inv_bhat = malloc(o->n_g * sizeof *inv_bhat);
    if (!inv_bhat)
        return mcf_fail(MCF_ENOMEM, "blip: out of memory");
    for (size_t g = 0; g < o->n_g; g++) {
        double bh = 1;
        for (int d = 0; d < 3; d++)
            bh *= bspline_ft(two_pi * (double)o->g[3 * g + (size_t)d] / (double)w->n[d]);
        inv_bhat[g] = 1.0 / bh;
    }
    gsl_fft_complex_wavetable *wt[3] = {NULL, NULL, NULL};
    int failed = 0;
    for (int d = 0; d < 3; d++)
        if (!(wt[d] = gsl_fft_complex_wavetable_alloc(w->n[d])))
            failed = MCF_ENOMEM;
    const long pairs = (long)((L + 1) / 2);
    if (!failed) {
#pragma omp parallel if (pairs > 1 && (double)S * (double)pairs > 1e5)
        {
            size_t nmax = w->n[0];
            if (w->n[1] > nmax)
                nmax = w->n[1];
            if (w->n[2] > nmax)
                nmax = w->n[2];
            double *z = malloc(2 * S * sizeof *z);
            gsl_fft_complex_workspace *work = gsl_fft_complex_workspace_alloc(nmax);
            if (!z || !work) {
#pragma omp atomic write
                failed = MCF_ENOMEM;
            }
#pragma omp for schedule(dynamic, 1)
            for (long pr = 0; pr < pairs; pr++) {
                if (!z || !work)
                    continue;
                const size_t l0 = 2 * (size_t)pr, l1 = l0 + 1;
                memset(z, 0, 2 * S * sizeof *z);
                add_spectrum(z, o, l0, w->n, inv_bhat, 0);
                if (l1 < L)
                    add_spectrum(z, o, l1, w->n, inv_bhat, 1);
                if (fft3_backward(z, w->n, wt, work)) {
#pragma omp atomic write
                    failed = MCF_EINTERNAL;
                    continue;
                }
                for (size_t s = 0; s < S; s++) {
                    w->c[s * L + l0] = z[2 * s];
                    if (l1 < L)
                        w->c[s * L + l1] = z[2 * s + 1];
                }
            }
            free(z);
            gsl_fft_complex_workspace_free(work);
        }
    }
    for (int d = 0; d < 3; d++)
        if (wt[d])
            gsl_fft_complex_wavetable_free(wt[d]);
    free(inv_bhat);
    if (failed == MCF_ENOMEM)
        return mcf_fail(MCF_ENOMEM, "blip: out of memory for the FFT grids (%zu points each)",
                        S);
    if (failed)
        return mcf_fail(failed, "blip: a GSL FFT of a %zu x %zu x %zu grid failed", w->n[0],
                        w->n[1], w->n[2]);
    return MCF_OK;
}

static int blip_create(const mcf_params *params, const mcf_pw_orbitals *o, void **out)
{
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
    if ((rc = blip_choose_grid(params, o, n)))
        return rc;
    const size_t L = o->n_orbitals;
    const double S = (double)n[0] * (double)n[1] * (double)n[2];
    if (S * (double)L * 8.0 > (double)(SIZE_MAX / 2))
        return mcf_fail(MCF_EINVAL, "blip: a %zu x %zu x %zu grid of %zu orbitals does not fit "
                        "in memory; use a coarser grid", n[0], n[1], n[2], L);
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
    w->c = malloc(bytes);
    if (!w->c) {
        blip_destroy(w);
        return mcf_fail(MCF_ENOMEM, "blip: the coefficient table of %zu x %zu x %zu points x "
                        "%zu orbitals needs %.3g GB; use a coarser grid or fewer orbitals",
                        n[0], n[1], n[2], L, (double)bytes / 1e9);
    }
    if ((rc = blip_build(w, o))) {
        blip_destroy(w);
        return rc;
    }
    mcf_log(MCF_LOG_DEBUG, "blip: %zu orbitals on a %zu x %zu x %zu grid (%.3g MB of "
            "coefficients)", L, n[0], n[1], n[2], (double)bytes / 1e6);
    *out = w;
    return MCF_OK;
}

/* ---- evaluation -------------------------------------------------------------------- */

/* Stencil of one axis: the 4 grid indices and the weights B(t - i) (d = 0), their first
 * (d = 1) and second (d = 2) derivatives in the cell's units. */
typedef struct axis_stencil {
    size_t idx[4];
    double w[3][4];
} axis_stencil;

static void axis_setup(double x, double cell, double inv_h, size_t n, int derivs,
                       axis_stencil *s)
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

static void blip_point_values(const blip_ws *w, const double *r, double *restrict phi)
{
    const size_t L = w->L, ny = w->n[1], nz = w->n[2];
    axis_stencil sx, sy, sz;
    axis_setup(r[0], w->cell[0], w->inv_h[0], w->n[0], 0, &sx);
    axis_setup(r[1], w->cell[1], w->inv_h[1], w->n[1], 0, &sy);
    axis_setup(r[2], w->cell[2], w->inv_h[2], w->n[2], 0, &sz);
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
    axis_stencil sx, sy, sz;
    axis_setup(r[0], w->cell[0], w->inv_h[0], w->n[0], 1, &sx);
    axis_setup(r[1], w->cell[1], w->inv_h[1], w->n[1], 1, &sy);
    axis_setup(r[2], w->cell[2], w->inv_h[2], w->n[2], 1, &sz);
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

static int blip_eval(const char *op, void *const *ws, size_t n, const double *const *r,
                     const size_t *n_points, double *const *phi, double *const *grad,
                     double *const *lap, int want_gl)
{
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

static int blip_values(void *const *ws, size_t n, const double *const *r,
                       const size_t *n_points, double *const *phi)
{
    return blip_eval("values", ws, n, r, n_points, phi, NULL, NULL, 0);
}

static int blip_vgl(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
                    double *const *phi, double *const *grad, double *const *lap)
{
    return blip_eval("vgl", ws, n, r, n_points, phi, grad, lap, 1);
}

static const mcf_orbital_ops blip_ops = {
    .struct_size = sizeof(mcf_orbital_ops),
    .create = blip_create,
    .destroy = blip_destroy,
    .orbitals = blip_orbitals,
    .values = blip_values,
    .vgl = blip_vgl,
};

static const mcf_plugin_info blip_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_ORBITAL_EVALUATOR,
    .name = "blip",
    .version = "1.0",
    .summary = "real orbitals as blips (cubic B-splines, 64 terms per point) fitted to the "
               "plane-wave orbitals by FFT: values, gradients and Laplacians, OpenMP",
    .params = blip_params,
    .ops = &blip_ops,
    .auto_priority = 10, /* the CPU choice of evaluator = auto */
};

MCF_PLUGIN(blip_info)
