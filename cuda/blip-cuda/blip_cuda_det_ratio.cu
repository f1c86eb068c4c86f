/* blip_cuda_det_ratio.cu — the moves of the determinants blip-cuda keeps on the device:
 * the orbital rows at the trial positions (det_trial), the ratios of proposed moves for a
 * batch of determinants in one launch (det_ratio), and accepted moves (det_accept), which
 * are applied lazily, by the next op on their determinant (a Sherman-Morrison update
 * launched behind the next ratios); and det_get, the matrices with those moves applied.
 * blip_cuda.h describes the arithmetic. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DET_COLS 32 /* columns of Ainv per block of the dot kernel */

/* ---- kernels -------------------------------------------------------------------------- */

/* one det of a dot/update launch */
struct det_job {
    double *Ainv, *A, *w, *col, *res; /* res: a, b, w_i' (3 doubles) */
    const double *v;                  /* trial row of the pending move, NULL if none */
    const double *vn;                 /* trial row of the new move, NULL if none */
    double inv_R;                     /* 1 / R of the pending move */
    unsigned int m, i_p, i_n;
    unsigned int first1, first2; /* first block in the dot / update launch */
};

/* A launch's jobs travel as the kernel's parameter (a __grid_constant__ struct of <= 64
 * jobs, ~5.6 KB; CUDA 12.1+ allows 32 KB) and the ratios' numbers come back through mapped
 * pinned memory: no copy in either direction, so a step costs two launches and one wait
 * (a copy each way was ~10 us of a ~25 us step). */
struct det_batch {
    det_job job[DET_MAX_BATCH];
    int n;
};
static_assert(sizeof(det_batch) < 32000, "kernel parameters are limited to 32 KB");

/* w_j = v . Ainv[:, j] (pending move) and v' . Ainv[:, j] (new move) for 32 columns per
 * block; warp k sums the rows l = k mod 8, then warp 0 adds the 8 partial sums in order.
 * The column of the pending electron, divided by its ratio, is saved for the update. */
__global__ void __launch_bounds__(DET_THREADS) det_dots(const __grid_constant__ det_batch B)
{
    const det_job &J = B.job[bcu_find_job<det_job, &det_job::first1>(B.job, B.n, blockIdx.x)];
    const unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int j = (blockIdx.x - J.first1) * DET_COLS + lane, m = J.m;
    double sw = 0.0, sn = 0.0;
    if (j < m) {
        const bool save_col = J.v && j == J.i_p;
        for (unsigned int l = warp; l < m; l += DET_THREADS / 32) {
            const double x = J.Ainv[(size_t)l * m + j];
            if (J.v)
                sw += J.v[l] * x;
            if (J.vn)
                sn += J.vn[l] * x;
            if (save_col)
                J.col[l] = x * J.inv_R;
        }
    }
    __shared__ double s_w[DET_THREADS / 32][32], s_n[DET_THREADS / 32][32];
    s_w[warp][lane] = sw;
    s_n[warp][lane] = sn;
    __syncthreads();
    if (warp != 0 || j >= m)
        return;
    double tw = 0.0, tn = 0.0;
#pragma unroll
    for (int k = 0; k < DET_THREADS / 32; k++) {
        tw += s_w[k][lane];
        tn += s_n[k][lane];
    }
    if (J.v)
        J.w[j] = tw;
    if (J.vn && j == J.i_n) {
        J.res[0] = tn;
        J.res[2] = tw;
    }
    if (J.vn && J.v && j == J.i_p)
        J.res[1] = tn;
}

/* Sherman-Morrison for the pending move i: Ainv[l][j] -= col_l (w_j - delta_ij), A[i] = v */
__global__ void __launch_bounds__(DET_THREADS) det_update(const __grid_constant__ det_batch B)
{
    const det_job &J = B.job[bcu_find_job<det_job, &det_job::first2>(B.job, B.n, blockIdx.x)];
    const size_t m = J.m, q = (size_t)(blockIdx.x - J.first2) * DET_THREADS + threadIdx.x;
    if (blockIdx.x == J.first2)
        for (unsigned int t = threadIdx.x; t < m; t += DET_THREADS)
            J.A[(size_t)J.i_p * m + t] = J.v[t];
    if (q >= m * m)
        return;
    const size_t l = q / m, jj = q - l * m;
    J.Ainv[q] -= J.col[l] * (J.w[jj] - (jj == J.i_p ? 1.0 : 0.0));
}

/* ---- the pending updates ------------------------------------------------------------------- */

/* One dot launch and one update launch for n <= DET_MAX_BATCH dets, each with its pending
 * move (if any) and a new move electron[k] (SIZE_MAX: none); the 3 numbers of each new move
 * come back into res (3 n doubles) when res != NULL, through the batch's mapped memory.
 * Waits for the numbers, not for the update, which the stream orders before anything that
 * follows.  Without a batch (kb NULL: only for a flush, no electron and no res) nothing is
 * waited for: the stream orders the dots and updates before what follows. */
