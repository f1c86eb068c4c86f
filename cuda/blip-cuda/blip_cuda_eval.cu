/* blip_cuda_eval.cu — the values / vgl kernel of blip-cuda and its batch launcher: all
 * points of all workspaces of a batch in one launch (one thread per point and orbital, or
 * per point and 1, 2 or 4 orbitals for values), one copy of the jobs and positions up and
 * one of the results down, through pinned staging buffers that the batch keeps (bcu_batch,
 * blip_cuda_internal.h).  The layout and the precision choices are described in
 * blip_cuda.h; the mathematics in plugins/blip/blip.c.  How a table is read (the sums'
 * precision, orbitals per thread) is the table's bcu_settings. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "blip_core.h"
#include "mcf_cuda.h"
#include "mcf/error.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BCU_THREADS 256 /* threads per block: (point, orbital) pairs, orbital fastest */
#define BCU_MAX_BLOCK_POINTS 34 /* points whose stencils a block shares (L >= 8) */

/* ---- the kernel --------------------------------------------------------------------- */

/* one workspace of a batch */
struct bcu_job {
    const float *c;
    double cell[3], inv_h[3];
    unsigned long long pos_off; /* first point in the batch's positions */
    double *out;                /* its results on the device: phi | grad | lap */
    unsigned long long nq;      /* points x L threads (points x L / V with V orbitals each) */
    unsigned int n[3];
    unsigned int L;
    unsigned int first_block;
    unsigned int pad;
};

/* V consecutive floats (16- or 8-byte aligned for V = 4, 2) in one load */
template <int V> __device__ static inline void bcu_load_vec(const float *p, float *out);
template <> __device__ inline void bcu_load_vec<1>(const float *p, float *out)
{
    out[0] = __ldg(p);
}
template <> __device__ inline void bcu_load_vec<2>(const float *p, float *out)
{
    const float2 x = __ldg(reinterpret_cast<const float2 *>(p));
    out[0] = x.x;
    out[1] = x.y;
}
template <> __device__ inline void bcu_load_vec<4>(const float *p, float *out)
{
    const float4 x = __ldg(reinterpret_cast<const float4 *>(p));
    out[0] = x.x;
    out[1] = x.y;
    out[2] = x.z;
    out[3] = x.w;
}

/* Thread (point p, orbitals l .. l + V - 1) of the job owning this block.  Weights in
 * double from the CPU's code, then float; 64 terms accumulated in Acc.  V = 2 or 4 (values
 * of a batch whose L are all multiples of V) reads the coefficients as float2 / float4: a
 * warp's load of a row is 256 / 512 contiguous bytes instead of 128, with 1/V of the load
 * instructions and of the threads that each set up a stencil; the sums are the same terms in
 * the same order, so the results are the same bits. */
