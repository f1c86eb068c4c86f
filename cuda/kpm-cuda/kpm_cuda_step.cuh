/* kpm_cuda_step.cuh — the Chebyshev step of a block of vectors (kpm_cuda_engine.cu's
 * translation unit only): the kernels, which one a Hamiltonian takes, and their grids. */
#ifndef MCF_KPM_CUDA_STEP_CUH
#define MCF_KPM_CUDA_STEP_CUH

#include "kpm_cuda_internal.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one Chebyshev step for a block of vectors (grid-wide, one launch per step) -------
 *
 * Thread (row, j): j = tid % Bp (Bp the block size rounded up to a power of 2, dividing the
 * thread count), row from the block and a grid-stride loop; threads with j >= B idle.
 * Sums per vector: s0 = <x|x> (first step only), s1 = Re <y|x>, s2 = <y|y>; reduced in
 * the block by a fixed tree and written to part[block][3 B].  The grid's block sums of a
 * step are added by the NEXT step's kernel, while it runs: its blocks 0 .. 3 B - 1 each add
 * one q over the previous part (alternating between two buffers) into the previous tot,
 * in a fixed order, before their rows; after the last step one small kernel adds the last.
 * So the sums are deterministic and no step waits for a last block to add them: the
 * earlier "last block to finish adds everything" (an atomic ticket, one thread per q adding
 * all blocks) cost 30 us a step: 0.166 -> 0.135 ms at 128^3, B = 1 (docs/benchmarks.md). */

struct kcu_step_args {
    const int32_t *col;
    const double *hre, *him, *ons;
    const double2 *field; /* factorized hoppings (kcu_ham): the field, amplitude, side */
    double famp;
    long long fL;
    long long dim;
    int width, B, Bp, first;
    const double2 *x;
    double2 *y;
    double ia, b;
    double *part;            /* gridDim x 3 B: this step's block sums */
    const double *prev_part; /* the previous step's, or NULL on the first step */
    int prev_G, prev_nq;     /* its blocks and sums a block (3 B; 6 B after a pair) */
    double *prev_tot;        /* prev_nq: where the previous step's totals go */
};

/* tot[q] = the sum over g < G of part[g][q] (nq values per g), added by the calling block
 * (KCU_STEP_THREADS threads, all calling): thread t the g = t, t + T, ... in order, then a
 * fixed tree in red (T doubles of shared memory).  Deterministic. */
static __device__ __forceinline__ void kcu_sum_blocks(const double *part, unsigned G, int nq,
                                                      int q, double *red, double *tot)
{
    const int t = threadIdx.x;
    double v = 0.0;
    for (unsigned g = (unsigned)t; g < G; g += KCU_STEP_THREADS)
        v += part[(size_t)g * (size_t)nq + (size_t)q];
    red[t] = v;
    __syncthreads();
    for (int st = KCU_STEP_THREADS / 2; st > 0; st >>= 1) {
        if (t < st)
            red[t] += red[t + st];
        __syncthreads();
    }
    if (t == 0)
        tot[q] = red[0];
    __syncthreads();
}

/* The block sums of the last step: block q adds q (grid 3 B, KCU_STEP_THREADS threads). */
__global__ void __launch_bounds__(KCU_STEP_THREADS) kcu_sum_blocks_kernel(const double *part,
                                                                         unsigned G, int nq,
                                                                         double *tot)
{
    __shared__ double red[KCU_STEP_THREADS];
    kcu_sum_blocks(part, G, nq, (int)blockIdx.x, red, tot);
}

/* Row r, vector j of a step: y = H~ x (first step) or 2 H~ x - y, and the row's terms of
 * the sums (s0 on the first step only).  FR < 0: the rows from the table (WT its width if
 * known, LP the table's loads); FR >= 0: factorized hoppings of rank FR, the neighbours
 * computed (FD 2, 3) or from the columns (FD = 0; s.width = the coordination).  (Two rows
 * a thread, both rows' loads issued before either store, were slower on the H200: more
 * registers, fewer threads; docs/benchmarks.md.) */
