/* blip_cuda_drift_sweep.cu — the walker_drift_sweep op of mcf/orbital.h (mcf 1.2): whole
 * sweeps of drift-diffusion moves of Slater-Jastrow walkers, the move of diffusion Monte
 * Carlo (and of move = drift), one thread block per walker, all walkers one launch.
 *
 * The mathematics is the model's host path (models/slater-jastrow/sj_drift.c, whose header
 * has the formulas; mcf/orbital.h states the op).  Per move of electron e = row i of spin s
 * (m electrons of that spin), in the configuration left by the moves before it:
 *   1. the drift at r: grad_e D / D = sum_l grad phi_l(r) Ainv[l][i] from the gradient rows
 *      at the sweep's start (electron e has not moved before its turn, so its row is exact;
 *      the vgl kernel makes them for all electrons before the launch), plus the Jastrow's
 *      sum_j u'(r_ej) r_ej / r_ej; with it J(r) = sum_j u(r_ej);
 *   2. r' = r + tau vbar(r) + sqrt(tau) chi_e (thread 0), then the first m orbitals and their
 *      gradients at r' (bcu_vgl_sum: the vgl kernel's sums, so a row here is the row that
 *      kernel would give), R = v . Ainv[:, i], grad_e D(r') / D(r) = gv . Ainv[:, i], and
 *      the Jastrow's value and gradient at r';
 *   3. the log ratio 2 log|R| - |r - r' - tau vbar(r')|^2 / (2 tau) + |chi|^2 / 2 + 2 (J' - J)
 *      (-inf for R = 0 or not finite, or R < 0 with fixed_node) and the decision
 *      mcf_metropolis_accept from the walker's stream (thread 0);
 *   4. accepted: Sherman-Morrison, Ainv[l][j] -= (Ainv[l][i] / R) (w_j - delta_ij), w = v^T
 *      Ainv, a thread per column j (so no column is read after another thread wrote it but
 *      column i, whose old values are kept in shared memory), the row of A, and the position
 *      r' reduced into [0, L).
 * Every sum is cut the same way whatever the launch (a thread's elements in order, a warp's
 * shuffle tree, the warps in order): a run repeats bit for bit.  The ratios equal the host's
 * up to rounding; a decision can differ only where a uniform lies within that rounding of
 * e^{log ratio}.  The update after every move costs 3 m^2 memory operations per accepted
 * move (the delayed window of blip_cuda_det_sweep.cu does not apply yet: the drift at r needs
 * the exact column of Ainv). */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "blip_core.h"
#include "mcf/error.h"
#include "mcf/pair_function.h"
#include "mcf/rng_device.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DS_THREADS 256
#define DS_WARPS (DS_THREADS / 32)
#define DS_NR 8                             /* sums reduced together */

/* one walker of a drift launch */
typedef struct drift_job {
    double *Ainv[2], *A[2];
    const double *vgl[2];   /* m x L x 5 at the positions of the sweep's start */
    const float *c[2];      /* the dets' tables */
    unsigned int tn[2][3];  /* the tables' points per axis */
    unsigned int m[2], L[2];
    double inv_h[2][3];
    unsigned int n;         /* electrons */
    int fixed_node;
    double tau;
    const double *pos;      /* n x 3 positions, then n x 3 Gaussians */
    double *pos_out;        /* n x 3 positions after the sweep (out) */
    double *lr;             /* n (out) */
    unsigned char *acc;     /* n (out) */
    mcf_rng rng;
} drift_job;

static __device__ __forceinline__ double ds_warp_sum(double x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, o);
    return x;
}

/* res[q] = the block's sum of x[q] (q < NR): warps' shuffle trees, then the warps in order;
 * red holds DS_WARPS NR doubles.  Ends with the block's barrier. */
