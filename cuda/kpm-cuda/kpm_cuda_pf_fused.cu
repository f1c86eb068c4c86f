/* kpm_cuda_pf_fused.cu — the pseudofermion gradient (kpm_cuda_pf.cu's kcu_pf_record, the
 * formula in plugins/kpm/kpm_series.h) in ONE cooperative kernel: four threads per row (two
 * flavours and two of the row's terms each), every row's threads resident at once, a
 * grid-wide barrier between Chebyshev orders.  What the launches per order paid for and this
 * does not:
 *   - ~3 M launches (forward step, backward step, terms), each a few us of gap;
 *   - the terms kernel, which read every row's nb psi and every neighbour's nb alpha again
 *     from L2 at every order (width x 2 nb x 16 bytes a row): here the row's lanes, between
 *     two orders, add the term of order j + 1 from psi_{j+1}(r) (the row's Y, before its
 *     lanes overwrite it) and alpha_j at the slots (the X the products gather, in L1), and
 *     the row's gradient stays in registers through all orders (written once at the end);
 *   - the series' sum acc, also kept in registers through the forward pass.
 * The row's entries sit in shared memory.  A row's four lanes read its nb flavours side by
 * side (one thread per row read them 80-160 bytes apart: half of each sector wasted, and 254
 * registers left 8 warps an SM; Nsight Compute at 32^3: 12 % occupancy, L2 51 % busy).
 * The arithmetic of every element is kcu_pf_step's and kcu_pf_terms' in the same order (the
 * terms of an entry summed over the flavours, then added order by order), so the result
 * equals the launches' to rounding (nvcc may contract products into fused multiply-adds
 * differently): tests/gpu's pseudofermion twin compares both with the CPU.
 *
 * One launch takes several chains (kcu_pf_batch: every chain's force of an HMC step, or
 * every chain's heat bath, in one pass): the blocks of chain k are first[k] .. first[k+1] - 1,
 * each chain has its own Hamiltonian, scratch, series and order M_k, and all run the barriers
 * of the longest (a chain idles through the orders it does not have; its arithmetic is what it
 * is alone, bit for bit).  The series alone (the heat bath's Q(H) chi) is the forward pass.
 *
 * It applies with at most KCU_FUSED_NB flavours and KCU_FUSED_W slots a row, and when the
 * device holds every row's threads at once (cudaLaunchCooperativeKernel refuses a grid
 * that is not resident: 32^3 = 32768 rows fit on an H200), on one chain or several; elsewhere
 * the launches.  With four threads a row it beats the launches on one chain at every size
 * measured (tests/bench/pf_fused_gpu on the H200, 8^3 ... 32^3: 1.5-1.9x), so the rule of the
 * thread-per-row kernel (the launches for one chain of fewer than 132 x 128 rows) is gone.
 * tests/gpu/test_kpm_cuda_pf_fused.c holds it to the launches' results. */
#include "kpm_cuda_pf.cuh"

#include <stdlib.h>
#include <string.h>

#define KCU_FUSED_LANES 4    /* threads a row */
#define KCU_FUSED_NB 8       /* the most flavours: two a lane */
#define KCU_FUSED_W 7        /* the most slots a row: with the diagonal two terms a lane */
/* Two block sizes, both asked of ptxas as 1024 threads an SM (at most 64 registers): 128
 * threads (32 rows) a block, 8 an SM, or 512 (128 rows), 2 an SM: a quarter of the blocks
 * meeting at each grid-wide barrier (kcu_fused_wide) */
#define KCU_FUSED_THREADS 128
#define KCU_FUSED_THREADS_WIDE 512
#define KCU_FUSED_CHAINS 16  /* the most chains of one launch (the arguments: < 4 KB) */

struct kcu_fused_args {
    const int32_t *col; /* the pattern (s->col), width x dim */
    const double *hre, *him, *ons;
    const double2 *field;
    double famp, ia, b;
    long long dim;
    int width, nb, M, steps; /* steps: M (the gradient) or M - 1 (the series alone) */
    const double *c; /* the series, M values, on the device */
    double2 *v0, *v1, *acc;
    const double2 *phi;
    double2 *X, *Y;
    double *gd, *gre, *gim;
};

/* the launch: its chains (blocks first[k] .. first[k + 1] - 1 are chain k's) */
struct kcu_fused_batch {
    kcu_fused_args f[KCU_FUSED_CHAINS];
    int first[KCU_FUSED_CHAINS + 1];
    int n, most, grad; /* most: the largest steps; grad: 0 the series alone */
};
static_assert(sizeof(kcu_fused_batch) <= 4000, "kernel arguments over 4 KB");

