/* kbe_bdf.c — the step of order p = 3 .. 5 past the start block (kbe_core.h, docs/methods.md
 * "Kadanoff-Baym dynamics"): the derivative in the first time by the backward differentiation
 * formula of order p, both collision integrals by Gregory's weights of order p, and the
 * terms at t_{n+1} itself implicit:
 *
 *   sum_l a_l G(t_{n+1-l}, t_j) = -i dt [h(t_{n+1}) G(t_{n+1}, t_j) + I(t_{n+1}, t_j)],
 *
 * where I's first integral ends at s = t_{n+1} with dt w_{n+1} Sigma^R(t_{n+1}, t_{n+1})
 * G(t_{n+1}, t_j): per k one 2 x 2 matrix a_0 + i dt h + i dt^2 w_{n+1} Sigma^R inverted and
 * applied to the known rest (every other point of both integrals lies on rows <= n), for
 * j <= n + 1 - p; the p - 1 points next to the diagonal by the same formula along the
 * diagonal (solve_strip says why).  The diagonal G^<(t_{n+1}, t_{n+1}) from
 * i d/dt G^< = [h, G^<] + I + I^dagger by the same
 * formula, a 4 x 4 linear system per k (the Sylvester form H D - D H^dagger with H = h +
 * dt w Sigma^R): N = tr rho and G^> - G^< = -i are linear invariants, which the formula
 * keeps to rounding.  h(t_{n+1}) (Hartree-Fock) and second Born's Sigma(t_{n+1}, .) depend
 * on the new row: the row is first extrapolated from the last p rows (an error O(dt^p)),
 * then every pass forms h and Sigma from the current row and solves again (a fixed number
 * of passes, as in the second-order step). */
#include "kbe_internal.h"

#include "mcf/error.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

double kbe_greg(const kbe *w, size_t n, size_t s)
{
    const size_t p = (size_t)w->order, width = 2 * p + 2;
    if (n < width)
        return w->greg[n * width + s];
    /* past the table the end corrections no longer overlap: the last row's ends, 1 between */
    const double *last = w->greg + (width - 1) * width;
    if (s < p)
        return last[s];
    if (n - s < p)
        return last[width - 1 - (n - s)];
    return 1.0;
}

void kbe_g2(const kbe *w, int lesser, size_t i, size_t j, size_t k, double complex *g)
{
    const size_t nk = w->spec.nk;
    if (i >= j) {
        const double complex *b = kbe_block(w, lesser, i, j);
        for (int ab = 0; ab < 4; ab++)
            g[ab] = b[ab * nk + k];
        return;
    }
    const double complex *b = kbe_block(w, lesser, j, i); /* -G(t_j, t_i)^dagger */
    g[0] = -conj(b[k]);
    g[1] = -conj(b[2 * nk + k]);
    g[2] = -conj(b[nk + k]);
    g[3] = -conj(b[3 * nk + k]);
}

void kbe_solve(int n, double complex *A, double complex *b, int nrhs)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (cabs(A[r * n + c]) > cabs(A[piv * n + c]))
                piv = r;
        if (piv != c) {
            for (int q = 0; q < n; q++) {
                const double complex t = A[c * n + q];
                A[c * n + q] = A[piv * n + q];
                A[piv * n + q] = t;
            }
            for (int q = 0; q < nrhs; q++) {
                const double complex t = b[c * nrhs + q];
                b[c * nrhs + q] = b[piv * nrhs + q];
                b[piv * nrhs + q] = t;
            }
        }
        for (int r = c + 1; r < n; r++) {
            const double complex f = A[r * n + c] / A[c * n + c];
            if (f == 0.0)
                continue;
            for (int q = c; q < n; q++)
                A[r * n + q] -= f * A[c * n + q];
            for (int q = 0; q < nrhs; q++)
                b[r * nrhs + q] -= f * b[c * nrhs + q];
        }
    }
    for (int c = n - 1; c >= 0; c--)
        for (int q = 0; q < nrhs; q++) {
            double complex s = b[c * nrhs + q];
            for (int r = c + 1; r < n; r++)
                s -= A[c * n + r] * b[r * nrhs + q];
            b[c * nrhs + q] = s / A[c * n + c];
        }
}

