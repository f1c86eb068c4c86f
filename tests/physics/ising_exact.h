/* ising_exact.h — exact energies of the 2D Ising model (J = 1, h = 0) for the physics
 * tests: Onsager's infinite lattice and Kaufman's finite L x L torus.
 *
 * Include after physics_util.h (which selects the POSIX level); needs GSL. */
#ifndef MCF_ISING_EXACT_H
#define MCF_ISING_EXACT_H

#include <math.h>

#include <gsl/gsl_mode.h>
#include <gsl/gsl_sf_ellint.h>

/* Energy per site of the infinite lattice (Onsager 1944), with K = beta J:
 *     u(T) = -J coth(2K) [1 + (2/pi) (2 tanh^2(2K) - 1) K1(k)],   k = 2 sinh(2K) / cosh^2(2K),
 * K1(k) the complete elliptic integral of the first kind of MODULUS k (GSL's
 * gsl_sf_ellint_Kcomp takes the modulus, not the parameter m = k^2). */
static inline double onsager_energy(double T)
{
    const double K = 1.0 / T; /* J = 1 */
    const double k = 2.0 * sinh(2 * K) / (cosh(2 * K) * cosh(2 * K));
    const double th = tanh(2 * K);
    const double K1 = gsl_sf_ellint_Kcomp(k, GSL_PREC_DOUBLE);
    return -1.0 / tanh(2 * K) * (1.0 + (2.0 / M_PI) * (2.0 * th * th - 1.0) * K1);
}

/* ln(2 cosh x) and ln|2 sinh x| for any x without overflow */
static inline double ising_l2cosh(double x)
{
    x = fabs(x);
    return x + log1p(exp(-2 * x));
}

static inline double ising_l2sinh(double x)
{
    x = fabs(x);
    return x + log1p(-exp(-2 * x));
}

/* ln Z of the L x L torus (Kaufman 1949; the form of Ferdinand & Fisher, Phys. Rev. 185,
 * 832 (1969)):
 *     Z = 1/2 (2 sinh 2K)^(L^2/2) (Z1 + Z2 + Z3 + Z4),
 *     Z1 = prod_r 2 cosh(L g_{2r+1} / 2),  Z2 = prod_r 2 sinh(L g_{2r+1} / 2),
 *     Z3 = prod_r 2 cosh(L g_{2r} / 2),    Z4 = prod_r 2 sinh(L g_{2r} / 2),   r = 0..L-1,
 *     cosh g_l = cosh 2K coth 2K - cos(pi l / L),   g_0 = 2K + ln tanh K (signed: < 0 above
 * Tc, where Z4 < 0).  Summed as logarithms with signs, so any L and K are safe. */
static inline double ising_torus_log_z(int L, double K)
{
    double l[4] = {0, 0, 0, 0};
    int sign4 = 1;
    const double a = cosh(2 * K) / tanh(2 * K);
    for (int r = 0; r < L; r++) {
        const double godd = acosh(a - cos(M_PI * (2 * r + 1) / L));
        const double geven = r == 0 ? 2 * K + log(tanh(K)) : acosh(a - cos(M_PI * 2 * r / L));
        l[0] += ising_l2cosh(L * godd / 2);
        l[1] += ising_l2sinh(L * godd / 2);
        l[2] += ising_l2cosh(L * geven / 2);
        l[3] += ising_l2sinh(L * geven / 2);
        if (geven < 0)
            sign4 = -sign4;
    }
    double top = l[0];
    for (int i = 1; i < 4; i++)
        if (l[i] > top)
            top = l[i];
    const double sum = exp(l[0] - top) + exp(l[1] - top) + exp(l[2] - top) +
                       sign4 * exp(l[3] - top);
    return log(0.5) + 0.5 * L * L * log(2 * sinh(2 * K)) + top + log(sum);
}

/* Energy per site of the L x L torus, u = -(1/N) d ln Z / d beta, by a central difference
 * (step 1e-5: truncation ~1e-11, rounding ~1e-10 for the L used in the tests). */
static inline double ising_torus_energy(int L, double T)
{
    const double K = 1.0 / T, h = 1e-5;
    return -(ising_torus_log_z(L, K + h) - ising_torus_log_z(L, K - h)) / (2 * h) /
           ((double)L * L);
}

#endif