template <int WT, int LP, int FR, int FD>
static __device__ __forceinline__ void kcu_step_row(const kcu_step_args &s, long long r, int j,
                                                    double &s0, double &s1, double &s2)
{
    const int B = s.B;
    const double2 xr = s.x[r * B + j];
    double2 acc;
    if (FR < 0)
        kcu_row_product<WT, 1, 0, LP>(s.col, s.hre, s.him, s.dim, r, s.width,
                                      kcu_ld<LP>(s.ons + r) - s.b, s.x + j, B, &xr, &acc);
    else
        kcu_row_product_fac<FR < 0 ? 0 : FR, FD>(s.col, s.dim, s.width, s.field, s.famp, s.fL,
                                                 r, s.ons[r] - s.b, s.x + j, B, &xr, &acc);
    double2 yr;
    if (s.first) {
        yr.x = s.ia * acc.x;
        yr.y = s.ia * acc.y;
        s0 += xr.x * xr.x + xr.y * xr.y;
    } else {
        const double2 yo = LP == 2 ? __ldcs(s.y + r * B + j) : s.y[r * B + j];
        yr.x = 2.0 * s.ia * acc.x - yo.x;
        yr.y = 2.0 * s.ia * acc.y - yo.y;
    }
    s.y[r * B + j] = yr;
    s1 += yr.x * xr.x + yr.y * xr.y;
    s2 += yr.x * yr.x + yr.y * yr.y;
}

/* The block's sums: red[q][tid] reduced by a fixed tree over the threads that share tid %
 * stride (stride a power of 2 dividing the block): red[q][0 .. stride - 1] hold them. */
static __device__ __forceinline__ void kcu_step_reduce(double (*red)[KCU_STEP_THREADS],
                                                       double s0, double s1, double s2,
                                                       int stride)
{
    const int tid = threadIdx.x;
    red[0][tid] = s0;
    red[1][tid] = s1;
    red[2][tid] = s2;
    __syncthreads();
    for (int st = KCU_STEP_THREADS / 2; st >= stride; st >>= 1) {
        if (tid < st)
            for (int q = 0; q < 3; q++)
                red[q][tid] += red[q][tid + st];
        __syncthreads();
    }
}

/* Thread (row, j): j = tid % Bp (Bp the block size rounded up to a power of 2, dividing the
 * thread count), row from the block and a grid-stride loop; threads with j >= B idle. */
template <int WT, int LP, int FR = -1, int FD = 0>
__global__ void __launch_bounds__(KCU_STEP_THREADS) kcu_step_kernel(kcu_step_args s)
{
    __shared__ double red[3][KCU_STEP_THREADS];
    const int tid = threadIdx.x, B = s.B, Bp = s.Bp;
    if (s.prev_part) /* block-uniform: every thread of the block takes part */
        for (int q = (int)blockIdx.x; q < s.prev_nq; q += (int)gridDim.x)
            kcu_sum_blocks(s.prev_part, (unsigned)s.prev_G, s.prev_nq, q, red[0],
                           s.prev_tot);
    const int j = tid % Bp;
    const int rows_per_block = KCU_STEP_THREADS / Bp;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    if (j < B)
        for (long long r = (long long)blockIdx.x * rows_per_block + tid / Bp; r < s.dim;
             r += (long long)gridDim.x * rows_per_block)
            kcu_step_row<WT, LP, FR, FD>(s, r, j, s0, s1, s2);
    kcu_step_reduce(red, s0, s1, s2, Bp);
    if (tid < B)
        for (int q = 0; q < 3; q++)
            s.part[(size_t)blockIdx.x * 3 * B + q * B + tid] = red[q][tid];
}