template <int NR>
static __device__ void ds_reduce(double (&x)[NR], double *red, double *res)
{
    const unsigned int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
#pragma unroll
    for (int q = 0; q < NR; q++)
        x[q] = ds_warp_sum(x[q]);
    if (lane == 0)
#pragma unroll
        for (int q = 0; q < NR; q++)
            red[warp * NR + q] = x[q];
    __syncthreads();
    if (tid < NR) {
        double t = 0.0;
#pragma unroll
        for (int w = 0; w < DS_WARPS; w++)
            t += red[w * NR + tid];
        res[tid] = t;
    }
    __syncthreads();
}

/* the Jastrow's value (x[0]) and gradient (x[1..3]) at point p of electron e (spin s) over
 * this thread's other electrons j = tid, tid + DS_THREADS, ... */
static __device__ void ds_jastrow(const double *p, unsigned int e, int s, unsigned int n,
                                  unsigned int n_up, const double *pos,
                                  const mcf_pair_function *su, const double *cell, double *x)
{
    for (unsigned int j = threadIdx.x; j < n; j += DS_THREADS) {
        if (j == e)
            continue;
        const mcf_pair_function *u = &su[(j < n_up) == (s == 0) ? 0 : 1];
        double d[3], r2 = 0.0;
#pragma unroll
        for (int a = 0; a < 3; a++) {
            double y = p[a] - pos[3 * j + a];
            y -= cell[a] * nearbyint(y / cell[a]);
            d[a] = y;
            r2 += y * y;
        }
        const double r = sqrt(r2);
        x[0] += mcf_pair_value(u, r);
        if (r > 0.0) {
            const double g = mcf_pair_derivative(u, r) / r;
#pragma unroll
            for (int a = 0; a < 3; a++)
                x[1 + a] += g * d[a];
        }
    }
}

/* Umrigar-Nightingale-Runge's limited drift (sj_drift.c's limited_drift) */
static __device__ void ds_limited(const double *v, double tau, double *vbar)
{
    const double v2t = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * tau;
    const double f = 2.0 / (1.0 + sqrt(1.0 + 2.0 * v2t));
#pragma unroll
    for (int a = 0; a < 3; a++)
        vbar[a] = f * v[a];
}

/* the shared memory of a block, in doubles: pair functions, positions, the trial row, the
 * column i and its multiple 1/R, the reductions */
static __host__ __device__ unsigned int ds_shared(unsigned int m_max, unsigned int n_max,
                                                  unsigned int *pos, unsigned int *row)
{
    *pos = 2 * sizeof(mcf_pair_function) / sizeof(double);
    *row = *pos + 3 * n_max;
    return *row + 3 * m_max + DS_WARPS * DS_NR + DS_NR;
}

