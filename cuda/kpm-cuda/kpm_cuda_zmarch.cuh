/* kpm_cuda_zmarch.cuh — the marching step with each thread's column of x in registers
 * (kpm_cuda_step.cuh's translation unit only; included by it after the march's kernel).
 *
 * Factorized rows on a periodic L^3 grid, blocks of 8 or more vectors.  The march
 * (kcu_march_kernel) loads, for every (row, vector) a step: x at the row, its 6 neighbours,
 * the old y, and stores y -- 9 requests to the L1/TEX unit, which Nsight Compute found to be
 * the bound at 128^3 (81.6% of its peak at B = 64 with DRAM at 49.5%; docs/benchmarks.md).
 * Here a block owns one group of 8 vectors, an 8 x 4 tile of the x-y plane (one row a thread)
 * and a chunk of z planes, and each thread walks its column up the chunk keeping x(z - 1),
 * x(z) and x(z + 1) in registers: a step loads x(z + 1) (which is x(z) at the next plane and
 * the -z neighbour at the one after), the 4 in-plane neighbours and the old y, and stores y
 * -- 7 requests instead of 9.  With a field (rank FR >= 1, the double-exchange form) lane v
 * of a row forms the entry to neighbour v only and the row's 8 lanes exchange the 6 by
 * shuffles: the march formed every entry in every lane (6 where 1 suffices, and the field of
 * all 6 neighbours loaded by every lane); measured slower than the march with shared slots
 * all the same (80 registers; docs/benchmarks.md).  Every (row, vector) is formed in
 * kcu_row_product_fac's order (+x, -x, +y, -y, +z, -z) from the same numbers, so y is the march's bit for bit; the sums
 * add in another fixed order. */
#ifndef MCF_KPM_CUDA_ZMARCH_CUH
#define MCF_KPM_CUDA_ZMARCH_CUH

#define KCU_ZMARCH_TY 4 /* the tile: 8 x 4 sites, one a thread */
/* resident blocks an SM the registers allow: at 48 (5) rank 0 spilled, at 64 (4) ranks 1, 2 */
#define KCU_ZMARCH_MIN_BLOCKS(FR) ((FR) >= 1 ? 3 : 4)

