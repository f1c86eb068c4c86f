/* kpm_cuda_pair.cuh — two Chebyshev steps in one pass over the vectors (temporal blocking;
 * kpm_cuda_engine.cu's translation unit only), for factorized rows on a periodic L^3 grid
 * (the double-exchange and Anderson forms) with L a multiple of 8 and blocks of 8 or more.
 *
 * One step reads x_n (gathered), reads x_{n-1} and writes x_{n+1}: three passes over the
 * block's vectors.  Two steps in one pass read x_{n-1} and x_n and write x_{n+1} and x_{n+2}:
 * four passes for two steps instead of six, so the pair can run faster than the one-step
 * floor of the copy bandwidth.  A block owns one group of 8 vectors, an 8 x 8 tile of the x-y
 * plane and a chunk of z planes, and walks the chunk plane by plane (as the march does):
 * at plane z + 1 it forms x_{n+1} on the tile and its 32 in-plane face neighbours (the halo,
 * formed again by the tiles that own it: the same arithmetic, the same numbers) into a ring
 * of four planes in shared memory, and at plane z it forms x_{n+2} on the tile from the ring.
 * The ring holds three planes in use and the one being written, so one barrier a plane
 * suffices.  x_{n+1} and x_{n+2} go to other buffers than x_{n-1} and x_n, which the halos
 * of neighbouring tiles still read (the engine keeps four vectors).  Each (row, vector) of
 * x_{n+1} is one thread's work in the order of kcu_step_row and x_{n+2} is formed in the
 * same order from the same numbers, so the vectors are the one-step kernels'; the sums add
 * in another fixed order. */
#ifndef MCF_KPM_CUDA_PAIR_CUH
#define MCF_KPM_CUDA_PAIR_CUH

#include "kpm_cuda_step.cuh"

#define KCU_PAIR_RING 4   /* planes of x_{n+1} in shared memory */
#define KCU_PAIR_SITES 96 /* an 8 x 8 tile and its 32 in-plane face neighbours */

struct kcu_pair_args {
    const double2 *field;
    const double *ons;
    double famp;
    int L, B, G, zc; /* side, block, groups of 8 vectors, planes a block */
    const double2 *xo, *x; /* x_{n-1}, x_n */
    double2 *y1, *y2;      /* x_{n+1}, x_{n+2} */
    double ia, b;
    double *part;            /* gridDim x 6 B: the two steps' block sums */
    const double *prev_part; /* the previous kernel's, or NULL */
    int prev_G, prev_nq;     /* its blocks and sums a block */
    double *prev_tot;
};

/* Site ri of the region in the tile's coordinates: 0-63 the tile (ix + 8 iy), 64-71 the row
 * below it (iy = -1), 72-79 above (iy = 8), 80-87 left of it (ix = -1), 88-95 right (8). */
static __device__ __forceinline__ void kcu_pair_site(int ri, int *ix, int *iy)
{
    if (ri < 64) {
        *ix = ri & 7;
        *iy = ri >> 3;
        return;
    }
    const int h = ri - 64, side = h >> 3, p = h & 7;
    *ix = side < 2 ? p : side == 2 ? -1 : 8;
    *iy = side < 2 ? (side == 0 ? -1 : 8) : p;
}

/* x_{n+1} at row r, vector jl: the step of kcu_step_row (not the first) */
template <int FR>
static __device__ __forceinline__ double2 kcu_pair_first(const kcu_pair_args &a, long long r,
                                                         int jl, double2 *xr_out)
{
    const long long B = a.B;
    const double2 xr = a.x[r * B + jl];
    double2 acc;
    kcu_row_product_fac<FR, 3>(NULL, 0, 6, a.field, a.famp, a.L, r, a.ons[r] - a.b, a.x + jl, B,
                               &xr, &acc);
    const double2 yo = a.xo[r * B + jl];
    double2 yr;
    yr.x = 2.0 * a.ia * acc.x - yo.x;
    yr.y = 2.0 * a.ia * acc.y - yo.y;
    *xr_out = xr;
    return yr;
}

/* x_{n+2} at tile site ri (row r), lane v: kcu_row_product_fac's arithmetic in its order,
 * x_{n+1} from the ring (slots: c the plane, u above, d below) */
