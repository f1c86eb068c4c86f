/* kpm_cuda_device.cu — kernels and launchers of the kpm-cuda evaluator.  The layout and
 * the algorithms are described in kpm_cuda.h; the formulas in plugins/kpm/kpm_core.h. */
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "mcf_cuda.h"

#include "mcf/error.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand_kernel.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

#define KCU_PI 3.14159265358979323846
#define KCU_NV 4            /* GFMC vectors: u0, u1, u0 + u1, u0 + i u1 */
#define KCU_NS (3 * KCU_NV) /* sums per GFMC step: <r0|r0> (step 1), <y|x>, <y|y> */
#define KCU_GFMC_THREADS 256
#define KCU_GFMC_ROWS_PER_BLOCK 512 /* the cluster size aims at this many rows per block */
#define KCU_STEP_THREADS 256

/* ---- the device (cuda/common: mcf_cuda.h) ------------------------------------------ */

#define kcu_stream mcu_stream()

extern "C" int kcu_probe(char *why, size_t len) { return mcu_probe(why, len); }
extern "C" int kcu_device_init(void) { return mcu_device_init("kpm-cuda", "kpm"); }
extern "C" const char *kcu_device_name(void) { return mcu_device_name(); }
extern "C" int kcu_device_sms(void) { return mcu_device_sms(); }

/* A CUDA runtime failure as an mcf error: out of memory is MCF_ENOMEM with the sizes. */
static int kcu_fail(cudaError_t e, const char *what, size_t bytes)
{
    return mcu_fail((int)e, "kpm-cuda", what, bytes,
                    "use a smaller lattice, fewer chains or vectors (block), or evaluator = kpm");
}

#define KCU_TRY(call, what, bytes)                     \
    do {                                               \
        cudaError_t kcu_e_ = (call);                   \
        if (kcu_e_ != cudaSuccess)                     \
            return kcu_fail(kcu_e_, (what), (bytes));  \
    } while (0)

static int kcu_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    KCU_TRY(cudaMalloc(p, bytes ? bytes : 1), what, bytes);
    return MCF_OK;
}

extern "C" double kcu_copy_bandwidth(size_t bytes, int reps)
{
    return mcu_copy_bandwidth(bytes, reps);
}

/* ---- the device Hamiltonian ---------------------------------------------------------- */

struct kcu_ham {
    size_t dim;
    int width;
    int32_t *col;     /* width x dim, slot-major */
    double *hre, *him;
    double *ons;      /* dim */
    uint64_t version; /* of the host Hamiltonian the copy equals */
    uint64_t rows_updated, full_uploads;
};

static int kcu_ham_upload_all(kcu_ham *d, const mcf_hamiltonian *h)
{
    const size_t n = (size_t)d->width * d->dim;
    KCU_TRY(cudaMemcpyAsync(d->col, h->col, n * sizeof(int32_t), cudaMemcpyHostToDevice,
                            kcu_stream), "uploading the Hamiltonian", n * 4);
    KCU_TRY(cudaMemcpyAsync(d->hre, h->hop_re, n * sizeof(double), cudaMemcpyHostToDevice,
                            kcu_stream), "uploading the Hamiltonian", n * 8);
    KCU_TRY(cudaMemcpyAsync(d->him, h->hop_im, n * sizeof(double), cudaMemcpyHostToDevice,
                            kcu_stream), "uploading the Hamiltonian", n * 8);
    KCU_TRY(cudaMemcpyAsync(d->ons, h->onsite, d->dim * sizeof(double), cudaMemcpyHostToDevice,
                            kcu_stream), "uploading the Hamiltonian", d->dim * 8);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "uploading the Hamiltonian", 0);
    d->version = h->version;
    d->full_uploads++;
    return MCF_OK;
}

extern "C" void kcu_ham_destroy(kcu_ham *d)
{
    if (!d)
        return;
    cudaFree(d->col);
    cudaFree(d->hre);
    cudaFree(d->him);
    cudaFree(d->ons);
    free(d);
}

extern "C" int kcu_ham_create(const mcf_hamiltonian *h, kcu_ham **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (!h || h->dim < 1 || h->width < 1)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: no Hamiltonian (or an empty one) was given");
    kcu_ham *d = (kcu_ham *)calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    d->dim = h->dim;
    d->width = h->width;
    const size_t n = (size_t)h->width * h->dim;
    if ((rc = kcu_alloc((void **)&d->col, n * sizeof(int32_t), "the Hamiltonian")) ||
        (rc = kcu_alloc((void **)&d->hre, n * sizeof(double), "the Hamiltonian")) ||
        (rc = kcu_alloc((void **)&d->him, n * sizeof(double), "the Hamiltonian")) ||
        (rc = kcu_alloc((void **)&d->ons, h->dim * sizeof(double), "the Hamiltonian")) ||
        (rc = kcu_ham_upload_all(d, h))) {
        kcu_ham_destroy(d);
        return rc;
    }
    d->full_uploads = 0;
    *out = d;
    return MCF_OK;
}

extern "C" size_t kcu_ham_bytes(const kcu_ham *d)
{
    return d->dim * ((size_t)d->width * (4 + 8 + 8) + 8);
}

extern "C" void kcu_ham_stats(const kcu_ham *d, uint64_t *rows_updated, uint64_t *full_uploads)
{
    *rows_updated = d->rows_updated;
    *full_uploads = d->full_uploads;
}

/* One changed row as it travels to the device. */
struct kcu_row_update {
    int32_t row, width;
    int32_t col[KCU_MAX_WIDTH];
    double re[KCU_MAX_WIDTH], im[KCU_MAX_WIDTH];
    double onsite;
    /* the device table it goes to */
    int32_t *dcol;
    double *dre, *dim_, *dons;
    long long dim;
};

static void kcu_pack_row(const mcf_hamiltonian *h, const kcu_ham *d, size_t r,
                         kcu_row_update *u)
{
    u->row = (int32_t)r;
    u->width = h->width;
    for (int k = 0; k < h->width; k++) {
        const size_t sl = (size_t)k * h->dim + r;
        u->col[k] = h->col[sl];
        u->re[k] = h->hop_re[sl];
        u->im[k] = h->hop_im[sl];
    }
    u->onsite = h->onsite[r];
    u->dcol = d->col;
    u->dre = d->hre;
    u->dim_ = d->him;
    u->dons = d->ons;
    u->dim = (long long)h->dim;
}

__global__ void kcu_apply_updates_kernel(const kcu_row_update *u, int n)
{
    for (int q = blockIdx.x; q < n; q += gridDim.x) {
        const kcu_row_update *p = u + q;
        for (int k = threadIdx.x; k < p->width; k += blockDim.x) {
            const long long sl = (long long)k * p->dim + p->row;
            p->dcol[sl] = p->col[k];
            p->dre[sl] = p->re[k];
            p->dim_[sl] = p->im[k];
        }
        if (threadIdx.x == 0)
            p->dons[p->row] = p->onsite;
    }
}

/* Staging: a pinned host buffer and its device twin, grown on demand (one per process;
 * the plugin's ops run on one thread at a time, guarded by kcu_lock). */
static pthread_mutex_t kcu_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *kcu_stage_host, *kcu_stage_dev;
static size_t kcu_stage_size;

static int kcu_stage_reserve(size_t bytes)
{
    if (bytes <= kcu_stage_size)
        return MCF_OK;
    size_t n = kcu_stage_size ? kcu_stage_size : 65536;
    while (n < bytes)
        n *= 2;
    cudaFreeHost(kcu_stage_host);
    cudaFree(kcu_stage_dev);
    kcu_stage_host = kcu_stage_dev = NULL;
    kcu_stage_size = 0;
    KCU_TRY(cudaMallocHost((void **)&kcu_stage_host, n), "the pinned staging buffer", n);
    KCU_TRY(cudaMalloc((void **)&kcu_stage_dev, n), "the staging buffer", n);
    kcu_stage_size = n;
    return MCF_OK;
}

/* Changed rows of h since d's version into upd (at most KCU_MAX_UPDATE_ROWS): the count,
 * or -1 when a full upload is needed. */
static long kcu_changed(const kcu_ham *d, const mcf_hamiltonian *h, kcu_row_update *upd)
{
    if (d->version == h->version)
        return 0;
    if (h->width > KCU_MAX_WIDTH)
        return -1;
    size_t rows[KCU_MAX_UPDATE_ROWS];
    const long n = mcf_hamiltonian_changed_rows(h, d->version, rows, KCU_MAX_UPDATE_ROWS);
    if (n < 0)
        return -1;
    for (long q = 0; q < n; q++)
        kcu_pack_row(h, d, rows[q], upd + q);
    return n;
}

extern "C" int kcu_ham_sync(kcu_ham *d, const mcf_hamiltonian *h)
{
    if (!h || h->dim != d->dim || h->width != d->width)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: the Hamiltonian's shape changed (dim %zu, width "
                        "%d; the device copy has %zu, %d)", h ? h->dim : 0, h ? h->width : 0,
                        d->dim, d->width);
    if (d->version == h->version)
        return MCF_OK;
    pthread_mutex_lock(&kcu_lock);
    int rc = kcu_stage_reserve(KCU_MAX_UPDATE_ROWS * sizeof(kcu_row_update));
    long n = rc ? -1 : kcu_changed(d, h, (kcu_row_update *)kcu_stage_host);
    if (!rc && n < 0) {
        rc = kcu_ham_upload_all(d, h);
    } else if (!rc && n > 0) {
        cudaError_t e = cudaMemcpyAsync(kcu_stage_dev, kcu_stage_host,
                                        (size_t)n * sizeof(kcu_row_update),
                                        cudaMemcpyHostToDevice, kcu_stream);
        if (e == cudaSuccess) {
            kcu_apply_updates_kernel<<<(unsigned)n, 32, 0, kcu_stream>>>(
                (const kcu_row_update *)kcu_stage_dev, (int)n);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(kcu_stream);
        if (e != cudaSuccess)
            rc = kcu_fail(e, "updating the Hamiltonian", 0);
        d->rows_updated += (uint64_t)n;
        d->version = h->version;
    }
    pthread_mutex_unlock(&kcu_lock);
    return rc;
}

/* ---- one Chebyshev step for a block of vectors (grid-wide, one launch per step) -------
 *
 * Thread (row, j): j = tid % Bp (Bp the block size rounded up to a power of 2, dividing the
 * thread count), row from the block and a grid-stride loop; threads with j >= B idle.
 * Sums per vector: s0 = <x|x> (first step only), s1 = Re <y|x>, s2 = <y|y>; reduced in
 * the block by a fixed tree, the block sums written to part[block], and the last block
 * to finish (atomic ticket) adds the blocks in index order into tot[3 B]: deterministic. */

/* The product of one row with NV vectors: acc[j] = (onsite - shift) xr[j] + sum_k H_rk
 * x[c_k][j].  The row's ELL entries are read at col/hre/him[k hs + hr] (hs the slot
 * stride: dim in global memory, the block's rows in shared memory); x[c] at x + c xs.
 * WT > 0: the width, known at compile time, so every slot's loads are issued before the
 * first gather is used (memory-level parallelism: the step is latency-bound on small
 * lattices); WT = 0: any width.  Empty slots (col < 0) add nothing. */
/* The GFMC vector blocks are tiled: the KCU_NV vectors of 32 consecutive rows are stored
 * vector by vector, element (r, j) at kcu_vidx(r, j), so that the 32 lanes of a warp (32
 * consecutive rows) read 32 consecutive double2 of one vector: conflict-free in shared
 * memory, whole sectors in global memory.  (Row-major [r][j] made every warp access
 * 4-way bank-conflicted in shared memory: measured 6.4 us per step on 8^3.) */
__device__ __forceinline__ long long kcu_vidx(long long r, int j)
{
    return ((r >> 5) << 7) + ((long long)j << 5) + (r & 31);
}

/* Loads of the ELL table: LP = 0 plain (the table may be in shared memory), 1 read-only
 * data cache (ld.global.nc), 2 streaming (ld.global.cs: evict first, so the table, read
 * once per step, does not push the vectors out of L2). */
template <int LP, typename V>
__device__ __forceinline__ V kcu_ld(const V *p)
{
    if (LP == 1)
        return __ldg(p);
    if (LP == 2)
        return __ldcs(p);
    return *p;
}

/* Where x[c] is (XM): 0 at x + c xs (the DOS blocks); 1 tiled, x + kcu_vidx(c, 0) (GFMC
 * vectors in global memory, or in shared memory with one block per chain); 2 distributed
 * over the shared memory of the G blocks of a cluster, the column encoded as owner block
 * << 24 | local row (see the kernel), read through the cluster's shared-memory window. */
template <int XM>
__device__ __forceinline__ const double2 *kcu_gather_base(const double2 *x, long long xs, int32_t c)
{
    if (XM == 0)
        return x + (long long)c * xs;
    if (XM == 1)
        return x + kcu_vidx(c, 0);
    const unsigned owner = (unsigned)c >> 24;
    const double2 *base = xs > 1 ? cg::this_cluster().map_shared_rank(x, owner) : x;
    return base + kcu_vidx(c & 0xffffff, 0);
}

