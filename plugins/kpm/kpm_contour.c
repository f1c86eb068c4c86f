/* kpm_contour.c — GFMC on a contour: the change of the grand-canonical fermion action
 * under a finite-rank change Delta = U C U^+ of the Hamiltonian, from the Chebyshev moment
 * matrix of the change's vectors, integrated on a Bernstein ellipse around the spectrum.
 * The derivation, the choice of the ellipse and the error bound are in kpm_core.h
 * ("GFMC on a contour"); docs/methods.md says why the real axis was given up.
 *
 * Not here: the Lorentz-kernel method on the real axis (kpm_gfmc.c, gfmc = real-axis), the
 * batching over chains and the parameters (kpm_ops.c). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fft_complex.h>

static const double kc_pi = 3.14159265358979323846;

#define KC_PAIRS (MCF_CHANGE_RANK * (MCF_CHANGE_RANK + 1) / 2)
#define KC_ROWS (MCF_CHANGE_RANK * MCF_CHANGE_ENTRIES) /* rows a change can touch */

struct kpm_contour {
    size_t dim, M, N, L;   /* moments, half-contour intervals (even), FFT length 2 N */
    double margin;
    double *v0, *v1;       /* 2 blocks of MCF_CHANGE_RANK complex vectors (rank >= 3) */
    kpm_engine *eng;       /* rank <= 2: the diagonal moments of 1 or 4 combinations */
    double *dmu;           /* 4 M of them */
    double *mu;            /* 2 K^2 M: the moment matrix */
    double *chi;           /* KC_PAIRS x 2 L: the transforms of the pairs a <= b */
    gsl_fft_complex_wavetable *wt;
    gsl_fft_complex_workspace *fw;
    /* what depends on (T, mu, a, b) only */
    int cached;
    double c_T, c_mu, c_a, c_b;
    double gamma, gamma_p, tau; /* the ellipse, the nearest pole, the quadrature strip */
    double rate;           /* the error falls as e^(-M rate) */
    size_t poles;          /* Fermi poles inside the ellipse (upper half; 0 normally) */
    size_t poles_cap;
    double complex *pole_t;/* t_n = z~_n - sqrt(z~_n^2 - 1) of each enclosed pole (|t| < 1) */
    double *damp;          /* M: 1/2, e^-gamma, e^-2 gamma, ... */
    double complex *fz;    /* N + 1: the Fermi function at z_j */
    double complex *wfac;  /* N + 1: -2i / (a sin(theta_j - i gamma)) */
    double complex *msphi; /* N + 1: -a sin(theta_j - i gamma) */
    double *afz;           /* N + 1: |f(z_j)| */
    /* the last plan (kpm_contour_plan_for) and what it was made for */
    int planned;
    double p_T, p_mu, p_a, p_b;
    kpm_contour_plan plan;
};

void kpm_contour_destroy(kpm_contour *g)
{
    if (!g)
        return;
    free(g->v0);
    free(g->v1);
    kpm_engine_destroy(g->eng);
    free(g->dmu);
    free(g->mu);
    free(g->chi);
    free(g->damp);
    free(g->fz);
    free(g->wfac);
    free(g->msphi);
    free(g->afz);
    free(g->pole_t);
    gsl_fft_complex_wavetable_free(g->wt);
    gsl_fft_complex_workspace_free(g->fw);
    free(g);
}

