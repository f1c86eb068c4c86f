/* kpm_moment_matrix.c — the Chebyshev moment matrix of a small block of vectors,
 * mu_n^{ab} = <u_a| T_n(H~) |u_b> for every pair a, b < k, two moments per step
 * (kpm_core.h, "Moment matrices").  What GFMC on a contour needs for a rank-k change; the
 * DOS and LDOS paths use the wider engine of kpm_engine.c instead.
 *
 * One thread: GFMC spreads the chains of a batch over the threads, and its lattices are
 * small.  The sums run over rows in order, so the bits do not depend on anything but the
 * input. */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define KMM_INLINE inline __attribute__((always_inline))
#else
#define KMM_INLINE inline
#endif

#define KC_MM_PAIRS (MCF_CHANGE_RANK * (MCF_CHANGE_RANK + 1) / 2)

/* pairs a <= b in the order (0,0), (0,1), ..., (0,k-1), (1,1), ... */
static KMM_INLINE size_t kmm_pairs(size_t k) { return k * (k + 1) / 2; }

/* Versions with the block size known to the compiler, each also compiled for AVX2 and
 * picked at run time on x86-64 with GCC (as kpm_engine.c's engine; no FMA, and ISO C mode
 * keeps -ffp-contract=off, so every clone computes the same bits). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define KMM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef KMM_CLONES
#define KMM_CLONES
#endif

/* One step over all rows for a block of K vectors, row-major with split complex parts
 * (element (r, j): re at x[2 K r + j], im at x[2 K r + K + j]): y = H~ x (first) or
 * 2 H~ x - y, and the pair sums P_ab = <y_a|y_b>, Q_ab = <y_a|x_b> for a <= b into p[2 t],
 * q[2 t] (re, im), t the pair's index. */
static KMM_INLINE void kmm_step(const mcf_hamiltonian *h, double ia, double shift, size_t K,
                                const double *restrict x, double *restrict y, int first,
                                double *restrict p, double *restrict q)
{
    const size_t dim = h->dim, np = kmm_pairs(K);
    const int W = h->width;
    const int32_t *restrict col = h->col;
    const double *restrict hre = h->hop_re, *restrict him = h->hop_im, *restrict ons = h->onsite;
    const double ia2 = 2.0 * ia;
    double pr[KC_MM_PAIRS], pi[KC_MM_PAIRS], qr[KC_MM_PAIRS], qi[KC_MM_PAIRS];
    for (size_t t = 0; t < np; t++)
        pr[t] = pi[t] = qr[t] = qi[t] = 0.0;
    for (size_t r = 0; r < dim; r++) {
        /* two partial sums over the slots (even, odd): half the dependent additions in a
         * row, which is what a small block is bound by */
        double ar[MCF_CHANGE_RANK], ai[MCF_CHANGE_RANK], br[MCF_CHANGE_RANK],
            bi[MCF_CHANGE_RANK];
        const double *restrict xr = x + 2 * K * r;
        const double e = ons[r] - shift;
        for (size_t j = 0; j < K; j++) {
            ar[j] = e * xr[j];
            ai[j] = e * xr[K + j];
            br[j] = bi[j] = 0.0;
        }
        int s = 0;
        for (; s + 1 < W; s += 2) {
            const size_t s0 = (size_t)s * dim + r, s1 = s0 + dim;
            const int32_t c0 = col[s0], c1 = col[s1];
            const double h0r = c0 < 0 ? 0.0 : hre[s0], h0i = c0 < 0 ? 0.0 : him[s0];
            const double h1r = c1 < 0 ? 0.0 : hre[s1], h1i = c1 < 0 ? 0.0 : him[s1];
            const double *restrict x0 = x + 2 * K * (size_t)(c0 < 0 ? (int32_t)r : c0);
            const double *restrict x1 = x + 2 * K * (size_t)(c1 < 0 ? (int32_t)r : c1);
            for (size_t j = 0; j < K; j++) {
                ar[j] += h0r * x0[j] - h0i * x0[K + j];
                ai[j] += h0r * x0[K + j] + h0i * x0[j];
                br[j] += h1r * x1[j] - h1i * x1[K + j];
                bi[j] += h1r * x1[K + j] + h1i * x1[j];
            }
        }
        if (s < W) {
            const size_t s0 = (size_t)s * dim + r;
            const int32_t c0 = col[s0];
            if (c0 >= 0) {
                const double h0r = hre[s0], h0i = him[s0];
                const double *restrict x0 = x + 2 * K * (size_t)c0;
                for (size_t j = 0; j < K; j++) {
                    ar[j] += h0r * x0[j] - h0i * x0[K + j];
                    ai[j] += h0r * x0[K + j] + h0i * x0[j];
                }
            }
        }
        for (size_t j = 0; j < K; j++) {
            ar[j] += br[j];
            ai[j] += bi[j];
        }
        double *restrict yr = y + 2 * K * r;
        if (first) { /* y holds scratch on the first step: never read it */
            for (size_t j = 0; j < K; j++) {
                yr[j] = ia * ar[j];
                yr[K + j] = ia * ai[j];
            }
        } else {
            for (size_t j = 0; j < K; j++) {
                yr[j] = ia2 * ar[j] - yr[j];
                yr[K + j] = ia2 * ai[j] - yr[K + j];
            }
        }
        size_t t = 0;
        for (size_t a = 0; a < K; a++) {
            const double ya = yr[a], yb_ = yr[K + a];
            for (size_t b = a; b < K; b++, t++) {
                /* conj(y_a) y_b and conj(y_a) x_b */
                pr[t] += ya * yr[b] + yb_ * yr[K + b];
                pi[t] += ya * yr[K + b] - yb_ * yr[b];
                qr[t] += ya * xr[b] + yb_ * xr[K + b];
                qi[t] += ya * xr[K + b] - yb_ * xr[b];
            }
        }
    }
    for (size_t t = 0; t < np; t++) {
        p[2 * t] = pr[t];
        p[2 * t + 1] = pi[t];
        q[2 * t] = qr[t];
        q[2 * t + 1] = qi[t];
    }
}