template <int FR>
__global__ void __launch_bounds__(KCU_STEP_THREADS, KCU_ZMARCH_MIN_BLOCKS(FR))
    kcu_zmarch_kernel(kcu_step_args s, kcu_march m)
{
    __shared__ double red[3][KCU_STEP_THREADS];
    const int tid = threadIdx.x, B = s.B;
    int g, tile, chunk;
    kcu_march_begin(s, m, red[0], &g, &tile, &chunk);
    const int j = g * 8 + (tid & 7), t = tid >> 3;
    const int L = m.L, ix = (tile % m.ntx) * m.TX + t % m.TX,
              iy = (tile / m.ntx) * m.TY + t / m.TX;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    /* FR >= 1: every lane of the block runs the loop (a row's 8 lanes exchange its entries by
     * shuffles), those outside the grid or the block on the last site and vector, `live`
     * the ones whose (row, vector) is real; FR = 0: the live lanes only */
    const bool live = ix < L && iy < L && j < B;
    if (live || FR > 0) {
        const int jc = j < B ? j : B - 1, xc_ = ix < L ? ix : L - 1, yc_ = iy < L ? iy : L - 1;
        /* 32-bit offsets within a plane (the plan keeps L^3 below 2^31), 64-bit plane bases */
        const int rxy = xc_ + L * yc_;
        const int nb[4] = {xc_ == L - 1 ? rxy - (L - 1) : rxy + 1, /* kcu_fac_neighbours's */
                           xc_ == 0 ? rxy + (L - 1) : rxy - 1,     /* order in the plane */
                           yc_ == L - 1 ? rxy - L * (L - 1) : rxy + L,
                           yc_ == 0 ? rxy + L * (L - 1) : rxy - L};
        /* FR >= 1: lane v forms the entry of neighbour v < 6 (v = 6, 7 repeat 5) */
        const int v = tid & 7, nbv = v == 0 ? nb[0] : v == 1 ? nb[1] : v == 2 ? nb[2] : nb[3];
        const size_t plane = (size_t)L * (size_t)L;
        const int z0 = chunk * m.zc, z1 = min(z0 + m.zc, L);
        int zm = z0 == 0 ? L - 1 : z0 - 1;
        double2 xm = s.x[(plane * (size_t)zm + (size_t)rxy) * (size_t)B + (size_t)jc];
        double2 xc = s.x[(plane * (size_t)z0 + (size_t)rxy) * (size_t)B + (size_t)jc];
#pragma unroll 1
        for (int z = z0; z < z1; z++) {
            const int zp = z == L - 1 ? 0 : z + 1;
            const size_t pz = plane * (size_t)z; /* the plane's first row */
            const double2 *xz = s.x + pz * (size_t)B + (size_t)jc;
            const double2 xn = s.x[(plane * (size_t)zp + (size_t)rxy) * (size_t)B + (size_t)jc];
            const size_t r = pz + (size_t)rxy;
            double hrv = 0.0, hiv = 0.0; /* FR >= 1: this lane's entry */
            if (FR > 0) {
                const size_t cv = v < 4    ? pz + (size_t)nbv
                                  : v == 4 ? plane * (size_t)zp + (size_t)rxy
                                           : plane * (size_t)zm + (size_t)rxy;
                double2 ar[FR > 0 ? FR : 1], aj[FR > 0 ? FR : 1];
#pragma unroll
                for (int c = 0; c < FR; c++) {
                    ar[c] = s.field[r * FR + c];
                    aj[c] = s.field[cv * FR + c];
                }
                kcu_fac_hop<FR < 0 ? 0 : FR>(s.famp, ar, aj, &hrv, &hiv);
            }
            const double e = s.ons[r] - s.b;
            double2 acc;
            acc.x = e * xc.x;
            acc.y = e * xc.y;
#pragma unroll
            for (int k = 0; k < 6; k++) {
                double hr = s.famp, hi = 0.0;
                if (FR > 0) {
                    hr = __shfl_sync(0xffffffffu, hrv, k, 8);
                    hi = __shfl_sync(0xffffffffu, hiv, k, 8);
                } else {
                    kcu_fac_hop<0>(s.famp, NULL, NULL, &hr, &hi);
                }
                const double2 w = k < 4 ? xz[(size_t)nb[k] * (size_t)B] : k == 4 ? xn : xm;
                acc.x += hr * w.x - hi * w.y;
                acc.y += hr * w.y + hi * w.x;
            }
            if (live) {
                double2 yr;
                double2 *yp = s.y + r * (size_t)B + (size_t)j;
                if (s.first) {
                    yr.x = s.ia * acc.x;
                    yr.y = s.ia * acc.y;
                    s0 += xc.x * xc.x + xc.y * xc.y;
                } else {
                    const double2 yo = *yp;
                    yr.x = 2.0 * s.ia * acc.x - yo.x;
                    yr.y = 2.0 * s.ia * acc.y - yo.y;
                }
                *yp = yr;
                s1 += yr.x * xc.x + yr.y * xc.y;
                s2 += yr.x * yr.x + yr.y * yr.y;
            }
            xm = xc;
            xc = xn;
            zm = z;
        }
    }
    kcu_march_end(s, red, s0, s1, s2, g);
}

/* the kernel for factorized rows of rank FR on an L^3 grid */
static const void *kcu_zmarch_kernel_of(const kcu_ham *d)
{
    return d->frank == 0   ? (const void *)kcu_zmarch_kernel<0>
           : d->frank == 1 ? (const void *)kcu_zmarch_kernel<1>
                           : (const void *)kcu_zmarch_kernel<2>;
}

#endif