/* ---- the marching step: blocks of 8 or more vectors on a square or cubic grid ----------
 *
 * The rows are the sites of an L^D grid (D = 2, 3; row x + L y + L^2 z), the vectors in
 * groups of 8 (one 128-byte line of a row).  Block b owns one group g, one tile of TX x TY
 * sites of the x-y plane (D = 2: TX x 1 of the x line) and a chunk of zc planes, and walks
 * the chunk plane by plane: the tile's x at z + 1 (read now as the +z neighbours) is read
 * again at the next plane as its own and at the one after as the -z neighbours, all from
 * the SM's L1, and the tiles of one plane of the grid-stride step were each read from L2
 * by the blocks of the planes above and below (measured in docs/benchmarks.md).  Each
 * (row, vector) is still one thread's work in the same order: the same y as the grid-stride
 * kernel, bit for bit; the sums add in another (fixed) order. */
#define KCU_MARCH_TX 8 /* the tile: 8 x 8 sites in 3D, 64 x 1 in 2D: two rows a thread */
struct kcu_march {
    int on;              /* 0: the grid-stride kernel */
    int L, D, TX, TY, zc; /* side, dimension, tile, planes per block */
    int ntx, nty, G;     /* tiles along x and y, groups of 8 vectors */
    int items;           /* blocks: G x ntx x nty x chunks */
    int share;           /* 1: the row's 8 lanes share its slots (kcu_march_row); 2: the
                          * columns in registers (kcu_zmarch_kernel) */
};

/* Neighbour k of row r in kcu_fac_neighbours's order (2i: +e_i, 2i + 1: -e_i, wrapped): the
 * one slot a lane of kcu_march_row computes. */
template <int FD>
static __device__ __forceinline__ int32_t kcu_fac_neighbour(long long r, long long L, int k)
{
    const unsigned ur = (unsigned)r, uL = (unsigned)L, i = (unsigned)k >> 1;
    const unsigned st = i == 0 ? 1u : i == 1 ? uL : uL * uL;
    const unsigned c = (ur / st) % uL, wrap = (uL - 1u) * st;
    if (k & 1)
        return (int32_t)(c == 0u ? ur + wrap : ur - st);
    return (int32_t)(c == uL - 1u ? ur - wrap : ur + st);
}

/* kcu_step_row with the row's slots shared by its 8 lanes (one group of 8 vectors; every
 * lane of the row calls it, `live` those whose vector exists and whose row is in the grid):
 * lane v takes slot v (v < the width, at most 8) -- its column and entry from the table, or,
 * factorized, its neighbour and the entry kcu_fac_hop computes from the field -- into shared
 * memory, and every lane then reads all slots from there.  kcu_step_row loads every slot in
 * every lane and computes every factorized entry 8 times (the same numbers: one kcu_fac_hop
 * where it took 8, and 3 or 2 loads a lane where it took 3 or 2 a slot).  The same
 * arithmetic in the same order: factorized, the same y bit for bit; from a table nvcc fuses
 * the complex multiply-adds in another order (the moments move by ~1e-16, measured). */