typedef void (*kmm_step_fn)(const mcf_hamiltonian *h, double ia, double shift,
                            const double *x, double *y, int first, double *p, double *q);
#define KMM_STEP_FIXED(NK)                                                                  \
    KMM_CLONES static void kmm_step_##NK(const mcf_hamiltonian *h, double ia, double shift, \
                                         const double *x, double *y, int first, double *p,  \
                                         double *q)                                         \
    {                                                                                       \
        kmm_step(h, ia, shift, NK, x, y, first, p, q);                                      \
    }
KMM_STEP_FIXED(1)
KMM_STEP_FIXED(2)
KMM_STEP_FIXED(3)
KMM_STEP_FIXED(4)
KMM_STEP_FIXED(5)
KMM_STEP_FIXED(6)
KMM_STEP_FIXED(7)
KMM_STEP_FIXED(8)

static kmm_step_fn kmm_select(size_t K)
{
    static const kmm_step_fn fn[MCF_CHANGE_RANK] = {kmm_step_1, kmm_step_2, kmm_step_3,
                                                    kmm_step_4, kmm_step_5, kmm_step_6,
                                                    kmm_step_7, kmm_step_8};
    return fn[K - 1];
}

/* writes mu^{ab}_n (a <= b) and its Hermitian partner mu^{ba}_n = conj(mu^{ab}_n) */
static KMM_INLINE void kmm_put(double *mu, size_t K, size_t M, size_t n, const double *v)
{
    size_t t = 0;
    for (size_t a = 0; a < K; a++)
        for (size_t b = a; b < K; b++, t++) {
            double re = v[2 * t], im = v[2 * t + 1];
            if (a == b)
                im = 0.0;
            mu[2 * ((a * K + b) * M + n)] = re;
            mu[2 * ((a * K + b) * M + n) + 1] = im;
            mu[2 * ((b * K + a) * M + n)] = re;
            mu[2 * ((b * K + a) * M + n) + 1] = -im;
        }
}

