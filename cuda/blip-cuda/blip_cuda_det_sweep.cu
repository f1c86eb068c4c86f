/* blip_cuda_det_sweep.cu — whole particle-by-particle Metropolis sweeps of Slater-Jastrow
 * walkers on the device (the walker_sweep op of mcf/orbital.h): one thread block per
 * walker runs all N moves of its sweep, deciding each from the walker's own stream
 * (mcf/rng_device.h), with no round trip to the host per move.  All walkers of a call are
 * one launch.
 *
 * Per move (electron e = row i of spin s, m electrons of that spin, p moves pending in the
 * window of the delayed update, sj_delayed.h's notation):
 *   the block reads the trial row v (det_trial's, on the device) and column i of Ainv, and
 *   reduces in one pass (fixed order)  R_0 = v . Ainv[:, i],  x_b = v . P_b,
 *   b_a = V_a . Ainv[:, i]  (P_b = the column of Ainv of pending row b and V_a the trial row
 *   of pending move a, both kept in shared memory), and the Jastrow sums over the other
 *   electrons sum_j u(|r_e' - r_j|) and sum_j u(|r_e - r_j|) (positions in shared memory);
 *   R = R_0 - x^T S^-1 b;  log ratio = 2 log |R| + 2 (J' - J);  thread 0 decides
 *   (mcf_metropolis_accept).  Accepting borders S^-1 (its Schur complement is R: O(p^2))
 *   and keeps v and Ainv[:, i]; no O(m^2) work.
 *   After k accepted moves, and at the end of each spin's moves, the window is applied:
 *   Q = V^T Ainv - E^T (one read of Ainv) and Ainv -= P (S^-1 Q) (one read and one write),
 *   each thread a column j of Ainv (coalesced across the block), Q's and S^-1 Q's column
 *   in registers.  So an accepted move costs O(m) and the O(m^2) traffic is 3 passes over
 *   Ainv per k accepted moves instead of 3 per move (the rank-1 update, k = 1).
 * Reductions run in a fixed order: a run repeats bit for bit on the same device.  The
 * ratios equal the host's (sj_determinants.c, sj_delayed.c) up to rounding; a decision can
 * differ only where the uniform lies within that rounding of e^{log ratio}. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"
#include "mcf/pair_function.h"
#include "mcf/rng_device.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SW_THREADS 256
#define SW_WARPS (SW_THREADS / 32)
#define SW_SLOTS 4 /* elements of a row per thread: m <= SW_SLOTS SW_THREADS = 1024 */
#define SW_STATIC_SHARED 1024 /* bytes kept from the dynamic share: the kernel's own */

/* one walker of a launch */
struct sweep_job {
    double *Ainv[2], *A[2];
    const double *trial[2]; /* the dets' trial rows, m x L */
    unsigned int m[2], L[2];
    unsigned int n;         /* electrons */
    const double *pos;      /* n x 3 positions, then n x 3 trial positions */
    double *lr;             /* n: log ratios (out) */
    unsigned char *acc;     /* n: decisions (out) */
    mcf_rng rng;
};

/* what a walker's sweep hands back besides lr and acc */
struct sweep_out {
    mcf_rng rng;
    int status;             /* 0, or 1: a NaN log ratio at electron `bad` */
    unsigned int accepted, bad;
};

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

/* the doubles of shared memory a launch of window K needs */
static size_t sw_shared_doubles(unsigned int K, unsigned int m_max, unsigned int n_max)
{
    const size_t nv = 3 + 2 * (size_t)K;
    return 2 * sizeof(mcf_pair_function) / sizeof(double) + 3 * (size_t)n_max +
           2 * (size_t)K * m_max + (size_t)K * K + 2 * (size_t)K +
           SW_WARPS * nv + nv;
}

/* Applies the p pending moves of the window to Ainv (m x m): Q = V^T Ainv - E^T, T = S^-1 Q,
 * Ainv -= P T, column by column. */
