/* kpm_gfmc.c — Green's-function Monte Carlo: the change of the grand-canonical fermion
 * action under a low-rank change of the Hamiltonian, from kernel-damped Chebyshev
 * expansions of a few diagonal Green's functions.  The formulas are in kpm_core.h. */
#include "kpm_core.h"

#include "mcf/error.h"
#include "mcf/log.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_integration.h>

static const double gfmc_pi = 3.14159265358979323846;

#define GFMC_VECTORS 4       /* k^2 for rank k <= 2 */
#define GFMC_GL_POINTS 8     /* Gauss-Legendre points per sub-panel of the weights */
#define GFMC_FERMI_WINDOW 40 /* f differs from the step by < e^-40 beyond 40 T of mu */

struct kpm_gfmc {
    size_t dim, M, Mtot, N;
    kpm_kernel kernel;
    double lambda;
    int extrapolate;
    kpm_engine *eng;
    kpm_dct *dct;
    double *mu;       /* GFMC_VECTORS x Mtot diagonal moments */
    double *g_lo;     /* M kernel coefficients (order M) */
    double *g_hi;     /* Mtot coefficients (order 2M; extrapolate only) */
    double *gre, *gim;/* GFMC_VECTORS x N: the diagonal Green's functions at the nodes */
    double *E;        /* N ascending energies of the nodes */
    double *w;        /* N quadrature weights: int f phi dE = sum_i w_i phi_i */
    int w_valid;
    double w_T, w_mu, w_a, w_b;
};

void kpm_gfmc_destroy(kpm_gfmc *g)
{
    if (!g)
        return;
    kpm_engine_destroy(g->eng);
    kpm_dct_destroy(g->dct);
    free(g->mu);
    free(g->g_lo);
    free(g->g_hi);
    free(g->gre);
    free(g->gim);
    free(g->E);
    free(g->w);
    free(g);
}

int kpm_gfmc_create(size_t dim, size_t M, size_t N, kpm_kernel kernel, double lambda,
                    int extrapolate, kpm_gfmc **out)
{
    *out = NULL;
    if (dim < 1 || M < 2)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC needs a Hamiltonian (dim %zu) and at least 2 "
                        "moments (moments = %zu)", dim, M);
    const size_t Mtot = extrapolate ? 2 * M : M;
    if (N == 0)
        N = 2 * Mtot;
    if (N < Mtot)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC with %zu moments%s needs energy_points >= %zu "
                        "(or 0 for %zu), not %zu", Mtot,
                        extrapolate ? " (2 x moments: extrapolate = true)" : "", Mtot,
                        2 * Mtot, N);
    kpm_gfmc *g = calloc(1, sizeof *g);
    if (!g)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the GFMC workspace");
    g->dim = dim;
    g->M = M;
    g->Mtot = Mtot;
    g->N = N;
    g->kernel = kernel;
    g->lambda = lambda;
    g->extrapolate = extrapolate;
    int rc;
    if ((rc = kpm_engine_create(dim, GFMC_VECTORS, &g->eng)) ||
        (rc = kpm_dct_create(N, Mtot, &g->dct))) {
        kpm_gfmc_destroy(g);
        return rc;
    }
    g->mu = malloc(GFMC_VECTORS * Mtot * sizeof *g->mu);
    g->g_lo = malloc(M * sizeof *g->g_lo);
    g->g_hi = malloc(Mtot * sizeof *g->g_hi);
    g->gre = malloc(GFMC_VECTORS * N * sizeof *g->gre);
    g->gim = malloc(GFMC_VECTORS * N * sizeof *g->gim);
    g->E = malloc(N * sizeof *g->E);
    g->w = malloc(N * sizeof *g->w);
    if (!g->mu || !g->g_lo || !g->g_hi || !g->gre || !g->gim || !g->E || !g->w) {
        kpm_gfmc_destroy(g);
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the GFMC workspace (%zu moments, "
                        "%zu points)", Mtot, N);
    }
    kpm_kernel_coefficients(kernel, lambda, M, g->g_lo);
    kpm_kernel_coefficients(kernel, lambda, Mtot, g->g_hi);
    *out = g;
    return MCF_OK;
}

