/* kbe_cuda_direct.cu — second Born's row Sigma^lg(t_m, t_s), s = 0 .. m, by the seed's loops
 * over k1 and k3 (selfenergy_method = direct: O(Nk^2) per k, the benchmark's parity and the
 * FFT's oracle; kbe_selfenergy.c says the formula):
 *
 *   Sigma_pq(k) = U U' / nk^2 sum_{k1, k3} [A_pq(k1) A_p'q'(k3) B(kb) - A_pq'(k1) B(kb) A_p'q(k3)],
 *   kb = k1 + k3 - k (mod nk), B(kb) = B_q'p'(kb) = -conj(O_p'q'(kb)),
 *
 * A = G^<(t_m, t_s), O = G^>(t_m, t_s) for the lesser, the two swapped for the greater.
 *
 * Every term (k, k1, k3) of the seed is still summed (O(Nk^3) a time pair), regrouped so that
 * A(k1) leaves the sum over k3:
 *   Sigma_pq(k) = sum_k1 [A_pq(k1) X_c(k1, k) - A_pq'(k1) Y_c(k1, k)],  c = p'q',
 *   X_c = sum_k3 A_c(k3) B_c(kb),  Y_c = sum_k3 A_c~(k3) B_c(kb),  c~ = p'q (c's q flipped).
 * The band pairs c = 2g, 2g + 1 of one "group" g = p' share their loads: both A_2g(k3) and
 * A_2g+1(k3) multiply both B_2g(kb) and B_2g+1(kb), 4 complex multiply-adds (32 flops) a
 * (k, k1, k3) and group, 64 flops for the 4 band pairs where the seed's loop has 4 x 26.
 *
 * The work: a block per (s, k-tile of DIR_TK outputs, lesser/greater, group g); its warp w
 * holds DIR_R consecutive outputs k = k0 .. k0 + DIR_R - 1 (k0 = tile + DIR_R w), its lane a
 * k1.  In the loop over k3 every lane reads the same A(k3) (a shared-memory broadcast) and
 * its own B(k1 + k3 - k): lanes read consecutive addresses (no bank conflict), and since
 * B(k1 + (k3 + 1) - (k + 1)) = B(k1 + k3 - k) the DIR_R outputs slide along one window of
 * B in registers: one new B per band pair and k3 feeds DIR_R outputs.  Per k3 and warp:
 * 4 shared loads (2 broadcast, 2 of 512 bytes: 10 wavefronts) for 64 FP64 multiply-adds
 * (32 clocks of an SM's FP64 pipes): the loop is bound by FP64, not by shared memory.
 * A(k1) x X enters the lane's partial Sigma (kept in shared memory: the registers, 168 at
 * 3 blocks an SM, go to the k3 loop) at the end of each stage ("fold", 1/DIR_C3 of the
 * work); the lanes' partials meet at the end in a fixed butterfly (no atomics: the same bits
 * every run).
 *
 * Stages: shared memory holds DIR_C1 values of k1 and DIR_C3 of k3 at a time (A(k3), A(k1)
 * and the window of B they need; 24.5 KB with the partials: any nk, 3 blocks an SM); the
 * stages run over all k1 and k3.  B is staged with its index already reduced mod nk, so the
 * inner loop has no modulo; k3 past nk (the last stage's rounding up to DIR_R) reads A = 0
 * and adds exact zeros, k1 past nk has A(k1) = 0 in the fold, outputs k past nk are not
 * stored.  The summation order differs from the CPU's (rounding, not bits: tests/gpu holds
 * it to 1e-12).
 * The tiles are small on purpose: tests/gpu's case at Nk = 70 crosses every boundary (two
 * stages in k1 and in k3, a last k3 stage not a multiple of DIR_R, partial k-tiles, lanes
 * and warps past nk). */
#include "kbe_cuda_internal.cuh"

#define DIR_R 4                         /* outputs k a thread holds (the window of B) */
#define DIR_WARPS 4                     /* warps a block: one run of DIR_R outputs each */
#define DIR_THREADS (32 * DIR_WARPS)
#define DIR_TK (DIR_R * DIR_WARPS)      /* outputs k a block */
#define DIR_C1 64                       /* k1 a stage: two rounds of a warp's 32 lanes */
#define DIR_C3 64                       /* k3 a stage (a multiple of DIR_R) */
#define DIR_E (DIR_C1 + DIR_TK + DIR_C3) /* B's window a stage (the first C1 + TK + C3 - 2 read) */

/* z += a b (4 fused multiply-adds) */
__device__ __forceinline__ void cfma(cplx &z, cplx a, cplx b)
{
    z.x = fma(a.x, b.x, z.x);
    z.x = fma(-a.y, b.y, z.x);
    z.y = fma(a.x, b.y, z.y);
    z.y = fma(a.y, b.x, z.y);
}

