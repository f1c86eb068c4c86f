/* kbe_cuda_sigma.cu — second Born on the GPU: the self-energy's row Sigma^lg(t_m, t_s),
 * s = 0 .. m (and order p's line of one strip point, which crosses the diagonal: the pairs
 * (s, m) past m, kbe_bdf.c's sigma_line), by cuFFT (the seed's loops: kbe_cuda_direct.cu;
 * kbe_selfenergy.c says the formula; the collision integrals: kbe_cuda_collision.cu). */
#include "kbe_cuda_internal.cuh"

/* the other band */
__device__ __forceinline__ int ob(int a) { return 1 - a; }

/* the four FFT rows of t_m: A^< = G^<(t_m, t_s) / nk, B^< = -G^>(t_m, t_s)^dagger / nk (that
 * is G^>(t_s, t_m)), A^> = G^>(t_m, t_s) / nk, B^> = -G^<(t_m, t_s)^dagger / nk; entries
 * s > m of a line (order p > 2) take the pair (s, m) instead (line_pair) */
__global__ void k_sigma_prep(size_t nk, size_t m, size_t count, const cplx *gl, const cplx *gg,
                             cplx *fa, cplx *fb, cplx *fc, cplx *fd)
{
    const size_t bs = 4 * nk, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= count * bs)
        return;
    const size_t s = t / bs, q = (t / nk) % 4, k = t % nk;
    const size_t qt = q == 1 ? 2 : q == 2 ? 1 : q; /* the transposed band pair */
    const cplx *bl = gl + line_pair(m, s) * bs, *bg = gg + line_pair(m, s) * bs;
    const double dn = (double)nk;
    const cplx al = bl[q * nk + k], ag = bg[q * nk + k];
    const cplx tl = bl[qt * nk + k], tg = bg[qt * nk + k];
    fa[t] = make_cuDoubleComplex(al.x / dn, al.y / dn);
    fc[t] = make_cuDoubleComplex(ag.x / dn, ag.y / dn);
    fb[t] = make_cuDoubleComplex(-tg.x / dn, tg.y / dn); /* -conj */
    fd[t] = make_cuDoubleComplex(-tl.x / dn, tl.y / dn);
}

/* Sigma(R) = U U' [A_pq(R) A_p'q'(R) B_q'p'(-R) - A_pq'(R) B_q'p'(-R) A_p'q(R)] per (s, R) */
__global__ void k_sigma_mul(size_t nk, size_t m, size_t count, const double *U, const cplx *fa,
                            const cplx *fb, const cplx *fc, const cplx *fd, cplx *sl, cplx *sg)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= count * nk)
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
    return kbcu_sigma_line(d, m, m + 1, d->sl, d->sg);
}

int kbcu_sigma_line(kbcu_dev *d, size_t m, size_t count, cplx *ol, cplx *og)
{
    cudaStream_t st = mcu_stream();
    const size_t nk = d->nk, bs = 4 * nk;
    if (d->s.direct)
        return kbcu_sigma_direct(d, m, count, ol, og);
    k_sigma_prep<<<blocks_for(count * bs), KBCU_THREADS, 0, st>>>(nk, m, count, d->gl, d->gg,
                                                                  d->fa, d->fb, d->fc, d->fd);
    int rc = launched("the self-energy's rows");
    cplx *rows[4] = {d->fa, d->fb, d->fc, d->fd};
    for (int q = 0; q < 4 && !rc; q++)
        rc = fft_rows(d, rows[q], count - 1, CUFFT_INVERSE);
    if (rc)
        return rc;
    k_sigma_mul<<<blocks_for(count * nk), KBCU_THREADS, 0, st>>>(nk, m, count, d->U, d->fa,
                                                                 d->fb, d->fc, d->fd, ol, og);
    rc = launched("the self-energy's products");
    if (!rc)
        rc = fft_rows(d, ol, count - 1, CUFFT_FORWARD);
    if (!rc)
        rc = fft_rows(d, og, count - 1, CUFFT_FORWARD);
    return rc;
}
