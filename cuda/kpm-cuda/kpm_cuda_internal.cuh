/* kpm_cuda_internal.cuh — what the files of the kpm-cuda device layer share.  Not installed,
 * not the layer's interface (kpm_cuda.h is): the constants, the stream and the CUDA error
 * helpers, the device Hamiltonian's layout and its row updates, the staging buffers, the row
 * product of the Chebyshev step (the DOS engine's kernel and the GFMC kernel both use it),
 * the GFMC kernel's small device helpers and in-kernel FFT, and the GFMC task and launch
 * records that the host side fills and the kernel reads.
 *
 *   kpm_cuda_device.cu        the device: probe, selection, errors, allocation
 *   kpm_cuda_ham.cu           the device Hamiltonian, its journal of row updates, staging
 *   kpm_cuda_engine.cu        Chebyshev moments of vector blocks (DOS, LDOS, Green's)
 *   kpm_cuda_step.cuh         the block step's kernels (grid-stride, marching; its TU)
 *   kpm_cuda_pf.cu(h)         series of a block, the pseudofermion gradient by launches
 *   kpm_cuda_pf_fused.cu      the same gradient in one cooperative kernel
 *   kpm_cuda_dct.cu           reconstruction by batched cuFFT
 *   kpm_cuda_response.cu      two-dimensional moments (response) by batched ZGEMM
 *   kpm_cuda_gfmc.cu          GFMC: the chain's scratch, the batch, its results
 *   kpm_cuda_gfmc_kernel.cu   the GFMC persistent kernel and its launch
 *   kpm_cuda_by_vector.cuh    the kernel's recursion by vector (small lattices)
 *   kpm_cuda_contour.cuh      the kernel's finish on the contour (its translation unit)
 *
 * No relocatable device code (-rdc): a kernel and every device function it calls must be in
 * one translation unit, so the device functions several files use are here, static
 * __device__ __forceinline__, and compile to what they compiled to in one file. */
#ifndef MCF_KPM_CUDA_INTERNAL_CUH
#define MCF_KPM_CUDA_INTERNAL_CUH

#include "kpm_core.h"
#include "kpm_cuda.h"
#include "mcf_cuda.h"

#include "mcf/error.h"
#include "mcf/hamiltonian_factors.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <stddef.h>
#include <stdint.h>

namespace cg = cooperative_groups;

#define KCU_PI 3.14159265358979323846
#define KCU_NV KCU_JOB_VECTORS /* GFMC vectors: u0, u1, u0 + u1, u0 + i u1 */
#define KCU_NS (3 * KCU_NV) /* sums per GFMC step: <r0|r0> (step 1), <y|x>, <y|y> */
#define KCU_GFMC_THREADS 256
#define KCU_GFMC_ROWS_PER_BLOCK 512 /* the cluster size aims at this many rows per block */
#define KCU_STEP_THREADS 256

/* ---- the device (kpm_cuda_device.cu over cuda/common: mcf_cuda.h) -------------------- */

#define kcu_stream mcu_stream()

/* A CUDA runtime failure as an mcf error: out of memory is MCF_ENOMEM with the sizes. */
KCU_API int kcu_fail(cudaError_t e, const char *what, size_t bytes);

#define KCU_TRY(call, what, bytes)                     \
    do {                                               \
        cudaError_t kcu_e_ = (call);                   \
        if (kcu_e_ != cudaSuccess)                     \
            return kcu_fail(kcu_e_, (what), (bytes));  \
    } while (0)

/* cudaMalloc of `bytes` (at least 1) into *p, NULL on failure; `what` names it in the
 * message. */
KCU_API int kcu_alloc(void **p, size_t bytes, const char *what);

/* ---- the device Hamiltonian (kpm_cuda_ham.cu) ---------------------------------------- */

struct kcu_ham {
    size_t dim;
    int width;
    int32_t *col;     /* width x dim, slot-major */
    double *hre, *him;
    double *ons;      /* dim */
    uint64_t version; /* of the host Hamiltonian the copy equals */
    uint64_t rows_updated, full_uploads;
    /* factorized hoppings (mcf/hamiltonian_factors.h; frank < 0: none, the table only):
     * the field, site i's component c at field[i frank + c]; fdims 2 or 3: the neighbours
     * follow from the row on a periodic square or cubic lattice of side fL, 0: they are
     * the table's columns (slot k = neighbour k) */
    int frank, fdims, fz; /* fz: the lattice's coordination (<= 8) */
    double famp;
    long long fL;
    double2 *field;
    /* pinned mirror of the host table for whole uploads (a pageable copy is staged by the
     * driver at a fraction of the link's speed; at 32^3 a trajectory uploads the twisted
     * table, 4.8 MB, at every force): NULL until the first re-upload, or when it could
     * not be had */
    void *pin;
    size_t pin_bytes;
};

