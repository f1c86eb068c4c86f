/* kpm_cuda_gfmc_kernel.cu — the GFMC persistent kernel (kcu_gfmc_kernel) and its launch:
 * one launch per batch of changes, one cluster of G thread blocks per chain (kpm_cuda.h
 * describes the method).  In one launch: the chain's pending row updates, the 4 start
 * vectors, the M_tot / 2 Chebyshev steps with one cluster barrier each, the moments; then
 * either (moments only) the end, or the contour (kpm_cuda_contour.cuh), or the real axis:
 * the Green's functions at the N nodes, d(E) = det(1 - C W(E)), the unwrapped phase and
 * the Fermi-weighted sum dS.  The launch chooses what lives in shared memory and the
 * instantiation (width, where H and the vectors are read).  The host side (scratch, the
 * batch's tasks, results) is kpm_cuda_gfmc.cu.  The contour finish is a separate file,
 * kpm_cuda_contour.cuh, included here: without relocatable device code the kernel and
 * everything it calls share one translation unit. */
#include "kpm_cuda_internal.cuh"
#include "kpm_cuda_by_vector.cuh"
#include "kpm_cuda_contour.cuh"

#include <float.h>
#include <math.h>

/* One Chebyshev step of a block's rows [r0, r1) for the KCU_NV GFMC vectors: y = 2 H~ x -
 * y (first step: y = H~ x), and the block's dot products into s0, s1, s2.  MODE 0: H and
 * the vectors in global memory; 1: the block's rows of H in shared memory; 2: the vectors
 * too, each block holding its own rows (local index r - r0), gathers through the cluster's
 * distributed shared memory; 3: one block per chain, H and the vectors in its shared
 * memory (4: the same, the recursion by vector instead, kcu_gfmc_by_vector). */
template <int WT, int MODE>
__device__ __forceinline__ void kcu_gfmc_step(const kcu_task *T, const int32_t *col,
                                              const double *hre, const double *him,
                                              const double *ons, long long hs, long long r0,
                                              long long r1, const double2 *__restrict__ x,
                                              double2 *__restrict__ y, bool first, int G,
                                              double *s0, double *s1, double *s2)
{
    const double ia = T->ia, shift = T->b;
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
        for (int j = 0; j < KCU_NV; j++)
            y[kcu_vidx(vr, j)] =
                kcu_cheb_next(first, ia, acc[j], xr[j], yo[j], &s0[j], &s1[j], &s2[j]);
    }
}

/* Entry (r, j) of the start vectors of a trace task (KCU_START_UNITS, _PHASES, _GAUSS), 0
 * for a change's (whose entries are added afterwards).  Random entries as the DOS engine
 * draws them (kcu_random_entry), so the same seed gives the same vectors. */
static __device__ double2 kcu_start_entry(const kcu_task *T, long long r, int j)
{
    if (T->start == KCU_START_UNITS)
        return make_double2(T->start_row[j] == r ? 1.0 : 0.0, 0.0);
    if (T->start == KCU_START_CHANGE || j >= T->start_n)
        return make_double2(0.0, 0.0);
    return kcu_random_entry(T->seed, T->first + (unsigned long long)j, r,
                            T->start == KCU_START_GAUSS);
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
        L.phase_ns[0] = kcu_timer_ns();

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
    for (int q = g; q < T->upd_count; q += G)
        kcu_apply_row_update(upd + T->upd_first + q);
    for (long long r = r0 + tid; r < r1; r += blockDim.x)
        for (int j = 0; j < KCU_NV; j++)
            v0[kcu_vidx(r - voff, j)] = kcu_start_entry(T, r, j);
    __syncthreads();
    if (tid == 0 && T->start == KCU_START_CHANGE) {
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
        double *s_re = kcu_dyn_smem, *s_im = s_re + (long long)W * nr;
        double *s_on = s_im + (long long)W * nr;
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
     *    wred[n & 1] and are written out by warp 0 at the next step (or by vector: each
     *    warp's lane 0 writes its vector's sums) */
    double2 *cur = v0, *old = v1;
    if constexpr (MODE == 4) {
        kcu_gfmc_by_vector<WT>(T, col, hre, him, ons, hs, v0, v1);
        __syncthreads();
    }
    for (int n = 1; MODE != 4 && n <= T->K; n++) {
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
    if (MODE != 4 && warp == 0 && lane < KCU_NS) {
        double s = 0.0;
        for (int w = 0; w < nwarps; w++)
            s += wred[T->K & 1][w][lane];
        T->part[((size_t)(T->K - 1) * G + g) * KCU_NS + lane] = s;
    }
    kcu_group_sync(G);
    if (timer)
        L.phase_ns[1] = kcu_timer_ns();

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
            L.phase_ns[2] = L.phase_ns[3] = kcu_timer_ns();
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
        L.phase_ns[2] = kcu_timer_ns();

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
            L.phase_ns[3] = kcu_timer_ns();
    }
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

cudaError_t kcu_gfmc_launch_kernel(cudaLaunchConfig_t *cfg, const kcu_task *tasks, size_t n,
                                   int G, size_t maxdim, const kcu_task *tasks_dev,
                                   const kcu_row_update *upd_dev, unsigned long long *phase_dev,
                                   const kcu_gfmc_settings *s, kcu_gfmc_info *info)
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
    L.phase_ns = phase_dev;
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
    L.fft = same && L.mu_smem && (Lf & (Lf - 1)) == 0 && fft_end <= KCU_SMEM_MAX && s->fft;
    if (L.fft && fft_end > smem)
        smem = fft_end;
    if (L.h_smem && h_bytes > smem)
        smem = h_bytes;
    /* on small lattices each block's rows of the vectors fit beside its rows of H */
    L.v_rows = (L.h_rows + 31) / 32 * 32; /* tiles of 32 rows */
    L.v_off = (long long)((h_bytes + 15) / 16 * 16);
    const size_t v_bytes = 2 * (size_t)L.v_rows * KCU_NV * sizeof(double2);
    L.v_smem = L.h_smem && h_bytes + v_bytes <= KCU_SMEM_MAX && s->shared_vectors;
    if (L.v_smem && h_bytes + v_bytes > smem)
        smem = h_bytes + v_bytes;
    cfg->dynamicSmemBytes = smem;
    const int WT = wmin == wmax && (wmax == 6 || wmax == 7) ? wmax : 0;
    info->cluster = G;
    info->h_shared = L.h_smem;
    info->v_shared = L.v_smem;
    info->fft = L.fft;
    /* by vector: one block per chain with everything on the chip, one width (6 or 7), and
     * at most KCU_BY_VECTOR_ROWS rows (each lane then has one or two) */
    info->by_vector = s->by_vector && L.v_smem && G == 1 && WT > 0 &&
                      maxdim <= KCU_BY_VECTOR_ROWS;
    if (info->by_vector)
        return WT == 6 ? kcu_gfmc_launch_as<6, 4>(cfg, G, tasks_dev, upd_dev, L)
                       : kcu_gfmc_launch_as<7, 4>(cfg, G, tasks_dev, upd_dev, L);
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
