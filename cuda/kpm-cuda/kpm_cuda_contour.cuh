/* kpm_cuda_contour.cuh — GFMC on the contour, finished on the device: after the GFMC
 * kernel's recursion, the Green's functions on the ellipse's N + 1 nodes (FFT in shared
 * memory or Horner's rule), det(1 - C W) at each node, its phase followed by one warp's
 * scan, the trapezoidal sums with their error bounds, and the residues at the enclosed
 * Fermi poles (the host's kc_finish of plugins/kpm/kpm_contour.c for rank <= 2).  Device
 * code of the GFMC kernel's translation unit: included by kpm_cuda_gfmc_kernel.cu only (no
 * relocatable device code), after kpm_cuda_internal.cuh. */
#ifndef MCF_KPM_CUDA_CONTOUR_CUH
#define MCF_KPM_CUDA_CONTOUR_CUH

#include "kpm_cuda_internal.cuh"

#include <math.h>

static __device__ __forceinline__ double2 kcc_mul(double2 a, double2 b)
{
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

static __device__ __forceinline__ double2 kcc_sub(double2 a, double2 b)
{
    return make_double2(a.x - b.x, a.y - b.y);
}

static __device__ __forceinline__ double2 kcc_scale(double2 a, double s)
{
    return make_double2(a.x * s, a.y * s);
}

static __device__ __forceinline__ double2 kcc_div(double2 a, double2 b)
{
    const double d = b.x * b.x + b.y * b.y;
    return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}

static __device__ __forceinline__ double2 kcc_exp(double2 y)
{
    double sn, cs;
    sincos(y.y, &sn, &cs);
    const double e = exp(y.x);
    return make_double2(e * cs, e * sn);
}

/* 1 / (1 + e^y) without overflow (kc_fermi of kpm_contour.c) */
static __device__ double2 kcc_fermi(double2 y)
{
    if (y.x > 0.0) {
        const double2 e = kcc_exp(make_double2(-y.x, -y.y));
        return kcc_div(e, make_double2(1.0 + e.x, e.y));
    }
    const double2 e = kcc_exp(y);
    return kcc_div(make_double2(1.0, 0.0), make_double2(1.0 + e.x, e.y));
}

/* The change's matrix A = 1 - s C W at one point from the Green's functions G4 of the
 * KCU_NV combinations (W = [[G0, (P - iQ)/2], [(P + iQ)/2, G1]], P = G2 - G0 - G1,
 * Q = G3 - G0 - G1; rank 1: W = G0): d = det A and ||adj(A) C||_F^2 into *adj2. */
static __device__ double2 kcc_det(const kcu_task *T, const double2 *G4, double s,
                                  double *adj2)
{
    double2 C[2][2];
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++)
            C[p][q] = make_double2(T->c_re[p][q], T->c_im[p][q]);
    if (T->rank == 1) {
        const double2 d = kcc_sub(make_double2(1.0, 0.0), kcc_scale(kcc_mul(C[0][0], G4[0]), s));
        *adj2 = C[0][0].x * C[0][0].x + C[0][0].y * C[0][0].y;
        return d;
    }
    const double2 P = kcc_sub(kcc_sub(G4[2], G4[0]), G4[1]);
    const double2 Q = kcc_sub(kcc_sub(G4[3], G4[0]), G4[1]);
    double2 W[2][2];
    W[0][0] = G4[0];
    W[1][1] = G4[1];
    W[0][1] = make_double2(0.5 * (P.x + Q.y), 0.5 * (P.y - Q.x)); /* (P - iQ)/2 */
    W[1][0] = make_double2(0.5 * (P.x - Q.y), 0.5 * (P.y + Q.x)); /* (P + iQ)/2 */
    double2 A[2][2];
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++) {
            const double2 v = kcc_scale(
                make_double2(kcc_mul(C[p][0], W[0][q]).x + kcc_mul(C[p][1], W[1][q]).x,
                             kcc_mul(C[p][0], W[0][q]).y + kcc_mul(C[p][1], W[1][q]).y),
                s);
            A[p][q] = make_double2((p == q ? 1.0 : 0.0) - v.x, -v.y);
        }
    const double2 d = kcc_sub(kcc_mul(A[0][0], A[1][1]), kcc_mul(A[0][1], A[1][0]));
    /* adj(A) = [[A11, -A01], [-A10, A00]] */
    double2 adjC[4];
    adjC[0] = kcc_sub(kcc_mul(A[1][1], C[0][0]), kcc_mul(A[0][1], C[1][0]));
    adjC[1] = kcc_sub(kcc_mul(A[1][1], C[0][1]), kcc_mul(A[0][1], C[1][1]));
    adjC[2] = kcc_sub(kcc_mul(A[0][0], C[1][0]), kcc_mul(A[1][0], C[0][0]));
    adjC[3] = kcc_sub(kcc_mul(A[0][0], C[1][1]), kcc_mul(A[1][0], C[0][1]));
    double ss = 0.0;
    for (int k = 0; k < 4; k++)
        ss += adjC[k].x * adjC[k].x + adjC[k].y * adjC[k].y;
    *adj2 = ss;
    return d;
}

