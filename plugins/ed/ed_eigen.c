/* ed_eigen.c — the eigenpairs of a dense complex Hermitian matrix for the ed evaluator,
 * written out in C99 complex arithmetic: Householder reduction to a real symmetric
 * tridiagonal matrix, then the implicit QL iteration with Wilkinson's shift on it, the
 * rotations applied to the reduction's unitary (the textbook algorithm: Golub and Van Loan,
 * "Matrix Computations", 8.3; Wilkinson and Reinsch's tql2).
 *
 * Why not GSL's gsl_eigen_hermv, which does the same: it does every complex operation
 * through a library call (gsl_complex_mul_real, gsl_complex_add, gsl_vector_complex_get with
 * its range checks), 385 us at dimension 16 and 22 ms at 64 on one core of the development
 * machine; the hybrid Monte Carlo of a 2 x 2 x 2 double-exchange cube at finite J_H spends
 * 80 % of its time there (perf).  The same arithmetic inline is ~10x faster (measured in
 * tests/unit/test_ed_eigen.c's printout), and the test holds this solver to GSL's
 * eigenvalues and to the residual and orthonormality a backward-stable method guarantees.
 *
 * Layout as ed_diagonalize.c's: a[2 (i n + j)] (re) and [... + 1] (im) = A_ij, the lower
 * triangle read (the upper ignored), destroyed; z the same layout, z_rk = psi_k(r) on return
 * (z NULL: the eigenvalues only, neither Q nor the rotations formed); eval ascending.
 * Returns 0, or 1 when the QL iteration did not converge (60 sweeps of one eigenvalue). */
#include "ed_internal.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a b without C's checks for infinities (GCC and clang call __muldc3 for them: ~5x slower);
 * the matrices here are finite (ed_diagonalize.c checks the Hamiltonian first) */
static inline double complex mul(double complex a, double complex b)
{
    union { /* C99 has no CMPLX: the two parts set directly (C99 6.2.5: a double[2]) */
        double complex z;
        double part[2];
    } r;
    r.part[0] = creal(a) * creal(b) - cimag(a) * cimag(b);
    r.part[1] = creal(a) * cimag(b) + cimag(a) * creal(b);
    return r.z;
}

/* the reduction A = Q T Q^dagger, T tridiagonal with real diagonal d and complex
 * subdiagonal sub[k] = T_{k+1,k}; Q into q (n x n), v (n complex) scratch */
static void householder(double complex *A, double complex *q, double *d, double complex *sub,
                        double complex *v, double complex *p, double *beta_of, size_t n)
{
    for (size_t k = 0; k + 2 < n; k++) {
        const size_t m = n - k - 1; /* the trailing block's size */
        double complex *x = v + k + 1;
        double sigma = 0.0;
        for (size_t i = 0; i < m; i++) {
            x[i] = A[(k + 1 + i) * n + k];
            sigma += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
        }
        const double norm = sqrt(sigma), ax0 = cabs(x[0]);
        beta_of[k] = 0.0;
        if (norm == 0.0 || sigma - ax0 * ax0 <= 0.0) { /* already tridiagonal in column k */
            sub[k] = x[0];
            continue;
        }
        const double complex phase = ax0 > 0.0 ? x[0] / ax0 : 1.0;
        const double complex alpha = -phase * norm;
        x[0] -= alpha; /* v = x - alpha e_1; |v|^2 = 2 (sigma + |x_0| norm) */
        const double beta = 1.0 / (sigma + ax0 * norm); /* H = I - beta v v^dagger */
        beta_of[k] = beta;
        /* p = beta B v, K = beta / 2 v^dagger p, w = p - K v, B -= v w^dagger + w v^dagger:
         * B's lower triangle only (B is Hermitian; the upper is never read again) */
        for (size_t i = 0; i < m; i++)
            p[i] = 0.0;
        for (size_t i = 0; i < m; i++) {
            const double complex *row = A + (k + 1 + i) * n + k + 1;
            const double complex xi = x[i];
            double complex s = 0.0;
            for (size_t j = 0; j < i; j++) {
                s += mul(row[j], x[j]);
                p[j] += mul(conj(row[j]), xi);
            }
            p[i] += s + creal(row[i]) * xi;
        }
        double complex K = 0.0;
        for (size_t i = 0; i < m; i++) {
            p[i] *= beta;
            K += mul(conj(x[i]), p[i]);
        }
        K *= 0.5 * beta;
        for (size_t i = 0; i < m; i++)
            p[i] -= mul(K, x[i]);
        for (size_t i = 0; i < m; i++) {
            double complex *row = A + (k + 1 + i) * n + k + 1;
            const double complex vi = x[i], wi = p[i];
            for (size_t j = 0; j <= i; j++)
                row[j] -= mul(vi, conj(p[j])) + mul(wi, conj(x[j]));
        }
        sub[k] = alpha;
        for (size_t i = 0; i < m; i++) /* keep v for Q: column k below the diagonal */
            A[(k + 1 + i) * n + k] = x[i];
    }
    for (size_t i = 0; i < n; i++)
        d[i] = creal(A[i * n + i]);
    if (n >= 2)
        sub[n - 2] = A[(n - 1) * n + n - 2];
    if (!q)
        return;
    /* Q = H_0 H_1 ... H_{n-3}, from the last reflection back: Q <- H_k Q on rows k + 1 .. */
    memset(q, 0, n * n * sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i * n + i] = 1.0;
    for (size_t k = n >= 3 ? n - 2 : 0; k-- > 0;) {
        if (beta_of[k] == 0.0)
            continue;
        const size_t m = n - k - 1;
        for (size_t i = 0; i < m; i++)
            v[i] = A[(k + 1 + i) * n + k];
        /* rows k + 1 .. of Q: s = beta v^dagger Q, then Q -= v s, both along rows (the rows
         * before k + 1 and the columns before k + 1 are the identity's: H_k leaves them) */
        for (size_t j = k + 1; j < n; j++)
            p[j] = 0.0;
        for (size_t i = 0; i < m; i++) {
            const double complex cv = conj(v[i]), *row = q + (k + 1 + i) * n;
            for (size_t j = k + 1; j < n; j++)
                p[j] += mul(cv, row[j]);
        }
        for (size_t i = 0; i < m; i++) {
            const double complex bv = beta_of[k] * v[i];
            double complex *row = q + (k + 1 + i) * n;
            for (size_t j = k + 1; j < n; j++)
                row[j] -= mul(bv, p[j]);
        }
    }
}