template <int K>
static __device__ void sw_flush(double *Ainv, unsigned int m, unsigned int ld, int p,
                                const double *V, const double *P, const double *Sinv,
                                const unsigned int *row)
{
    for (unsigned int j = threadIdx.x; j < m; j += SW_THREADS) {
        double q[K], t[K];
#pragma unroll
        for (int a = 0; a < K; a++)
            q[a] = 0.0;
#pragma unroll 4
        for (unsigned int l = 0; l < m; l++) {
            const double x = Ainv[(size_t)l * m + j];
#pragma unroll
            for (int a = 0; a < K; a++)
                if (a < p)
                    q[a] += V[a * ld + l] * x;
        }
#pragma unroll
        for (int a = 0; a < K; a++) {
            if (a < p && row[a] == j)
                q[a] -= 1.0;
        }
#pragma unroll
        for (int a = 0; a < K; a++) {
            double s = 0.0;
#pragma unroll
            for (int b = 0; b < K; b++)
                if (a < p && b < p)
                    s += Sinv[a * K + b] * q[b];
            t[a] = s;
        }
#pragma unroll 4
        for (unsigned int l = 0; l < m; l++) {
            double d = 0.0;
#pragma unroll
            for (int a = 0; a < K; a++)
                if (a < p)
                    d += P[a * ld + l] * t[a];
            Ainv[(size_t)l * m + j] -= d;
        }
    }
    __syncthreads();
}

template <int K>
__global__ void __launch_bounds__(SW_THREADS)
    sw_kernel(const sweep_job *jobs, sweep_out *out, const mcf_pair_function *upair,
              double cx, double cy, double cz, unsigned int m_max, unsigned int n_max)
{
    constexpr int NV = 3 + 2 * K; /* R_0, J', J, x_0..x_{K-1}, b_0..b_{K-1} */
    extern __shared__ double sm[];
    const sweep_job &J = jobs[blockIdx.x];
    const unsigned int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned int n = J.n, ld = m_max;
    mcf_pair_function *su = (mcf_pair_function *)sm;
    double *pos = sm + 2 * sizeof(mcf_pair_function) / sizeof(double);
    double *V = pos + 3 * n_max, *P = V + K * ld;
    double *Sinv = P + K * ld, *yv = Sinv + K * K, *zv = yv + K, *red = zv + K;
    double *res = red + SW_WARPS * NV;
    __shared__ unsigned int s_row[K];
    __shared__ int s_acc, s_stop;
    const double cell[3] = {cx, cy, cz};

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
        }
        for (unsigned int i = 0; i < m; i++, e++) {
            double acc[NV];
#pragma unroll
            for (int q = 0; q < NV; q++)
                acc[q] = 0.0;
#pragma unroll
            for (int k = 0; k < SW_SLOTS; k++) {
                const unsigned int l = tid + k * SW_THREADS;
                if (l >= m)
                    break;
                const double cl = cr[k], vl = vr[k];
                acc[0] += vl * cl;
#pragma unroll
                for (int a = 0; a < K; a++)
                    if (a < p) {
                        acc[3 + a] += vl * P[a * ld + l];
                        acc[3 + K + a] += V[a * ld + l] * cl;
                    }
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
            for (unsigned int j = tid; j < n; j += SW_THREADS) {
                if (j == e)
                    continue;
                const mcf_pair_function *u = &su[(j < J.m[0]) == (s == 0) ? 0 : 1];
                acc[1] += mcf_pair_value(u, sw_distance(te, pos + 3 * j, cell));
                acc[2] += mcf_pair_value(u, sw_distance(oe, pos + 3 * j, cell));
            }
#pragma unroll
            for (int q = 0; q < NV; q++) {
                if ((q >= 3 + p && q < 3 + K) || q >= 3 + K + p)
                    continue; /* no pending move there */
                double x = acc[q];
#pragma unroll
                for (int o = 16; o > 0; o >>= 1)
                    x += __shfl_down_sync(0xffffffffu, x, o);
                if (lane == 0)
                    red[warp * NV + q] = x;
            }
            __syncthreads();
            if (tid < NV && !((tid >= 3 + p && tid < 3 + K) || tid >= 3 + K + p)) {
                double t = 0.0;
#pragma unroll
                for (int w = 0; w < SW_WARPS; w++)
                    t += red[w * NV + tid];
                res[tid] = t;
            }
            __syncthreads();
            if ((int)tid < p) { /* y = S^-1 b, z^T = x^T S^-1 */
                double ya = 0.0, za = 0.0;
                for (int b = 0; b < p; b++) {
                    ya += Sinv[tid * K + b] * res[3 + K + b];
                    za += res[3 + b] * Sinv[b * K + tid];
                }
                yv[tid] = ya;
                zv[tid] = za;
            }
            __syncthreads();
            if (tid == 0) {
                double R = res[0];
                for (int b = 0; b < p; b++)
                    R -= res[3 + b] * yv[b];
                double lr = R == 0.0 ? -INFINITY : 2.0 * log(fabs(R));
                lr += 2.0 * (res[1] - res[2]);
                J.lr[e] = lr;
                int a = 0;
                if (isnan(lr))
                    s_stop = 1;
                else
                    a = mcf_metropolis_accept(&rng, lr);
                J.acc[e] = (unsigned char)a;
                s_acc = a;
                res[0] = R;
            }
            __syncthreads();
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
            for (int k = 0; k < SW_SLOTS; k++) {
                const unsigned int l = tid + k * SW_THREADS;
                if (l < m) {
                    V[p * ld + l] = vr[k];
                    P[p * ld + l] = cr[k];
                    A[(size_t)i * m + l] = vr[k];
                }
            }
            if (tid < 3)
                pos[3 * e + tid] = te[tid];
            if (tid == 0)
                s_row[p] = i;
            p++;
            accepted++;
            __syncthreads();
            if (p == K) {
                sw_flush<K>(Ainv, m, ld, p, V, P, Sinv, s_row);
                p = 0;
#pragma unroll
                for (int k = 0; k < SW_SLOTS; k++) { /* the column changed */
                    const unsigned int l = tid + k * SW_THREADS;
                    cn[k] = l < m ? Ainv[(size_t)l * m + inext] : 0.0;
                }
            }
#pragma unroll
            for (int k = 0; k < SW_SLOTS; k++) {
                vr[k] = vn[k];
                cr[k] = cn[k];
            }
        }
        if (p && !stop)
            sw_flush<K>(Ainv, m, ld, p, V, P, Sinv, s_row);
    }
    if (tid == 0) {
        out[blockIdx.x].rng = rng;
        out[blockIdx.x].status = stop;
        out[blockIdx.x].accepted = accepted;
        out[blockIdx.x].bad = bad;
    }
}

