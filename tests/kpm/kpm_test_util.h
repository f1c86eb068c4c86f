/* kpm_test_util.h — helpers shared by the KPM tests: Hamiltonians (random Hermitian,
 * periodic square and cubic lattices), exact eigen-decomposition with GSL, exact Chebyshev
 * moments, and direct (O(N M)) sums of Chebyshev series, the references the FFT
 * reconstruction is checked against.  Everything here is independent of the library
 * mcf_kpm_core except the types it fills. */
#ifndef MCF_KPM_TEST_UTIL_H
#define MCF_KPM_TEST_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "check.h"
#include "mcf/mcf.h"

static const double kt_pi = 3.14159265358979323846;

/* ---- Hamiltonians ---------------------------------------------------------------------- */

/* A random Hermitian dim x dim matrix with complex hoppings of modulus <= hop, about
 * `pairs` off-diagonal pairs (each row at most `width` entries) and on-site energies
 * uniform in [-onsite, onsite]. */
static inline mcf_hamiltonian *kt_random_h(mcf_rng *rng, size_t dim, int width, size_t pairs,
                                    double hop, double onsite)
{
    mcf_hamiltonian *h = NULL;
    int rc = mcf_hamiltonian_create(dim, 1, width, &h);
    CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
    if (rc)
        return NULL;
    int *used = calloc(dim, sizeof *used);
    for (size_t t = 0; t < 20 * pairs && pairs; t++) {
        size_t i = (size_t)mcf_rng_below(rng, dim), j = (size_t)mcf_rng_below(rng, dim);
        if (i == j || used[i] >= width || used[j] >= width)
            continue;
        int present = 0;
        for (int k = 0; k < width; k++)
            if (h->col[(size_t)k * dim + i] == (int32_t)j)
                present = 1;
        if (present)
            continue;
        const double re = hop * (2.0 * mcf_rng_uniform(rng) - 1.0);
        const double im = hop * (2.0 * mcf_rng_uniform(rng) - 1.0);
        rc = mcf_hamiltonian_set(h, i, j, re, im);
        CHECK(rc == MCF_OK, "set: %s", mcf_last_error());
        used[i]++;
        used[j]++;
        if (--pairs == 0)
            break;
    }
    for (size_t r = 0; r < dim; r++)
        mcf_hamiltonian_set_onsite(h, r, onsite * (2.0 * mcf_rng_uniform(rng) - 1.0));
    free(used);
    return h;
}

/* Periodic hypercubic lattice of side L in d = 2 or 3 dimensions, hopping -t. */
static inline mcf_hamiltonian *kt_lattice(int d, size_t L, double t)
{
    size_t n = d == 2 ? L * L : L * L * L;
    mcf_hamiltonian *h = NULL;
    int rc = mcf_hamiltonian_create(n, 1, 2 * d, &h);
    CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
    if (rc)
        return NULL;
    for (size_t s = 0; s < n; s++) {
        size_t x = s % L, y = (s / L) % L, z = d == 3 ? s / (L * L) : 0;
        size_t nx = (x + 1) % L + L * y + L * L * z;
        size_t ny = x + L * ((y + 1) % L) + L * L * z;
        rc = mcf_hamiltonian_set(h, s, nx, -t, 0.0);
        rc |= mcf_hamiltonian_set(h, s, ny, -t, 0.0);
        if (d == 3)
            rc |= mcf_hamiltonian_set(h, s, x + L * y + L * L * ((z + 1) % L), -t, 0.0);
        if (rc) {
            CHECK(rc == MCF_OK, "lattice set: %s", mcf_last_error());
            break;
        }
    }
    return h;
}

/* kt_lattice(2, L, 1) with on-site disorder uniform in [-W/2, W/2) from stream (seed, 0) */
static inline mcf_hamiltonian *kt_disordered(size_t L, double W, uint64_t seed)
{
    mcf_hamiltonian *h = kt_lattice(2, L, 1.0);
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    for (size_t r = 0; h && r < h->dim; r++)
        mcf_hamiltonian_set_onsite(h, r, W * (mcf_rng_uniform(&rng) - 0.5));
    return h;
}

/* ---- exact diagonalization --------------------------------------------------------- */

typedef struct kt_eigen {
    size_t dim;
    double *eval;            /* dim, ascending */
    gsl_matrix_complex *vec; /* columns = eigenvectors */
} kt_eigen;

