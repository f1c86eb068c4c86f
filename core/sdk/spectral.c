/* spectral.c — spectral functions from the Chebyshev moments of one vector (mcf/response.h):
 * the kernel-damped series A(E) and its occupied weight.  Sums in a fixed order: the bits
 * depend on the input alone. */
#include "mcf/response.h"

#include <math.h>
#include <stdlib.h>

#include "mcf/error.h"

static const double sp_pi = 3.14159265358979323846;

/* h_n g_n mu_n into c (M values); MCF_OK or the kernel's error */
static int sp_coefficients(size_t M, const double *mu, double a, const char *kernel,
                           const char *what, double *c)
{
    if (M < 1 || !mu || !(a > 0.0) || !isfinite(a))
        return mcf_fail(MCF_EINVAL, "%s: %zu moments (at least 1), a = %g (> 0)", what, M, a);
    int rc = mcf_kubo_kernel(kernel, M, c);
    if (rc)
        return mcf_fail_prefix(rc, "%s", what);
    for (size_t n = 0; n < M; n++)
        c[n] *= (n ? 2.0 : 1.0) * mu[n];
    return MCF_OK;
}

/* sum_n c_n T_n(x) by the recurrence */
static double sp_series(const double *c, size_t M, double x)
{
    double t0 = 1.0, t1 = x, s = c[0];
    for (size_t m = 1; m < M; m++) {
        s += c[m] * t1;
        const double t2 = 2.0 * x * t1 - t0;
        t0 = t1;
        t1 = t2;
    }
    return s;
}

int mcf_spectral_function(size_t M, const double *mu, double a, double b, const char *kernel,
                          size_t n, const double *E, double *A)
{
    if (n && (!E || !A))
        return mcf_fail(MCF_EINVAL, "spectral function: a NULL energy or output array");
    double *c = malloc((M ? M : 1) * sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "spectral function: out of memory");
    int rc = sp_coefficients(M, mu, a, kernel, "spectral function", c);
    for (size_t i = 0; !rc && i < n; i++) {
        const double x = (E[i] - b) / a;
        if (!(fabs(x) < 1.0)) {
            A[i] = 0.0;
            continue;
        }
        A[i] = sp_series(c, M, x) / (sp_pi * a * sqrt(1.0 - x * x));
    }
    free(c);
    return rc;
}

int mcf_spectral_occupation(size_t M, const double *mu, double a, double b,
                            const char *kernel, double T, double mu_chem, double *occupied)
{
    if (!occupied || !isfinite(T) || T < 0.0 || !isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "spectral occupation: T = %g (>= 0), mu = %g (finite), "
                        "and an output", T, mu_chem);
    double *c = malloc((M ? M : 1) * sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "spectral occupation: out of memory");
    int rc = sp_coefficients(M, mu, a, kernel, "spectral occupation", c);
    double sum = 0.0;
    if (!rc && T == 0.0) {
        /* int_{-1}^{x} T_n(y) / (pi sqrt(1 - y^2)) dy = (pi - th) / pi for n = 0 and
         * -sin(n th) / (n pi) for n >= 1, th = arccos x */
        const double x = (mu_chem - b) / a;
        const double th = x <= -1.0 ? sp_pi : x >= 1.0 ? 0.0 : acos(x);
        sum = c[0] * (sp_pi - th) / sp_pi;
        for (size_t n = 1; n < M; n++)
            sum -= c[n] * sin((double)n * th) / ((double)n * sp_pi);
    } else if (!rc) {
        /* Gauss-Chebyshev: int_{-1}^{1} F(y) / (pi sqrt(1 - y^2)) dy = (1/N) sum_j F(cos th_j),
         * th_j = pi (j + 1/2) / N, exact for polynomial F of degree < 2N */
        const double nn = fmax(8.0 * (double)M, ceil(64.0 * a / T));
        if (!(nn <= 1e8)) {
            free(c);
            return mcf_fail(MCF_EINVAL, "spectral occupation: T = %g is too small beside the "
                            "half-width a = %g (%.3g nodes); take T = 0", T, a, nn);
        }
        const size_t N = (size_t)nn;
        for (size_t j = 0; j < N; j++) {
            const double y = cos(sp_pi * ((double)j + 0.5) / (double)N);
            const double z = (a * y + b - mu_chem) / T;
            const double f = z > 0 ? exp(-z) / (1.0 + exp(-z)) : 1.0 / (1.0 + exp(z));
            sum += f * sp_series(c, M, y);
        }
        sum /= (double)N;
    }
    if (!rc)
        *occupied = sum;
    free(c);
    return rc;
}