int kpm_moment_matrix(const mcf_hamiltonian *h, double a, double b, size_t K, size_t M,
                      double *v0, double *v1, double *mu)
{
    if (!h || K < 1 || K > MCF_CHANGE_RANK || M < 1)
        return mcf_fail(MCF_EINVAL, "kpm: moment matrix of %zu vectors and %zu moments is "
                        "invalid (1 <= vectors <= %d, moments >= 1)", K, M, MCF_CHANGE_RANK);
    if (!(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: moment matrix: scale a = %g must be finite and > 0, "
                        "and the shift b = %g finite", a, b);
    const size_t dim = h->dim, np = kmm_pairs(K);
    double mu0[2 * KC_MM_PAIRS];
    double mu1[2 * KC_MM_PAIRS];
    double p[2 * KC_MM_PAIRS];
    double q[2 * KC_MM_PAIRS];
    memset(mu0, 0, sizeof mu0);
    for (size_t r = 0; r < dim; r++) {
        const double *x = v0 + 2 * K * r;
        size_t t = 0;
        for (size_t i = 0; i < K; i++)
            for (size_t j = i; j < K; j++, t++) {
                mu0[2 * t] += x[i] * x[j] + x[K + i] * x[K + j];
                mu0[2 * t + 1] += x[i] * x[K + j] - x[K + i] * x[j];
            }
    }
    kmm_put(mu, K, M, 0, mu0);
    if (M == 1)
        return MCF_OK;
    const double ia = 1.0 / a;
    const kmm_step_fn step = kmm_select(K);
    step(h, ia, b, v0, v1, 1, p, q);
    memcpy(mu1, q, 2 * np * sizeof *q);
    kmm_put(mu, K, M, 1, mu1);
    double v[2 * KC_MM_PAIRS];
    if (M > 2) {
        for (size_t t = 0; t < 2 * np; t++)
            v[t] = 2.0 * p[t] - mu0[t];
        kmm_put(mu, K, M, 2, v);
    }
    /* r_n into the buffer of r_{n-2}: x = r_{n-1}, y = r_{n-2} -> r_n;
     * mu_{2n-1} = 2 <r_n|r_{n-1}> - mu_1, mu_{2n} = 2 <r_n|r_n> - mu_0 */
    double *cur = v1, *old = v0;
    const size_t half = M / 2;
    for (size_t n = 2; n <= half; n++) {
        step(h, ia, b, cur, old, 0, p, q);
        for (size_t t = 0; t < 2 * np; t++)
            v[t] = 2.0 * q[t] - mu1[t];
        kmm_put(mu, K, M, 2 * n - 1, v);
        if (2 * n < M) {
            for (size_t t = 0; t < 2 * np; t++)
                v[t] = 2.0 * p[t] - mu0[t];
            kmm_put(mu, K, M, 2 * n, v);
        }
        double *tmp = cur;
        cur = old;
        old = tmp;
    }
    /* |T_n| <= 1 on [-1, 1]: a diagonal moment beyond mu_0 means the spectrum reaches
     * outside the rescaled interval */
    for (size_t j = 0; j < K; j++) {
        const double m0 = mu[2 * ((j * K + j) * M)];
        for (size_t n = 1; n < M; n++) {
            const double m = mu[2 * ((j * K + j) * M + n)];
            if (!(fabs(m) <= m0 * (1.0 + 1e-8) + 1e-300))
                return mcf_fail(MCF_EINVAL,
                                "kpm: Chebyshev moment <u|T_%zu(H~)|u> of vector %zu is %g, "
                                "beyond <u|u> = %g: the spectrum reaches outside [%g, %g], the "
                                "bounds used for rescaling (a damaged ELL table?)",
                                n, j, m, m0, b - a, b + a);
        }
    }
    return MCF_OK;
}
