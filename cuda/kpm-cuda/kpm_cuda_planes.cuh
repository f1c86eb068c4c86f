/* kpm_cuda_planes.cuh — the Chebyshev step of a block of vectors on a cubic grid with the
 * tile's planes in shared memory (kpm_cuda_step.cuh's translation unit only; issue 44 part 5).
 *
 * The march (kcu_march_kernel) walks a tile of 8 x 8 sites plane by plane and leaves the
 * neighbours to L1: on the H200 L1 served half of them, the rest went to L2, which ran 75 %
 * busy with the DRAM at 61 % (docs/benchmarks.md, session 6).  Here a block keeps three
 * planes of its tile, each with its in-plane halo (10 x 10 sites, the corners unused), of one
 * group of 8 vectors in shared memory, and of the field's components for factorized rows: each
 * plane is read once, coalesced (a site's 8 vectors are one 128-byte line), when the walk
 * reaches it, and every neighbour comes from shared memory.  The halo is the tile's only extra
 * traffic (36 of 100 sites, from the neighbouring tiles' lines in L2).  A halo site is the
 * neighbour's own site, wrapped (x mod L), so tiles that pass the grid's end (L not a multiple
 * of 8) read the right neighbours; their sites past the end are not computed.
 *
 * The same row arithmetic as kcu_step_row in the same order (the diagonal term, then the six
 * neighbours in kcu_fac_neighbours's order, the entry from kcu_fac_hop, formed once per site
 * by lane k for neighbour k and shuffled to the site's 8 lanes): the same y up to nvcc's
 * choice of fused multiply-adds, the sums in the march's order.  Factorized rows of a
 * 3D grid only (FD = 3; rank FR = 0, 1, 2); B >= 8.  Static shared memory: 3 planes x 100
 * sites x 8 vectors x 16 bytes + 3 x 100 x FR x 16 bytes of field <= 48000 bytes, the block's
 * sums reusing the first 6144 of them. */
#ifndef MCF_KPM_CUDA_PLANES_CUH
#define MCF_KPM_CUDA_PLANES_CUH

#define KCU_PLANE_T 8                             /* the tile: 8 x 8 sites */
#define KCU_PLANE_H (KCU_PLANE_T + 2)             /* with its halo: 10 x 10 */
#define KCU_PLANE_SITES (KCU_PLANE_H * KCU_PLANE_H) /* 100 a plane */

/* bytes of shared memory a block takes for rank FR */
#define KCU_PLANE_SMEM(FR) (3 * KCU_PLANE_SITES * 16 * (8 + (FR)))

/* Plane z (wrapped) of the tile at (x0, y0) into ring slot `slot`: x of vector group g (lane v
 * of each site; a lane past the block reads the block's last vector) and the field's FR
 * components, every halo position the site it stands for. */
template <int FR>
static __device__ __forceinline__ void kcu_plane_load(const kcu_step_args &s, int L, int x0,
                                                      int y0, int z, int g, double2 *xs,
                                                      double2 *fs, int slot)
{
    const int B = s.B, tid = threadIdx.x, v = tid & 7;
    const int jl = min(g * 8 + v, B - 1);
    const int zw = (z % L + L) % L;
#pragma unroll 1 /* unrolled, the four passes' addresses took the row's registers */
    for (int p = tid >> 3; p < KCU_PLANE_SITES; p += KCU_STEP_THREADS / 8) {
        const int hx = p % KCU_PLANE_H, hy = p / KCU_PLANE_H;
        int x = x0 + hx - 1, y = y0 + hy - 1;
        x = x < 0 ? x + L : x >= L ? x - L : x;
        y = y < 0 ? y + L : y >= L ? y - L : y;
        const int r = x + L * (y + L * zw); /* the plan keeps L^3 below 2^31 */
        xs[(slot * KCU_PLANE_SITES + p) * 8 + v] = s.x[(long long)r * B + jl];
        if (FR > 0 && v < FR)
            fs[(slot * KCU_PLANE_SITES + p) * (FR > 0 ? FR : 1) + v] = s.field[(long long)r * FR + v];
    }
}

