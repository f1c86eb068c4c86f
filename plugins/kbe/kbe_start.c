/* kbe_start.c — the start of the scheme of order p = 3 .. 5 (kbe_bdf.c has the step past
 * it).  The step of order p needs 2p - 2 rows behind the new one (p for the formula in the
 * first time, and p more along the diagonal for the strip next to it, kbe_bdf.c), while
 * h(t) and Sigma(t, .) are known only on the grid up to the last drive handed in: so the
 * first K = 2p - 2 steps are taken by the second-order step (provisional rows), and at step
 * K, once the drive at t_0 .. t_K is known, rows 1 .. K are solved again all together by
 * collocation: the derivative at t_m (m = 1 .. K) from the polynomial through t_0 .. t_K (an
 * error O(dt^K) on the equation, O(dt^{K+1}) on the rows as the block spans K dt), the
 * integrals by Gregory's weights of order p (whose start weights reach t_{p-1} <= t_K).
 *
 * Column by column (j = 0 .. K - 1): G(t_m, t_j) for m = 1 .. K (above the diagonal too) is
 * one linear system per k and band column b (4K unknowns: G^< and G^>, m, the band row a),
 * from G(0, t_j) = -G(t_j, 0)^dagger of column 0, solved first; the rows m > j are kept.
 * The diagonal then from the density's equation with the same derivative (4K unknowns per
 * k), which keeps N and G^> - G^< = -i as the step does.  h (Hartree-Fock) and Sigma from
 * the current rows: a fixed number of passes, the provisional rows the first guess.  A
 * block solve, not a march, so crossing the diagonal does no harm here. */
#include "kbe_internal.h"

#include <math.h>
#include <string.h>

/* d/dx of the Lagrange polynomials of the nodes 0 .. p at the nodes: D[m][l] = L_l'(m) */
static void derivative_matrix(int p, double D[][KBE_START_MAX + 1])
{
    for (int m = 0; m <= p; m++)
        for (int l = 0; l <= p; l++) {
            long double v = 0.0L;
            if (l == m) {
                for (int i = 0; i <= p; i++)
                    if (i != m)
                        v += 1.0L / (long double)(m - i);
            } else {
                long double num = 1.0L, den = 1.0L;
                for (int i = 0; i <= p; i++) {
                    if (i != l)
                        den *= (long double)(l - i);
                    if (i != l && i != m)
                        num *= (long double)(m - i);
                }
                v = num / den;
            }
            D[m][l] = (double)v;
        }
}

/* Sigma^lg(t_m, t_s) of k, m, s <= p, from the start block (both triangles), into g[4] */
static void sig2(const kbe *w, int lesser, size_t m, size_t s, size_t k, double complex *g)
{
    const size_t nk = w->spec.nk, p1 = w->kstart + 1;
    const double complex *b = w->sblk + ((lesser ? 0 : p1 * p1) + m * p1 + s) * 4 * nk;
    for (int ab = 0; ab < 4; ab++)
        g[ab] = b[ab * nk + k];
}

/* the start block's h and Sigma from the current rows 0 .. p */
static void block_fields(kbe *w)
{
    const size_t nk = w->spec.nk, bs = 4 * nk, p = w->kstart, p1 = p + 1;
    for (size_t m = 0; m <= p; m++) {
        double complex rho_loc[4] = {0.0, 0.0, 0.0, 0.0};
        if (w->spec.selfenergy != KBE_SELFENERGY_NONE)
            kbe_local_density(w, m, rho_loc);
        kbe_fill_h(w, w->E[m], w->U[m], rho_loc, w->hblk + m * bs);
    }
    if (!kbe_collisions(w))
        return;
    for (size_t m = 0; m <= p; m++) {
        kbe_sigma_row(w, m);
        for (int lesser = 0; lesser < 2; lesser++) {
            double complex *S = w->sblk + (lesser ? 0 : p1 * p1) * bs;
            const double complex *src = lesser ? w->sl : w->sg;
            memcpy(S + m * p1 * bs, src, (m + 1) * bs * sizeof *S);
            for (size_t s = 0; s < m; s++) { /* Sigma(t_s, t_m) = -Sigma(t_m, t_s)^dagger */
                const double complex *o = src + s * bs;
                double complex *u = S + (s * p1 + m) * bs;
                for (size_t k = 0; k < nk; k++) {
                    u[k] = -conj(o[k]);
                    u[nk + k] = -conj(o[2 * nk + k]);
                    u[2 * nk + k] = -conj(o[nk + k]);
                    u[3 * nk + k] = -conj(o[3 * nk + k]);
                }
            }
        }
    }
}

