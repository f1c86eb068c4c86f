/* kpm_cuda_response.cu — the two-dimensional Chebyshev moments on the device (kcu_response;
 * the response op of kpm-cuda: plugins/kpm/kpm_ops_response.c draws the vectors and turns
 * the sums into moments and errors).
 *
 * For the k <= nv vectors of a pass (vector-major: entry r of vector j at [j dim + r], so
 * that each vector is one contiguous column):
 *
 *   beta_m  = B T_m(H~) v,  m in a block of mb (all M where memory allows), kept;
 *   gamma_n = T_n(H~) A v,  n in chunks of nb, recomputed for each block of beta;
 *   x_nm    = <gamma_n | beta_m> / dim for each vector: a batched complex matrix product
 *             (cuBLAS ZGEMM, Gamma^H Beta, one batch entry per vector, K = dim), then added
 *             into the sums in the order of the vectors (sum, sum of |x|^2) by a small kernel.
 *
 * The products with H~, A and B are one kernel (kcu_resp_product): each thread one row, the
 * row's ELL slots loaded once into registers and applied to every vector of the pass, so
 * the table is read once per product whatever nv.  Cost per vector: 2M + (M / mb) M sparse
 * products and 8 M^2 dim flops in the matrix products (compute-bound on the FP64 tensor
 * cores).  cuBLAS gives the same bits run to run on one GPU model (no atomics mode, one
 * stream); the sums over rows are not in the host's order, so the results differ from
 * kpm's in the last bits (the tests bound it). */
#include "kpm_cuda_internal.cuh"

#include <cublas_v2.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KCU_RESP_NV_MAX 64   /* vectors in one pass at most */
#define KCU_RESP_NB 64       /* gammas per matrix product */
#define KCU_RESP_MB_MIN 16   /* fewer betas a block than this: out of memory */

struct kcu_response {
    size_t dim, M, nv, mb, nb;
    double2 *v, *t[3], *gc[2]; /* the pass's vectors; beta's recursion; gamma's carry */
    double2 *beta, *gam, *c;   /* mb and nb slots of nv dim; nv x nb x mb products */
    double2 *sum;              /* M x M */
    double *sq;
    double2 *pin;              /* host, pinned: the pass's vectors, then the sums */
    cublasHandle_t blas;
};

static double kcu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* y_j = P x_j for the k vectors of a pass (entry r of vector j at [j vs + r]):
 *   MODE 0  P = the operator (A or B): y = Op x
 *   MODE 1  P = H~:                   y = (H x) ia - c x        (ia = 1/a, c = b/a)
 *   MODE 2  the Chebyshev step:        y = 2 ((H x) ia - c x) - p
 * W >= the table's width (slots beyond it are read as empty), or 0: any width, the slots
 * read again for each vector. */
template <int MODE, int W>
__global__ void __launch_bounds__(KCU_STEP_THREADS)
kcu_resp_product(const int32_t *__restrict__ col, const double *__restrict__ hre,
                 const double *__restrict__ him, const double *__restrict__ ons, long long dim,
                 int width, int k, double ia, double c, const double2 *__restrict__ x,
                 const double2 *__restrict__ p, double2 *__restrict__ y)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < dim; r += stride) {
        const double e = ons[r];
        int32_t ck[W > 0 ? W : 1];
        double vr[W > 0 ? W : 1], vi[W > 0 ? W : 1];
#pragma unroll
        for (int s = 0; s < W; s++) {
            ck[s] = s < width ? __ldg(col + s * dim + r) : -1;
            vr[s] = s < width ? __ldg(hre + s * dim + r) : 0.0;
            vi[s] = s < width ? __ldg(him + s * dim + r) : 0.0;
        }
        for (int j = 0; j < k; j++) {
            const double2 *xj = x + (long long)j * dim;
            const double2 xr = xj[r];
            double ar = e * xr.x, ai = e * xr.y;
            if (W > 0) {
#pragma unroll
                for (int s = 0; s < W; s++) {
                    if (ck[s] < 0)
                        continue;
                    const double2 u = xj[ck[s]];
                    ar += vr[s] * u.x - vi[s] * u.y;
                    ai += vr[s] * u.y + vi[s] * u.x;
                }
            } else {
                for (int s = 0; s < width; s++) {
                    const int32_t cs = col[s * dim + r];
                    if (cs < 0)
                        continue;
                    const double hr = hre[s * dim + r], hi = him[s * dim + r];
                    const double2 u = xj[cs];
                    ar += hr * u.x - hi * u.y;
                    ai += hr * u.y + hi * u.x;
                }
            }
            double2 out;
            if (MODE == 0) {
                out = make_double2(ar, ai);
            } else {
                const double tr = ar * ia - c * xr.x, ti = ai * ia - c * xr.y;
                if (MODE == 1) {
                    out = make_double2(tr, ti);
                } else {
                    const double2 pp = p[(long long)j * dim + r];
                    out = make_double2(2.0 * tr - pp.x, 2.0 * ti - pp.y);
                }
            }
            y[(long long)j * dim + r] = out;
        }
    }
}