template <int WT, int NV, int XM, int LP = 0>
__device__ __forceinline__ void kcu_row_product(const int32_t *col, const double *hre,
                                                const double *him, long long hs, long long hr,
                                                int width, double e,
                                                const double2 *__restrict__ x, long long xs,
                                                const double2 *xr, double2 *acc)
{
#pragma unroll
    for (int j = 0; j < NV; j++) {
        acc[j].x = e * xr[j].x;
        acc[j].y = e * xr[j].y;
    }
    if (WT > 0) {
        int32_t c[WT > 0 ? WT : 1];
        double vr[WT > 0 ? WT : 1], vi[WT > 0 ? WT : 1];
#pragma unroll
        for (int k = 0; k < WT; k++) {
            c[k] = kcu_ld<LP>(col + k * hs + hr);
            vr[k] = kcu_ld<LP>(hre + k * hs + hr);
            vi[k] = kcu_ld<LP>(him + k * hs + hr);
        }
#pragma unroll
        for (int k = 0; k < WT; k++) {
            if (c[k] < 0)
                continue;
            const double2 *xc = kcu_gather_base<XM>(x, xs, c[k]);
#pragma unroll
            for (int j = 0; j < NV; j++) {
                const double2 v = xc[XM ? j << 5 : j];
                acc[j].x += vr[k] * v.x - vi[k] * v.y;
                acc[j].y += vr[k] * v.y + vi[k] * v.x;
            }
        }
    } else {
        for (int k = 0; k < width; k++) {
            const int32_t ck = col[k * hs + hr];
            if (ck < 0)
                continue;
            const double hrk = hre[k * hs + hr], hik = him[k * hs + hr];
            const double2 *xc = kcu_gather_base<XM>(x, xs, ck);
#pragma unroll
            for (int j = 0; j < NV; j++) {
                const double2 v = xc[XM ? j << 5 : j];
                acc[j].x += hrk * v.x - hik * v.y;
                acc[j].y += hrk * v.y + hik * v.x;
            }
        }
    }
}

struct kcu_step_args {
    const int32_t *col;
    const double *hre, *him, *ons;
    long long dim;
    int width, B, Bp, first;
    const double2 *x;
    double2 *y;
    double ia, b;
    double *part;      /* gridDim x 3 B */
    double *tot;       /* 3 B */
    unsigned *ticket;
};

template <int WT, int LP>
__global__ void __launch_bounds__(KCU_STEP_THREADS) kcu_step_kernel(kcu_step_args s)
{
    __shared__ double red[3][KCU_STEP_THREADS];
    __shared__ bool last;
    const int tid = threadIdx.x, B = s.B, Bp = s.Bp;
    const int j = tid % Bp;
    const int rows_per_block = KCU_STEP_THREADS / Bp;
    const double ia = s.ia, ia2 = 2.0 * s.ia, shift = s.b;
    const long long dim = s.dim;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    if (j < B) {
        for (long long r = (long long)blockIdx.x * rows_per_block + tid / Bp; r < dim;
             r += (long long)gridDim.x * rows_per_block) {
            const double2 xr = s.x[r * B + j];
            double2 acc;
            kcu_row_product<WT, 1, 0, LP>(s.col, s.hre, s.him, dim, r, s.width,
                                              kcu_ld<LP>(s.ons + r) - shift,
                                   s.x + j, B, &xr, &acc);
            double2 yr;
            if (s.first) {
                yr.x = ia * acc.x;
                yr.y = ia * acc.y;
                s0 += xr.x * xr.x + xr.y * xr.y;
            } else {
                const double2 yo = LP == 2 ? __ldcs(s.y + r * B + j) : s.y[r * B + j];
                yr.x = ia2 * acc.x - yo.x;
                yr.y = ia2 * acc.y - yo.y;
            }
            s.y[r * B + j] = yr;
            s1 += yr.x * xr.x + yr.y * xr.y;
            s2 += yr.x * yr.x + yr.y * yr.y;
        }
    }
    red[0][tid] = s0;
    red[1][tid] = s1;
    red[2][tid] = s2;
    __syncthreads();
    for (int st = KCU_STEP_THREADS / 2; st >= Bp; st >>= 1) {
        if (tid < st)
            for (int q = 0; q < 3; q++)
                red[q][tid] += red[q][tid + st];
        __syncthreads();
    }
    if (tid < B)
        for (int q = 0; q < 3; q++)
            s.part[(size_t)blockIdx.x * 3 * B + q * B + tid] = red[q][tid];
    __threadfence();
    __syncthreads();
    if (tid == 0)
        last = atomicInc(s.ticket, gridDim.x - 1) == gridDim.x - 1;
    __syncthreads();
    if (last) {
        __threadfence();
        for (int q = tid; q < 3 * B; q += blockDim.x) {
            double t = 0.0;
            for (unsigned g = 0; g < gridDim.x; g++)
                t += ((volatile double *)s.part)[(size_t)g * 3 * B + q];
            s.tot[q] = t;
        }
    }
}

/* Start vectors: nb random vectors in a block of stride B (the rest zero). */
__global__ void kcu_random_vectors_kernel(double2 *v, long long dim, int B, int nb,
                                          unsigned long long seed, unsigned long long first,
                                          int gaussian)
{
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < dim * B;
         q += (long long)gridDim.x * blockDim.x) {
        const int j = (int)(q % B);
        const long long r = q / B;
        if (j >= nb) {
            v[q] = make_double2(0.0, 0.0);
            continue;
        }
        curandStatePhilox4_32_10_t st;
        curand_init(seed, first + (unsigned long long)j, 4ull * (unsigned long long)r, &st);
        if (gaussian) {
            const double2 g = curand_normal2_double(&st);
            v[q] = make_double2(g.x * 0.70710678118654752440, g.y * 0.70710678118654752440);
        } else {
            const double2 u = curand_uniform2_double(&st);
            double sn, cs;
            sincos(2.0 * KCU_PI * u.x, &sn, &cs);
            v[q] = make_double2(cs, sn);
        }
    }
}

__global__ void kcu_zero_kernel(double2 *v, long long n)
{
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x)
        v[q] = make_double2(0.0, 0.0);
}

__global__ void kcu_set_units_kernel(double2 *v, int B, const long long *rows, int nb)
{
    const int j = threadIdx.x;
    if (j < nb)
        v[rows[j] * B + j] = make_double2(1.0, 0.0);
}

struct kcu_engine {
    size_t dim, block;
    double2 *v0, *v1;
    double *part, *tot; /* part: grid x 3 block; tot: steps x 3 block */
    size_t tot_steps;
    unsigned *ticket;
    long long *rows;
    double *tot_host;
    int grid;
    /* the K step launches captured once as a CUDA graph, replayed while the Hamiltonian's
     * device table, the rescaling and K stay the same (the table's contents may change) */
    cudaGraphExec_t graph;
    const kcu_ham *graph_d;
    double graph_a, graph_b;
    size_t graph_K;
};

extern "C" void kcu_engine_destroy(kcu_engine *e)
{
    if (!e)
        return;
    cudaFree(e->v0);
    cudaFree(e->v1);
    cudaFree(e->part);
    cudaFree(e->tot);
    cudaFree(e->ticket);
    cudaFree(e->rows);
    free(e->tot_host);
    if (e->graph)
        cudaGraphExecDestroy(e->graph);
    free(e);
}

extern "C" int kcu_engine_create(size_t dim, size_t block, kcu_engine **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || block < 1 || block > 64)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: engine of dimension %zu and block %zu (1..64)",
                        dim, block);
    kcu_engine *e = (kcu_engine *)calloc(1, sizeof *e);
    if (!e)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    e->dim = dim;
    e->block = block;
    /* enough blocks to fill the device a few times over, no more than the rows need */
    const size_t Bp = block <= 1 ? 1 : (size_t)1 << (64 - __builtin_clzll(block - 1));
    const size_t rows_per_block = KCU_STEP_THREADS / Bp;
    size_t grid = (dim + rows_per_block - 1) / rows_per_block;
    const size_t cap = 8 * (size_t)mcu_props()->multiProcessorCount;
    e->grid = (int)(grid < cap ? grid : cap);
    const size_t vb = dim * block * sizeof(double2);
    if ((rc = kcu_alloc((void **)&e->v0, vb, "KPM vectors")) ||
        (rc = kcu_alloc((void **)&e->v1, vb, "KPM vectors")) ||
        (rc = kcu_alloc((void **)&e->part, (size_t)e->grid * 3 * block * sizeof(double),
                        "KPM partial sums")) ||
        (rc = kcu_alloc((void **)&e->ticket, sizeof(unsigned), "a counter")) ||
        (rc = kcu_alloc((void **)&e->rows, 64 * sizeof(long long), "row indices"))) {
        kcu_engine_destroy(e);
        return rc;
    }
    cudaMemset(e->ticket, 0, sizeof(unsigned));
    *out = e;
    return MCF_OK;
}

static int kcu_engine_reserve_steps(kcu_engine *e, size_t steps)
{
    if (steps <= e->tot_steps)
        return MCF_OK;
    cudaFree(e->tot);
    free(e->tot_host);
    e->tot = NULL;
    e->tot_host = NULL;
    e->tot_steps = 0;
    const size_t n = steps * 3 * e->block;
    int rc = kcu_alloc((void **)&e->tot, n * sizeof(double), "KPM moments");
    if (rc)
        return rc;
    e->tot_host = (double *)malloc(n * sizeof(double));
    if (!e->tot_host)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for %zu moments", n);
    e->tot_steps = steps;
    return MCF_OK;
}

template <int LP>
static void kcu_launch_step_lp(int width, int grid, const kcu_step_args &s)
{
    if (width == 6)
        kcu_step_kernel<6, LP><<<grid, KCU_STEP_THREADS, 0, kcu_stream>>>(s);
    else if (width == 7)
        kcu_step_kernel<7, LP><<<grid, KCU_STEP_THREADS, 0, kcu_stream>>>(s);
    else
        kcu_step_kernel<0, LP><<<grid, KCU_STEP_THREADS, 0, kcu_stream>>>(s);
}

/* The table through the read-only data cache for blocks of 4 or more vectors (measured on
 * an H100 at 128^3: 58% of the copy bandwidth instead of 54% at B = 8, 51% instead of 47%
 * at B = 64), plain loads for fewer (74% instead of 68% at B = 1); streaming loads
 * (ld.global.cs) were in between. */
static void kcu_launch_step(int width, int grid, const kcu_step_args &s)
{
    if (s.B >= 4)
        kcu_launch_step_lp<1>(width, grid, s);
    else
        kcu_launch_step_lp<0>(width, grid, s);
}

/* The recursion for nb vectors already in e->v0 (stride e->block): K = M / 2 steps (at
 * least 1), sums into tot_host[step][3 B]; then the moments mu[j M + n] * scale. */
static int kcu_engine_moments(kcu_engine *e, const kcu_ham *d, double a, double b, size_t nb,
                              size_t M, double scale, double *mu)
{
    const size_t B = e->block, K = M / 2 > 0 ? M / 2 : 1;
    int rc = kcu_engine_reserve_steps(e, K);
    if (rc)
        return rc;
    const int Bp = B <= 1 ? 1 : 1 << (32 - __builtin_clz((unsigned)B - 1));
    kcu_step_args s;
    s.col = d->col;
    s.hre = d->hre;
    s.him = d->him;
    s.ons = d->ons;
    s.dim = (long long)e->dim;
    s.width = d->width;
    s.B = (int)B;
    s.Bp = Bp;
    s.ia = 1.0 / a;
    s.b = b;
    s.part = e->part;
    s.ticket = e->ticket;
    if (!e->graph || e->graph_d != d || e->graph_a != a || e->graph_b != b || e->graph_K != K) {
        /* capture the K launches (a few us each when launched one by one: 3-6% of a 128^3
         * step) as one graph */
        if (e->graph) {
            cudaGraphExecDestroy(e->graph);
            e->graph = NULL;
        }
        KCU_TRY(cudaStreamBeginCapture(kcu_stream, cudaStreamCaptureModeThreadLocal),
                "capturing the Chebyshev steps", 0);
        double2 *cur = e->v0, *old = e->v1;
        for (size_t n = 1; n <= K; n++) {
            s.first = n == 1;
            s.x = n == 1 ? e->v0 : cur;
            s.y = n == 1 ? e->v1 : old;
            s.tot = e->tot + (n - 1) * 3 * B;
            kcu_launch_step(d->width, e->grid, s);
            if (n == 1) {
                cur = e->v1;
                old = e->v0;
            } else {
                double2 *t = cur;
                cur = old;
                old = t;
            }
        }
        cudaGraph_t graph = NULL;
        cudaError_t ce = cudaStreamEndCapture(kcu_stream, &graph);
        if (ce == cudaSuccess)
            ce = cudaGraphInstantiate(&e->graph, graph, 0);
        if (graph)
            cudaGraphDestroy(graph);
        if (ce != cudaSuccess) {
            e->graph = NULL;
            return kcu_fail(ce, "building the graph of the Chebyshev steps", 0);
        }
        e->graph_d = d;
        e->graph_a = a;
        e->graph_b = b;
        e->graph_K = K;
    }
    KCU_TRY(cudaGraphLaunch(e->graph, kcu_stream), "launching the Chebyshev steps", 0);
    KCU_TRY(cudaMemcpyAsync(e->tot_host, e->tot, K * 3 * B * sizeof(double),
                            cudaMemcpyDeviceToHost, kcu_stream), "copying moments", 0);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the Chebyshev recursion", 0);
    const double *t = e->tot_host;
    for (size_t j = 0; j < nb; j++) {
        const double mu0 = t[j], mu1 = t[B + j];
        double *m = mu + j * M;
        m[0] = mu0;
        if (M > 1)
            m[1] = mu1;
        if (M > 2)
            m[2] = 2.0 * t[2 * B + j] - mu0;
        for (size_t n = 2; n <= K; n++) {
            const double *tn = t + (n - 1) * 3 * B;
            m[2 * n - 1] = 2.0 * tn[B + j] - mu1;
            if (2 * n < M)
                m[2 * n] = 2.0 * tn[2 * B + j] - mu0;
        }
        for (size_t n = 1; n < M; n++)
            if (!(fabs(m[n]) <= mu0 * (1.0 + 1e-8) + DBL_MIN))
                return mcf_fail(MCF_EINVAL,
                                "kpm-cuda: Chebyshev moment <r|T_%zu(H~)|r> of vector %zu is "
                                "%g, beyond <r|r> = %g: the spectrum of the Hamiltonian "
                                "reaches outside [%g, %g], the bounds used for rescaling "
                                "(fixed bounds too narrow, or a damaged ELL table)",
                                n, j, m[n], mu0, b - a, b + a);
        for (size_t n = 0; n < M; n++)
            m[n] *= scale;
    }
    return MCF_OK;
}

