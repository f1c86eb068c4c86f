/* blip_cuda_det_refresh.cu — the refresh of the determinants blip-cuda keeps on the
 * device: the drift max |Ainv A - 1| of each inverse by a tiled DGEMM (E = 1 - Ainv A), and
 * one Newton step Ainv <- Ainv + E Ainv (error E^2: back to rounding) where the drift is
 * below 0.25; above, the model inverts anew (det_get, det_set). */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>

#define GEMM_T 16 /* tile of the refresh's DGEMM */

struct det_gemm {
    const double *P, *Q, *B;
    double *out, *bmax;
    unsigned int m;
};

__global__ void __launch_bounds__(GEMM_T *GEMM_T)
    det_gemm_kernel(const det_gemm *__restrict__ jobs, double sign)
{
    const det_gemm J = jobs[blockIdx.z];
    const unsigned int m = J.m, tx = threadIdx.x, ty = threadIdx.y;
    const unsigned int row = blockIdx.y * GEMM_T + ty, col = blockIdx.x * GEMM_T + tx;
    __shared__ double sP[GEMM_T][GEMM_T], sQ[GEMM_T][GEMM_T + 1];
    __shared__ double smax[GEMM_T * GEMM_T];
    const bool block_in = blockIdx.y * GEMM_T < m && blockIdx.x * GEMM_T < m;
    double acc = 0.0;
    if (block_in)
        for (unsigned int k0 = 0; k0 < m; k0 += GEMM_T) {
            sP[ty][tx] = row < m && k0 + tx < m ? J.P[(size_t)row * m + k0 + tx] : 0.0;
            sQ[ty][tx] = k0 + ty < m && col < m ? J.Q[(size_t)(k0 + ty) * m + col] : 0.0;
            __syncthreads();
#pragma unroll
            for (int k = 0; k < GEMM_T; k++)
                acc += sP[ty][k] * sQ[k][tx];
            __syncthreads();
        }
    double a = 0.0;
    if (block_in && row < m && col < m) {
        const size_t q = (size_t)row * m + col;
        const double base = J.B ? J.B[q] : (row == col ? 1.0 : 0.0);
        const double v = base + sign * acc;
        J.out[q] = v;
        a = fabs(v);
        if (a != a)
            a = INFINITY; /* a NaN is no drift to trust */
    }
    if (!J.bmax)
        return;
    const unsigned int t = ty * GEMM_T + tx;
    smax[t] = a;
    __syncthreads();
    for (unsigned int s = GEMM_T * GEMM_T / 2; s > 0; s >>= 1) {
        if (t < s && smax[t + s] > smax[t])
            smax[t] = smax[t + s];
        __syncthreads();
    }
    if (t == 0)
        J.bmax[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = smax[0]; /* J.bmax: this det's */
}

/* one det of det_local: the vgl rows at its m positions and its inverse */
/* ---- refresh ------------------------------------------------------------------------------- */

/* launches the GEMM of n jobs over the largest m */
static int det_gemm_launch(const det_gemm *hjobs, size_t n, unsigned int mmax, double sign,
                           det_gemm *djobs)
{
    const size_t bytes = n * sizeof(det_gemm);
    BCU_TRY(cudaMemcpyAsync(djobs, hjobs, bytes, cudaMemcpyHostToDevice, bcu_stream),
            "sending the refresh jobs", bytes);
    const unsigned int tiles = (mmax + GEMM_T - 1) / GEMM_T;
    const dim3 grid(tiles, tiles, (unsigned int)n), block(GEMM_T, GEMM_T);
    det_gemm_kernel<<<grid, block, 0, bcu_stream>>>(djobs, sign);
    BCU_TRY(cudaGetLastError(), "launching the refresh product", 0);
    return MCF_OK;
}

static int det_refresh_staged(bcu_batch *kb, bcu_det *const *d, size_t n, double *drift)
{
    int rc = det_flush(kb, d, n);
    if (rc)
        return rc;
    unsigned int mmax = 0;
    for (size_t k = 0; k < n; k++) {
        bcu_det *D = d[k];
        if (D->m > mmax)
            mmax = D->m;
        if (!D->scratch) {
            const size_t mm = (size_t)D->m * D->m * sizeof(double);
            cudaError_t e = cudaMalloc((void **)&D->scratch, mm);
            if (e != cudaSuccess)
                return bcu_fail(e, "the refresh's scratch matrix", mm);
        }
    }
    const unsigned int tiles = (mmax + GEMM_T - 1) / GEMM_T;
    const size_t nblk = (size_t)tiles * tiles;
    const size_t jobs_bytes = (2 * n * sizeof(det_gemm) + 15) / 16 * 16;
    const size_t maxes = n * nblk;
    if ((rc = det_stage(kb, jobs_bytes, maxes * sizeof(double))))
        return rc;
    det_gemm *h1 = (det_gemm *)kb->det.h_in, *h2 = h1 + n;
    det_gemm *g1 = (det_gemm *)kb->det.d_in, *g2 = g1 + n;
    /* E = 1 - Ainv A into scratch, with the block maxima */
    for (size_t k = 0; k < n; k++) {
        h1[k].P = d[k]->Ainv;
        h1[k].Q = d[k]->A;
        h1[k].B = NULL;
        h1[k].out = d[k]->scratch;
        h1[k].bmax = kb->det.d_out + k * nblk;
        h1[k].m = d[k]->m;
    }
    if ((rc = det_gemm_launch(h1, n, mmax, -1.0, g1)))
        return rc;
    BCU_TRY(cudaMemcpyAsync(kb->det.h_out, kb->det.d_out, maxes * sizeof(double),
                            cudaMemcpyDeviceToHost, bcu_stream),
            "fetching the drift", maxes * sizeof(double));
    BCU_TRY(cudaStreamSynchronize(bcu_stream), "the refresh's drift", 0);
    size_t newton = 0;
    for (size_t k = 0; k < n; k++) {
        const unsigned int tk = (d[k]->m + GEMM_T - 1) / GEMM_T;
        double mx = 0.0;
        for (unsigned int y = 0; y < tk; y++)
            for (unsigned int x = 0; x < tk; x++) {
                const double v = kb->det.h_out[k * nblk + (size_t)y * tiles + x];
                if (!(v <= mx))
                    mx = v;
            }
        drift[k] = mx;
        if (mx < 0.25) {
            /* Newton: Ainv <- Ainv + E Ainv, into the det's other buffer (A stays) */
            h2[newton].P = d[k]->scratch;
            h2[newton].Q = d[k]->Ainv;
            h2[newton].B = d[k]->Ainv;
            h2[newton].out = NULL; /* below: the buffer E does not need after the product */
            h2[newton].bmax = NULL;
            h2[newton].m = d[k]->m;
            newton++;
        }
    }
    if (!newton)
        return MCF_OK;
    /* the product must not overwrite Ainv while it is read: a temporary (stream-ordered
     * allocation, once per refresh, i.e. every N accepted moves), copied back after */
    double *tmp = NULL;
    size_t stride = (size_t)mmax * mmax;
    BCU_TRY(cudaMallocAsync((void **)&tmp, newton * stride * sizeof(double), bcu_stream),
            "the refresh's product", newton * stride * sizeof(double));
    for (size_t k = 0; k < newton; k++)
        h2[k].out = tmp + k * stride;
    rc = det_gemm_launch(h2, newton, mmax, 1.0, g2);
    if (!rc) {
        size_t q = 0;
        for (size_t k = 0; k < n && !rc; k++)
            if (drift[k] < 0.25) {
                const size_t mm = (size_t)d[k]->m * d[k]->m * sizeof(double);
                cudaError_t e = cudaMemcpyAsync(d[k]->Ainv, tmp + q * stride, mm,
                                                cudaMemcpyDeviceToDevice, bcu_stream);
                if (e != cudaSuccess)
                    rc = bcu_fail(e, "storing the refreshed inverse", mm);
                q++;
            }
    }
    cudaFreeAsync(tmp, bcu_stream);
    cudaError_t e = cudaStreamSynchronize(bcu_stream);
    if (!rc && e != cudaSuccess)
        rc = bcu_fail(e, "the refresh", 0);
    return rc;
}

extern "C" int bcu_det_refresh(mcf_batch *b, bcu_det *const *d, size_t n, double *drift)
{
    int rc = det_check_batch("det_refresh", d, n);
    if (rc || n == 0)
        return rc;
    if (!drift)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_refresh: NULL drift array");
    bcu_batch *kb;
    if ((rc = bcu_batch_of(b, &kb)))
        return rc;
    return det_refresh_staged(kb, d, n, drift);
}