int kpm_contour_create(size_t dim, size_t M, size_t N, double margin, kpm_contour **out)
{
    *out = NULL;
    if (dim < 1 || M < 2)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC on a contour needs a Hamiltonian (dim %zu) and "
                        "at least 2 moments (moments = %zu)", dim, M);
    if (N == 0)
        N = M;
    if (N < M)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC on a contour with %zu moments needs "
                        "energy_points >= %zu (or 0 for %zu), not %zu", M, M, M, N);
    N += N % 2; /* the error estimate halves the nodes */
    kpm_contour *g = calloc(1, sizeof *g);
    if (!g)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the contour workspace");
    g->dim = dim;
    g->M = M;
    g->N = N;
    g->L = 2 * N;
    g->margin = margin;
    const size_t K = MCF_CHANGE_RANK;
    g->v0 = malloc(2 * K * dim * sizeof *g->v0);
    g->v1 = malloc(2 * K * dim * sizeof *g->v1);
    g->mu = malloc(2 * K * K * M * sizeof *g->mu);
    g->chi = malloc(KC_PAIRS * 2 * g->L * sizeof *g->chi);
    g->damp = malloc(M * sizeof *g->damp);
    g->fz = malloc((N + 1) * sizeof *g->fz);
    g->wfac = malloc((N + 1) * sizeof *g->wfac);
    g->msphi = malloc((N + 1) * sizeof *g->msphi);
    g->afz = malloc((N + 1) * sizeof *g->afz);
    g->wt = gsl_fft_complex_wavetable_alloc(g->L);
    g->fw = gsl_fft_complex_workspace_alloc(g->L);
    g->dmu = malloc(4 * M * sizeof *g->dmu);
    int erc = kpm_engine_create(dim, 4, &g->eng);
    if (erc || !g->v0 || !g->v1 || !g->mu || !g->chi || !g->damp || !g->fz ||
        !g->wt || !g->fw || !g->dmu || !g->wfac || !g->msphi || !g->afz) {
        kpm_contour_destroy(g);
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the contour workspace (dimension "
                        "%zu, %zu moments, %zu nodes)", dim, M, N);
    }
    *out = g;
    return MCF_OK;
}

/* ---- bounds: the spectrum of H' = H + Delta must lie inside the ellipse --------------- */

static size_t kc_find(const int64_t *R, size_t n, int64_t r)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t m = (lo + hi) / 2;
        if (R[m] < r)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && R[lo] == r ? lo : n;
}