template <typename Acc>
__global__ void __launch_bounds__(DS_THREADS, 1)
    ds_kernel(const drift_job *jobs, sweep_out *out, const mcf_pair_function *upair,
              double cx, double cy, double cz, unsigned int m_max, unsigned int n_max)
{
    extern __shared__ double sm[];
    const drift_job &J = jobs[blockIdx.x];
    const unsigned int tid = threadIdx.x, n = J.n;
    unsigned int o_pos, o_row;
    (void)ds_shared(m_max, n_max, &o_pos, &o_row);
    mcf_pair_function *su = (mcf_pair_function *)sm;
    double *pos = sm + o_pos, *vrow = sm + o_row, *col = vrow + m_max, *colR = col + m_max;
    double *red = colR + m_max, *res = red + DS_WARPS * DS_NR;
    __shared__ double s_rp[3];
    __shared__ size_t s_idx[3][4]; /* the trial point's stencil (step 2) */
    __shared__ float s_w[3][3][4];
    __shared__ int s_acc, s_stop;
    const double cell[3] = {cx, cy, cz}, tau = J.tau;
    for (unsigned int q = tid; q < 2 * sizeof(mcf_pair_function) / sizeof(double);
         q += DS_THREADS)
        ((double *)su)[q] = ((const double *)upair)[q];
    for (unsigned int q = tid; q < 3 * n; q += DS_THREADS)
        pos[q] = J.pos[q];
    const double *chi = J.pos + 3 * (size_t)n;
    mcf_rng rng = J.rng; /* thread 0's is the walker's */
    double log_g = 0.0, j_old = 0.0, re[3];
    unsigned int accepted = 0, bad = 0, e = 0;
    if (tid == 0)
        s_stop = 0;
    __syncthreads();
    for (int s = 0; s < 2 && !s_stop; s++) {
        const unsigned int m = J.m[s], Lt = J.L[s];
        double *Ainv = J.Ainv[s], *A = J.A[s];
        const double *vgl = J.vgl[s];
        const size_t nq = (size_t)m * Lt, ny = J.tn[s][1], nz = J.tn[s][2];
        for (unsigned int i = 0; i < m; i++, e++) {
#pragma unroll
            for (int a = 0; a < 3; a++)
                re[a] = pos[3 * e + a];
            /* 1. the drift at r */
            double x[DS_NR] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (unsigned int l = tid; l < m; l += DS_THREADS) {
                const double a = Ainv[(size_t)l * m + i];
                const size_t q = (size_t)i * Lt + l;
                col[l] = a;
                x[0] += vgl[nq + 3 * q] * a;
                x[1] += vgl[nq + 3 * q + 1] * a;
                x[2] += vgl[nq + 3 * q + 2] * a;
            }
            ds_jastrow(re, e, s, n, J.m[0], pos, su, cell, x + 3); /* x[3] J, x[4..6] grad */
            ds_reduce<DS_NR>(x, red, res);
            if (tid == 0) {
                double v[3], vbar[3], chi2 = 0.0;
#pragma unroll
                for (int a = 0; a < 3; a++)
                    v[a] = res[a] + res[4 + a];
                ds_limited(v, tau, vbar);
#pragma unroll
                for (int a = 0; a < 3; a++) {
                    const double g = chi[3 * e + a];
                    chi2 += g * g;
                    s_rp[a] = re[a] + tau * vbar[a] + sqrt(tau) * g;
                }
                log_g = -0.5 * chi2;
                j_old = res[3];
            }
            __syncthreads();
            /* 2. the orbitals and gradients at r': the stencil (the same for every thread)
             * made once per axis into shared memory, so that no thread holds its 12 indices
             * and 36 weights in registers (with them the kernel took 255 registers and
             * spilled, one block per multiprocessor) */
            const double rp[3] = {s_rp[0], s_rp[1], s_rp[2]};
            if (tid < 3) {
                blip_axis_stencil st;
                blip_axis_setup(rp[tid], cell[tid], J.inv_h[s][tid], J.tn[s][tid], 1, &st);
#pragma unroll
                for (int a = 0; a < 4; a++) {
                    s_idx[tid][a] = st.idx[a];
#pragma unroll
                    for (int k = 0; k < 3; k++)
                        s_w[tid][k][a] = (float)st.w[k][a];
                }
            }
            __syncthreads();
            double y[DS_NR] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (unsigned int l = tid; l < m; l += DS_THREADS) {
                Acc o5[5];
                /* the vgl kernel's instance (with the Laplacian, unused here): the same
                 * machine code for the value and gradient sums, so the same bits */
                bcu_vgl_sum<Acc, true, true>(J.c[s] + l, Lt, ny, nz, s_idx, s_w, o5);
                const double v = (double)o5[0], a = col[l];
                vrow[l] = v;
                y[0] += v * a;
                y[1] += (double)o5[1] * a;
                y[2] += (double)o5[2] * a;
                y[3] += (double)o5[3] * a;
            }
            ds_jastrow(rp, e, s, n, J.m[0], pos, su, cell, y + 4); /* y[4] J', y[5..7] */
            ds_reduce<DS_NR>(y, red, res);
            /* 3. the decision */
            if (tid == 0) {
                const double R = res[0];
                double lr;
                if (R == 0.0 || !isfinite(R) || (J.fixed_node && R < 0.0)) {
                    lr = -INFINITY;
                } else {
                    double g[3], vbar[3], back = 0.0;
#pragma unroll
                    for (int a = 0; a < 3; a++)
                        g[a] = res[1 + a] / R + res[5 + a];
                    ds_limited(g, tau, vbar);
#pragma unroll
                    for (int a = 0; a < 3; a++) {
                        const double d = re[a] - rp[a] - tau * vbar[a];
                        back += d * d;
                    }
                    lr = 2.0 * log(fabs(R)) - back / (2.0 * tau) - log_g;
                    lr += 2.0 * (res[4] - j_old);
                }
                int acc = 0;
                if (isnan(lr)) {
                    s_stop = 1;
                    bad = e;
                } else {
                    acc = mcf_metropolis_accept(&rng, lr);
                }
                J.lr[e] = lr;
                J.acc[e] = (unsigned char)acc;
                s_acc = acc;
                res[0] = R;
                if (acc) {
                    accepted++;
#pragma unroll
                    for (int a = 0; a < 3; a++) { /* into [0, L) as the model's wrap */
                        double z = rp[a] - cell[a] * floor(rp[a] / cell[a]);
                        pos[3 * e + a] = z >= cell[a] ? z - cell[a] : z;
                    }
                }
            }
            __syncthreads();
            if (s_stop)
                break;
            if (!s_acc)
                continue;
            /* 4. Sherman-Morrison */
            const double R = res[0];
            for (unsigned int l = tid; l < m; l += DS_THREADS) {
                colR[l] = col[l] / R;
                A[(size_t)i * m + l] = vrow[l];
            }
            __syncthreads();
            for (unsigned int j = tid; j < m; j += DS_THREADS) {
                double q = 0.0;
                for (unsigned int l = 0; l < m; l++)
                    q += vrow[l] * Ainv[(size_t)l * m + j];
                if (j == i)
                    q -= 1.0;
                for (unsigned int l = 0; l < m; l++)
                    Ainv[(size_t)l * m + j] -= colR[l] * q;
            }
            __syncthreads();
        }
    }
    for (unsigned int q = tid; q < 3 * n; q += DS_THREADS)
        J.pos_out[q] = pos[q];
    if (tid == 0) {
        out[blockIdx.x].rng = rng;
        out[blockIdx.x].status = s_stop;
        out[blockIdx.x].accepted = accepted;
        out[blockIdx.x].bad = bad;
    }
}