static int det_step_chunk(bcu_batch *kb, bcu_det *const *d, size_t n, const size_t *electron,
                          double *res)
{
    if (!kb && (electron || res))
        return mcf_fail(MCF_EINTERNAL, "blip-cuda: determinant ratios without a batch (a bug, "
                        "please report it)");
    int rc = kb ? det_stage(kb, 0, 0) : MCF_OK; /* the event and the mapped results */
    if (rc)
        return rc;
    det_batch B;
    memset(&B, 0, sizeof B);
    B.n = (int)n;
    unsigned long long b1 = 0, b2 = 0;
    for (size_t k = 0; k < n; k++) {
        const bcu_det *D = d[k];
        det_job *j = B.job + k;
        const size_t m = D->m;
        j->Ainv = D->Ainv;
        j->A = D->A;
        j->w = D->w;
        j->col = D->col;
        j->res = kb ? kb->det.res_dev + 3 * k : NULL; /* written for a new move only */
        j->m = D->m;
        const int has_new = electron && electron[k] != SIZE_MAX;
        if (D->pending) {
            j->v = D->trial + (size_t)D->pend_i * D->L;
            j->inv_R = 1.0 / D->pend_R;
            j->i_p = D->pend_i;
        }
        if (has_new) {
            j->vn = D->trial + electron[k] * D->L;
            j->i_n = (unsigned int)electron[k];
        }
        j->first1 = (unsigned int)b1;
        j->first2 = (unsigned int)b2;
        if (D->pending || has_new)
            b1 += (m + DET_COLS - 1) / DET_COLS;
        if (D->pending)
            b2 += (m * m + DET_THREADS - 1) / DET_THREADS;
    }
    if (b1 >= 0x7fffffffULL || b2 >= 0x7fffffffULL)
        return mcf_fail(MCF_EINVAL, "blip-cuda: a batch of %zu determinants is too large for "
                        "one launch; split it", n);
    if (b1 == 0)
        return MCF_OK;
    det_dots<<<(unsigned int)b1, DET_THREADS, 0, bcu_stream>>>(B);
    BCU_TRY(cudaGetLastError(), "launching the determinant dots", 0);
    if (kb)
        BCU_TRY(cudaEventRecord(kb->det.res_ready, bcu_stream), "recording an event", 0);
    if (b2) {
        det_update<<<(unsigned int)b2, DET_THREADS, 0, bcu_stream>>>(B);
        BCU_TRY(cudaGetLastError(), "launching the determinant update", 0);
    }
    if (kb)
        BCU_TRY(cudaEventSynchronize(kb->det.res_ready), "the determinant dots", 0);
    if (res)
        memcpy(res, kb->det.res, 3 * n * sizeof(double));
    for (size_t k = 0; k < n; k++)
        d[k]->pending = 0;
    return MCF_OK;
}

static int det_step(bcu_batch *kb, bcu_det *const *d, size_t n, const size_t *electron,
                    double *res)
{
    int rc = MCF_OK;
    for (size_t k0 = 0; k0 < n && !rc; k0 += DET_MAX_BATCH)
        rc = det_step_chunk(kb, d + k0, n - k0 < DET_MAX_BATCH ? n - k0 : DET_MAX_BATCH,
                            electron ? electron + k0 : NULL, res ? res + 3 * k0 : NULL);
    return rc;
}

/* applies the pending moves of n dets (blip_cuda_internal.h) */
int det_flush(bcu_batch *kb, bcu_det *const *d, size_t n)
{
    size_t any = 0;
    for (size_t k = 0; k < n; k++)
        any += d[k]->pending != 0;
    return any ? det_step(kb, d, n, NULL, NULL) : MCF_OK;
}

/* ---- the matrices, pending moves applied ---------------------------------------------- */

extern "C" int bcu_det_get(bcu_det *d, double *r, double *A, double *Ainv)
{
    if (!d)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_get: NULL determinant");
    const size_t m = d->m, mm = m * m * sizeof(double);
    int rc = det_flush(NULL, &d, 1); /* no batch: the stream orders the update first */
    cudaError_t e = cudaSuccess;
    if (!rc && A)
        e = cudaMemcpyAsync(A, d->A, mm, cudaMemcpyDeviceToHost, bcu_stream);
    if (!rc && e == cudaSuccess && Ainv)
        e = cudaMemcpyAsync(Ainv, d->Ainv, mm, cudaMemcpyDeviceToHost, bcu_stream);
    if (!rc && e == cudaSuccess)
        e = cudaStreamSynchronize(bcu_stream);
    if (rc)
        return rc;
    if (e != cudaSuccess)
        return bcu_fail(e, "fetching a Slater matrix", mm);
    if (r)
        memcpy(r, d->r, 3 * m * sizeof(double));
    return MCF_OK;
}

