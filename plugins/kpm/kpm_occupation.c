/* kpm_occupation.c — integrated quantities: the electron density and energy at (mu, T)
 * from the moments, exact at T = 0, by Chebyshev-Gauss sums for T > 0, by Gauss-Legendre
 * panels across the Fermi edge at very low T (kpm_core.h, "integrated quantities"). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_integration.h>

static const double kpm_pi = 3.14159265358979323846;

/* ---- integrated quantities ------------------------------------------------------------ */

/* S(theta) = sum_n w_n cos(n theta), w_0 = g_0 mu_0, w_n = 2 g_n mu_n, by Clenshaw's
 * recurrence in x = cos theta. */
static double series_s(const double *mu, const double *g, size_t M, double x)
{
    double b1 = 0.0, b2 = 0.0;
    for (size_t n = M - 1; n >= 1; n--) {
        const double b0 = 2.0 * g[n] * mu[n] + 2.0 * x * b1 - b2;
        b2 = b1;
        b1 = b0;
    }
    return g[0] * mu[0] + x * b1 - b2;
}

/* f(y) - step(-y) for y = (E - mu) / T: +f(y) above mu, f(y) - 1 = -f(-y) below. */
static double fermi_minus_step(double y)
{
    const double t = exp(-fabs(y));
    const double v = t / (1.0 + t);
    return y > 0.0 ? v : -v;
}

/* Adds (1/pi) int_{t0}^{t1} S (F - step) (1, E) dtheta on panels walking away from
 * theta_mu = t0 (dir = +1) or t1 (dir = -1). */
static void occ_side(const double *mu, const double *g, size_t M, double a, double b,
                     double mu_chem, double T, double t0, double t1, int dir,
                     const gsl_integration_glfixed_table *tab, double *dn, double *de)
{
    const double hmax = kpm_pi / (2.0 * (double)M), hroot = sqrt(T / a);
    double lo = t0, hi = t1, sn = 0.0, se = 0.0;
    double t = dir > 0 ? lo : hi;
    while (dir > 0 ? t < hi : t > lo) {
        const double st = fabs(sin(t));
        double w = hmax;
        if (hroot < w)
            w = hroot;
        if (st > 0.0 && T / (a * st) < w)
            w = T / (a * st);
        double p0, p1;
        if (dir > 0) {
            p0 = t;
            p1 = t + w < hi ? t + w : hi;
            t = p1;
        } else {
            p1 = t;
            p0 = t - w > lo ? t - w : lo;
            t = p0;
        }
        for (size_t i = 0; i < tab->n; i++) {
            double th, wt;
            gsl_integration_glfixed_point(p0, p1, i, &th, &wt, tab);
            const double x = cos(th), E = a * x + b;
            const double v = wt * series_s(mu, g, M, x) * fermi_minus_step((E - mu_chem) / T);
            sn += v;
            se += v * E;
        }
    }
    *dn += sn / kpm_pi;
    *de += se / kpm_pi;
}

#define OCC_MAX_NODES ((size_t)1 << 16)

/* Chebyshev-Gauss nodes for T > 0: the power of 2 that keeps the aliases of the Fermi
 * function's coefficients below e^-40 (0: more than OCC_MAX_NODES would be needed) */
static size_t occ_nodes(size_t M, double a, double b, double mu_chem, double T)
{
    const double gamma = kpm_contour_pole_gamma(a, b, T, mu_chem);
    const double need = 0.5 * (40.0 / gamma + (double)M);
    if (!(gamma > 0.0) || !(need <= (double)OCC_MAX_NODES))
        return 0;
    size_t K = 512;
    while ((double)K < need || K < M)
        K *= 2;
    return K <= OCC_MAX_NODES ? K : 0;
}

/* density and energy for T > 0 from K nodes: sum_n w_n mu_n C_F(n) / K, F = f and E f; the
 * C_F (2 M numbers that do not depend on H) from the cache when it holds them */