/* z -= a b */
__device__ __forceinline__ void cfms(cplx &z, cplx a, cplx b)
{
    z.x = fma(-a.x, b.x, z.x);
    z.x = fma(a.y, b.y, z.x);
    z.y = fma(-a.x, b.y, z.y);
    z.y = fma(-a.y, b.x, z.y);
}

/* k mod nk in [0, nk) for any int k (C's % keeps the sign) */
__device__ __forceinline__ int wrap(int k, int nk)
{
    const int r = k % nk;
    return r < 0 ? r + nk : r;
}

/* One stage of one warp: its lanes' partial sums P[r][o][lane] (output k0 + r, band pair
 * 2 (1 - g) + o) gain the terms of the stage's k1 (n1 of them) and k3 (n3r, rounded up to
 * DIR_R; a3 is 0 past nk).  Lane l1 of a round is k1 = k1a + l1; bt[c][l1 + kofs + j - r]
 * is B_2g+c(k1 + k3 - k) for k3 = k3a + j, k = k0 + r (the block stages it so). */
__device__ __forceinline__ void stage_sums(const cplx (*a3)[DIR_C3], const cplx (*bt)[DIR_E],
                                           const cplx (*a1)[DIR_C1], int n1, int n3r, int kofs,
                                           int lane, cplx (*P)[2][32])
{
    const cplx zero = make_cuDoubleComplex(0.0, 0.0);
    for (int r1 = 0; r1 < n1; r1 += 32) { /* a round of 32 k1 (warp-uniform bound) */
        const int l1 = r1 + lane;
        const cplx *b0 = &bt[0][l1 + kofs], *b1 = &bt[1][l1 + kofs];
        /* Z[r][c][e] = sum_k3 A_2g+e(k3) B_2g+c(kb): X_c = Z[.][c][c], Y_c = Z[.][c][1 - c] */
        cplx Z[DIR_R][2][2];
#pragma unroll
        for (int r = 0; r < DIR_R; r++)
#pragma unroll
            for (int c = 0; c < 2; c++)
                Z[r][c][0] = Z[r][c][1] = zero;
        /* the window: V[c][i mod DIR_R] = B_2g+c at step i (= b_c[i]); output r at step j
         * reads step j - r, so the DIR_R - 1 steps before j = 0 are loaded first */
        cplx V[2][DIR_R];
#pragma unroll
        for (int t = 1; t < DIR_R; t++) {
            V[0][DIR_R - t] = b0[-t];
            V[1][DIR_R - t] = b1[-t];
        }
        for (int j = 0; j < n3r; j += DIR_R)
#pragma unroll
            for (int ph = 0; ph < DIR_R; ph++) { /* step j + ph: slots known at compile time */
                const cplx x0 = a3[0][j + ph], x1 = a3[1][j + ph];
                V[0][ph] = b0[j + ph];
                V[1][ph] = b1[j + ph];
#pragma unroll
                for (int r = 0; r < DIR_R; r++)
#pragma unroll
                    for (int c = 0; c < 2; c++) {
                        const cplx b = V[c][(ph - r + DIR_R) % DIR_R];
                        cfma(Z[r][c][0], x0, b);
                        cfma(Z[r][c][1], x1, b);
                    }
            }
        /* the fold: band pair pq = 2 (1 - g) + o takes c = p'q' = 2g + 1 - o (o = 1 - c),
         * A_pq(k1) X_c - A_pq'(k1) Y_c, pq' = 2 (1 - g) + c */
        const cplx f0 = a1[0][l1], f1 = a1[1][l1];
#pragma unroll
        for (int r = 0; r < DIR_R; r++) {
            cplx s0 = P[r][0][lane], s1 = P[r][1][lane];
            cfma(s1, f1, Z[r][0][0]);
            cfms(s1, f0, Z[r][0][1]);
            cfma(s0, f0, Z[r][1][1]);
            cfms(s0, f1, Z[r][1][0]);
            P[r][0][lane] = s0;
            P[r][1][lane] = s1;
        }
    }
}

