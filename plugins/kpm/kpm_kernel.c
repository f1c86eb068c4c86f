/* kpm_kernel.c — the kernels damping the Chebyshev moments (Jackson, Lorentz, none) and
 * the width of the Jackson-broadened delta peak (kpm_core.h, "kernels"). */
#include "kpm_core.h"

#include <math.h>

static const double kpm_pi = 3.14159265358979323846;

/* ---- kernels ----------------------------------------------------------------------- */

void kpm_kernel_coefficients(kpm_kernel k, double lambda, size_t M, double *g)
{
    const double Md = (double)M;
    switch (k) {
    case KPM_KERNEL_JACKSON: {
        const double q = kpm_pi / (Md + 1.0), cot = cos(q) / sin(q);
        for (size_t n = 0; n < M; n++) {
            const double nd = (double)n;
            g[n] = ((Md - nd + 1.0) * cos(q * nd) + sin(q * nd) * cot) / (Md + 1.0);
        }
        break;
    }
    case KPM_KERNEL_LORENTZ: {
        const double s = sinh(lambda);
        for (size_t n = 0; n < M; n++)
            g[n] = sinh(lambda * (1.0 - (double)n / Md)) / s;
        break;
    }
    case KPM_KERNEL_NONE:
    default:
        for (size_t n = 0; n < M; n++)
            g[n] = 1.0;
        break;
    }
}

double kpm_jackson_width(size_t M, double x)
{
    /* a delta at x = cos(phi) broadened by the kernel: <y> = g_1 x and
     * <y^2> = (1 + g_2 T_2(x)) / 2, with g_1 = cos q, g_2 = (M cos 2q + 1) / (M + 1) */
    const double q = kpm_pi / ((double)M + 1.0);
    const double g1 = cos(q), g2 = ((double)M * cos(2.0 * q) + 1.0) / ((double)M + 1.0);
    const double var = 0.5 * (1.0 + g2 * (2.0 * x * x - 1.0)) - g1 * g1 * x * x;
    return sqrt(var > 0.0 ? var : 0.0);
}