/* acc += c G^lg(t_i, t_j) over the block (any i, j: the adjoint above the diagonal) */
static void add_g(const kbe *w, int lesser, size_t i, size_t j, double complex c,
                  double complex *acc)
{
    const size_t nk = w->spec.nk;
    if (i >= j) {
        const double complex *b = kbe_block(w, lesser, i, j);
        for (size_t q = 0; q < 4 * nk; q++)
            acc[q] += c * b[q];
        return;
    }
    const double complex *b = kbe_block(w, lesser, j, i);
    for (size_t k = 0; k < nk; k++) {
        acc[k] -= c * conj(b[k]);
        acc[nk + k] -= c * conj(b[2 * nk + k]);
        acc[2 * nk + k] -= c * conj(b[nk + k]);
        acc[3 * nk + k] -= c * conj(b[3 * nk + k]);
    }
}

/* The row n1 first guessed from the last p rows by the polynomial through them (weights
 * (-1)^{l+1} C(p, l)), the diagonal likewise and G^> = G^< - i on it */
static void predict(kbe *w, size_t n1)
{
    const size_t nk = w->spec.nk, bs = 4 * nk;
    const int p = w->order;
    double e[KBE_GREGORY_MAX_ORDER + 1];
    double c = 1.0;
    for (int l = 1; l <= p; l++) { /* C(p, l) with the alternating sign */
        c = c * (double)(p - l + 1) / (double)l;
        e[l] = (l % 2) ? c : -c;
    }
    for (int lesser = 0; lesser < 2; lesser++)
        for (size_t j = 0; j <= n1; j++) {
            double complex *y = kbe_block(w, lesser, n1, j);
            memset(y, 0, bs * sizeof *y);
            for (int l = 1; l <= p; l++)
                add_g(w, lesser, n1 - (size_t)l, j == n1 ? n1 - (size_t)l : j, e[l], y);
        }
    double complex *dl = kbe_block(w, 1, n1, n1), *dg = kbe_block(w, 0, n1, n1);
    for (int ab = 0; ab < 4; ab++)
        for (size_t k = 0; k < nk; k++)
            dg[ab * nk + k] = dl[ab * nk + k] - (ab == 0 || ab == 3 ? I : 0.0);
}

/* The known part of I^lg(t_n1, t_j), j < n1, into kl, kg: the first integral without its
 * end s = t_n1, the second whole (its points s <= max(j, p - 1) < n1) */
static void collision_rest(const kbe *w, size_t n1, size_t j, double complex *kl,
                           double complex *kg)
{
    const size_t nk = w->spec.nk, bs = 4 * nk, p = (size_t)w->order;
    const double dt = w->spec.dt;
    memset(kl, 0, bs * sizeof *kl);
    memset(kg, 0, bs * sizeof *kg);
    for (size_t s = 0; s < n1; s++) { /* int_0^{t_n1} Sigma^R(t_n1, s) G^lg(s, t_j) */
        const double wt = dt * kbe_greg(w, n1, s);
        const int adj = s < j;
        const size_t r = adj ? j : s, c = adj ? s : j;
        block_madd(nk, wt, w->sr + s * bs, kbe_block(w, 1, r, c), adj, kl);
        block_madd(nk, wt, w->sr + s * bs, kbe_block(w, 0, r, c), adj, kg);
    }
    const size_t top = j > p - 1 ? j : p - 1;
    for (size_t s = 0; s <= top && j > 0; s++) { /* - int_0^{t_j} Sigma^lg [G^> - G^<](s, t_j) */
        const double wt = dt * kbe_greg(w, j, s);
        const int adj = s < j;
        const size_t r = adj ? j : s, c = adj ? s : j;
        const double complex *gg = kbe_block(w, 0, r, c), *gl = kbe_block(w, 1, r, c);
        block_madd(nk, -wt, w->sl + s * bs, gg, adj, kl);
        block_madd(nk, wt, w->sl + s * bs, gl, adj, kl);
        block_madd(nk, -wt, w->sg + s * bs, gg, adj, kg);
        block_madd(nk, wt, w->sg + s * bs, gl, adj, kg);
    }
}

