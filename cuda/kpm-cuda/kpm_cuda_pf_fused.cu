/* kpm_cuda_pf_fused.cu — the pseudofermion gradient (kpm_cuda_pf.cu's kcu_pf_record, the
 * formula in plugins/kpm/kpm_series.h) in ONE cooperative kernel: one thread per row, every
 * row's thread resident at once, a grid-wide barrier between Chebyshev orders.  What the
 * launches per order paid for and this does not:
 *   - ~3 M launches (forward step, backward step, terms), each a few us of gap;
 *   - the terms kernel, which read every row's nb psi and every neighbour's nb alpha again
 *     from L2 at every order (width x 2 nb x 16 bytes a row): here the thread that computes
 *     row r's backward step has psi_{j+1}(r) (its old Y) and alpha_j at the neighbours (its
 *     gathers of X) in hand, and adds the term of order j + 1 to the row's gradient, which
 *     stays in registers through all orders (written once at the end);
 *   - the series' sum acc, also kept in registers through the forward pass.
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
 * device holds a thread for every row at once (cudaLaunchCooperativeKernel refuses a grid
 * that is not resident: 32^3 = 32768 rows fit on an H200), and by the plugin's rule only
 * where the rows fill every SM or several chains share the launch (one chain below that:
 * the launches were faster); elsewhere the launches.
 * tests/gpu/test_kpm_cuda_pf_fused.c holds it to the launches' results. */
#include "kpm_cuda_pf.cuh"

#include <stdlib.h>
#include <string.h>

#define KCU_FUSED_NB 8       /* the most flavours */
#define KCU_FUSED_W 8        /* the most slots a row */
#define KCU_FUSED_THREADS 128
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

/* Row r's slots: column (-1: none) and entry, from the table (FR < 0) or from the field of
 * rank FR (kcu_fac_hop: the table's bits). */
template <int FR>
static __device__ __forceinline__ void kcu_fused_row(const kcu_fused_args &f, long long r,
                                                     int32_t *cs, double *hr, double *hi)
{
    double2 ar[FR > 0 ? FR : 1];
#pragma unroll
    for (int q = 0; q < FR; q++)
        ar[q] = f.field[r * FR + q];
#pragma unroll
    for (int k = 0; k < KCU_FUSED_W; k++) {
        cs[k] = k < f.width ? f.col[(long long)k * f.dim + r] : -1;
        hr[k] = hi[k] = 0.0;
        if (cs[k] < 0)
            continue;
        if (FR < 0) {
            hr[k] = f.hre[(long long)k * f.dim + r];
            hi[k] = f.him[(long long)k * f.dim + r];
        } else {
            double2 aj[FR > 0 ? FR : 1];
#pragma unroll
            for (int q = 0; q < FR; q++)
                aj[q] = f.field[(long long)cs[k] * FR + q];
            kcu_fac_hop<FR < 0 ? 0 : FR>(f.famp, ar, aj, &hr[k], &hi[k]);
        }
    }
}

/* p[v] = (ons_r - b) x(r, o + v) + sum_k H_rk x(c_k, o + v), v < n, x of stride B (the
 * order of kcu_row_product) */
static __device__ __forceinline__ void kcu_fused_product(const kcu_fused_args &f, long long r,
                                                         const double2 *x, int B, int o,
                                                         int n, const int32_t *cs,
                                                         const double *hr, const double *hi,
                                                         double2 *p)
{
    const double e = f.ons[r] - f.b;
#pragma unroll
    for (int v = 0; v < KCU_FUSED_NB; v++)
        if (v < n) {
            const double2 xr = x[r * B + o + v];
            p[v].x = e * xr.x;
            p[v].y = e * xr.y;
        }
#pragma unroll
    for (int k = 0; k < KCU_FUSED_W; k++) {
        if (cs[k] < 0)
            continue;
        const double2 *xc = x + (long long)cs[k] * B + o;
#pragma unroll
        for (int v = 0; v < KCU_FUSED_NB; v++)
            if (v < n) {
                const double2 u = xc[v];
                p[v].x += hr[k] * u.x - hi[k] * u.y;
                p[v].y += hr[k] * u.y + hi[k] * u.x;
            }
    }
}

/* The terms of one order for row r (kcu_pf_terms): psi the row's nb psi values, alpha at x
 * (stride 2 nb, the first nb) at the row and its slots; w the order's weight. */
