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
    return kpm_action_series_cached(NULL, mu, M, a, b, T, mu_chem, S, err);
}

int kpm_action_series_cached(kpm_series_cache *cache, const double *mu, size_t M, double a,
                             double b, double T, double mu_chem, double *S, double *err)
{
    if (M < 1 || !(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: action: invalid scaling a = %g, b = %g or %zu "
                        "moments", a, b, M);
    if (!(T > 0.0) || !isfinite(T) || !isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "kpm: action: temperature T = %g must be finite and > 0, "
                        "and mu = %g finite", T, mu_chem);
    const size_t K = kpm_action_nodes(M), half = K / 2;
    /* the M weights (2 - d_n0) c_n / K and the tail bound: they do not depend on H */
    double tail = 0.0;
    const double *c = kpm_series_find(cache, KPM_SERIES_ACTION, M, a, b, T, mu_chem, &tail);
    double *z = NULL;
    if (!c) {
        z = malloc((4 * K + half) * sizeof *z);
        if (!z)
            return mcf_fail(MCF_ENOMEM, "kpm: action: out of memory for %zu Chebyshev nodes",
                            K);
        double *cs = z + 4 * K;
        for (size_t j = 0; j < K; j++) {
            const double x = cos(kpm_pi * ((double)j + 0.5) / (double)K);
            z[2 * j] = action_f(a * x + b, mu_chem, T);
            z[2 * j + 1] = 0.0;
        }
        const int rc = kpm_chebyshev_sums(z, K, half, cs, NULL);
        if (rc) {
            free(z);
            return rc;
        }
        for (size_t n = 0; n < half; n++) {
            const double cn = (n ? 2.0 : 1.0) * cs[n] / (double)K;
            if (n < M)
                cs[n] = cn;
            else
                tail += fabs(cn);
        }
        kpm_series_keep(cache, KPM_SERIES_ACTION, M, a, b, T, mu_chem, cs, M, tail);
        c = cs;
    }
    double s = 0.0;
    for (size_t n = 0; n < M; n++)
        s += c[n] * mu[n];
    free(z);
    if (!isfinite(s))
        return mcf_fail(MCF_EINVAL, "kpm: action: the series is not finite (T = %g, mu = %g)",
                        T, mu_chem);
    *S = s;
    if (err)
        *err = tail;
    return MCF_OK;
}