static void kcu_grid_for(size_t n, int *grid)
{
    size_t g = (n + 255) / 256;
    const size_t cap = 8 * (size_t)mcu_props()->multiProcessorCount;
    *grid = (int)(g < 1 ? 1 : g < cap ? g : cap);
}

extern "C" int kcu_random_moments(kcu_engine *e, const kcu_ham *d, double a, double b, int kind,
                                  uint64_t seed, size_t R, size_t M, double *mu_vec)
{
    if (d->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: engine and Hamiltonian dimensions differ");
    const size_t B = e->block;
    for (size_t r0 = 0; r0 < R; r0 += B) {
        const size_t nb = R - r0 < B ? R - r0 : B;
        int grid;
        kcu_grid_for(e->dim * B, &grid);
        kcu_random_vectors_kernel<<<grid, 256, 0, kcu_stream>>>(
            e->v0, (long long)e->dim, (int)B, (int)nb, (unsigned long long)seed,
            (unsigned long long)r0, kind == 1);
        int rc = kcu_engine_moments(e, d, a, b, nb, M, 1.0 / (double)e->dim, mu_vec + r0 * M);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

extern "C" int kcu_rows_moments(kcu_engine *e, const kcu_ham *d, double a, double b,
                                const size_t *rows, size_t n_rows, size_t M, double *mu)
{
    if (d->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: engine and Hamiltonian dimensions differ");
    const size_t B = e->block;
    for (size_t j = 0; j < n_rows; j++)
        if (rows[j] >= e->dim)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: LDOS of row %zu asked for, but the "
                            "Hamiltonian has rows 0 to %zu", rows[j], e->dim - 1);
    for (size_t r0 = 0; r0 < n_rows; r0 += B) {
        const size_t nb = n_rows - r0 < B ? n_rows - r0 : B;
        long long idx[64];
        for (size_t j = 0; j < nb; j++)
            idx[j] = (long long)rows[r0 + j];
        KCU_TRY(cudaMemcpyAsync(e->rows, idx, nb * sizeof(long long), cudaMemcpyHostToDevice,
                                kcu_stream), "copying row indices", 0);
        int grid;
        kcu_grid_for(e->dim * B, &grid);
        kcu_zero_kernel<<<grid, 256, 0, kcu_stream>>>(e->v0, (long long)(e->dim * B));
        kcu_set_units_kernel<<<1, 64, 0, kcu_stream>>>(e->v0, (int)B, e->rows, (int)nb);
        int rc = kcu_engine_moments(e, d, a, b, nb, M, 1.0, mu + r0 * M);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

extern "C" int kcu_time_steps(kcu_engine *e, const kcu_ham *d, double a, double b, size_t nvec,
                              size_t steps, double *seconds_per_step, double *bytes_per_step)
{
    if (nvec < 1 || nvec > e->block || steps < 2)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: timing %zu vectors (block %zu), %zu steps",
                        nvec, e->block, steps);
    int grid;
    kcu_grid_for(e->dim * e->block, &grid);
    kcu_random_vectors_kernel<<<grid, 256, 0, kcu_stream>>>(e->v0, (long long)e->dim,
                                                            (int)e->block, (int)nvec, 1ull, 0ull,
                                                            0);
    /* one untimed warm-up run, then the timed one */
    double *mu = (double *)malloc(nvec * 2 * steps * sizeof(double));
    if (!mu)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    int rc = kcu_engine_moments(e, d, a, b, nvec, 2 * steps, 1.0, mu);
    kcu_random_vectors_kernel<<<grid, 256, 0, kcu_stream>>>(e->v0, (long long)e->dim,
                                                            (int)e->block, (int)nvec, 1ull, 0ull,
                                                            0);
    cudaEventRecord(e0, kcu_stream);
    if (!rc)
        rc = kcu_engine_moments(e, d, a, b, nvec, 2 * steps, 1.0, mu);
    cudaEventRecord(e1, kcu_stream);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    free(mu);
    if (rc)
        return rc;
    *seconds_per_step = ms * 1e-3 / (double)steps;
    /* the table once, and per vector: the gathered x, the old y read, the new y written */
    *bytes_per_step = (double)kcu_ham_bytes(d) + 3.0 * (double)e->dim * (double)e->block * 16.0;
    return MCF_OK;
}

/* ---- reconstruction by batched cuFFT ----------------------------------------------- */

struct kcu_dct {
    size_t N, M, batch;
    cufftHandle plan;
    int planned;
    cufftDoubleComplex *buf;   /* device, batch x 2N */
    cufftDoubleComplex *host;  /* batch x 2N */
    double *sin_t;             /* N: sin theta_k */
};

extern "C" void kcu_dct_destroy(kcu_dct *p)
{
    if (!p)
        return;
    if (p->planned)
        cufftDestroy(p->plan);
    cudaFree(p->buf);
    free(p->host);
    free(p->sin_t);
    free(p);
}

extern "C" int kcu_dct_create(size_t N, size_t M, size_t batch, kcu_dct **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (N < 1 || M > N || batch < 1)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: a transform of %zu points for %zu moments", N, M);
    kcu_dct *p = (kcu_dct *)calloc(1, sizeof *p);
    if (!p)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    p->N = N;
    p->M = M;
    p->batch = batch;
    const size_t n = batch * 2 * N;
    p->host = (cufftDoubleComplex *)malloc(n * sizeof *p->host);
    p->sin_t = (double *)malloc(N * sizeof(double));
    if (!p->host || !p->sin_t) {
        kcu_dct_destroy(p);
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for a transform");
    }
    if ((rc = kcu_alloc((void **)&p->buf, n * sizeof *p->buf, "the FFT buffer"))) {
        kcu_dct_destroy(p);
        return rc;
    }
    int len = (int)(2 * N);
    if (cufftPlanMany(&p->plan, 1, &len, NULL, 1, len, NULL, 1, len, CUFFT_Z2Z, (int)batch) !=
        CUFFT_SUCCESS) {
        kcu_dct_destroy(p);
        return mcf_fail(MCF_EDEVICE, "kpm-cuda: cufftPlanMany (length %d, batch %zu) failed",
                        len, batch);
    }
    p->planned = 1;
    cufftSetStream(p->plan, kcu_stream);
    for (size_t k = 0; k < N; k++)
        p->sin_t[k] = sin(KCU_PI * ((double)k + 0.5) / (double)N);
    *out = p;
    return MCF_OK;
}

/* chi_k = sum_n c_n exp(-i n theta_k) for the nb series, into p->host (k < N). */
static int kcu_dct_chi(kcu_dct *p, const double *mu, size_t nb, const double *g)
{
    if (nb > p->batch)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: %zu series for a plan of %zu", nb, p->batch);
    const size_t N = p->N, M = p->M, L = 2 * N;
    for (size_t j = 0; j < nb; j++) {
        cufftDoubleComplex *in = p->host + j * L;
        for (size_t n = 0; n < L; n++) {
            if (n >= M) {
                in[n].x = in[n].y = 0.0;
                continue;
            }
            double c = g[n] * mu[j * M + n];
            if (n == 0)
                c *= 0.5;
            const double ph = -KCU_PI * (double)n / (double)L;
            in[n].x = c * cos(ph);
            in[n].y = c * sin(ph);
        }
    }
    const size_t bytes = nb * L * sizeof(cufftDoubleComplex);
    KCU_TRY(cudaMemcpyAsync(p->buf, p->host, bytes, cudaMemcpyHostToDevice, kcu_stream),
            "copying FFT input", bytes);
    /* the plan is for `batch` series; the rows beyond nb are transformed too (garbage,
     * unread) */
    if (cufftExecZ2Z(p->plan, p->buf, p->buf, CUFFT_FORWARD) != CUFFT_SUCCESS)
        return mcf_fail(MCF_EDEVICE, "kpm-cuda: cufftExecZ2Z failed");
    KCU_TRY(cudaMemcpyAsync(p->host, p->buf, bytes, cudaMemcpyDeviceToHost, kcu_stream),
            "copying FFT output", bytes);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the FFT", 0);
    return MCF_OK;
}

extern "C" int kcu_dct_density(kcu_dct *p, const double *mu, size_t nb, const double *g,
                               double a, double *out)
{
    int rc = kcu_dct_chi(p, mu, nb, g);
    if (rc)
        return rc;
    const size_t N = p->N;
    for (size_t j = 0; j < nb; j++)
        for (size_t k = 0; k < N; k++) {
            const cufftDoubleComplex c = p->host[j * 2 * N + k];
            out[j * N + (N - 1 - k)] = 2.0 * c.x / (KCU_PI * p->sin_t[k]) / a;
        }
    return MCF_OK;
}

extern "C" int kcu_dct_green(kcu_dct *p, const double *mu, size_t nb, const double *g, double a,
                             double *re, double *im)
{
    int rc = kcu_dct_chi(p, mu, nb, g);
    if (rc)
        return rc;
    const size_t N = p->N;
    for (size_t j = 0; j < nb; j++)
        for (size_t k = 0; k < N; k++) {
            const cufftDoubleComplex c = p->host[j * 2 * N + k];
            /* G = -2 i chi / sin theta */
            re[j * N + (N - 1 - k)] = 2.0 * c.y / p->sin_t[k] / a;
            im[j * N + (N - 1 - k)] = -2.0 * c.x / p->sin_t[k] / a;
        }
    return MCF_OK;
}

/* ---- GFMC: the persistent kernel ----------------------------------------------------- */

struct kcu_task {
    /* the chain's device Hamiltonian */
    const int32_t *col;
    const double *hre, *him, *ons;
    long long dim;
    int width;
    /* scratch */
    double2 *v0, *v1;   /* dim x KCU_NV */
    double *part;       /* K x G x KCU_NS */
    double *mu;         /* KCU_NV x Mtot */
    double2 *dnode;     /* 2 x N: d at the nodes (order M, order 2M) */
    double2 *gnode;     /* 2 x N x KCU_NV: the Green's functions at the nodes */
    double *red;        /* G x 4 */
    double *out;        /* 4: dS, dS_M, dS_2M, status */
    const double *W;    /* N suffix-summed quadrature weights */
    const double *x;    /* N ascending nodes (rescaled) */
    const double *isin; /* N: 1 / sin theta */
    const double *g_lo, *g_hi;
    int N, M, Mtot, K, extrapolate, rank;
    double ia, b, inv_a, inv_piT;
    double c_re[2][2], c_im[2][2];
    int nent[2];
    int32_t row[2][MCF_CHANGE_MAX_ENTRIES];
    double ure[2][MCF_CHANGE_MAX_ENTRIES], uim[2][MCF_CHANGE_MAX_ENTRIES];
    int upd_first, upd_count;
    /* moments only (GFMC on the contour, finished on the host): block 0 also writes the
     * KCU_NV x Mtot moments here, and the kernel ends after them */
    double *mu_out;
    int moments_only;
    /* GFMC on the contour, finished on the device (kcu_gfmc_contour): the ellipse e^gam,
     * cN half-contour intervals, the strip tau, T and mu, the enclosed poles; out = dS, err,
     * aux, status */
    int contour, cN, np;
    double gam, tau, cT, cmu;
    double pole_re[KPM_CONTOUR_PLAN_POLES], pole_im[KPM_CONTOUR_PLAN_POLES];
};

/* status codes in out[3] */
#define KCU_ST_OK 0
#define KCU_ST_MOMENT 1 /* |mu_n| > mu_0 */
#define KCU_ST_PHASE 2  /* the phase did not come back to 0 above the spectrum */
#define KCU_ST_CDET 3   /* contour: det(1 - G Delta) vanishes at node out[1] */
#define KCU_ST_CPHASE 4 /* contour: the nodes do not follow the phase (out[1] largest step,
                           out[2] end phase) */
#define KCU_ST_CPOLE 5  /* contour: det(1 - G Delta) vanishes at pole out[1] */

/* %globaltimer (ns) at the phase boundaries of the first chain's first block in the last
 * launch: start, recursion done, Green's functions done, end (for the benchmark) */
__device__ unsigned long long kcu_phase_ns[4];

__device__ __forceinline__ unsigned long long kcu_timer_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ void kcu_group_sync(int G)
{
    if (G > 1)
        cg::this_cluster().sync();
    else
        __syncthreads();
}

__device__ __forceinline__ double kcu_warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Launch parameters of the GFMC kernel shared by all tasks. */
struct kcu_gfmc_launch {
    int G;            /* blocks per chain (cluster size) */
    int h_smem;       /* 1: each block keeps its rows of H in shared memory */
    long long h_rows; /* rows of the shared-memory copy (>= the rows of any block) */
    int mu_smem;      /* 1: moments and kernel coefficients staged in shared memory */
    int v_smem;       /* 1: the two vector blocks live in shared memory too, each block
                         its own rows after its rows of H; gathers from the other blocks
                         of the cluster through distributed shared memory */
    long long v_rows; /* rows of the vector blocks in shared memory */
    long long v_off;  /* their byte offset in the dynamic shared memory (after H) */
    int fft;          /* 1: the Green's functions by FFT in shared memory (2N a power of 2) */
    long long fft_off;/* its byte offset (after the moments), twiddles then buffers */
};

extern __shared__ double kcu_dyn_smem[];

/* The block's share of the GFMC transforms in shared memory (radix 2, decimation in time):
 * the twiddles e^{-2 pi i k / Lf}, k < Lf / 2, and, on `mine` bit-reversed inputs of length
 * Lf at buf, the butterflies (ending with the block synchronized). */
__device__ void kcu_fft_twiddles(double2 *tw, int Lf)
{
    for (int k = threadIdx.x; k < Lf / 2; k += blockDim.x) {
        double sn, cs;
        sincospi(-2.0 * (double)k / (double)Lf, &sn, &cs);
        tw[k] = make_double2(cs, sn);
    }
}

__device__ void kcu_fft_butterflies(double2 *buf, const double2 *tw, int Lf, int mine)
{
    for (int len = 2; len <= Lf; len <<= 1) {
        const int half = len >> 1, stride = Lf / len;
        for (int q = threadIdx.x; q < mine * (Lf / 2); q += blockDim.x) {
            const int b = q / (Lf / 2), r = q % (Lf / 2);
            const int grp = r / half, k = r % half;
            double2 *p = buf + b * Lf + grp * len + k;
            const double2 w = tw[k * stride], u = p[0], v = p[half];
            const double2 wv = make_double2(w.x * v.x - w.y * v.y, w.x * v.y + w.y * v.x);
            p[0] = make_double2(u.x + wv.x, u.y + wv.y);
            p[half] = make_double2(u.x - wv.x, u.y - wv.y);
        }
        __syncthreads();
    }
}

/* ---- GFMC on the contour, finished on the device ------------------------------------- */

__device__ __forceinline__ double2 kcc_mul(double2 a, double2 b)
{
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__device__ __forceinline__ double2 kcc_sub(double2 a, double2 b)
{
    return make_double2(a.x - b.x, a.y - b.y);
}

__device__ __forceinline__ double2 kcc_scale(double2 a, double s)
{
    return make_double2(a.x * s, a.y * s);
}

__device__ __forceinline__ double2 kcc_div(double2 a, double2 b)
{
    const double d = b.x * b.x + b.y * b.y;
    return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}

__device__ __forceinline__ double2 kcc_exp(double2 y)
{
    double sn, cs;
    sincos(y.y, &sn, &cs);
    const double e = exp(y.x);
    return make_double2(e * cs, e * sn);
}

/* 1 / (1 + e^y) without overflow (kc_fermi of kpm_contour.c) */
__device__ double2 kcc_fermi(double2 y)
{
    if (y.x > 0.0) {
        const double2 e = kcc_exp(make_double2(-y.x, -y.y));
        return kcc_div(e, make_double2(1.0 + e.x, e.y));
    }
    const double2 e = kcc_exp(y);
    return kcc_div(make_double2(1.0, 0.0), make_double2(1.0 + e.x, e.y));
}

/* The change's matrix A = 1 - s C W at one point from the Green's functions G4 of the
 * KCU_NV combinations (W = [[G0, (P - iQ)/2], [(P + iQ)/2, G1]], P = G2 - G0 - G1,
 * Q = G3 - G0 - G1; rank 1: W = G0): d = det A and ||adj(A) C||_F^2 into *adj2. */
__device__ double2 kcc_det(const kcu_task *T, const double2 *G4, double s, double *adj2)
{
    double2 C[2][2];
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++)
            C[p][q] = make_double2(T->c_re[p][q], T->c_im[p][q]);
    if (T->rank == 1) {
        const double2 d = kcc_sub(make_double2(1.0, 0.0), kcc_scale(kcc_mul(C[0][0], G4[0]), s));
        *adj2 = C[0][0].x * C[0][0].x + C[0][0].y * C[0][0].y;
        return d;
    }
    const double2 P = kcc_sub(kcc_sub(G4[2], G4[0]), G4[1]);
    const double2 Q = kcc_sub(kcc_sub(G4[3], G4[0]), G4[1]);
    double2 W[2][2];
    W[0][0] = G4[0];
    W[1][1] = G4[1];
    W[0][1] = make_double2(0.5 * (P.x + Q.y), 0.5 * (P.y - Q.x)); /* (P - iQ)/2 */
    W[1][0] = make_double2(0.5 * (P.x - Q.y), 0.5 * (P.y + Q.x)); /* (P + iQ)/2 */
    double2 A[2][2];
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++) {
            const double2 v = kcc_scale(
                make_double2(kcc_mul(C[p][0], W[0][q]).x + kcc_mul(C[p][1], W[1][q]).x,
                             kcc_mul(C[p][0], W[0][q]).y + kcc_mul(C[p][1], W[1][q]).y),
                s);
            A[p][q] = make_double2((p == q ? 1.0 : 0.0) - v.x, -v.y);
        }
    const double2 d = kcc_sub(kcc_mul(A[0][0], A[1][1]), kcc_mul(A[0][1], A[1][0]));
    /* adj(A) = [[A11, -A01], [-A10, A00]] */
    double2 adjC[4];
    adjC[0] = kcc_sub(kcc_mul(A[1][1], C[0][0]), kcc_mul(A[0][1], C[1][0]));
    adjC[1] = kcc_sub(kcc_mul(A[1][1], C[0][1]), kcc_mul(A[0][1], C[1][1]));
    adjC[2] = kcc_sub(kcc_mul(A[0][0], C[1][0]), kcc_mul(A[1][0], C[0][0]));
    adjC[3] = kcc_sub(kcc_mul(A[0][0], C[1][1]), kcc_mul(A[1][0], C[0][1]));
    double ss = 0.0;
    for (int k = 0; k < 4; k++)
        ss += adjC[k].x * adjC[k].x + adjC[k].y * adjC[k].y;
    *adj2 = ss;
    return d;
}

/* The contour after the moments (kpm_contour.c's kc_finish for rank <= 2, kc_prepare's
 * nodes per task): every block its share of the N + 1 nodes, then block 0 the phase, the
 * sums and the poles.  mu: the KCU_NV x M moments (this block's copy or the global one). */
__device__ void kcu_contour_finish(const kcu_task *T, const double *mu, int g, int G,
                                   bool timer, const kcu_gfmc_launch &L)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int M = T->M, N = T->cN, Nn = N + 1, K = T->rank == 1 ? 1 : KCU_NV;
    const double a = 1.0 / T->inv_a, b = T->b, gam = T->gam;
    const double eg = exp(-gam), ch = cosh(gam), sh = sinh(gam);
    const int npb = (Nn + G - 1) / G;
    const int i0 = g * npb < Nn ? g * npb : Nn, i1 = i0 + npb < Nn ? i0 + npb : Nn;
    double2 *W = T->gnode; /* node j: the KCU_NV Green's functions, then d, (log|d|, ...), g */

    /* Green's functions W_c(z_j) = -2i chi_j / (a sin(theta_j - i gamma)), chi_j = sum_m
     * c_m e^{-i m theta_j}, c_0 = mu_0 / 2, c_m = mu_m e^{-m gamma}: by FFT of length 2N in
     * shared memory when the launch made room for it (the cluster's blocks share the K
     * transforms, as the real-axis path does), else by Horner's rule at e^{-gamma - i
     * theta_j} */
    const int Lf = 2 * N;
    if (L.fft && (Lf & (Lf - 1)) == 0 && N <= T->N) {
        const int logL = 31 - __clz(Lf);
        double2 *tw = (double2 *)(kcu_dyn_smem + L.fft_off / 8);
        double2 *buf = tw + Lf / 2;
        int mine = 0; /* transforms of this block: c = g, g + G, ... < K */
        for (int c = g; c < K; c += G)
            mine++;
        kcu_fft_twiddles(tw, Lf);
        for (int q = tid; q < mine * Lf; q += blockDim.x) {
            const int b = q / Lf, n = q % Lf, c = g + b * G;
            const double v =
                n < M ? mu[(size_t)c * M + n] * exp(-(double)n * gam) * (n == 0 ? 0.5 : 1.0)
                      : 0.0;
            buf[b * Lf + (int)(__brev((unsigned)n) >> (32 - logL))] = make_double2(v, 0.0);
        }
        __syncthreads();
        kcu_fft_butterflies(buf, tw, Lf, mine);
        for (int q = tid; q < mine * Nn; q += blockDim.x) {
            const int b = q / Nn, j = q % Nn, c = g + b * G;
            double st, ct;
            sincospi((double)j / (double)N, &st, &ct);
            const double2 sphi = make_double2(st * ch, -ct * sh);
            const double2 wf = kcc_div(make_double2(0.0, -2.0), kcc_scale(sphi, a));
            W[(size_t)j * KCU_NV + c] = kcc_mul(wf, buf[b * Lf + j]);
        }
        kcu_group_sync(G);
    } else {
    for (int q = tid; q < (i1 - i0) * KCU_NV; q += blockDim.x) {
        const int j = i0 + q / KCU_NV, c = q % KCU_NV;
        if (c >= K)
            continue;
        double st, ct;
        sincospi((double)j / (double)N, &st, &ct);
        const double2 s = make_double2(eg * ct, -eg * st);
        const double *mc = mu + (size_t)c * M;
        double2 acc = make_double2(0.0, 0.0);
        for (int m = M - 1; m >= 1; m--)
            acc = kcc_mul(make_double2(acc.x + mc[m], acc.y), s);
        acc.x += 0.5 * mc[0];
        const double2 sphi = make_double2(st * ch, -ct * sh); /* sin(theta - i gamma) */
        /* -2i / (a sphi) */
        const double2 wf = kcc_div(make_double2(0.0, -2.0), kcc_scale(sphi, a));
        W[(size_t)j * KCU_NV + c] = kcc_mul(wf, acc);
    }
    __syncthreads();
    }
    /* per node: d, log|d|, |f(z_j)| ||A^-1 C||_F, and g_j = f(z_j) (-a sin(theta_j - i gamma)) */
    for (int j = i0 + tid; j < i1; j += blockDim.x) {
        double2 G4[KCU_NV];
        for (int c = 0; c < KCU_NV; c++)
            G4[c] = c < K ? W[(size_t)j * KCU_NV + c] : make_double2(0.0, 0.0);
        double adj2;
        const double2 d = kcc_det(T, G4, 1.0, &adj2);
        const double d2 = d.x * d.x + d.y * d.y;
        double st, ct;
        sincospi((double)j / (double)N, &st, &ct);
        const double2 sphi = make_double2(st * ch, -ct * sh);
        const double2 z = make_double2(a * ct * ch + b, a * st * sh);
        const double2 fz = kcc_fermi(make_double2((z.x - T->cmu) / T->cT, z.y / T->cT));
        const double2 gj = kcc_mul(fz, kcc_scale(sphi, -a));
        if (!(d2 > 0.0)) {
            T->out[3] = KCU_ST_CDET;
            T->out[1] = j;
        }
        W[(size_t)j * KCU_NV + 0] = d;
        W[(size_t)j * KCU_NV + 1] =
            make_double2(0.5 * log(d2), sqrt(fz.x * fz.x + fz.y * fz.y) * sqrt(adj2 / d2));
        W[(size_t)j * KCU_NV + 2] = gj;
    }
    kcu_group_sync(G);
    if (g != 0)
        return;

    /* block 0: warp 0 follows the phase over the nodes (a scan of the steps), the sums and
     * bounds; warps 1.. the Green's functions at the poles (Horner, undamped) */
    __shared__ double2 pchi[KPM_CONTOUR_PLAN_POLES][KCU_NV];
    __shared__ double sums[6];
    if (warp == 0) {
        double carry = 0.0, qf = 0.0, qc = 0.0, et = 0.0, fm = 0.0, smax = 0.0;
        for (int base = 0; base < Nn; base += 32) {
            const int j = base + lane;
            const bool ok = j < Nn;
            double step = 0.0;
            double2 la = make_double2(0.0, 0.0), gj = make_double2(0.0, 0.0);
            if (ok) {
                const double2 d = W[(size_t)j * KCU_NV];
                la = W[(size_t)j * KCU_NV + 1];
                gj = W[(size_t)j * KCU_NV + 2];
                if (j == 0) {
                    step = atan2(d.y, d.x);
                } else {
                    const double2 p = W[(size_t)(j - 1) * KCU_NV]; /* d conj(p) */
                    step = atan2(d.y * p.x - d.x * p.y, d.x * p.x + d.y * p.y);
                    smax = fmax(smax, fabs(step));
                }
            }
            double x = step;
            for (int o = 1; o < 32; o <<= 1) {
                const double y = __shfl_up_sync(0xffffffffu, x, o);
                if (lane >= o)
                    x += y;
            }
            const double phase = carry + x;
            carry += __shfl_sync(0xffffffffu, x, 31);
            if (ok) {
                const double w = j == 0 || j == N ? 0.5 : 1.0;
                const double imF = gj.y * la.x + gj.x * phase;
                const double reF = gj.x * la.x - gj.y * phase;
                fm = fmax(fm, reF * reF + imF * imF);
                qf += w * imF;
                if (j % 2 == 0)
                    qc += w * imF;
                et += w * la.y;
            }
        }
        qf = kcu_warp_sum(qf);
        qc = kcu_warp_sum(qc);
        et = kcu_warp_sum(et);
        for (int o = 16; o > 0; o >>= 1) {
            fm = fmax(fm, __shfl_down_sync(0xffffffffu, fm, o));
            smax = fmax(smax, __shfl_down_sync(0xffffffffu, smax, o));
        }
        if (lane == 0) {
            sums[0] = qf;
            sums[1] = qc;
            sums[2] = et;
            sums[3] = fm;
            sums[4] = smax;
            sums[5] = carry;
        }
    } else if (tid - 32 < T->np * KCU_NV) {
        const int k = (tid - 32) / KCU_NV, c = (tid - 32) % KCU_NV;
        double2 acc = make_double2(0.0, 0.0);
        if (c < K) {
            const double2 tp = make_double2(T->pole_re[k], T->pole_im[k]);
            const double *mc = mu + (size_t)c * M;
            for (int m = M - 1; m >= 1; m--)
                acc = kcc_mul(make_double2(acc.x + mc[m], acc.y), tp);
            acc.x += 0.5 * mc[0];
        }
        pchi[k][c] = acc;
    }
    __syncthreads();
    if (tid != 0)
        return;
    const double Tk = T->cT, pi = KCU_PI;
    double st = T->out[3];
    if (st == KCU_ST_OK && (sums[4] > 2.0 || fabs(sums[5]) > 1.0)) {
        st = KCU_ST_CPHASE;
        T->out[1] = sums[4];
        T->out[2] = sums[5];
    }
    const double su = mu[0] + (K > 1 ? mu[M] : 0.0); /* sum_a |u_a|^2 */
    const double pref = 1.0 / (pi * Tk), h_th = pi / (double)N;
    const double tail = 2.0 * su * exp(-(double)M * gam) / -expm1(-gam);
    const double dq = pref * fabs(h_th * sums[0] - 2.0 * h_th * sums[1]);
    const double Nt = (double)N * T->tau;
    const double e_half = Nt >= 8.0 ? dq * exp(-Nt) : dq;
    const double r2 = exp(-2.0 * Nt);
    const double e_strip = pref * 2.0 * pi * sqrt(sums[3]) * r2 / (1.0 - r2);
    double ds = -pref * h_th * sums[0];
    double e = pref * h_th * sums[2] * tail + (e_half > e_strip ? e_half : e_strip);
    for (int k = 0; k < T->np && st == KCU_ST_OK; k++) {
        const double2 tp = make_double2(T->pole_re[k], T->pole_im[k]);
        /* W~ = 4 t chi / (1 - t^2) */
        const double2 f = kcc_div(kcc_scale(tp, 4.0),
                                  kcc_sub(make_double2(1.0, 0.0), kcc_mul(tp, tp)));
        double2 G4[KCU_NV];
        for (int c = 0; c < KCU_NV; c++)
            G4[c] = kcc_mul(f, pchi[k][c]);
        double adj2;
        const double2 d = kcc_det(T, G4, T->inv_a, &adj2);
        const double d2 = d.x * d.x + d.y * d.y;
        if (!(d2 > 0.0)) {
            st = KCU_ST_CPOLE;
            T->out[1] = k;
            break;
        }
        ds -= log(d2); /* 2 log|d| */
        const double at = sqrt(tp.x * tp.x + tp.y * tp.y);
        const double2 it = kcc_div(make_double2(1.0, 0.0), tp);
        const double sphi = 0.5 * sqrt((it.x - tp.x) * (it.x - tp.x) + (it.y - tp.y) * (it.y - tp.y));
        const double dW = 2.0 * su * pow(at, (double)M) / ((1.0 - at) * sphi);
        e += 2.0 * sqrt(adj2 / d2) * T->inv_a * dW;
    }
    if (st == KCU_ST_OK) {
        T->out[0] = ds;
        T->out[1] = e;
    }
    T->out[3] = st;
    if (timer)
        kcu_phase_ns[2] = kcu_phase_ns[3] = kcu_timer_ns();
}


/* One Chebyshev step of a block's rows [r0, r1) for the KCU_NV GFMC vectors: y = 2 H~ x -
 * y (first step: y = H~ x), and the block's dot products into s0, s1, s2.  MODE 0: H and
 * the vectors in global memory; 1: the block's rows of H in shared memory; 2: the vectors
 * too, each block holding its own rows (local index r - r0), gathers through the cluster's
 * distributed shared memory; 3: one block per chain, H and the vectors in its shared
 * memory. */
template <int WT, int MODE>
__device__ __forceinline__ void kcu_gfmc_step(const kcu_task *T, const int32_t *col,
                                              const double *hre, const double *him,
                                              const double *ons, long long hs, long long r0,
                                              long long r1, const double2 *__restrict__ x,
                                              double2 *__restrict__ y, bool first, int G,
                                              double *s0, double *s1, double *s2)
{
    const double ia = T->ia, ia2 = 2.0 * T->ia, shift = T->b;
    const int W = T->width;
    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) {
        const long long hr = MODE >= 1 ? r - r0 : r;
        const long long vr = MODE == 2 ? r - r0 : r;  /* MODE 3: r0 = 0 */
        double2 xr[KCU_NV], acc[KCU_NV], yo[KCU_NV];
#pragma unroll
        for (int j = 0; j < KCU_NV; j++) {
            xr[j] = x[kcu_vidx(vr, j)];
            yo[j] = first ? make_double2(0.0, 0.0) : y[kcu_vidx(vr, j)];
        }
        kcu_row_product<WT, KCU_NV, MODE == 2 ? 2 : 1>(col, hre, him, hs, hr, W, ons[hr] - shift,
                                                       x, G, xr, acc);
#pragma unroll
        for (int j = 0; j < KCU_NV; j++) {
            double2 yr;
            if (first) {
                yr.x = ia * acc[j].x;
                yr.y = ia * acc[j].y;
                s0[j] += xr[j].x * xr[j].x + xr[j].y * xr[j].y;
            } else {
                yr.x = ia2 * acc[j].x - yo[j].x;
                yr.y = ia2 * acc[j].y - yo[j].y;
            }
            y[kcu_vidx(vr, j)] = yr;
            s1[j] += yr.x * xr[j].x + yr.y * xr[j].y;
            s2[j] += yr.x * yr.x + yr.y * yr.y;
        }
    }
}