template <int FR>
__global__ void __launch_bounds__(KCU_STEP_THREADS, 4) kcu_plane_kernel(kcu_step_args s,
                                                                        kcu_march m)
{
    __shared__ __align__(16) unsigned char smem[KCU_PLANE_SMEM(FR)];
    double2 *xs = (double2 *)smem;
    double2 *fs = xs + 3 * KCU_PLANE_SITES * 8;
    double(*red)[KCU_STEP_THREADS] = (double(*)[KCU_STEP_THREADS])smem;
    const int tid = threadIdx.x, B = s.B, L = m.L;
    if (s.prev_part)
        for (int q = (int)blockIdx.x; q < 3 * B; q += (int)gridDim.x)
            kcu_sum_blocks(s.prev_part, gridDim.x, 3 * B, q, red[0], s.prev_tot);
    __syncthreads(); /* red is the planes' memory */
    const int item = (int)blockIdx.x;
    const int g = item % m.G, rest = item / m.G;
    const int tile = rest % (m.ntx * m.nty), chunk = rest / (m.ntx * m.nty);
    const int x0 = (tile % m.ntx) * KCU_PLANE_T, y0 = (tile / m.ntx) * KCU_PLANE_T;
    const int v = tid & 7, j = g * 8 + v;
    const int z0 = chunk * m.zc, z1 = min(z0 + m.zc, L);
    const long long plane = (long long)L * L;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    kcu_plane_load<FR>(s, L, x0, y0, z0 - 1, g, xs, fs, (z0 + 2) % 3);
    kcu_plane_load<FR>(s, L, x0, y0, z0, g, xs, fs, z0 % 3);
    for (int z = z0; z < z1; z++) {
        kcu_plane_load<FR>(s, L, x0, y0, z + 1, g, xs, fs, (z + 1) % 3);
        __syncthreads();
        const int c = z % 3, up = (z + 1) % 3, dn = (z + 2) % 3;
#pragma unroll 1
        for (int i = 0; i < 2; i++) {
            const int t = (tid >> 3) + 32 * i;
            const int tx = t % KCU_PLANE_T, ty = t / KCU_PLANE_T;
            const int x = x0 + tx, y = y0 + ty;
            /* every lane takes part in the shuffles; only live ones store */
            const bool live = x < L && y < L && j < B;
            const int p = (ty + 1) * KCU_PLANE_H + tx + 1;
            const long long r = live ? x + (long long)L * y + plane * z : 0;
            /* lane k < 6 forms the entry to neighbour k (kcu_fac_neighbours's order: +x, -x,
             * +y, -y, +z, -z) from the field in shared memory; the 8 lanes of the site take
             * it from there by shuffles (one kcu_fac_hop a neighbour where each lane would
             * form all six: the same numbers) */
            const int ks = v < 6 ? v : 0;
            const int nslot = ks < 4 ? c : ks == 4 ? up : dn;
            const int npos = ks == 0 ? p + 1 : ks == 1 ? p - 1 : ks == 2 ? p + KCU_PLANE_H
                             : ks == 3 ? p - KCU_PLANE_H : p;
            double hr_own = 0.0, hi_own = 0.0;
            {
                double2 ar[FR > 0 ? FR : 1], aj[FR > 0 ? FR : 1];
#pragma unroll
                for (int q = 0; q < FR; q++) {
                    ar[q] = fs[(c * KCU_PLANE_SITES + p) * (FR > 0 ? FR : 1) + q];
                    aj[q] = fs[(nslot * KCU_PLANE_SITES + npos) * (FR > 0 ? FR : 1) + q];
                }
                kcu_fac_hop<FR < 0 ? 0 : FR>(s.famp, ar, aj, &hr_own, &hi_own);
            }
            const double2 xr = xs[(c * KCU_PLANE_SITES + p) * 8 + v];
            const double e = (live ? s.ons[r] : 0.0) - s.b;
            double2 acc;
            acc.x = e * xr.x;
            acc.y = e * xr.y;
#pragma unroll
            for (int k = 0; k < 6; k++) {
                const double hr = __shfl_sync(0xffffffffu, hr_own, k, 8);
                const double hi = __shfl_sync(0xffffffffu, hi_own, k, 8);
                const int ns = k < 4 ? c : k == 4 ? up : dn;
                const int np = k == 0 ? p + 1 : k == 1 ? p - 1 : k == 2 ? p + KCU_PLANE_H
                               : k == 3 ? p - KCU_PLANE_H : p;
                const double2 xc = xs[(ns * KCU_PLANE_SITES + np) * 8 + v];
                acc.x += hr * xc.x - hi * xc.y;
                acc.y += hr * xc.y + hi * xc.x;
            }
            if (!live)
                continue;
            double2 yr;
            if (s.first) {
                yr.x = s.ia * acc.x;
                yr.y = s.ia * acc.y;
                s0 += xr.x * xr.x + xr.y * xr.y;
            } else {
                const double2 yo = s.y[r * B + j];
                yr.x = 2.0 * s.ia * acc.x - yo.x;
                yr.y = 2.0 * s.ia * acc.y - yo.y;
            }
            s.y[r * B + j] = yr;
            s1 += yr.x * xr.x + yr.y * xr.y;
            s2 += yr.x * yr.x + yr.y * yr.y;
        }
        __syncthreads(); /* slot dn is the next plane's */
    }
    kcu_step_reduce(red, s0, s1, s2, 8);
    for (int i = tid; i < 3 * B; i += KCU_STEP_THREADS) {
        const int q = i / B, w = i - q * B;
        s.part[(size_t)blockIdx.x * 3 * B + i] = w / 8 == g ? red[q][w & 7] : 0.0;
    }
}

/* the plane kernel of d's rank, or NULL where it does not apply (not factorized on a 3D grid,
 * rank above 2) */
static const void *kcu_plane_kernel_of(const kcu_ham *d)
{
    if (d->frank < 0 || d->fdims != 3)
        return NULL;
    if (d->frank == 0)
        return (const void *)kcu_plane_kernel<0>;
    if (d->frank == 1)
        return (const void *)kcu_plane_kernel<1>;
    if (d->frank == 2)
        return (const void *)kcu_plane_kernel<2>;
    return NULL;
}

#endif