/* ---- trial rows, ratios, accept ------------------------------------------------------------ */

extern "C" int bcu_det_trial(mcf_batch *b, bcu_det *const *d, size_t n,
                             const double *const *r_trial)
{
    int rc = det_check_batch("det_trial", d, n);
    if (rc || n == 0)
        return rc;
    for (size_t k = 0; k < n; k++) {
        if (!r_trial || !r_trial[k])
            return mcf_fail(MCF_EINVAL, "blip-cuda: det_trial: the trial positions of "
                            "determinant %zu are NULL", k);
        for (size_t q = 0; q < 3 * (size_t)d[k]->m; q++)
            if (!isfinite(r_trial[k][q]))
                return mcf_fail(MCF_EINVAL, "blip-cuda: det_trial: coordinate %zu of trial "
                                "position %zu of determinant %zu is %g; positions must be "
                                "finite", q % 3, q / 3, k, r_trial[k][q]);
    }
    bcu_batch *kb;
    if ((rc = bcu_batch_of(b, &kb)))
        return rc;
    rc = det_flush(kb, d, n); /* a pending move needs its trial row, about to be replaced */
    if (!rc)
        rc = det_rows(kb, d, n, r_trial);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        memcpy(d[k]->rt, r_trial[k], 3 * (size_t)d[k]->m * sizeof(double));
        d[k]->have_trial = 1;
        d[k]->have_last = 0;
    }
    return MCF_OK;
}

extern "C" int bcu_det_ratio(mcf_batch *b, bcu_det *const *d, size_t n, const size_t *electron,
                             double *ratio)
{
    const double t0 = bcu_now();
    int rc = det_check_batch("det_ratio", d, n);
    if (rc || n == 0)
        return rc;
    if (!electron || !ratio)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_ratio: NULL electron or ratio array");
    for (size_t k = 0; k < n; k++) {
        if (electron[k] >= d[k]->m)
            return mcf_fail(MCF_EINVAL, "blip-cuda: det_ratio: electron %zu of determinant %zu, "
                            "which holds %u", electron[k], k, d[k]->m);
        if (!d[k]->have_trial)
            return mcf_fail(MCF_EINVAL, "blip-cuda: det_ratio: determinant %zu has no trial "
                            "positions (call det_trial after det_set)", k);
    }
    bcu_batch *kb;
    if ((rc = bcu_batch_of(b, &kb)))
        return rc;
    double stack[3 * 64];
    double *res = n <= 64 ? stack : (double *)malloc(3 * n * sizeof(double));
    if (!res)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    int pend_stack[64];
    int *was = n <= 64 ? pend_stack : (int *)malloc(n * sizeof(int));
    unsigned int ip_stack[64];
    unsigned int *ip = n <= 64 ? ip_stack : (unsigned int *)malloc(n * sizeof(unsigned int));
    double iR_stack[64];
    double *iR = n <= 64 ? iR_stack : (double *)malloc(n * sizeof(double));
    if (!was || !ip || !iR) {
        rc = mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    } else {
        for (size_t k = 0; k < n; k++) {
            was[k] = d[k]->pending;
            ip[k] = d[k]->pend_i;
            iR[k] = 1.0 / d[k]->pend_R;
        }
        rc = det_step(kb, d, n, electron, res);
    }
    if (!rc)
        for (size_t k = 0; k < n; k++) {
            const double a = res[3 * k], b = res[3 * k + 1], wn = res[3 * k + 2];
            double R = a;
            if (was[k])
                R = a - b * iR[k] * (wn - (electron[k] == ip[k] ? 1.0 : 0.0));
            ratio[k] = R;
            d[k]->have_last = 1;
            d[k]->last_i = (unsigned int)electron[k];
            d[k]->last_R = R;
        }
    if (res != stack)
        free(res);
    if (was != pend_stack)
        free(was);
    if (ip != ip_stack)
        free(ip);
    if (iR != iR_stack)
        free(iR);
    kb->last_ratio = bcu_now() - t0;
    return rc;
}

extern "C" double bcu_det_last_ratio_time(mcf_batch *b)
{
    bcu_batch *kb;
    return bcu_batch_of(b, &kb) ? 0.0 : kb->last_ratio;
}

extern "C" int bcu_det_accept(bcu_det *d, size_t electron)
{
    if (!d)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_accept: NULL determinant");
    if (!d->have_last || d->last_i != electron)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_accept: electron %zu was not the move of "
                        "the last det_ratio on this determinant", electron);
    if (d->last_R == 0.0 || !isfinite(d->last_R))
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_accept: the move of electron %zu has "
                        "determinant ratio %g and cannot be accepted", electron, d->last_R);
    d->pending = 1;
    d->pend_i = (unsigned int)electron;
    d->pend_R = d->last_R;
    d->have_last = 0;
    memcpy(d->r + 3 * electron, d->rt + 3 * electron, 3 * sizeof(double));
    return MCF_OK;
}