/* Slot k of row r: column (-1: none) and entry, from the table (FR < 0) or from the field of
 * rank FR (kcu_fac_hop: the table's bits). */
template <int FR>
static __device__ __forceinline__ void kcu_fused_slot(const kcu_fused_args &f, long long r,
                                                      int k, int32_t *c, double *hr, double *hi)
{
    *c = k < f.width ? f.col[(long long)k * f.dim + r] : -1;
    *hr = *hi = 0.0;
    if (*c < 0)
        return;
    if (FR < 0) {
        *hr = f.hre[(long long)k * f.dim + r];
        *hi = f.him[(long long)k * f.dim + r];
    } else {
        double2 ar[FR > 0 ? FR : 1], aj[FR > 0 ? FR : 1];
#pragma unroll
        for (int q = 0; q < FR; q++) {
            ar[q] = f.field[r * FR + q];
            aj[q] = f.field[(long long)*c * FR + q];
        }
        kcu_fac_hop<FR < 0 ? 0 : FR>(f.famp, ar, aj, hr, hi);
    }
}

/* The block's rows' slots, kept in shared memory for the whole kernel */
template <int ROWS> struct kcu_fused_rows {
    int32_t col[ROWS][KCU_FUSED_W];
    double hr[ROWS][KCU_FUSED_W], hi[ROWS][KCU_FUSED_W];
    double e[ROWS]; /* ons_r - b */
};

/* Element i of (H - b) x at row r, x of stride S (kcu_row_product's order: the diagonal,
 * then the slots in order) */
template <int ROWS>
static __device__ __forceinline__ double2 kcu_fused_product(const kcu_fused_rows<ROWS> &R, int lr,
                                                            long long r, const double2 *x,
                                                            int S, int i)
{
    const double e = R.e[lr];
    const double2 xr = x[r * S + i];
    double2 p = make_double2(e * xr.x, e * xr.y);
#pragma unroll
    for (int k = 0; k < KCU_FUSED_W; k++) {
        const int32_t c = R.col[lr][k];
        const double2 u = x[(long long)(c < 0 ? r : c) * S + i]; /* issued before the test */
        if (c < 0)
            continue;
        const double hr = R.hr[lr][k], hi = R.hi[lr][k];
        p.x += hr * u.x - hi * u.y;
        p.y += hr * u.y + hi * u.x;
    }
    return p;
}

/* The term of slot s (0: the diagonal, s: slot s - 1) of row r at one order (kcu_pf_terms):
 * sum over the flavours of conj(psi(r)) alpha(c), psi the psi half of Y at r, alpha the alpha
 * half of X at the slot's column, both of stride 2 nb; weighted by w into (g_re, g_im). */
template <int ROWS>
static __device__ __forceinline__ void kcu_fused_term(const kcu_fused_rows<ROWS> &R, int lr,
                                                      long long r, int s, int nb,
                                                      const double2 *X, const double2 *Y,
                                                      double w, double *g_re, double *g_im)
{
    const int32_t c = s == 0 ? (int32_t)r : R.col[lr][s - 1];
    if (c < 0)
        return;
    const int B2 = 2 * nb;
    double sr = 0.0, si = 0.0;
#pragma unroll
    for (int v = 0; v < KCU_FUSED_NB; v++)
        if (v < nb) {
            const double2 u = Y[r * B2 + nb + v], a = X[(long long)c * B2 + v];
            sr += u.x * a.x + u.y * a.y;
            si += u.x * a.y - u.y * a.x;
        }
    *g_re += w * sr;
    if (s > 0)
        *g_im += w * si;
}

/* KCU_FUSED_LANES threads a row: lane q holds the flavours q and q + 4 (the products, the
 * series' sums) and the terms of slots q and q + 4 (0: the diagonal; each lane's part of the
 * row's gradient stays in its registers through all orders).  A row's lanes are one warp's. */