/* column j: G(t_m, t_j), m = 1 .. p, per k; unknown (g, m, a) at ((g p + m - 1) 2 + a), g = 0
 * lesser, 1 greater; equation sum_l D_ml X_l + i dt h_m X_m + i dt I(t_m, t_j) = 0 */
static void solve_column(kbe *w, size_t j, double D[][KBE_START_MAX + 1])
{
    const size_t nk = w->spec.nk, p = w->kstart, q1 = (size_t)w->order - 1;
    const int N = 4 * (int)p, coll = kbe_collisions(w);
    const double dt = w->spec.dt;
    for (size_t k = 0; k < nk; k++) {
        double complex A[16 * KBE_START_MAX * KBE_START_MAX], B[8 * KBE_START_MAX];
        double complex x0[2][4];
        memset(A, 0, sizeof A);
        memset(B, 0, sizeof B);
        for (int g = 0; g < 2; g++)
            kbe_g2(w, g == 0, 0, j, k, x0[g]);
        for (int g = 0; g < 2; g++)
            for (size_t m = 1; m <= p; m++)
                for (int a = 0; a < 2; a++) {
                    const int e = ((g * (int)p + (int)m - 1) * 2 + a) * N;
                    const int eb = ((g * (int)p + (int)m - 1) * 2 + a) * 2;
                    for (size_t l = 0; l <= p; l++) { /* the derivative */
                        if (l == 0)
                            for (int b = 0; b < 2; b++)
                                B[eb + b] -= D[m][0] * x0[g][2 * a + b];
                        else
                            A[e + (g * (int)p + (int)l - 1) * 2 + a] += D[m][l];
                    }
                    const double complex *h = w->hblk + m * 4 * nk + 4 * k;
                    for (int c = 0; c < 2; c++)
                        A[e + (g * (int)p + (int)m - 1) * 2 + c] += I * dt * h[2 * a + c];
                    if (!coll)
                        continue;
                    const size_t top1 = m > q1 ? m : q1, top2 = j > q1 ? j : q1;
                    for (size_t s = 0; s <= top1; s++) { /* i dt^2 w Sigma^R(t_m, s) X_s */
                        double complex sl[4], sg[4];
                        sig2(w, 1, m, s, k, sl);
                        sig2(w, 0, m, s, k, sg);
                        const double wt = dt * dt * kbe_greg(w, m, s);
                        for (int c = 0; c < 2; c++) {
                            const double complex f = I * wt * (sg[2 * a + c] - sl[2 * a + c]);
                            if (s == 0)
                                for (int b = 0; b < 2; b++)
                                    B[eb + b] -= f * x0[g][2 * c + b];
                            else
                                A[e + (g * (int)p + (int)s - 1) * 2 + c] += f;
                        }
                    }
                    for (size_t s = 0; s <= top2 && j > 0; s++) { /* -i dt^2 w Sigma^g A_s */
                        double complex sg[4];
                        sig2(w, g == 0, m, s, k, sg);
                        const double wt = dt * dt * kbe_greg(w, j, s);
                        for (int c = 0; c < 2; c++) {
                            const double complex f = -I * wt * sg[2 * a + c];
                            if (s == 0)
                                for (int b = 0; b < 2; b++)
                                    B[eb + b] -= f * (x0[1][2 * c + b] - x0[0][2 * c + b]);
                            else {
                                A[e + ((int)p + (int)s - 1) * 2 + c] += f;
                                A[e + ((int)s - 1) * 2 + c] -= f;
                            }
                        }
                    }
                }
        kbe_solve(N, A, B, 2);
        for (int g = 0; g < 2; g++)
            for (size_t m = j + 1; m <= p; m++) {
                double complex *x = kbe_block(w, g == 0, m, j);
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        x[(2 * a + b) * nk + k] = B[((g * (int)p + (int)m - 1) * 2 + a) * 2 + b];
            }
    }
}

/* the diagonal D_m = G^<(t_m, t_m), m = 1 .. p, per k: sum_l D_ml D_l + i dt (H_m D_m -
 * D_m H_m^dagger) = -i dt (K_m + K_m^dagger), H_m = h_m + dt w_mm Sigma^R(t_m, t_m), K_m the
 * rest of I^<(t_m, t_m) (from the columns just solved); unknown (m, a, b) at 4 (m - 1) +
 * 2 a + b.  Returns the largest change of D over the block. */