template <int WT, int MODE>
__global__ void __launch_bounds__(KCU_GFMC_THREADS)
    kcu_gfmc_kernel(const kcu_task *tasks, const kcu_row_update *upd, kcu_gfmc_launch L)
{
    __shared__ double wred[2][KCU_GFMC_THREADS / 32][KCU_NS];
    __shared__ double bred[KCU_GFMC_THREADS / 32][4];
    const int G = L.G;
    const int t = blockIdx.x / G, g = blockIdx.x % G;
    const kcu_task *T = tasks + t;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int nwarps = KCU_GFMC_THREADS / 32;
    const long long dim = T->dim;
    const long long rpb = (dim + G - 1) / G;
    const long long r0 = (long long)g * rpb < dim ? (long long)g * rpb : dim;
    const long long r1 = r0 + rpb < dim ? r0 + rpb : dim;
    const bool timer = blockIdx.x == 0 && tid == 0;
    if (timer)
        kcu_phase_ns[0] = kcu_timer_ns();

    /* the two vector blocks: the chain's scratch in global memory (row r at r), or (MODE 2)
     * each block's own rows in its shared memory (row r at r - r0) */
    double2 *v0 = T->v0, *v1 = T->v1;
    const long long voff = MODE == 2 ? r0 : 0;
    if (MODE >= 2) {
        v0 = (double2 *)((char *)kcu_dyn_smem + L.v_off);
        v1 = v0 + L.v_rows * KCU_NV;
    }

    /* 1. the pending row updates (the cluster's blocks share them) and the start vectors:
     *    every block zeroes its rows, then puts in the entries that fall in them */
    for (int q = g; q < T->upd_count; q += G) {
        const kcu_row_update *p = upd + T->upd_first + q;
        for (int k = tid; k < p->width; k += blockDim.x) {
            const long long sl = (long long)k * p->dim + p->row;
            p->dcol[sl] = p->col[k];
            p->dre[sl] = p->re[k];
            p->dim_[sl] = p->im[k];
        }
        if (tid == 0)
            p->dons[p->row] = p->onsite;
    }
    for (long long r = r0 + tid; r < r1; r += blockDim.x)
        for (int j = 0; j < KCU_NV; j++)
            v0[kcu_vidx(r - voff, j)] = make_double2(0.0, 0.0);
    __syncthreads();
    if (tid == 0) {
        for (int a = 0; a < T->rank; a++)
            for (int e = 0; e < T->nent[a]; e++) {
                const long long r = T->row[a][e];
                if (r < r0 || r >= r1)
                    continue;
                double2 *v = v0 + kcu_vidx(r - voff, 0); /* vector j at v[32 j] */
                const double re = T->ure[a][e], im = T->uim[a][e];
                if (a == 0) {
                    v[0].x += re; v[0].y += im;
                    if (T->rank > 1) {
                        v[64].x += re; v[64].y += im;
                        v[96].x += re; v[96].y += im;
                    }
                } else {
                    v[32].x += re; v[32].y += im;
                    v[64].x += re; v[64].y += im;
                    v[96].x -= im; v[96].y += re; /* i (re + i im) */
                }
            }
    }
    kcu_group_sync(G);

    /* the block's rows of H: a copy in shared memory (the recursion reads them M/2 times),
     * or the device table itself */
    const int W = T->width;
    const int32_t *col = T->col;
    const double *hre = T->hre, *him = T->him, *ons = T->ons;
    long long hs = dim;
    if (MODE >= 1) {
        const long long nr = L.h_rows;
        double *s_re = kcu_dyn_smem, *s_im = s_re + (long long)W * nr, *s_on = s_im + (long long)W * nr;
        int32_t *s_col = (int32_t *)(s_on + nr);
        for (long long q = tid; q < (long long)W * (r1 - r0); q += blockDim.x) {
            const long long k = q / (r1 - r0), rr = q % (r1 - r0);
            const int32_t c = T->col[k * dim + r0 + rr];
            /* MODE 2: the column as (owner block << 24 | row within it) for the gather */
            s_col[k * nr + rr] = MODE == 2 && c >= 0 ? (int32_t)(((c / rpb) << 24) | (c % rpb)) : c;
            s_re[k * nr + rr] = T->hre[k * dim + r0 + rr];
            s_im[k * nr + rr] = T->him[k * dim + r0 + rr];
        }
        for (long long rr = tid; rr < r1 - r0; rr += blockDim.x)
            s_on[rr] = T->ons[r0 + rr];
        __syncthreads();
        col = s_col;
        hre = s_re;
        him = s_im;
        ons = s_on;
        hs = nr;
    }

    /* 2. the recursion: K steps, two moments each; the block's sums of step n go through
     *    wred[n & 1] and are written out by warp 0 at the next step */
    double2 *cur = v0, *old = v1;
    for (int n = 1; n <= T->K; n++) {
        if (n > 1 && warp == 0 && lane < KCU_NS) {
            double s = 0.0;
            for (int w = 0; w < nwarps; w++)
                s += wred[(n - 1) & 1][w][lane];
            T->part[((size_t)(n - 2) * G + g) * KCU_NS + lane] = s;
        }
        double s0[KCU_NV], s1[KCU_NV], s2[KCU_NV];
#pragma unroll
        for (int j = 0; j < KCU_NV; j++)
            s0[j] = s1[j] = s2[j] = 0.0;
        kcu_gfmc_step<WT, MODE>(T, col, hre, him, ons, hs, r0, r1, cur, old, n == 1, G, s0, s1,
                                s2);
        /* <x|x> only at the first step (the others would add zeros); a warp without rows
         * (small blocks) skips the shuffles, which share the shared-memory pipe */
        const bool busy = r0 + warp * 32 < r1;
#pragma unroll
        for (int j = 0; j < KCU_NV; j++) {
            const double a0 = busy && n == 1 ? kcu_warp_sum(s0[j]) : 0.0;
            const double a1 = busy ? kcu_warp_sum(s1[j]) : 0.0;
            const double a2 = busy ? kcu_warp_sum(s2[j]) : 0.0;
            if (lane == 0) {
                wred[n & 1][warp][j] = a0;
                wred[n & 1][warp][KCU_NV + j] = a1;
                wred[n & 1][warp][2 * KCU_NV + j] = a2;
            }
        }
        if (n == 1) {
            cur = v1;
            old = v0;
        } else {
            double2 *tmp = cur;
            cur = old;
            old = tmp;
        }
        kcu_group_sync(G);
    }
    if (warp == 0 && lane < KCU_NS) {
        double s = 0.0;
        for (int w = 0; w < nwarps; w++)
            s += wred[T->K & 1][w][lane];
        T->part[((size_t)(T->K - 1) * G + g) * KCU_NS + lane] = s;
    }
    kcu_group_sync(G);
    if (timer)
        kcu_phase_ns[1] = kcu_timer_ns();

    /* 3. the moments, summing the blocks in order: every block for itself (into shared
     *    memory when they fit), block 0 also into T->mu */
    const int Mtot = T->Mtot, M = T->M, N = T->N;
    double *mu = L.mu_smem ? kcu_dyn_smem : T->mu;
    double *glo = L.mu_smem ? mu + KCU_NV * Mtot : (double *)T->g_lo;
    double *ghi = L.mu_smem ? glo + M : (double *)T->g_hi;
    if (L.mu_smem || g == 0) {
        for (int q = tid; q < KCU_NV * Mtot; q += blockDim.x) {
            const int j = q / Mtot, m = q % Mtot;
            double mu0 = 0.0, mu1 = 0.0;
            for (int b = 0; b < G; b++) {
                mu0 += T->part[(size_t)b * KCU_NS + j];
                mu1 += T->part[(size_t)b * KCU_NS + KCU_NV + j];
            }
            double v;
            if (m == 0) {
                v = mu0;
            } else if (m == 1) {
                v = mu1;
            } else {
                const int step = (m + 1) / 2; /* mu_{2n-1}: step n (s1); mu_{2n}: step n (s2) */
                const int which = (m & 1) ? KCU_NV : 2 * KCU_NV;
                double s = 0.0;
                for (int b = 0; b < G; b++)
                    s += T->part[((size_t)(step - 1) * G + b) * KCU_NS + which + j];
                v = 2.0 * s - ((m & 1) ? mu1 : mu0);
            }
            if (L.mu_smem)
                mu[j * Mtot + m] = v;
            if (g == 0) {
                T->mu[j * Mtot + m] = v;
                if (T->mu_out)
                    T->mu_out[j * Mtot + m] = v;
                if (!(fabs(v) <= mu0 * (1.0 + 1e-8) + DBL_MIN))
                    T->out[3] = KCU_ST_MOMENT;
            }
        }
        if (L.mu_smem) {
            for (int q = tid; q < M; q += blockDim.x)
                glo[q] = T->g_lo[q];
            for (int q = tid; q < Mtot; q += blockDim.x)
                ghi[q] = T->g_hi[q];
        }
    }
    if (L.mu_smem)
        __syncthreads();
    else
        kcu_group_sync(G);
    if (T->moments_only) {
        /* every block of the cluster returns here together (none reads another's shared
         * memory after the recursion's last barrier) */
        if (timer)
            kcu_phase_ns[2] = kcu_phase_ns[3] = kcu_timer_ns();
        return;
    }
    if (T->contour) {
        kcu_contour_finish(T, mu, g, G, timer, L);
        return;
    }

    /* 4. the Green's functions of the 4 vectors at the nodes, into T->gnode; then d(E) at
     *    the block's nodes [i0, i1) */
    const int npb = (N + G - 1) / G;
    const int i0 = g * npb < N ? g * npb : N, i1 = i0 + npb < N ? i0 + npb : N;
    const double inv_a = T->inv_a;
    const bool extra = T->extrapolate;
    if (L.fft) {
        /* by FFT (2N a power of 2): chi_k = sum_n c_n e^{-i pi n / (2N)} e^{-2 pi i n k / (2N)}
         * (as kpm_dct), G(x_k) = -2 i chi_k / sin theta_k / a; the cluster's blocks share
         * the 4 (8 with extrapolation) transforms, each block doing its share at once:
         * radix 2, decimation in time, in shared memory after the moments */
        const int Lf = 2 * N, logL = 31 - __clz(Lf);
        const int nT = KCU_NV * (1 + extra);
        double2 *tw = (double2 *)(kcu_dyn_smem + L.fft_off / 8);
        double2 *buf = tw + Lf / 2;
        int mine = 0; /* transforms of this block: t = g, g + G, ... */
        for (int t = g; t < nT; t += G)
            mine++;
        kcu_fft_twiddles(tw, Lf);
        for (int q = tid; q < mine * Lf; q += blockDim.x) {
            const int b = q / Lf, n = q % Lf, t = g + b * G;
            const int j = t % KCU_NV, o = t / KCU_NV;
            const int order = o || !extra ? Mtot : M;
            const double *gk = o || !extra ? ghi : glo;
            double2 v = make_double2(0.0, 0.0);
            if (n < order) {
                const double c = gk[n] * mu[j * Mtot + n] * (n == 0 ? 0.5 : 1.0);
                double sn, cs;
                sincospi(-(double)n / (double)Lf, &sn, &cs);
                v = make_double2(c * cs, c * sn);
            }
            buf[b * Lf + (int)(__brev((unsigned)n) >> (32 - logL))] = v;
        }
        __syncthreads();
        kcu_fft_butterflies(buf, tw, Lf, mine);
        for (int q = tid; q < mine * N; q += blockDim.x) {
            const int b = q / N, k = q % N, t = g + b * G;
            const int j = t % KCU_NV, o = t / KCU_NV, i = N - 1 - k;
            const double2 c = buf[b * Lf + k];
            const double is = T->isin[i];
            T->gnode[((size_t)o * N + i) * KCU_NV + j] =
                make_double2(2.0 * c.y * is * inv_a, -2.0 * c.x * is * inv_a);
        }
        kcu_group_sync(G);
    } else {
        /* directly, one thread per (node, vector), by the Chebyshev recurrences T_m(x),
         * U_{m-1}(x): G = (-2 sum c_m U_{m-1} - 2 i sum c_m T_m / sin theta) / a */
        for (int q = tid; q < (i1 - i0) * KCU_NV; q += blockDim.x) {
            const int i = i0 + q / KCU_NV, j = q % KCU_NV;
            const double xi = T->x[i], is = T->isin[i];
            const double *mj = mu + j * Mtot;
            const double c0 = 0.5 * mj[0];
            double lo_t = glo[0] * c0, hi_t = ghi[0] * c0, lo_u = 0.0, hi_u = 0.0;
            double tm1 = 1.0, tn = xi;   /* T_{m-1}, T_m */
            double um2 = 0.0, um1 = 1.0; /* U_{m-2}, U_{m-1} */
            for (int m = 1; m < Mtot; m++) {
                const double ch = ghi[m] * mj[m];
                hi_t += ch * tn;
                hi_u += ch * um1;
                if (extra && m < M) {
                    const double cl = glo[m] * mj[m];
                    lo_t += cl * tn;
                    lo_u += cl * um1;
                }
                const double tnext = 2.0 * xi * tn - tm1;
                tm1 = tn;
                tn = tnext;
                const double unext = 2.0 * xi * um1 - um2;
                um2 = um1;
                um1 = unext;
            }
            /* without extrapolation the order-M sums are the hi ones (Mtot = M) */
            if (!extra) {
                lo_t = hi_t;
                lo_u = hi_u;
            }
            T->gnode[(size_t)i * KCU_NV + j] =
                make_double2(-2.0 * lo_u * inv_a, -2.0 * lo_t * is * inv_a);
            T->gnode[((size_t)N + i) * KCU_NV + j] =
                make_double2(-2.0 * hi_u * inv_a, -2.0 * hi_t * is * inv_a);
        }
        __syncthreads();
    }
    for (int q = tid; q < (i1 - i0) * (1 + T->extrapolate); q += blockDim.x) {
        const int o = q / (i1 - i0), i = i0 + q % (i1 - i0);
        const double2 *G4 = T->gnode + ((size_t)o * N + i) * KCU_NV;
        double dre, dim_;
        if (T->rank == 1) {
            /* d = 1 - C00 G0 */
            dre = 1.0 - (T->c_re[0][0] * G4[0].x - T->c_im[0][0] * G4[0].y);
            dim_ = -(T->c_re[0][0] * G4[0].y + T->c_im[0][0] * G4[0].x);
        } else {
            /* W = [[G0, (P - iQ)/2], [(P + iQ)/2, G1]], P = G2 - G0 - G1, Q = G3 - G0 - G1 */
            const double Pr = G4[2].x - G4[0].x - G4[1].x, Pi = G4[2].y - G4[0].y - G4[1].y;
            const double Qr = G4[3].x - G4[0].x - G4[1].x, Qi = G4[3].y - G4[0].y - G4[1].y;
            double Wr[2][2], Wi[2][2];
            Wr[0][0] = G4[0].x; Wi[0][0] = G4[0].y;
            Wr[1][1] = G4[1].x; Wi[1][1] = G4[1].y;
            Wr[0][1] = 0.5 * (Pr + Qi); Wi[0][1] = 0.5 * (Pi - Qr); /* (P - iQ)/2 */
            Wr[1][0] = 0.5 * (Pr - Qi); Wi[1][0] = 0.5 * (Pi + Qr); /* (P + iQ)/2 */
            double Ar[2][2], Ai[2][2];
            for (int p = 0; p < 2; p++)
                for (int r = 0; r < 2; r++) {
                    Ar[p][r] = T->c_re[p][0] * Wr[0][r] - T->c_im[p][0] * Wi[0][r] +
                               T->c_re[p][1] * Wr[1][r] - T->c_im[p][1] * Wi[1][r];
                    Ai[p][r] = T->c_re[p][0] * Wi[0][r] + T->c_im[p][0] * Wr[0][r] +
                               T->c_re[p][1] * Wi[1][r] + T->c_im[p][1] * Wr[1][r];
                }
            /* (1 - A00)(1 - A11) - A01 A10 */
            const double ar = 1.0 - Ar[0][0], ai = -Ai[0][0];
            const double br = 1.0 - Ar[1][1], bi = -Ai[1][1];
            dre = ar * br - ai * bi - (Ar[0][1] * Ar[1][0] - Ai[0][1] * Ai[1][0]);
            dim_ = ar * bi + ai * br - (Ar[0][1] * Ai[1][0] + Ai[0][1] * Ar[1][0]);
        }
        T->dnode[o * N + i] = make_double2(dre, dim_);
    }
    kcu_group_sync(G);
    if (timer)
        kcu_phase_ns[2] = kcu_timer_ns();

    /* 5. the phase increments and the weighted sum */
    double acc[4] = {0.0, 0.0, 0.0, 0.0}; /* sum W delta, sum delta; for M, then 2M */
    for (int i = i0 + tid; i < i1; i += blockDim.x) {
        for (int o = 0; o < 1 + T->extrapolate; o++) {
            const double2 d = T->dnode[o * N + i];
            double pr = d.x, pi = d.y;
            if (i > 0) {
                const double2 q = T->dnode[o * N + i - 1];
                pr = d.x * q.x + d.y * q.y; /* d conj(q) */
                pi = d.y * q.x - d.x * q.y;
            }
            const double delta = atan2(pi, pr);
            acc[2 * o] += T->W[i] * delta;
            acc[2 * o + 1] += delta;
        }
    }
    for (int q = 0; q < 4; q++) {
        const double v = kcu_warp_sum(acc[q]);
        if (lane == 0)
            bred[warp][q] = v;
    }
    __syncthreads();
    if (tid < 4) {
        double s = 0.0;
        for (int w = 0; w < nwarps; w++)
            s += bred[w][tid];
        T->red[g * 4 + tid] = s;
    }
    kcu_group_sync(G);
    if (g == 0 && tid == 0) {
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        for (int b = 0; b < G; b++)
            for (int q = 0; q < 4; q++)
                s[q] += T->red[b * 4 + q];
        const double lo = s[0] * T->inv_piT, hi = s[2] * T->inv_piT;
        double st = T->out[3];
        if (st == KCU_ST_OK && (!(fabs(s[1]) < 1.0) || (T->extrapolate && !(fabs(s[3]) < 1.0)))) {
            st = KCU_ST_PHASE;
            T->out[1] = s[1];
        }
        T->out[0] = T->extrapolate ? 2.0 * hi - lo : lo;
        if (st == KCU_ST_OK) {
            T->out[1] = lo;
            T->out[2] = T->extrapolate ? hi : NAN;
        }
        T->out[3] = st;
        if (timer)
            kcu_phase_ns[3] = kcu_timer_ns();
    }
}