/* sums[(n0 + n) M + m0 + m] += x_j(n, m) and sq += |x_j|^2 over the k vectors in order, x_j
 * at c[j nb mb + n + m nb] (column-major, as the matrix product wrote it) */
__global__ void kcu_resp_accumulate(const double2 *__restrict__ c, int nb, int mb, int nbc,
                                    int mbc, int k, size_t M, size_t n0, size_t m0,
                                    double2 *sum, double *sq)
{
    const long long total = (long long)nbc * mbc;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total;
         q += (long long)gridDim.x * blockDim.x) {
        const int m = (int)(q / nbc), n = (int)(q % nbc);
        const size_t at = (n0 + (size_t)n) * M + m0 + (size_t)m;
        double2 s = sum[at];
        double s2 = sq[at];
        for (int j = 0; j < k; j++) {
            const double2 x = c[(long long)j * nb * mb + n + (long long)m * nb];
            s.x += x.x;
            s.y += x.y;
            s2 += x.x * x.x + x.y * x.y;
        }
        sum[at] = s;
        sq[at] = s2;
    }
}

typedef struct kcu_resp_ctx {
    kcu_response *s;
    const kcu_ham *h;
    double ia, c;
    int k;
    unsigned grid;
    kcu_response_timing *t;
} kcu_resp_ctx;

template <int MODE>
static void kcu_resp_launch_w(const kcu_resp_ctx *q, const kcu_ham *d, const double2 *x,
                              const double2 *p, double2 *y)
{
    const long long dim = (long long)d->dim;
#define KCU_RESP_GO(W)                                                                      \
    kcu_resp_product<MODE, W><<<q->grid, KCU_STEP_THREADS, 0, kcu_stream>>>(               \
        d->col, d->hre, d->him, d->ons, dim, d->width, q->k, q->ia, q->c, x, p, y)
    if (d->width <= 4)
        KCU_RESP_GO(4);
    else if (d->width <= 6)
        KCU_RESP_GO(6);
    else if (d->width <= 8)
        KCU_RESP_GO(8);
    else if (d->width <= 16)
        KCU_RESP_GO(16);
    else
        KCU_RESP_GO(0);
#undef KCU_RESP_GO
}

/* one product (MODE as the kernel's) with its bytes counted: the table, x, y (and p) */
static void kcu_resp_apply(const kcu_resp_ctx *q, int mode, const kcu_ham *d,
                           const double2 *x, const double2 *p, double2 *y)
{
    if (mode == 0)
        kcu_resp_launch_w<0>(q, d, x, p, y);
    else if (mode == 1)
        kcu_resp_launch_w<1>(q, d, x, p, y);
    else
        kcu_resp_launch_w<2>(q, d, x, p, y);
    if (q->t) {
        q->t->products++;
        q->t->product_bytes += (double)d->dim * ((double)d->width * 20.0 + 8.0) +
                               16.0 * (double)q->k * (double)d->dim * (mode == 2 ? 3.0 : 2.0);
    }
}

/* with timing: the stream drained and the seconds since *t0 added to *acc */
static int kcu_resp_phase(const kcu_resp_ctx *q, double *t0, double *acc)
{
    if (!q->t)
        return MCF_OK;
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the response's products", 0);
    const double now = kcu_now();
    *acc += now - *t0;
    *t0 = now;
    return MCF_OK;
}