template <int WT, int LP, int FR, int FD>
static __device__ __forceinline__ void kcu_march_row(const kcu_step_args &s, long long r, int j,
                                                     bool live, double2 *sh_h, int32_t *sh_c,
                                                     double &s0, double &s1, double &s2)
{
    const int B = s.B, v = threadIdx.x & 7, base = threadIdx.x & ~7;
    const int jl = j < B ? j : B - 1; /* a lane beyond the block reads its last vector */
    constexpr int ZM = FR < 0 ? (WT > 0 ? WT : 8) : (FD > 0 ? 2 * FD : 8);
    const int z = FR < 0 ? (WT > 0 ? WT : s.width) : (FD > 0 ? 2 * FD : s.width);
    if (v < z) {
        int32_t c;
        double2 h;
        if (FR < 0) {
            c = kcu_ld<LP>(s.col + v * s.dim + r);
            h.x = kcu_ld<LP>(s.hre + v * s.dim + r);
            h.y = kcu_ld<LP>(s.him + v * s.dim + r);
        } else {
            c = FD > 0 ? kcu_fac_neighbour<FD>(r, s.fL, v) : s.col[v * s.dim + r];
            h = make_double2(0.0, 0.0);
            if (c >= 0) {
                double2 ar[FR > 0 ? FR : 1], aj[FR > 0 ? FR : 1];
#pragma unroll
                for (int q = 0; q < FR; q++) {
                    ar[q] = s.field[r * FR + q];
                    aj[q] = s.field[(long long)c * FR + q];
                }
                kcu_fac_hop<FR < 0 ? 0 : FR>(s.famp, ar, aj, &h.x, &h.y);
            }
        }
        sh_c[base + v] = c;
        sh_h[base + v] = h;
    }
    __syncwarp();
    const double2 xr = s.x[r * B + jl];
    const double e = (FR < 0 ? kcu_ld<LP>(s.ons + r) : s.ons[r]) - s.b;
    double2 acc;
    acc.x = e * xr.x;
    acc.y = e * xr.y;
#pragma unroll
    for (int k = 0; k < ZM; k++) {
        if (k >= z)
            break;
        const int32_t c = sh_c[base + k];
        if (c < 0)
            continue;
        const double2 h = sh_h[base + k];
        const double2 xc = s.x[(long long)c * B + jl];
        acc.x += h.x * xc.x - h.y * xc.y;
        acc.y += h.x * xc.y + h.y * xc.x;
    }
    __syncwarp();
    if (!live)
        return;
    double2 yr;
    if (s.first) {
        yr.x = s.ia * acc.x;
        yr.y = s.ia * acc.y;
        s0 += xr.x * xr.x + xr.y * xr.y;
    } else {
        const double2 yo = LP == 2 ? __ldcs(s.y + r * B + j) : s.y[r * B + j];
        yr.x = 2.0 * s.ia * acc.x - yo.x;
        yr.y = 2.0 * s.ia * acc.y - yo.y;
    }
    s.y[r * B + j] = yr;
    s1 += yr.x * xr.x + yr.y * xr.y;
    s2 += yr.x * yr.x + yr.y * yr.y;
}

/* The start of a march's block (every thread calling): add the previous step's block sums
 * (as kcu_step_kernel does), then the block's group of 8 vectors, tile and chunk of z. */
static __device__ __forceinline__ void kcu_march_begin(const kcu_step_args &s,
                                                       const kcu_march &m, double *red,
                                                       int *g, int *tile, int *chunk)
{
    if (s.prev_part)
        for (int q = (int)blockIdx.x; q < s.prev_nq; q += (int)gridDim.x)
            kcu_sum_blocks(s.prev_part, (unsigned)s.prev_G, s.prev_nq, q, red, s.prev_tot);
    const int item = (int)blockIdx.x, rest = item / m.G;
    *g = item % m.G;
    *tile = rest % (m.ntx * m.nty);
    *chunk = rest / (m.ntx * m.nty);
}

/* The end of a march's block: its sums of group g (zero for the other vectors) */
static __device__ __forceinline__ void kcu_march_end(const kcu_step_args &s,
                                                     double (*red)[KCU_STEP_THREADS], double s0,
                                                     double s1, double s2, int g)
{
    const int B = s.B;
    kcu_step_reduce(red, s0, s1, s2, 8);
    for (int i = (int)threadIdx.x; i < 3 * B; i += KCU_STEP_THREADS) {
        const int q = i / B, v = i - q * B;
        s.part[(size_t)blockIdx.x * 3 * B + i] = v / 8 == g ? red[q][v & 7] : 0.0;
    }
}