template <typename Acc>
static cudaError_t ds_launch(unsigned int nw, const drift_job *jobs, sweep_out *out,
                             const mcf_pair_function *u, const double cell[3],
                             unsigned int m_max, unsigned int n_max)
{
    unsigned int a, b;
    const size_t bytes = (size_t)ds_shared(m_max, n_max, &a, &b) * sizeof(double);
    cudaError_t e = cudaFuncSetAttribute(ds_kernel<Acc>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)bytes);
    if (e != cudaSuccess)
        return e;
    ds_kernel<Acc><<<nw, DS_THREADS, bytes, bcu_stream>>>(jobs, out, u, cell[0], cell[1],
                                                          cell[2], m_max, n_max);
    return cudaGetLastError();
}

/* ---- the op ------------------------------------------------------------------------------ */

static int ds_check(const bcu_drift_walker *w, size_t n, const mcf_pair_function u[2],
                    const double cell[3])
{
    int rc = sweep_check_common("walker_drift_sweep", !n || w, u, cell);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        const bcu_walker *x = &w[k].w;
        if (!x->det[0] && !x->det[1])
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: walker %zu has no "
                            "determinant", k);
        if (!x->r || !w[k].chi || !x->rng || !x->accepted)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: walker %zu: NULL "
                            "positions, Gaussians, stream or decisions", k);
        if (!(w[k].tau > 0.0) || !isfinite(w[k].tau))
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: walker %zu has time "
                            "step %g", k, w[k].tau);
    }
    return MCF_OK;
}