static int kc_cmp(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Gershgorin's discs of the rows of H' that the change touches: [lo, hi]. */
static void kc_changed_rows_bounds(const mcf_hamiltonian *h, const mcf_change *c, double *lo,
                                   double *hi)
{
    int64_t R[KC_ROWS];
    size_t nR = 0;
    for (int a = 0; a < c->rank; a++)
        for (int e = 0; e < c->entries[a]; e++)
            R[nR++] = c->row[a][e];
    qsort(R, nR, sizeof *R, kc_cmp);
    size_t u = 0;
    for (size_t i = 0; i < nR; i++)
        if (!u || R[i] != R[u - 1])
            R[u++] = R[i];
    nR = u;
    /* U as a dense |R| x rank matrix and V = U C */
    static const double complex zero = 0.0;
    double complex Ud[KC_ROWS][MCF_CHANGE_RANK], V[KC_ROWS][MCF_CHANGE_RANK];
    for (size_t i = 0; i < nR; i++)
        for (int a = 0; a < c->rank; a++)
            Ud[i][a] = zero;
    for (int a = 0; a < c->rank; a++)
        for (int e = 0; e < c->entries[a]; e++)
            Ud[kc_find(R, nR, c->row[a][e])][a] = c->re[a][e] + I * c->im[a][e];
    for (size_t i = 0; i < nR; i++)
        for (int b = 0; b < c->rank; b++) {
            double complex s = 0.0;
            for (int a = 0; a < c->rank; a++)
                s += Ud[i][a] * (c->c_re[a][b] + I * c->c_im[a][b]);
            V[i][b] = s;
        }
    *lo = INFINITY;
    *hi = -INFINITY;
    const size_t dim = h->dim;
    for (size_t i = 0; i < nR; i++) {
        double complex D[KC_ROWS];
        unsigned char seen[KC_ROWS];
        for (size_t j = 0; j < nR; j++) {
            double complex s = 0.0;
            for (int b = 0; b < c->rank; b++)
                s += V[i][b] * conj(Ud[j][b]);
            D[j] = s;
            seen[j] = 0;
        }
        const size_t r = (size_t)R[i];
        const double centre = h->onsite[r] + creal(D[i]);
        double radius = 0.0;
        seen[i] = 1;
        for (int s = 0; s < h->width; s++) {
            const size_t sl = (size_t)s * dim + r;
            const int32_t col = h->col[sl];
            if (col < 0)
                continue;
            double complex v = h->hop_re[sl] + I * h->hop_im[sl];
            const size_t j = kc_find(R, nR, col);
            if (j < nR) {
                v += D[j];
                seen[j] = 1;
            }
            radius += cabs(v);
        }
        for (size_t j = 0; j < nR; j++)
            if (!seen[j])
                radius += cabs(D[j]);
        if (centre - radius < *lo)
            *lo = centre - radius;
        if (centre + radius > *hi)
            *hi = centre + radius;
    }
}

void kpm_contour_scaling(const mcf_hamiltonian *h, double a, double b, double margin,
                         const mcf_change *c, double *a2, double *b2)
{
    const double half = a * (1.0 - 0.5 * margin);
    const double emin = b - half, emax = b + half;
    double lo, hi;
    kc_changed_rows_bounds(h, c, &lo, &hi);
    if (lo >= emin && hi <= emax) {
        *a2 = a;
        *b2 = b;
        return;
    }
    const double mn = lo < emin ? lo : emin, mx = hi > emax ? hi : emax;
    *a2 = (mx - mn) / (2.0 - margin);
    *b2 = 0.5 * (mx + mn);
}

/* ---- the ellipse ------------------------------------------------------------------- */

/* The Fermi function 1 / (1 + e^y) at complex y, without overflow. */
static double complex kc_fermi(double complex y)
{
    if (creal(y) > 0.0) {
        const double complex e = cexp(-y);
        return e / (1.0 + e);
    }
    return 1.0 / (1.0 + cexp(y));
}

/* t = w - sqrt(w - 1) sqrt(w + 1), |t| <= 1: w = (t + 1/t) / 2, and log(1/|t|) is the
 * Bernstein parameter of w */
static double complex kc_bernstein_t(double complex w)
{
    double complex t = w - csqrt(w - 1.0) * csqrt(w + 1.0);
    if (cabs(t) > 1.0)
        t = 1.0 / t;
    return t;
}

/* the Bernstein parameter of the Fermi pole mu + i (2n + 1) pi T, rescaled */
static double kc_pole_gamma(double a, double b, double T, double mu, size_t n)
{
    const double complex w = ((mu - b) + I * (2.0 * (double)n + 1.0) * kc_pi * T) / a;
    return -log(cabs(kc_bernstein_t(w)));
}

double kpm_contour_pole_gamma(double a, double b, double T, double mu)
{
    return kc_pole_gamma(a, b, T, mu, 0);
}

#define KC_MAX_POLES 16 /* residues at most: each costs k^2 M operations */

/* The ellipse for (T, mu, a, b), the best of these placements by the rate at which its
 * error falls (the error ~ e^(-rate)):
 *   below the first Fermi pole (parameter gamma_0), no residues: gamma = 2N gamma_0 / (M + 2N)
 *     balances the series' truncation e^(-M gamma) and the quadrature's e^(-2N (gamma_0 -
 *     gamma)), rate M gamma;
 *   in the middle of the gap between poles n-1 and n (1 <= n <= KC_MAX_POLES), the n poles
 *     inside added as residues (kpm_core.h): the residue at the nearest pole converges as
 *     e^(-M gamma_0), the ellipse as e^(-M gamma), the quadrature as e^(-2N tau), tau half the
 *     gap, rate min(M gamma_0, M gamma, 2N tau).
 * With mu inside the band the poles are evenly spaced in gamma and the first gap wins
 * (rate M gamma_0 against 2/3 M gamma_0 at N = M); with mu outside the band at low T the poles
 * crowd together and the ellipse below them wins.  Every placement keeps gamma >= 8 pi / N,
 * so the N nodes follow the phase of d, which turns by ~pi over ~gamma in theta. */
static int kc_ellipse(kpm_contour *g, double a, double b, double T, double mu)
{
    const double M = (double)g->M, N = (double)g->N;
    const double gmin = 8.0 * kc_pi / N;
    double gam[KC_MAX_POLES + 1];
    for (size_t n = 0; n <= KC_MAX_POLES; n++)
        gam[n] = kc_pole_gamma(a, b, T, mu, n);
    g->gamma_p = gam[0];
    /* below the first pole */
    double best = -1.0, best_g = 0.0, best_tau = 0.0, best_rate = 0.0;
    size_t best_n = 0;
    {
        double gm = 2.0 * N * gam[0] / (M + 2.0 * N);
        if (gm < gmin)
            gm = gmin;
        if (gm < gam[0]) {
            const double tau = fmin(gm, gam[0] - gm);
            best = fmin(M * gm, 2.0 * N * tau);
            best_g = gm;
            best_tau = tau;
            best_rate = gm;
        }
    }
    for (size_t n = 1; n <= KC_MAX_POLES; n++) {
        const double gm = 0.5 * (gam[n - 1] + gam[n]), tau = 0.5 * (gam[n] - gam[n - 1]);
        if (gm < gmin)
            continue;
        const double r = fmin(fmin(M * gam[0], M * gm), 2.0 * N * tau);
        if (r > best) {
            best = r;
            best_g = gm;
            best_tau = tau;
            best_n = n;
            best_rate = fmin(gam[0], gm);
        }
    }
    if (best < 0.0) {
        /* every placement is too close to the spectrum for the nodes: the first gap beyond
         * 8 pi / N, whatever the count of poles inside it */
        double lo = gam[KC_MAX_POLES], hi = lo;
        size_t n = KC_MAX_POLES + 1;
        for (;; n++) {
            hi = kc_pole_gamma(a, b, T, mu, n);
            if (0.5 * (lo + hi) >= gmin)
                break;
            lo = hi;
            if (n >= (1u << 20))
                return mcf_fail(MCF_EINVAL, "kpm: GFMC: T = %g is too low for %zu contour "
                                "nodes (more than 2^20 Fermi poles lie closer to the spectrum "
                                "than 8 pi / N); raise moments or energy_points", T, g->N);
        }
        best_g = 0.5 * (lo + hi);
        best_tau = 0.5 * (hi - lo);
        best_n = n;
        best_rate = gam[0];
    }
    g->gamma = best_g;
    g->tau = best_tau;
    g->rate = best_rate;
    const size_t np = best_n;
    if (np > g->poles_cap) {
        double complex *p = realloc(g->pole_t, np * sizeof *p);
        if (!p)
            return mcf_fail(MCF_ENOMEM, "kpm: GFMC: out of memory for %zu poles", np);
        g->pole_t = p;
        g->poles_cap = np;
    }
    for (size_t k = 0; k < np; k++)
        g->pole_t[k] =
            kc_bernstein_t(((mu - b) + I * (2.0 * (double)k + 1.0) * kc_pi * T) / a);
    g->poles = np;
    return MCF_OK;
}

static int kc_prepare(kpm_contour *g, double a, double b, double T, double mu)
{
    if (g->cached && g->c_T == T && g->c_mu == mu && g->c_a == a && g->c_b == b)
        return MCF_OK;
    g->cached = 0;
    const size_t M = g->M, N = g->N;
    int rc = kc_ellipse(g, a, b, T, mu);
    if (rc)
        return rc;
    const double q = exp(-g->gamma);
    g->damp[0] = 0.5;
    double t = 1.0;
    for (size_t m = 1; m < M; m++) {
        t *= q;
        g->damp[m] = t;
    }
    const double ch = cosh(g->gamma), sh = sinh(g->gamma);
    for (size_t j = 0; j <= N; j++) {
        const double th = kc_pi * (double)j / (double)N;
        const double ct = j == N ? -1.0 : cos(th), st = j == 0 || j == N ? 0.0 : sin(th);
        const double complex sphi = st * ch - I * ct * sh; /* sin(theta_j - i gamma) */
        const double complex z = a * (ct * ch + I * st * sh) + b;
        g->fz[j] = kc_fermi((z - mu) / T);
        g->wfac[j] = -2.0 * I / (a * sphi);
        g->msphi[j] = -a * sphi;
        g->afz[j] = cabs(g->fz[j]);
    }
    g->cached = 1;
    g->c_T = T;
    g->c_mu = mu;
    g->c_a = a;
    g->c_b = b;
    return MCF_OK;
}

int kpm_contour_plan_for(kpm_contour *g, double a2, double b2, double T, double mu,
                         kpm_contour_plan *out)
{
    g->cached = 0; /* the nodes of kc_prepare follow the ellipse set here */
    if (g->planned && g->p_T == T && g->p_mu == mu && g->p_a == a2 && g->p_b == b2) {
        /* the same placement as last time (a change inside H's bounds, the same T and mu):
         * what kc_ellipse would set again */
        *out = g->plan;
        g->gamma = out->gamma;
        g->tau = out->tau;
        g->rate = out->rate;
        return MCF_OK;
    }
    g->planned = 0;
    int rc = kc_ellipse(g, a2, b2, T, mu);
    if (rc)
        return rc;
    out->gamma = g->gamma;
    out->tau = g->tau;
    out->rate = g->rate;
    out->N = g->N;
    out->M = g->M;
    out->too_many = g->poles > KPM_CONTOUR_PLAN_POLES;
    out->poles = out->too_many ? 0 : g->poles;
    for (size_t k = 0; k < out->poles; k++) {
        out->pole_re[k] = creal(g->pole_t[k]);
        out->pole_im[k] = cimag(g->pole_t[k]);
    }
    g->plan = *out;
    g->planned = 1;
    g->p_T = T;
    g->p_mu = mu;
    g->p_a = a2;
    g->p_b = b2;
    return MCF_OK;
}

/* LU with partial pivoting of the K x K matrix A (in place, row-major); the pivot rows into
 * perm; returns 0, or -1 on a zero pivot. */
static int kc_lu(double complex *A, int K, int *perm, int *swaps)
{
    *swaps = 0;
    for (int i = 0; i < K; i++)
        perm[i] = i;
    for (int c = 0; c < K; c++) {
        int p = c;
        double best = cabs(A[c * K + c]);
        for (int r = c + 1; r < K; r++)
            if (cabs(A[r * K + c]) > best) {
                best = cabs(A[r * K + c]);
                p = r;
            }
        if (!(best > 0.0))
            return -1;
        if (p != c) {
            for (int j = 0; j < K; j++) {
                const double complex t = A[c * K + j];
                A[c * K + j] = A[p * K + j];
                A[p * K + j] = t;
            }
            const int t = perm[c];
            perm[c] = perm[p];
            perm[p] = t;
            ++*swaps;
        }
        for (int r = c + 1; r < K; r++) {
            const double complex l = A[r * K + c] / A[c * K + c];
            A[r * K + c] = l;
            for (int j = c + 1; j < K; j++)
                A[r * K + j] -= l * A[c * K + j];
        }
    }
    return 0;
}

/* ||A^-1 B||_F from the LU of A (perm) for the K x K matrix B. */
static double kc_solve_norm(const double complex *LU, const int *perm, int K,
                            const double complex *B)
{
    double s = 0.0;
    for (int col = 0; col < K; col++) {
        double complex x[MCF_CHANGE_RANK];
        for (int i = 0; i < K; i++) {
            double complex v = B[perm[i] * K + col];
            for (int j = 0; j < i; j++)
                v -= LU[i * K + j] * x[j];
            x[i] = v;
        }
        for (int i = K - 1; i >= 0; i--) {
            double complex v = x[i];
            for (int j = i + 1; j < K; j++)
                v -= LU[i * K + j] * x[j];
            x[i] = v / LU[i * K + i];
            s += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
        }
    }
    return sqrt(s);
}

static void kc_combine(kpm_contour *g, size_t K, const double *dmu);

/* The moment matrix of the change's vectors into g->mu.  Rank 1 and 2 (every single-site
 * move of the models here): the engine's diagonal moments of u_0 [, u_1, u_0 + u_1,
 * u_0 + i u_1] (its fastest path, and what the GPU kernel computes), combined by
 * Hermiticity: mu^{01} = (P - i Q) / 2, P = mu[u_0 + u_1] - mu^{00} - mu^{11},
 * Q = mu[u_0 + i u_1] - mu^{00} - mu^{11}.  Rank 3..8: the pair sums of
 * kpm_moment_matrix. */
static int kc_moments(kpm_contour *g, const mcf_hamiltonian *h, double a, double b,
                      const mcf_change *c)
{
    const size_t M = g->M, dim = g->dim, K = (size_t)c->rank;
    if (K >= 3) {
        memset(g->v0, 0, 2 * K * dim * sizeof *g->v0);
        for (size_t q = 0; q < K; q++)
            for (int e = 0; e < c->entries[q]; e++) {
                double *x = g->v0 + 2 * K * (size_t)c->row[q][e];
                x[q] += c->re[q][e];
                x[K + q] += c->im[q][e];
            }
        return kpm_moment_matrix(h, a, b, K, M, g->v0, g->v1, g->mu);
    }
    const size_t nv = K == 1 ? 1 : 4;
    double *v = kpm_engine_start(g->eng);
    memset(v, 0, 2 * nv * dim * sizeof *v);
    for (size_t q = 0; q < K; q++)
        for (int e = 0; e < c->entries[q]; e++)
            kpm_combo_add(v, nv, (int)q, (size_t)c->row[q][e], c->re[q][e], c->im[q][e]);
    int rc = kpm_moments_diag(g->eng, h, a, b, nv, M, g->dmu);
    if (rc)
        return rc;
    kc_combine(g, K, g->dmu);
    return MCF_OK;
}

/* mu^{pq} of rank K <= 2 from the diagonal moments dmu (1 or 4 sets of M, as above) */
static void kc_combine(kpm_contour *g, size_t K, const double *dmu)
{
    const size_t M = g->M;
    double *mu = g->mu;
    for (size_t n = 0; n < M; n++) {
        const double d0 = dmu[n];
        if (K == 1) {
            mu[2 * n] = d0;
            mu[2 * n + 1] = 0.0;
            continue;
        }
        const double d1 = dmu[M + n], P = dmu[2 * M + n] - d0 - d1,
                     Q = dmu[3 * M + n] - d0 - d1;
        mu[2 * (0 * M + n)] = d0;
        mu[2 * (0 * M + n) + 1] = 0.0;
        mu[2 * (1 * M + n)] = 0.5 * P;       /* (0, 1) */
        mu[2 * (1 * M + n) + 1] = -0.5 * Q;
        mu[2 * (2 * M + n)] = 0.5 * P;       /* (1, 0) */
        mu[2 * (2 * M + n) + 1] = 0.5 * Q;
        mu[2 * (3 * M + n)] = d1;
        mu[2 * (3 * M + n) + 1] = 0.0;
    }
}

static int kc_finish(kpm_contour *g, double a2, double b2, const mcf_change *c, double T,
                     double mu, double *dS, double *err);

int kpm_contour_delta_action(kpm_contour *g, const mcf_hamiltonian *h, double a, double b,
                             const mcf_change *c, double T, double mu, double *dS,
                             double *err)
{
    if (!h || h->dim != g->dim)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: the Hamiltonian's dimension %zu differs from "
                        "the workspace's %zu", h ? h->dim : 0, g->dim);
    int rc = mcf_change_check(c, g->dim);
    if (rc)
        return mcf_fail_prefix(rc, "kpm: GFMC");
    if (!(T > 0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: temperature T = %g must be finite and > 0, "
                        "and mu = %g finite", T, mu);
    /* the scale of H and H' together: the ellipse must enclose both spectra */
    double a2, b2;
    kpm_contour_scaling(h, a, b, g->margin, c, &a2, &b2);
    if ((rc = kc_moments(g, h, a2, b2, c)))
        return mcf_fail_prefix(rc, "kpm: GFMC");
    return kc_finish(g, a2, b2, c, T, mu, dS, err);
}

int kpm_contour_finish_diag(kpm_contour *g, double a2, double b2, const mcf_change *c,
                            const double *dmu, double T, double mu, double *dS, double *err)
{
    if (c->rank < 1 || c->rank > 2)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: diagonal moments serve changes of rank 1 and "
                        "2, not %d", c->rank);
    kc_combine(g, (size_t)c->rank, dmu);
    return kc_finish(g, a2, b2, c, T, mu, dS, err);
}