static double solve_diagonal(kbe *w, double D[][KBE_START_MAX + 1])
{
    const size_t nk = w->spec.nk, bs = 4 * nk, p = w->kstart, q1 = (size_t)w->order - 1;
    const int N = 4 * (int)p, coll = kbe_collisions(w);
    const double dt = w->spec.dt;
    double change = 0.0;
    for (size_t k = 0; k < nk; k++) {
        double complex A[16 * KBE_START_MAX * KBE_START_MAX], B[4 * KBE_START_MAX];
        double complex Kk[KBE_START_MAX + 1][4], Sr[4];
        memset(A, 0, sizeof A);
        memset(B, 0, sizeof B);
        for (size_t m = 1; m <= p; m++) {
            double complex H[4], *K = Kk[m];
            const double complex *h = w->hblk + m * bs + 4 * k;
            const double wm = coll ? dt * kbe_greg(w, m, m) : 0.0;
            memset(K, 0, 4 * sizeof *K);
            for (int ab = 0; ab < 4; ab++)
                H[ab] = h[ab];
            if (coll) {
                double complex sl[4], sg[4], g[4], gg[4];
                sig2(w, 1, m, m, k, sl);
                sig2(w, 0, m, m, k, sg);
                for (int ab = 0; ab < 4; ab++)
                    H[ab] += wm * (sg[ab] - sl[ab]);
                const size_t top = m > q1 ? m : q1;
                for (size_t s = 0; s <= top; s++) {
                    const double wt = dt * kbe_greg(w, m, s);
                    sig2(w, 1, m, s, k, sl);
                    sig2(w, 0, m, s, k, sg);
                    if (s == m) { /* -Sigma^< [G^> - G^<](t_m, t_m) = i Sigma^< */
                        for (int ab = 0; ab < 4; ab++)
                            K[ab] += I * wt * sl[ab];
                        continue;
                    }
                    kbe_g2(w, 1, s, m, k, g);
                    kbe_g2(w, 0, s, m, k, gg);
                    for (int a = 0; a < 2; a++)
                        for (int b = 0; b < 2; b++)
                            for (int c = 0; c < 2; c++)
                                K[2 * a + b] += wt * ((sg[2 * a + c] - sl[2 * a + c]) *
                                                          g[2 * c + b] -
                                                      sl[2 * a + c] *
                                                          (gg[2 * c + b] - g[2 * c + b]));
                }
            }
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    const int e = (4 * ((int)m - 1) + 2 * a + b);
                    for (size_t l = 0; l <= p; l++) {
                        if (l == 0)
                            B[e] -= D[m][0] * kbe_block(w, 1, 0, 0)[(2 * a + b) * nk + k];
                        else
                            A[e * N + 4 * ((int)l - 1) + 2 * a + b] += D[m][l];
                    }
                    B[e] -= I * dt * (K[2 * a + b] + conj(K[2 * b + a]));
                    for (int c = 0; c < 2; c++)
                        for (int d = 0; d < 2; d++)
                            A[e * N + 4 * ((int)m - 1) + 2 * c + d] +=
                                I * dt * ((b == d ? H[2 * a + c] : 0.0) -
                                          (a == c ? conj(H[2 * b + d]) : 0.0));
                }
        }
        kbe_solve(N, A, B, 1);
        for (size_t m = 1; m <= p; m++) {
            const double complex *x = B + 4 * (m - 1);
            const double complex off = 0.5 * (x[1] - conj(x[2]));
            const double complex Dm[4] = {I * cimag(x[0]), off, -conj(off), I * cimag(x[3])};
            double complex *dl = kbe_block(w, 1, m, m), *dg = kbe_block(w, 0, m, m);
            for (int ab = 0; ab < 4; ab++) {
                change = fmax(change, cabs(dl[ab * nk + k] - Dm[ab]));
                dl[ab * nk + k] = Dm[ab];
                dg[ab * nk + k] = Dm[ab] - (ab == 0 || ab == 3 ? I : 0.0);
            }
            if (!coll || !w->idiag)
                continue;
            double complex sl[4], sg[4];
            sig2(w, 1, m, m, k, sl);
            sig2(w, 0, m, m, k, sg);
            const double wm = dt * kbe_greg(w, m, m);
            for (int ab = 0; ab < 4; ab++)
                Sr[ab] = sg[ab] - sl[ab];
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    w->idiag[m * bs + (2 * a + b) * nk + k] =
                        Kk[m][2 * a + b] + wm * (Sr[2 * a] * Dm[b] + Sr[2 * a + 1] * Dm[2 + b]);
        }
    }
    return change;
}

void kbe_start_block(kbe *w)
{
    const int p = (int)w->kstart;
    double D[KBE_START_MAX + 1][KBE_START_MAX + 1];
    derivative_matrix(p, D);
    const int passes = w->spec.selfenergy == KBE_SELFENERGY_NONE ? 1 : 1 + w->spec.correctors;
    double change = 0.0;
    for (int pass = 0; pass < passes; pass++) {
        block_fields(w);
        for (size_t j = 0; j < (size_t)p; j++)
            solve_column(w, j, D);
        change = solve_diagonal(w, D);
    }
    w->corrector_residual = passes > 1 ? change : 0.0;
}