/* the gradient rows at the current positions of the nd dets (vgl allocated on first use) */
static int ds_rows(bcu_batch *kb, bcu_det **dets, size_t nd)
{
    for (size_t k = 0; k < nd; k++) {
        bcu_det *D = dets[k];
        if (!D->vgl) {
            const size_t b = (size_t)D->m * D->L * 5 * sizeof(double);
            cudaError_t e = cudaMalloc((void **)&D->vgl, b);
            if (e != cudaSuccess)
                return bcu_fail(e, "the gradients at the electrons", b);
        }
    }
    return det_rows(kb, dets, nd, NULL);
}

/* the job of walker k (its dets, its positions and Gaussians staged at hp / dp) */
static void ds_job(drift_job *J, const bcu_drift_walker *w, double *hp, double *dp,
                   double *dpos_out, double *dlr, unsigned char *dacc)
{
    memset(J, 0, sizeof *J);
    for (int s = 0; s < 2; s++) {
        const bcu_det *d = (const bcu_det *)w->w.det[s];
        if (!d)
            continue;
        J->Ainv[s] = d->Ainv;
        J->A[s] = d->A;
        J->vgl[s] = d->vgl;
        J->c[s] = d->t->c;
        J->m[s] = d->m;
        J->L[s] = d->L;
        for (int a = 0; a < 3; a++) {
            J->tn[s][a] = (unsigned int)d->t->n[a];
            J->inv_h[s][a] = d->t->inv_h[a];
        }
    }
    J->n = J->m[0] + J->m[1];
    J->tau = w->tau;
    J->fixed_node = w->fixed_node;
    memcpy(hp, w->w.r, 3 * J->n * sizeof(double));
    memcpy(hp + 3 * J->n, w->chi, 3 * J->n * sizeof(double));
    J->pos = dp;
    J->pos_out = dpos_out;
    J->lr = dlr;
    J->acc = dacc;
    J->rng = *w->w.rng;
}

/* walker k's results from the staging: stream, decisions, log ratios, positions */
static int ds_results(const bcu_drift_walker *w, size_t k, const sweep_out *ho,
                      const double *hpos, const double *hlr, const unsigned char *hacc,
                      size_t nk)
{
    int rc = MCF_OK;
    if (ho->status)
        rc = mcf_fail(MCF_EPLUGIN, "blip-cuda: walker_drift_sweep: walker %zu: the log ratio "
                      "of electron %u is NaN", k, ho->bad);
    *w->w.rng = ho->rng;
    memcpy(w->w.accepted, hacc, nk);
    if (w->w.log_ratio)
        memcpy(w->w.log_ratio, hlr, nk * sizeof(double));
    size_t e = 0;
    for (int s = 0; s < 2; s++) {
        bcu_det *d = (bcu_det *)w->w.det[s];
        const size_t m = d ? d->m : 0;
        for (size_t i = 0; i < m; i++, e++)
            if (hacc[e])
                for (int a = 0; a < 3; a++)
                    w->w.r[3 * e + a] = d->r[3 * i + a] = hpos[3 * e + a];
        if (d)
            d->have_last = d->pending = d->have_trial = 0;
    }
    return rc;
}