/* ---- the launcher ------------------------------------------------------------------------ */

static double sw_last_s;

extern "C" double bcu_sweep_last_time(void) { return sw_last_s; }

/* the largest window <= want (a power of 2, <= BCU_SWEEP_DELAY_MAX) whose shared memory fits
 * the device's limit per block; 0 when not even k = 1 fits */
static unsigned int sw_window(size_t want, unsigned int m_max, unsigned int n_max,
                              size_t limit)
{
    unsigned int K = BCU_SWEEP_DELAY_MAX;
    while (K > want && K > 1)
        K /= 2;
    while (K >= 1 && sw_shared_doubles(K, m_max, n_max) * sizeof(double) > limit)
        K /= 2;
    return K;
}

extern "C" size_t bcu_sweep_window(size_t delay, size_t m_max, size_t n_electrons)
{
    if (bcu_device_init())
        return 0;
    const size_t limit = mcu_props()->sharedMemPerBlockOptin - SW_STATIC_SHARED;
    return sw_window(delay ? delay : BCU_SWEEP_DELAY_DEFAULT, (unsigned int)m_max,
                     (unsigned int)n_electrons, limit);
}

template <int K>
static cudaError_t sw_launch(unsigned int nw, const sweep_job *jobs, sweep_out *out,
                             const mcf_pair_function *u, const double cell[3],
                             unsigned int m_max, unsigned int n_max)
{
    const size_t bytes = sw_shared_doubles(K, m_max, n_max) * sizeof(double);
    cudaError_t e = cudaFuncSetAttribute(sw_kernel<K>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)bytes);
    if (e != cudaSuccess)
        return e;
    sw_kernel<K><<<nw, SW_THREADS, bytes, bcu_stream>>>(jobs, out, u, cell[0], cell[1],
                                                        cell[2], m_max, n_max);
    return cudaGetLastError();
}

