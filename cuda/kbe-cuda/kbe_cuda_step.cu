/* kbe_cuda_step.cu — the second-order Kadanoff-Baym step of plugins/kbe (kbe_step.c,
 * kbe_collision.c, kbe_selfenergy.c) on the GPU, the same operations in the same order per
 * value so that the results agree to rounding:
 *
 *   per k (one thread each): h(t) from the local density (Hartree-Fock), the propagator
 *     V = exp(-i dt h_mid) of a Hermitian 2 x 2 in closed form, the new diagonal;
 *   per (j, k): the new row V G(t_n, t_j) + the collision integrals' trapezoid terms;
 *   second Born's row Sigma(t_m, t_s), s = 0 .. m: the blocks to real space by batched cuFFT
 *     (chunks of KBCU_CHUNK time points, 4 band pairs each), the products per lattice vector,
 *     back by cuFFT — or the seed's loops over k1, k3 per (s, band pair, k);
 *   the collision integrals I(t_m, t_j), j = 0 .. m, by tiles that read each stored block
 *     once (kbe_cuda_collision.cu: a fixed order, no atomics, the same bits on every run; not
 *     the CPU's order, so the two agree to rounding).
 * The local density is a fixed-order reduction (one warp per band pair), the residual a max.
 * Everything is enqueued on mcu_stream(); nothing waits for the host within a step.  The step
 * of order p (kbe_cuda_bdf.cu) borrows the local density and h(t) (kbcu_local_density,
 * kbcu_fill_h) and the arrays hn, h1, V as its own scratch. */
#include "kbe_cuda_internal.cuh"

#include <stdlib.h>

/* ---- per k: h, V, the diagonal ---- */

/* h_k at drive (E, U) and the local density rho (kbe_fill_h) */
__device__ void fill_h(const kbcu_dev_spec s, const double *eps, const cplx *rho, double E,
                       double U, size_t k, cplx *h)
{
    const double f = E * s.dipole;
    cplx sg[4] = {make_cuDoubleComplex(0, 0), make_cuDoubleComplex(0, 0),
                  make_cuDoubleComplex(0, 0), make_cuDoubleComplex(0, 0)};
    if (s.selfenergy == 1 || s.selfenergy == 2) {
        sg[0] = make_cuDoubleComplex(U * rho[3].x, 0.0);
        sg[3] = make_cuDoubleComplex(U * rho[0].x, 0.0);
        sg[1] = cscale(-U, rho[1]);
        sg[2] = cscale(-U, rho[2]);
    }
    h[0] = make_cuDoubleComplex(eps[2 * k] + sg[0].x, sg[0].y);
    h[1] = make_cuDoubleComplex(f + sg[1].x, sg[1].y);
    h[2] = make_cuDoubleComplex(f + sg[2].x, sg[2].y);
    h[3] = make_cuDoubleComplex(eps[2 * k + 1] + sg[3].x, sg[3].y);
}

/* h(t_n) into hn: rho the density at t_n */
__global__ void k_fill_hn(kbcu_dev_spec s, const double *eps, const cplx *rho, const double *E,
                          const double *U, size_t n, cplx *hn)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < s.nk)
        fill_h(s, eps, rho, E[n], U[n], k, hn + 4 * k);
}

/* V = exp(-i tau H) of the Hermitian 2 x 2 H (kbe_step.c's expm_herm2) */
__device__ void expm_herm2(const cplx *H, double tau, cplx *V)
{
    const double a = H[0].x, d = H[3].x;
    const double m = 0.5 * (a + d), z = 0.5 * (a - d);
    const double r = hypot(z, cuCabs(H[1]));
    const double c = cos(tau * r), sn = r > 0.0 ? sin(tau * r) / r : tau;
    const cplx ph = make_cuDoubleComplex(cos(tau * m), -sin(tau * m));
    V[0] = cmul(ph, make_cuDoubleComplex(c, -sn * z));
    V[1] = cmul(ph, cmul(make_cuDoubleComplex(0.0, -sn), H[1]));
    V[2] = cmul(ph, cmul(make_cuDoubleComplex(0.0, -sn), H[2]));
    V[3] = cmul(ph, make_cuDoubleComplex(c, sn * z));
}