double kpm_gfmc_resolution(const kpm_gfmc *g, double a)
{
    const double M = (double)g->M;
    return g->kernel == KPM_KERNEL_LORENTZ ? g->lambda * a / M : gfmc_pi * a / M;
}

double kpm_fermi(double y)
{
    if (y > 0) {
        const double e = exp(-y);
        return e / (1.0 + e);
    }
    return 1.0 / (1.0 + exp(y));
}

/* Adds the integral of f(E) times the linear hat functions of nodes i, i+1 over
 * [lo, hi] (inside [E_i, E_{i+1}]) with `panels` Gauss-Legendre sub-panels. */
static void gfmc_weights_panel(const gsl_integration_glfixed_table *gl, const double *E,
                               double *w, size_t i, double lo, double hi, size_t panels,
                               double T, double mu)
{
    const double Ei = E[i], h = E[i + 1] - E[i];
    const double step = (hi - lo) / (double)panels;
    for (size_t p = 0; p < panels; p++) {
        const double a = lo + (double)p * step, b = p + 1 == panels ? hi : a + step;
        for (size_t q = 0; q < GFMC_GL_POINTS; q++) {
            double x, wq;
            gsl_integration_glfixed_point(a, b, q, &x, &wq, gl);
            const double fw = wq * kpm_fermi((x - mu) / T);
            const double t = (x - Ei) / h;
            w[i] += fw * (1.0 - t);
            w[i + 1] += fw * t;
        }
    }
}

