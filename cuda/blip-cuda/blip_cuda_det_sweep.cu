/* blip_cuda_det_sweep.cu — the kernel of whole particle-by-particle Metropolis sweeps of
 * Slater-Jastrow walkers (the walker_sweep op of mcf/orbital.h; blip_cuda_walker_sweep.cu
 * stages it) and its launch: a cluster of C thread blocks (C = 1, 2, 4 or 8) per walker
 * runs all N moves of its sweep, deciding each from the walker's own stream
 * (mcf/rng_device.h), with no round trip to the host per move.  All walkers of a call are
 * one launch; C is as large as the device's multiprocessors allow (one walker: 8 blocks on
 * 8 multiprocessors; 128 walkers: one block each).
 *
 * Per move (electron e = row i of spin s, m electrons of that spin, p moves pending in the
 * window of the delayed update, sj_delayed.h's notation):
 *   the sums  R_0 = v . Ainv[:, i],  x_b = v . P_b,  b_a = V_a . Ainv[:, i]  (v the trial
 *   row, P_b the column of Ainv of pending row b, V_a the trial row of pending move a) and
 *   the Jastrow sums over the other electrons  sum_j u(|r_e' - r_j|), sum_j u(|r_e - r_j|)
 *   are cut into items of 32 consecutive rows or electrons, each summed in a fixed order (a
 *   thread in row order, a warp's shuffle tree), spread over the cluster's blocks and
 *   written into every block's shared memory (distributed shared memory); after the
 *   cluster's barrier every block adds them in item order.  So every block gets the same
 *   bits, whatever C: a run's numbers do not depend on how many walkers share the device
 *   (or on the number of GPUs).  R = R_0 - x^T S^-1 b; log ratio = 2 log |R| + 2 (J' - J);
 *   warp 0 of each block decides (mcf_metropolis_accept, the same draw in every block).
 *   Accepting borders S^-1 (its Schur complement is R: O(p^2)) and keeps v and
 *   Ainv[:, i]; no O(m^2) work.
 *   After k accepted moves, and at the end of each spin's moves, the window is applied:
 *   Q = V^T Ainv - E^T and Ainv -= P (S^-1 Q), in chunks of 32 columns spread over the
 *   cluster, a warp per eighth of the rows (sw_flush); the sums per column again in a
 *   fixed order.  So an accepted move costs O(m), and the O(m^2) traffic is 3 passes over
 *   Ainv per k accepted moves instead of 3 per move (the rank-1 update, k = 1).
 * Three barriers per move: the cluster's after the items, the block's after the sums and
 * after the decision.  A run repeats bit for bit on the same device.  The ratios equal the
 * host's (sj_determinants.c, sj_delayed.c) up to rounding; a decision can differ only where
 * the uniform lies within that rounding of e^{log ratio}.  Compiled with -DBCU_SWEEP_CLOCK,
 * block 0 prints the cycles of each phase of its sweep (how docs/benchmarks.md's breakdown
 * was measured). */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"
#include "mcf/pair_function.h"
#include "mcf/rng_device.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#ifdef BCU_SWEEP_CLOCK
#include <stdio.h>
#endif
#include <stdlib.h>
#include <string.h>

#define SW_THREADS 256
#define SW_WARPS (SW_THREADS / 32)
#define SW_SLOTS (SWEEP_M_MAX / SW_THREADS) /* elements of a row per thread */
#define SW_CLUSTER_MAX 8 /* blocks per walker (the portable cluster size) */
#define SW_STATIC_SHARED 1024 /* bytes kept from the dynamic share: the kernel's own */
#ifdef BCU_SWEEP_CLOCK
#define SW_CLK(q) do { if (tid == 0) { long long t_ = clock64(); ph[q] += t_ - t_last; \
    t_last = t_; } } while (0)
#else
#define SW_CLK(q) do { } while (0)
#endif

/* the nearest-image distance of a and b in the orthorhombic cell (sj_jastrow.c's min_image) */
static __device__ __forceinline__ double sw_distance(const double *a, const double *b,
                                                     const double *cell)
{
    double s2 = 0.0;
#pragma unroll
    for (int d = 0; d < 3; d++) {
        double x = a[d] - b[d];
        x -= cell[d] * nearbyint(x / cell[d]);
        s2 += x * x;
    }
    return sqrt(s2);
}