__global__ void __launch_bounds__(DIR_THREADS, 3)
k_sigma_direct(int nk, size_t m, const double *U, const cplx *gl, const cplx *gg, cplx *sl,
               cplx *sg)
{
    __shared__ cplx a3[2][DIR_C3]; /* A_2g+e(k3a + j), 0 past nk */
    __shared__ cplx bt[2][DIR_E];  /* B_2g+c(e0 + i mod nk) */
    __shared__ cplx a1[2][DIR_C1]; /* A_2(1-g)+o(k1a + i), 0 past nk */
    /* each lane's partial sums over its k1, output k0 + r, band pair 2 (1 - g) + o: in
     * shared memory, not registers (touched once a round and stage; the registers go to
     * the k3 loop: 174 needed with them there, 168 allowed at 3 blocks an SM) */
    __shared__ cplx part[DIR_WARPS][DIR_R][2][32];
    const size_t s = blockIdx.x;
    const int kt0 = (int)blockIdx.y * DIR_TK, lesser = (int)blockIdx.z >> 1;
    const int g = (int)blockIdx.z & 1, warp = (int)threadIdx.x / 32;
    const int lane = (int)threadIdx.x % 32, k0 = kt0 + DIR_R * warp;
    /* the warp's offset in B's window: its last output k0 + DIR_R - 1 reads from
     * kofs - (DIR_R - 1) >= 0; the block's last output kt0 + DIR_TK - 1 from 0 */
    const int kofs = DIR_TK - 1 - DIR_R * warp;
    const size_t blk = line_pair(m, s) * 4 * (size_t)nk; /* (s, m) past m: a line */
    const cplx *A = (lesser ? gl : gg) + blk, *O = (lesser ? gg : gl) + blk;
    const cplx zero = make_cuDoubleComplex(0.0, 0.0);
    cplx(*P)[2][32] = part[warp]; /* each thread touches only its lane's: no barrier */
#pragma unroll
    for (int r = 0; r < DIR_R; r++)
        P[r][0][lane] = P[r][1][lane] = zero;
    for (int k1a = 0; k1a < nk; k1a += DIR_C1)
        for (int k3a = 0; k3a < nk; k3a += DIR_C3) {
            /* B's index at window position 0: k1a + k3a - (kt0 + DIR_TK - 1) */
            const int e0 = wrap(k1a + k3a - kt0 - (DIR_TK - 1), nk);
            __syncthreads(); /* the last stage's reads are done */
            for (int i = (int)threadIdx.x; i < DIR_E; i += DIR_THREADS) {
                const int kb = (e0 + i) % nk;
                for (int c = 0; c < 2; c++) {
                    const cplx o = O[(2 * g + c) * nk + kb];
                    bt[c][i] = make_cuDoubleComplex(-o.x, o.y); /* B = -conj(O) */
                }
            }
            for (int i = (int)threadIdx.x; i < DIR_C3; i += DIR_THREADS)
                for (int e = 0; e < 2; e++)
                    a3[e][i] = k3a + i < nk ? A[(2 * g + e) * nk + k3a + i] : zero;
            for (int i = (int)threadIdx.x; i < DIR_C1; i += DIR_THREADS)
                for (int o = 0; o < 2; o++)
                    a1[o][i] = k1a + i < nk ? A[(2 * (1 - g) + o) * nk + k1a + i] : zero;
            __syncthreads();
            const int n1 = min(DIR_C1, nk - k1a), n3 = min(DIR_C3, nk - k3a);
            if (k0 < nk) /* warp-uniform: a warp wholly past nk only stages */
                stage_sums(a3, bt, a1, n1, (n3 + DIR_R - 1) / DIR_R * DIR_R, kofs, lane, P);
        }
    if (k0 >= nk)
        return;
    /* the lanes' (k1's) partial sums, in a fixed butterfly order */
    cplx S[DIR_R][2];
#pragma unroll
    for (int r = 0; r < DIR_R; r++)
#pragma unroll
        for (int o = 0; o < 2; o++) {
            S[r][o] = P[r][o][lane];
#pragma unroll
            for (int d = 16; d > 0; d >>= 1) {
                S[r][o].x += __shfl_xor_sync(0xffffffffu, S[r][o].x, d);
                S[r][o].y += __shfl_xor_sync(0xffffffffu, S[r][o].y, d);
            }
        }
    if (lane != 0)
        return;
    const double norm = U[m] * U[s] / ((double)nk * (double)nk);
    cplx *out = (lesser ? sl : sg) + s * 4 * (size_t)nk;
#pragma unroll
    for (int r = 0; r < DIR_R; r++)
#pragma unroll
        for (int o = 0; o < 2; o++)
            if (k0 + r < nk)
                out[(2 * (1 - g) + o) * nk + k0 + r] = cscale(norm, S[r][o]);
}

int kbcu_sigma_direct(kbcu_dev *d, size_t m, size_t count, cplx *ol, cplx *og)
{
    const size_t nk = d->nk, tiles = (nk + DIR_TK - 1) / DIR_TK;
    if (tiles > 65535 || count > 0x7fffffff) /* the grid's y and x limits (int indices) */
        return mcf_fail(MCF_EINVAL, "kbe-cuda: the direct self-energy takes nk <= %d and "
                        "rows below 2^31 (nk %zu, row %zu): use the FFT", 65535 * DIR_TK, nk,
                        m);
    const dim3 grid((unsigned)count, (unsigned)tiles, 4); /* z: lesser/greater x group */
    k_sigma_direct<<<grid, DIR_THREADS, 0, mcu_stream()>>>((int)nk, m, d->U, d->gl, d->gg, ol,
                                                           og);
    return launched("the self-energy (direct)");
}