extern "C" int bcu_walker_drift_sweep(mcf_batch *b, bcu_drift_walker *w, size_t n,
                                      const mcf_pair_function u[2], const double cell[3])
{
    const double t0 = bcu_now();
    int rc = ds_check(w, n, u, cell);
    if (rc || n == 0)
        return rc;
    bcu_batch *kb;
    if ((rc = bcu_device_init()) || (rc = bcu_batch_of(b, &kb)))
        return rc;
    bcu_det **dets = NULL;
    size_t nd = 0, n_elec = 0;
    unsigned int m_max = 1, n_max = 1;
    if ((rc = sweep_dets(&w->w, sizeof *w, n, &dets, &nd, &n_elec, &m_max, &n_max)))
        return rc;
    const int acc_double = dets[0]->t->set.accumulate_double; /* nd >= 1: ds_check */
    for (size_t k = 1; k < nd && !rc; k++)
        if ((int)dets[k]->t->set.accumulate_double != acc_double)
            rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: walkers of one call "
                          "have different sum_precision; give all chains the same "
                          "[evaluator] keys");
    if (!rc)
        rc = det_check_batch("walker_drift_sweep", dets, nd);
    unsigned int o1, o2;
    const size_t shared = (size_t)ds_shared(m_max, n_max, &o1, &o2) * sizeof(double);
    if (!rc && (m_max > SWEEP_M_MAX || shared > mcu_props()->sharedMemPerBlockOptin - 1024))
        rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: %u electrons of one spin, "
                      "%u in all: the kernel takes at most %d of one spin and %zu bytes of "
                      "shared memory", m_max, n_max, SWEEP_M_MAX,
                      (size_t)mcu_props()->sharedMemPerBlockOptin - 1024);
    const size_t jobs_b = (n * sizeof(drift_job) + 15) / 16 * 16;
    const size_t u_b = 2 * sizeof(mcf_pair_function);
    const size_t in_b = jobs_b + u_b + 6 * n_elec * sizeof(double);
    const size_t outs_b = (n * sizeof(sweep_out) + 15) / 16 * 16;
    const size_t out_b = outs_b + n_elec * (4 * sizeof(double) + 1);
    if (!rc)
        rc = det_flush(kb, dets, nd);
    if (!rc)
        rc = ds_rows(kb, dets, nd);
    if (!rc)
        rc = det_stage(kb, in_b, out_b);
    if (!rc) {
        drift_job *jobs = (drift_job *)kb->det.h_in;
        memcpy(kb->det.h_in + jobs_b, u, u_b);
        double *hp = (double *)(kb->det.h_in + jobs_b + u_b);
        double *dp = (double *)(kb->det.d_in + jobs_b + u_b);
        double *dpos = (double *)((unsigned char *)kb->det.d_out + outs_b);
        double *dlr = dpos + 3 * n_elec;
        unsigned char *dacc = (unsigned char *)(dlr + n_elec);
        for (size_t k = 0; k < n; k++) {
            ds_job(&jobs[k], &w[k], hp, dp, dpos, dlr, dacc);
            const size_t nk = jobs[k].n;
            hp += 6 * nk;
            dp += 6 * nk;
            dpos += 3 * nk;
            dlr += nk;
            dacc += nk;
        }
        cudaError_t e = cudaMemcpyAsync(kb->det.d_in, kb->det.h_in, in_b,
                                        cudaMemcpyHostToDevice, bcu_stream);
        const drift_job *djobs = (const drift_job *)kb->det.d_in;
        sweep_out *dout = (sweep_out *)kb->det.d_out;
        const mcf_pair_function *du = (const mcf_pair_function *)(kb->det.d_in + jobs_b);
        if (e == cudaSuccess)
            e = acc_double ? ds_launch<double>((unsigned int)n, djobs, dout, du, cell, m_max,
                                               n_max)
                           : ds_launch<float>((unsigned int)n, djobs, dout, du, cell, m_max,
                                              n_max);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(kb->det.h_out, kb->det.d_out, out_b, cudaMemcpyDeviceToHost,
                                bcu_stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(bcu_stream);
        if (e != cudaSuccess)
            rc = bcu_fail(e, "the drift sweep of the walkers", 0);
    }
    if (!rc) {
        const sweep_out *ho = (const sweep_out *)kb->det.h_out;
        const double *hpos = (const double *)((const unsigned char *)kb->det.h_out + outs_b);
        const double *hlr = hpos + 3 * n_elec;
        const unsigned char *hacc = (const unsigned char *)(hlr + n_elec);
        for (size_t k = 0; k < n; k++) {
            const size_t nk = ((const drift_job *)kb->det.h_in)[k].n;
            const int rk = ds_results(&w[k], k, &ho[k], hpos, hlr, hacc, nk);
            rc = rc ? rc : rk;
            hpos += 3 * nk;
            hlr += nk;
            hacc += nk;
        }
    }
    free(dets);
    kb->sweep_time = bcu_now() - t0;
    return rc;
}