template <int FR>
static __device__ __forceinline__ double2 kcu_pair_second(
    const kcu_pair_args &a, long long r, int ri, int v, int jl,
    const double2 (*ring)[KCU_PAIR_SITES][8], int c, int u, int d, double2 *xr_out)
{
    const int ix = ri & 7, iy = ri >> 3;
    const int in[4] = {ix < 7 ? ri + 1 : 88 + iy, ix > 0 ? ri - 1 : 80 + iy,
                       iy < 7 ? ri + 8 : 72 + ix, iy > 0 ? ri - 8 : 64 + ix};
    const double2 xr = ring[c][ri][v];
    double2 acc;
    const double e = a.ons[r] - a.b;
    acc.x = e * xr.x;
    acc.y = e * xr.y;
    int32_t nb[6];
    kcu_fac_neighbours<3>(r, a.L, nb);
    double2 ar[FR > 0 ? FR : 1];
#pragma unroll
    for (int q = 0; q < FR; q++)
        ar[q] = a.field[r * FR + q];
#pragma unroll
    for (int k = 0; k < 6; k++) {
        double2 aj[FR > 0 ? FR : 1];
#pragma unroll
        for (int q = 0; q < FR; q++)
            aj[q] = a.field[(long long)nb[k] * FR + q];
        double hr, hi;
        kcu_fac_hop<FR>(a.famp, ar, aj, &hr, &hi);
        const double2 w = k < 4 ? ring[c][in[k]][v] : ring[k == 4 ? u : d][ri][v];
        acc.x += hr * w.x - hi * w.y;
        acc.y += hr * w.y + hi * w.x;
    }
    const double2 yo = a.x[r * (long long)a.B + jl];
    double2 yr;
    yr.x = 2.0 * a.ia * acc.x - yo.x;
    yr.y = 2.0 * a.ia * acc.y - yo.y;
    *xr_out = xr;
    return yr;
}

/* The pair's kernel: grid G x (L/8)^2 x chunks, KCU_STEP_THREADS threads (32 sites x 8
 * lanes).  The ring's 48 KB also serve the block sums before and after the walk. */
template <int FR>
__global__ void __launch_bounds__(KCU_STEP_THREADS, 4) kcu_pair_kernel(kcu_pair_args a)
{
    __shared__ double2 ring[KCU_PAIR_RING][KCU_PAIR_SITES][8];
    double(*red)[KCU_STEP_THREADS] = reinterpret_cast<double(*)[KCU_STEP_THREADS]>(&ring[0][0][0]);
    const int tid = threadIdx.x, v = tid & 7, slot = tid >> 3, B = a.B, L = a.L;
    if (a.prev_part)
        for (int q = (int)blockIdx.x; q < a.prev_nq; q += (int)gridDim.x)
            kcu_sum_blocks(a.prev_part, (unsigned)a.prev_G, a.prev_nq, q, red[0], a.prev_tot);
    const int nt = L / 8, item = (int)blockIdx.x;
    const int g = item % a.G, rest = item / a.G;
    const int tile = rest % (nt * nt), chunk = rest / (nt * nt);
    const int x0 = (tile % nt) * 8, y0 = (tile / nt) * 8;
    const int j = g * 8 + v, jl = j < B ? j : B - 1;
    const bool live = j < B;
    int rp[3]; /* the thread's region sites (slot, slot + 32, slot + 64) in plane 0 */
#pragma unroll
    for (int i = 0; i < 3; i++) {
        int ix, iy;
        kcu_pair_site(slot + 32 * i, &ix, &iy);
        rp[i] = (x0 + ix + L) % L + L * ((y0 + iy + L) % L);
    }
    const long long plane = (long long)L * L;
    const int z0 = chunk * a.zc, z1 = min(z0 + a.zc, L);
    double s1a = 0.0, s2a = 0.0, s1b = 0.0, s2b = 0.0;
    for (int zz = z0 - 1; zz <= z1; zz++) {
        const int zp = (zz + L) % L, sl = (zz - z0 + 1) & 3;
        const bool own = zz >= z0 && zz < z1;
#pragma unroll 1
        for (int i = 0; i < 3; i++) {
            double2 xr;
            const double2 y = kcu_pair_first<FR>(a, rp[i] + plane * zp, jl, &xr);
            ring[sl][slot + 32 * i][v] = y;
            if (i < 2 && own && live) {
                a.y1[(rp[i] + plane * zp) * B + j] = y;
                s1a += y.x * xr.x + y.y * xr.y;
                s2a += y.x * y.x + y.y * y.y;
            }
        }
        __syncthreads();
        if (zz <= z0)
            continue;
        const int z = zz - 1; /* x_{n+2} at plane z: its ring slot, the one above, below */
        const int c = (sl + 3) & 3, d = (sl + 2) & 3;
#pragma unroll 1
        for (int i = 0; i < 2; i++) {
            const long long r = rp[i] + plane * z;
            double2 xr;
            const double2 y = kcu_pair_second<FR>(a, r, slot + 32 * i, v, jl, ring, c, sl, d, &xr);
            if (live) {
                a.y2[r * B + j] = y;
                s1b += y.x * xr.x + y.y * xr.y;
                s2b += y.x * y.x + y.y * y.y;
            }
        }
    }
    __syncthreads(); /* the ring becomes red */
    double *out = a.part + (size_t)blockIdx.x * 6 * B;
    kcu_step_reduce(red, 0.0, s1a, s2a, 8);
    for (int i = tid; i < 3 * B; i += KCU_STEP_THREADS) {
        const int q = i / B, w = i - q * B;
        out[i] = w / 8 == g ? red[q][w & 7] : 0.0;
    }
    __syncthreads();
    kcu_step_reduce(red, 0.0, s1b, s2b, 8);
    for (int i = tid; i < 3 * B; i += KCU_STEP_THREADS) {
        const int q = i / B, w = i - q * B;
        out[3 * B + i] = w / 8 == g ? red[q][w & 7] : 0.0;
    }
}

