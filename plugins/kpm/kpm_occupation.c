/* kpm_occupation.c — integrated quantities: the electron density and energy at (mu, T)
 * from the moments, exact at T = 0, by Chebyshev-Gauss sums for T > 0, by Gauss-Legendre
 * panels across the Fermi edge at very low T (kpm_core.h, "integrated quantities"); and
 * their temperature derivatives, the same two ways (kpm_occupation_dT below). */
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

/* y f (1 - f) = y / (4 cosh^2(y / 2)), f = 1 / (1 + e^y): df/dT = (E - mu) / T^2 f (1 - f)
 * is this over T, y = (E - mu) / T.  cosh^2 overflows for |y| > ~1420 (inf: the quotient is
 * then 0); the value is below 1e-600 beyond |y| = 1400, so 0 there. */
static double fermi_dT_y(double y)
{
    if (!(fabs(y) <= 1400.0))
        return 0.0;
    const double c = cosh(0.5 * y);
    return y / (4.0 * c * c);
}

/* Adds (1/pi) int_{t0}^{t1} S F(y) (1, E) dtheta on panels walking away from theta_mu = t0
 * (dir = +1) or t1 (dir = -1), y = (E - mu) / T: F = f - step for the occupation, y f(1 - f)
 * for its derivatives. */
static void occ_side(const double *mu, const double *g, size_t M, double a, double b,
                     double mu_chem, double T, double t0, double t1, int dir,
                     const gsl_integration_glfixed_table *tab, double (*F)(double),
                     double *dn, double *de)
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
            const double v = wt * series_s(mu, g, M, x) * F((E - mu_chem) / T);
            sn += v;
            se += v * E;
        }
    }
    *dn += sn / kpm_pi;
    *de += se / kpm_pi;
}

/* Adds the panels of occ_side over |E - mu| <= width T on both sides of theta_mu, for F
 * (f - step for the occupation, y f(1 - f) for its derivatives); `what` names the op in an
 * out-of-memory message. */
static int occ_panels(const char *what, const double *mu, const double *g, size_t M, double a,
                      double b, double mu_chem, double T, double width, double (*F)(double),
                      double *dn, double *de)
{
    const double xm = (mu_chem - b) / a;
    const double tm = xm >= 1.0 ? 0.0 : xm <= -1.0 ? kpm_pi : acos(xm);
    const double xl = (mu_chem - width * T - b) / a, xh = (mu_chem + width * T - b) / a;
    const double th_lo = xh >= 1.0 ? 0.0 : xh <= -1.0 ? kpm_pi : acos(xh);
    const double th_hi = xl >= 1.0 ? 0.0 : xl <= -1.0 ? kpm_pi : acos(xl);
    gsl_integration_glfixed_table *tab = gsl_integration_glfixed_table_alloc(16);
    if (!tab)
        return mcf_fail(MCF_ENOMEM, "kpm: %s: out of memory", what);
    if (tm > th_lo)
        occ_side(mu, g, M, a, b, mu_chem, T, th_lo, tm, -1, tab, F, dn, de);
    if (th_hi > tm)
        occ_side(mu, g, M, a, b, mu_chem, T, tm, th_hi, +1, tab, F, dn, de);
    gsl_integration_glfixed_table_free(tab);
    return MCF_OK;
}

#define OCC_MAX_NODES ((size_t)1 << 16)

/* Chebyshev-Gauss nodes for T > 0: the power of 2 that keeps the aliases of the Fermi
 * function's coefficients below e^-margin (40 for the occupation, 46 for its derivatives:
 * kpm_occupation_dT_cached) (0: more than OCC_MAX_NODES would be needed) */
static size_t occ_nodes(size_t M, double a, double b, double mu_chem, double T, double margin)
{
    const double gamma = kpm_contour_pole_gamma(a, b, T, mu_chem);
    const double need = 0.5 * (margin / gamma + (double)M);
    if (!(gamma > 0.0) || !(need <= (double)OCC_MAX_NODES))
        return 0;
    size_t K = 512;
    while ((double)K < need || K < M)
        K *= 2;
    return K <= OCC_MAX_NODES ? K : 0;
}

/* density and energy for T > 0 from K nodes: sum_n w_n mu_n C_F(n) / K, F = f and E f (kind
 * KPM_SERIES_OCCUPATION, F(y) = kpm_fermi) or F = y f(1 - f) and E y f(1 - f) (kind
 * KPM_SERIES_OCCUPATION_DT, F = fermi_dT_y); the C_F (2 M numbers that do not depend on H)
 * from the cache when it holds them */