/* One changed row as it travels to the device. */
struct kcu_row_update {
    int32_t row, width;
    int32_t col[KCU_MAX_WIDTH];
    double re[KCU_MAX_WIDTH], im[KCU_MAX_WIDTH];
    double onsite;
    double2 a[MCF_FACTORS_RANK_MAX]; /* the site's field (frank > 0) */
    int frank;
    /* the device table it goes to */
    int32_t *dcol;
    double *dre, *dim_, *dons;
    double2 *dfield;
    long long dim;
};

/* Writes one row update into its device table: the slots by the block's threads, the
 * on-site term and the field by thread 0 (the update kernel, and the GFMC kernel before
 * its recursion). */
static __device__ __forceinline__ void kcu_apply_row_update(const kcu_row_update *p)
{
    for (int k = threadIdx.x; k < p->width; k += blockDim.x) {
        const long long sl = (long long)k * p->dim + p->row;
        p->dcol[sl] = p->col[k];
        p->dre[sl] = p->re[k];
        p->dim_[sl] = p->im[k];
    }
    if (threadIdx.x == 0) {
        p->dons[p->row] = p->onsite;
        for (int c = 0; c < p->frank; c++)
            p->dfield[(long long)p->row * p->frank + c] = p->a[c];
    }
}

/* The whole table of h into d (synchronous); d's version becomes h's. */
KCU_API int kcu_ham_upload_all(kcu_ham *d, const mcf_hamiltonian *h);

/* Changed rows of h since d's version into upd (at most KCU_MAX_UPDATE_ROWS): the count,
 * or -1 when a full upload is needed. */
KCU_API long kcu_changed(const kcu_ham *d, const mcf_hamiltonian *h, kcu_row_update *upd);

/* The staging buffers every row update and GFMC batch travels through: a pinned host buffer
 * and its device twin, one per process, grown on demand, used under a lock (the plugin's
 * ops run on one thread at a time).  kcu_stage_begin takes the lock and makes room for
 * `bytes` (on failure it releases the lock and returns the error); kcu_stage_end releases
 * it. */
typedef struct kcu_stage {
    unsigned char *host, *dev;
} kcu_stage;

KCU_API int kcu_stage_begin(size_t bytes, kcu_stage *out);
KCU_API void kcu_stage_end(void);

/* ---- the row product of a Chebyshev step (the engine's and the GFMC kernel's) ---------
 *
 * The product of one row with NV vectors: acc[j] = (onsite - shift) xr[j] + sum_k H_rk
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
static __device__ __forceinline__ long long kcu_vidx(long long r, int j)
{
    return ((r >> 5) << 7) + ((long long)j << 5) + (r & 31);
}

/* Loads of the ELL table: LP = 0 plain (the table may be in shared memory), 1 read-only
 * data cache (ld.global.nc), 2 streaming (ld.global.cs: evict first, so the table, read
 * once per step, does not push the vectors out of L2). */
template <int LP, typename V>
static __device__ __forceinline__ V kcu_ld(const V *p)
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
static __device__ __forceinline__ const double2 *kcu_gather_base(const double2 *x, long long xs,
                                                                 int32_t c)
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
static __device__ __forceinline__ void kcu_row_product(const int32_t *col, const double *hre,
                                                       const double *him, long long hs,
                                                       long long hr, int width, double e,
                                                       const double2 *__restrict__ x,
                                                       long long xs, const double2 *xr,
                                                       double2 *acc)
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

/* ---- the row product over factorized hoppings (mcf/hamiltonian_factors.h) ------------
 *
 * The entry amplitude conj(a_i) . a_j of FR components as mcf_factors_hop computes it on
 * the host, with round-to-nearest intrinsics so that nvcc does not contract it into fused
 * multiply-adds: the table's bits. */