struct kcu_pair {
    int on;    /* 0: one step a launch */
    int zc;    /* planes a block */
    int items; /* blocks: G x (L/8)^2 x chunks */
};

static const void *kcu_pair_kernel_of(int frank)
{
    return frank == 0   ? (const void *)kcu_pair_kernel<0>
           : frank == 1 ? (const void *)kcu_pair_kernel<1>
                        : (const void *)kcu_pair_kernel<2>;
}

/* The pair's plan for d, blocks of B and K steps: factorized rows of rank 0-2 on an L^3
 * grid, L a multiple of 8, B >= 8, at least three steps (the first and one pair); mode
 * (kcu_engine_pairs): 0 the plugin's rule, -1 never, 1 wherever the grid allows.  The chunk
 * of planes fills one resident wave, as the march's; its two extra planes of x_{n+1} (the
 * halo in z) cost 2 / zc of a step. */
static kcu_pair kcu_pair_plan(const kcu_ham *d, int B, size_t K, int mode)
{
    kcu_pair p = {};
    /* the rule: never.  Against the march of one step a launch as it was, pairs gained 3-9%
     * at B = 8 and 16 (the H200, 128^3 and 256^3, constant hoppings) and lost up to 4% at
     * 32 and 64; the march with the columns in registers (kpm_cuda_zmarch.cuh) is ahead of
     * both at every B (B = 8, 16: 85-87% and 76-80% of the copy bandwidth against pairs'
     * 72-76% and 67-71%; docs/benchmarks.md).  mode 1 still takes pairs where they run. */
    if (mode == 0)
        return p;
    if (mode < 0 || B < 8 || K < 3 || d->frank < 0 || d->frank > 2 || d->fdims != 3)
        return p;
    const long long L = d->fL;
    if (L < 8 || L % 8 || L * L * L >= (1LL << 31))
        return p;
    const int G = (B + 7) / 8;
    const long long cols = (long long)G * (L / 8) * (L / 8);
    const long long W = kcu_resident_blocks(kcu_pair_kernel_of(d->frank));
    long long chunks = W / cols;
    chunks = chunks < 1 ? 1 : chunks > L / 8 ? L / 8 : chunks;
    p.zc = (int)((L + chunks - 1) / chunks);
    const long long items = cols * ((L + p.zc - 1) / p.zc);
    if (items > (1 << 30))
        return p;
    p.items = (int)items;
    p.on = 1;
    return p;
}

#endif
