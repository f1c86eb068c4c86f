/* kbe_cuda_strip.cu — the part of the step of order p (kbe_cuda_bdf.cu) next to the diagonal,
 * as the CPU's kbe_bdf.c does it, kernel for function:
 *
 *   the strip G(t_{n+1}, t_j), j = n + 2 - p .. n, one point after the other (solve_strip:
 *   point j reads the points left of it as this pass made them and those right of it as the
 *   last pass or the prediction left them, so the points cannot run side by side): per point
 *   h(t_j) from the local density at t_j, second Born's line Sigma^lg(t_j, t_s),
 *   s = 0 .. n + 1 (sigma_line: kbcu_sigma_line, then k_line_adjoint), and k_strip, one
 *   thread per k taking collision_rest's K from the tiles (kbe_cuda_bdf.cu), the integral
 *   J = I(t_j, t_{n+1}) and the 2 x 2 Sylvester system of both G^< and G^>;
 *   the diagonal (solve_diagonal): k_diagonal, one thread per k, the 4 x 4 system, G^> = D - i,
 *   I^<(t_{n+1}, t_{n+1}) for the energy and the change of G^< that the residual measures.
 *
 * Every thread reads and writes only its own k of the blocks, so a point's thread may read
 * its old value before it writes the new one, as the CPU's loop does. */
#include "kbe_cuda_bdf.cuh"

/* sigma_line's end: Sigma(t_j, t_s) = -Sigma(t_s, t_j)^dagger for s = j + 1 .. n1, the entry
 * s = n1 taken from the row at t_n1 (Sigma(t_n1, t_j), the current pass's) */
__global__ void k_line_adjoint(size_t nk, size_t j, size_t n1, const cplx *sl, const cplx *sg,
                               cplx *tl, cplx *tg)
{
    const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (q >= (n1 - j) * nk)
        return;
    const size_t s = j + 1 + q / nk, k = q % nk, bs = 4 * nk;
    for (int lesser = 1; lesser >= 0; lesser--) {
        cplx *out = (lesser ? tl : tg) + s * bs;
        const cplx *in = s == n1 ? (lesser ? sl : sg) + j * bs : out;
        cplx x[4], y[4];
        load4(in, nk, k, x);
        y[0] = make_cuDoubleComplex(-x[0].x, x[0].y); /* -conj */
        y[1] = make_cuDoubleComplex(-x[2].x, x[2].y);
        y[2] = make_cuDoubleComplex(-x[1].x, x[1].y);
        y[3] = make_cuDoubleComplex(-x[3].x, x[3].y);
        store4(out, nk, k, y);
    }
}

/* solve_strip's body for the point j at every k (wn = dt w_{n1 n1}, wj = dt w_{j j}; h1,
 * hj: h(t_n1), h(t_j), k-major) */