/* sqrt(a^2 + b^2) without libm's hypot, which rounds correctly and costs ~20 ns a call: 27 %
 * of the eigenvalues-only solve at dimension 64 (perf, the GFMC of a 4^3 double-exchange
 * cube).  Scaled only where a^2 + b^2 could overflow or underflow; within 1 ulp of hypot. */
static inline double norm2(double a, double b)
{
    const double m = fmax(fabs(a), fabs(b));
    if (m > 0x1p-500 && m < 0x1p500)
        return sqrt(a * a + b * b);
    if (m == 0.0 || !isfinite(m))
        return m;
    const double x = a / m, y = b / m;
    return m * sqrt(x * x + y * y);
}

/* the implicit QL iteration on the real tridiagonal (d, e: e[i] couples i and i + 1), each
 * rotation applied to the rows of zt (n x n complex, the eigenvectors' matrix transposed, so
 * that a rotation runs along memory; NULL: none); 0, or 1 without convergence */
static int tridiagonal_ql(double *d, double *e, double complex *zt, size_t n)
{
    for (size_t l = 0; l < n; l++) {
        for (int iter = 0;; iter++) {
            size_t m = l;
            for (; m + 1 < n; m++) {
                const double dd = fabs(d[m]) + fabs(d[m + 1]);
                if (fabs(e[m]) <= DBL_EPSILON * dd)
                    break;
            }
            if (m == l)
                break;
            if (iter == 60)
                return 1;
            /* Wilkinson's shift from the leading 2 x 2 */
            double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            double r = norm2(g, 1.0);
            g = d[m] - d[l] + e[l] / (g + copysign(r, g));
            double s = 1.0, c = 1.0, p = 0.0;
            int deflated = 0;
            for (size_t i = m; i-- > l;) {
                const double f = s * e[i], b = c * e[i];
                r = norm2(f, g);
                e[i + 1] = r;
                if (r == 0.0) { /* an underflow: split here and start again */
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    deflated = 1;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                double complex *zi = zt ? zt + i * n : NULL, *zi1 = zi ? zi + n : NULL;
                for (size_t k = 0; zi && k < n; k++) {
                    const double complex a0 = zi[k], a1 = zi1[k];
                    zi1[k] = s * a0 + c * a1;
                    zi[k] = c * a0 - s * a1;
                }
            }
            if (deflated)
                continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    return 0;
}

int ed_eigen_hermitian(double *a, double *z, size_t n, double *eval)
{
    if (n == 0)
        return 0;
    double complex *A = (double complex *)a, *Z = (double complex *)z;
    double complex *sub = malloc(3 * n * sizeof *sub), *v = sub + n, *p = v + n;
    double *e = malloc(2 * n * sizeof *e), *beta = e + n;
    if (!sub || !e) {
        free(sub);
        free(e);
        return -1;
    }
    householder(A, Z, eval, sub, v, p, beta, n);
    /* T's subdiagonal made real by phases: W = Q diag(ph), ph_{k+1} = ph_k sub_k / |sub_k| */
    double complex ph = 1.0;
    for (size_t k = 0; k + 1 < n; k++) {
        const double as = cabs(sub[k]);
        e[k] = as;
        if (as > 0.0)
            ph = mul(ph, sub[k] / as);
        for (size_t r = 0; Z && r < n; r++)
            Z[r * n + k + 1] = mul(Z[r * n + k + 1], ph);
    }
    e[n - 1] = 0.0;
    double complex *Zt = Z ? A : NULL; /* A is spent: it holds W transposed */
    for (size_t r = 0; Z && r < n; r++)
        for (size_t k = 0; k < n; k++)
            Zt[k * n + r] = Z[r * n + k];
    const int rc = tridiagonal_ql(eval, e, Zt, n);
    for (size_t i = 0; !rc && i + 1 < n; i++) { /* ascending, the vectors along */
        size_t lo = i;
        for (size_t j = i + 1; j < n; j++)
            if (eval[j] < eval[lo])
                lo = j;
        if (lo == i)
            continue;
        const double t = eval[i];
        eval[i] = eval[lo];
        eval[lo] = t;
        for (size_t r = 0; Zt && r < n; r++) {
            const double complex u = Zt[i * n + r];
            Zt[i * n + r] = Zt[lo * n + r];
            Zt[lo * n + r] = u;
        }
    }
    for (size_t k = 0; Z && k < n; k++)
        for (size_t r = 0; r < n; r++)
            Z[r * n + k] = Zt[k * n + r];
    free(sub);
    free(e);
    return rc;
}
