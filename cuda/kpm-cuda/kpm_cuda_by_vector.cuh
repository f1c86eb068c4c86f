/* kpm_cuda_by_vector.cuh — the GFMC kernel's recursion by vector, for lattices of at most
 * KCU_BY_VECTOR_ROWS rows (kcu_gfmc_settings.by_vector; docs/architecture.md says why).
 * One block per chain, H and both vector blocks in its shared memory; warp j < KCU_NV runs
 * the K steps of vector j alone, its lanes over the rows.  A step reads only vector j, which
 * only warp j writes, so __syncwarp orders the steps; the sums of a step are 2 warp sums (3
 * at the first), written by lane 0 to the chain's part[] in the layout the moments'
 * assembly reads (G = 1).  Device code of the GFMC kernel's translation unit: included by
 * kpm_cuda_gfmc_kernel.cu only (no relocatable device code), after kpm_cuda_internal.cuh. */
#ifndef MCF_KPM_CUDA_BY_VECTOR_CUH
#define MCF_KPM_CUDA_BY_VECTOR_CUH

#include "kpm_cuda_internal.cuh"

/* One vector's recursion, warp j = vector j, the lane's RPL rows r = lane + 32 p (dim <= 32
 * RPL, the width WT known) in registers: their hoppings, the shared-memory offsets of their
 * neighbours in vector j, their entries of r_n and r_{n-1}; a step reads only the gathered
 * neighbours and writes only r_{n+1} (for the other lanes' gathers): the row products and
 * the two warp sums. */
template <int WT, int RPL>
__device__ __forceinline__ void kcu_gfmc_by_vector_reg(const kcu_task *T, const int32_t *col,
                                                       const double *hre, const double *him,
                                                       const double *ons, long long hs,
                                                       double2 *v0, double2 *v1)
{
    const int j = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int dim = (int)T->dim, K = T->K;
    const double ia = T->ia, shift = T->b;
    int off[RPL][WT], me[RPL];
    double hr[RPL][WT], hi[RPL][WT], e[RPL];
    double2 x[RPL], y[RPL];
    bool has[RPL];
#pragma unroll
    for (int p = 0; p < RPL; p++) {
        const int r = lane + 32 * p;
        has[p] = r < dim;
        me[p] = has[p] ? (int)kcu_vidx(r, j) : 0;
        e[p] = has[p] ? ons[r] - shift : 0.0;
        x[p] = has[p] ? v0[me[p]] : make_double2(0.0, 0.0);
        y[p] = make_double2(0.0, 0.0);
#pragma unroll
        for (int k = 0; k < WT; k++) {
            const int32_t c = has[p] ? col[k * hs + r] : -1;
            off[p][k] = c >= 0 ? (int)kcu_vidx(c, j) : -1;
            hr[p][k] = has[p] ? hre[k * hs + r] : 0.0;
            hi[p][k] = has[p] ? him[k * hs + r] : 0.0;
        }
    }
    const double2 *cur = v0;
    double2 *nxt = v1;
    for (int n = 1; n <= K; n++) {
        const bool first = n == 1;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
#pragma unroll
        for (int p = 0; p < RPL; p++) {
            if (!has[p])
                continue;
            double2 acc = make_double2(e[p] * x[p].x, e[p] * x[p].y);
#pragma unroll
            for (int k = 0; k < WT; k++) {
                if (off[p][k] < 0)
                    continue;
                const double2 v = cur[off[p][k]];
                acc.x += hr[p][k] * v.x - hi[p][k] * v.y;
                acc.y += hr[p][k] * v.y + hi[p][k] * v.x;
            }
            const double2 yr = kcu_cheb_next(first, ia, acc, x[p], y[p], &s0, &s1, &s2);
            nxt[me[p]] = yr;
            y[p] = x[p];
            x[p] = yr;
        }
        __syncwarp();
        s1 = kcu_warp_sum(s1);
        s2 = kcu_warp_sum(s2);
        if (first)
            s0 = kcu_warp_sum(s0);
        if (lane == 0) {
            double *pp = T->part + (size_t)(n - 1) * KCU_NS;
            if (first)
                pp[j] = s0;
            pp[KCU_NV + j] = s1;
            pp[2 * KCU_NV + j] = s2;
        }
        double2 *t = (double2 *)cur;
        cur = nxt;
        nxt = t;
    }
}

/* The recursion by vector (launch by_vector): warp j < KCU_NV runs vector j alone with
 * its lane's one or two rows in registers; the other warps have nothing to do here. */
template <int WT>
__device__ __forceinline__ void kcu_gfmc_by_vector(const kcu_task *T, const int32_t *col,
                                                   const double *hre, const double *him,
                                                   const double *ons, long long hs,
                                                   double2 *v0, double2 *v1)
{
    if ((threadIdx.x >> 5) >= KCU_NV)
        return;
    if (T->dim <= 32)
        kcu_gfmc_by_vector_reg<WT, 1>(T, col, hre, him, ons, hs, v0, v1);
    else
        kcu_gfmc_by_vector_reg<WT, 2>(T, col, hre, him, ons, hs, v0, v1);
}

#endif