template <int FR, int BS>
__global__ void __launch_bounds__(BS, 1024 / BS)
    kcu_pf_fused_kernel(const __grid_constant__ kcu_fused_batch B)
{
    constexpr int ROWS = BS / KCU_FUSED_LANES;
    __shared__ kcu_fused_rows<ROWS> R;
    cg::grid_group grid = cg::this_grid();
    int ch = 0; /* this block's chain */
    while (ch + 1 < B.n && (int)blockIdx.x >= B.first[ch + 1])
        ch++;
    const kcu_fused_args &f = B.f[ch];
    const int lr = (int)threadIdx.x / KCU_FUSED_LANES, q = (int)threadIdx.x % KCU_FUSED_LANES;
    const long long r = (long long)((int)blockIdx.x - B.first[ch]) * ROWS + lr;
    const bool mine = r < f.dim;
    const int nb = f.nb, B2 = 2 * nb, M = f.M;
    for (int k = q; k < KCU_FUSED_W; k += KCU_FUSED_LANES) /* H stays through the gradient */
        if (mine)
            kcu_fused_slot<FR>(f, r, k, &R.col[lr][k], &R.hr[lr][k], &R.hi[lr][k]);
        else
            R.col[lr][k] = -1;
    if (q == 0)
        R.e[lr] = mine ? f.ons[r] - f.b : 0.0;
    __syncthreads();
    /* forward: alpha_m = T_m(H~) phi in v0/v1, acc = sum_m c_m alpha_m */
    double2 acc[2] = {make_double2(0.0, 0.0), make_double2(0.0, 0.0)};
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int v = q + KCU_FUSED_LANES * h;
        if (mine && v < nb) {
            const double2 x = f.v0[r * nb + v];
            acc[h] = make_double2(f.c[0] * x.x, f.c[0] * x.y);
        }
    }
    double2 *cur = f.v0, *old = f.v1;
    for (int m = 1; m <= B.most; m++) {
        const bool step = m <= f.steps;
        if (mine && step) {
            const double cm = m < M ? f.c[m] : 0.0;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int v = q + KCU_FUSED_LANES * h;
                if (v >= nb)
                    continue;
                const double2 p = kcu_fused_product(R, lr, r, cur, nb, v);
                double2 y;
                if (m == 1) {
                    y.x = f.ia * p.x;
                    y.y = f.ia * p.y;
                } else {
                    const double2 yo = old[r * nb + v];
                    y.x = 2.0 * f.ia * p.x - yo.x;
                    y.y = 2.0 * f.ia * p.y - yo.y;
                }
                old[r * nb + v] = y;
                acc[h].x += cm * y.x;
                acc[h].y += cm * y.y;
            }
        }
        grid.sync();
        if (step) {
            double2 *t = cur;
            cur = old;
            old = t;
        }
    }
    if (!B.grad) { /* the series alone */
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int v = q + KCU_FUSED_LANES * h;
            if (mine && v < nb)
                f.acc[r * nb + v] = acc[h];
        }
        return;
    }
    /* cur = alpha_M, old = alpha_{M-1}: X = [alpha_{M-1} | c_{M-1} phi], Y = [alpha_M | 0] */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int v = q + KCU_FUSED_LANES * h;
        if (mine && v < nb) {
            const double2 ph = f.phi[r * nb + v];
            f.acc[r * nb + v] = acc[h];
            f.X[r * B2 + v] = old[r * nb + v];
            f.X[r * B2 + nb + v] = make_double2(f.c[M - 1] * ph.x, f.c[M - 1] * ph.y);
            f.Y[r * B2 + v] = cur[r * nb + v];
            f.Y[r * B2 + nb + v] = make_double2(0.0, 0.0);
        }
    }
    grid.sync();
    /* backward: X = [alpha_j | psi_j], Y = [alpha_{j+1} | psi_{j+1}] -> [alpha_{j-1} |
     * psi_{j-1}] in place; first the terms of order j + 1 (weight 2 / a) from psi_{j+1}(r) (the
     * row's Y, every flavour: the row's other lanes write it next, after the warp's barrier)
     * and alpha_j at the slots.  Chain k's order j at the barrier M_k - 1 - j */
    double g_re[2] = {0.0, 0.0}, g_im[2] = {0.0, 0.0};
    double2 *X = f.X, *Y = f.Y;
    for (int t = 0; t < B.most - 1; t++) {
        const int j = M - 1 - t;
        if (mine && j >= 1 && j <= M - 2)
#pragma unroll
            for (int h = 0; h < 2; h++)
                kcu_fused_term(R, lr, r, q + KCU_FUSED_LANES * h, nb, X, Y, 2.0 * f.ia,
                               &g_re[h], &g_im[h]);
        __syncwarp();
        if (mine && j >= 1) {
            const double cj = f.c[j - 1];
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int v = q + KCU_FUSED_LANES * h;
                if (v >= nb)
                    continue;
                const double2 pa = kcu_fused_product(R, lr, r, X, B2, v); /* the alpha half */
                const double2 pp = kcu_fused_product(R, lr, r, X, B2, nb + v); /* psi */
                const double2 yo = Y[r * B2 + v], psi = Y[r * B2 + nb + v];
                const double2 ph = f.phi[r * nb + v];
                Y[r * B2 + v] = make_double2(2.0 * f.ia * pa.x - yo.x, 2.0 * f.ia * pa.y - yo.y);
                double2 y = make_double2(2.0 * f.ia * pp.x - psi.x, 2.0 * f.ia * pp.y - psi.y);
                y.x += cj * ph.x;
                y.y += cj * ph.y;
                Y[r * B2 + nb + v] = y;
            }
        }
        grid.sync();
        if (j >= 1) {
            double2 *tmp = X;
            X = Y;
            Y = tmp;
        }
    }
    /* X = [alpha_0 | psi_0], Y = [alpha_1 | psi_1]: the terms of order 1 (weight 1 / a) */
    if (!mine)
        return;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int s = q + KCU_FUSED_LANES * h;
        kcu_fused_term(R, lr, r, s, nb, X, Y, f.ia, &g_re[h], &g_im[h]);
        if (s == 0) {
            f.gd[r] = g_re[h];
        } else if (s - 1 < f.width) {
            f.gre[(long long)(s - 1) * f.dim + r] = g_re[h];
            f.gim[(long long)(s - 1) * f.dim + r] = g_im[h];
        }
    }
}