/* Resident blocks per SM the registers must allow: 5 (48 registers) where that costs no
 * spills, 4 (64) for a field of rank 1 or 2 and for the shared slots (SH: all of a row's
 * gathers in flight at once; at 48 the table spilled).  Left to itself ptxas took 56-88 registers,
 * 2-3 blocks an SM, and the march's better L1 hit rate (63% against 28%) was lost to the
 * occupancy (24% against 62%; ncu on the H200, docs/benchmarks.md). */
#define KCU_MARCH_MIN_BLOCKS(FR, SH) ((FR) >= 1 || (SH) ? 4 : 5)
template <int WT, int LP, int FR = -1, int FD = 0, int SH = 0>
__global__ void __launch_bounds__(KCU_STEP_THREADS, KCU_MARCH_MIN_BLOCKS(FR, SH))
    kcu_march_kernel(kcu_step_args s, kcu_march m)
{
    __shared__ double red[3][KCU_STEP_THREADS];
    __shared__ double2 sh_h[SH ? KCU_STEP_THREADS : 1];
    __shared__ int32_t sh_c[SH ? KCU_STEP_THREADS : 1];
    const int tid = threadIdx.x, B = s.B;
    int g, tile, chunk;
    kcu_march_begin(s, m, red[0], &g, &tile, &chunk);
    const int j = g * 8 + (tid & 7);
    /* the thread's two rows of the tile in plane 0 (-1: outside the grid), 32-bit (the
     * plan keeps L^D below 2^31) */
    int rb[2];
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int t = (tid >> 3) + 32 * i;
        const int x = (tile % m.ntx) * m.TX + (m.D == 3 ? t % KCU_MARCH_TX : t);
        const int y = m.D == 3 ? (tile / m.ntx) * m.TY + t / KCU_MARCH_TX : 0;
        rb[i] = x < m.L && y < (m.D == 3 ? m.L : 1) ? x + m.L * y : -1;
    }
    const int plane = m.D == 3 ? m.L * m.L : m.L;
    const int z0 = chunk * m.zc, z1 = min(z0 + m.zc, m.L);
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    if (SH) /* every lane of a row, its vector in the block or not, in or out of the grid */
        for (int z = z0; z < z1; z++)
#pragma unroll 1
            for (int i = 0; i < 2; i++)
                kcu_march_row<WT, LP, FR, FD>(s, rb[i] >= 0 ? rb[i] + plane * z : 0, j,
                                              rb[i] >= 0 && j < B, sh_h, sh_c, s0, s1, s2);
    else if (j < B)
        for (int z = z0; z < z1; z++)
#pragma unroll 1 /* one row at a time: unrolled, both rows' loads took 88 registers */
            for (int i = 0; i < 2; i++)
                if (rb[i] >= 0)
                    kcu_step_row<WT, LP, FR, FD>(s, rb[i] + plane * z, j, s0, s1, s2);
    kcu_march_end(s, red, s0, s1, s2, g);
}

#include "kpm_cuda_zmarch.cuh" /* the march with the columns in registers (share 2) */

/* the kernel of one form: the grid-stride step (M = 0), the marching one (M = 1), the march
 * with the row's slots shared by its lanes (M = 2) */
template <int M, int WT, int LP, int FR, int FD>
static const void *kcu_kernel_ptr()
{
    return M == 2   ? (const void *)kcu_march_kernel<WT, LP, FR, FD, 1>
           : M == 1 ? (const void *)kcu_march_kernel<WT, LP, FR, FD, 0>
                    : (const void *)kcu_step_kernel<WT, LP, FR, FD>;
}

template <int M, int LP>
static const void *kcu_step_kernel_for(int width)
{
    if (width == 6)
        return kcu_kernel_ptr<M, 6, LP, -1, 0>();
    if (width == 7)
        return kcu_kernel_ptr<M, 7, LP, -1, 0>();
    return kcu_kernel_ptr<M, 0, LP, -1, 0>();
}

