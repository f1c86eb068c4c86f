/* kpm_action.c — the grand-canonical fermion action from exact moments: the Chebyshev
 * series of -T log(1 + e^((mu - E)/T)) by an FFT on Chebyshev nodes, with the neglected
 * tail as error (kpm_core.h, "the grand-canonical action from exact moments"). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>


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
    double *z = malloc((4 * K + half) * sizeof *z);
    if (!z)
        return mcf_fail(MCF_ENOMEM, "kpm: action: out of memory for %zu Chebyshev nodes", K);
    double *cs = z + 4 * K;
    for (size_t j = 0; j < K; j++) {
        const double x = cos(kpm_pi * ((double)j + 0.5) / (double)K);
        z[2 * j] = action_f(a * x + b, mu_chem, T);
        z[2 * j + 1] = 0.0;
    }
    int rc = kpm_chebyshev_sums(z, K, half, cs, NULL);
    double s = 0.0, e = 0.0;
    for (size_t n = 0; !rc && n < half; n++) {
        const double c = (n ? 2.0 : 1.0) * cs[n] / (double)K;
        if (n < M)
            s += c * mu[n];
        else
            e += fabs(c);
    }
    if (!rc && !isfinite(s))
        rc = mcf_fail(MCF_EINVAL, "kpm: action: the series is not finite (T = %g, mu = %g)", T,
                      mu_chem);
    if (!rc) {
        *S = s;
        if (err)
            *err = e;
    }
    free(z);
    return rc;
}
