/* blip_core.c — the host side of the blip evaluators: parameters, grid, and the FFT fit of
 * the coefficient table (blip_core.h; the mathematics is described in blip.c). */
#include "blip_core.h"

#include "mcf/mcf.h"

#include <gsl/gsl_fft_complex.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const mcf_param_spec blip_param_specs[] = {BLIP_GRID_PARAM_SPECS,
                                           {0}};


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
int blip_choose_grid(const char *who, const mcf_params *params, const mcf_pw_orbitals *o,
                     size_t n[3])
{
    long grid = 0;
    double factor = 4;
    int rc;
    if ((rc = mcf_params_int(params, "grid", &grid)) ||
        (rc = mcf_params_real(params, "grid_factor", &factor)))
        return rc;
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
                return mcf_fail(MCF_EINVAL, "%s: the automatic grid along axis %d would "
                                "have %.0f points (grid_factor %g x plane-wave grid %.0f); "
                                "set grid explicitly (at least %zu)", who, d, na, factor, npw,
                                need);
            n[d] = (size_t)na;
        }
        if (n[d] < need) {
            return mcf_fail(MCF_EINVAL, "%s: grid = %zu points along axis %c is too coarse "
                            "for the orbitals' plane waves, which reach |n_%c| = %ld: a grid "
                            "of n points resolves |n_%c| < n/2 only (Nyquist); use grid >= %zu",
                            who, n[d], "xyz"[d], "xyz"[d], mmax[d], "xyz"[d], need);
        }
    }
    return MCF_OK;
}

/* Backward (e^{+i}) unnormalized 3D DFT of the complex grid z (k fastest) in place. */
/* (One workspace per axis: GSL wants a workspace of the transform's length, and the axes
 * of a non-cubic cell have different lengths.) */
static int fft3_backward(double *z, const size_t n[3], gsl_fft_complex_wavetable *const wt[3],
                         gsl_fft_complex_workspace *const work[3])
{
    const size_t nx = n[0], ny = n[1], nz = n[2];
    int rc = 0;
    for (size_t ij = 0; ij < nx * ny && !rc; ij++)
        rc = gsl_fft_complex_backward(z + 2 * ij * nz, 1, nz, wt[2], work[2]);
    for (size_t i = 0; i < nx && !rc; i++)
        for (size_t k = 0; k < nz && !rc; k++)
            rc = gsl_fft_complex_backward(z + 2 * (i * ny * nz + k), nz, ny, wt[1], work[1]);
    for (size_t jk = 0; jk < ny * nz && !rc; jk++)
        rc = gsl_fft_complex_backward(z + 2 * jk, ny * nz, nx, wt[0], work[0]);
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

int blip_build_table(const char *who, const mcf_pw_orbitals *o, const size_t n[3], double *c)
{
    const size_t S = n[0] * n[1] * n[2], L = o->n_orbitals;
    const double two_pi = 6.28318530717958647692;
    double *inv_bhat = malloc(o->n_g * sizeof *inv_bhat);
    if (!inv_bhat)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory", who);
    for (size_t g = 0; g < o->n_g; g++) {
        double bh = 1;
        for (int d = 0; d < 3; d++)
            bh *= bspline_ft(two_pi * (double)o->g[3 * g + (size_t)d] / (double)n[d]);
        inv_bhat[g] = 1.0 / bh;
    }
    gsl_fft_complex_wavetable *wt[3] = {NULL, NULL, NULL};
    int failed = 0;
    for (int d = 0; d < 3; d++)
        if (!(wt[d] = gsl_fft_complex_wavetable_alloc(n[d])))
            failed = MCF_ENOMEM;
    const long pairs = (long)((L + 1) / 2);
    if (!failed) {
#pragma omp parallel if (pairs > 1 && (double)S * (double)pairs > 1e5)
        {
            double *z = malloc(2 * S * sizeof *z);
            gsl_fft_complex_workspace *work[3];
            for (int d = 0; d < 3; d++)
                work[d] = gsl_fft_complex_workspace_alloc(n[d]);
            const int have = work[0] && work[1] && work[2];
            if (!z || !have) {
#pragma omp atomic write
                failed = MCF_ENOMEM;
            }
#pragma omp for schedule(dynamic, 1)
            for (long pr = 0; pr < pairs; pr++) {
                if (!z || !have)
                    continue;
                const size_t l0 = 2 * (size_t)pr, l1 = l0 + 1;
                memset(z, 0, 2 * S * sizeof *z);
                add_spectrum(z, o, l0, n, inv_bhat, 0);
                if (l1 < L)
                    add_spectrum(z, o, l1, n, inv_bhat, 1);
                if (fft3_backward(z, n, wt, work)) {
#pragma omp atomic write
                    failed = MCF_EINTERNAL;
                    continue;
                }
                for (size_t s = 0; s < S; s++) {
                    c[s * L + l0] = z[2 * s];
                    if (l1 < L)
                        c[s * L + l1] = z[2 * s + 1];
                }
            }
            free(z);
            for (int d = 0; d < 3; d++)
                if (work[d])
                    gsl_fft_complex_workspace_free(work[d]);
        }
    }
    for (int d = 0; d < 3; d++)
        if (wt[d])
            gsl_fft_complex_wavetable_free(wt[d]);
    free(inv_bhat);
    if (failed == MCF_ENOMEM)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for the FFT grids (%zu points each)",
                        who, S);
    if (failed)
        return mcf_fail(failed, "%s: a GSL FFT of a %zu x %zu x %zu grid failed", who, n[0],
                        n[1], n[2]);
    return MCF_OK;
}

