/* blip_cuda_det.cu — Slater determinants kept on the device for blip-cuda (the optional
 * det ops of mcf/orbital.h).  What is computed and how is described in blip_cuda.h; the
 * mathematics is the Slater-Jastrow model's (models/slater-jastrow/slater_jastrow.c). */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf_cuda.h"
#include "mcf/error.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DET_THREADS 256 /* 8 warps */
#define DET_COLS 32     /* columns of Ainv per block of the dot kernel */
#define GEMM_T 16       /* tile of the refresh's DGEMM */

struct bcu_det {
    const bcu_table *t;
    unsigned int m, L;
    double *A, *Ainv, *trial, *col, *w; /* device: m*m, m*m, m*L, m, m */
    double *scratch;                    /* device, m*m, at the first refresh */
    double *vgl;                        /* device, m*L*5, at the first det_local */
    double *r, *rt;                     /* host: m x 3 positions, trial positions */
    int have_trial;                     /* det_trial was called since det_set */
    int pending;                        /* an accepted move not yet applied */
    unsigned int pend_i;
    double pend_R;
    int have_last; /* the last det_ratio's move, which det_accept may accept */
    unsigned int last_i;
    double last_R;
};

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
#define DET_MAX_BATCH 64
struct det_batch {
    det_job job[DET_MAX_BATCH];
    int n;
};
static_assert(sizeof(det_batch) < 32000, "kernel parameters are limited to 32 KB");

/* the job owning block b: the last k with first(k) <= b (jobs of 0 blocks are skipped
 * because the next job has the same first) */
template <int which>
__device__ static int det_find(const det_job *jobs, int njobs, unsigned int b)
{
    int lo = 0, hi = njobs - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        const unsigned int f = which == 1 ? jobs[mid].first1 : jobs[mid].first2;
        if (f <= b)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* w_j = v . Ainv[:, j] (pending move) and v' . Ainv[:, j] (new move) for 32 columns per
 * block; warp k sums the rows l = k mod 8, then warp 0 adds the 8 partial sums in order.
 * The column of the pending electron, divided by its ratio, is saved for the update. */
__global__ void __launch_bounds__(DET_THREADS) det_dots(const __grid_constant__ det_batch B)
{
    const det_job &J = B.job[det_find<1>(B.job, B.n, blockIdx.x)];
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
    const det_job &J = B.job[det_find<2>(B.job, B.n, blockIdx.x)];
    const size_t m = J.m, q = (size_t)(blockIdx.x - J.first2) * DET_THREADS + threadIdx.x;
    if (blockIdx.x == J.first2)
        for (unsigned int t = threadIdx.x; t < m; t += DET_THREADS)
            J.A[(size_t)J.i_p * m + t] = J.v[t];
    if (q >= m * m)
        return;
    const size_t l = q / m, jj = q - l * m;
    J.Ainv[q] -= J.col[l] * (J.w[jj] - (jj == J.i_p ? 1.0 : 0.0));
}

/* one det of the refresh's GEMM: out = B + sign P Q (B = 1 when NULL), m x m row-major;
 * with bmax, every block writes the largest |out| of its tile there */
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
    int lo = 0, hi = njobs - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (jobs[mid].first_warp <= gw)
            lo = mid;
        else
            hi = mid - 1;
    }
    const det_lj J = jobs[lo];
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

/* ---- staging ----------------------------------------------------------------------------- */

#define det_stream mcu_stream()

static unsigned char *dh_in, *dd_in;   /* jobs (pinned host / device) */
static double *dh_out, *dd_out;        /* results */
static size_t d_in_cap, d_out_cap;     /* bytes */
static double *dm_res, *dm_res_dev;    /* mapped pinned: the ratios' numbers, 3 per det */
static cudaEvent_t d_res_ready;
static int d_event_made;
static double d_last_ratio_s;

static double det_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define DET_TRY(call, what, bytes)                          \
    do {                                                    \
        cudaError_t det_e_ = (call);                        \
        if (det_e_ != cudaSuccess)                          \
            return bcu_fail_cuda((int)det_e_, (what), (bytes)); \
    } while (0)

/* replaces a pinned host buffer and its device twin by ones of >= bytes */
static int det_grow(void **host, void **dev, size_t *cap, size_t bytes, const char *what)
{
    cudaFreeHost(*host);
    cudaFree(*dev);
    *host = *dev = NULL;
    *cap = 0;
    const size_t c = bytes + bytes / 2 + 256;
    DET_TRY(cudaMallocHost(host, c), what, c);
    DET_TRY(cudaMalloc(dev, c), what, c);
    *cap = c;
    return MCF_OK;
}