template <int M, int FR>
static const void *kcu_step_kernel_fac(int fdims)
{
    if (fdims == 3)
        return kcu_kernel_ptr<M, 0, 0, FR, 3>();
    if (fdims == 2)
        return kcu_kernel_ptr<M, 0, 0, FR, 2>();
    return kcu_kernel_ptr<M, 0, 0, FR, 0>();
}

/* The table through the read-only data cache for blocks of 4 or more vectors (measured on
 * an H100 at 128^3: 58% of the copy bandwidth instead of 54% at B = 8, 51% instead of 47%
 * at B = 64), plain loads for fewer (74% instead of 68% at B = 1); streaming loads
 * (ld.global.cs) were in between.  Factorized hoppings: the kernel of their rank. */
template <int M>
static const void *kcu_step_kernel_of(const kcu_ham *d, int B)
{
    if (d->frank == 0)
        return kcu_step_kernel_fac<M, 0>(d->fdims);
    if (d->frank == 1)
        return kcu_step_kernel_fac<M, 1>(d->fdims);
    if (d->frank == 2)
        return kcu_step_kernel_fac<M, 2>(d->fdims);
    return B >= 4 ? kcu_step_kernel_for<M, 1>(d->width) : kcu_step_kernel_for<M, 0>(d->width);
}

/* the march's kernel: slots loaded by every lane (share 0), shared by the row's (1), or
 * each thread's column in registers (2: kpm_cuda_zmarch.cuh, factorized rows on L^3) */
static const void *kcu_march_kernel_of(const kcu_ham *d, int B, int share)
{
    if (share == 2)
        return kcu_zmarch_kernel_of(d);
    return share ? kcu_step_kernel_of<2>(d, B) : kcu_step_kernel_of<1>(d, B);
}

static int kcu_resident_blocks(const void *kernel)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, KCU_STEP_THREADS, 0) !=
            cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    return per_sm * mcu_props()->multiProcessorCount;
}

/* The step's grid: no more blocks than are resident at once (one wave, instead of 8 per SM
 * in 1.6 waves), so that the rows in flight stay one narrow front of the grid-stride loop
 * and the neighbours of the next rows are still in L2; and no more than `cap` (the
 * engine's grid: what the rows need, at most 8 per SM; the part buffers' size).  Measured
 * on the H100 at 128^3: B = 8 0.625 -> 0.509 ms; at 256^3, B = 8 and 16 are 4% and 6%
 * faster than with 8 per SM (docs/benchmarks.md). */
static int kcu_step_grid(const kcu_ham *d, int B, int cap)
{
    const int g = kcu_resident_blocks(kcu_step_kernel_of<0>(d, B));
    return g < cap ? g : cap;
}

/* The marching step's plan for d and blocks of B vectors (m.on = 0: the grid-stride step):
 * B >= 8 and rows that are the sites of an L^3 or L^2 grid (the factorized form says so;
 * a table of L^3 or L^2 rows is taken as one, which only its speed depends on), and for a
 * table without shared slots only when the grid-stride step's planes no longer fit in L2
 * (below).  share (kcu_engine_march_share): -1 the rule below, 0 or 1.  The tile
 * is 8 x 8 (64 x 1 in 2D: two rows a thread), zc planes per block chosen so that the blocks
 * fit in one resident wave.  mode (kcu_engine_march: the benchmark's and the tests' knob):
 * 0 this rule, -1 never, k > 0 always where the grid allows, k planes a block. */