int kpm_fermi_weights(const double *E, size_t N, double T, double mu, double *w)
{
    if (N < 2 || !(T > 0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "kpm: Fermi weights need N >= 2 nodes (%zu), a finite "
                        "T > 0 (%g) and a finite mu (%g)", N, T, mu);
    gsl_integration_glfixed_table *gl = gsl_integration_glfixed_table_alloc(GFMC_GL_POINTS);
    if (!gl)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for a Gauss-Legendre table");
    memset(w, 0, N * sizeof *w);
    const double wlo = mu - GFMC_FERMI_WINDOW * T, whi = mu + GFMC_FERMI_WINDOW * T;
    const double panel = 0.5 * T;
    for (size_t i = 0; i + 1 < N; i++) {
        const double lo = E[i], hi = E[i + 1];
        /* outside the Fermi window f is 1 or 0 to e^-40: one panel integrates the linear
         * pieces exactly; inside it, sub-panels no wider than T/2 */
        const double clo = lo > wlo ? lo : wlo, chi = hi < whi ? hi : whi;
        if (chi <= clo) {
            gfmc_weights_panel(gl, E, w, i, lo, hi, 1, T, mu);
            continue;
        }
        if (clo > lo)
            gfmc_weights_panel(gl, E, w, i, lo, clo, 1, T, mu);
        double np = ceil((chi - clo) / panel);
        if (np > 1e6)
            np = 1e6;
        gfmc_weights_panel(gl, E, w, i, clo, chi, np < 1 ? 1 : (size_t)np, T, mu);
        if (hi > chi)
            gfmc_weights_panel(gl, E, w, i, chi, hi, 1, T, mu);
    }
    gsl_integration_glfixed_table_free(gl);
    return MCF_OK;
}

/* Quadrature weights for T, mu on the grid of scale a, b (cached). */
static int gfmc_weights(kpm_gfmc *g, double a, double b, double T, double mu)
{
    if (g->w_valid && g->w_T == T && g->w_mu == mu && g->w_a == a && g->w_b == b)
        return MCF_OK;
    kpm_dct_energies(g->dct, a, b, g->E);
    int rc = kpm_fermi_weights(g->E, g->N, T, mu, g->w);
    if (rc)
        return rc;
    g->w_valid = 1;
    g->w_T = T;
    g->w_mu = mu;
    g->w_a = a;
    g->w_b = b;
    return MCF_OK;
}

/* The start block of the k^2 vectors: u_0 [, u_1, u_0 + u_1, u_0 + i u_1]. */
static size_t gfmc_start(kpm_gfmc *g, const mcf_local_change *c)
{
    const size_t nv = c->rank == 1 ? 1 : GFMC_VECTORS;
    double *v = kpm_engine_start(g->eng);
    memset(v, 0, 2 * nv * g->dim * sizeof *v);
    for (int a = 0; a < c->rank; a++)
        for (int e = 0; e < c->entries[a]; e++)
            kpm_combo_add(v, nv, a, (size_t)c->row[a][e], c->re[a][e], c->im[a][e]);
    return nv;
}

/* (1 / (pi T)) int f Im log d dE with the kernel g of `order` moments. */
static int gfmc_integral(kpm_gfmc *g, const mcf_local_change *c, size_t nv, const double *gk,
                         size_t order, double a, double T, double *out)
{
    const size_t N = g->N;
    for (size_t j = 0; j < nv; j++) {
        int rc = kpm_dct_green(g->dct, g->mu + j * g->Mtot, NULL, gk, order, a,
                               g->gre + j * N, g->gim + j * N);
        if (rc)
            return rc;
    }
    double complex C[2][2];
    for (int p = 0; p < c->rank; p++)
        for (int q = 0; q < c->rank; q++)
            C[p][q] = c->c_re[p][q] + I * c->c_im[p][q];
    double sum = 0.0, phi = 0.0;
    double complex dprev = 1.0;
    for (size_t i = 0; i < N; i++) {
        double complex d;
        const double complex G0 = g->gre[i] + I * g->gim[i];
        if (nv == 1) {
            d = 1.0 - C[0][0] * G0;
        } else {
            const double complex G1 = g->gre[N + i] + I * g->gim[N + i];
            const double complex G2 = g->gre[2 * N + i] + I * g->gim[2 * N + i];
            const double complex G3 = g->gre[3 * N + i] + I * g->gim[3 * N + i];
            const double complex P = G2 - G0 - G1, Q = G3 - G0 - G1;
            const double complex W[2][2] = {{G0, 0.5 * (P - I * Q)}, {0.5 * (P + I * Q), G1}};
            double complex A[2][2];
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 2; q++)
                    A[p][q] = C[p][0] * W[0][q] + C[p][1] * W[1][q];
            d = (1.0 - A[0][0]) * (1.0 - A[1][1]) - A[0][1] * A[1][0];
        }
        /* the continuous branch of arg d, from d ~ 1 below the spectrum */
        phi = i == 0 ? carg(d) : phi + carg(d * conj(dprev));
        dprev = d;
        sum += g->w[i] * phi;
    }
    /* above the spectrum N' = N, so the branch must come back to ~0; a multiple of 2 pi
     * left over means the grid missed a phase jump */
    if (!(fabs(phi) < 1.0))
        return mcf_fail(MCF_EINVAL,
                        "kpm: GFMC: Im log d(E) ends at %.3g instead of 0 above the spectrum "
                        "(energy grid of %zu points): the change moved a level out of H's "
                        "spectral bounds, beyond the grid (what a traceful change such as an "
                        "on-site shift does; no energy_points or lambda brings it back); the "
                        "real axis cannot take this change: set [evaluator] gfmc = contour "
                        "(the default), which widens its scale per change",
                        phi, N);
    *out = sum / (gfmc_pi * T);
    return MCF_OK;
}

int kpm_change_to_local(const mcf_change *c, mcf_local_change *out)
{
    if (!c || c->rank < 1 || c->rank > MCF_CHANGE_MAX_RANK)
        return 0;
    for (int a = 0; a < c->rank; a++)
        if (c->entries[a] < 1 || c->entries[a] > MCF_CHANGE_MAX_ENTRIES)
            return 0;
    memset(out, 0, sizeof *out);
    out->rank = c->rank;
    for (int a = 0; a < c->rank; a++) {
        out->entries[a] = c->entries[a];
        for (int e = 0; e < c->entries[a]; e++) {
            out->row[a][e] = c->row[a][e];
            out->re[a][e] = c->re[a][e];
            out->im[a][e] = c->im[a][e];
        }
        for (int b = 0; b < c->rank; b++) {
            out->c_re[a][b] = c->c_re[a][b];
            out->c_im[a][b] = c->c_im[a][b];
        }
    }
    return 1;
}