static __device__ __forceinline__ double sw_warp_sum(double x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, o);
    return x;
}

/* the shared memory of a block, in doubles from the start: pair functions, positions, the
 * window's V and P (K rows of ld = m_max), S^-1, y, z, the move's sums, the items of two
 * moves (G of the dot sums, GJ of the Jastrow's), the trial row and column of two moves,
 * the flush's scratch */
struct sw_layout {
    unsigned int pos, V, P, Sinv, yv, zv, res, ditem, jitem, stage, scr, total;
    unsigned int G, GJ;
};

static __host__ __device__ sw_layout sw_layout_of(unsigned int K, unsigned int m_max,
                                                  unsigned int n_max)
{
    sw_layout o;
    const unsigned int nv = 3 + 2 * K;
    o.G = (m_max + 31) / 32;
    o.GJ = (n_max + 31) / 32;
    o.pos = 2 * sizeof(mcf_pair_function) / sizeof(double);
    o.V = o.pos + 3 * n_max;
    o.P = o.V + K * m_max;
    o.Sinv = o.P + K * m_max;
    o.yv = o.Sinv + K * K;
    o.zv = o.yv + K;
    o.res = o.zv + K;
    o.ditem = o.res + nv;
    o.jitem = o.ditem + 2 * o.G * nv;
    o.stage = o.jitem + 2 * 2 * o.GJ;
    o.scr = o.stage + 2 * 2 * m_max;
    o.total = o.scr + SW_WARPS * K * 32;
    return o;
}

/* the walker's blocks: rank c of C (C = 1 without a cluster) */
struct sw_team {
    unsigned int c, C;
    __device__ void sync() const
    {
        if (C > 1)
            cooperative_groups::this_cluster().sync();
        else
            __syncthreads();
    }
    /* x into *p of every block's shared memory (seen there after the next sync) */
    __device__ void put(double *p, double x) const
    {
        if (C == 1) {
            *p = x;
            return;
        }
        cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
        for (unsigned int r = 0; r < C; r++)
            *cl.map_shared_rank(p, r) = x;
    }
};

/* Applies the p pending moves of the window to Ainv (m x m): Q = V^T Ainv - E^T, T = S^-1 Q,
 * Ainv -= P T.  Chunks of 32 columns, chunk q by block q mod C; in a chunk, lane = column
 * and warp w takes the rows l = w (mod 8): Q's sums per column in that order whatever C.
 * scr: SW_WARPS K 32 doubles.  Ends with the cluster's barrier (Ainv is whole again). */
template <int K>
static __device__ void sw_flush(double *Ainv, unsigned int m, unsigned int ld, int p,
                                const double *V, const double *P, const double *Sinv,
                                const unsigned int *row, double *scr, sw_team T)
{
    const unsigned int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned int chunks = (m + 31) / 32;
    for (unsigned int ch = T.c; ch < chunks; ch += T.C) {
        const unsigned int j = 32 * ch + lane;
        double q[K];
#pragma unroll
        for (int a = 0; a < K; a++)
            q[a] = 0.0;
        if (j < m) {
#pragma unroll 4
            for (unsigned int l = warp; l < m; l += SW_WARPS) {
                const double x = Ainv[(size_t)l * m + j];
#pragma unroll
                for (int a = 0; a < K; a++)
                    if (a < p)
                        q[a] += V[a * ld + l] * x;
            }
        }
#pragma unroll
        for (int a = 0; a < K; a++)
            if (a < p)
                scr[(warp * K + a) * 32 + lane] = q[a];
        __syncthreads();
        for (unsigned int t = tid; t < (unsigned int)p * 32; t += SW_THREADS) {
            const unsigned int a = t >> 5, cl = t & 31; /* Q[a][cl], into scr row 0 */
            double x = 0.0;
#pragma unroll
            for (int w = 0; w < SW_WARPS; w++)
                x += scr[(w * K + a) * 32 + cl];
            if (row[a] == 32 * ch + cl)
                x -= 1.0;
            scr[a * 32 + cl] = x;
        }
        __syncthreads();
        for (unsigned int t = tid; t < (unsigned int)p * 32; t += SW_THREADS) {
            const unsigned int a = t >> 5, cl = t & 31; /* (S^-1 Q)[a][cl], into scr row 1 */
            double x = 0.0;
            for (int b = 0; b < p; b++)
                x += Sinv[a * K + b] * scr[b * 32 + cl];
            scr[(K + a) * 32 + cl] = x;
        }
        __syncthreads();
        double t[K];
#pragma unroll
        for (int a = 0; a < K; a++)
            t[a] = a < p ? scr[(K + a) * 32 + lane] : 0.0;
        if (j < m) {
#pragma unroll 4
            for (unsigned int l = warp; l < m; l += SW_WARPS) {
                double d = 0.0;
#pragma unroll
                for (int a = 0; a < K; a++)
                    if (a < p)
                        d += P[a * ld + l] * t[a];
                Ainv[(size_t)l * m + j] -= d;
            }
        }
        __syncthreads(); /* scr is the next chunk's */
    }
    T.sync();
}