static __device__ __forceinline__ void kcu_fused_terms(const kcu_fused_args &f, long long r,
                                                       const double2 *psi, const double2 *x,
                                                       const int32_t *cs, double w,
                                                       double *gdia, double *gr, double *gi)
{
    const int nb = f.nb, B2 = 2 * f.nb;
#pragma unroll
    for (int k = -1; k < KCU_FUSED_W; k++) {
        const long long c = k < 0 ? r : (long long)cs[k];
        if (c < 0)
            continue;
        double sr = 0.0, si = 0.0;
#pragma unroll
        for (int v = 0; v < KCU_FUSED_NB; v++)
            if (v < nb) {
                const double2 u = psi[v], a = x[c * B2 + v];
                sr += u.x * a.x + u.y * a.y;
                si += u.x * a.y - u.y * a.x;
            }
        if (k < 0) {
            *gdia += w * sr;
        } else {
            gr[k] += w * sr;
            gi[k] += w * si;
        }
    }
}

template <int FR>
__global__ void __launch_bounds__(KCU_FUSED_THREADS)
    kcu_pf_fused_kernel(const __grid_constant__ kcu_fused_batch B)
{
    cg::grid_group grid = cg::this_grid();
    int ch = 0; /* this block's chain */
    while (ch + 1 < B.n && (int)blockIdx.x >= B.first[ch + 1])
        ch++;
    const kcu_fused_args &f = B.f[ch];
    const long long r = (long long)((int)blockIdx.x - B.first[ch]) * blockDim.x + threadIdx.x;
    const bool mine = r < f.dim;
    const int nb = f.nb, B2 = 2 * nb, M = f.M;
    int32_t cs[KCU_FUSED_W];
    double hr[KCU_FUSED_W], hi[KCU_FUSED_W];
    if (mine)
        kcu_fused_row<FR>(f, r, cs, hr, hi); /* H stays through the gradient */
    /* forward: alpha_m = T_m(H~) phi in v0/v1, acc = sum_m c_m alpha_m */
    double2 acc[KCU_FUSED_NB];
#pragma unroll
    for (int v = 0; v < KCU_FUSED_NB; v++)
        if (mine && v < nb) {
            const double2 x = f.v0[r * nb + v];
            acc[v] = make_double2(f.c[0] * x.x, f.c[0] * x.y);
        }
    double2 *cur = f.v0, *old = f.v1;
    for (int m = 1; m <= B.most; m++) {
        const bool step = m <= f.steps;
        if (mine && step) {
            const double cm = m < M ? f.c[m] : 0.0;
            double2 p[KCU_FUSED_NB];
            kcu_fused_product(f, r, cur, nb, 0, nb, cs, hr, hi, p);
#pragma unroll
            for (int v = 0; v < KCU_FUSED_NB; v++)
                if (v < nb) {
                    double2 y;
                    if (m == 1) {
                        y.x = f.ia * p[v].x;
                        y.y = f.ia * p[v].y;
                    } else {
                        const double2 yo = old[r * nb + v];
                        y.x = 2.0 * f.ia * p[v].x - yo.x;
                        y.y = 2.0 * f.ia * p[v].y - yo.y;
                    }
                    old[r * nb + v] = y;
                    acc[v].x += cm * y.x;
                    acc[v].y += cm * y.y;
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
        if (mine)
#pragma unroll
            for (int v = 0; v < KCU_FUSED_NB; v++)
                if (v < nb)
                    f.acc[r * nb + v] = acc[v];
        return;
    }
    /* cur = alpha_M, old = alpha_{M-1}: X = [alpha_{M-1} | c_{M-1} phi], Y = [alpha_M | 0] */
    if (mine)
#pragma unroll
        for (int v = 0; v < KCU_FUSED_NB; v++)
            if (v < nb) {
                const double2 ph = f.phi[r * nb + v];
                f.acc[r * nb + v] = acc[v];
                f.X[r * B2 + v] = old[r * nb + v];
                f.X[r * B2 + nb + v] = make_double2(f.c[M - 1] * ph.x, f.c[M - 1] * ph.y);
                f.Y[r * B2 + v] = cur[r * nb + v];
                f.Y[r * B2 + nb + v] = make_double2(0.0, 0.0);
            }
    grid.sync();
    /* backward: X = [alpha_j | psi_j], Y = [alpha_{j+1} | psi_{j+1}] -> [alpha_{j-1} |
     * psi_{j-1}]; the terms of order j + 1 (weight 2 / a) from psi_{j+1}(r) and alpha_j.
     * Chain k's order j at the barrier M_k - 1 - j: the short ones are done first */
    double gdia = 0.0, gr[KCU_FUSED_W], gi[KCU_FUSED_W];
#pragma unroll
    for (int k = 0; k < KCU_FUSED_W; k++)
        gr[k] = gi[k] = 0.0;
    double2 *X = f.X, *Y = f.Y;
    for (int t = 0; t < B.most - 1; t++) {
        const int j = M - 1 - t;
        if (mine && j >= 1) {
            const double cj = f.c[j - 1];
            double2 p[KCU_FUSED_NB], psi[KCU_FUSED_NB];
            kcu_fused_product(f, r, X, B2, 0, nb, cs, hr, hi, p); /* the alpha half */
#pragma unroll
            for (int v = 0; v < KCU_FUSED_NB; v++)
                if (v < nb) {
                    const double2 yo = Y[r * B2 + v];
                    Y[r * B2 + v] = make_double2(2.0 * f.ia * p[v].x - yo.x,
                                                 2.0 * f.ia * p[v].y - yo.y);
                }
            kcu_fused_product(f, r, X, B2, nb, nb, cs, hr, hi, p); /* the psi half */
#pragma unroll
            for (int v = 0; v < KCU_FUSED_NB; v++)
                if (v < nb) {
                    psi[v] = Y[r * B2 + nb + v];
                    const double2 ph = f.phi[r * nb + v];
                    double2 y = make_double2(2.0 * f.ia * p[v].x - psi[v].x,
                                             2.0 * f.ia * p[v].y - psi[v].y);
                    y.x += cj * ph.x;
                    y.y += cj * ph.y;
                    Y[r * B2 + nb + v] = y;
                }
            if (j <= M - 2)
                kcu_fused_terms(f, r, psi, X, cs, 2.0 * f.ia, &gdia, gr, gi);
        }
        grid.sync();
        if (j >= 1) {
            double2 *tmp = X;
            X = Y;
            Y = tmp;
        }
    }
    /* X = [alpha_0 | psi_0], Y = [alpha_1 | psi_1]: the terms of order 1 (weight 1 / a) */
    if (mine) {
        double2 psi[KCU_FUSED_NB];
#pragma unroll
        for (int v = 0; v < KCU_FUSED_NB; v++)
            if (v < nb)
                psi[v] = Y[r * B2 + nb + v];
        kcu_fused_terms(f, r, psi, X, cs, f.ia, &gdia, gr, gi);
        f.gd[r] = gdia;
        for (int k = 0; k < f.width; k++) {
            f.gre[(long long)k * f.dim + r] = k < KCU_FUSED_W ? gr[k] : 0.0;
            f.gim[(long long)k * f.dim + r] = k < KCU_FUSED_W ? gi[k] : 0.0;
        }
    }
}

static const void *kcu_fused_kernel_of(int frank)
{
    if (frank == 0)
        return (const void *)kcu_pf_fused_kernel<0>;
    if (frank == 1)
        return (const void *)kcu_pf_fused_kernel<1>;
    if (frank == 2)
        return (const void *)kcu_pf_fused_kernel<2>;
    return (const void *)kcu_pf_fused_kernel<-1>;
}

extern "C" void kcu_pf_fused_mode(kcu_pf *s, int mode)
{
    s->fused_mode = mode;
}

static size_t kcu_fused_blocks(const kcu_pf *s)
{
    return (s->dim + KCU_FUSED_THREADS - 1) / KCU_FUSED_THREADS;
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
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kcu_fused_kernel_of(frank),
                                                      KCU_FUSED_THREADS, 0) != cudaSuccess ||
        per_sm < 1)
        return MCF_OK;
    const size_t sms = (size_t)mcu_props()->multiProcessorCount, room = (size_t)per_sm * sms;
    size_t blocks = 0, k = 0;
    for (; k < n && k < KCU_FUSED_CHAINS; k++) {
        const kcu_pf *s = jobs[k].s;
        const size_t more = kcu_fused_blocks(s);
        if (s->width > KCU_FUSED_W || s->dim > (size_t)INT32_MAX || jobs[k].M < 2 ||
            jobs[k].d->frank != frank ||
            (jobs[k].gd != NULL) != (jobs[0].gd != NULL) || blocks + more > room)
            break; /* the launch ends before this chain */
        blocks += more;
    }
    /* the rule: one chain of fewer rows than SMs x 128 leaves SMs idle and each order's
     * latency to few threads, where the launches spread (row, vector) over 5-10x more
     * threads (H200, density_gpu: 16^3 7.4 ms fused against 6.6 ms, 32^3 14.0 against 19.7) */
    if (k == 1 && s0->fused_mode == 0 && blocks < sms)
        k = 0;
    *fit = k;
    return MCF_OK;
}

int kcu_pf_fused(const kcu_pf_job *jobs, size_t n, size_t nb)
{
    kcu_fused_batch B;
    memset(&B, 0, sizeof B);
    B.n = (int)n;
    B.grad = jobs[0].gd != NULL;
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
        B.first[k + 1] = B.first[k] + (int)kcu_fused_blocks(s);
    }
    void *args[] = {(void *)&B};
    KCU_TRY(cudaLaunchCooperativeKernel(kcu_fused_kernel_of(jobs[0].d->frank),
                                        dim3((unsigned)B.first[n]), dim3(KCU_FUSED_THREADS),
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
