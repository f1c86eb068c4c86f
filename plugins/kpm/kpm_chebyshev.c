/* kpm_chebyshev.c — Chebyshev sums of functions sampled on Chebyshev-Gauss nodes, by one
 * complex FFT (a DCT-II of two real functions at once): what the action's series and the
 * occupation integrals need from a function of the energy (kpm_core.h, kpm_chebyshev_sums). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>

#include <gsl/gsl_fft_complex.h>

static const double kpm_pi = 3.14159265358979323846;

int kpm_chebyshev_sums(double *z, size_t K, size_t nout, double *cf, double *cg)
{
    if (K < 1 || nout > K)
        return mcf_fail(MCF_EINVAL, "kpm: Chebyshev sums of %zu terms from %zu nodes", nout, K);
    /* the even extension z_{2K-1-j} = z_j: its DFT is Y_n = 2 e^{i pi n / (2K)} (C_f(n) +
     * i C_g(n)), C the cosine sums over the K nodes */
    for (size_t j = 0; j < K; j++) {
        z[2 * (2 * K - 1 - j)] = z[2 * j];
        z[2 * (2 * K - 1 - j) + 1] = z[2 * j + 1];
    }
    const size_t L = 2 * K;
    int st;
    if ((L & (L - 1)) == 0) {
        st = gsl_fft_complex_radix2_forward(z, 1, L); /* no tables to allocate */
    } else {
        gsl_fft_complex_wavetable *wt = gsl_fft_complex_wavetable_alloc(L);
        gsl_fft_complex_workspace *fw = gsl_fft_complex_workspace_alloc(L);
        st = wt && fw ? gsl_fft_complex_forward(z, 1, L, wt, fw) : -1;
        if (wt)
            gsl_fft_complex_wavetable_free(wt);
        if (fw)
            gsl_fft_complex_workspace_free(fw);
        if (st == -1)
            return mcf_fail(MCF_ENOMEM, "kpm: out of memory for an FFT of length %zu", L);
    }
    if (st != 0)
        return mcf_fail(MCF_EINTERNAL, "kpm: the FFT of length %zu failed", L);
    for (size_t n = 0; n < nout; n++) {
        const double ph = kpm_pi * (double)n / (2.0 * (double)K);
        const double c = cos(ph), s = sin(ph);
        cf[n] = 0.5 * (c * z[2 * n] + s * z[2 * n + 1]);
        if (cg)
            cg[n] = 0.5 * (c * z[2 * n + 1] - s * z[2 * n]);
    }
    return MCF_OK;
}