/* the row G^lg(t_n1, t_j) away from the diagonal (j <= n1 - p: the formula's points
 * t_{n1-l} >= t_j all on or below it): minv (per k, row-major) times the known rest */
static void solve_rows(kbe *w, size_t n1, const double complex *minv)
{
    const size_t nk = w->spec.nk, bs = 4 * nk;
    const int p = w->order, coll = kbe_collisions(w);
    const double dt = w->spec.dt;
#pragma omp parallel for schedule(dynamic) num_threads(w->kthreads)
    for (size_t j = 0; j <= n1 - (size_t)p; j++) {
        double complex *kl = w->kbuf + (size_t)omp_get_thread_num() * 3 * bs, *kg = kl + bs,
                       *y = kg + bs;
        if (coll)
            collision_rest(w, n1, j, kl, kg);
        for (int lesser = 0; lesser < 2; lesser++) {
            memset(y, 0, bs * sizeof *y);
            for (int l = 1; l <= p; l++)
                add_g(w, lesser, n1 - (size_t)l, j, -w->bdf[l], y);
            if (coll) {
                const double complex *kk = lesser ? kl : kg;
                for (size_t q = 0; q < bs; q++)
                    y[q] -= I * dt * kk[q];
            }
            kbe_apply_left(minv, nk, y, kbe_block(w, lesser, n1, j));
        }
    }
}

/* X of a 2 x 2 Sylvester system per k: a_0 X + i dt (H X - X Hr^dagger) = b for nrhs
 * right-hand sides b[4 q + ab], solved in place */
static void sylvester(double a0, double dt, const double complex *H, const double complex *Hr,
                      double complex *b, int nrhs)
{
    double complex A[16], rhs[8];
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            for (int q = 0; q < nrhs; q++)
                rhs[(2 * a + c) * nrhs + q] = b[4 * q + 2 * a + c];
            for (int e = 0; e < 2; e++)
                for (int d = 0; d < 2; d++)
                    A[(2 * a + c) * 4 + 2 * e + d] =
                        (a == e && c == d ? a0 : 0.0) +
                        I * dt * ((c == d ? H[2 * a + e] : 0.0) -
                                  (a == e ? conj(Hr[2 * c + d]) : 0.0));
        }
    kbe_solve(4, A, rhs, nrhs);
    for (int ab = 0; ab < 4; ab++)
        for (int q = 0; q < nrhs; q++)
            b[4 * q + ab] = rhs[ab * nrhs + q];
}

/* Sigma^lg(t_j, t_s), s = 0 .. n1, into w->tl, w->tg: formed below the diagonal (second Born
 * on the threads, a given self-energy's function from one), the adjoint above; the row at
 * t_n1 from w->sl, w->sg */
static void sigma_line(kbe *w, size_t j, size_t n1)
{
    const size_t nk = w->spec.nk, bs = 4 * nk;
    const int par = w->spec.selfenergy == KBE_SELFENERGY_2B;
#pragma omp parallel for schedule(dynamic) num_threads(w->nthreads) if (par)
    for (size_t s = 0; s < n1; s++) {
        const int t = omp_get_thread_num();
        double complex *l = w->tl + s * bs, *g = w->tg + s * bs;
        if (s <= j)
            kbe_sigma_pair(w, j, s, l, g, t);
        else
            kbe_sigma_pair(w, s, j, l, g, t);
    }
    memcpy(w->tl + n1 * bs, w->sl + j * bs, bs * sizeof *w->tl);
    memcpy(w->tg + n1 * bs, w->sg + j * bs, bs * sizeof *w->tg);
    for (size_t s = j + 1; s <= n1; s++)
        for (int q = 0; q < 2; q++) { /* Sigma(t_j, t_s) = -Sigma(t_s, t_j)^dagger */
            double complex *x = (q ? w->tg : w->tl) + s * bs;
            for (size_t k = 0; k < nk; k++) {
                const double complex x1 = x[nk + k];
                x[k] = -conj(x[k]);
                x[nk + k] = -conj(x[2 * nk + k]);
                x[2 * nk + k] = -conj(x1);
                x[3 * nk + k] = -conj(x[3 * nk + k]);
            }
        }
}

