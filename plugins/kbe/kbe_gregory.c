/* kbe_gregory.c — quadrature weights of order p on an equidistant grid and the backward
 * differentiation formulas of order p (kbe_core.h), the building blocks of the higher-order
 * steppers (issue 45, item 4: NESSi's Gregory / BDF
 * scheme).  For n >= p - 1 points past the first, Gregory's rule: the trapezoid plus end
 * corrections from forward differences at t_0 and backward differences at t_n,
 *
 *   int_0^{n h} f = h [f_0/2 + f_1 + ... + f_n/2]
 *                   + h sum_{k=1}^{p-2} c_k ((-1)^{k+1} Delta^k f_0 - nabla^k f_n),
 *
 * c_k = 1/12, 1/24, 19/720 (Gregory's coefficients): an error O(h^p) on smooth f, exact for
 * polynomials of degree p - 1 (even p) or p - 2 (odd p), weights that differ from the
 * trapezoid's only in the
 * first and last p - 1 points (5/12, 13/12 for p = 3; 251/720, 299/240, 211/240, 739/720 for
 * p = 5).  For n < p - 1 the grid holds too few points: the polynomial through t_0 .. t_{p-1}
 * integrated from 0 to n h (the start weights, which reach past t_n). */
#include "kbe_core.h"

#include "mcf/error.h"

#include <math.h>
#include <string.h>

/* Gregory's coefficients c_1 .. c_3 (c_4 = 863/60480 would be order 6) */
static const double gregory_c[3] = {1.0 / 12.0, 1.0 / 24.0, 19.0 / 720.0};

static double binomial(int k, int i)
{
    double b = 1.0;
    for (int q = 1; q <= i; q++)
        b = b * (double)(k - q + 1) / (double)q;
    return b;
}

/* the interpolatory weights of the points 0 .. p - 1 for int_0^n: sum_j w_j j^m = n^{m+1} /
 * (m + 1), m < p, by Gaussian elimination with partial pivoting (p <= 5: a 5 x 5 system) */
static void start_weights(int p, int n, double *w)
{
    long double a[KBE_GREGORY_MAX_ORDER][KBE_GREGORY_MAX_ORDER + 1];
    for (int m = 0; m < p; m++) {
        for (int j = 0; j < p; j++)
            a[m][j] = powl((long double)j, (long double)m);
        a[m][p] = powl((long double)n, (long double)(m + 1)) / (long double)(m + 1);
    }
    a[0][0] = 1.0L; /* 0^0 */
    for (int c = 0; c < p; c++) {
        int piv = c;
        for (int r = c + 1; r < p; r++)
            if (fabsl(a[r][c]) > fabsl(a[piv][c]))
                piv = r;
        for (int q = 0; q <= p; q++) {
            const long double t = a[c][q];
            a[c][q] = a[piv][q];
            a[piv][q] = t;
        }
        for (int r = 0; r < p; r++) {
            if (r == c)
                continue;
            const long double f = a[r][c] / a[c][c];
            for (int q = c; q <= p; q++)
                a[r][q] -= f * a[c][q];
        }
    }
    for (int j = 0; j < p; j++)
        w[j] = (double)(a[j][p] / a[j][j]);
}

int kbe_gregory_weights(int p, size_t n, double *w)
{
    if (p < 2 || p > KBE_GREGORY_MAX_ORDER || !w)
        return mcf_fail(MCF_EINVAL, "kbe: quadrature order %d (2 .. %d)", p,
                        KBE_GREGORY_MAX_ORDER);
    if (n < (size_t)(p - 1)) {
        start_weights(p, (int)n, w);
        return MCF_OK;
    }
    for (size_t j = 0; j <= n; j++)
        w[j] = (j == 0 || j == n) ? 0.5 : 1.0; /* n >= 1 here */
    for (int k = 1; k <= p - 2; k++) {
        const double c = gregory_c[k - 1], left = (k % 2 == 1) ? c : -c;
        for (int i = 0; i <= k; i++) {
            const double b = binomial(k, i);
            /* Delta^k f_0 = sum_i (-1)^(k-i) C(k, i) f_i,
             * nabla^k f_n = sum_i (-1)^i C(k, i) f_{n-i} */
            w[i] += left * (((k - i) % 2) ? -b : b);
            w[n - (size_t)i] -= c * ((i % 2) ? -b : b);
        }
    }
    return MCF_OK;
}

int kbe_bdf_weights(int p, double *a)
{
    if (p < 1 || p > KBE_GREGORY_MAX_ORDER || !a)
        return mcf_fail(MCF_EINVAL, "kbe: BDF order %d (1 .. %d)", p, KBE_GREGORY_MAX_ORDER);
    /* h y'(t_n) = sum_{k=1}^{p} (1/k) nabla^k y_n + O(h^{p+1}),
     * nabla^k y_n = sum_j (-1)^j C(k, j) y_{n-j} */
    for (int j = 0; j <= p; j++)
        a[j] = 0.0;
    for (int k = 1; k <= p; k++)
        for (int j = 0; j <= k; j++)
            a[j] += ((j % 2) ? -1.0 : 1.0) * binomial(k, j) / (double)k;
    return MCF_OK;
}