static int occ_series(kpm_series_cache *cache, int kind, double (*F)(double), const double *mu,
                      const double *g, size_t M, double a, double b, double mu_chem, double T,
                      size_t K, double *density, double *energy)
{
    const double *cf = kpm_series_find(cache, kind, M, a, b, T, mu_chem, NULL);
    double *z = NULL;
    if (!cf) {
        z = malloc((4 * K + 2 * M) * sizeof *z);
        if (!z)
            return mcf_fail(MCF_ENOMEM, "kpm: occupation: out of memory for %zu nodes", K);
        double *f = z + 4 * K;
        for (size_t j = 0; j < K; j++) {
            const double E = a * cos(kpm_pi * ((double)j + 0.5) / (double)K) + b;
            const double fj = F((E - mu_chem) / T);
            z[2 * j] = fj;
            z[2 * j + 1] = E * fj;
        }
        const int rc = kpm_chebyshev_sums(z, K, M, f, f + M);
        if (rc) {
            free(z);
            return rc;
        }
        kpm_series_keep(cache, kind, M, a, b, T, mu_chem, f, 2 * M, 0.0);
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

/* the arguments of both integrals: T >= 0 for the occupation, T > 0 for its derivatives
 * (positive) */
static int occ_check(const char *what, int positive, size_t M, double a, double b,
                     double mu_chem, double T)
{
    if (M < 1 || !(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: %s: invalid scaling a = %g, b = %g or %zu moments",
                        what, a, b, M);
    if (!isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "kpm: %s: the chemical potential %g is not finite", what,
                        mu_chem);
    if (!positive && (!(T >= 0.0) || !isfinite(T)))
        return mcf_fail(MCF_EINVAL, "kpm: %s: temperature T = %g must be finite and >= 0",
                        what, T);
    if (positive && (!(T > 0.0) || !isfinite(T)))
        return mcf_fail(MCF_EINVAL, "kpm: %s: temperature T = %g must be finite and > 0 (the "
                        "T = 0 step has no temperature derivative; use a small T > 0)", what,
                        T);
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
    int rc = occ_check("occupation", 0, M, a, b, mu_chem, T);
    if (rc)
        return rc;
    const size_t K = T > 0.0 ? occ_nodes(M, a, b, mu_chem, T, 40.0) : 0;
    if (K)
        return occ_series(cache, KPM_SERIES_OCCUPATION, kpm_fermi, mu, g, M, a, b, mu_chem, T,
                          K, density, energy);
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
    /* the Fermi edge within +-40 T of mu: beyond, f - step < 5e-18 */
    if (T > 0.0 && (rc = occ_panels("occupation", mu, g, M, a, b, mu_chem, T, 40.0,
                                    fermi_minus_step, &n0, &e0)))
        return rc;
    *density = n0;
    *energy = e0;
    return MCF_OK;
}

/* ---- temperature derivatives (kpm_core.h, kpm_occupation_dT) ---------------------------
 *
 * dn/dT = int rho df/dT dE and de/dT = int E rho df/dT dE of the same damped expansion,
 * df/dT = G(y) / T, G(y) = y f (1 - f) = y / (4 cosh^2(y/2)), y = (E - mu) / T: the integrals
 * of G and E G as for f, then divided by T.
 *
 * Nodes.  G has the poles of f, y = +-i pi (2k + 1), but double: near y_p = i pi,
 * f ~ -1 / (y - y_p) and G = -y f'(y) ~ -i pi / (y - y_p)^2.  With E = a x + b and the pole
 * at x_p (Bernstein parameter gamma, kpm_contour_pole_gamma), the Chebyshev coefficients
 * of f fall as |c_n| ~ (2 T / a) e^{-gamma n} / |x_p^2 - 1|^{1/2} ~ (2 / pi) gamma e^{-gamma n}
 * (mu inside the band: gamma ~ pi T / (a sin theta_mu), |x_p^2 - 1| ~ sin^2 theta_mu), those of
 * G as the x_p-derivative of that series, |c_n| ~ (2 / pi) n gamma^2 e^{-gamma n}: n gamma
 * times f's.  Relative to max|G| = 0.224 (max f = 1) that is 4.5 n gamma more, so where the
 * occupation keeps gamma (2K - M) >= 40, the derivatives need X = gamma (2K - M) with
 * 4.5 X e^{-X} <= e^{-40}: X >= 46 (4.5 * 46 = e^{5.3}); the sum of the aliases over the M
 * moments carries the same factor for both.  K = the power of 2 >= max(M, 512,
 * (46 / gamma + M) / 2); the coefficients of G and E G cached as kind
 * KPM_SERIES_OCCUPATION_DT (those of the occupation are untouched).
 *
 * Panels.  Where that needs more than OCC_MAX_NODES nodes there is no step to subtract:
 * G itself is integrated on 16-point Gauss-Legendre panels (occ_side: no wider than
 * pi / (2M), sqrt(T / a) nor the Fermi edge's width T / (a sin theta) in theta), split at
 * theta_mu, over |E - mu| <= 50 T: beyond, int_{|y| > 50} |G| dy = 2 (51) e^{-50} < 2e-20
 * of int |G| dy = 2 log 2.  G is analytic in the strip |Im y| < pi, a panel spans <= 1 in y:
 * the Gauss-Legendre error is below the rounding. */
int kpm_occupation_dT(const double *mu, const double *g, size_t M, double a, double b,
                      double mu_chem, double T, double *ddensity, double *denergy)
{
    return kpm_occupation_dT_cached(NULL, mu, g, M, a, b, mu_chem, T, ddensity, denergy);
}

int kpm_occupation_dT_cached(kpm_series_cache *cache, const double *mu, const double *g,
                             size_t M, double a, double b, double mu_chem, double T,
                             double *ddensity, double *denergy)
{
    int rc = occ_check("occupation_dT", 1, M, a, b, mu_chem, T);
    if (rc)
        return rc;
    double dn = 0.0, de = 0.0;
    const size_t K = occ_nodes(M, a, b, mu_chem, T, 46.0);
    if (K) {
        rc = occ_series(cache, KPM_SERIES_OCCUPATION_DT, fermi_dT_y, mu, g, M, a, b, mu_chem,
                        T, K, &dn, &de);
        if (rc)
            return rc;
    } else if ((rc = occ_panels("occupation_dT", mu, g, M, a, b, mu_chem, T, 50.0, fermi_dT_y,
                                &dn, &de))) {
        return rc;
    }
    *ddensity = dn / T;
    *denergy = de / T;
    return MCF_OK;
}