struct kcu_gfmc {
    size_t dim, M, Mtot, N, K;
    int extrapolate;
    double2 *v0, *v1;
    double *part;   /* K x 16 x KCU_NS (room for the largest cluster) */
    double *mu;
    double2 *dnode, *gnode;
    double *red;
    double *W, *x, *isin, *g_lo, *g_hi; /* device */
    double *hx, *hisin, *hw, *hE;       /* host */
    int w_valid;
    double w_T, w_mu, w_a, w_b;
};

extern "C" void kcu_gfmc_destroy(kcu_gfmc *g)
{
    if (!g)
        return;
    cudaFree(g->v0);
    cudaFree(g->v1);
    cudaFree(g->part);
    cudaFree(g->mu);
    cudaFree(g->dnode);
    cudaFree(g->gnode);
    cudaFree(g->red);
    cudaFree(g->W);
    cudaFree(g->x);
    cudaFree(g->isin);
    cudaFree(g->g_lo);
    cudaFree(g->g_hi);
    free(g->hx);
    free(g->hisin);
    free(g->hw);
    free(g->hE);
    free(g);
}

extern "C" int kcu_gfmc_create(size_t dim, size_t M, size_t N, double lambda, int extrapolate,
                               kcu_gfmc **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || M < 2 || !(lambda > 0))
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC needs a Hamiltonian (dim %zu), at least 2 "
                        "moments (%zu) and lambda > 0 (%g)", dim, M, lambda);
    const size_t Mtot = extrapolate ? 2 * M : M;
    if (N == 0)
        N = 2 * Mtot;
    if (N < Mtot || N < 2)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC with %zu moments%s needs energy_points >= "
                        "%zu (or 0 for %zu), not %zu", Mtot,
                        extrapolate ? " (2 x moments: extrapolate = true)" : "", Mtot,
                        2 * Mtot, N);
    if (dim > (size_t)INT32_MAX || N > (size_t)INT32_MAX / 2)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: dimension %zu or %zu points too large", dim, N);
    kcu_gfmc *g = (kcu_gfmc *)calloc(1, sizeof *g);
    if (!g)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    g->dim = dim;
    g->M = M;
    g->Mtot = Mtot;
    g->N = N;
    g->K = Mtot / 2;
    g->extrapolate = extrapolate;
    const size_t vb = (dim + 31) / 32 * 32 * KCU_NV * sizeof(double2); /* tiles of 32 rows */
    g->hx = (double *)malloc(N * sizeof(double));
    g->hisin = (double *)malloc(N * sizeof(double));
    g->hw = (double *)malloc(N * sizeof(double));
    g->hE = (double *)malloc(N * sizeof(double));
    double *glo = (double *)malloc(M * sizeof(double)), *ghi = (double *)malloc(Mtot * sizeof(double));
    if (!g->hx || !g->hisin || !g->hw || !g->hE || !glo || !ghi) {
        free(glo);
        free(ghi);
        kcu_gfmc_destroy(g);
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for the GFMC workspace");
    }
    if ((rc = kcu_alloc((void **)&g->v0, vb, "GFMC vectors")) ||
        (rc = kcu_alloc((void **)&g->v1, vb, "GFMC vectors")) ||
        (rc = kcu_alloc((void **)&g->part, g->K * 16 * KCU_NS * sizeof(double), "GFMC sums")) ||
        (rc = kcu_alloc((void **)&g->mu, KCU_NV * Mtot * sizeof(double), "GFMC moments")) ||
        (rc = kcu_alloc((void **)&g->dnode, 2 * N * sizeof(double2), "GFMC determinants")) ||
        (rc = kcu_alloc((void **)&g->gnode, 2 * N * KCU_NV * sizeof(double2),
                        "GFMC Green's functions")) ||
        (rc = kcu_alloc((void **)&g->red, 16 * 4 * sizeof(double), "GFMC sums")) ||
        (rc = kcu_alloc((void **)&g->W, N * sizeof(double), "GFMC weights")) ||
        (rc = kcu_alloc((void **)&g->x, N * sizeof(double), "GFMC nodes")) ||
        (rc = kcu_alloc((void **)&g->isin, N * sizeof(double), "GFMC nodes")) ||
        (rc = kcu_alloc((void **)&g->g_lo, M * sizeof(double), "GFMC kernel")) ||
        (rc = kcu_alloc((void **)&g->g_hi, Mtot * sizeof(double), "GFMC kernel"))) {
        free(glo);
        free(ghi);
        kcu_gfmc_destroy(g);
        return rc;
    }
    /* ascending nodes: grid index i holds node k = N - 1 - i, theta_k = pi (k + 1/2) / N */
    for (size_t i = 0; i < N; i++) {
        const double th = KCU_PI * ((double)(N - 1 - i) + 0.5) / (double)N;
        g->hx[i] = cos(th);
        g->hisin[i] = 1.0 / sin(th);
    }
    kpm_kernel_coefficients(KPM_KERNEL_LORENTZ, lambda, M, glo);
    kpm_kernel_coefficients(KPM_KERNEL_LORENTZ, lambda, Mtot, ghi);
    cudaError_t e = cudaMemcpy(g->x, g->hx, N * sizeof(double), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->isin, g->hisin, N * sizeof(double), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->g_lo, glo, M * sizeof(double), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->g_hi, ghi, Mtot * sizeof(double), cudaMemcpyHostToDevice);
    free(glo);
    free(ghi);
    if (e != cudaSuccess) {
        kcu_gfmc_destroy(g);
        return kcu_fail(e, "uploading GFMC tables", 0);
    }
    *out = g;
    return MCF_OK;
}