template <typename Acc, bool GL, int V = 1>
__global__ void __launch_bounds__(BCU_THREADS)
    bcu_kernel(const bcu_job *__restrict__ jobs, int njobs, const double *__restrict__ pos)
{
    static_assert(V == 1 || ((V == 2 || V == 4) && !GL), "vector loads for values only");
    const unsigned int b = blockIdx.x;
    const bcu_job *J = jobs + bcu_find_job<bcu_job, &bcu_job::first_block>(jobs, njobs, b);
    const unsigned long long q0 = (unsigned long long)(b - J->first_block) * BCU_THREADS;
    const unsigned long long q = q0 + threadIdx.x;
    const unsigned long long nq = J->nq;
    const unsigned int Lrow = J->L, L = J->L / V; /* floats per row, threads per point */
    /* the stencils of the block's points, once per point and axis (not once per orbital:
     * 64-bit modulos and floors in double were ~10% of the kernel), when the block covers
     * few points (L >= 8); otherwise every thread makes its own */
    const unsigned long long p_first = q0 / L;
    const unsigned long long q_last = q0 + BCU_THREADS - 1 < nq ? q0 + BCU_THREADS - 1 : nq - 1;
    const unsigned int np = (unsigned int)(q_last / L - p_first + 1);
    __shared__ unsigned int s_idx[BCU_MAX_BLOCK_POINTS][3][4];
    __shared__ float s_w[BCU_MAX_BLOCK_POINTS][3][3][4];
    const bool shared_stencil = np <= BCU_MAX_BLOCK_POINTS;
    if (shared_stencil) {
        for (unsigned int t = threadIdx.x; t < 3 * np; t += blockDim.x) {
            const unsigned int pp = t / 3, d = t % 3;
            const double x = pos[3 * (J->pos_off + p_first + pp) + d];
            blip_axis_stencil st;
            blip_axis_setup(x, J->cell[d], J->inv_h[d], J->n[d], GL, &st);
#pragma unroll
            for (int a = 0; a < 4; a++) {
                s_idx[pp][d][a] = (unsigned int)st.idx[a];
#pragma unroll
                for (int k = 0; k < (GL ? 3 : 1); k++)
                    s_w[pp][d][k][a] = (float)st.w[k][a];
            }
        }
        __syncthreads();
    }
    if (q >= nq)
        return;
    const unsigned long long p = q / L;
    const unsigned int l = (unsigned int)(q - p * L) * V; /* first orbital */
    size_t idx[3][4];
    float w[3][3][4]; /* [axis][derivative][term] */
    if (shared_stencil) {
        const unsigned int pp = (unsigned int)(p - p_first);
#pragma unroll
        for (int d = 0; d < 3; d++)
#pragma unroll
            for (int a = 0; a < 4; a++) {
                idx[d][a] = s_idx[pp][d][a];
#pragma unroll
                for (int k = 0; k < (GL ? 3 : 1); k++)
                    w[d][k][a] = s_w[pp][d][k][a];
            }
    } else {
        const double *r = pos + 3 * (J->pos_off + p);
#pragma unroll
        for (int d = 0; d < 3; d++) {
            blip_axis_stencil st;
            blip_axis_setup(r[d], J->cell[d], J->inv_h[d], J->n[d], GL, &st);
#pragma unroll
            for (int a = 0; a < 4; a++) {
                idx[d][a] = st.idx[a];
#pragma unroll
                for (int k = 0; k < (GL ? 3 : 1); k++)
                    w[d][k][a] = (float)st.w[k][a];
            }
        }
    }
    const float *__restrict__ c = J->c + l;
    const size_t ny = J->n[1], nz = J->n[2];
    if (V > 1) { /* the same terms in the same order as V = 1, V orbitals at a time */
        Acc vv[V];
#pragma unroll
        for (int t = 0; t < V; t++)
            vv[t] = 0;
#pragma unroll
        for (int a = 0; a < 4; a++)
#pragma unroll
            for (int bb = 0; bb < 4; bb++) {
                const size_t base = (idx[0][a] * ny + idx[1][bb]) * nz;
                float cf[4][V];
#pragma unroll
                for (int k = 0; k < 4; k++)
                    bcu_load_vec<V>(c + (base + idx[2][k]) * Lrow, cf[k]);
                const float vxy = w[0][0][a] * w[1][0][bb];
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const Acc wt = (Acc)(vxy * w[2][0][k]);
#pragma unroll
                    for (int t = 0; t < V; t++)
                        vv[t] += wt * (Acc)cf[k][t];
                }
            }
        double *o = J->out + q * V;
#pragma unroll
        for (int t = 0; t < V; t++)
            o[t] = (double)vv[t];
        return;
    }
    Acc v5[5];
    bcu_vgl_sum<Acc, GL, GL>(c, Lrow, ny, nz, idx, w, v5);
    const Acc v = v5[0], gx = v5[1], gy = v5[2], gz = v5[3], lp = v5[4];
    double *o = J->out;
    o[q] = (double)v;
    if (GL) {
        o[nq + 3 * q] = (double)gx;
        o[nq + 3 * q + 1] = (double)gy;
        o[nq + 3 * q + 2] = (double)gz;
        o[4 * nq + q] = (double)lp;
    }
}

/* ---- a batch ------------------------------------------------------------------------- */

/* replaces a pinned host buffer and its device twin by ones of 1.5 x need bytes; `what`
 * ("positions", "results") and `dev_what` name them in messages */
static int bcu_grow(void **host, void **dev, size_t *cap, size_t need, const char *what,
                    const char *dev_what)
{
    /* a copy or launch of an earlier call may still use the old pair on the stream */
    BCU_TRY(cudaStreamSynchronize(bcu_stream), "the previous batch", 0);
    cudaFreeHost(*host);
    cudaFree(*dev);
    *host = *dev = NULL;
    *cap = 0;
    const size_t c = need + need / 2;
    if (cudaMallocHost(host, c) != cudaSuccess) {
        cudaGetLastError();
        *host = NULL;
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of pinned host memory for the %s (%zu "
                        "bytes)", what, c);
    }
    BCU_TRY(cudaMalloc(dev, c), dev_what, c);
    *cap = c;
    return MCF_OK;
}