extern "C" void kcu_response_destroy(kcu_response *s)
{
    if (!s)
        return;
    cudaStreamSynchronize(kcu_stream);
    cudaFree(s->v); /* one allocation holds every device array */
    cudaFreeHost(s->pin);
    if (s->blas)
        cublasDestroy(s->blas);
    free(s);
}

extern "C" int kcu_response_create(size_t dim, size_t M, size_t R,
                                   const kcu_response_limits *lim, kcu_response **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || dim > (size_t)INT_MAX || M < 2 || R < 1)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: response: dimension %zu (1 .. %d), %zu moments "
                        "(at least 2), %zu vectors (at least 1)", dim, INT_MAX, M, R);
    const kcu_response_limits none = {0, 0, 0, 0};
    if (!lim)
        lim = &none;
    size_t free_b = 0, total_b = 0;
    KCU_TRY(cudaMemGetInfo(&free_b, &total_b), "asking for the free device memory", 0);
    /* three quarters of what is free, less room for cuBLAS's workspace */
    size_t budget = lim->bytes ? lim->bytes : free_b / 4 * 3;
    const size_t fixed = M * M * (sizeof(double2) + sizeof(double)) + ((size_t)64 << 20);
    const size_t nb = lim->gamma_block ? (lim->gamma_block < M ? lim->gamma_block : M)
                                       : (M < KCU_RESP_NB ? M : KCU_RESP_NB);
    size_t nv = lim->vectors ? lim->vectors : KCU_RESP_NV_MAX;
    nv = nv < R ? nv : R;
    nv = nv < (size_t)INT_MAX / dim ? nv : (size_t)INT_MAX / dim;
    size_t mb_cap = lim->beta_block ? (lim->beta_block < M ? lim->beta_block : M) : M;
    size_t mb = 0;
    for (; nv >= 1; nv = nv > 1 ? nv / 2 : 0) { /* the most vectors that keep every beta */
        const double slot = 16.0 * (double)nv * (double)dim;
        const double room = (double)budget - (double)fixed;
        const double slots = room / slot - 6.0 - (double)nb - (double)nb * (double)mb_cap /
                                                                   (double)dim;
        if (slots >= (double)mb_cap || nv == 1) {
            mb = slots >= (double)mb_cap ? mb_cap : slots > 0 ? (size_t)slots : 0;
            break;
        }
    }
    if (mb < mb_cap && mb < KCU_RESP_MB_MIN)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: response: %zu moments of dimension %zu need "
                        "at least %d + %zu vectors on the device (%.1f GiB), %.1f GiB of %.1f "
                        "free", M, dim, KCU_RESP_MB_MIN, nb + 6,
                        (double)(KCU_RESP_MB_MIN + nb + 6) * 16.0 * (double)dim / 1073741824.0,
                        (double)free_b / 1073741824.0, (double)total_b / 1073741824.0);
    kcu_response *s = (kcu_response *)calloc(1, sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    s->dim = dim;
    s->M = M;
    s->nv = nv;
    s->mb = mb;
    s->nb = nb;
    const size_t slot = nv * dim, slots = 6 + mb + nb;
    const size_t n2 = slots * slot + nv * nb * mb + M * M;
    const size_t bytes = n2 * sizeof(double2) + M * M * sizeof(double);
    if ((rc = kcu_alloc((void **)&s->v, bytes, "the response's vectors"))) {
        free(s);
        return rc;
    }
    double2 *p = s->v + slot;
    for (int i = 0; i < 3; i++, p += slot)
        s->t[i] = p;
    for (int i = 0; i < 2; i++, p += slot)
        s->gc[i] = p;
    s->beta = p;
    s->gam = s->beta + mb * slot;
    s->c = s->gam + nb * slot;
    s->sum = s->c + nv * nb * mb;
    s->sq = (double *)(s->sum + M * M);
    const size_t pin = (slot > M * M ? slot : M * M) * sizeof(double2);
    cudaError_t e = cudaMallocHost((void **)&s->pin, pin);
    if (e != cudaSuccess) {
        kcu_response_destroy(s);
        return kcu_fail(e, "the response's pinned buffer", pin);
    }
    if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(s->blas, kcu_stream) != CUBLAS_STATUS_SUCCESS) {
        s->blas = NULL;
        kcu_response_destroy(s);
        return mcf_fail(MCF_EDEVICE, "kpm-cuda: response: cuBLAS could not be started");
    }
    *out = s;
    return MCF_OK;
}