__global__ void k_strip(kbcu_tab t, size_t nk, size_t n1, size_t j, int coll, double dt,
                        double wn, double wj, const cplx *h1, const cplx *hj, cplx *gl,
                        cplx *gg, const cplx *cl, const cplx *cg, const cplx *sl,
                        const cplx *sg, const cplx *tl, const cplx *tg)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nk)
        return;
    const size_t bs = 4 * nk, p = (size_t)t.p;
    const cplx zero = make_cuDoubleComplex(0.0, 0.0);
    cplx rhs[2][4]; /* [lesser]: collision_rest's K^>, K^< (cg, cl), then the right sides */
    if (coll) {
        load4(cl + j * bs, nk, k, rhs[1]);
        load4(cg + j * bs, nk, k, rhs[0]);
    }
    for (int lesser = 0; lesser < 2; lesser++) {
        cplx *y = rhs[lesser];
        if (coll) { /* y = -i dt (K + J^dagger), J = I(t_j, t_n1) without s = t_j */
            const cplx *sig = lesser ? tl : tg, *g = lesser ? gl : gg;
            cplx jt[4] = {zero, zero, zero, zero}, a[4], b[4], c[4];
            for (size_t s = 0; s < j; s++) { /* Sigma^R(t_j, s) G(s, t_n1) */
                const double wt = dt * greg_w(t, j, s);
                load4(g + pair_of(n1, s) * bs, nk, k, b);
                load4(tg + s * bs, nk, k, a);
                madd4(wt, a, b, 1, jt);
                load4(tl + s * bs, nk, k, a);
                madd4(-wt, a, b, 1, jt);
            }
            for (size_t s = 0; s < n1; s++) { /* -Sigma^lg(t_j, s) [G^> - G^<](s, t_n1) */
                const double wt = dt * greg_w(t, n1, s);
                load4(sig + s * bs, nk, k, a);
                load4(gg + pair_of(n1, s) * bs, nk, k, b);
                load4(gl + pair_of(n1, s) * bs, nk, k, c);
                madd4(-wt, a, b, 1, jt);
                madd4(wt, a, c, 1, jt);
            }
            load4(sig + n1 * bs, nk, k, a); /* s = t_n1: G^> - G^< = -i */
            for (int q = 0; q < 4; q++)
                jt[q] = cadd(jt[q], ctimes_i(wn, a[q]));
            for (int ra = 0; ra < 2; ra++)
                for (int rb = 0; rb < 2; rb++) { /* -i dt z = (dt Im z, -dt Re z) */
                    const cplx z = cadd(y[2 * ra + rb], cconj(jt[2 * rb + ra]));
                    y[2 * ra + rb] = make_cuDoubleComplex(dt * z.y, -dt * z.x);
                }
        } else
            for (int q = 0; q < 4; q++)
                y[q] = zero;
        for (size_t l = 1; l <= p; l++)
            add_g4(lesser ? gl : gg, nk, n1 - l, j - l, k, -t.a[l], y);
    }
    cplx H[4], Hj[4], b[8], x[4], z[4];
    for (int ab = 0; ab < 4; ab++) {
        H[ab] = h1[4 * k + ab];
        Hj[ab] = hj[4 * k + ab];
        b[ab] = rhs[1][ab];
        b[4 + ab] = rhs[0][ab];
    }
    if (coll) {
        load4(sg + n1 * bs, nk, k, x);
        load4(sl + n1 * bs, nk, k, z);
        for (int ab = 0; ab < 4; ab++)
            H[ab] = cadd(H[ab], cscale(wn, csub(x[ab], z[ab])));
        load4(tg + j * bs, nk, k, x);
        load4(tl + j * bs, nk, k, z);
        for (int ab = 0; ab < 4; ab++)
            Hj[ab] = cadd(Hj[ab], cscale(wj, csub(x[ab], z[ab])));
    }
    sylvester4(t.a[0], dt, H, Hj, b, 2);
    store4(gl + pair_of(n1, j) * bs, nk, k, b);
    store4(gg + pair_of(n1, j) * bs, nk, k, b + 4);
}

/* solve_diagonal at every k (wn = dt w_{n1 n1}); measure: max |change| of G^<(t_n1, t_n1)
 * of k into resk[k] */