/* grows the batch's staging buffers to at least in / out bytes */
static int bcu_stage(bcu_batch *kb, size_t in, size_t out)
{
    int rc = MCF_OK;
    if (in > kb->in_cap)
        rc = bcu_grow((void **)&kb->in_host, (void **)&kb->in_dev, &kb->in_cap, in,
                      "positions", "the positions of a batch");
    if (!rc && out > kb->out_cap)
        rc = bcu_grow((void **)&kb->out_host, (void **)&kb->out_dev, &kb->out_cap, out,
                      "results", "the results of a batch");
    return rc;
}

/* Stages the jobs and positions of a batch of n >= 1 tables in kb and launches the kernel
 * on the stream.  Job k writes to dev_out[k] when dev_out is given, else to the batch's
 * result buffer at its offset (out_offset[k], doubles); nothing is synchronized. */
static int bcu_launch(bcu_batch *kb, const bcu_table *const *t, size_t n,
                      const double *const *r, const size_t *n_points, double *const *dev_out,
                      int want_gl, size_t *out_offset, size_t *out_doubles)
{
    /* one kernel for the batch: its tables must be read alike */
    const bcu_settings set = t[0]->set;
    for (size_t k = 1; k < n; k++)
        if (t[k]->set.accumulate_double != set.accumulate_double || t[k]->set.vec != set.vec)
            return mcf_fail(MCF_EINVAL, "blip-cuda: workspaces 0 and %zu of one batch have "
                            "different settings (sum_precision, orbitals_per_thread); give "
                            "all chains the same [evaluator] keys", k);
    size_t points = 0, outd = 0;
    unsigned long long blocks = 0;
    /* values: V orbitals per thread (vector loads) when every table's L is a multiple of V */
    unsigned int V = want_gl ? 1 : (unsigned int)set.vec;
    for (size_t k = 0; k < n && V > 1; k++)
        while (V > 1 && t[k]->L % V)
            V /= 2;
    for (size_t k = 0; k < n; k++) {
        const unsigned long long nq = (unsigned long long)n_points[k] * t[k]->L;
        points += n_points[k];
        outd += (size_t)nq * (want_gl ? 5 : 1);
        blocks += (nq / V + BCU_THREADS - 1) / BCU_THREADS;
    }
    if (blocks >= 0x7fffffffULL || n > 0x7fffffff)
        return mcf_fail(MCF_EINVAL, "blip-cuda: a batch of %zu points (%llu thread blocks) is "
                        "too large for one launch; split it", points, blocks);
    const size_t jobs_bytes = (n * sizeof(bcu_job) + 15) / 16 * 16;
    const size_t in = jobs_bytes + 3 * points * sizeof(double);
    const size_t outb = dev_out ? 0 : outd * sizeof(double);
    int rc = bcu_stage(kb, in, outb);
    if (rc)
        return rc;
    bcu_job *jobs = (bcu_job *)kb->in_host;
    double *pos = (double *)(kb->in_host + jobs_bytes);
    size_t pofs = 0, oofs = 0;
    unsigned int first = 0;
    for (size_t k = 0; k < n; k++) {
        bcu_job *j = jobs + k;
        memset(j, 0, sizeof *j);
        j->c = t[k]->c;
        for (int d = 0; d < 3; d++) {
            j->cell[d] = t[k]->cell[d];
            j->inv_h[d] = t[k]->inv_h[d];
            j->n[d] = (unsigned int)t[k]->n[d];
        }
        j->L = (unsigned int)t[k]->L;
        const unsigned long long nvals = (unsigned long long)n_points[k] * t[k]->L;
        j->nq = nvals / V;
        j->pos_off = pofs;
        j->out = dev_out ? dev_out[k] : kb->out_dev + oofs;
        if (out_offset)
            out_offset[k] = oofs;
        j->first_block = first;
        if (n_points[k])
            memcpy(pos + 3 * pofs, r[k], 3 * n_points[k] * sizeof(double));
        pofs += n_points[k];
        oofs += (size_t)nvals * (want_gl ? 5 : 1);
        first += (unsigned int)((j->nq + BCU_THREADS - 1) / BCU_THREADS);
    }
    if (out_doubles)
        *out_doubles = oofs;
    BCU_TRY(cudaMemcpyAsync(kb->in_dev, kb->in_host, in, cudaMemcpyHostToDevice, bcu_stream),
            "sending the positions", in);
    cudaEventRecord(kb->ev0, bcu_stream);
    const bcu_job *djobs = (const bcu_job *)kb->in_dev;
    const double *dpos = (const double *)(kb->in_dev + jobs_bytes);
    if (blocks > 0) {
        const dim3 grid((unsigned int)blocks), block(BCU_THREADS);
        if (set.accumulate_double) {
            if (want_gl)
                bcu_kernel<double, true><<<grid, block, 0, bcu_stream>>>(djobs, (int)n, dpos);
            else if (V == 4)
                bcu_kernel<double, false, 4><<<grid, block, 0, bcu_stream>>>(djobs, (int)n,
                                                                             dpos);
            else if (V == 2)
                bcu_kernel<double, false, 2><<<grid, block, 0, bcu_stream>>>(djobs, (int)n,
                                                                             dpos);
            else
                bcu_kernel<double, false><<<grid, block, 0, bcu_stream>>>(djobs, (int)n, dpos);
        } else {
            if (want_gl)
                bcu_kernel<float, true><<<grid, block, 0, bcu_stream>>>(djobs, (int)n, dpos);
            else if (V == 4)
                bcu_kernel<float, false, 4><<<grid, block, 0, bcu_stream>>>(djobs, (int)n, dpos);
            else if (V == 2)
                bcu_kernel<float, false, 2><<<grid, block, 0, bcu_stream>>>(djobs, (int)n, dpos);
            else
                bcu_kernel<float, false><<<grid, block, 0, bcu_stream>>>(djobs, (int)n, dpos);
        }
        BCU_TRY(cudaGetLastError(), "launching the blip kernel", 0);
    }
    cudaEventRecord(kb->ev1, bcu_stream);
    return MCF_OK;
}