extern "C" void kcu_response_shape(const kcu_response *s, size_t *nv, size_t *mb, size_t *nb)
{
    *nv = s->nv;
    *mb = s->mb;
    *nb = s->nb;
}

/* the chunk's products gamma^H beta of the k vectors, added into the sums */
static int kcu_resp_gemm(const kcu_resp_ctx *q, int nbc, int mbc, size_t n0, size_t m0)
{
    kcu_response *s = q->s;
    const cuDoubleComplex alpha = make_cuDoubleComplex(1.0 / (double)s->dim, 0.0);
    const cuDoubleComplex zero = make_cuDoubleComplex(0.0, 0.0);
    const int ld = (int)(s->nv * s->dim);
    const cublasStatus_t st = cublasZgemmStridedBatched(
        s->blas, CUBLAS_OP_C, CUBLAS_OP_N, nbc, mbc, (int)s->dim, &alpha,
        (const cuDoubleComplex *)s->gam, ld, (long long)s->dim,
        (const cuDoubleComplex *)s->beta, ld, (long long)s->dim, &zero,
        (cuDoubleComplex *)s->c, (int)s->nb, (long long)(s->nb * s->mb), q->k);
    if (st != CUBLAS_STATUS_SUCCESS)
        return mcf_fail(MCF_EDEVICE, "kpm-cuda: response: the matrix product failed (cuBLAS "
                        "status %d)", (int)st);
    const long long total = (long long)nbc * mbc;
    const unsigned g = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
    kcu_resp_accumulate<<<g, 256, 0, kcu_stream>>>(s->c, (int)s->nb, (int)s->mb, nbc, mbc,
                                                   q->k, s->M, n0, m0, s->sum, s->sq);
    KCU_TRY(cudaGetLastError(), "the response's sums", 0);
    if (q->t)
        q->t->gemm_flops += 8.0 * (double)nbc * (double)mbc * (double)s->dim * (double)q->k;
    return MCF_OK;
}

/* the gammas of every n against the block of betas m0 .. m0 + mbc */
static int kcu_resp_gammas(const kcu_resp_ctx *q, const kcu_ham *A, int mbc, size_t m0,
                           double *t0)
{
    kcu_response *s = q->s;
    const size_t slot = s->nv * s->dim, M = s->M;
    int rc;
    for (size_t n0 = 0; n0 < M; n0 += s->nb) {
        const size_t nbc = M - n0 < s->nb ? M - n0 : s->nb;
        for (size_t n = n0; n < n0 + nbc; n++) {
            double2 *dst = s->gam + (n - n0) * slot;
            const double2 *g1 = n >= n0 + 1 ? dst - slot : s->gc[1];
            const double2 *g2 = n >= n0 + 2 ? dst - 2 * slot : n == n0 + 1 ? s->gc[1]
                                                                           : s->gc[0];
            if (n == 0)
                kcu_resp_apply(q, 0, A, s->v, NULL, dst);
            else
                kcu_resp_apply(q, n == 1 ? 1 : 2, q->h, g1, g2, dst);
        }
        KCU_TRY(cudaGetLastError(), "the response's products", 0);
        if (q->t && (rc = kcu_resp_phase(q, t0, &q->t->products_s)))
            return rc;
        if ((rc = kcu_resp_gemm(q, (int)nbc, mbc, n0, m0)))
            return rc;
        /* the carry: gamma_{n0+nbc-2} and gamma_{n0+nbc-1} for the next chunk */
        const size_t by = q->k * s->dim * sizeof(double2);
        const double2 *last = s->gam + (nbc - 1) * slot;
        const double2 *prev = nbc >= 2 ? last - slot : s->gc[1];
        KCU_TRY(cudaMemcpyAsync(s->gc[0], prev, by, cudaMemcpyDeviceToDevice, kcu_stream),
                "the response's vectors", by);
        KCU_TRY(cudaMemcpyAsync(s->gc[1], last, by, cudaMemcpyDeviceToDevice, kcu_stream),
                "the response's vectors", by);
        if (q->t && (rc = kcu_resp_phase(q, t0, &q->t->gemm_s)))
            return rc;
    }
    return MCF_OK;
}