static inline kt_eigen kt_diagonalize(const mcf_hamiltonian *h)
{
    kt_eigen e = {h->dim, NULL, NULL};
    const size_t n = h->dim;
    gsl_matrix_complex *A = gsl_matrix_complex_alloc(n, n);
    mcf_hamiltonian_dense(h, A->data); /* row-major interleaved, tda = n */
    gsl_vector *ev = gsl_vector_alloc(n);
    e.vec = gsl_matrix_complex_alloc(n, n);
    gsl_eigen_hermv_workspace *w = gsl_eigen_hermv_alloc(n);
    gsl_eigen_hermv(A, ev, e.vec, w);
    gsl_eigen_hermv_free(w);
    gsl_eigen_hermv_sort(ev, e.vec, GSL_EIGEN_SORT_VAL_ASC);
    e.eval = malloc(n * sizeof *e.eval);
    for (size_t k = 0; k < n; k++)
        e.eval[k] = gsl_vector_get(ev, k);
    gsl_vector_free(ev);
    gsl_matrix_complex_free(A);
    return e;
}

static inline void kt_eigen_free(kt_eigen *e)
{
    free(e->eval);
    gsl_matrix_complex_free(e->vec);
    memset(e, 0, sizeof *e);
}

/* <k|v> for a vector in split form (re[dim], im[dim]) into ov (2 dim: re, im per k). */
static inline void kt_overlaps(const kt_eigen *e, const double *re, const double *im, double *ov)
{
    const size_t n = e->dim;
    for (size_t k = 0; k < n; k++) {
        double sr = 0.0, si = 0.0;
        for (size_t r = 0; r < n; r++) {
            gsl_complex c = gsl_matrix_complex_get(e->vec, r, k); /* psi_k(r) */
            const double cr = GSL_REAL(c), ci = -GSL_IMAG(c);     /* conj */
            sr += cr * re[r] - ci * im[r];
            si += cr * im[r] + ci * re[r];
        }
        ov[2 * k] = sr;
        ov[2 * k + 1] = si;
    }
}

/* mu_n = sum_k w_k T_n(x_k), n < M, for spectral weights w (complex: w_re, w_im may be
 * NULL) at rescaled energies x, by the three-term recursion of T_n(x_k). */
static inline void kt_moments(size_t K, const double *x, const double *w_re, const double *w_im,
                       size_t M, double *mu_re, double *mu_im)
{
    for (size_t n = 0; n < M; n++) {
        mu_re[n] = 0.0;
        if (mu_im)
            mu_im[n] = 0.0;
    }
    for (size_t k = 0; k < K; k++) {
        double t0 = 1.0, t1 = x[k];
        for (size_t n = 0; n < M; n++) {
            const double tn = n == 0 ? 1.0 : n == 1 ? x[k] : 2.0 * x[k] * t1 - t0;
            if (n >= 2) {
                t0 = t1;
                t1 = tn;
            }
            mu_re[n] += w_re[k] * tn;
            if (mu_im)
                mu_im[n] += w_im[k] * tn;
        }
    }
}

/* The kernel-damped series at x directly: f(x) = [g0 mu0 + 2 sum g_n mu_n T_n(x)] /
 * (pi sqrt(1 - x^2)), and Re G(x) = -2 sum_{n>=1} g_n mu_n U_{n-1}(x), in rescaled units. */
static inline double kt_series_f(const double *mu, const double *g, size_t M, double x)
{
    double s = g[0] * mu[0], t0 = 1.0, t1 = x;
    for (size_t n = 1; n < M; n++) {
        const double tn = n == 1 ? x : 2.0 * x * t1 - t0;
        if (n >= 2) {
            t0 = t1;
            t1 = tn;
        }
        s += 2.0 * g[n] * mu[n] * tn;
    }
    return s / (kt_pi * sqrt(1.0 - x * x));
}

static inline double kt_series_reg(const double *mu, const double *g, size_t M, double x)
{
    double s = 0.0, u0 = 1.0, u1 = 2.0 * x; /* U_0, U_1 */
    for (size_t n = 1; n < M; n++) {
        double un; /* U_{n-1} */
        if (n == 1)
            un = 1.0;
        else if (n == 2)
            un = 2.0 * x;
        else {
            un = 2.0 * x * u1 - u0;
            u0 = u1;
            u1 = un;
        }
        s += g[n] * mu[n] * un;
    }
    return -2.0 * s;
}

static inline double kt_max_abs(const double *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i]) > m)
            m = fabs(v[i]);
    return m;
}

static inline double kt_max_abs_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* p (of h's dimension and width, made by the caller) := h's table, on-site energies and
 * fixed bounds, without h's factors: the same Hamiltonian read as a plain table */
static inline void kt_copy_table(const mcf_hamiltonian *h, mcf_hamiltonian *p)
{
    const size_t slots = (size_t)h->width * h->dim;
    memcpy(p->col, h->col, slots * sizeof *p->col);
    memcpy(p->hop_re, h->hop_re, slots * sizeof *p->hop_re);
    memcpy(p->hop_im, h->hop_im, slots * sizeof *p->hop_im);
    memcpy(p->onsite, h->onsite, h->dim * sizeof *p->onsite);
    mcf_hamiltonian_fix_bounds(p, h->emin, h->emax);
    mcf_hamiltonian_touch_all(p);
}

#endif