/* ---- one table for all the walkers of a run --------------------------------------------- */

/* A run's walkers (one evaluator workspace each) carry the same orbitals.  Each built and
 * kept a table of its own: at N = 514 (the blip grid 4 x the plane-wave grid) 1024 walkers
 * built one table 1024 times and held 1024 copies of it (issue 46).  blip_table_get hands
 * out the last table built while its inputs match (grid, cell, plane waves, coefficients,
 * compared whole: only identical orbitals share), counting its holders; the registry holds
 * it too, so that a create that uploads the table and lets it go (blip-cuda) finds it for
 * the next walker.  A table whose inputs differ replaces it in the registry; a table goes
 * when its last holder does (the registry's at the plugin's unload). */
struct blip_table {
    size_t n[3], L, n_g, refs;
    double cell[3];
    int32_t *g;
    double *coef; /* cos then sin, L n_g each */
    double *c;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static blip_table *registry;
static unsigned long shared_hits;

static void table_free(blip_table *t)
{
    if (!t)
        return;
    free(t->g);
    free(t->coef);
    free(t->c);
    free(t);
}

/* one holder less (lock held) */
static void table_drop(blip_table *t)
{
    if (t && --t->refs == 0)
        table_free(t);
}

__attribute__((destructor)) static void registry_unload(void)
{
    table_drop(registry);
    registry = NULL;
}

/* 1 when t is the table of o on n */
static int table_matches(const blip_table *t, const mcf_pw_orbitals *o, const size_t n[3])
{
    const size_t lg = o->n_orbitals * o->n_g;
    if (!t || t->L != o->n_orbitals || t->n_g != o->n_g)
        return 0;
    for (int d = 0; d < 3; d++)
        if (t->n[d] != n[d] || t->cell[d] != o->cell[d])
            return 0;
    return !memcmp(t->g, o->g, 3 * o->n_g * sizeof *o->g) &&
           !memcmp(t->coef, o->cos_coef, lg * sizeof *o->cos_coef) &&
           !memcmp(t->coef + lg, o->sin_coef, lg * sizeof *o->sin_coef);
}

int blip_table_get(const char *who, const mcf_pw_orbitals *o, const size_t n[3],
                   blip_table **out, const double **c)
{
    *out = NULL;
    *c = NULL;
    pthread_mutex_lock(&registry_lock);
    if (table_matches(registry, o, n)) {
        registry->refs++;
        shared_hits++;
        *out = registry;
        *c = registry->c;
    }
    pthread_mutex_unlock(&registry_lock);
    if (*out)
        return MCF_OK;
    const size_t lg = o->n_orbitals * o->n_g;
    blip_table *t = calloc(1, sizeof *t);
    if (t) {
        t->g = malloc(3 * o->n_g * sizeof *t->g);
        t->coef = malloc(2 * lg * sizeof *t->coef + 1);
        t->c = malloc(n[0] * n[1] * n[2] * o->n_orbitals * sizeof *t->c);
    }
    if (!t || !t->g || !t->coef || !t->c) {
        table_free(t);
        return mcf_fail(MCF_ENOMEM, "%s: the coefficient table of %zu x %zu x %zu points x "
                        "%zu orbitals needs %.3g GB; use a coarser grid or fewer orbitals", who,
                        n[0], n[1], n[2], o->n_orbitals,
                        (double)(n[0] * n[1] * n[2] * o->n_orbitals) * 8e-9);
    }
    int rc = blip_build_table(who, o, n, t->c);
    if (rc) {
        table_free(t);
        return rc;
    }
    memcpy(t->g, o->g, 3 * o->n_g * sizeof *o->g);
    memcpy(t->coef, o->cos_coef, lg * sizeof *o->cos_coef);
    memcpy(t->coef + lg, o->sin_coef, lg * sizeof *o->sin_coef);
    for (int d = 0; d < 3; d++) {
        t->n[d] = n[d];
        t->cell[d] = o->cell[d];
    }
    t->L = o->n_orbitals;
    t->n_g = o->n_g;
    t->refs = 2; /* the caller's and the registry's */
    pthread_mutex_lock(&registry_lock);
    table_drop(registry);
    registry = t;
    pthread_mutex_unlock(&registry_lock);
    *out = t;
    *c = t->c;
    return MCF_OK;
}

void blip_table_put(blip_table *t)
{
    pthread_mutex_lock(&registry_lock);
    table_drop(t);
    pthread_mutex_unlock(&registry_lock);
}

unsigned long blip_table_shared(void)
{
    pthread_mutex_lock(&registry_lock);
    const unsigned long h = shared_hits;
    pthread_mutex_unlock(&registry_lock);
    return h;
}

int blip_table_fits(const char *who, const size_t n[3], size_t L, size_t elem_bytes)
{
    const double S = (double)n[0] * (double)n[1] * (double)n[2];
    if (S * (double)L * (double)elem_bytes > (double)(SIZE_MAX / 2))
        return mcf_fail(MCF_EINVAL, "%s: a %zu x %zu x %zu grid of %zu orbitals does not fit "
                        "in memory; use a coarser grid", who, n[0], n[1], n[2], L);
    return MCF_OK;
}
