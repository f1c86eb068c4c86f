/* blip_cuda_det_local.cu — the local-energy part of the determinants blip-cuda keeps on the
 * device: values, gradients and Laplacians of the orbitals at the electrons into device
 * memory (the vgl kernel of blip_cuda_eval.cu), then one warp per electron contracts them
 * with the inverse, grad_i D / D = sum_l grad phi_l(r_i) Ainv[l][i] (and the Laplacian), in
 * a fixed order; 4 doubles per electron come back. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"

#include <cuda_runtime.h>

#include <stdlib.h>

struct det_lj {
    const double *Ainv, *vgl;
    double *out; /* m x 4: grad_i D/D (3), lap_i D/D */
    unsigned int m, L, first_warp;
};

/* one warp per electron i: sum_l (grad, lap) phi_l(r_i) Ainv[l][i], lanes over l, then a
 * fixed shuffle tree */
__global__ void __launch_bounds__(DET_THREADS) det_local_kernel(const det_lj *__restrict__ jobs,
                                                                int njobs)
{
    const unsigned int gw = (blockIdx.x * DET_THREADS + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31;
    const det_lj J = jobs[bcu_find_job<det_lj, &det_lj::first_warp>(jobs, njobs, gw)];
    const unsigned int i = gw - J.first_warp;
    if (i >= J.m)
        return; /* whole warp */
    const size_t m = J.m, L = J.L, nq = m * L;
    double g0 = 0.0, g1 = 0.0, g2 = 0.0, lp = 0.0;
    for (size_t l = lane; l < m; l += 32) {
        const double a = J.Ainv[l * m + i];
        const size_t q = (size_t)i * L + l;
        g0 += J.vgl[nq + 3 * q] * a;
        g1 += J.vgl[nq + 3 * q + 1] * a;
        g2 += J.vgl[nq + 3 * q + 2] * a;
        lp += J.vgl[4 * nq + q] * a;
    }
    for (int o = 16; o > 0; o >>= 1) {
        g0 += __shfl_down_sync(0xffffffffu, g0, o);
        g1 += __shfl_down_sync(0xffffffffu, g1, o);
        g2 += __shfl_down_sync(0xffffffffu, g2, o);
        lp += __shfl_down_sync(0xffffffffu, lp, o);
    }
    if (lane == 0) {
        J.out[4 * i] = g0;
        J.out[4 * i + 1] = g1;
        J.out[4 * i + 2] = g2;
        J.out[4 * i + 3] = lp;
    }
}

/* ---- local energy part ------------------------------------------------------------------- */

static int det_local_staged(bcu_batch *kb, bcu_det *const *d, size_t n,
                            double *const *grad_ratio, double *const *lap_ratio)
{
    int rc = det_flush(kb, d, n);
    if (rc)
        return rc;
    size_t rows = 0;
    for (size_t k = 0; k < n; k++) {
        bcu_det *D = d[k];
        rows += D->m;
        if (!D->vgl) {
            const size_t b = (size_t)D->m * D->L * 5 * sizeof(double);
            cudaError_t e = cudaMalloc((void **)&D->vgl, b);
            if (e != cudaSuccess)
                return bcu_fail(e, "the gradients and Laplacians at the electrons", b);
        }
    }
    /* vgl at the current positions */
    if ((rc = det_rows(kb, d, n, NULL)))
        return rc;
    const size_t jobs_bytes = (n * sizeof(det_lj) + 15) / 16 * 16;
    if ((rc = det_stage(kb, jobs_bytes, 4 * rows * sizeof(double))))
        return rc;
    det_lj *jobs = (det_lj *)kb->det.h_in;
    size_t warps = 0, off = 0;
    for (size_t k = 0; k < n; k++) {
        jobs[k].Ainv = d[k]->Ainv;
        jobs[k].vgl = d[k]->vgl;
        jobs[k].out = kb->det.d_out + off;
        jobs[k].m = d[k]->m;
        jobs[k].L = d[k]->L;
        jobs[k].first_warp = (unsigned int)warps;
        warps += d[k]->m;
        off += 4 * (size_t)d[k]->m;
    }
    BCU_TRY(cudaMemcpyAsync(kb->det.d_in, kb->det.h_in, jobs_bytes, cudaMemcpyHostToDevice,
                            bcu_stream), "sending the local-energy jobs", jobs_bytes);
    const unsigned int blocks = (unsigned int)((warps * 32 + DET_THREADS - 1) / DET_THREADS);
    det_local_kernel<<<blocks, DET_THREADS, 0, bcu_stream>>>((const det_lj *)kb->det.d_in,
                                                              (int)n);
    BCU_TRY(cudaGetLastError(), "launching the determinant gradients", 0);
    BCU_TRY(cudaMemcpyAsync(kb->det.h_out, kb->det.d_out, 4 * rows * sizeof(double),
                            cudaMemcpyDeviceToHost, bcu_stream),
            "fetching the determinant gradients", 4 * rows * sizeof(double));
    BCU_TRY(cudaStreamSynchronize(bcu_stream), "the determinant gradients", 0);
    off = 0;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < d[k]->m; i++) {
            const double *o = kb->det.h_out + off + 4 * i;
            grad_ratio[k][3 * i] = o[0];
            grad_ratio[k][3 * i + 1] = o[1];
            grad_ratio[k][3 * i + 2] = o[2];
            lap_ratio[k][i] = o[3];
        }
        off += 4 * (size_t)d[k]->m;
    }
    return MCF_OK;
}

extern "C" int bcu_det_local(mcf_batch *b, bcu_det *const *d, size_t n,
                             double *const *grad_ratio, double *const *lap_ratio)
{
    int rc = det_check_batch("det_local", d, n);
    if (rc || n == 0)
        return rc;
    for (size_t k = 0; k < n; k++)
        if (!grad_ratio || !lap_ratio || !grad_ratio[k] || !lap_ratio[k])
            return mcf_fail(MCF_EINVAL, "blip-cuda: det_local: the output arrays of "
                            "determinant %zu are NULL", k);
    bcu_batch *kb;
    if ((rc = bcu_batch_of(b, &kb)))
        return rc;
    return det_local_staged(kb, d, n, grad_ratio, lap_ratio);
}