template <int K>
__global__ void __launch_bounds__(SW_THREADS, 1)
    sw_kernel(const sweep_job *jobs, sweep_out *out, const mcf_pair_function *upair,
              double cx, double cy, double cz, unsigned int m_max, unsigned int n_max,
              unsigned int C)
{
    constexpr int NV = 3 + 2 * K; /* R_0, J', J, x_0..x_{K-1}, b_0..b_{K-1} */
    extern __shared__ double sm[];
    sw_team T;
    T.C = C;
    T.c = C > 1 ? cooperative_groups::this_cluster().block_rank() : 0;
    const sweep_job &J = jobs[blockIdx.x / C];
    const unsigned int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned int n = J.n, ld = m_max;
    const sw_layout o = sw_layout_of(K, m_max, n_max);
    mcf_pair_function *su = (mcf_pair_function *)sm;
    double *pos = sm + o.pos, *V = sm + o.V, *P = sm + o.P, *Sinv = sm + o.Sinv;
    double *yv = sm + o.yv, *zv = sm + o.zv, *res = sm + o.res, *scr = sm + o.scr;
    __shared__ unsigned int s_row[K];
    __shared__ int s_acc, s_stop;
    const double cell[3] = {cx, cy, cz};
    /* the rows of A this block writes: warp w holds rows 32 (w + 8 k) + lane */
    const bool own_rows = warp % C == T.c;

    for (unsigned int q = tid; q < 2 * sizeof(mcf_pair_function) / sizeof(double);
         q += SW_THREADS)
        ((double *)su)[q] = ((const double *)upair)[q];
    for (unsigned int q = tid; q < 3 * n; q += SW_THREADS)
        pos[q] = J.pos[q];
    const double *tpos = J.pos + 3 * (size_t)n;
    mcf_rng rng;
    if (tid == 0) {
        rng = J.rng;
        s_stop = 0;
    }
    unsigned int accepted = 0, bad = 0;
    int stop = 0;
    __syncthreads();
#ifdef BCU_SWEEP_CLOCK
    long long ph[8] = {0}, t_last = clock64();
#endif

    unsigned int e = 0;
    for (int s = 0; s < 2 && !stop; s++) {
        const unsigned int m = J.m[s], L = J.L[s];
        double *Ainv = J.Ainv[s], *A = J.A[s];
        const double *trial = J.trial[s];
        int p = 0; /* the same in every thread */
        /* this move's trial row v and column Ainv[:, i] in registers (element l = tid + k
         * SW_THREADS in slot k), the next move's loaded while this one is decided */
        double vr[SW_SLOTS], cr[SW_SLOTS], vn[SW_SLOTS], cn[SW_SLOTS];
#pragma unroll
        for (int k = 0; k < SW_SLOTS; k++) {
            const unsigned int l = tid + k * SW_THREADS;
            vr[k] = l < m ? trial[l] : 0.0;
            cr[k] = l < m ? Ainv[(size_t)l * m] : 0.0;
            if (l < m) {
                sm[o.stage + (e & 1) * 2 * ld + l] = vr[k];
                sm[o.stage + (e & 1) * 2 * ld + ld + l] = cr[k];
            }
        }
        __syncthreads();
        const unsigned int Gs = (m + 31) / 32, GJ = (n + 31) / 32;
        for (unsigned int i = 0; i < m; i++, e++) {
            double *ditem = sm + o.ditem + (e & 1) * o.G * NV;
            double *jitem = sm + o.jitem + (e & 1) * 2 * o.GJ;
            const double *vs = sm + o.stage + (e & 1) * 2 * ld, *cs = vs + ld;
            /* this move's v and column as the window's next row, kept if it is accepted
             * (each thread its own elements; read after the move's barriers) */
#pragma unroll
            for (int k = 0; k < SW_SLOTS; k++) {
                const unsigned int l = tid + k * SW_THREADS;
                if (l < m) {
                    V[p * ld + l] = vr[k];
                    P[p * ld + l] = cr[k];
                }
            }
            /* the dot sums: item g (rows 32 g ...) of this block's, one thread a sum, from
             * warp 4 on (the Jastrow's items start at warp 0) */
            const unsigned int nq = 1 + 2 * p, ng = (Gs + T.C - 1 - T.c) / T.C;
            for (unsigned int t = (tid + SW_THREADS / 2) % SW_THREADS; t < ng * nq;
                 t += SW_THREADS) {
                const unsigned int g = T.c + T.C * (t / nq), q = t % nq;
                const double *a, *b;
                unsigned int slot;
                if (q == 0) {
                    a = vs, b = cs, slot = 0; /* R_0 */
                } else if (q <= (unsigned int)p) {
                    a = vs, b = P + (q - 1) * ld, slot = 3 + q - 1; /* x_b */
                } else {
                    a = V + (q - 1 - p) * ld, b = cs, slot = 3 + K + q - 1 - p; /* b_a */
                }
                const unsigned int l1 = min(32 * g + 32, m);
                double x = 0.0;
                for (unsigned int l = 32 * g; l < l1; l++)
                    x += a[l] * b[l];
                T.put(ditem + g * NV + slot, x);
            }
            const unsigned int inext = i + 1 < m ? i + 1 : i;
#pragma unroll
            for (int k = 0; k < SW_SLOTS; k++) { /* the next move's, in flight meanwhile */
                const unsigned int l = tid + k * SW_THREADS;
                vn[k] = l < m ? trial[(size_t)inext * L + l] : 0.0;
                cn[k] = l < m ? Ainv[(size_t)l * m + inext] : 0.0;
            }
            const double te[3] = {tpos[3 * e], tpos[3 * e + 1], tpos[3 * e + 2]};
            const double oe[3] = {pos[3 * e], pos[3 * e + 1], pos[3 * e + 2]};
            for (unsigned int r = warp; T.c + T.C * r < GJ; r += SW_WARPS) {
                const unsigned int g = T.c + T.C * r, j = 32 * g + lane; /* item g */
                double jt = 0.0, jo = 0.0;
                if (j < n && j != e) {
                    const mcf_pair_function *u = &su[(j < J.m[0]) == (s == 0) ? 0 : 1];
                    jt = mcf_pair_value(u, sw_distance(te, pos + 3 * j, cell));
                    jo = mcf_pair_value(u, sw_distance(oe, pos + 3 * j, cell));
                }
                jt = sw_warp_sum(jt);
                jo = sw_warp_sum(jo);
                if (lane == 0) {
                    T.put(jitem + 2 * g, jt);
                    T.put(jitem + 2 * g + 1, jo);
                }
            }
            SW_CLK(0);
            T.sync(); /* every block's items written */
            SW_CLK(1);
            if (tid < NV && !((tid >= 3 + p && tid < 3 + K) || tid >= 3 + K + p)) {
                double t = 0.0;
                if (tid == 1 || tid == 2) {
#pragma unroll 4
                    for (unsigned int g = 0; g < GJ; g++)
                        t += jitem[2 * g + tid - 1];
                } else {
#pragma unroll 4
                    for (unsigned int g = 0; g < Gs; g++)
                        t += ditem[g * NV + tid];
                }
                res[tid] = t;
            }
            __syncthreads();
            SW_CLK(2);
            if (warp == 0) {
                if ((int)lane < p) { /* y = S^-1 b, z^T = x^T S^-1 */
                    double ya = 0.0, za = 0.0;
#pragma unroll
                    for (int b = 0; b < K; b++)
                        if (b < p) {
                            ya += Sinv[lane * K + b] * res[3 + K + b];
                            za += res[3 + b] * Sinv[b * K + lane];
                        }
                    yv[lane] = ya;
                    zv[lane] = za;
                }
                __syncwarp();
                if (lane == 0) {
                    double R = res[0];
#pragma unroll
                    for (int b = 0; b < K; b++)
                        if (b < p)
                            R -= res[3 + b] * yv[b];
                    double lr = R == 0.0 ? -INFINITY : 2.0 * log(fabs(R));
                    lr += 2.0 * (res[1] - res[2]);
                    int a = 0;
                    if (isnan(lr))
                        s_stop = 1;
                    else
                        a = mcf_metropolis_accept(&rng, lr);
                    if (T.c == 0) {
                        J.lr[e] = lr;
                        J.acc[e] = (unsigned char)a;
                    }
                    s_acc = a;
                    res[0] = R;
                    if (a) {
                        pos[3 * e] = te[0];
                        pos[3 * e + 1] = te[1];
                        pos[3 * e + 2] = te[2];
                    }
                }
            }
            { /* the next move's row and column (warp 0 after its decision) */
                double *vs1 = sm + o.stage + ((e + 1) & 1) * 2 * ld;
#pragma unroll
                for (int k = 0; k < SW_SLOTS; k++) {
                    const unsigned int l = tid + k * SW_THREADS;
                    if (l < m) {
                        vs1[l] = vn[k];
                        vs1[ld + l] = cn[k];
                    }
                }
            }
            __syncthreads();
            SW_CLK(3);
            if (s_stop) {
                stop = 1;
                bad = e;
                break;
            }
            if (!s_acc) {
#pragma unroll
                for (int k = 0; k < SW_SLOTS; k++) {
                    vr[k] = vn[k];
                    cr[k] = cn[k];
                }
                continue;
            }
            const double R = res[0], is = 1.0 / R;
            const int p1 = p + 1;
            for (int q = tid; q < p1 * p1; q += SW_THREADS) { /* border S^-1 */
                const int a = q / p1, b = q % p1;
                if (a < p && b < p)
                    Sinv[a * K + b] += yv[a] * zv[b] * is;
                else if (a < p)
                    Sinv[a * K + p] = -yv[a] * is;
                else if (b < p)
                    Sinv[p * K + b] = -zv[b] * is;
                else
                    Sinv[p * K + p] = is;
            }
#pragma unroll
            for (int k = 0; k < SW_SLOTS; k++) { /* the new row of A */
                const unsigned int l = tid + k * SW_THREADS;
                if (l < m && own_rows)
                    A[(size_t)i * m + l] = vr[k];
            }
            if (tid == 0)
                s_row[p] = i;
            p++;
            accepted++;
            SW_CLK(4);
            if (p == K) {
                __syncthreads();
                sw_flush<K>(Ainv, m, ld, p, V, P, Sinv, s_row, scr, T);
                p = 0;
#pragma unroll
                for (int k = 0; k < SW_SLOTS; k++) { /* the column changed */
                    const unsigned int l = tid + k * SW_THREADS;
                    cn[k] = l < m ? Ainv[(size_t)l * m + inext] : 0.0;
                    if (l < m)
                        sm[o.stage + ((e + 1) & 1) * 2 * ld + ld + l] = cn[k];
                }
                __syncthreads();
                SW_CLK(5);
            }
#pragma unroll
            for (int k = 0; k < SW_SLOTS; k++) {
                vr[k] = vn[k];
                cr[k] = cn[k];
            }
        }
        if (p && !stop) {
            __syncthreads();
            sw_flush<K>(Ainv, m, ld, p, V, P, Sinv, s_row, scr, T);
        }
        SW_CLK(5);
    }
#ifdef BCU_SWEEP_CLOCK
    if (tid == 0 && blockIdx.x == 0)
        printf("sweep clock K=%d C=%u n=%u acc=%u: moves %lld items %lld sums %lld decide "
               "%lld accept %lld flush %lld (cycles)\n", K, C, n, accepted, ph[0], ph[1],
               ph[2], ph[3], ph[4], ph[5]);
#endif
    if (tid == 0 && T.c == 0) {
        out[blockIdx.x / C].rng = rng;
        out[blockIdx.x / C].status = stop;
        out[blockIdx.x / C].accepted = accepted;
        out[blockIdx.x / C].bad = bad;
    }
    T.sync(); /* no block leaves while another may read its items */
}