static int occ_series(kpm_series_cache *cache, const double *mu, const double *g, size_t M,
                      double a, double b, double mu_chem, double T, size_t K, double *density,
                      double *energy)
{
    const double *cf = kpm_series_find(cache, KPM_SERIES_OCCUPATION, M, a, b, T, mu_chem, NULL);
    double *z = NULL;
    if (!cf) {
        z = malloc((4 * K + 2 * M) * sizeof *z);
        if (!z)
            return mcf_fail(MCF_ENOMEM, "kpm: occupation: out of memory for %zu nodes", K);
        double *f = z + 4 * K;
        for (size_t j = 0; j < K; j++) {
            const double E = a * cos(kpm_pi * ((double)j + 0.5) / (double)K) + b;
            const double fj = kpm_fermi((E - mu_chem) / T);
            z[2 * j] = fj;
            z[2 * j + 1] = E * fj;
        }
        const int rc = kpm_chebyshev_sums(z, K, M, f, f + M);
        if (rc) {
            free(z);
            return rc;
        }
        kpm_series_keep(cache, KPM_SERIES_OCCUPATION, M, a, b, T, mu_chem, f, 2 * M, 0.0);
        cf = f;
    }
    const double *ce = cf + M;
    double n0 = 0.0, e0 = 0.0;
    for (size_t n = 0; n < M; n++) {
        const double wn = (n ? 2.0 : 1.0) * g[n] * mu[n];
        n0 += wn * cf[n];
        e0 += wn * ce[n];
    }
    *density = n0 / (double)K;
    *energy = e0 / (double)K;
    free(z);
    return MCF_OK;
}

int kpm_occupation(const double *mu, const double *g, size_t M, double a, double b,
                   double mu_chem, double T, double *density, double *energy)
{
    return kpm_occupation_cached(NULL, mu, g, M, a, b, mu_chem, T, density, energy);
}

int kpm_occupation_cached(kpm_series_cache *cache, const double *mu, const double *g, size_t M,
                          double a, double b, double mu_chem, double T, double *density,
                          double *energy)
{
    if (M < 1 || !(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: occupation: invalid scaling a = %g, b = %g or %zu "
                        "moments", a, b, M);
    if (!isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "kpm: occupation: the chemical potential %g is not finite",
                        mu_chem);
    if (!(T >= 0.0) || !isfinite(T))
        return mcf_fail(MCF_EINVAL, "kpm: occupation: temperature T = %g must be finite and "
                        ">= 0", T);
    const size_t K = T > 0.0 ? occ_nodes(M, a, b, mu_chem, T) : 0;
    if (K)
        return occ_series(cache, mu, g, M, a, b, mu_chem, T, K, density, energy);
    const double xm = (mu_chem - b) / a;
    const double tm = xm >= 1.0 ? 0.0 : xm <= -1.0 ? kpm_pi : acos(xm);
    /* T = 0: I_m = int_{tm}^{pi} cos(m theta) dtheta */
    double n0 = 0.0, e0 = 0.0;
    if (xm >= 1.0) { /* every state of the expansion filled: int_0^pi cos(n theta) = pi d_n0 */
        n0 = g[0] * mu[0];
        e0 = b * n0 + (M > 1 ? a * g[1] * mu[1] : 0.0);
    } else if (xm > -1.0) {
#define KPM_I(m) ((m) == 0 ? kpm_pi - tm : -sin((double)(m) * tm) / (double)(m))
        for (size_t n = 0; n < M; n++) {
            const double wn = (n ? 2.0 : 1.0) * g[n] * mu[n];
            const size_t nm = n ? n - 1 : 1;
            n0 += wn * KPM_I(n);
            e0 += wn * 0.5 * (KPM_I(n + 1) + KPM_I(nm));
        }
#undef KPM_I
        n0 /= kpm_pi;
        e0 = b * n0 + a * e0 / kpm_pi;
    }
    if (T > 0.0) {
        /* the Fermi edge within +-40 T of mu: beyond, f - step < 5e-18 */
        const double xl = (mu_chem - 40.0 * T - b) / a, xh = (mu_chem + 40.0 * T - b) / a;
        const double th_lo = xh >= 1.0 ? 0.0 : xh <= -1.0 ? kpm_pi : acos(xh);
        const double th_hi = xl >= 1.0 ? 0.0 : xl <= -1.0 ? kpm_pi : acos(xl);
        gsl_integration_glfixed_table *tab = gsl_integration_glfixed_table_alloc(16);
        if (!tab)
            return mcf_fail(MCF_ENOMEM, "kpm: occupation: out of memory");
        if (tm > th_lo)
            occ_side(mu, g, M, a, b, mu_chem, T, th_lo, tm, -1, tab, &n0, &e0);
        if (th_hi > tm)
            occ_side(mu, g, M, a, b, mu_chem, T, tm, th_hi, +1, tab, &n0, &e0);
        gsl_integration_glfixed_table_free(tab);
    }
    *density = n0;
    *energy = e0;
    return MCF_OK;
}