template <int FR>
static __device__ __forceinline__ void kcu_fac_hop(double amp, const double2 *ai,
                                                   const double2 *aj, double *re, double *im)
{
    if (FR == 0) {
        *re = amp;
        *im = 0.0;
        return;
    }
    double sr = 0.0, si = 0.0;
#pragma unroll
    for (int c = 0; c < (FR > 0 ? FR : 1); c++) {
        const double cr = __dadd_rn(__dmul_rn(ai[c].x, aj[c].x), __dmul_rn(ai[c].y, aj[c].y));
        const double ci = __dsub_rn(__dmul_rn(ai[c].x, aj[c].y), __dmul_rn(ai[c].y, aj[c].x));
        sr = c ? __dadd_rn(sr, cr) : cr;
        si = c ? __dadd_rn(si, ci) : ci;
    }
    *re = __dmul_rn(amp, sr);
    *im = __dmul_rn(amp, si);
}

/* The neighbours of row r in the lattice's slot order (2k: +e_k, 2k + 1: -e_k, wrapped) on
 * a periodic lattice of FD = 2 or 3 dimensions and side L. */
template <int FD>
static __device__ __forceinline__ void kcu_fac_neighbours(long long r, long long L,
                                                          int32_t *nb)
{
    const unsigned ur = (unsigned)r, uL = (unsigned)L;
    unsigned c[3], st[3] = {1u, uL, uL * uL};
    c[0] = ur % uL;
    c[1] = (ur / uL) % uL;
    c[2] = ur / (uL * uL);
#pragma unroll
    for (int k = 0; k < FD; k++) {
        const unsigned wrap = (uL - 1u) * st[k];
        nb[2 * k] = (int32_t)(c[k] == uL - 1u ? ur - wrap : ur + st[k]);
        nb[2 * k + 1] = (int32_t)(c[k] == 0u ? ur + wrap : ur - st[k]);
    }
}

/* kcu_row_product (one vector, x[c] at x + c xs) for a factorized row: the neighbours
 * from the row (FD 2, 3) or the table's columns (FD = 0, the first `width` <= 8 slots: the
 * lattice's coordination), the entries from the field (FR components; amplitude amp): the
 * same numbers in the same order as the table gives. */
template <int FR, int FD>
static __device__ __forceinline__ void kcu_row_product_fac(const int32_t *col, long long dim,
                                                           int width, const double2 *field,
                                                           double amp, long long L,
                                                           long long r, double e,
                                                           const double2 *__restrict__ x,
                                                           long long xs, const double2 *xr,
                                                           double2 *acc)
{
    acc->x = e * xr->x;
    acc->y = e * xr->y;
    constexpr int Z = FD > 0 ? 2 * FD : 8;
    int32_t nb[Z];
    const int z = FD > 0 ? Z : width;
    if (FD > 0)
        kcu_fac_neighbours<FD>(r, L, nb);
    else
        for (int k = 0; k < Z; k++)
            nb[k] = k < width ? col[k * dim + r] : -1;
    double2 ar[FR > 0 ? FR : 1];
#pragma unroll
    for (int c = 0; c < FR; c++)
        ar[c] = field[r * FR + c];
#pragma unroll
    for (int k = 0; k < Z; k++) {
        if (k >= z || nb[k] < 0)
            continue;
        double2 aj[FR > 0 ? FR : 1];
#pragma unroll
        for (int c = 0; c < FR; c++)
            aj[c] = field[(long long)nb[k] * FR + c];
        double hr, hi;
        kcu_fac_hop<FR>(amp, ar, aj, &hr, &hi);
        const double2 v = x[(long long)nb[k] * xs];
        acc->x += hr * v.x - hi * v.y;
        acc->y += hr * v.y + hi * v.x;
    }
}

/* Entry r of random vector `vec` drawn from `seed` (the DOS engine's vectors, and the GFMC
 * kernel's trace jobs, so that both draw the same): Philox from subsequence vec, offset
 * 4 r; a random phase e^{2 pi i u}, or (gaussian) a complex Gaussian of unit variance. */
static __device__ __forceinline__ double2 kcu_random_entry(unsigned long long seed,
                                                           unsigned long long vec, long long r,
                                                           int gaussian)
{
    curandStatePhilox4_32_10_t st;
    curand_init(seed, vec, 4ull * (unsigned long long)r, &st);
    if (gaussian) {
        const double2 g = curand_normal2_double(&st);
        return make_double2(g.x * 0.70710678118654752440, g.y * 0.70710678118654752440);
    }
    const double2 u = curand_uniform2_double(&st);
    double sn, cs;
    sincos(2.0 * KCU_PI * u.x, &sn, &cs);
    return make_double2(cs, sn);
}

