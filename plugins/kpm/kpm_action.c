/* kpm_action.c — the grand-canonical fermion action from exact moments: the Chebyshev
 * series of -T log(1 + e^((mu - E)/T)) by an FFT on Chebyshev nodes, with the neglected
 * tail as error (kpm_core.h, "the grand-canonical action
 * from exact moments"). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_fft_complex.h>

static const double kpm_pi = 3.14159265358979323846;

/* ---- the action from exact moments (kpm_action_series) ------------------------------- */

size_t kpm_action_nodes(size_t M)
{
    return 8 * M > 1024 ? 8 * M : 1024;
}

/* -softplus(y) with y = (mu - E) / T: -(max(y, 0) + log1p(exp(-|y|))) */
static double action_f(double E, double mu, double T)
{
    const double y = (mu - E) / T;
    return -(fmax(y, 0.0) + log1p(exp(-fabs(y))));
}

int kpm_action_series(const double *mu, size_t M, double a, double b, double T,
                      double mu_chem, double *S, double *err)
{
    if (M < 1 || !(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: action: invalid scaling a = %g, b = %g or %zu "
                        "moments", a, b, M);
    if (!(T > 0.0) || !isfinite(T) || !isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "kpm: action: temperature T = %g must be finite and > 0, "
                        "and mu = %g finite", T, mu_chem);
    const size_t K = kpm_action_nodes(M), half = K / 2;
    double *z = malloc(4 * K * sizeof *z);
    gsl_fft_complex_wavetable *wt = gsl_fft_complex_wavetable_alloc(2 * K);
    gsl_fft_complex_workspace *fw = gsl_fft_complex_workspace_alloc(2 * K);
    int rc = MCF_OK;
    if (!z || !wt || !fw) {
        rc = mcf_fail(MCF_ENOMEM, "kpm: action: out of memory for %zu Chebyshev nodes", K);
        goto done;
    }
    /* the even extension y_j = y_{2K-1-j} = F(cos theta_j): its DFT is
     * Y_n = 2 e^{i pi n / (2K)} sum_{j<K} F_j cos(n theta_j) */
    for (size_t j = 0; j < K; j++) {
        const double x = cos(kpm_pi * ((double)j + 0.5) / (double)K);
        const double f = action_f(a * x + b, mu_chem, T);
        z[2 * j] = f;
        z[2 * j + 1] = 0.0;
        z[2 * (2 * K - 1 - j)] = f;
        z[2 * (2 * K - 1 - j) + 1] = 0.0;
    }
    if (gsl_fft_complex_forward(z, 1, 2 * K, wt, fw) != 0) {
        rc = mcf_fail(MCF_EINTERNAL, "kpm: action: the FFT of length %zu failed", 2 * K);
        goto done;
    }
    double s = 0.0, e = 0.0;
    for (size_t n = 0; n < half; n++) {
        const double ph = kpm_pi * (double)n / (2.0 * (double)K);
        const double sum = 0.5 * (cos(ph) * z[2 * n] + sin(ph) * z[2 * n + 1]);
        const double c = (n ? 2.0 : 1.0) * sum / (double)K;
        if (n < M)
            s += c * mu[n];
        else
            e += fabs(c);
    }
    if (!isfinite(s)) {
        rc = mcf_fail(MCF_EINVAL, "kpm: action: the series is not finite (T = %g, mu = %g)", T,
                      mu_chem);
        goto done;
    }
    *S = s;
    if (err)
        *err = e;
done:
    free(z);
    if (wt)
        gsl_fft_complex_wavetable_free(wt);
    if (fw)
        gsl_fft_complex_workspace_free(fw);
    return rc;
}
