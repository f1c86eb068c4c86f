/* kpm_contour.c — GFMC on a contour: the change of the grand-canonical fermion action
 * under a finite-rank change Delta = U C U^+ of the Hamiltonian, from the Chebyshev moment
 * matrix of the change's vectors, integrated on a Bernstein ellipse around the spectrum.
 * The derivation, the choice of the ellipse and the error bound are in kpm_core.h
 * ("GFMC on a contour"); docs/methods.md says why the real axis was given up.
 *
 * Here: the workspace, the bounds of the changed spectrum, the placement of the ellipse,
 * its Fermi poles and nodes, and the plan the GPU finishes with.  The moments and the
 * integral on the ellipse (the finish) are in kpm_contour_finish.c.
 *
 * Not here: the Lorentz-kernel method on the real axis (kpm_gfmc.c, gfmc = real-axis), the
 * batching over chains and the parameters (kpm_ops.c). */
#include "kpm_contour_impl.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double kc_pi = 3.14159265358979323846;

#define KC_PAIRS (MCF_CHANGE_RANK * (MCF_CHANGE_RANK + 1) / 2)
#define KC_ROWS (MCF_CHANGE_RANK * MCF_CHANGE_ENTRIES) /* rows a change can touch */

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
    /* the poles' parameters, computed as far as needed: no gap can beat the cap M gamma_0, so
     * the search stops once a placement reaches it (the usual case: mu in the band, the
     * first gap) — the same choice as a search over all of them, at a fraction of the cost,
     * which a device evaluator pays per chain and step */
    double gam[KC_MAX_POLES + 1];
    size_t known = 1;
    gam[0] = kc_pole_gamma(a, b, T, mu, 0);
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
    for (size_t n = 1; n <= KC_MAX_POLES && !(best >= M * gam[0]); n++) {
        gam[n] = kc_pole_gamma(a, b, T, mu, n);
        known = n + 1;
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
        for (; known <= KC_MAX_POLES; known++)
            gam[known] = kc_pole_gamma(a, b, T, mu, known);
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

int kc_prepare(kpm_contour *g, double a, double b, double T, double mu)
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

double kpm_contour_moments_for(const kpm_contour *g, double err, double target)
{
    /* the chosen placement's rate (kc_ellipse) */
    const double rate = g->rate;
    if (!(err > target) || !(rate > 0.0))
        return (double)g->M;
    return (double)g->M + log(err / target) / rate;
}