/* The strip next to the diagonal, G(t_n1, t_j) for j = n1 - p + 1 .. n1 - 1, where the
 * formula in the first time would read mirrored values of the newest rows (a march across
 * the diagonal: unstable, a root of about -1.06 per step at p = 3).  Instead the formula
 * along the diagonal, from G(t_{n1-l}, t_{j-l}), of the equation in both times
 *   i (d/dt + d/dt') G(t, t') = h(t) G - G h(t') + I(t, t') + I(t', t)^dagger,
 * with the ends at s = t_n1 (in I(t, t')) and s = t_j (in I(t', t)) implicit: per k the
 * Sylvester system a_0 X + i dt (H X - X H_j^dagger), H_j = h(t_j) + dt w_jj Sigma^R(t_j, t_j).
 * The other points of I(t_j, t_n1) come from the current row (its later points of the
 * strip from the previous pass or the prediction: they enter with dt^2). */
static void solve_strip(kbe *w, size_t n1, const double complex *h1, double complex *hj)
{
    const size_t nk = w->spec.nk, bs = 4 * nk;
    const int p = w->order, coll = kbe_collisions(w);
    const double dt = w->spec.dt, wn = coll ? dt * kbe_greg(w, n1, n1) : 0.0;
    double complex *kl = w->kbuf, *kg = kl + bs, *jt = kg + bs;
    for (size_t j = n1 - (size_t)p + 1; j < n1; j++) {
        double complex rho_loc[4] = {0.0, 0.0, 0.0, 0.0};
        if (w->spec.selfenergy != KBE_SELFENERGY_NONE)
            kbe_local_density(w, j, rho_loc);
        kbe_fill_h(w, w->E[j], w->U[j], rho_loc, hj);
        const double wj = coll ? dt * kbe_greg(w, j, j) : 0.0;
        if (coll) {
            collision_rest(w, n1, j, kl, kg);
            sigma_line(w, j, n1);
        }
        double complex *rhs[2] = {kg, kl}; /* [lesser] */
        for (int lesser = 0; lesser < 2; lesser++) {
            double complex *y = rhs[lesser];
            if (coll) { /* y = -i dt (K + J^dagger), J = I(t_j, t_n1) without s = t_j */
                const double complex *sig = lesser ? w->tl : w->tg;
                memset(jt, 0, bs * sizeof *jt);
                for (size_t s = 0; s < j; s++) { /* Sigma^R(t_j, s) G(s, t_n1) */
                    const double wt = dt * kbe_greg(w, j, s);
                    block_madd(nk, wt, w->tg + s * bs, kbe_block(w, lesser, n1, s), 1, jt);
                    block_madd(nk, -wt, w->tl + s * bs, kbe_block(w, lesser, n1, s), 1, jt);
                }
                for (size_t s = 0; s < n1; s++) { /* -Sigma^lg(t_j, s) [G^> - G^<](s, t_n1) */
                    const double wt = dt * kbe_greg(w, n1, s);
                    block_madd(nk, -wt, sig + s * bs, kbe_block(w, 0, n1, s), 1, jt);
                    block_madd(nk, wt, sig + s * bs, kbe_block(w, 1, n1, s), 1, jt);
                }
                for (size_t q = 0; q < bs; q++) /* s = t_n1: G^> - G^< = -i */
                    jt[q] += I * wn * sig[n1 * bs + q];
                for (size_t k = 0; k < nk; k++)
                    for (int a = 0; a < 2; a++)
                        for (int b = 0; b < 2; b++)
                            y[(2 * a + b) * nk + k] =
                                -I * dt * (y[(2 * a + b) * nk + k] +
                                           conj(jt[(2 * b + a) * nk + k]));
            } else
                memset(y, 0, bs * sizeof *y);
            for (int l = 1; l <= p; l++)
                add_g(w, lesser, n1 - (size_t)l, j - (size_t)l, -w->bdf[l], y);
        }
        for (size_t k = 0; k < nk; k++) {
            double complex H[4], Hj[4], b[8];
            for (int ab = 0; ab < 4; ab++) {
                H[ab] = h1[4 * k + ab];
                Hj[ab] = hj[4 * k + ab];
                if (coll) {
                    H[ab] += wn * (w->sg[n1 * bs + ab * nk + k] - w->sl[n1 * bs + ab * nk + k]);
                    Hj[ab] += wj * (w->tg[j * bs + ab * nk + k] - w->tl[j * bs + ab * nk + k]);
                }
                b[ab] = kl[ab * nk + k];
                b[4 + ab] = kg[ab * nk + k];
            }
            sylvester(w->bdf[0], dt, H, Hj, b, 2);
            double complex *xl = kbe_block(w, 1, n1, j), *xg = kbe_block(w, 0, n1, j);
            for (int ab = 0; ab < 4; ab++) {
                xl[ab * nk + k] = b[ab];
                xg[ab * nk + k] = b[4 + ab];
            }
        }
    }
}