/* ---- the launch ---------------------------------------------------------------------- */

/* the largest window <= want (a power of 2, <= BCU_SWEEP_DELAY_MAX) whose shared memory fits
 * the device's limit per block; 0 when not even k = 1 fits */
static unsigned int sw_window(size_t want, unsigned int m_max, unsigned int n_max,
                              size_t limit)
{
    unsigned int K = BCU_SWEEP_DELAY_MAX;
    while (K > want && K > 1)
        K /= 2;
    while (K >= 1 && (size_t)sw_layout_of(K, m_max, n_max).total * sizeof(double) > limit)
        K /= 2;
    return K;
}

unsigned int sweep_window(size_t delay, unsigned int m_max, unsigned int n_max)
{
    const size_t limit = mcu_props()->sharedMemPerBlockOptin - SW_STATIC_SHARED;
    return sw_window(delay ? delay : BCU_SWEEP_DELAY_DEFAULT, m_max, n_max, limit);
}

/* Launches nw walkers in clusters of C blocks; C = 0: the largest C <= SW_CLUSTER_MAX with
 * nw C blocks on the device's multiprocessors, a cluster of them resident. */
template <int K>
static cudaError_t sw_launch(unsigned int nw, const sweep_job *jobs, sweep_out *out,
                             const mcf_pair_function *u, const double cell[3],
                             unsigned int m_max, unsigned int n_max, unsigned int C,
                             unsigned int *used)
{
    const size_t bytes = (size_t)sw_layout_of(K, m_max, n_max).total * sizeof(double);
    cudaError_t e = cudaFuncSetAttribute(sw_kernel<K>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)bytes);
    if (e != cudaSuccess)
        return e;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(SW_THREADS);
    cfg.dynamicSmemBytes = bytes;
    cfg.stream = bcu_stream;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    const unsigned int sms = (unsigned int)mcu_props()->multiProcessorCount;
    unsigned int c = C ? C : SW_CLUSTER_MAX;
    for (; c > 1; c /= 2) {
        if (!C && (size_t)nw * c > sms)
            continue;
        at[0].val.clusterDim.x = c;
        cfg.gridDim = dim3(nw * c);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, sw_kernel<K>, &cfg) == cudaSuccess &&
            clusters > 0)
            break;
        (void)cudaGetLastError();
        if (C)
            return cudaErrorInvalidClusterSize;
    }
    at[0].val.clusterDim.x = c;
    cfg.gridDim = dim3(nw * c);
    *used = c;
    return cudaLaunchKernelEx(&cfg, sw_kernel<K>, jobs, out, u, cell[0], cell[1], cell[2],
                              m_max, n_max, c);
}

int sweep_launch(unsigned int K, unsigned int nw, const sweep_job *jobs, sweep_out *out,
                 const mcf_pair_function *u, const double cell[3], unsigned int m_max,
                 unsigned int n_max, unsigned int blocks, unsigned int *used)
{
    switch (K) {
    case 1: return sw_launch<1>(nw, jobs, out, u, cell, m_max, n_max, blocks, used);
    case 2: return sw_launch<2>(nw, jobs, out, u, cell, m_max, n_max, blocks, used);
    case 4: return sw_launch<4>(nw, jobs, out, u, cell, m_max, n_max, blocks, used);
    case 8: return sw_launch<8>(nw, jobs, out, u, cell, m_max, n_max, blocks, used);
    case 16: return sw_launch<16>(nw, jobs, out, u, cell, m_max, n_max, blocks, used);
    case 32: return sw_launch<32>(nw, jobs, out, u, cell, m_max, n_max, blocks, used);
    default: return cudaErrorInvalidValue;
    }
}