/* grows the job and result staging to in / out bytes (under the lock) */
static int det_stage(size_t in, size_t out)
{
    if (!d_event_made) {
        DET_TRY(cudaEventCreateWithFlags(&d_res_ready, cudaEventDisableTiming),
                "creating an event", 0);
        d_event_made = 1;
    }
    if (!dm_res) {
        const size_t b = 3 * DET_MAX_BATCH * sizeof(double);
        DET_TRY(cudaHostAlloc((void **)&dm_res, b, cudaHostAllocMapped), "mapped pinned memory "
                "for the determinant ratios", b);
        DET_TRY(cudaHostGetDevicePointer((void **)&dm_res_dev, dm_res, 0), "mapping the "
                "determinant ratios", b);
    }
    if (in > d_in_cap || out > d_out_cap) /* a launch may still read the old buffers */
        DET_TRY(cudaStreamSynchronize(det_stream), "the previous determinant step", 0);
    int rc = MCF_OK;
    if (in > d_in_cap)
        rc = det_grow((void **)&dh_in, (void **)&dd_in, &d_in_cap, in, "the determinant jobs");
    if (!rc && out > d_out_cap)
        rc = det_grow((void **)&dh_out, (void **)&dd_out, &d_out_cap, out,
                      "the determinant results");
    return rc;
}

/* ---- create / destroy / set / get --------------------------------------------------------- */

extern "C" int bcu_det_create(const bcu_table *t, size_t m, bcu_det **out)
{
    *out = NULL;
    if (!t || m < 1 || m > t->L)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_create: m = %zu electrons for %zu orbitals; "
                        "1 <= m <= L", m, t ? t->L : (size_t)0);
    if (m > 46340) /* m * m fits an unsigned int index of blocks x threads comfortably */
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_create: m = %zu electrons is beyond what "
                        "the kernels index (46340)", m);
    bcu_det *d = (bcu_det *)calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    d->t = t;
    d->m = (unsigned int)m;
    d->L = (unsigned int)t->L;
    d->r = (double *)calloc(3 * m, sizeof(double));
    d->rt = (double *)calloc(3 * m, sizeof(double));
    if (!d->r || !d->rt) {
        bcu_det_destroy(d);
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    }
    const size_t mm = m * m * sizeof(double), ml = m * t->L * sizeof(double);
    struct {
        double **p;
        size_t bytes;
        const char *what;
    } a[] = {{&d->A, mm, "the Slater matrix"}, {&d->Ainv, mm, "the inverse Slater matrix"},
             {&d->trial, ml, "the orbital rows at the trial positions"},
             {&d->col, m * sizeof(double), "a column of the inverse"},
             {&d->w, m * sizeof(double), "the update vector"}};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
        cudaError_t e = cudaMalloc((void **)a[k].p, a[k].bytes);
        if (e != cudaSuccess) {
            bcu_det_destroy(d);
            return bcu_fail_cuda((int)e, a[k].what, a[k].bytes);
        }
    }
    *out = d;
    return MCF_OK;
}

extern "C" void bcu_det_destroy(bcu_det *d)
{
    if (!d)
        return;
    cudaFree(d->A);
    cudaFree(d->Ainv);
    cudaFree(d->trial);
    cudaFree(d->col);
    cudaFree(d->w);
    cudaFree(d->scratch);
    cudaFree(d->vgl);
    free(d->r);
    free(d->rt);
    free(d);
}

extern "C" size_t bcu_det_size(const bcu_det *d) { return d ? d->m : 0; }

extern "C" int bcu_det_set(bcu_det *d, const double *r, const double *A, const double *Ainv)
{
    if (!d || !r || !A || !Ainv)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_set: NULL argument");
    const size_t m = d->m, mm = m * m * sizeof(double);
    bcu_lock();
    cudaError_t e = cudaStreamSynchronize(det_stream);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->A, A, mm, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->Ainv, Ainv, mm, cudaMemcpyHostToDevice);
    bcu_unlock();
    if (e != cudaSuccess)
        return bcu_fail_cuda((int)e, "uploading a Slater matrix", mm);
    memcpy(d->r, r, 3 * m * sizeof(double));
    d->have_trial = d->pending = d->have_last = 0;
    return MCF_OK;
}

/* ---- the pending updates ------------------------------------------------------------------- */