/* ---- GFMC: the task and launch records (kpm_cuda_gfmc.cu fills, the kernel reads) ---- */

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
    /* the start vectors (KCU_START_* of kpm_cuda.h, kcu_gfmc_job says what each means) */
    int start, start_n;
    int32_t start_row[KCU_NV];
    unsigned long long seed, first;
};

/* status codes in out[3] */
#define KCU_ST_OK 0
#define KCU_ST_MOMENT 1 /* |mu_n| > mu_0 */
#define KCU_ST_PHASE 2  /* the phase did not come back to 0 above the spectrum */
#define KCU_ST_CDET 3   /* contour: det(1 - G Delta) vanishes at node out[1] */
#define KCU_ST_CPHASE 4 /* contour: the nodes do not follow the phase (out[1] largest step,
                           out[2] end phase) */
#define KCU_ST_CPOLE 5  /* contour: det(1 - G Delta) vanishes at pole out[1] */

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
    unsigned long long *phase_ns; /* the launch's %globaltimer stamps (ns) of the first
                                     chain's first block: start, recursion done, Green's
                                     functions done, end (device, 4; for the benchmark) */
};

/* The launch of the GFMC kernel for n tasks (host copies in `tasks`, device copies at
 * tasks_dev, the row updates at upd_dev, the phase timers to phase_dev) in clusters of G
 * blocks on cfg (grid, block, stream and cluster attribute set): the shared-memory layout
 * as far as it fits and the settings s allow, and the kernel's instantiation
 * (kpm_cuda_gfmc_kernel.cu).  What the layout became goes into info (not NULL). */
KCU_API cudaError_t kcu_gfmc_launch_kernel(cudaLaunchConfig_t *cfg, const kcu_task *tasks,
                                           size_t n, int G, size_t maxdim,
                                           const kcu_task *tasks_dev,
                                           const kcu_row_update *upd_dev,
                                           unsigned long long *phase_dev,
                                           const kcu_gfmc_settings *s, kcu_gfmc_info *info);

/* ---- GFMC: the kernel's device helpers (kpm_cuda_gfmc_kernel.cu, kpm_cuda_contour.cuh) */

/* One row's entry of the next Chebyshev vector from acc = (H - b) x (ia = 1 / a): y = H~ x
 * at the first step, else y = 2 H~ x - y_old; and the step's sums of the row:
 * s0 += |x|^2 (first step only), s1 += Re <y|x>, s2 += |y|^2.  (Both recursions of the
 * GFMC kernel, by row and by vector, so that they round alike.) */
static __device__ __forceinline__ double2 kcu_cheb_next(bool first, double ia, double2 acc,
                                                        double2 x, double2 y_old, double *s0,
                                                        double *s1, double *s2)
{
    double2 y;
    if (first) {
        y.x = ia * acc.x;
        y.y = ia * acc.y;
        *s0 += x.x * x.x + x.y * x.y;
    } else {
        const double ia2 = 2.0 * ia;
        y.x = ia2 * acc.x - y_old.x;
        y.y = ia2 * acc.y - y_old.y;
    }
    *s1 += y.x * x.x + y.y * x.y;
    *s2 += y.x * y.x + y.y * y.y;
    return y;
}

static __device__ __forceinline__ unsigned long long kcu_timer_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ void kcu_group_sync(int G)
{
    if (G > 1)
        cg::this_cluster().sync();
    else
        __syncthreads();
}

static __device__ __forceinline__ double kcu_warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern __shared__ double kcu_dyn_smem[];

/* The block's share of the GFMC transforms in shared memory (radix 2, decimation in time):
 * the twiddles e^{-2 pi i k / Lf}, k < Lf / 2, and, on `mine` bit-reversed inputs of length
 * Lf at buf, the butterflies (ending with the block synchronized). */
static __device__ __forceinline__ void kcu_fft_twiddles(double2 *tw, int Lf)
{
    for (int k = threadIdx.x; k < Lf / 2; k += blockDim.x) {
        double sn, cs;
        sincospi(-2.0 * (double)k / (double)Lf, &sn, &cs);
        tw[k] = make_double2(cs, sn);
    }
}

static __device__ __forceinline__ void kcu_fft_butterflies(double2 *buf, const double2 *tw,
                                                           int Lf, int mine)
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

#endif