/* a pass's propagator: h(t_{n+1}) from rho (the last estimate), the mean with h(t_n), V */
__global__ void k_propagator(kbcu_dev_spec s, const double *eps, const cplx *rho, double E1,
                             double U1, const cplx *hn, cplx *h1, cplx *V)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= s.nk)
        return;
    cplx h[4], hm[4];
    fill_h(s, eps, rho, E1, U1, k, h);
    for (int q = 0; q < 4; q++) {
        h1[4 * k + q] = h[q];
        hm[q] = cscale(0.5, cadd(hn[4 * k + q], h[q]));
    }
    expm_herm2(hm, s.dt, V + 4 * k);
}

/* y = V x for the 2 x 2 of k (x, y: 4 values) */
__device__ __forceinline__ void left(const cplx *v, const cplx *x, cplx *y)
{
    const cplx x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    y[0] = cadd(cmul(v[0], x0), cmul(v[1], x2));
    y[1] = cadd(cmul(v[0], x1), cmul(v[1], x3));
    y[2] = cadd(cmul(v[2], x0), cmul(v[3], x2));
    y[3] = cadd(cmul(v[2], x1), cmul(v[3], x3));
}

/* y = x V^dagger */
__device__ __forceinline__ void right_dagger(const cplx *v, const cplx *x, cplx *y)
{
    const cplx x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    y[0] = cadd(cmul(x0, cconj(v[0])), cmul(x1, cconj(v[1])));
    y[1] = cadd(cmul(x0, cconj(v[2])), cmul(x1, cconj(v[3])));
    y[2] = cadd(cmul(x2, cconj(v[0])), cmul(x3, cconj(v[1])));
    y[3] = cadd(cmul(x2, cconj(v[2])), cmul(x3, cconj(v[3])));
}

/* x + x^dagger of k's 2 x 2 */
__device__ __forceinline__ void herm_sum(const cplx *x, cplx *y)
{
    y[0] = make_cuDoubleComplex(2.0 * x[0].x, 0.0);
    y[3] = make_cuDoubleComplex(2.0 * x[3].x, 0.0);
    y[1] = cadd(x[1], cconj(x[2]));
    y[2] = cadd(x[2], cconj(x[1]));
}

/* the new row G(t_{n+1}, t_j), j <= n, of both G^< and G^> (kbe_step.c's advance) */
__global__ void k_advance_row(size_t nk, size_t n, int corr, double dt, const cplx *V,
                              cplx *gl, cplx *gg, const cplx *il, const cplx *ig,
                              const cplx *jl, const cplx *jg)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= (n + 1) * nk)
        return;
    const size_t j = t / nk, k = t % nk, bs = 4 * nk;
    const cplx c = make_cuDoubleComplex(0.0, -0.5 * dt);
    cplx v[4], x[4], y[4], w[4];
    load4(V + 4 * k, 1, 0, v);
    for (int lesser = 1; lesser >= 0; lesser--) {
        cplx *g = lesser ? gl : gg;
        load4(g + pair_of(n, j) * bs, nk, k, x);
        left(v, x, y);
        if (corr) {
            load4((lesser ? il : ig) + j * bs, nk, k, x);
            left(v, x, w);
            load4((lesser ? jl : jg) + j * bs, nk, k, x);
            for (int q = 0; q < 4; q++) {
                y[q] = cadd(y[q], cmul(c, w[q]));
                y[q] = cadd(y[q], cmul(c, x[q]));
            }
        }
        store4(g + pair_of(n + 1, j) * bs, nk, k, y);
    }
}

/* the new diagonal: G^< = V G^<(t_n, t_n) V^dagger (+ the integrals), G^> = G^< - i; the
 * change of G^< against the last pass's (measure) into resk[k] */