int kpm_gfmc_delta_action(kpm_gfmc *g, const mcf_hamiltonian *h, double a, double b,
                          const mcf_local_change *c, double T, double mu, double *dS,
                          double *dS_M, double *dS_2M)
{
    if (!h || h->dim != g->dim)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: the Hamiltonian's dimension %zu differs from "
                        "the workspace's %zu", h ? h->dim : 0, g->dim);
    int rc = mcf_local_change_check(c, g->dim);
    if (rc)
        return mcf_fail_prefix(rc, "kpm: GFMC");
    if (!(T > 0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: temperature T = %g must be finite and > 0, "
                        "and mu = %g finite", T, mu);
    if ((rc = gfmc_weights(g, a, b, T, mu)))
        return mcf_fail_prefix(rc, "kpm: GFMC");
    const size_t nv = gfmc_start(g, c);
    if ((rc = kpm_moments_diag(g->eng, h, a, b, nv, g->Mtot, g->mu)))
        return mcf_fail_prefix(rc, "kpm: GFMC");
    /* kpm_moments_diag wrote vector j's moments at j * Mtot: the layout gfmc_integral reads */
    double lo;
    if ((rc = gfmc_integral(g, c, nv, g->g_lo, g->M, a, T, &lo)))
        return rc;
    if (!g->extrapolate) {
        *dS = lo;
        if (dS_M)
            *dS_M = lo;
        if (dS_2M)
            *dS_2M = NAN;
        return MCF_OK;
    }
    double hi;
    if ((rc = gfmc_integral(g, c, nv, g->g_hi, g->Mtot, a, T, &hi)))
        return rc;
    *dS = 2.0 * hi - lo;
    if (dS_M)
        *dS_M = lo;
    if (dS_2M)
        *dS_2M = hi;
    return MCF_OK;
}

void kpm_gfmc_warn_resolution(double res, double T, size_t M, int extrapolate,
                              double *warned_T, const char *who)
{
    /* the kernel blurs every level over res = lambda a / M; the error of dS this leaves
     * was measured (tests/kpm/test_kpm_gfmc.c, docs/methods.md) to be about 0.12 res / T,
     * and with the two-point estimate about 0.006 (res / T)^2: warn when that exceeds
     * 0.05, a 5% error of the acceptance ratio */
    const double q = T > 0 ? res / T : 0.0;
    const double err = extrapolate ? 0.006 * q * q : 0.12 * q;
    if (!(err > 0.05) || *warned_T == T)
        return;
    *warned_T = T;
    /* once per process for a T, M and method (the first 64 such): the chains (workspaces)
     * at one temperature share the advice (a benchmark of 64 workspaces printed it 64
     * times per lattice) */
    static struct { double T; size_t M; int extrapolate; } seen[64];
    static size_t n_seen;
    int repeated = 0;
#pragma omp critical(kpm_gfmc_warn_resolution)
    {
        for (size_t k = 0; k < n_seen && !repeated; k++)
            repeated = seen[k].T == T && seen[k].M == M && seen[k].extrapolate == extrapolate;
        if (!repeated && n_seen < 64) {
            seen[n_seen].T = T;
            seen[n_seen].M = M;
            seen[n_seen++].extrapolate = extrapolate;
        }
    }
    if (repeated)
        return;
    /* the smallest M with err <= 0.05, rounded up to a power of 2 */
    const double need = extrapolate ? (double)M * q / sqrt(0.05 / 0.006)
                                    : (double)M * q * 0.12 / 0.05;
    double m2 = 2;
    while (m2 < need)
        m2 *= 2;
    mcf_log(MCF_LOG_WARN,
            "%s: GFMC at T = %.3g with moments = %zu%s: the Lorentz kernel's resolution "
            "lambda a / M = %.3g is %.1f T, which biases dS by about %.2f (measured: 0.12 "
            "res/T, two-point 0.006 (res/T)^2); use moments >= %.0f%s",
            who, T, M, extrapolate ? " (extrapolate = true)" : "", res, q, err, m2,
            extrapolate ? "" : " or extrapolate = true");
}