template <int BS> static const void *kcu_fused_kernel_bs(int frank)
{
    if (frank == 0)
        return (const void *)kcu_pf_fused_kernel<0, BS>;
    if (frank == 1)
        return (const void *)kcu_pf_fused_kernel<1, BS>;
    if (frank == 2)
        return (const void *)kcu_pf_fused_kernel<2, BS>;
    return (const void *)kcu_pf_fused_kernel<-1, BS>;
}

/* the wide blocks: kcu_pf_fused_mode 2, or by the rule (mode 0) for a first chain of 8192
 * rows or more (H200, tests/bench/pf_fused_gpu, 5 flavours, M = 489, narrow against wide:
 * 8^3 3.5 / 4.3 ms, 16^3 3.7 / 4.8, 24^3 5.3 / 5.0, 32^3 10.9 / 8.7; the switch between the
 * last size where narrow won and the first where wide did) */
static int kcu_fused_wide(const kcu_pf *s0)
{
    return s0->fused_mode == 2 || (s0->fused_mode == 0 && s0->dim >= 8192);
}

static const void *kcu_fused_kernel_of(int frank, int wide)
{
    return wide ? kcu_fused_kernel_bs<KCU_FUSED_THREADS_WIDE>(frank)
                : kcu_fused_kernel_bs<KCU_FUSED_THREADS>(frank);
}

static int kcu_fused_threads(int wide)
{
    return wide ? KCU_FUSED_THREADS_WIDE : KCU_FUSED_THREADS;
}

extern "C" void kcu_pf_fused_mode(kcu_pf *s, int mode)
{
    s->fused_mode = mode;
}

static size_t kcu_fused_blocks(const kcu_pf *s, int wide)
{
    const size_t rows = (size_t)kcu_fused_threads(wide) / KCU_FUSED_LANES;
    return (s->dim + rows - 1) / rows;
}

int kcu_pf_fused_fit(const kcu_pf_job *jobs, size_t n, size_t nb, size_t *fit)
{
    *fit = 0;
    if (n == 0)
        return MCF_OK;
    const kcu_pf *s0 = jobs[0].s;
    const int frank = jobs[0].d->frank;
    if (s0->fused_mode < 0 || nb > KCU_FUSED_NB || frank > 2 || !mcu_props()->cooperativeLaunch)
        return MCF_OK;
    const int wide = kcu_fused_wide(s0);
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kcu_fused_kernel_of(frank, wide),
                                                      kcu_fused_threads(wide), 0) !=
            cudaSuccess ||
        per_sm < 1)
        return MCF_OK;
    const size_t sms = (size_t)mcu_props()->multiProcessorCount, room = (size_t)per_sm * sms;
    size_t blocks = 0, k = 0;
    for (; k < n && k < KCU_FUSED_CHAINS; k++) {
        const kcu_pf *s = jobs[k].s;
        const size_t more = kcu_fused_blocks(s, wide);
        if (s->width > KCU_FUSED_W || s->dim > (size_t)INT32_MAX || jobs[k].M < 2 ||
            jobs[k].d->frank != frank ||
            (jobs[k].gd != NULL) != (jobs[0].gd != NULL) || blocks + more > room)
            break; /* the launch ends before this chain */
        blocks += more;
    }
    *fit = k;
    return MCF_OK;
}

