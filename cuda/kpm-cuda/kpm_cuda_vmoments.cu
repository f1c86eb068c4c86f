/* kpm_cuda_vmoments.cu — the Chebyshev moments of given vectors on the device (kcu_vmoments;
 * the vector_moments op of kpm-cuda, for spectral functions A(k, E): plugins/kpm's
 * kpm_ops_response.c checks the request and the scaling, and on the host runs the same
 * recursion).
 *
 * For the k <= nv vectors of a pass (vector-major, entry r of vector j at [j dim + r], which
 * is how the caller's interleaved complex vectors lie already) the recursion
 * t_0 = v, t_1 = H~ v, t_{n+1} = 2 H~ t_n - t_{n-1} runs to n = S = ceil(M / 2) only, and the
 * moments follow from the products the doubling identities need,
 *
 *     mu_2n = 2 <t_n|t_n> - mu_0,     mu_2n+1 = 2 <t_n+1|t_n> - mu_1,
 *
 * (T_2n = 2 T_n^2 - 1, T_2n+1 = 2 T_n+1 T_n - T_1 for Hermitian H~; both products real), so a
 * vector costs S products instead of M - 1.  One kernel per step computes t_n+1 row by row
 * and both products' per-block partial sums (blockIdx.y the vector: the table is read once a
 * vector, from L2 for the lattices spectral functions are measured on); the partials are
 * summed per (n, vector) in a fixed order at the end, so a run's bits do not depend on the
 * scheduling.  The sums are not the host's row order: kpm's and kpm-cuda's moments differ in
 * the last bits, and the doubling's rounding grows as ~n eps |t_n|^2 (the tests bound it). */
#include "kpm_cuda_internal.cuh"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define KCU_VM_NV 64    /* vectors a pass */
#define KCU_VM_G 128    /* blocks a vector at most (grid-stride beyond) */

struct kcu_vmoments {
    size_t dim, nv, S;  /* dimension, vectors a pass, steps (M <= 2 S) */
    unsigned G;         /* blocks a vector */
    double2 *t[3];      /* the recursion's three vectors of the pass */
    double *part;       /* S x nv x G x 2 per-block partial sums */
    double *prod;       /* S x nv x 2: <t_n|t_n>, <t_n+1|t_n> */
    double *host;       /* pinned, S x nv x 2 */
};

/* the block's sum of v (256 threads): a fixed tree, the same bits every run */
__device__ static double kcu_vm_block_sum(double v, double *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? sh[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
    }
    __syncthreads();
    return v;
}

/* y = H~ x (FIRST) or 2 H~ x - p for vector j = blockIdx.y, and the block's partial sums of
 * <x|x> and Re <y|x> into part[(j G + blockIdx.x) 2 + {0, 1}].  W >= the table's width, or
 * 0: any width. */
template <int W, bool FIRST>
__global__ void __launch_bounds__(KCU_STEP_THREADS)
kcu_vm_step(const int32_t *__restrict__ col, const double *__restrict__ hre,
            const double *__restrict__ him, const double *__restrict__ ons, long long dim,
            int width, double ia, double c, const double2 *__restrict__ x,
            const double2 *__restrict__ p, double2 *__restrict__ y, double *__restrict__ part)
{
    __shared__ double sh[KCU_STEP_THREADS / 32];
    const long long off = (long long)blockIdx.y * dim;
    const double2 *xj = x + off;
    double xx = 0.0, yx = 0.0;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < dim;
         r += (long long)gridDim.x * blockDim.x) {
        const double2 xr = xj[r];
        double ar = ons[r] * xr.x, ai = ons[r] * xr.y;
#pragma unroll
        for (int s = 0; s < (W > 0 ? W : 1); s++) {
            if (W == 0 || s >= width)
                break;
            const int32_t cs = __ldg(col + s * dim + r);
            if (cs < 0)
                continue;
            const double hr = __ldg(hre + s * dim + r), hi = __ldg(him + s * dim + r);
            const double2 u = xj[cs];
            ar += hr * u.x - hi * u.y;
            ai += hr * u.y + hi * u.x;
        }
        if (W == 0)
            for (int s = 0; s < width; s++) {
                const int32_t cs = col[s * dim + r];
                if (cs < 0)
                    continue;
                const double hr = hre[s * dim + r], hi = him[s * dim + r];
                const double2 u = xj[cs];
                ar += hr * u.x - hi * u.y;
                ai += hr * u.y + hi * u.x;
            }
        double2 out = make_double2(ar * ia - c * xr.x, ai * ia - c * xr.y);
        if (!FIRST) {
            const double2 pp = p[off + r];
            out = make_double2(2.0 * out.x - pp.x, 2.0 * out.y - pp.y);
        }
        y[off + r] = out;
        xx += xr.x * xr.x + xr.y * xr.y;
        yx += out.x * xr.x + out.y * xr.y;
    }
    xx = kcu_vm_block_sum(xx, sh);
    yx = kcu_vm_block_sum(yx, sh);
    if (threadIdx.x == 0) {
        double *q = part + ((long long)blockIdx.y * gridDim.x + blockIdx.x) * 2;
        q[0] = xx;
        q[1] = yx;
    }
}

/* prod[(n nv + j) 2 + q] = the sum over the G blocks in order, for every (n, j, q) */
__global__ void kcu_vm_collect(const double *__restrict__ part, long long count, unsigned G,
                               double *__restrict__ prod)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const long long nj = i / 2, q = i % 2;
        double s = 0.0;
        for (unsigned g = 0; g < G; g++)
            s += part[(nj * G + g) * 2 + q];
        prod[i] = s;
    }
}