/* With the lock: one dot launch and one update launch for n <= DET_MAX_BATCH dets, each
 * with its pending move (if any) and a new move electron[k] (SIZE_MAX: none); the 3 numbers
 * of each new move come back into res (3 n doubles) when res != NULL.  Waits for the
 * numbers, not for the update, which the stream orders before anything that follows. */
static int det_step_chunk(bcu_det *const *d, size_t n, const size_t *electron, double *res)
{
    int rc = det_stage(0, 0); /* the event and the mapped results */
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
        j->res = dm_res_dev + 3 * k;
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
    det_dots<<<(unsigned int)b1, DET_THREADS, 0, det_stream>>>(B);
    DET_TRY(cudaGetLastError(), "launching the determinant dots", 0);
    DET_TRY(cudaEventRecord(d_res_ready, det_stream), "recording an event", 0);
    if (b2) {
        det_update<<<(unsigned int)b2, DET_THREADS, 0, det_stream>>>(B);
        DET_TRY(cudaGetLastError(), "launching the determinant update", 0);
    }
    DET_TRY(cudaEventSynchronize(d_res_ready), "the determinant dots", 0);
    if (res)
        memcpy(res, dm_res, 3 * n * sizeof(double));
    for (size_t k = 0; k < n; k++)
        d[k]->pending = 0;
    return MCF_OK;
}

static int det_step_locked(bcu_det *const *d, size_t n, const size_t *electron, double *res)
{
    int rc = MCF_OK;
    for (size_t k0 = 0; k0 < n && !rc; k0 += DET_MAX_BATCH)
        rc = det_step_chunk(d + k0, n - k0 < DET_MAX_BATCH ? n - k0 : DET_MAX_BATCH,
                            electron ? electron + k0 : NULL, res ? res + 3 * k0 : NULL);
    return rc;
}

/* applies the pending moves of n dets (the lock held) */
static int det_flush_locked(bcu_det *const *d, size_t n)
{
    size_t any = 0;
    for (size_t k = 0; k < n; k++)
        any += d[k]->pending != 0;
    return any ? det_step_locked(d, n, NULL, NULL) : MCF_OK;
}

extern "C" int bcu_det_get(bcu_det *d, double *r, double *A, double *Ainv)
{
    if (!d)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_get: NULL determinant");
    const size_t m = d->m, mm = m * m * sizeof(double);
    bcu_lock();
    int rc = det_flush_locked(&d, 1);
    cudaError_t e = cudaSuccess;
    if (!rc && A)
        e = cudaMemcpyAsync(A, d->A, mm, cudaMemcpyDeviceToHost, det_stream);
    if (!rc && e == cudaSuccess && Ainv)
        e = cudaMemcpyAsync(Ainv, d->Ainv, mm, cudaMemcpyDeviceToHost, det_stream);
    if (!rc && e == cudaSuccess)
        e = cudaStreamSynchronize(det_stream);
    bcu_unlock();
    if (rc)
        return rc;
    if (e != cudaSuccess)
        return bcu_fail_cuda((int)e, "fetching a Slater matrix", mm);
    if (r)
        memcpy(r, d->r, 3 * m * sizeof(double));
    return MCF_OK;
}

/* ---- trial rows, ratios, accept ------------------------------------------------------------ */

static int det_check_batch(const char *op, bcu_det *const *d, size_t n)
{
    if (n && !d)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: NULL array of determinants", op);
    for (size_t k = 0; k < n; k++) {
        if (!d[k])
            return mcf_fail(MCF_EINVAL, "blip-cuda: %s: determinant %zu is NULL", op, k);
        for (size_t q = 0; q < k; q++)
            if (d[q] == d[k])
                return mcf_fail(MCF_EINVAL, "blip-cuda: %s: determinant %zu appears twice in "
                                "one call (entries %zu and %zu)", op, k, q, k);
    }
    return MCF_OK;
}

extern "C" int bcu_det_trial(bcu_det *const *d, size_t n, const double *const *r_trial)
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
    const size_t STACK = 128;
    const bcu_table *ts[128];
    size_t np[128];
    double *outs[128];
    bcu_lock();
    rc = det_flush_locked(d, n); /* a pending move needs its trial row, about to be replaced */
    for (size_t k0 = 0; k0 < n && !rc; k0 += STACK) {
        const size_t nb = n - k0 < STACK ? n - k0 : STACK;
        for (size_t k = 0; k < nb; k++) {
            ts[k] = d[k0 + k]->t;
            np[k] = d[k0 + k]->m;
            outs[k] = d[k0 + k]->trial;
        }
        rc = bcu_eval_to_device(ts, nb, r_trial + k0, np, outs, 0);
        if (!rc) {
            cudaError_t e = cudaStreamSynchronize(det_stream);
            if (e != cudaSuccess)
                rc = bcu_fail_cuda((int)e, "the orbital rows at the trial positions", 0);
        }
    }
    bcu_unlock();
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        memcpy(d[k]->rt, r_trial[k], 3 * (size_t)d[k]->m * sizeof(double));
        d[k]->have_trial = 1;
        d[k]->have_last = 0;
    }
    return MCF_OK;
}