int kcu_pf_fused(const kcu_pf_job *jobs, size_t n, size_t nb)
{
    kcu_fused_batch B;
    memset(&B, 0, sizeof B);
    B.n = (int)n;
    B.grad = jobs[0].gd != NULL;
    const int wide = kcu_fused_wide(jobs[0].s);
    for (size_t k = 0; k < n; k++) {
        const kcu_pf_job *j = &jobs[k];
        kcu_pf *s = j->s;
        const kcu_ham *d = j->d;
        const size_t M = j->M;
        if (s->dev_c_n < M) {
            cudaFree(s->dev_c);
            s->dev_c = NULL;
            s->dev_c_n = 0;
            int rc = kcu_alloc((void **)&s->dev_c, M * sizeof(double), "the series");
            if (rc)
                return rc;
            s->dev_c_n = M;
        }
        KCU_TRY(cudaMemcpyAsync(s->dev_c, j->c, M * sizeof(double), cudaMemcpyHostToDevice,
                                kcu_stream), "the series", 0);
        kcu_fused_args &f = B.f[k];
        f.col = s->col;
        f.hre = d->hre;
        f.him = d->him;
        f.ons = d->ons;
        f.field = d->field;
        f.famp = d->famp;
        f.ia = 1.0 / j->a;
        f.b = j->b;
        f.dim = (long long)s->dim;
        f.width = s->width;
        f.nb = (int)nb;
        f.M = (int)M;
        f.steps = B.grad ? (int)M : (int)M - 1;
        f.c = s->dev_c;
        f.v0 = s->v0;
        f.v1 = s->v1;
        f.acc = s->acc;
        f.phi = s->phi;
        f.X = s->X;
        f.Y = s->Y;
        f.gd = s->gd;
        f.gre = s->gre;
        f.gim = s->gim;
        B.most = f.steps > B.most ? f.steps : B.most;
        B.first[k + 1] = B.first[k] + (int)kcu_fused_blocks(s, wide);
    }
    void *args[] = {(void *)&B};
    KCU_TRY(cudaLaunchCooperativeKernel(kcu_fused_kernel_of(jobs[0].d->frank, wide),
                                        dim3((unsigned)B.first[n]),
                                        dim3((unsigned)kcu_fused_threads(wide)),
                                        args, 0, kcu_stream),
            "launching the fused pseudofermion gradient", 0);
    return MCF_OK;
}

extern "C" int kcu_pf_batch(kcu_pf_job *jobs, size_t n, size_t nb)
{
    for (size_t k = 0; k < n; k++) {
        const kcu_pf_job *j = &jobs[k];
        const kcu_pf *s = j->s;
        if (nb < 1 || nb > s->block || j->d->dim != s->dim ||
            j->h->dim != s->dim || j->h->width != s->width)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: chain %zu of %zu: series of %zu vectors, "
                            "%zu terms, dimension %zu (the scratch: %zu of dimension %zu)", k,
                            n, nb, j->M, j->d->dim, s->block, s->dim);
        jobs[k].done = 0;
    }
    int rc = MCF_OK;
    for (size_t k0 = 0; k0 < n;) {
        size_t fit = 0;
        if ((rc = kcu_pf_fused_fit(jobs + k0, n - k0, nb, &fit)))
            return rc;
        if (fit < 2) { /* one chain alone: kcu_pf_gradient or kcu_series_apply take it */
            k0++;
            continue;
        }
        for (size_t k = k0; k < k0 + fit; k++)
            if ((rc = kcu_pf_stage_in(jobs[k].s, jobs[k].h, jobs[k].x, nb)))
                return rc;
        if ((rc = kcu_pf_fused(jobs + k0, fit, nb)))
            return rc;
        KCU_TRY(cudaGetLastError(), "launching the fused pseudofermion gradient", 0);
        for (size_t k = k0; k < k0 + fit; k++) {
            if ((rc = kcu_pf_stage_out(jobs[k].s, nb, jobs[k].gd != NULL)))
                return rc;
            jobs[k].done = 1;
        }
        k0 += fit;
    }
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the pseudofermions of a batch", 0);
    for (size_t k = 0; k < n; k++) {
        const kcu_pf_job *j = &jobs[k];
        if (j->done && (rc = kcu_pf_unpack(j->s, nb, j->a, j->b, j->y, j->gd, j->gre, j->gim)))
            return n > 1 ? mcf_fail_prefix(rc, "chain %zu of %zu", k, n) : rc;
    }
    return MCF_OK;
}