template <bool FIRST>
static void kcu_vm_launch(const kcu_ham *d, dim3 grid, double ia, double c, const double2 *x,
                          const double2 *p, double2 *y, double *part)
{
    const long long dim = (long long)d->dim;
#define KCU_VM_GO(W)                                                                        \
    kcu_vm_step<W, FIRST><<<grid, KCU_STEP_THREADS, 0, kcu_stream>>>(                      \
        d->col, d->hre, d->him, d->ons, dim, d->width, ia, c, x, p, y, part)
    if (d->width <= 4)
        KCU_VM_GO(4);
    else if (d->width <= 6)
        KCU_VM_GO(6);
    else if (d->width <= 8)
        KCU_VM_GO(8);
    else if (d->width <= 16)
        KCU_VM_GO(16);
    else
        KCU_VM_GO(0);
#undef KCU_VM_GO
}

extern "C" void kcu_vmoments_destroy(kcu_vmoments *s)
{
    if (!s)
        return;
    cudaStreamSynchronize(kcu_stream);
    cudaFree(s->t[0]); /* one allocation holds every device array */
    cudaFreeHost(s->host);
    free(s);
}

extern "C" int kcu_vmoments_create(size_t dim, size_t M, kcu_vmoments **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || dim > (size_t)INT_MAX / KCU_VM_NV || M < 1 || M > (size_t)INT_MAX)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: vector_moments: dimension %zu (1 .. %d), %zu "
                        "moments (at least 1)", dim, INT_MAX / KCU_VM_NV, M);
    kcu_vmoments *s = (kcu_vmoments *)calloc(1, sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    s->dim = dim;
    s->nv = KCU_VM_NV;
    s->S = (M + 1) / 2;
    const size_t blocks = (dim + KCU_STEP_THREADS - 1) / KCU_STEP_THREADS;
    s->G = (unsigned)(blocks < KCU_VM_G ? blocks : KCU_VM_G);
    const size_t slot = s->nv * dim, np = s->S * s->nv * 2;
    const size_t bytes = 3 * slot * sizeof(double2) + (np * s->G + np) * sizeof(double);
    if ((rc = kcu_alloc((void **)&s->t[0], bytes, "the vector moments' vectors"))) {
        free(s);
        return rc;
    }
    s->t[1] = s->t[0] + slot;
    s->t[2] = s->t[1] + slot;
    s->part = (double *)(s->t[2] + slot);
    s->prod = s->part + np * s->G;
    cudaError_t e = cudaMallocHost((void **)&s->host, np * sizeof(double));
    if (e != cudaSuccess) {
        kcu_vmoments_destroy(s);
        return kcu_fail(e, "the vector moments' pinned buffer", np * sizeof(double));
    }
    *out = s;
    return MCF_OK;
}

extern "C" int kcu_vmoments_run(kcu_vmoments *s, const kcu_ham *h, double a, double b,
                                size_t M, size_t nvec, const double *v, double *mu)
{
    if (h->dim != s->dim || (M + 1) / 2 > s->S || M < 1 || !(a > 0.0))
        return mcf_fail(MCF_EINVAL, "kpm-cuda: vector_moments: dimension %zu against the "
                        "scratch's %zu, %zu moments against its %zu, a = %g", h->dim, s->dim,
                        M, 2 * s->S, a);
    const size_t dim = s->dim, S = (M + 1) / 2;
    const double ia = 1.0 / a, c = b / a;
    for (size_t first = 0; first < nvec; first += s->nv) {
        const size_t k = nvec - first < s->nv ? nvec - first : s->nv;
        const size_t by = k * dim * sizeof(double2);
        KCU_TRY(cudaMemcpyAsync(s->t[0], v + 2 * first * dim, by, cudaMemcpyHostToDevice,
                                kcu_stream), "uploading the vectors", by);
        const dim3 grid(s->G, (unsigned)k);
        for (size_t n = 0; n < S; n++) { /* t_n in t[n % 3] -> t_n+1, and the products of n */
            double *part = s->part + n * k * s->G * 2;
            if (n == 0)
                kcu_vm_launch<true>(h, grid, ia, c, s->t[0], NULL, s->t[1], part);
            else
                kcu_vm_launch<false>(h, grid, ia, c, s->t[n % 3], s->t[(n + 2) % 3],
                                     s->t[(n + 1) % 3], part);
        }
        KCU_TRY(cudaGetLastError(), "the vector moments' products", 0);
        const long long count = (long long)(S * k * 2);
        const unsigned g = (unsigned)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024);
        kcu_vm_collect<<<g, 256, 0, kcu_stream>>>(s->part, count, s->G, s->prod);
        KCU_TRY(cudaGetLastError(), "the vector moments' sums", 0);
        const size_t pb = (size_t)count * sizeof(double);
        KCU_TRY(cudaMemcpyAsync(s->host, s->prod, pb, cudaMemcpyDeviceToHost, kcu_stream),
                "downloading the vector moments", pb);
        KCU_TRY(cudaStreamSynchronize(kcu_stream), "the vector moments", 0);
        /* prod[(n k + j) 2]: <t_n|t_n>, [+1]: <t_n+1|t_n> (part's layout is n, j, block) */
        for (size_t j = 0; j < k; j++) {
            double *m = mu + (first + j) * M;
            const double m0 = s->host[j * 2], m1 = s->host[j * 2 + 1];
            for (size_t n = 0; n < S; n++) {
                const double xx = s->host[(n * k + j) * 2], yx = s->host[(n * k + j) * 2 + 1];
                if (2 * n < M)
                    m[2 * n] = n ? 2.0 * xx - m0 : xx;
                if (2 * n + 1 < M)
                    m[2 * n + 1] = n ? 2.0 * yx - m1 : yx;
            }
        }
    }
    return MCF_OK;
}