static int sw_check(const mcf_walker_moves *w, size_t n, const mcf_pair_function u[2],
                    const double cell[3])
{
    if (n && !w)
        return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: NULL array of walkers");
    if (!u || !cell)
        return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: NULL pair functions or cell");
    for (int a = 0; a < 3; a++)
        if (!(cell[a] > 0.0) || !isfinite(cell[a]))
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: cell side %d is %g", a,
                            cell[a]);
    for (int s = 0; s < 2; s++) {
        const mcf_pair_function *f = &u[s];
        if (f->form != MCF_PAIR_NONE && f->form != MCF_PAIR_BSPLINE && f->form != MCF_PAIR_RPA)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: pair function %d has form "
                            "%d (MCF_PAIR_NONE, _BSPLINE or _RPA)", s, (int)f->form);
        if (f->form == MCF_PAIR_BSPLINE && (f->n_coef < 4 || f->n_coef > MCF_PAIR_COEF_MAX))
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: pair function %d has %u "
                            "B-spline coefficients (4 to %d)", s, (unsigned)f->n_coef,
                            MCF_PAIR_COEF_MAX);
    }
    for (size_t k = 0; k < n; k++) {
        const bcu_det *d0 = (const bcu_det *)w[k].det[0], *d1 = (const bcu_det *)w[k].det[1];
        if (!d0 && !d1)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu has no "
                            "determinant", k);
        if (!w[k].r || !w[k].trial || !w[k].rng || !w[k].accepted)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu: NULL positions, "
                            "trial positions, stream or decisions", k);
        for (int s = 0; s < 2; s++) {
            const bcu_det *d = s ? d1 : d0;
            if (d && !d->have_trial)
                return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu, spin %d: "
                                "no trial rows (det_trial first)", k, s);
        }
    }
    return MCF_OK;
}