__global__ void k_diagonal(kbcu_tab t, size_t nk, size_t n1, int coll, int measure, double dt,
                           double wn, const cplx *h1, cplx *gl, cplx *gg, const cplx *sr,
                           const cplx *sl, cplx *idiag, double *resk)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nk)
        return;
    const size_t bs = 4 * nk, p = (size_t)t.p;
    cplx kd[4], a[4], b[4], c[4];
    for (int q = 0; q < 4; q++)
        kd[q] = make_cuDoubleComplex(0.0, 0.0);
    for (size_t s = 0; s < n1 && coll; s++) { /* G(s, t_n1) = -G(t_n1, s)^dagger */
        const double wt = dt * greg_w(t, n1, s);
        load4(gl + pair_of(n1, s) * bs, nk, k, b);
        load4(gg + pair_of(n1, s) * bs, nk, k, c);
        load4(sr + s * bs, nk, k, a);
        madd4(wt, a, b, 1, kd);
        load4(sl + s * bs, nk, k, a);
        madd4(-wt, a, c, 1, kd);
        madd4(wt, a, b, 1, kd);
    }
    cplx srn[4] = {kd[0], kd[0], kd[0], kd[0]}; /* Sigma^R(t_n1, t_n1) (coll) */
    if (coll) { /* s = t_n1: -Sigma^< [G^> - G^<] = i Sigma^< */
        load4(sl + n1 * bs, nk, k, a);
        for (int q = 0; q < 4; q++)
            kd[q] = cadd(kd[q], ctimes_i(wn, a[q]));
        load4(sr + n1 * bs, nk, k, srn);
    }
    cplx H[4], rhs[4], old[4];
    for (int ab = 0; ab < 4; ab++) {
        const cplx h = h1[4 * k + ab];
        H[ab] = coll ? cadd(h, cscale(wn, srn[ab])) : h;
    }
    for (int ra = 0; ra < 2; ra++)
        for (int rc = 0; rc < 2; rc++) {
            cplx r = make_cuDoubleComplex(0.0, 0.0);
            for (size_t l = 1; l <= p; l++) {
                const cplx g = gl[pair_of(n1 - l, n1 - l) * bs + (size_t)(2 * ra + rc) * nk + k];
                r = csub(r, cscale(t.a[l], g));
            }
            const cplx z = cadd(kd[2 * ra + rc], cconj(kd[2 * rc + ra]));
            rhs[2 * ra + rc] = csub(r, ctimes_i(dt, z));
        }
    sylvester4(t.a[0], dt, H, H, rhs, 1);
    const cplx off = cscale(0.5, csub(rhs[1], cconj(rhs[2])));
    const cplx D[4] = {make_cuDoubleComplex(0.0, rhs[0].y), off,
                       make_cuDoubleComplex(-off.x, off.y), make_cuDoubleComplex(0.0, rhs[3].y)};
    cplx *dl = gl + pair_of(n1, n1) * bs, *dg = gg + pair_of(n1, n1) * bs;
    if (measure) {
        load4(dl, nk, k, old);
        double r = 0.0;
        for (int q = 0; q < 4; q++)
            r = fmax(r, hypot(D[q].x - old[q].x, D[q].y - old[q].y));
        resk[k] = r;
    }
    store4(dl, nk, k, D);
    for (int q = 0; q < 4; q++)
        a[q] = (q == 0 || q == 3) ? make_cuDoubleComplex(D[q].x, D[q].y - 1.0) : D[q];
    store4(dg, nk, k, a);
    if (coll && idiag) /* I^< = K + dt w Sigma^R D */
        for (int ra = 0; ra < 2; ra++)
            for (int rc = 0; rc < 2; rc++) {
                const cplx v = cadd(cmul(srn[2 * ra], D[rc]), cmul(srn[2 * ra + 1], D[2 + rc]));
                idiag[n1 * bs + (size_t)(2 * ra + rc) * nk + k] =
                    cadd(kd[2 * ra + rc], cscale(wn, v));
            }
}

int kbcu_bdf_strip(kbcu_dev *d, size_t n1)
{
    cudaStream_t st = mcu_stream();
    const size_t nk = d->nk, p = (size_t)d->tab.p;
    const int coll = d->s.selfenergy == 2;
    const double dt = d->s.dt, wn = coll ? dt * greg_w(d->tab, n1, n1) : 0.0;
    int rc = MCF_OK;
    for (size_t j = n1 - p + 1; j < n1 && !rc; j++) {
        /* h(t_j) into hn (order 2's h(t_n), free here) */
        rc = kbcu_local_density(d, j, d->rhoj);
        if (!rc)
            rc = kbcu_fill_h(d, j, d->rhoj, d->hn);
        if (!rc && coll) {
            rc = kbcu_sigma_line(d, j, n1, d->tl, d->tg);
            if (!rc) {
                k_line_adjoint<<<blocks_for((n1 - j) * nk), KBCU_THREADS, 0, st>>>(
                    nk, j, n1, d->sl, d->sg, d->tl, d->tg);
                rc = launched("the strip's self-energy");
            }
        }
        if (rc)
            break;
        const double wj = coll ? dt * greg_w(d->tab, j, j) : 0.0;
        k_strip<<<blocks_for(nk), KBCU_THREADS, 0, st>>>(d->tab, nk, n1, j, coll, dt, wn, wj,
                                                         d->h1, d->hn, d->gl, d->gg, d->il,
                                                         d->ig, d->sl, d->sg, d->tl, d->tg);
        rc = launched("the strip of order p");
    }
    return rc;
}

int kbcu_bdf_diagonal(kbcu_dev *d, size_t n1, int measure)
{
    const int coll = d->s.selfenergy == 2;
    const double dt = d->s.dt, wn = coll ? dt * greg_w(d->tab, n1, n1) : 0.0;
    k_diagonal<<<blocks_for(d->nk), KBCU_THREADS, 0, mcu_stream()>>>(
        d->tab, d->nk, n1, coll, measure, dt, wn, d->h1, d->gl, d->gg, d->sr, d->sl, d->idiag,
        d->resk);
    return launched("the diagonal of order p");
}