static int bcu_eval_staged(bcu_batch *kb, const bcu_table *const *t, size_t n,
                           const double *const *r, const size_t *n_points, double *const *phi,
                           double *const *grad, double *const *lap, int want_gl)
{
    const double t0 = bcu_now();
    size_t offs_stack[64], outd = 0;
    size_t *offs = n <= 64 ? offs_stack : (size_t *)malloc(n * sizeof *offs);
    if (!offs)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory for %zu workspaces", n);
    int rc = bcu_launch(kb, t, n, r, n_points, NULL, want_gl, offs, &outd);
    const size_t outb = outd * sizeof(double);
    if (!rc) {
        cudaError_t e = cudaMemcpyAsync(kb->out_host, kb->out_dev, outb,
                                        cudaMemcpyDeviceToHost, bcu_stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(bcu_stream);
        if (e != cudaSuccess)
            rc = bcu_fail(e, "the blip kernel and fetching its results", outb);
    }
    if (rc) {
        if (offs != offs_stack)
            free(offs);
        return rc;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, kb->ev0, kb->ev1);
    for (size_t k = 0; k < n; k++) {
        const size_t nq = n_points[k] * t[k]->L;
        const double *o = kb->out_host + offs[k];
        memcpy(phi[k], o, nq * sizeof(double));
        if (want_gl) {
            memcpy(grad[k], o + nq, 3 * nq * sizeof(double));
            memcpy(lap[k], o + 4 * nq, nq * sizeof(double));
        }
    }
    if (offs != offs_stack)
        free(offs);
    kb->last_kernel = 1e-3 * (double)ms;
    kb->last_total = bcu_now() - t0;
    return MCF_OK;
}

/* ---- for the determinant ops (blip_cuda_internal.h) ------------------------------------ */

int bcu_eval_to_device(bcu_batch *kb, const bcu_table *const *t, size_t n,
                       const double *const *r, const size_t *n_points, double *const *dev_out,
                       int want_gl)
{
    if (n == 0)
        return MCF_OK;
    return bcu_launch(kb, t, n, r, n_points, dev_out, want_gl, NULL, NULL);
}

extern "C" int bcu_eval(mcf_batch *b, const bcu_table *const *t, size_t n,
                        const double *const *r, const size_t *n_points, double *const *phi,
                        double *const *grad, double *const *lap, int want_gl)
{
    int rc = bcu_device_init();
    if (rc || n == 0)
        return rc;
    bcu_batch *kb;
    if ((rc = bcu_batch_of(b, &kb)))
        return rc;
    return bcu_eval_staged(kb, t, n, r, n_points, phi, grad, lap, want_gl);
}

extern "C" void bcu_last_times(mcf_batch *b, double *kernel_s, double *total_s)
{
    bcu_batch *kb = NULL;
    if (bcu_batch_of(b, &kb))
        kb = NULL;
    if (kernel_s)
        *kernel_s = kb ? kb->last_kernel : 0.0;
    if (total_s)
        *total_s = kb ? kb->last_total : 0.0;
}