extern "C" int bcu_walker_sweep(mcf_walker_moves *w, size_t n, const mcf_pair_function u[2],
                                const double cell[3], size_t delay)
{
    const double t0 = bcu_now();
    int rc = sw_check(w, n, u, cell);
    if (rc || n == 0)
        return rc;
    if ((rc = bcu_device_init()))
        return rc;
    bcu_det **dets = (bcu_det **)malloc(2 * n * sizeof *dets);
    if (!dets)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    size_t nd = 0, n_elec = 0;
    unsigned int m_max = 1, n_max = 1;
    for (size_t k = 0; k < n; k++) {
        size_t nk = 0;
        for (int s = 0; s < 2; s++)
            if (w[k].det[s]) {
                dets[nd++] = (bcu_det *)w[k].det[s];
                nk += ((bcu_det *)w[k].det[s])->m;
                if (((bcu_det *)w[k].det[s])->m > m_max)
                    m_max = ((bcu_det *)w[k].det[s])->m;
            }
        if (nk > n_max)
            n_max = (unsigned int)nk;
        n_elec += nk;
    }
    rc = det_check_batch("walker_sweep", dets, nd);
    if (!rc && m_max > SW_SLOTS * SW_THREADS)
        rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: %u electrons of one spin; the "
                      "kernel takes at most %d", m_max, SW_SLOTS * SW_THREADS);
    const size_t limit = mcu_props()->sharedMemPerBlockOptin - SW_STATIC_SHARED;
    const unsigned int K = sw_window(delay ? delay : BCU_SWEEP_DELAY_DEFAULT, m_max, n_max,
                                     limit);
    if (!rc && K == 0)
        rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: %u electrons per walker need "
                      "more shared memory than the device's %zu bytes per block", n_max, limit);
    const size_t jobs_b = n * sizeof(sweep_job), u_b = 2 * sizeof(mcf_pair_function);
    const size_t in_b = jobs_b + u_b + 6 * n_elec * sizeof(double);
    const size_t outs_b = n * sizeof(sweep_out), out_b = outs_b + n_elec * (sizeof(double) + 1);
    if (!rc) {
        bcu_lock();
        rc = det_flush_locked(dets, nd);
        if (!rc)
            rc = det_stage(in_b, out_b);
        if (!rc) {
            sweep_job *jobs = (sweep_job *)det_sg.h_in;
            memcpy(det_sg.h_in + jobs_b, u, u_b);
            double *hp = (double *)(det_sg.h_in + jobs_b + u_b);
            double *dp = (double *)(det_sg.d_in + jobs_b + u_b);
            double *dlr = (double *)((unsigned char *)det_sg.d_out + outs_b);
            unsigned char *dacc = (unsigned char *)(dlr + n_elec);
            for (size_t k = 0; k < n; k++) {
                sweep_job *J = &jobs[k];
                memset(J, 0, sizeof *J);
                for (int s = 0; s < 2; s++) {
                    bcu_det *d = (bcu_det *)w[k].det[s];
                    if (!d)
                        continue;
                    J->Ainv[s] = d->Ainv;
                    J->A[s] = d->A;
                    J->trial[s] = d->trial;
                    J->m[s] = d->m;
                    J->L[s] = d->L;
                }
                J->n = J->m[0] + J->m[1];
                memcpy(hp, w[k].r, 3 * J->n * sizeof(double));
                memcpy(hp + 3 * J->n, w[k].trial, 3 * J->n * sizeof(double));
                J->pos = dp;
                J->lr = dlr;
                J->acc = dacc;
                J->rng = *w[k].rng;
                hp += 6 * J->n;
                dp += 6 * J->n;
                dlr += J->n;
                dacc += J->n;
            }
            cudaError_t e = cudaMemcpyAsync(det_sg.d_in, det_sg.h_in, in_b,
                                            cudaMemcpyHostToDevice, bcu_stream);
            const sweep_job *djobs = (const sweep_job *)det_sg.d_in;
            sweep_out *dout = (sweep_out *)det_sg.d_out;
            const mcf_pair_function *du = (const mcf_pair_function *)(det_sg.d_in + jobs_b);
            const unsigned int nw = (unsigned int)n;
            if (e == cudaSuccess) {
                switch (K) {
                case 1: e = sw_launch<1>(nw, djobs, dout, du, cell, m_max, n_max); break;
                case 2: e = sw_launch<2>(nw, djobs, dout, du, cell, m_max, n_max); break;
                case 4: e = sw_launch<4>(nw, djobs, dout, du, cell, m_max, n_max); break;
                case 8: e = sw_launch<8>(nw, djobs, dout, du, cell, m_max, n_max); break;
                case 16: e = sw_launch<16>(nw, djobs, dout, du, cell, m_max, n_max); break;
                default: e = sw_launch<32>(nw, djobs, dout, du, cell, m_max, n_max); break;
                }
            }
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(det_sg.h_out, det_sg.d_out, out_b, cudaMemcpyDeviceToHost,
                                    bcu_stream);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(bcu_stream);
            if (e != cudaSuccess)
                rc = bcu_fail(e, "the sweep of the walkers", 0);
        }
        if (!rc) { /* the results, while the lock still guards the staging */
            const sweep_out *ho = (const sweep_out *)det_sg.h_out;
            const double *hlr = (const double *)((const unsigned char *)det_sg.h_out + outs_b);
            const unsigned char *hacc = (const unsigned char *)(hlr + n_elec);
            for (size_t k = 0; k < n && !rc; k++) {
                const size_t nk = ((const sweep_job *)det_sg.h_in)[k].n;
                if (ho[k].status)
                    rc = mcf_fail(MCF_EPLUGIN, "blip-cuda: walker_sweep: walker %zu: the log "
                                  "ratio of electron %u is NaN", k, ho[k].bad);
                *w[k].rng = ho[k].rng;
                memcpy(w[k].accepted, hacc, nk);
                if (w[k].log_ratio)
                    memcpy(w[k].log_ratio, hlr, nk * sizeof(double));
                size_t e = 0;
                for (int s = 0; s < 2; s++) {
                    bcu_det *d = (bcu_det *)w[k].det[s];
                    const size_t m = d ? d->m : 0;
                    for (size_t i = 0; i < m; i++, e++)
                        if (hacc[e])
                            for (int a = 0; a < 3; a++)
                                w[k].r[3 * e + a] = d->r[3 * i + a] = w[k].trial[3 * e + a];
                    if (d)
                        d->have_last = d->pending = 0;
                }
                hlr += nk;
                hacc += nk;
            }
        }
        bcu_unlock();
    }
    free(dets);
    sw_last_s = bcu_now() - t0;
    return rc;
}