static kcu_march kcu_march_plan(const kcu_ham *d, int B, int mode, int share)
{
    kcu_march m = {};
    if (mode < 0)
        return m;
    int zc = mode;
    if (B < 8)
        return m;
    long long L = 0;
    int D = 0;
    const long long n = (long long)d->dim;
    if (d->frank >= 0 && d->fdims >= 2) {
        L = d->fL;
        D = d->fdims;
    } else {
        const long long c = llround(cbrt((double)n)), q = llround(sqrt((double)n));
        if (c * c * c == n && c >= 4) {
            L = c;
            D = 3;
        } else if (q * q == n && q >= 8) {
            L = q;
            D = 2;
        }
    }
    if (!D || (D == 3 ? L * L * L : L * L) >= (1LL << 31))
        return m;
    /* Which march: each row's slots shared by its 8 lanes (share 1; kcu_march_row, at most
     * 8 slots a row), loaded by every lane (0), or each thread's column of x in registers
     * (2: kpm_cuda_zmarch.cuh; factorized rows on L^3 only, elsewhere as 0).  share < 0, the
     * rule, from the H200 at 128^3 and 256^3, B = 8-64 (docs/benchmarks.md): a table, shared
     * (60-70% of the copy bandwidth against 44-57% for the grid-stride step and 43-52% for
     * the march without); constant hoppings (rank 0) on L^3, the columns in registers
     * (71-87% against the lanes' own loads' 62-69%), on L^2 the lanes' own loads; a field
     * (rank 1, 2: the double-exchange form), shared (53-61% against 45-54% for the lanes'
     * own loads and 38-49% for the columns in registers, whose 80 registers leave 3 blocks
     * an SM). */
    const int fac3 = d->frank >= 0 && d->frank <= 2 && D == 3;
    if (share < 0)
        m.share = d->frank < 0 || d->frank >= 1 ? 1 : fac3 ? 2 : 0;
    else
        m.share = share == 2 ? (fac3 ? 2 : 0) : share;
    m.share = d->frank >= 0 || d->width <= 8 ? m.share : 0;
    /* the table without shared slots: the grid-stride step keeps the three planes of x its
     * front reads in L2 while they fit in half of it (128^3, B = 8 and 16: 57% and 52% of
     * the copy bandwidth against that march's 52% and 47% on the H200); beyond, the march
     * (256^3: 49-52% against 40-50%).  With shared slots the table marches everywhere. */
    const double window = 3.0 * (double)(D == 3 ? L * L : L) * (double)B * 16.0;
    if (d->frank < 0 && !m.share && mode == 0 &&
        window < 0.5 * (double)mcu_props()->l2CacheSize)
        return m;
    m.L = (int)L;
    m.D = D;
    m.TX = D == 3 ? KCU_MARCH_TX : KCU_MARCH_TX * KCU_MARCH_TX;
    m.TY = D == 3 ? (m.share == 2 ? KCU_ZMARCH_TY : KCU_MARCH_TX) : 1;
    m.ntx = (int)((L + m.TX - 1) / m.TX);
    m.nty = D == 3 ? (int)((L + m.TY - 1) / m.TY) : 1;
    m.G = (B + 7) / 8;
    const long long cols = (long long)m.G * m.ntx * m.nty;
    if (zc <= 0) {
        const long long W = kcu_resident_blocks(kcu_march_kernel_of(d, B, m.share));
        long long chunks = W / cols;
        chunks = chunks < 1 ? 1 : chunks > L ? L : chunks;
        zc = (int)((L + chunks - 1) / chunks);
    }
    m.zc = zc < m.L ? zc : m.L;
    const long long items = cols * ((L + m.zc - 1) / m.zc);
    if (items > (1 << 30))
        return m;
    m.items = (int)items;
    m.on = 1;
    return m;
}

static void kcu_launch_step(const kcu_ham *d, int grid, const kcu_step_args &s,
                            const kcu_march &m, cudaStream_t stream)
{
    kcu_march mc = m;
    void *args[] = {(void *)&s, (void *)&mc};
    if (m.on)
        cudaLaunchKernel(kcu_march_kernel_of(d, s.B, m.share), dim3((unsigned)m.items),
                         dim3(KCU_STEP_THREADS), args, 0, stream);
    else
        cudaLaunchKernel(kcu_step_kernel_of<0>(d, s.B), dim3((unsigned)grid),
                         dim3(KCU_STEP_THREADS), args, 0, stream);
}

#endif