__global__ void k_advance_diag(size_t nk, size_t n, int corr, int measure, double dt,
                               const cplx *V, cplx *gl, cplx *gg, const cplx *il,
                               const cplx *jl, double *resk)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nk)
        return;
    const size_t bs = 4 * nk, n1 = n + 1;
    const cplx c = make_cuDoubleComplex(0.0, -0.5 * dt);
    cplx v[4], x[4], y[4], d[4], old[4];
    load4(V + 4 * k, 1, 0, v);
    load4(gl + pair_of(n, n) * bs, nk, k, x);
    left(v, x, y);
    right_dagger(v, y, d);
    if (corr) {
        load4(il + n * bs, nk, k, x);
        herm_sum(x, y);
        left(v, y, x);
        right_dagger(v, x, y);
        for (int q = 0; q < 4; q++)
            d[q] = cadd(d[q], cmul(c, y[q]));
        load4(jl + n1 * bs, nk, k, x);
        herm_sum(x, y);
        for (int q = 0; q < 4; q++)
            d[q] = cadd(d[q], cmul(c, y[q]));
    }
    cplx *dl = gl + pair_of(n1, n1) * bs, *dg = gg + pair_of(n1, n1) * bs;
    if (measure) {
        load4(dl, nk, k, old);
        double r = 0.0;
        for (int q = 0; q < 4; q++)
            r = fmax(r, cuCabs(csub(d[q], old[q])));
        resk[k] = r;
    }
    store4(dl, nk, k, d);
    for (int q = 0; q < 4; q++)
        d[q] = (q == 0 || q == 3) ? make_cuDoubleComplex(d[q].x, d[q].y - 1.0) : d[q];
    store4(dg, nk, k, d);
}

/* rho_loc = -i (1/nk) sum_k G^<(t_n, t_n): one warp per band pair, a fixed order */
__global__ void k_local_density(size_t nk, const cplx *b, cplx *rho)
{
    const int ab = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (ab >= 4)
        return;
    cplx s = make_cuDoubleComplex(0.0, 0.0);
    for (size_t k = (size_t)lane; k < nk; k += 32)
        s = cadd(s, b[ab * nk + k]);
    for (int o = 16; o > 0; o /= 2) {
        s.x += __shfl_down_sync(0xffffffffu, s.x, o);
        s.y += __shfl_down_sync(0xffffffffu, s.y, o);
    }
    if (lane == 0)
        rho[ab] = make_cuDoubleComplex(s.y / (double)nk, -s.x / (double)nk);
}