/* The diagonal at n1 from the new row: per k the 4 x 4 system a_0 D + i dt (H D - D H^dagger)
 * = -sum_{l >= 1} a_l D_{n1-l} - i dt (K + K^dagger), K the known part of I^<(t_n1, t_n1),
 * H = h + dt w_n1 Sigma^R(t_n1, t_n1); D made exactly anti-Hermitian (it is, to rounding),
 * G^> = D - i, and I^<(t_n1, t_n1) kept for the energy */
static void solve_diagonal(kbe *w, size_t n1, const double complex *h1, double complex *kd)
{
    const size_t nk = w->spec.nk, bs = 4 * nk;
    const int p = w->order, coll = kbe_collisions(w);
    const double dt = w->spec.dt, wn = coll ? dt * kbe_greg(w, n1, n1) : 0.0;
    memset(kd, 0, bs * sizeof *kd);
    for (size_t s = 0; s < n1 && coll; s++) { /* G(s, t_n1) = -G(t_n1, s)^dagger */
        const double wt = dt * kbe_greg(w, n1, s);
        block_madd(nk, wt, w->sr + s * bs, kbe_block(w, 1, n1, s), 1, kd);
        block_madd(nk, -wt, w->sl + s * bs, kbe_block(w, 0, n1, s), 1, kd);
        block_madd(nk, wt, w->sl + s * bs, kbe_block(w, 1, n1, s), 1, kd);
    }
    for (size_t q = 0; q < bs && coll; q++) /* s = t_n1: -Sigma^< [G^> - G^<] = i Sigma^< */
        kd[q] += I * wn * w->sl[n1 * bs + q];
    double complex *dl = kbe_block(w, 1, n1, n1), *dg = kbe_block(w, 0, n1, n1);
    for (size_t k = 0; k < nk; k++) {
        double complex H[4], K[4], b[4];
        for (int ab = 0; ab < 4; ab++) {
            H[ab] = h1[4 * k + ab] + (coll ? wn * w->sr[n1 * bs + ab * nk + k] : 0.0);
            K[ab] = kd[ab * nk + k];
        }
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++) {
                double complex r = 0.0;
                for (int l = 1; l <= p; l++)
                    r -= w->bdf[l] * kbe_block(w, 1, n1 - (size_t)l, n1 - (size_t)l)
                                         [(2 * a + c) * nk + k];
                b[2 * a + c] = r - I * dt * (K[2 * a + c] + conj(K[2 * c + a]));
            }
        sylvester(w->bdf[0], dt, H, H, b, 1);
        const double complex off = 0.5 * (b[1] - conj(b[2]));
        const double complex D[4] = {I * cimag(b[0]), off, -conj(off), I * cimag(b[3])};
        for (int ab = 0; ab < 4; ab++) {
            dl[ab * nk + k] = D[ab];
            dg[ab * nk + k] = D[ab] - (ab == 0 || ab == 3 ? I : 0.0);
        }
        if (w->idiag && coll) /* I^< = K + dt w Sigma^R D */
            for (int a = 0; a < 2; a++)
                for (int c = 0; c < 2; c++) {
                    const double complex *sr = w->sr + n1 * bs;
                    w->idiag[n1 * bs + (2 * a + c) * nk + k] =
                        K[2 * a + c] + wn * (sr[2 * a * nk + k] * D[c] +
                                             sr[(2 * a + 1) * nk + k] * D[2 + c]);
                }
    }
}