/* The suffix-summed quadrature weights for T, mu, a, b on the device (cached). */
static int kcu_gfmc_weights(kcu_gfmc *g, double a, double b, double T, double mu)
{
    if (g->w_valid && g->w_T == T && g->w_mu == mu && g->w_a == a && g->w_b == b)
        return MCF_OK;
    const size_t N = g->N;
    for (size_t i = 0; i < N; i++)
        g->hE[i] = a * g->hx[i] + b;
    int rc = kpm_fermi_weights(g->hE, N, T, mu, g->hw);
    if (rc)
        return mcf_fail_prefix(rc, "kpm-cuda: GFMC");
    /* sum_i w_i phi_i with phi_i = sum_{k <= i} delta_k equals sum_k W_k delta_k, W_k the
     * sum of w_i over i >= k */
    for (size_t i = N - 1; i-- > 0;)
        g->hw[i] += g->hw[i + 1];
    KCU_TRY(cudaMemcpy(g->W, g->hw, N * sizeof(double), cudaMemcpyHostToDevice),
            "uploading GFMC weights", 0);
    g->w_valid = 1;
    g->w_T = T;
    g->w_mu = mu;
    g->w_a = a;
    g->w_b = b;
    return MCF_OK;
}

static int kcu_last_G = 0, kcu_last_hsmem = 0, kcu_last_vsmem = 0, kcu_last_fft = 0;
extern "C" int kcu_gfmc_last_cluster(void) { return kcu_last_G; }
extern "C" int kcu_gfmc_last_shared(void) { return kcu_last_hsmem + kcu_last_vsmem; }
extern "C" int kcu_gfmc_last_fft(void) { return kcu_last_fft; }