extern "C" int bcu_det_ratio(bcu_det *const *d, size_t n, const size_t *electron, double *ratio)
{
    const double t0 = det_now();
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
        bcu_lock();
        rc = det_step_locked(d, n, electron, res);
        bcu_unlock();
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
    d_last_ratio_s = det_now() - t0;
    return rc;
}

extern "C" double bcu_det_last_ratio_time(void) { return d_last_ratio_s; }

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

/* ---- refresh ------------------------------------------------------------------------------- */

/* launches the GEMM of n jobs over the largest m (the lock held) */
static int det_gemm_launch(const det_gemm *hjobs, size_t n, unsigned int mmax, double sign,
                           det_gemm *djobs)
{
    const size_t bytes = n * sizeof(det_gemm);
    DET_TRY(cudaMemcpyAsync(djobs, hjobs, bytes, cudaMemcpyHostToDevice, det_stream),
            "sending the refresh jobs", bytes);
    const unsigned int tiles = (mmax + GEMM_T - 1) / GEMM_T;
    const dim3 grid(tiles, tiles, (unsigned int)n), block(GEMM_T, GEMM_T);
    det_gemm_kernel<<<grid, block, 0, det_stream>>>(djobs, sign);
    DET_TRY(cudaGetLastError(), "launching the refresh product", 0);
    return MCF_OK;
}

static int det_refresh_locked(bcu_det *const *d, size_t n, double *drift)
{
    int rc = det_flush_locked(d, n);
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
                return bcu_fail_cuda((int)e, "the refresh's scratch matrix", mm);
        }
    }
    const unsigned int tiles = (mmax + GEMM_T - 1) / GEMM_T;
    const size_t nblk = (size_t)tiles * tiles, jobs_bytes = (2 * n * sizeof(det_gemm) + 15) / 16 * 16;
    const size_t maxes = n * nblk;
    if ((rc = det_stage(jobs_bytes, maxes * sizeof(double))))
        return rc;
    det_gemm *h1 = (det_gemm *)dh_in, *h2 = h1 + n;
    det_gemm *g1 = (det_gemm *)dd_in, *g2 = g1 + n;
    /* E = 1 - Ainv A into scratch, with the block maxima */
    for (size_t k = 0; k < n; k++) {
        h1[k].P = d[k]->Ainv;
        h1[k].Q = d[k]->A;
        h1[k].B = NULL;
        h1[k].out = d[k]->scratch;
        h1[k].bmax = dd_out + k * nblk;
        h1[k].m = d[k]->m;
    }
    if ((rc = det_gemm_launch(h1, n, mmax, -1.0, g1)))
        return rc;
    DET_TRY(cudaMemcpyAsync(dh_out, dd_out, maxes * sizeof(double), cudaMemcpyDeviceToHost,
                            det_stream), "fetching the drift", maxes * sizeof(double));
    DET_TRY(cudaStreamSynchronize(det_stream), "the refresh's drift", 0);
    size_t newton = 0;
    for (size_t k = 0; k < n; k++) {
        const unsigned int tk = (d[k]->m + GEMM_T - 1) / GEMM_T;
        double mx = 0.0;
        for (unsigned int y = 0; y < tk; y++)
            for (unsigned int x = 0; x < tk; x++) {
                const double v = dh_out[k * nblk + (size_t)y * tiles + x];
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
    DET_TRY(cudaMallocAsync((void **)&tmp, newton * stride * sizeof(double), det_stream),
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
                                                cudaMemcpyDeviceToDevice, det_stream);
                if (e != cudaSuccess)
                    rc = bcu_fail_cuda((int)e, "storing the refreshed inverse", mm);
                q++;
            }
    }
    cudaFreeAsync(tmp, det_stream);
    cudaError_t e = cudaStreamSynchronize(det_stream);
    if (!rc && e != cudaSuccess)
        rc = bcu_fail_cuda((int)e, "the refresh", 0);
    return rc;
}