int kbe_step_bdf(kbe *w, double E_next, double U_next)
{
    const size_t nk = w->spec.nk, bs = 4 * nk, n1 = w->n + 1;
    const int coll = kbe_collisions(w);
    const double dt = w->spec.dt;
    w->E[n1] = E_next;
    w->U[n1] = U_next;
    double complex *h1 = w->scratch, *minv = h1 + bs, *old = minv + bs, *kd = old + bs;
    const int passes = w->spec.selfenergy == KBE_SELFENERGY_NONE ? 1 : 1 + w->spec.correctors;
    if (w->spec.selfenergy != KBE_SELFENERGY_NONE)
        predict(w, n1);
    double residual = 0.0;
    for (int pass = 0; pass < passes; pass++) {
        double complex rho_loc[4] = {0.0, 0.0, 0.0, 0.0};
        if (w->spec.selfenergy != KBE_SELFENERGY_NONE)
            kbe_local_density(w, n1, rho_loc);
        kbe_fill_h(w, E_next, U_next, rho_loc, h1);
        const double wn = coll ? dt * kbe_greg(w, n1, n1) : 0.0;
        if (coll) { /* the self-energy's row at t_n1 (second Born: from the current row) */
            kbe_sigma_row(w, n1);
            for (size_t q = 0; q < (n1 + 1) * bs; q++)
                w->sr[q] = w->sg[q] - w->sl[q];
        }
        for (size_t k = 0; k < nk; k++) { /* (a_0 + i dt h + i dt^2 w Sigma^R)^{-1} */
            double complex m[4];
            for (int ab = 0; ab < 4; ab++)
                m[ab] = (ab == 0 || ab == 3 ? w->bdf[0] : 0.0) +
                        I * dt * (h1[4 * k + ab] + (coll ? wn * w->sr[n1 * bs + ab * nk + k]
                                                         : 0.0));
            const double complex det = m[0] * m[3] - m[1] * m[2];
            minv[4 * k] = m[3] / det;
            minv[4 * k + 1] = -m[1] / det;
            minv[4 * k + 2] = -m[2] / det;
            minv[4 * k + 3] = m[0] / det;
        }
        solve_rows(w, n1, minv);
        solve_strip(w, n1, h1, kd);
        const int last = pass > 0 && pass == passes - 1;
        if (last)
            memcpy(old, kbe_block(w, 1, n1, n1), bs * sizeof *old);
        solve_diagonal(w, n1, h1, kd);
        if (last) {
            const double complex *dl = kbe_block(w, 1, n1, n1);
            for (size_t q = 0; q < bs; q++)
                residual = fmax(residual, cabs(dl[q] - old[q]));
        }
    }
    w->n = n1;
    w->corrector_residual = residual;
    w->collision_stale = 0;
    return MCF_OK;
}
