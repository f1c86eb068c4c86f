/* kbe_cuda_direct.cu — second Born's row Sigma^lg(t_m, t_s), s = 0 .. m, by the seed's loops
 * over k1 and k3 (selfenergy_method = direct: O(Nk^2) per k, the benchmark's parity and the
 * FFT's oracle; kbe_selfenergy.c says the formula). */
#include "kbe_cuda_internal.cuh"

/* the other band */
__device__ __forceinline__ int ob(int a) { return 1 - a; }

/* the seed's loops: Sigma_pq(k) = U U' / nk^2 sum_{k1, k3} [A_pq(k1) A_p'q'(k3) B_q'p'(kb) -
 * A_pq'(k1) B_q'p'(kb) A_p'q(k3)], kb = k1 + k3 - k, per (s, band pair, k) */
__global__ void k_sigma_direct(size_t nk, size_t m, const double *U, const cplx *gl,
                               const cplx *gg, cplx *sl, cplx *sg)
{
    const size_t bs = 4 * nk, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= (m + 1) * bs)
        return;
    const size_t s = t / bs, k = t % nk;
    const int pq = (int)((t / nk) % 4), p = pq / 2, q = pq % 2;
    const int pqq = 2 * p + ob(q), ppq = 2 * ob(p) + q, ppqq = 2 * ob(p) + ob(q);
    /* B_q'p' = -conj(O_p'q'): B's band pair transposed is p'q' */
    const double norm = U[m] * U[s] / ((double)nk * (double)nk);
    for (int lesser = 1; lesser >= 0; lesser--) {
        const cplx *A = (lesser ? gl : gg) + pair_of(m, s) * bs;
        const cplx *O = (lesser ? gg : gl) + pair_of(m, s) * bs; /* B = -O^dagger */
        cplx v = make_cuDoubleComplex(0.0, 0.0);
        for (size_t k1 = 0; k1 < nk; k1++)
            for (size_t k3 = 0; k3 < nk; k3++) {
                const size_t kb = (k1 + k3 + nk - k) % nk;
                const cplx o = O[ppqq * nk + kb], bq = make_cuDoubleComplex(-o.x, o.y);
                const cplx t1 = cmul(cmul(A[pq * nk + k1], A[ppqq * nk + k3]), bq);
                const cplx t2 = cmul(cmul(A[pqq * nk + k1], bq), A[ppq * nk + k3]);
                v = cadd(v, csub(t1, t2));
            }
        ((lesser ? sl : sg) + s * bs)[pq * nk + k] = cscale(norm, v);
    }
}

int kbcu_sigma_direct(kbcu_dev *d, size_t m)
{
    const size_t nk = d->nk, bs = 4 * nk;
    k_sigma_direct<<<blocks_for((m + 1) * bs), KBCU_THREADS, 0, mcu_stream()>>>(
        nk, m, d->U, d->gl, d->gg, d->sl, d->sg);
    return launched("the self-energy (direct)");
}