extern "C" int kcu_response_sums(kcu_response *s, const kcu_ham *h, const kcu_ham *A,
                                 const kcu_ham *B, double a, double b, size_t R,
                                 void (*fill)(void *ctx, size_t nv, double *v), void *ctx,
                                 double *sum_re, double *sum_im, double *sum_sq,
                                 kcu_response_timing *timing)
{
    if (h->dim != s->dim || A->dim != s->dim || B->dim != s->dim)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: response: dimensions %zu (H), %zu (A), %zu (B) "
                        "against the scratch's %zu", h->dim, A->dim, B->dim, s->dim);
    const size_t dim = s->dim, M = s->M, slot = s->nv * dim;
    kcu_resp_ctx q = {s, h, 1.0 / a, b / a, 0, 0, timing};
    const long long blocks = ((long long)dim + KCU_STEP_THREADS - 1) / KCU_STEP_THREADS;
    q.grid = (unsigned)(blocks < (1LL << 30) ? blocks : (1LL << 30));
    if (timing)
        memset(timing, 0, sizeof *timing);
    double t0 = kcu_now(), t_start = t0;
    KCU_TRY(cudaMemsetAsync(s->sum, 0, M * M * (sizeof(double2) + sizeof(double)), kcu_stream),
            "the response's sums", 0);
    int rc;
    for (size_t first = 0; first < R; first += s->nv) {
        q.k = (int)(R - first < s->nv ? R - first : s->nv);
        const size_t by = (size_t)q.k * dim * sizeof(double2);
        /* the previous pass has read the pinned buffer once the stream is drained */
        KCU_TRY(cudaStreamSynchronize(kcu_stream), "the response's previous pass", 0);
        fill(ctx, (size_t)q.k, (double *)s->pin);
        KCU_TRY(cudaMemcpyAsync(s->v, s->pin, by, cudaMemcpyHostToDevice, kcu_stream),
                "uploading the response's vectors", by);
        KCU_TRY(cudaMemcpyAsync(s->t[0], s->v, by, cudaMemcpyDeviceToDevice, kcu_stream),
                "the response's vectors", by);
        if (timing && (rc = kcu_resp_phase(&q, &t0, &timing->other_s)))
            return rc;
        for (size_t m0 = 0; m0 < M; m0 += s->mb) {
            const size_t mbc = M - m0 < s->mb ? M - m0 : s->mb;
            for (size_t m = m0; m < m0 + mbc; m++) { /* T_m(H~) v into t[m % 3], then B */
                if (m == 1)
                    kcu_resp_apply(&q, 1, h, s->t[0], NULL, s->t[1]);
                else if (m >= 2)
                    kcu_resp_apply(&q, 2, h, s->t[(m - 1) % 3], s->t[(m - 2) % 3],
                                   s->t[m % 3]);
                kcu_resp_apply(&q, 0, B, s->t[m % 3], NULL, s->beta + (m - m0) * slot);
            }
            KCU_TRY(cudaGetLastError(), "the response's products", 0);
            if (timing && (rc = kcu_resp_phase(&q, &t0, &timing->products_s)))
                return rc;
            if ((rc = kcu_resp_gammas(&q, A, (int)mbc, m0, &t0)))
                return rc;
        }
    }
    /* the sums down, through the pinned buffer */
    const size_t by = M * M * sizeof(double2);
    KCU_TRY(cudaMemcpyAsync(s->pin, s->sum, by, cudaMemcpyDeviceToHost, kcu_stream),
            "downloading the response's sums", by);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the response", 0);
    for (size_t i = 0; i < M * M; i++) {
        sum_re[i] = s->pin[i].x;
        sum_im[i] = s->pin[i].y;
    }
    if (sum_sq)
        KCU_TRY(cudaMemcpy(sum_sq, s->sq, M * M * sizeof(double), cudaMemcpyDeviceToHost),
                "downloading the response's sums", M * M * sizeof(double));
    if (timing) {
        timing->total_s = kcu_now() - t_start;
        timing->other_s = timing->total_s - timing->products_s - timing->gemm_s;
    }
    return MCF_OK;
}
