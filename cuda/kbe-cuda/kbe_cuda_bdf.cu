/* kbe_cuda_bdf.cu — the step of order p = 3 .. 5 past the start block on the GPU: the CPU's
 * kbe_step_bdf (plugins/kbe/kbe_bdf.c says the scheme) kernel for kernel, each kernel named
 * after the CPU function it mirrors and doing its operations per value in the same order:
 *
 *   k_predict (predict): the new row extrapolated from the last p rows, per (j, k);
 *   per pass: h(t_{n+1}) from the row's local density (kbe_cuda_step.cu's kernels), second
 *   Born's row Sigma(t_{n+1}, .) and Sigma^R = Sigma^> - Sigma^<, k_inverse (the 2 x 2
 *   (a_0 + i dt h + i dt^2 w Sigma^R)^{-1} per k), collision_rest for every j <= n by
 *   kbe_cuda_collision.cu's tiles with Gregory's weights (kbcu_collision_rest: each stored
 *   block read once, into order 2's integrals' rows il, ig, free here), k_rows (solve_rows:
 *   one thread per (j, k), j <= n + 1 - p), then the strip and the diagonal
 *   (kbe_cuda_strip.cu), the residual as the CPU's.
 *
 * The start block (rows 0 .. 2p - 2, kbe_start.c) is not here: kbe_cuda.c takes it from a
 * CPU kbe of the same spec and puts its rows (kbcu_dev_put_row).  The step reads nothing of
 * the start but G's rows and the drive (the CPU's kbe_step_bdf reads no integrals' row or
 * I^< of earlier steps), so the rows put are all it needs.
 *
 * Every sum has a fixed order (no atomics, the same bits every run); the tiles' order is not
 * the CPU's (rounding, as at order 2), the strip's and the diagonal's sums over s are. */
#include "kbe_cuda_bdf.cuh"

/* predict: G^lg(t_n1, t_j), j <= n1, = sum_l e_l G(t_{n1-l}, t_j) (the diagonal from the
 * diagonals), e_l = (-1)^{l+1} C(p, l); G^> = G^< - i on the diagonal */
__global__ void k_predict(kbcu_tab t, size_t nk, size_t n1, cplx *gl, cplx *gg)
{
    const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (q >= (n1 + 1) * nk)
        return;
    const size_t j = q / nk, k = q % nk, bs = 4 * nk;
    const int p = t.p;
    double e[KBCU_MAX_ORDER + 1];
    double c = 1.0;
    for (int l = 1; l <= p; l++) { /* C(p, l) with the alternating sign */
        c = c * (double)(p - l + 1) / (double)l;
        e[l] = (l % 2) ? c : -c;
    }
    cplx y[2][4];
    for (int lesser = 0; lesser < 2; lesser++) {
        for (int r = 0; r < 4; r++)
            y[lesser][r] = make_cuDoubleComplex(0.0, 0.0);
        for (int l = 1; l <= p; l++)
            add_g4(lesser ? gl : gg, nk, n1 - (size_t)l, j == n1 ? n1 - (size_t)l : j, k, e[l],
                   y[lesser]);
    }
    if (j == n1)
        for (int r = 0; r < 4; r++)
            y[0][r] = (r == 0 || r == 3) ? make_cuDoubleComplex(y[1][r].x, y[1][r].y - 1.0)
                                         : y[1][r];
    store4(gl + pair_of(n1, j) * bs, nk, k, y[1]);
    store4(gg + pair_of(n1, j) * bs, nk, k, y[0]);
}

/* Sigma^R(t_n1, t_s) = Sigma^> - Sigma^<, s = 0 .. n1 (kbe_step_bdf's loop) */
__global__ void k_retarded(size_t count, const cplx *sl, const cplx *sg, cplx *sr)
{
    const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (q < count)
        sr[q] = csub(sg[q], sl[q]);
}

/* kbe_step_bdf's (a_0 + i dt h + i dt^2 w_n1 Sigma^R(t_n1, t_n1))^{-1} per k into minv
 * (4 values per k, row-major, k-major as h) */
__global__ void k_inverse(kbcu_tab t, size_t nk, size_t n1, int coll, double dt, double wn,
                          const cplx *h1, const cplx *sr, cplx *minv)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nk)
        return;
    cplx m[4];
    for (int ab = 0; ab < 4; ab++) {
        const cplx h = h1[4 * k + ab];
        const cplx z = coll ? cadd(h, cscale(wn, sr[n1 * 4 * nk + ab * nk + k])) : h;
        const cplx iz = ctimes_i(dt, z);
        m[ab] = make_cuDoubleComplex((ab == 0 || ab == 3 ? t.a[0] : 0.0) + iz.x, iz.y);
    }
    const cplx det = csub(cmul(m[0], m[3]), cmul(m[1], m[2]));
    minv[4 * k] = cuCdiv(m[3], det);
    minv[4 * k + 1] = cuCdiv(make_cuDoubleComplex(-m[1].x, -m[1].y), det);
    minv[4 * k + 2] = cuCdiv(make_cuDoubleComplex(-m[2].x, -m[2].y), det);
    minv[4 * k + 3] = cuCdiv(m[0], det);
}

