/* test_kbe_gregory.c — the quadrature weights of order p of plugins/kbe (kbe_gregory.c), the
 * higher-order steppers' building block (label physics):
 *  - every order p = 2 .. 5 and n = 0 .. 40: the weights integrate t^m exactly,
 *    sum_j w_j j^m = n^{m+1} / (m + 1), to 1e-12 relative, for m <= p - 1 with even p and for
 *    the start weights, m <= p - 2 with odd p (Gregory's end corrections of odd order leave an
 *    O(h^p) error on t^{p-1}: the order, not exactness one degree further);
 *  - Gregory's weights themselves at n = 20: 1/2 (p = 2); 5/12, 13/12 (3); 3/8, 7/6, 23/24 (4);
 *    251/720, 299/240, 211/240, 739/720 (5), mirrored at the far end, 1 between;
 *  - on a smooth function, int_0^1 e^t, the error falls by 2^p x [0.8, 1.25] from h = 1/20 to
 *    1/40 (order p);
 *  - orders 1 and 6 refused;
 *  - the backward differentiation formulas of order 1 .. 5 (kbe_bdf_weights): BDF5's
 *    coefficients, exact derivatives of t^m for m <= p, and y' = -y integrated to t = 1 with
 *    exact starting values: the error falls by 2^p x [0.8, 1.25] per halving of h. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/error.h"

int main(void)
{
    double w[64];
    for (int p = 2; p <= 5; p++)
        for (size_t n = 0; n <= 40; n++) {
            CHECK(kbe_gregory_weights(p, n, w) == MCF_OK, "p %d n %zu: %s", p, n,
                  mcf_last_error());
            const size_t pts = n > (size_t)(p - 1) ? n : (size_t)(p - 1);
            double worst = 0;
            const int exact_to = n < (size_t)(p - 1) || p % 2 == 0 ? p - 1 : p - 2;
            for (int m = 0; m <= exact_to; m++) {
                double sum = 0;
                for (size_t j = 0; j <= pts; j++)
                    sum += w[j] * (m == 0 ? 1.0 : pow((double)j, m));
                const double exact = pow((double)n, m + 1) / (m + 1);
                worst = fmax(worst, fabs(sum - exact) / fmax(1.0, fabs(exact)));
            }
            CHECK(worst <= 1e-12, "p = %d, n = %zu: the moments miss by %.2e", p, n, worst);
        }
    static const double want[4][4] = {{0.5, 1, 1, 1},
                                      {5.0 / 12, 13.0 / 12, 1, 1},
                                      {3.0 / 8, 7.0 / 6, 23.0 / 24, 1},
                                      {251.0 / 720, 299.0 / 240, 211.0 / 240, 739.0 / 720}};
    for (int p = 2; p <= 5; p++) {
        kbe_gregory_weights(p, 20, w);
        double worst = 0;
        for (int j = 0; j < 4; j++)
            worst = fmax(worst, fmax(fabs(w[j] - want[p - 2][j]),
                                     fabs(w[20 - j] - want[p - 2][j])));
        for (int j = 4; j <= 16; j++)
            worst = fmax(worst, fabs(w[j] - 1.0));
        CHECK(worst <= 1e-14, "p = %d: Gregory's weights differ by %.2e", p, worst);
    }
    for (int p = 2; p <= 5; p++) {
        double err[2];
        for (int q = 0; q < 2; q++) {
            const size_t n = q ? 40 : 20;
            const double h = 1.0 / (double)n;
            kbe_gregory_weights(p, n, w);
            double sum = 0;
            for (size_t j = 0; j <= n; j++)
                sum += h * w[j] * exp((double)j * h);
            err[q] = fabs(sum - (exp(1.0) - 1.0));
        }
        const double r = err[0] / err[1], want_r = pow(2.0, p);
        printf("order %d: int_0^1 e^t to %.2e (h = 1/20), %.2e (1/40): ratio %.2f (2^p = %g)\n",
               p, err[0], err[1], r, want_r);
        CHECK(r >= 0.8 * want_r && r <= 1.25 * want_r, "order %d: the error falls by %.2f, not "
              "2^%d x [0.8, 1.25]", p, r, p);
    }
    /* BDF: the classic coefficients; exact derivatives of t^m, m <= p; y' = -y from exact
     * starting values to t = 1: the error falls by 2^p x [0.8, 1.25] from h = 1/40 to 1/80 */
    static const double bdf5[6] = {137.0 / 60, -5, 5, -10.0 / 3, 5.0 / 4, -1.0 / 5};
    double a[6];
    CHECK(kbe_bdf_weights(5, a) == MCF_OK, "BDF5: %s", mcf_last_error());
    double dev = 0;
    for (int j = 0; j <= 5; j++)
        dev = fmax(dev, fabs(a[j] - bdf5[j]));
    CHECK(dev <= 1e-14, "BDF5's coefficients differ by %.2e", dev);
    for (int p = 1; p <= 5; p++) {
        kbe_bdf_weights(p, a);
        double worst = 0; /* d/dt t^m at t = 10 from t = 10, 9, ..., 10 - p (h = 1) */
        for (int m = 0; m <= p; m++) {
            double d = 0;
            for (int j = 0; j <= p; j++)
                d += a[j] * pow(10.0 - j, m);
            worst = fmax(worst, fabs(d - (m ? m * pow(10.0, m - 1) : 0.0)) /
                                    fmax(1.0, m * pow(10.0, m - 1)));
        }
        CHECK(worst <= 1e-11, "BDF%d: t^m differentiated to %.2e", p, worst);
        double err[2];
        for (int q = 0; q < 2; q++) { /* sum_j a_j y_{n-j} = -h y_n, solved for y_n */
            const size_t n = q ? 80 : 40;
            const double h = 1.0 / (double)n;
            double y[81];
            for (int j = 0; j < p; j++)
                y[j] = exp(-h * j);
            for (size_t i = (size_t)p; i <= n; i++) {
                double rhs = 0;
                for (int j = 1; j <= p; j++)
                    rhs -= a[j] * y[i - (size_t)j];
                y[i] = rhs / (a[0] + h);
            }
            err[q] = fabs(y[n] - exp(-1.0));
        }
        const double r = err[0] / err[1], want_r = pow(2.0, p);
        printf("BDF%d: y' = -y to t = 1: %.2e (h = 1/40), %.2e (1/80), ratio %.2f\n", p, err[0],
               err[1], r);
        CHECK(r >= 0.8 * want_r && r <= 1.25 * want_r, "BDF%d: the error falls by %.2f, not "
              "2^%d x [0.8, 1.25]", p, r, p);
    }
    CHECK(kbe_bdf_weights(0, a) == MCF_EINVAL && kbe_bdf_weights(6, a) == MCF_EINVAL,
          "BDF orders 0 and 6 taken");
    CHECK(kbe_gregory_weights(1, 5, w) == MCF_EINVAL, "order 1 taken");
    CHECK(kbe_gregory_weights(6, 5, w) == MCF_EINVAL, "order 6 taken");
    return check_exit();
}
