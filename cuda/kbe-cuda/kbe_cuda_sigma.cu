/* kbe_cuda_sigma.cu — second Born on the GPU: the self-energy's row Sigma^lg(t_m, t_s),
 * s = 0 .. m, by cuFFT (or by the seed's loops: kbe_cuda_direct.cu), and the collision integrals' row
 * I^lg(t_m, t_j), j = 0 .. m (kbe_collision.c and kbe_selfenergy.c say the formulas; the
 * operations here are theirs, in their order). */
#include "kbe_cuda_internal.cuh"

/* the other band */
__device__ __forceinline__ int ob(int a) { return 1 - a; }

/* the four FFT rows of t_m: A^< = G^<(t_m, t_s) / nk, B^< = -G^>(t_m, t_s)^dagger / nk (that
 * is G^>(t_s, t_m)), A^> = G^>(t_m, t_s) / nk, B^> = -G^<(t_m, t_s)^dagger / nk */
__global__ void k_sigma_prep(size_t nk, size_t m, const cplx *gl, const cplx *gg, cplx *fa,
                             cplx *fb, cplx *fc, cplx *fd)
{
    const size_t bs = 4 * nk, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= (m + 1) * bs)
        return;
    const size_t s = t / bs, q = (t / nk) % 4, k = t % nk;
    const size_t qt = q == 1 ? 2 : q == 2 ? 1 : q; /* the transposed band pair */
    const cplx *bl = gl + pair_of(m, s) * bs, *bg = gg + pair_of(m, s) * bs;
    const double dn = (double)nk;
    const cplx al = bl[q * nk + k], ag = bg[q * nk + k];
    const cplx tl = bl[qt * nk + k], tg = bg[qt * nk + k];
    fa[t] = make_cuDoubleComplex(al.x / dn, al.y / dn);
    fc[t] = make_cuDoubleComplex(ag.x / dn, ag.y / dn);
    fb[t] = make_cuDoubleComplex(-tg.x / dn, tg.y / dn); /* -conj */
    fd[t] = make_cuDoubleComplex(-tl.x / dn, tl.y / dn);
}

/* Sigma(R) = U U' [A_pq(R) A_p'q'(R) B_q'p'(-R) - A_pq'(R) B_q'p'(-R) A_p'q(R)] per (s, R) */
__global__ void k_sigma_mul(size_t nk, size_t m, const double *U, const cplx *fa,
                            const cplx *fb, const cplx *fc, const cplx *fd, cplx *sl, cplx *sg)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= (m + 1) * nk)
        return;
    const size_t s = t / nk, r = t % nk, mr = (nk - r) % nk, bs = 4 * nk;
    const double uu = U[m] * U[s];
    for (int lesser = 1; lesser >= 0; lesser--) {
        const cplx *a = (lesser ? fa : fc) + s * bs, *b = (lesser ? fb : fd) + s * bs;
        cplx *S = (lesser ? sl : sg) + s * bs;
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                const int pq = 2 * p + q, pqq = 2 * p + ob(q), ppq = 2 * ob(p) + q;
                const int ppqq = 2 * ob(p) + ob(q), qqpp = 2 * ob(q) + ob(p);
                const cplx br = b[qqpp * nk + mr];
                const cplx v = csub(cmul(cmul(a[pq * nk + r], a[ppqq * nk + r]), br),
                                    cmul(cmul(a[pqq * nk + r], br), a[ppq * nk + r]));
                S[pq * nk + r] = cscale(uu, v);
            }
    }
}

/* acc += wt (a b) per k's 2 x 2, or with b_adj acc -= wt (a b^dagger) (kbe_internal.h's
 * block_madd): a, b the 4 values of k */
__device__ __forceinline__ void madd(double wt, const cplx *a, const cplx *b, int b_adj,
                                     cplx *acc)
{
    if (!b_adj) {
        acc[0] = cadd(acc[0], cscale(wt, cadd(cmul(a[0], b[0]), cmul(a[1], b[2]))));
        acc[1] = cadd(acc[1], cscale(wt, cadd(cmul(a[0], b[1]), cmul(a[1], b[3]))));
        acc[2] = cadd(acc[2], cscale(wt, cadd(cmul(a[2], b[0]), cmul(a[3], b[2]))));
        acc[3] = cadd(acc[3], cscale(wt, cadd(cmul(a[2], b[1]), cmul(a[3], b[3]))));
    } else { /* (-b^dagger)_pq = -conj(b_qp) */
        const cplx b0 = cconj(b[0]), b1 = cconj(b[2]), b2 = cconj(b[1]), b3 = cconj(b[3]);
        acc[0] = csub(acc[0], cscale(wt, cadd(cmul(a[0], b0), cmul(a[1], b2))));
        acc[1] = csub(acc[1], cscale(wt, cadd(cmul(a[0], b1), cmul(a[1], b3))));
        acc[2] = csub(acc[2], cscale(wt, cadd(cmul(a[2], b0), cmul(a[3], b2))));
        acc[3] = csub(acc[3], cscale(wt, cadd(cmul(a[2], b1), cmul(a[3], b3))));
    }
}