/* everything after the moments: the ellipse, the transforms, the nodes, the poles */
static int kc_finish(kpm_contour *g, double a2, double b2, const mcf_change *c, double T,
                     double mu, double *dS, double *err)
{
    int rc;
    if ((rc = kc_prepare(g, a2, b2, T, mu)))
        return rc;

    const int K = c->rank;
    const size_t Kz = (size_t)K, M = g->M, N = g->N, L = g->L;
    /* chi^{pq}_j = sum_m c_m e^{-2 pi i m j / L}, c_0 = mu_0 / 2, c_m = mu_m e^{-m gamma} */
    size_t t = 0;
    for (size_t p = 0; p < Kz; p++)
        for (size_t q = p; q < Kz; q++, t++) {
            double *x = g->chi + t * 2 * L;
            const double *m = g->mu + 2 * ((p * Kz + q) * M);
            for (size_t n = 0; n < M; n++) {
                x[2 * n] = m[2 * n] * g->damp[n];
                x[2 * n + 1] = m[2 * n + 1] * g->damp[n];
            }
            memset(x + 2 * M, 0, 2 * (L - M) * sizeof *x);
            if (gsl_fft_complex_forward(x, 1, L, g->wt, g->fw))
                return mcf_fail(MCF_EINTERNAL, "kpm: GFMC: the FFT of length %zu failed", L);
        }

    double complex C[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
    for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++)
            C[p * K + q] = c->c_re[p][q] + I * c->c_im[p][q];
    double su = 0.0; /* sum_a |u_a|^2 */
    for (size_t p = 0; p < Kz; p++)
        su += g->mu[2 * ((p * Kz + p) * M)];

    double q_fine = 0.0, q_coarse = 0.0, e_trunc = 0.0, phase = 0.0, max_step = 0.0;
    double f_max = 0.0;
    double complex prev = 1.0;
    const double h_th = kc_pi / (double)N;
    for (size_t j = 0; j <= N; j++) {
        /* (C / a) W~ with W~_pq(z_j) = -2 i chi^{pq}_j / sin(phi_j) (the factor -2i / (a
         * sin phi_j) is the cached wfac[j]) and W~_qp from the conjugate node */
        const double complex wf = g->wfac[j];
        const size_t jc = (L - j) % L;
        double complex Wm[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        t = 0;
        for (int p = 0; p < K; p++)
            for (int q = p; q < K; q++, t++) {
                const double *x = g->chi + t * 2 * L;
                Wm[p * K + q] = wf * CMPLX(x[2 * j], x[2 * j + 1]);
                if (q != p)
                    Wm[q * K + p] = wf * CMPLX(x[2 * jc], -x[2 * jc + 1]);
            }
        double complex A[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        for (int p = 0; p < K; p++)
            for (int q = 0; q < K; q++) {
                double complex v = 0.0;
                for (int r = 0; r < K; r++)
                    v += C[p * K + r] * Wm[r * K + q];
                A[p * K + q] = (p == q ? 1.0 : 0.0) - v;
            }
        /* d = det A: its log modulus and its phase, followed node by node, and
         * ||A^-1 C||_F for the error bound */
        double logabs, xnorm;
        double complex d;
        if (K <= 2) {
            /* closed forms: A^-1 = adj(A) / d */
            double complex adjC[4] = {C[0], 0, 0, 0};
            if (K == 1) {
                d = A[0];
            } else {
                d = A[0] * A[3] - A[1] * A[2];
                adjC[0] = A[3] * C[0] - A[1] * C[2];
                adjC[1] = A[3] * C[1] - A[1] * C[3];
                adjC[2] = A[0] * C[2] - A[2] * C[0];
                adjC[3] = A[0] * C[3] - A[2] * C[1];
            }
            const double d2 = creal(d) * creal(d) + cimag(d) * cimag(d);
            if (!(d2 > 0.0))
                return mcf_fail(MCF_EINVAL, "kpm: GFMC: det(1 - G Delta) vanishes on the "
                                "contour at node %zu: the change is not Hermitian or the "
                                "Hamiltonian is damaged", j);
            logabs = 0.5 * log(d2);
            double ss = 0.0;
            for (int k = 0; k < K * K; k++)
                ss += creal(adjC[k]) * creal(adjC[k]) + cimag(adjC[k]) * cimag(adjC[k]);
            xnorm = sqrt(ss / d2);
        } else {
            int perm[MCF_CHANGE_RANK], swaps;
            if (kc_lu(A, K, perm, &swaps))
                return mcf_fail(MCF_EINVAL, "kpm: GFMC: det(1 - G Delta) vanishes on the "
                                "contour at node %zu: the change is not Hermitian or the "
                                "Hamiltonian is damaged", j);
            logabs = 0.0;
            d = swaps % 2 ? -1.0 : 1.0;
            for (int p = 0; p < K; p++) {
                const double complex u = A[p * K + p];
                const double au = cabs(u);
                logabs += log(au);
                d *= u / au;
            }
            xnorm = kc_solve_norm(A, perm, K, C);
        }
        /* the phase of d: the step from the previous node (only the direction matters) */
        const double step = j == 0 ? carg(d) : carg(d * conj(prev));
        if (j > 0 && fabs(step) > max_step)
            max_step = fabs(step);
        phase += step;
        prev = d;
        const double complex Fj = g->fz[j] * CMPLX(logabs, phase) * g->msphi[j];
        const double imF = cimag(Fj);
        const double aF = creal(Fj) * creal(Fj) + cimag(Fj) * cimag(Fj);
        if (aF > f_max)
            f_max = aF; /* squared until the end */
        const double w = j == 0 || j == N ? 0.5 : 1.0;
        q_fine += w * imF;
        if (j % 2 == 0)
            q_coarse += w * imF;
        /* first-order propagation of the series' tail: |dL| <= ||A^-1 C / a||_F ||dW~||_F */
        e_trunc += w * g->afz[j] * xnorm;
    }
    if (max_step > 2.0 || fabs(phase) > 1.0) {
        /* the phase of d turns by ~pi over ~gamma in theta: the nodes, pi/N apart, follow it
         * when N gamma >= 8 pi (kc_ellipse); a change that moves many levels far may need
         * more */
        return mcf_fail(MCF_EINVAL,
                        "kpm: GFMC: the %zu contour nodes do not follow the phase of det(1 - G "
                        "Delta) (largest step %.2f rad, end phase %.3g instead of 0) at T = %g, "
                        "mu = %g: the change moves levels by more than the contour's distance "
                        "%.3g (rescaled) resolves; raise energy_points (now %zu)",
                        N, max_step, phase, T, mu, g->gamma, N);
    }
    const double pref = 1.0 / (kc_pi * T);
    const double tail = 2.0 * su * exp(-(double)M * g->gamma) / -expm1(-g->gamma);
    /* the trapezoidal rule's error on N/2 intervals is ~e^(-N tau), on N ~e^(-2 N tau): the
     * difference of the two estimates the coarse error, its square ratio the fine one; before
     * that regime (N tau < 8) the difference itself is reported */
    const double dq = pref * fabs(h_th * q_fine - 2.0 * h_th * q_coarse);
    const double e_half = (double)N * g->tau >= 8.0 ? dq * exp(-(double)N * g->tau) : dq;
    /* and the trapezoidal rule's own bound for a periodic function analytic in a strip of
     * half-width tau: 2 pi max|F| e^(-2N tau) / (1 - e^(-2N tau)) (max|F| on the contour
     * stands in for its maximum on the strip's edge); halving alone can be fooled when the
     * coarse and fine rules err alike */
    const double r2 = exp(-2.0 * (double)N * g->tau);
    const double e_strip = pref * 2.0 * kc_pi * sqrt(f_max) * r2 / (1.0 - r2);
    const double e_quad = e_half > e_strip ? e_half : e_strip;
    double ds = -pref * h_th * q_fine, e = pref * h_th * e_trunc * tail + e_quad;
    /* the Fermi poles inside the ellipse: dS -= 2 log|d(mu + i (2n + 1) pi T)| each, W~ from
     * the undamped series at the pole, W~ = 4 t chi / (1 - t^2), chi = sum_m c_m t^m */
    for (size_t k = 0; k < g->poles; k++) {
        const double complex tp = g->pole_t[k];
        double complex Wm[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        for (int p = 0; p < K; p++)
            for (int q = 0; q < K; q++) {
                const double *m = g->mu + 2 * (((size_t)p * Kz + (size_t)q) * M);
                double complex chi = 0.0;
                for (size_t n = M; n-- > 1;)
                    chi = (chi + (m[2 * n] + I * m[2 * n + 1])) * tp;
                chi += 0.5 * (m[0] + I * m[1]);
                Wm[p * K + q] = 4.0 * tp * chi / (1.0 - tp * tp);
            }
        double complex A[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        for (int p = 0; p < K; p++)
            for (int q = 0; q < K; q++) {
                double complex v = 0.0;
                for (int r = 0; r < K; r++)
                    v += C[p * K + r] * Wm[r * K + q];
                A[p * K + q] = (p == q ? 1.0 : 0.0) - v / a2;
            }
        int perm[MCF_CHANGE_RANK], swaps;
        if (kc_lu(A, K, perm, &swaps))
            return mcf_fail(MCF_EINVAL, "kpm: GFMC: det(1 - G Delta) vanishes at the Fermi pole "
                            "%zu: too few moments for T = %g; raise moments", k, T);
        double logabs = 0.0;
        for (int p = 0; p < K; p++)
            logabs += log(cabs(A[p * K + p]));
        ds -= 2.0 * logabs;
        /* |dW~| <= 2 su |t|^M / ((1 - |t|) |sin phi|), sin phi = (1/t - t) / (2i) */
        const double at = cabs(tp), sphi = cabs((1.0 / tp - tp) * 0.5);
        const double dW = 2.0 * su * pow(at, (double)M) / ((1.0 - at) * sphi);
        e += 2.0 * kc_solve_norm(A, perm, K, C) / a2 * dW;
    }
    *dS = ds;
    if (err)
        *err = e;
    return MCF_OK;
}

double kpm_contour_moments_for(const kpm_contour *g, double err, double target)
{
    /* the chosen placement's rate (kc_ellipse) */
    const double rate = g->rate;
    if (!(err > target) || !(rate > 0.0))
        return (double)g->M;
    return (double)g->M + log(err / target) / rate;
}
