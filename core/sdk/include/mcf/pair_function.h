/* mcf/pair_function.h — a radial pair function u(r), the factor exp(sum_{i<j} u(r_ij)) of a
 * Jastrow wave function, described by numbers so that an evaluator can compute it on its
 * hardware without knowing which model asked (the walker_sweep op of mcf/orbital.h), and
 * evaluated by one inline definition that compiles as C on the host and as CUDA on both
 * sides (the model's own ratios and the device's are then the same operations).
 *
 * Forms (u = 0 for r >= cutoff; cutoff <= half the cell's shortest side, so that a pair
 * interacts through its nearest image only):
 *
 *   MCF_PAIR_BSPLINE   u(r) = sign * sum_{a=0..3} coef[i + a] B_a(t),   r inv_dr = i + t,
 *                      0 <= t < 1, i <= n_coef - 4 (r just below the cutoff rounds into the
 *                      last interval), with the uniform cubic B-spline basis
 *                      B_0 = (1-t)^3/6, B_1 = (3t^3 - 6t^2 + 4)/6,
 *                      B_2 = (-3t^3 + 3t^2 + 3t + 1)/6, B_3 = t^3/6.
 *   MCF_PAIR_RPA       u(r) = (1 - r/cutoff)^3 h(r),  h(r) = -(A/r)(1 - e^{-r/F}), and below
 *                      r = 1e-6 F its series -A/F + A r/(2F^2) - A r^2/(6F^3).
 *   MCF_PAIR_NONE      u = 0.
 *
 * A plain value type (the coefficients inline) that can be copied to a device as it is. */
#ifndef MCF_PAIR_FUNCTION_H
#define MCF_PAIR_FUNCTION_H

#include "mcf/api.h"

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MCF_PAIR_HD __host__ __device__
#else
#define MCF_PAIR_HD
#endif

enum { MCF_PAIR_NONE = 0, MCF_PAIR_BSPLINE = 1, MCF_PAIR_RPA = 2 };

/* the most B-spline coefficients */
#define MCF_PAIR_COEF_MAX 68

typedef struct mcf_pair_function {
    int32_t form;      /* MCF_PAIR_* */
    uint32_t n_coef;   /* bspline: coefficients, 4 .. MCF_PAIR_COEF_MAX */
    double cutoff;     /* bohr (the cell's units) */
    double A, F;       /* rpa */
    double sign;       /* bspline: +1 or -1 */
    double inv_dr;     /* bspline: 1 / knot spacing */
    double coef[MCF_PAIR_COEF_MAX]; /* bspline */
} mcf_pair_function;

/* bspline: the first of the 4 coefficients of r's interval and t (internal) */
static inline MCF_PAIR_HD const double *mcf_pair_interval_(const mcf_pair_function *u,
                                                           double r, double *t)
{
    const double x = r * u->inv_dr, last = (double)(u->n_coef - 4);
    double fl = floor(x);
    if (fl > last)
        fl = last;
    *t = x - fl;
    return u->coef + (long)fl;
}

/* rpa: h(r) and, when h1 is not NULL, h'(r) (internal) */
static inline MCF_PAIR_HD double mcf_pair_rpa_h_(const mcf_pair_function *u, double r,
                                                 double *h1)
{
    const double A = u->A, F = u->F;
    if (r < 1e-6 * F) {
        if (h1)
            *h1 = A / (2 * F * F) - A * r / (3 * F * F * F);
        return -A / F + A * r / (2 * F * F) - A * r * r / (6 * F * F * F);
    }
    const double omE = -expm1(-r / F);
    if (h1)
        *h1 = A * omE / (r * r) - A * exp(-r / F) / (F * r);
    return -A * omE / r;
}

/* u(r) for r >= 0. */
static inline MCF_PAIR_HD double mcf_pair_value(const mcf_pair_function *u, double r)
{
    if (u->form == MCF_PAIR_NONE || r >= u->cutoff)
        return 0.0;
    if (u->form == MCF_PAIR_BSPLINE) {
        double t;
        const double *c = mcf_pair_interval_(u, r, &t);
        const double s = 1.0 - t, t2 = t * t, t3 = t2 * t;
        const double B0 = s * s * s / 6.0, B1 = (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0;
        const double B2 = (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0, B3 = t3 / 6.0;
        return u->sign * (c[0] * B0 + c[1] * B1 + c[2] * B2 + c[3] * B3);
    }
    const double x = 1.0 - r / u->cutoff;
    return x * x * x * mcf_pair_rpa_h_(u, r, NULL);
}

/* u'(r) = du/dr for r >= 0 (0 at and beyond the cutoff): the Jastrow's gradient, grad_i J
 * = sum_j u'(r_ij) (r_i - r_j) / r_ij, in the drift of walker_drift_sweep. */
static inline MCF_PAIR_HD double mcf_pair_derivative(const mcf_pair_function *u, double r)
{
    if (u->form == MCF_PAIR_NONE || r >= u->cutoff)
        return 0.0;
    if (u->form == MCF_PAIR_BSPLINE) {
        double t;
        const double *c = mcf_pair_interval_(u, r, &t);
        const double s = 1.0 - t, t2 = t * t;
        const double D0 = -0.5 * s * s, D1 = 1.5 * t2 - 2.0 * t;
        const double D2 = -1.5 * t2 + t + 0.5, D3 = 0.5 * t2;
        return u->sign * u->inv_dr * (c[0] * D0 + c[1] * D1 + c[2] * D2 + c[3] * D3);
    }
    const double x = 1.0 - r / u->cutoff;
    double h1;
    const double h = mcf_pair_rpa_h_(u, r, &h1);
    return -3.0 * x * x / u->cutoff * h + x * x * x * h1;
}

#endif