/* Blocks per chain (the cluster size G, a power of 2 up to 16; 16 is a non-portable cluster
 * size, used when the device can place such a cluster, else 8): first G with at most 512
 * rows per block (the throughput choice: few, full blocks), then doubled while the batch's
 * clusters still fill at most half of the SMs and blocks keep >= 128 rows (the latency
 * choice: a small batch spreads over idle SMs; half, because a cluster must fit in one GPC
 * and partly filled GPCs cannot take another).  Measured on an H100, M = 256, in ms per
 * batch: 8^3 one chain G = 1, 2, 4, 8: 0.48, 0.44, 0.37, 0.39; 32 chains G = 1, 2, 4: 0.48,
 * 0.45, 0.71; 16^3 one chain G = 8, 16: 0.59, 0.52, 8 chains 0.59, 1.00, 32 chains 1.71,
 * 2.47.  MCF_KPM_CUDA_CLUSTER overrides it (tests, benchmarks). */
static int kcu_cluster_for(size_t dim, size_t n)
{
    const char *env = getenv("MCF_KPM_CUDA_CLUSTER");
    if (env && *env) {
        const int G = atoi(env);
        if (G == 1 || G == 2 || G == 4 || G == 8 || G == 16)
            return G;
    }
    int G = 1;
    while (G < 16 && (size_t)G * KCU_GFMC_ROWS_PER_BLOCK < dim)
        G *= 2;
    const size_t half = (size_t)mcu_props()->multiProcessorCount / 2;
    while (G < 16 && n * (size_t)(2 * G) <= half && dim / (size_t)(2 * G) >= 128)
        G *= 2;
    return G;
}

/* Shared memory: the block's rows of H when they fit (largest width of the batch), and
 * then the moments and kernel coefficients; the instantiation by width (6: the cubic
 * lattice with infinite Hund coupling, 7: finite, 0: any) and by where H is read. */
#define KCU_SMEM_MAX (200 * 1024)

template <int WT, int MODE>
static cudaError_t kcu_gfmc_launch_as(cudaLaunchConfig_t *cfg, int G, const kcu_task *tasks_dev,
                                      const kcu_row_update *upd_dev, kcu_gfmc_launch L)
{
    cudaError_t e = cudaFuncSetAttribute(kcu_gfmc_kernel<WT, MODE>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)cfg->dynamicSmemBytes);
    if (e == cudaSuccess && G > 8)
        e = cudaFuncSetAttribute(kcu_gfmc_kernel<WT, MODE>,
                                 cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e == cudaSuccess)
        e = cudaLaunchKernelEx(cfg, kcu_gfmc_kernel<WT, MODE>, tasks_dev, upd_dev, L);
    return e;
}

static cudaError_t kcu_gfmc_launch_kernel(cudaLaunchConfig_t *cfg, const kcu_task *tasks,
                                          size_t n, int G, size_t maxdim,
                                          const kcu_task *tasks_dev,
                                          const kcu_row_update *upd_dev)
{
    int wmax = 0, wmin = 1 << 30, mu_max = 0;
    for (size_t k = 0; k < n; k++) {
        wmax = tasks[k].width > wmax ? tasks[k].width : wmax;
        wmin = tasks[k].width < wmin ? tasks[k].width : wmin;
        const int need = 5 * tasks[k].Mtot + tasks[k].M; /* 4 Mtot moments, g_lo, g_hi */
        mu_max = need > mu_max ? need : mu_max;
    }
    kcu_gfmc_launch L;
    L.G = G;
    L.h_rows = (long long)((maxdim + (size_t)G - 1) / (size_t)G);
    const size_t h_bytes = (size_t)L.h_rows * ((size_t)wmax * 20 + 8);
    const size_t mu_bytes = (size_t)mu_max * sizeof(double);
    L.h_smem = h_bytes <= KCU_SMEM_MAX;
    L.mu_smem = mu_bytes <= KCU_SMEM_MAX;
    size_t smem = L.mu_smem ? mu_bytes : 0;
    /* the FFT of the Green's functions: every task the same N (a power of 2 times 2), the
     * twiddles and this block's share of the 4 or 8 transforms after the moments */
    int Nall = tasks[0].N, ex = 0, same = 1;
    for (size_t k = 0; k < n; k++) {
        same &= tasks[k].N == Nall;
        ex |= tasks[k].extrapolate;
    }
    const size_t Lf = 2 * (size_t)Nall;
    const size_t per_block = ((size_t)KCU_NV * (1 + ex) + (size_t)G - 1) / (size_t)G;
    L.fft_off = (long long)((mu_bytes + 15) / 16 * 16);
    const size_t fft_end = (size_t)L.fft_off + (Lf / 2 + per_block * Lf) * sizeof(double2);
    L.fft = same && L.mu_smem && (Lf & (Lf - 1)) == 0 && fft_end <= KCU_SMEM_MAX &&
            !getenv("MCF_KPM_CUDA_NO_FFT");
    if (L.fft && fft_end > smem)
        smem = fft_end;
    kcu_last_fft = L.fft;
    if (L.h_smem && h_bytes > smem)
        smem = h_bytes;
    /* on small lattices each block's rows of the vectors fit beside its rows of H */
    L.v_rows = (L.h_rows + 31) / 32 * 32; /* tiles of 32 rows */
    L.v_off = (long long)((h_bytes + 15) / 16 * 16);
    const size_t v_bytes = 2 * (size_t)L.v_rows * KCU_NV * sizeof(double2);
    L.v_smem = L.h_smem && h_bytes + v_bytes <= KCU_SMEM_MAX && !getenv("MCF_KPM_CUDA_NO_DSMEM");
    if (L.v_smem && h_bytes + v_bytes > smem)
        smem = h_bytes + v_bytes;
    kcu_last_vsmem = L.v_smem;
    cfg->dynamicSmemBytes = smem;
    const int WT = wmin == wmax && (wmax == 6 || wmax == 7) ? wmax : 0;
    kcu_last_hsmem = L.h_smem;
    if (L.v_smem && G == 1)
        return WT == 6   ? kcu_gfmc_launch_as<6, 3>(cfg, G, tasks_dev, upd_dev, L)
               : WT == 7 ? kcu_gfmc_launch_as<7, 3>(cfg, G, tasks_dev, upd_dev, L)
                         : kcu_gfmc_launch_as<0, 3>(cfg, G, tasks_dev, upd_dev, L);
    if (L.v_smem)
        return WT == 6   ? kcu_gfmc_launch_as<6, 2>(cfg, G, tasks_dev, upd_dev, L)
               : WT == 7 ? kcu_gfmc_launch_as<7, 2>(cfg, G, tasks_dev, upd_dev, L)
                         : kcu_gfmc_launch_as<0, 2>(cfg, G, tasks_dev, upd_dev, L);
    if (L.h_smem)
        return WT == 6   ? kcu_gfmc_launch_as<6, 1>(cfg, G, tasks_dev, upd_dev, L)
               : WT == 7 ? kcu_gfmc_launch_as<7, 1>(cfg, G, tasks_dev, upd_dev, L)
                         : kcu_gfmc_launch_as<0, 1>(cfg, G, tasks_dev, upd_dev, L);
    return WT == 6   ? kcu_gfmc_launch_as<6, 0>(cfg, G, tasks_dev, upd_dev, L)
           : WT == 7 ? kcu_gfmc_launch_as<7, 0>(cfg, G, tasks_dev, upd_dev, L)
                     : kcu_gfmc_launch_as<0, 0>(cfg, G, tasks_dev, upd_dev, L);
}