/* The contour after the moments (kpm_contour.c's kc_finish for rank <= 2, kc_prepare's
 * nodes per task): every block its share of the N + 1 nodes, then block 0 the phase, the
 * sums and the poles.  mu: the KCU_NV x M moments (this block's copy or the global one). */
static __device__ void kcu_contour_finish(const kcu_task *T, const double *mu, int g, int G,
                                          bool timer, const kcu_gfmc_launch &L)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int M = T->M, N = T->cN, Nn = N + 1, K = T->rank == 1 ? 1 : KCU_NV;
    const double a = 1.0 / T->inv_a, b = T->b, gam = T->gam;
    const double eg = exp(-gam), ch = cosh(gam), sh = sinh(gam);
    const int npb = (Nn + G - 1) / G;
    const int i0 = g * npb < Nn ? g * npb : Nn, i1 = i0 + npb < Nn ? i0 + npb : Nn;
    double2 *W = T->gnode; /* node j: the KCU_NV Green's functions, then d, (log|d|, ...), g */

    /* Green's functions W_c(z_j) = -2i chi_j / (a sin(theta_j - i gamma)), chi_j = sum_m
     * c_m e^{-i m theta_j}, c_0 = mu_0 / 2, c_m = mu_m e^{-m gamma}: by FFT of length 2N in
     * shared memory when the launch made room for it (the cluster's blocks share the K
     * transforms, as the real-axis path does), else by Horner's rule at e^{-gamma - i
     * theta_j} */
    const int Lf = 2 * N;
    if (L.fft && (Lf & (Lf - 1)) == 0 && N <= T->N) {
        const int logL = 31 - __clz(Lf);
        double2 *tw = (double2 *)(kcu_dyn_smem + L.fft_off / 8);
        double2 *buf = tw + Lf / 2;
        int mine = 0; /* transforms of this block: c = g, g + G, ... < K */
        for (int c = g; c < K; c += G)
            mine++;
        kcu_fft_twiddles(tw, Lf);
        for (int q = tid; q < mine * Lf; q += blockDim.x) {
            const int b = q / Lf, n = q % Lf, c = g + b * G;
            const double v =
                n < M ? mu[(size_t)c * M + n] * exp(-(double)n * gam) * (n == 0 ? 0.5 : 1.0)
                      : 0.0;
            buf[b * Lf + (int)(__brev((unsigned)n) >> (32 - logL))] = make_double2(v, 0.0);
        }
        __syncthreads();
        kcu_fft_butterflies(buf, tw, Lf, mine);
        for (int q = tid; q < mine * Nn; q += blockDim.x) {
            const int b = q / Nn, j = q % Nn, c = g + b * G;
            double st, ct;
            sincospi((double)j / (double)N, &st, &ct);
            const double2 sphi = make_double2(st * ch, -ct * sh);
            const double2 wf = kcc_div(make_double2(0.0, -2.0), kcc_scale(sphi, a));
            W[(size_t)j * KCU_NV + c] = kcc_mul(wf, buf[b * Lf + j]);
        }
        kcu_group_sync(G);
    } else {
        for (int q = tid; q < (i1 - i0) * KCU_NV; q += blockDim.x) {
            const int j = i0 + q / KCU_NV, c = q % KCU_NV;
            if (c >= K)
                continue;
            double st, ct;
            sincospi((double)j / (double)N, &st, &ct);
            const double2 s = make_double2(eg * ct, -eg * st);
            const double *mc = mu + (size_t)c * M;
            double2 acc = make_double2(0.0, 0.0);
            for (int m = M - 1; m >= 1; m--)
                acc = kcc_mul(make_double2(acc.x + mc[m], acc.y), s);
            acc.x += 0.5 * mc[0];
            const double2 sphi = make_double2(st * ch, -ct * sh); /* sin(theta - i gamma) */
            /* -2i / (a sphi) */
            const double2 wf = kcc_div(make_double2(0.0, -2.0), kcc_scale(sphi, a));
            W[(size_t)j * KCU_NV + c] = kcc_mul(wf, acc);
        }
        __syncthreads();
    }
    /* per node: d, log|d|, |f(z_j)| ||A^-1 C||_F, and g_j = f(z_j) (-a sin(theta_j - i gamma)) */
    for (int j = i0 + tid; j < i1; j += blockDim.x) {
        double2 G4[KCU_NV];
        for (int c = 0; c < KCU_NV; c++)
            G4[c] = c < K ? W[(size_t)j * KCU_NV + c] : make_double2(0.0, 0.0);
        double adj2;
        const double2 d = kcc_det(T, G4, 1.0, &adj2);
        const double d2 = d.x * d.x + d.y * d.y;
        double st, ct;
        sincospi((double)j / (double)N, &st, &ct);
        const double2 sphi = make_double2(st * ch, -ct * sh);
        const double2 z = make_double2(a * ct * ch + b, a * st * sh);
        const double2 fz = kcc_fermi(make_double2((z.x - T->cmu) / T->cT, z.y / T->cT));
        const double2 gj = kcc_mul(fz, kcc_scale(sphi, -a));
        if (!(d2 > 0.0)) {
            T->out[3] = KCU_ST_CDET;
            T->out[1] = j;
        }
        W[(size_t)j * KCU_NV + 0] = d;
        W[(size_t)j * KCU_NV + 1] =
            make_double2(0.5 * log(d2), sqrt(fz.x * fz.x + fz.y * fz.y) * sqrt(adj2 / d2));
        W[(size_t)j * KCU_NV + 2] = gj;
    }
    kcu_group_sync(G);
    if (g != 0)
        return;

    /* block 0: warp 0 follows the phase over the nodes (a scan of the steps), the sums and
     * bounds; warps 1.. the Green's functions at the poles (Horner, undamped) */
    __shared__ double2 pchi[KPM_CONTOUR_PLAN_POLES][KCU_NV];
    __shared__ double sums[6];
    if (warp == 0) {
        double carry = 0.0, qf = 0.0, qc = 0.0, et = 0.0, fm = 0.0, smax = 0.0;
        for (int base = 0; base < Nn; base += 32) {
            const int j = base + lane;
            const bool ok = j < Nn;
            double step = 0.0;
            double2 la = make_double2(0.0, 0.0), gj = make_double2(0.0, 0.0);
            if (ok) {
                const double2 d = W[(size_t)j * KCU_NV];
                la = W[(size_t)j * KCU_NV + 1];
                gj = W[(size_t)j * KCU_NV + 2];
                if (j == 0) {
                    step = atan2(d.y, d.x);
                } else {
                    const double2 p = W[(size_t)(j - 1) * KCU_NV]; /* d conj(p) */
                    step = atan2(d.y * p.x - d.x * p.y, d.x * p.x + d.y * p.y);
                    smax = fmax(smax, fabs(step));
                }
            }
            double x = step;
            for (int o = 1; o < 32; o <<= 1) {
                const double y = __shfl_up_sync(0xffffffffu, x, o);
                if (lane >= o)
                    x += y;
            }
            const double phase = carry + x;
            carry += __shfl_sync(0xffffffffu, x, 31);
            if (ok) {
                const double w = j == 0 || j == N ? 0.5 : 1.0;
                const double imF = gj.y * la.x + gj.x * phase;
                const double reF = gj.x * la.x - gj.y * phase;
                fm = fmax(fm, reF * reF + imF * imF);
                qf += w * imF;
                if (j % 2 == 0)
                    qc += w * imF;
                et += w * la.y;
            }
        }
        qf = kcu_warp_sum(qf);
        qc = kcu_warp_sum(qc);
        et = kcu_warp_sum(et);
        for (int o = 16; o > 0; o >>= 1) {
            fm = fmax(fm, __shfl_down_sync(0xffffffffu, fm, o));
            smax = fmax(smax, __shfl_down_sync(0xffffffffu, smax, o));
        }
        if (lane == 0) {
            sums[0] = qf;
            sums[1] = qc;
            sums[2] = et;
            sums[3] = fm;
            sums[4] = smax;
            sums[5] = carry;
        }
    } else if (tid - 32 < T->np * KCU_NV) {
        const int k = (tid - 32) / KCU_NV, c = (tid - 32) % KCU_NV;
        double2 acc = make_double2(0.0, 0.0);
        if (c < K) {
            const double2 tp = make_double2(T->pole_re[k], T->pole_im[k]);
            const double *mc = mu + (size_t)c * M;
            for (int m = M - 1; m >= 1; m--)
                acc = kcc_mul(make_double2(acc.x + mc[m], acc.y), tp);
            acc.x += 0.5 * mc[0];
        }
        pchi[k][c] = acc;
    }
    __syncthreads();
    if (tid != 0)
        return;
    const double Tk = T->cT, pi = KCU_PI;
    double st = T->out[3];
    if (st == KCU_ST_OK && (sums[4] > 2.0 || fabs(sums[5]) > 1.0)) {
        st = KCU_ST_CPHASE;
        T->out[1] = sums[4];
        T->out[2] = sums[5];
    }
    const double su = mu[0] + (K > 1 ? mu[M] : 0.0); /* sum_a |u_a|^2 */
    const double pref = 1.0 / (pi * Tk), h_th = pi / (double)N;
    const double tail = 2.0 * su * exp(-(double)M * gam) / -expm1(-gam);
    const double dq = pref * fabs(h_th * sums[0] - 2.0 * h_th * sums[1]);
    const double Nt = (double)N * T->tau;
    const double e_half = Nt >= 8.0 ? dq * exp(-Nt) : dq;
    const double r2 = exp(-2.0 * Nt);
    const double e_strip = pref * 2.0 * pi * sqrt(sums[3]) * r2 / (1.0 - r2);
    double ds = -pref * h_th * sums[0];
    double e = pref * h_th * sums[2] * tail + (e_half > e_strip ? e_half : e_strip);
    for (int k = 0; k < T->np && st == KCU_ST_OK; k++) {
        const double2 tp = make_double2(T->pole_re[k], T->pole_im[k]);
        /* W~ = 4 t chi / (1 - t^2) */
        const double2 f = kcc_div(kcc_scale(tp, 4.0),
                                  kcc_sub(make_double2(1.0, 0.0), kcc_mul(tp, tp)));
        double2 G4[KCU_NV];
        for (int c = 0; c < KCU_NV; c++)
            G4[c] = kcc_mul(f, pchi[k][c]);
        double adj2;
        const double2 d = kcc_det(T, G4, T->inv_a, &adj2);
        const double d2 = d.x * d.x + d.y * d.y;
        if (!(d2 > 0.0)) {
            st = KCU_ST_CPOLE;
            T->out[1] = k;
            break;
        }
        ds -= log(d2); /* 2 log|d| */
        const double at = sqrt(tp.x * tp.x + tp.y * tp.y);
        const double2 it = kcc_div(make_double2(1.0, 0.0), tp);
        const double sphi =
            0.5 * sqrt((it.x - tp.x) * (it.x - tp.x) + (it.y - tp.y) * (it.y - tp.y));
        const double dW = 2.0 * su * pow(at, (double)M) / ((1.0 - at) * sphi);
        e += 2.0 * sqrt(adj2 / d2) * T->inv_a * dW;
    }
    if (st == KCU_ST_OK) {
        T->out[0] = ds;
        T->out[1] = e;
    }
    T->out[3] = st;
    if (timer)
        L.phase_ns[2] = L.phase_ns[3] = kcu_timer_ns();
}

#endif