/* solve_rows: G^lg(t_n1, t_j), j <= n1 - p, = minv [-sum_{l>=1} a_l G(t_{n1-l}, t_j)
 * - i dt K^lg(t_n1, t_j)] per (j, k), K^lg collision_rest's in kl, kg (with collisions) */
__global__ void k_rows(kbcu_tab t, size_t nk, size_t n1, int coll, double dt, const cplx *minv,
                       cplx *gl, cplx *gg, const cplx *cl, const cplx *cg)
{
    const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t p = (size_t)t.p;
    if (q >= (n1 - p + 1) * nk)
        return;
    const size_t j = q / nk, k = q % nk, bs = 4 * nk;
    cplx kl[4], kg[4], y[4], v[4], x[4];
    if (coll) {
        load4(cl + j * bs, nk, k, kl);
        load4(cg + j * bs, nk, k, kg);
    }
    load4(minv + 4 * k, 1, 0, v);
    for (int lesser = 0; lesser < 2; lesser++) {
        for (int r = 0; r < 4; r++)
            y[r] = make_cuDoubleComplex(0.0, 0.0);
        for (size_t l = 1; l <= p; l++)
            add_g4(lesser ? gl : gg, nk, n1 - l, j, k, -t.a[l], y);
        if (coll) {
            const cplx *kk = lesser ? kl : kg;
            for (int r = 0; r < 4; r++)
                y[r] = csub(y[r], ctimes_i(dt, kk[r]));
        }
        /* kbe_apply_left */
        x[0] = cadd(cmul(v[0], y[0]), cmul(v[1], y[2]));
        x[1] = cadd(cmul(v[0], y[1]), cmul(v[1], y[3]));
        x[2] = cadd(cmul(v[2], y[0]), cmul(v[3], y[2]));
        x[3] = cadd(cmul(v[2], y[1]), cmul(v[3], y[3]));
        store4((lesser ? gl : gg) + pair_of(n1, j) * bs, nk, k, x);
    }
}

/* kbe_step_bdf */
extern "C" int kbcu_dev_step_bdf(kbcu_dev *d, size_t n, double E1, double U1, int passes)
{
    cudaStream_t st = mcu_stream();
    const size_t nk = d->nk, bs = 4 * nk, n1 = n + 1, p = (size_t)d->tab.p;
    const int coll = d->s.selfenergy == 2, inter = d->s.selfenergy != 0;
    const double dt = d->s.dt;
    if (p < 3 || n1 < 2 * p - 1)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: step %zu of order %zu is in the start block",
                        n1, p);
    k_set_drive<<<1, 1, 0, st>>>(d->E, d->U, n1, E1, U1);
    if (inter)
        k_predict<<<blocks_for((n1 + 1) * nk), KBCU_THREADS, 0, st>>>(d->tab, nk, n1, d->gl,
                                                                      d->gg);
    int rc = launched("the prediction of order p"), measured = 0;
    for (int pass = 0; pass < passes && !rc; pass++) {
        /* without interaction fill_h reads no density (and the row is not predicted) */
        if (inter)
            rc = kbcu_local_density(d, n1, d->rho);
        if (!rc)
            rc = kbcu_fill_h(d, n1, d->rho, d->h1);
        if (!rc && coll) { /* the self-energy's row at t_n1 from the current row */
            rc = kbcu_sigma_row(d, n1);
            if (!rc) {
                k_retarded<<<blocks_for((n1 + 1) * bs), KBCU_THREADS, 0, st>>>(
                    (n1 + 1) * bs, d->sl, d->sg, d->sr);
                rc = launched("Sigma^R");
            }
        }
        if (rc)
            break;
        const double wgt = coll ? dt * greg_w(d->tab, n1, n1) : 0.0;
        /* V (order 2's propagators) holds the inverses here */
        k_inverse<<<blocks_for(nk), KBCU_THREADS, 0, st>>>(d->tab, nk, n1, coll, dt, wgt, d->h1,
                                                           d->sr, d->V);
        rc = coll ? kbcu_collision_rest(d, n1, d->il, d->ig) : MCF_OK;
        if (rc)
            break;
        k_rows<<<blocks_for((n1 - p + 1) * nk), KBCU_THREADS, 0, st>>>(
            d->tab, nk, n1, coll, dt, d->V, d->gl, d->gg, d->il, d->ig);
        rc = launched("the rows of order p");
        if (!rc)
            rc = kbcu_bdf_strip(d, n1);
        const int last = pass > 0 && pass == passes - 1;
        if (!rc)
            rc = kbcu_bdf_diagonal(d, n1, last);
        measured = measured || last;
    }
    if (rc)
        return rc;
    kbcu_residual_of_step(d, measured);
    d->stale = 0; /* the step of order p forms no integrals' row for the next */
    return launched("a step of order p");
}