/* the batch in one launch: dS (and its parts), or with mu_out the moments only, or with
 * contour the whole contour (dS and its bound into dS_M) */
static int kcu_gfmc_batch(const kcu_gfmc_job *jobs, size_t n, double *dS, double *dS_M,
                          double *dS_2M, double *const *mu_out, int contour)
{
    if (n == 0)
        return MCF_OK;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    size_t maxdim = 0, mom = 0; /* doubles of moments per job (mu_out) */
    for (size_t k = 0; k < n; k++) {
        const kcu_gfmc_job *j = jobs + k;
        if (!j->g || !j->d || !j->h || j->h->dim != j->g->dim || j->d->dim != j->g->dim)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC job %zu: workspace and Hamiltonian "
                            "dimensions differ", k);
        if (mu_out) {
            if (j->g->extrapolate || (k && j->g->Mtot * KCU_NV != mom))
                return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC moments: the jobs' scratches must "
                                "share the moments and not extrapolate");
            mom = KCU_NV * j->g->Mtot;
        } else {
            if (!(j->T > 0) || !isfinite(j->T) || !isfinite(j->mu))
                return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC: temperature T = %g must be finite "
                                "and > 0, and mu = %g finite", j->T, j->mu);
            if (contour) {
                const kpm_contour_plan *c = j->contour;
                if (!c || j->g->extrapolate || c->N < 2 || c->N % 2 ||
                    c->N + 1 > 2 * j->g->N || c->too_many ||
                    c->poles > KPM_CONTOUR_PLAN_POLES || !(c->gamma > 0.0))
                    return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC on the contour, job %zu: no "
                                    "contour, or one that does not fit the scratch (N = %zu, "
                                    "%zu poles; a bug, please report it)", k, c ? c->N : 0,
                                    c ? c->poles : 0);
            } else if ((rc = kcu_gfmc_weights(j->g, j->a, j->b, j->T, j->mu))) {
                return rc;
            }
        }
        if (j->g->dim > maxdim)
            maxdim = j->g->dim;
    }
    int G = kcu_cluster_for(maxdim, n);
    pthread_mutex_lock(&kcu_lock);
    /* staging: n tasks, then up to KCU_MAX_UPDATE_ROWS row updates per task */
    const size_t task_bytes = (n * sizeof(kcu_task) + 255) / 256 * 256;
    const size_t res_bytes = ((4 + mom) * n * sizeof(double) + 255) / 256 * 256;
    rc = kcu_stage_reserve(task_bytes + res_bytes +
                           n * KCU_MAX_UPDATE_ROWS * sizeof(kcu_row_update));
    if (rc) {
        pthread_mutex_unlock(&kcu_lock);
        return rc;
    }
    kcu_task *tasks = (kcu_task *)kcu_stage_host;
    double *res = (double *)(kcu_stage_host + task_bytes);
    double *res_dev = (double *)(kcu_stage_dev + task_bytes);
    memset(res, 0, res_bytes); /* status OK until the kernel says otherwise */
    kcu_row_update *upd = (kcu_row_update *)(kcu_stage_host + task_bytes + res_bytes);
    int nupd = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        const kcu_gfmc_job *j = jobs + k;
        kcu_gfmc *g = j->g;
        kcu_task *t = tasks + k;
        memset(t, 0, sizeof *t);
        long cnt = kcu_changed(j->d, j->h, upd + nupd);
        if (cnt < 0) {
            if ((rc = kcu_ham_upload_all(j->d, j->h)))
                break;
            cnt = 0;
        }
        t->upd_first = nupd;
        t->upd_count = (int)cnt;
        nupd += (int)cnt;
        j->d->rows_updated += (uint64_t)cnt;
        j->d->version = j->h->version;
        t->col = j->d->col;
        t->hre = j->d->hre;
        t->him = j->d->him;
        t->ons = j->d->ons;
        t->dim = (long long)g->dim;
        t->width = j->d->width;
        t->v0 = g->v0;
        t->v1 = g->v1;
        t->part = g->part;
        t->mu = g->mu;
        t->dnode = g->dnode;
        t->gnode = g->gnode;
        t->red = g->red;
        t->out = res_dev + 4 * k;
        t->W = g->W;
        t->x = g->x;
        t->isin = g->isin;
        t->g_lo = g->g_lo;
        t->g_hi = g->g_hi;
        t->N = (int)g->N;
        t->M = (int)g->M;
        t->Mtot = (int)g->Mtot;
        t->K = (int)g->K;
        t->extrapolate = g->extrapolate;
        t->ia = 1.0 / j->a;
        t->b = j->b;
        t->inv_a = 1.0 / j->a;
        t->inv_piT = mu_out ? 0.0 : 1.0 / (KCU_PI * j->T);
        t->moments_only = mu_out != NULL;
        t->mu_out = mu_out ? res_dev + 4 * n + mom * k : NULL;
        if (contour) {
            const kpm_contour_plan *cc = j->contour;
            t->contour = 1;
            t->cN = (int)cc->N;
            t->np = (int)cc->poles;
            t->gam = cc->gamma;
            t->tau = cc->tau;
            t->cT = j->T;
            t->cmu = j->mu;
            for (size_t q = 0; q < cc->poles; q++) {
                t->pole_re[q] = cc->pole_re[q];
                t->pole_im[q] = cc->pole_im[q];
            }
        }
        const mcf_local_change *c = j->change;
        t->rank = c->rank;
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                t->c_re[p][q] = p < c->rank && q < c->rank ? c->c_re[p][q] : 0.0;
                t->c_im[p][q] = p < c->rank && q < c->rank ? c->c_im[p][q] : 0.0;
            }
        for (int a = 0; a < c->rank; a++) {
            t->nent[a] = c->entries[a];
            for (int e = 0; e < c->entries[a]; e++) {
                t->row[a][e] = (int32_t)c->row[a][e];
                t->ure[a][e] = c->re[a][e];
                t->uim[a][e] = c->im[a][e];
            }
        }
    }
    if (!rc) {
        const size_t bytes = task_bytes + res_bytes + (size_t)nupd * sizeof(kcu_row_update);
        cudaError_t e = cudaMemcpyAsync(kcu_stage_dev, kcu_stage_host, bytes,
                                        cudaMemcpyHostToDevice, kcu_stream);
        if (e == cudaSuccess) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3((unsigned)(n * (size_t)G));
            cfg.blockDim = dim3(KCU_GFMC_THREADS);
            cfg.stream = kcu_stream;
            cudaLaunchAttribute attr[1];
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = (unsigned)G;
            attr[0].val.clusterDim.y = 1;
            attr[0].val.clusterDim.z = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
            e = kcu_gfmc_launch_kernel(&cfg, tasks, n, G, maxdim,
                                       (const kcu_task *)kcu_stage_dev,
                                       (const kcu_row_update *)(kcu_stage_dev + task_bytes +
                                                                res_bytes));
            if (e != cudaSuccess && G == 16) {
                /* a cluster of 16 is non-portable: a device that cannot place one gets 8 */
                cudaGetLastError();
                G = 8;
                cfg.gridDim = dim3((unsigned)(n * (size_t)G));
                attr[0].val.clusterDim.x = (unsigned)G;
                e = kcu_gfmc_launch_kernel(&cfg, tasks, n, G, maxdim,
                                           (const kcu_task *)kcu_stage_dev,
                                           (const kcu_row_update *)(kcu_stage_dev + task_bytes +
                                                                    res_bytes));
            }
        }
        if (e != cudaSuccess)
            rc = kcu_fail(e, "launching the GFMC kernel", 0);
        kcu_last_G = G;
    }
    /* results: 4 doubles per job (and the moments), one copy back */
    if (!rc && cudaMemcpyAsync(res, res_dev, (4 + mom) * n * sizeof(double),
                               cudaMemcpyDeviceToHost, kcu_stream) != cudaSuccess)
        rc = kcu_fail(cudaGetLastError(), "copying GFMC results", 0);
    if (!rc) {
        cudaError_t e = cudaStreamSynchronize(kcu_stream);
        if (e != cudaSuccess)
            rc = kcu_fail(e, "the GFMC kernel", 0);
    }
    for (size_t k = 0; k < n && !rc; k++) {
        const double *r = res + 4 * k;
        if (r[3] == KCU_ST_MOMENT)
            rc = mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: a Chebyshev moment exceeds "
                          "<r|r>: the spectrum of the Hamiltonian reaches outside [%g, %g], the "
                          "bounds used for rescaling (fixed bounds too narrow, or a damaged ELL "
                          "table)", k, jobs[k].b - jobs[k].a, jobs[k].b + jobs[k].a);
        else if (r[3] == KCU_ST_CDET)
            rc = mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: det(1 - G Delta) vanishes on "
                          "the contour at node %.0f: the change is not Hermitian or the "
                          "Hamiltonian is damaged", k, r[1]);
        else if (r[3] == KCU_ST_CPOLE)
            rc = mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: det(1 - G Delta) vanishes at "
                          "the Fermi pole %.0f: too few moments for T = %g; raise moments", k,
                          r[1], jobs[k].T);
        else if (r[3] == KCU_ST_CPHASE)
            rc = mcf_fail(MCF_EINVAL,
                          "kpm-cuda: GFMC of job %zu: the %zu contour nodes do not follow the "
                          "phase of det(1 - G Delta) (largest step %.2f rad, end phase %.3g "
                          "instead of 0) at T = %g, mu = %g: the change moves levels by more "
                          "than the contour's distance %.3g (rescaled) resolves; raise "
                          "energy_points (now %zu)", k, jobs[k].contour->N, r[1], r[2],
                          jobs[k].T, jobs[k].mu, jobs[k].contour->gamma, jobs[k].contour->N);
        else if (r[3] == KCU_ST_PHASE)
            rc = mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: Im log d(E) ends at %.3g "
                          "instead of 0 above the spectrum: the energy grid (%zu points) is too "
                          "coarse for the kernel's resolution; raise energy_points or lambda",
                          k, r[1], jobs[k].g->N);
        else if (!mu_out && !isfinite(r[0]))
            rc = mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: dS is not finite", k);
        if (rc)
            break;
        if (mu_out) {
            memcpy(mu_out[k], res + 4 * n + mom * k, mom * sizeof(double));
            continue;
        }
        dS[k] = r[0];
        if (dS_M)
            dS_M[k] = r[1];
        if (dS_2M)
            dS_2M[k] = r[2];
    }
    pthread_mutex_unlock(&kcu_lock);
    return rc;
}

extern "C" int kcu_gfmc_run(const kcu_gfmc_job *jobs, size_t n, double *dS, double *dS_M,
                            double *dS_2M)
{
    return kcu_gfmc_batch(jobs, n, dS, dS_M, dS_2M, NULL, 0);
}

extern "C" int kcu_gfmc_moments(const kcu_gfmc_job *jobs, size_t n, double *const *mu)
{
    return kcu_gfmc_batch(jobs, n, NULL, NULL, NULL, mu, 0);
}

extern "C" int kcu_gfmc_contour(const kcu_gfmc_job *jobs, size_t n, double *dS, double *err)
{
    return kcu_gfmc_batch(jobs, n, dS, err, NULL, NULL, 1);
}

extern "C" int kcu_gfmc_last_phases(double *recursion, double *green, double *rest)
{
    unsigned long long t[4];
    KCU_TRY(cudaMemcpyFromSymbol(t, kcu_phase_ns, sizeof t), "reading the phase timer", 0);
    *recursion = (double)(t[1] - t[0]) * 1e-9;
    *green = (double)(t[2] - t[1]) * 1e-9;
    *rest = (double)(t[3] - t[2]) * 1e-9;
    return MCF_OK;
}

extern "C" int kcu_gfmc_last_moments(const kcu_gfmc *g, double *mu)
{
    KCU_TRY(cudaMemcpy(mu, g->mu, KCU_NV * g->Mtot * sizeof(double), cudaMemcpyDeviceToHost),
            "copying GFMC moments", 0);
    return MCF_OK;
}