/* I^lg(t_m, t_j) = int_0^{t_m} [Sigma^> - Sigma^<](t_m, s) G^lg(s, t_j) ds
 *                - int_0^{t_j} Sigma^lg(t_m, s) [G^> - G^<](s, t_j) ds, trapezoid rule,
 * one thread per (j, k), s in the CPU's order */
__global__ void k_collision_row(size_t nk, size_t m, double dt, const cplx *gl, const cplx *gg,
                                const cplx *sl, const cplx *sg, cplx *il, cplx *ig)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= (m + 1) * nk)
        return;
    const size_t j = t / nk, k = t % nk, bs = 4 * nk;
    cplx ol[4], og[4], a[4], b[4], x[4];
    for (int q = 0; q < 4; q++)
        ol[q] = og[q] = make_cuDoubleComplex(0.0, 0.0);
    for (size_t s = 0; s <= m && m > 0; s++) { /* int_0^{t_m} Sigma^R G^lg */
        const double wt = dt * (s == 0 || s == m ? 0.5 : 1.0);
        const int adj = s < j;
        const size_t r = adj ? j : s, c = adj ? s : j;
        load4(sl + s * bs, nk, k, x);
        load4(sg + s * bs, nk, k, a);
        for (int q = 0; q < 4; q++)
            a[q] = csub(a[q], x[q]);
        load4(gl + pair_of(r, c) * bs, nk, k, b);
        madd(wt, a, b, adj, ol);
        load4(gg + pair_of(r, c) * bs, nk, k, b);
        madd(wt, a, b, adj, og);
    }
    for (size_t s = 0; s <= j && j > 0; s++) { /* - int_0^{t_j} Sigma^lg [G^> - G^<] */
        const double wt = dt * (s == 0 || s == j ? 0.5 : 1.0);
        const int adj = s < j;
        cplx g_g[4], g_l[4];
        load4(gg + pair_of(j, s) * bs, nk, k, g_g);
        load4(gl + pair_of(j, s) * bs, nk, k, g_l);
        load4(sl + s * bs, nk, k, a);
        madd(-wt, a, g_g, adj, ol);
        madd(wt, a, g_l, adj, ol);
        load4(sg + s * bs, nk, k, a);
        madd(-wt, a, g_g, adj, og);
        madd(wt, a, g_l, adj, og);
    }
    store4(il + j * bs, nk, k, ol);
    store4(ig + j * bs, nk, k, og);
}

/* cuFFT over the rows x[0 .. m] (4 band pairs each), in chunks of KBCU_CHUNK time points */
static int fft_rows(kbcu_dev *d, cplx *x, size_t m, int dir)
{
    const size_t bs = 4 * d->nk;
    for (size_t c0 = 0; c0 <= m; c0 += KBCU_CHUNK)
        if (cufftExecZ2Z(d->plan, x + c0 * bs, x + c0 * bs, dir) != CUFFT_SUCCESS)
            return mcf_fail(MCF_EDEVICE, "kbe-cuda: cuFFT failed on the self-energy's row");
    return MCF_OK;
}

/* the self-energy's row at t_m into d->sl, d->sg */
int kbcu_sigma_row(kbcu_dev *d, size_t m)
{
    cudaStream_t st = mcu_stream();
    const size_t nk = d->nk, bs = 4 * nk;
    if (d->s.direct)
        return kbcu_sigma_direct(d, m);
    k_sigma_prep<<<blocks_for((m + 1) * bs), KBCU_THREADS, 0, st>>>(nk, m, d->gl, d->gg, d->fa,
                                                                    d->fb, d->fc, d->fd);
    int rc = launched("the self-energy's rows");
    cplx *rows[4] = {d->fa, d->fb, d->fc, d->fd};
    for (int q = 0; q < 4 && !rc; q++)
        rc = fft_rows(d, rows[q], m, CUFFT_INVERSE);
    if (rc)
        return rc;
    k_sigma_mul<<<blocks_for((m + 1) * nk), KBCU_THREADS, 0, st>>>(nk, m, d->U, d->fa, d->fb,
                                                                   d->fc, d->fd, d->sl, d->sg);
    rc = launched("the self-energy's products");
    if (!rc)
        rc = fft_rows(d, d->sl, m, CUFFT_FORWARD);
    if (!rc)
        rc = fft_rows(d, d->sg, m, CUFFT_FORWARD);
    return rc;
}

int kbcu_collision_row(kbcu_dev *d, size_t m, cplx *il, cplx *ig)
{
    const size_t nk = d->nk;
    k_collision_row<<<blocks_for((m + 1) * nk), KBCU_THREADS, 0, mcu_stream()>>>(
        nk, m, d->s.dt, d->gl, d->gg, d->sl, d->sg, il, ig);
    return launched("the collision integrals");
}
