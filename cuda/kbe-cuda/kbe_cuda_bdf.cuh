/* kbe_cuda_bdf.cuh — what the step of order p on the GPU (kbe_cuda_bdf.cu: the prediction,
 * the rows; kbe_cuda_strip.cu: the strip, the diagonal) shares: the per-k device forms of
 * kbe_bdf.c's helpers, each written as the CPU's C complex arithmetic evaluates it (a real
 * times a complex scales both parts, I * dt * z is (-dt Im z, dt Re z)), so that the two
 * agree to rounding, and the host launches between the two files.  Not for the plugin or the
 * tests. */
#ifndef MCF_KBE_CUDA_BDF_CUH
#define MCF_KBE_CUDA_BDF_CUH

#include "kbe_cuda_internal.cuh"

/* C's I * x * z for real x: (0, x) z */
__device__ __forceinline__ cplx ctimes_i(double x, cplx z)
{
    return make_cuDoubleComplex(-x * z.y, x * z.x);
}

/* block_madd (kbe_internal.h) for one k: acc += wt (a b) or, adj, acc -= wt (a b^dagger)
 * (b holds G(t_j, t_s) and the product takes -b^dagger) */
__device__ __forceinline__ void madd4(double wt, const cplx *a, const cplx *b, int adj,
                                      cplx *acc)
{
    if (!adj) {
        acc[0] = cadd(acc[0], cscale(wt, cadd(cmul(a[0], b[0]), cmul(a[1], b[2]))));
        acc[1] = cadd(acc[1], cscale(wt, cadd(cmul(a[0], b[1]), cmul(a[1], b[3]))));
        acc[2] = cadd(acc[2], cscale(wt, cadd(cmul(a[2], b[0]), cmul(a[3], b[2]))));
        acc[3] = cadd(acc[3], cscale(wt, cadd(cmul(a[2], b[1]), cmul(a[3], b[3]))));
        return;
    }
    const cplx b0 = cconj(b[0]), b1 = cconj(b[2]), b2 = cconj(b[1]), b3 = cconj(b[3]);
    acc[0] = csub(acc[0], cscale(wt, cadd(cmul(a[0], b0), cmul(a[1], b2))));
    acc[1] = csub(acc[1], cscale(wt, cadd(cmul(a[0], b1), cmul(a[1], b3))));
    acc[2] = csub(acc[2], cscale(wt, cadd(cmul(a[2], b0), cmul(a[3], b2))));
    acc[3] = csub(acc[3], cscale(wt, cadd(cmul(a[2], b1), cmul(a[3], b3))));
}

/* kbe_bdf.c's add_g for one k: acc += c G(t_i, t_j) of the triangle g (the adjoint above
 * the diagonal) */
__device__ __forceinline__ void add_g4(const cplx *g, size_t nk, size_t i, size_t j, size_t k,
                                       double c, cplx *acc)
{
    cplx b[4];
    if (i >= j) {
        load4(g + pair_of(i, j) * 4 * nk, nk, k, b);
        for (int q = 0; q < 4; q++)
            acc[q] = cadd(acc[q], cscale(c, b[q]));
        return;
    }
    load4(g + pair_of(j, i) * 4 * nk, nk, k, b);
    acc[0] = csub(acc[0], cscale(c, cconj(b[0])));
    acc[1] = csub(acc[1], cscale(c, cconj(b[2])));
    acc[2] = csub(acc[2], cscale(c, cconj(b[1])));
    acc[3] = csub(acc[3], cscale(c, cconj(b[3])));
}

/* kbe_solve for n = 4: x = A^{-1} b (A row-major, destroyed; b 4 x nrhs), Gaussian
 * elimination with partial pivoting by |.| = hypot (glibc's cabs) */
__device__ __forceinline__ void solve4(cplx *A, cplx *b, int nrhs)
{
    const int n = 4;
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (hypot(A[r * n + c].x, A[r * n + c].y) >
                hypot(A[piv * n + c].x, A[piv * n + c].y))
                piv = r;
        if (piv != c) {
            for (int q = 0; q < n; q++) {
                const cplx x = A[c * n + q];
                A[c * n + q] = A[piv * n + q];
                A[piv * n + q] = x;
            }
            for (int q = 0; q < nrhs; q++) {
                const cplx x = b[c * nrhs + q];
                b[c * nrhs + q] = b[piv * nrhs + q];
                b[piv * nrhs + q] = x;
            }
        }
        for (int r = c + 1; r < n; r++) {
            const cplx f = cuCdiv(A[r * n + c], A[c * n + c]);
            if (f.x == 0.0 && f.y == 0.0)
                continue;
            for (int q = c; q < n; q++)
                A[r * n + q] = csub(A[r * n + q], cmul(f, A[c * n + q]));
            for (int q = 0; q < nrhs; q++)
                b[r * nrhs + q] = csub(b[r * nrhs + q], cmul(f, b[c * nrhs + q]));
        }
    }
    for (int c = n - 1; c >= 0; c--)
        for (int q = 0; q < nrhs; q++) {
            cplx s = b[c * nrhs + q];
            for (int r = c + 1; r < n; r++)
                s = csub(s, cmul(A[c * n + r], b[r * nrhs + q]));
            b[c * nrhs + q] = cuCdiv(s, A[c * n + c]);
        }
}

/* kbe_bdf.c's sylvester: X of a_0 X + i dt (H X - X Hr^dagger) = b per k for nrhs (<= 2)
 * right-hand sides b[4 q + ab], in place */
__device__ __forceinline__ void sylvester4(double a0, double dt, const cplx *H, const cplx *Hr,
                                           cplx *b, int nrhs)
{
    cplx A[16], rhs[8];
    const cplx zero = make_cuDoubleComplex(0.0, 0.0);
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            for (int q = 0; q < nrhs; q++)
                rhs[(2 * a + c) * nrhs + q] = b[4 * q + 2 * a + c];
            for (int e = 0; e < 2; e++)
                for (int d = 0; d < 2; d++) {
                    const cplx z = csub(c == d ? H[2 * a + e] : zero,
                                        a == e ? cconj(Hr[2 * c + d]) : zero);
                    const cplx iz = ctimes_i(dt, z);
                    A[(2 * a + c) * 4 + 2 * e + d] =
                        make_cuDoubleComplex((a == e && c == d ? a0 : 0.0) + iz.x, iz.y);
                }
        }
    solve4(A, rhs, nrhs);
    for (int ab = 0; ab < 4; ab++)
        for (int q = 0; q < nrhs; q++)
            b[4 * q + ab] = rhs[ab * nrhs + q];
}

/* the strip of points next to the diagonal and the diagonal of row n1 (kbe_cuda_strip.cu),
 * on the stream after the rows j <= n1 - p; measure: the diagonal's change into d->resk */
KBCU_API int kbcu_bdf_strip(kbcu_dev *d, size_t n1);
KBCU_API int kbcu_bdf_diagonal(kbcu_dev *d, size_t n1, int measure);

#endif