/* max over k of resk into res (one block) */
__global__ void k_max(size_t nk, const double *resk, double *res)
{
    __shared__ double m[KBCU_THREADS];
    double r = 0.0;
    for (size_t k = threadIdx.x; k < nk; k += blockDim.x)
        r = fmax(r, resk[k]);
    m[threadIdx.x] = r;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o /= 2) {
        if ((int)threadIdx.x < o)
            m[threadIdx.x] = fmax(m[threadIdx.x], m[threadIdx.x + o]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *res = m[0];
}

/* the step's corrector residual into res: the max over k of resk when a corrector pass
 * measured it, else 0 (enqueued) */
void kbcu_residual_of_step(kbcu_dev *d, int measured)
{
    if (measured)
        k_max<<<1, KBCU_THREADS, 0, mcu_stream()>>>(d->nk, d->resk, d->res);
    else
        cudaMemsetAsync(d->res, 0, sizeof(double), mcu_stream());
}

__global__ void k_set_drive(double *E, double *U, size_t n, double E1, double U1)
{
    E[n] = E1;
    U[n] = U1;
}

/* x[q] = y[q] for q < count */
__global__ void k_copy(size_t count, const cplx *y, cplx *x)
{
    const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (q < count)
        x[q] = y[q];
}

/* ---- the host side ---- */

extern "C" int kbcu_dev_create(const kbcu_dev_spec *s, kbcu_dev **out)
{
    *out = NULL;
    int rc = mcu_device_init("kbe-cuda", "kbe");
    if (rc)
        return rc;
    kbcu_dev *d = (kbcu_dev *)calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "kbe-cuda: out of memory");
    d->s = *s;
    d->s.eps = d->s.g0l = d->s.g0g = NULL;
    const size_t nk = s->nk, bs = 4 * nk, steps = s->steps;
    d->nk = nk;
    d->rows_alloc = (steps + 1 + KBCU_CHUNK - 1) / KBCU_CHUNK * KBCU_CHUNK;
    const size_t tri = (steps + 1) * (steps + 2) / 2 * bs, row = d->rows_alloc * bs;
    struct {
        void **p;
        size_t bytes;
        const char *what;
    } a[] = {
        {(void **)&d->gl, tri * sizeof(cplx), "G^< on the triangle"},
        {(void **)&d->gg, tri * sizeof(cplx), "G^> on the triangle"},
        {(void **)&d->hn, bs * sizeof(cplx), "h"},
        {(void **)&d->h1, bs * sizeof(cplx), "h"},
        {(void **)&d->V, bs * sizeof(cplx), "the propagators"},
        {(void **)&d->rho, 4 * sizeof(cplx), "the local density"},
        {(void **)&d->eps, 2 * nk * sizeof(double), "the bands"},
        {(void **)&d->E, (steps + 1) * sizeof(double), "the drive"},
        {(void **)&d->U, (steps + 1) * sizeof(double), "the ramp"},
        {(void **)&d->resk, nk * sizeof(double), "the residual"},
        {(void **)&d->res, sizeof(double), "the residual"},
    };
    const int na = (int)(sizeof a / sizeof a[0]);
    for (int q = 0; q < na; q++) {
        const cudaError_t e = cudaMalloc(a[q].p, a[q].bytes);
        if (e != cudaSuccess) {
            kbcu_dev_destroy(d);
            return mcu_fail((int)e, "kbe-cuda", a[q].what, a[q].bytes,
                            "fewer steps or k points, or evaluator = kbe");
        }
    }
    d->tab.p = s->order > 2 ? s->order : 2;
    for (int l = 0; d->tab.p > 2 && l <= d->tab.p; l++)
        d->tab.a[l] = s->bdf[l];
    for (int q = 0; d->tab.p > 2 && q < (2 * d->tab.p + 2) * (2 * d->tab.p + 2); q++)
        d->tab.greg[q] = s->greg[q];
    d->s.bdf = d->s.greg = NULL;
    if (d->tab.p > 2) { /* order p: the strip's local density, second Born's rows */
        cudaError_t e = cudaMalloc((void **)&d->rhoj, 4 * sizeof(cplx));
        cplx **r[3] = {&d->sr, &d->tl, &d->tg};
        for (int q = 0; q < 3 && s->selfenergy == 2 && e == cudaSuccess; q++)
            e = cudaMalloc((void **)r[q], row * sizeof(cplx));
        if (e != cudaSuccess) {
            kbcu_dev_destroy(d);
            return mcu_fail((int)e, "kbe-cuda", "the rows of order p (Sigma^R, the strip's "
                            "self-energy)", 3 * row * sizeof(cplx), "fewer steps or k points");
        }
    }
    if (s->selfenergy == 2) {
        cplx **r[11] = {&d->sl, &d->sg, &d->il, &d->ig, &d->jl, &d->jg,
                        &d->idiag, &d->fa, &d->fb, &d->fc, &d->fd};
        for (int q = 0; q < 11; q++) {
            const cudaError_t e = cudaMalloc((void **)r[q], row * sizeof(cplx));
            if (e == cudaSuccess)
                cudaMemsetAsync(*r[q], 0, row * sizeof(cplx), mcu_stream());
            else {
                kbcu_dev_destroy(d);
                return mcu_fail((int)e, "kbe-cuda", "the self-energy's rows",
                                row * sizeof(cplx), "fewer steps or k points");
            }
        }
        if (!s->direct) {
            int len = (int)nk;
            if (cufftPlanMany(&d->plan, 1, &len, NULL, 1, len, NULL, 1, len, CUFFT_Z2Z,
                              4 * KBCU_CHUNK) != CUFFT_SUCCESS ||
                cufftSetStream(d->plan, mcu_stream()) != CUFFT_SUCCESS) {
                kbcu_dev_destroy(d);
                return mcf_fail(MCF_EDEVICE, "kbe-cuda: no cuFFT plan for %zu k points", nk);
            }
            d->have_plan = 1;
        }
        const size_t scratch = kbcu_collision_scratch(d->rows_alloc, nk) * sizeof(cplx);
        const cudaError_t e = cudaMalloc((void **)&d->part, scratch);
        if (e != cudaSuccess) {
            kbcu_dev_destroy(d);
            return mcu_fail((int)e, "kbe-cuda", "the collision integrals' partial sums",
                            scratch, "fewer steps or k points");
        }
    }
    cudaStream_t st = mcu_stream();
    cudaMemcpyAsync(d->eps, s->eps, 2 * nk * sizeof(double), cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(d->gl, s->g0l, bs * sizeof(cplx), cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(d->gg, s->g0g, bs * sizeof(cplx), cudaMemcpyHostToDevice, st);
    k_set_drive<<<1, 1, 0, st>>>(d->E, d->U, 0, s->E0, s->U0);
    /* the host's arrays are the caller's: wait before they may go */
    const cudaError_t e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        kbcu_dev_destroy(d);
        return mcu_fail((int)e, "kbe-cuda", "uploading the initial state", 0, NULL);
    }
    *out = d;
    return MCF_OK;
}

extern "C" void kbcu_dev_destroy(kbcu_dev *d)
{
    if (!d)
        return;
    cudaStreamSynchronize(mcu_stream());
    if (d->have_plan)
        cufftDestroy(d->plan);
    if (d->have_exec)
        cudaGraphExecDestroy(d->exec);
    void *p[] = {d->gl, d->gg, d->sl, d->sg, d->il, d->ig, d->jl, d->jg, d->idiag, d->fa,
                 d->fb, d->fc, d->fd, d->part, d->hn, d->h1, d->V, d->rho, d->eps, d->E, d->U,
                 d->resk, d->res, d->sr, d->tl, d->tg, d->rhoj};
    for (size_t q = 0; q < sizeof p / sizeof p[0]; q++)
        cudaFree(p[q]);
    free(d);
}

extern "C" int kbcu_dev_step(kbcu_dev *d, size_t n, double E1, double U1, int passes)
{
    cudaStream_t st = mcu_stream();
    const size_t nk = d->nk, bs = 4 * nk, n1 = n + 1;
    const int b2 = d->s.selfenergy == 2;
    const unsigned kb = blocks_for(nk);
    if (d->stale) { /* rows put: the integrals' row at t_n, as the last step left it */
        int rc = kbcu_sigma_row(d, n);
        if (!rc)
            rc = kbcu_collision_row(d, n, d->il, d->ig);
        if (rc)
            return rc;
        d->stale = 0;
    }
    k_local_density<<<1, 128, 0, st>>>(nk, d->gl + pair_of(n, n) * bs, d->rho);
    k_fill_hn<<<kb, KBCU_THREADS, 0, st>>>(d->s, d->eps, d->rho, d->E, d->U, n, d->hn);
    k_set_drive<<<1, 1, 0, st>>>(d->E, d->U, n1, E1, U1);
    if (b2) { /* the predictor: J(t_{n+1}, t_j) = I(t_n, t_j), J(t_{n+1}, t_{n+1}) = I(t_n, t_n) */
        k_copy<<<blocks_for((n + 1) * bs), KBCU_THREADS, 0, st>>>((n + 1) * bs, d->il, d->jl);
        k_copy<<<blocks_for((n + 1) * bs), KBCU_THREADS, 0, st>>>((n + 1) * bs, d->ig, d->jg);
        k_copy<<<blocks_for(bs), KBCU_THREADS, 0, st>>>(bs, d->il + n * bs, d->jl + n1 * bs);
        k_copy<<<blocks_for(bs), KBCU_THREADS, 0, st>>>(bs, d->ig + n * bs, d->jg + n1 * bs);
    }
    int measured = 0;
    for (int pass = 0; pass < passes; pass++) {
        k_propagator<<<kb, KBCU_THREADS, 0, st>>>(d->s, d->eps, d->rho, E1, U1, d->hn, d->h1,
                                                  d->V);
        const int last = pass > 0 && pass == passes - 1;
        if (b2 || pass == passes - 1)
            k_advance_row<<<blocks_for((n + 1) * nk), KBCU_THREADS, 0, st>>>(
                nk, n, b2, d->s.dt, d->V, d->gl, d->gg, d->il, d->ig, d->jl, d->jg);
        k_advance_diag<<<kb, KBCU_THREADS, 0, st>>>(nk, n, b2, last, d->s.dt, d->V, d->gl,
                                                    d->gg, d->il, d->jl, d->resk);
        measured = measured || last;
        k_local_density<<<1, 128, 0, st>>>(nk, d->gl + pair_of(n1, n1) * bs, d->rho);
        if (b2) {
            int rc = kbcu_sigma_row(d, n1);
            if (rc)
                return rc;
            rc = kbcu_collision_row(d, n1, d->jl, d->jg);
            if (rc)
                return rc;
        }
    }
    kbcu_residual_of_step(d, measured);
    if (b2) { /* J becomes I */
        cplx *t = d->il;
        d->il = d->jl;
        d->jl = t;
        t = d->ig;
        d->ig = d->jg;
        d->jg = t;
        k_copy<<<blocks_for(bs), KBCU_THREADS, 0, st>>>(bs, d->il + n1 * bs,
                                                        d->idiag + n1 * bs);
    }
    return launched("a step");
}

int kbcu_local_density(kbcu_dev *d, size_t n, cplx *rho)
{
    k_local_density<<<1, 128, 0, mcu_stream()>>>(d->nk, d->gl + pair_of(n, n) * 4 * d->nk, rho);
    return launched("the local density");
}

int kbcu_fill_h(kbcu_dev *d, size_t n, const cplx *rho, cplx *h)
{
    k_fill_hn<<<blocks_for(d->nk), KBCU_THREADS, 0, mcu_stream()>>>(d->s, d->eps, rho, d->E,
                                                                     d->U, n, h);
    return launched("h(t)");
}

static int fetch(const cplx *src, size_t count, double *out, const char *what)
{
    cudaStream_t st = mcu_stream();
    cudaError_t e = cudaMemcpyAsync(out, src, count * sizeof(cplx), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    return e == cudaSuccess ? MCF_OK : mcu_fail((int)e, "kbe-cuda", what, 0, NULL);
}

extern "C" int kbcu_dev_block(kbcu_dev *d, int lesser, size_t i, size_t j, double *out)
{
    const size_t bs = 4 * d->nk;
    return fetch((lesser ? d->gl : d->gg) + pair_of(i, j) * bs, bs, out,
                 "reading a block of G");
}

extern "C" int kbcu_dev_idiag(kbcu_dev *d, size_t n, double *out)
{
    const size_t bs = 4 * d->nk;
    if (!d->idiag) {
        for (size_t q = 0; q < 2 * bs; q++)
            out[q] = 0.0;
        return MCF_OK;
    }
    return fetch(d->idiag + n * bs, bs, out, "reading the integrals' diagonal");
}

extern "C" int kbcu_dev_residual(kbcu_dev *d, double *r)
{
    cudaStream_t st = mcu_stream();
    cudaError_t e = cudaMemcpyAsync(r, d->res, sizeof(double), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    return e == cudaSuccess ? MCF_OK : mcu_fail((int)e, "kbe-cuda", "the residual", 0, NULL);
}

extern "C" int kbcu_dev_time_parts(kbcu_dev *d, size_t m, int reps, double *t_sigma,
                                   double *t_collision)
{
    cudaStream_t st = mcu_stream();
    *t_sigma = *t_collision = 0.0;
    if (d->s.selfenergy != 2)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: no collision integrals without second Born");
    cudaEvent_t ev[4];
    for (int q = 0; q < 4; q++)
        cudaEventCreate(&ev[q]);
    /* each part once untimed, then `reps` times between two events */
    int rc = MCF_OK;
    for (int r = 0; r <= reps && !rc; r++) {
        if (r == 1)
            cudaEventRecord(ev[0], st);
        rc = kbcu_sigma_row(d, m);
    }
    cudaEventRecord(ev[1], st);
    for (int r = 0; r <= reps && !rc; r++) {
        if (r == 1)
            cudaEventRecord(ev[2], st);
        if (!rc)
            rc = kbcu_collision_row(d, m, d->jl, d->jg);
    }
    cudaEventRecord(ev[3], st);
    const cudaError_t e = cudaEventSynchronize(ev[3]);
    float ms0 = 0.0f, ms1 = 0.0f;
    if (!rc && e == cudaSuccess) {
        cudaEventElapsedTime(&ms0, ev[0], ev[1]);
        cudaEventElapsedTime(&ms1, ev[2], ev[3]);
    }
    for (int q = 0; q < 4; q++)
        cudaEventDestroy(ev[q]);
    if (!rc && e != cudaSuccess)
        rc = mcu_fail((int)e, "kbe-cuda", "timing the step's parts", 0, NULL);
    if (!rc)
        rc = launched("timing the step's parts");
    *t_sigma = 1e-3 * ms0 / reps;
    *t_collision = 1e-3 * ms1 / reps;
    return rc;
}

/* count complex values between the device at dev and the host at host (to_host: out) */
static cudaError_t move(cplx *dev, double *host, size_t count, int to_host)
{
    if (!count)
        return cudaSuccess;
    return to_host ? cudaMemcpyAsync(host, dev, count * sizeof(cplx), cudaMemcpyDeviceToHost,
                                     mcu_stream())
                   : cudaMemcpyAsync(dev, host, count * sizeof(cplx), cudaMemcpyHostToDevice,
                                     mcu_stream());
}

extern "C" int kbcu_dev_get_row(kbcu_dev *d, size_t n, double *gl, double *gg, double *idiag)
{
    const size_t bs = 4 * d->nk;
    cudaError_t e = move(d->gl + pair_of(n, 0) * bs, gl, (n + 1) * bs, 1);
    if (e == cudaSuccess)
        e = move(d->gg + pair_of(n, 0) * bs, gg, (n + 1) * bs, 1);
    if (e == cudaSuccess && idiag && d->idiag)
        e = move(d->idiag + n * bs, idiag, bs, 1);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(mcu_stream());
    return e == cudaSuccess ? MCF_OK : mcu_fail((int)e, "kbe-cuda", "reading a row", 0, NULL);
}

extern "C" int kbcu_dev_put_row(kbcu_dev *d, size_t n, const double *gl, const double *gg,
                                const double *idiag, double E, double U)
{
    const size_t bs = 4 * d->nk;
    cudaError_t e = move(d->gl + pair_of(n, 0) * bs, (double *)gl, (n + 1) * bs, 0);
    if (e == cudaSuccess)
        e = move(d->gg + pair_of(n, 0) * bs, (double *)gg, (n + 1) * bs, 0);
    if (e == cudaSuccess && idiag && d->idiag)
        e = move(d->idiag + n * bs, (double *)idiag, bs, 0);
    k_set_drive<<<1, 1, 0, mcu_stream()>>>(d->E, d->U, n, E, U);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(mcu_stream()); /* the caller's buffer may go */
    if (e != cudaSuccess)
        return mcu_fail((int)e, "kbe-cuda", "writing a row", 0, NULL);
    d->stale = d->s.selfenergy == 2;
    return launched("writing a row");
}
