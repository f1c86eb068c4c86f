/* kpm_dct.c — reconstruction from moments by FFT: the density, Green's functions and the
 * density's mean and error at the N Chebyshev nodes (kpm_core.h, "reconstruction on the
 * Chebyshev nodes"). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fft_complex.h>

static const double kpm_pi = 3.14159265358979323846;

/* ---- reconstruction ---------------------------------------------------------------- */

struct kpm_dct {
    size_t N, M;
    double *data;       /* 2 N complex (4 N doubles) */
    double *ph;         /* M pairs cos, sin of pi n / (2 N) */
    double *isin;       /* N: 1 / sin theta_k, node order k */
    double *x;          /* N ascending nodes */
    double *tmp;        /* N scratch */
    gsl_fft_complex_wavetable *wt;
    gsl_fft_complex_workspace *ws;
};

int kpm_dct_create(size_t N, size_t M, kpm_dct **out)
{
    *out = NULL;
    if (N < 1 || M < 1 || M > N)
        return mcf_fail(MCF_EINVAL, "kpm: reconstruction with %zu points and %zu moments is "
                        "invalid: it needs 1 <= moments <= points", N, M);
    kpm_dct *d = calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the reconstruction plan");
    d->N = N;
    d->M = M;
    d->data = malloc(4 * N * sizeof *d->data);
    d->ph = malloc(2 * M * sizeof *d->ph);
    d->isin = malloc(N * sizeof *d->isin);
    d->x = malloc(N * sizeof *d->x);
    d->tmp = malloc(N * sizeof *d->tmp);
    if (d->data && d->ph && d->isin && d->x && d->tmp) {
        d->wt = gsl_fft_complex_wavetable_alloc(2 * N);
        d->ws = gsl_fft_complex_workspace_alloc(2 * N);
    }
    if (!d->wt || !d->ws) {
        kpm_dct_destroy(d);
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for an FFT of length %zu", 2 * N);
    }
    const double Nd = (double)N;
    for (size_t n = 0; n < M; n++) {
        const double p = kpm_pi * (double)n / (2.0 * Nd);
        d->ph[2 * n] = cos(p);
        d->ph[2 * n + 1] = sin(p);
    }
    for (size_t k = 0; k < N; k++) {
        const double th = kpm_pi * ((double)k + 0.5) / Nd;
        d->isin[k] = 1.0 / sin(th);
        d->x[N - 1 - k] = cos(th);
    }
    *out = d;
    return MCF_OK;
}

void kpm_dct_destroy(kpm_dct *d)
{
    if (!d)
        return;
    if (d->wt)
        gsl_fft_complex_wavetable_free(d->wt);
    if (d->ws)
        gsl_fft_complex_workspace_free(d->ws);
    free(d->data);
    free(d->ph);
    free(d->isin);
    free(d->x);
    free(d->tmp);
    free(d);
}

size_t kpm_dct_points(const kpm_dct *d) { return d->N; }

void kpm_dct_nodes(const kpm_dct *d, double *x) { memcpy(x, d->x, d->N * sizeof *x); }

void kpm_dct_energies(const kpm_dct *d, double a, double b, double *E)
{
    for (size_t i = 0; i < d->N; i++)
        E[i] = a * d->x[i] + b;
}

/* chi_k = sum_n c_n exp(-i n theta_k) into d->data[2k], d->data[2k + 1], k < N, with
 * c_0 = g_0 mu_0 / 2, c_n = g_n mu_n. */
static int dct_chi(kpm_dct *d, const double *mu_re, const double *mu_im, const double *g,
                   size_t M)
{
    if (M < 1 || M > d->M)
        return mcf_fail(MCF_EINVAL, "kpm: reconstruction of %zu moments with a plan for 1 to "
                        "%zu", M, d->M);
    double *z = d->data;
    for (size_t n = 0; n < M; n++) {
        const double f = n ? g[n] : 0.5 * g[0];
        const double cr = f * mu_re[n], ci = mu_im ? f * mu_im[n] : 0.0;
        const double c = d->ph[2 * n], s = d->ph[2 * n + 1];
        /* (cr + i ci) (c - i s) */
        z[2 * n] = cr * c + ci * s;
        z[2 * n + 1] = ci * c - cr * s;
    }
    memset(z + 2 * M, 0, (4 * d->N - 2 * M) * sizeof *z);
    if (gsl_fft_complex_forward(z, 1, 2 * d->N, d->wt, d->ws) != 0)
        return mcf_fail(MCF_EINTERNAL, "kpm: the FFT of length %zu failed", 2 * d->N);
    return MCF_OK;
}

int kpm_dct_density(kpm_dct *d, const double *mu, const double *g, size_t M, double a,
                    double *out)
{
    int rc = dct_chi(d, mu, NULL, g, M);
    if (rc)
        return rc;
    const size_t N = d->N;
    const double f = 2.0 / (kpm_pi * a);
    for (size_t k = 0; k < N; k++)
        out[N - 1 - k] = f * d->data[2 * k] * d->isin[k];
    return MCF_OK;
}

int kpm_dct_green(kpm_dct *d, const double *mu_re, const double *mu_im, const double *g,
                  size_t M, double a, double *re, double *im)
{
    int rc = dct_chi(d, mu_re, mu_im, g, M);
    if (rc)
        return rc;
    const size_t N = d->N;
    const double f = 2.0 / a;
    for (size_t k = 0; k < N; k++) {
        /* G = -2 i chi / sin theta */
        re[N - 1 - k] = f * d->data[2 * k + 1] * d->isin[k];
        im[N - 1 - k] = -f * d->data[2 * k] * d->isin[k];
    }
    return MCF_OK;
}

int kpm_dct_density_stats(kpm_dct *d, const double *mu_vec, size_t R, const double *g,
                          size_t M, double a, double *mean, double *err)
{
    const size_t N = d->N;
    for (size_t i = 0; i < N; i++)
        mean[i] = err[i] = 0.0;
    /* Welford: mean and sum of squared deviations, vector by vector */
    for (size_t r = 0; r < R; r++) {
        int rc = kpm_dct_density(d, mu_vec + r * M, g, M, a, d->tmp);
        if (rc)
            return rc;
        const double inv = 1.0 / (double)(r + 1);
        for (size_t i = 0; i < N; i++) {
            const double delta = d->tmp[i] - mean[i];
            mean[i] += delta * inv;
            err[i] += delta * (d->tmp[i] - mean[i]);
        }
    }
    for (size_t i = 0; i < N; i++)
        err[i] = R < 2 ? NAN : sqrt(err[i] / ((double)R - 1.0) / (double)R);
    return MCF_OK;
}