extern "C" int bcu_det_refresh(bcu_det *const *d, size_t n, double *drift)
{
    int rc = det_check_batch("det_refresh", d, n);
    if (rc || n == 0)
        return rc;
    if (!drift)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_refresh: NULL drift array");
    bcu_lock();
    rc = det_refresh_locked(d, n, drift);
    bcu_unlock();
    return rc;
}

/* ---- local energy part ------------------------------------------------------------------- */

static int det_local_locked(bcu_det *const *d, size_t n, double *const *grad_ratio,
                            double *const *lap_ratio)
{
    int rc = det_flush_locked(d, n);
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
                return bcu_fail_cuda((int)e, "the gradients and Laplacians at the electrons", b);
        }
    }
    /* vgl at the current positions, in chunks of the launcher's stack */
    const size_t STACK = 128;
    const bcu_table *ts[128];
    const double *rs[128];
    size_t np[128];
    double *outs[128];
    for (size_t k0 = 0; k0 < n && !rc; k0 += STACK) {
        const size_t nb = n - k0 < STACK ? n - k0 : STACK;
        for (size_t k = 0; k < nb; k++) {
            ts[k] = d[k0 + k]->t;
            rs[k] = d[k0 + k]->r;
            np[k] = d[k0 + k]->m;
            outs[k] = d[k0 + k]->vgl;
        }
        rc = bcu_eval_to_device(ts, nb, rs, np, outs, 1);
        if (!rc) {
            cudaError_t e = cudaStreamSynchronize(det_stream); /* the shared position buffer */
            if (e != cudaSuccess)
                rc = bcu_fail_cuda((int)e, "the gradients and Laplacians at the electrons", 0);
        }
    }
    if (rc)
        return rc;
    const size_t jobs_bytes = (n * sizeof(det_lj) + 15) / 16 * 16;
    if ((rc = det_stage(jobs_bytes, 4 * rows * sizeof(double))))
        return rc;
    det_lj *jobs = (det_lj *)dh_in;
    size_t warps = 0, off = 0;
    for (size_t k = 0; k < n; k++) {
        jobs[k].Ainv = d[k]->Ainv;
        jobs[k].vgl = d[k]->vgl;
        jobs[k].out = dd_out + off;
        jobs[k].m = d[k]->m;
        jobs[k].L = d[k]->L;
        jobs[k].first_warp = (unsigned int)warps;
        warps += d[k]->m;
        off += 4 * (size_t)d[k]->m;
    }
    DET_TRY(cudaMemcpyAsync(dd_in, dh_in, jobs_bytes, cudaMemcpyHostToDevice, det_stream),
            "sending the local-energy jobs", jobs_bytes);
    const unsigned int blocks = (unsigned int)((warps * 32 + DET_THREADS - 1) / DET_THREADS);
    det_local_kernel<<<blocks, DET_THREADS, 0, det_stream>>>((const det_lj *)dd_in, (int)n);
    DET_TRY(cudaGetLastError(), "launching the determinant gradients", 0);
    DET_TRY(cudaMemcpyAsync(dh_out, dd_out, 4 * rows * sizeof(double), cudaMemcpyDeviceToHost,
                            det_stream), "fetching the determinant gradients",
            4 * rows * sizeof(double));
    DET_TRY(cudaStreamSynchronize(det_stream), "the determinant gradients", 0);
    off = 0;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < d[k]->m; i++) {
            const double *o = dh_out + off + 4 * i;
            grad_ratio[k][3 * i] = o[0];
            grad_ratio[k][3 * i + 1] = o[1];
            grad_ratio[k][3 * i + 2] = o[2];
            lap_ratio[k][i] = o[3];
        }
        off += 4 * (size_t)d[k]->m;
    }
    return MCF_OK;
}

extern "C" int bcu_det_local(bcu_det *const *d, size_t n, double *const *grad_ratio,
                             double *const *lap_ratio)
{
    int rc = det_check_batch("det_local", d, n);
    if (rc || n == 0)
        return rc;
    for (size_t k = 0; k < n; k++)
        if (!grad_ratio || !lap_ratio || !grad_ratio[k] || !lap_ratio[k])
            return mcf_fail(MCF_EINVAL, "blip-cuda: det_local: the output arrays of "
                            "determinant %zu are NULL", k);
    bcu_lock();
    rc = det_local_locked(d, n, grad_ratio, lap_ratio);
    bcu_unlock();
    return rc;
}
