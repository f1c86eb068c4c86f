/* kpm_engine.c — the Chebyshev moment engine: blocked recursion over the Hamiltonian's
 * ELL table, one step over all rows in fixed chunks (bit-for-bit the same on any number of
 * threads), diagonal and general moments; and the stochastic trace driven on it (random
 * vectors, DOS and LDOS moments, their mean and error).  The layout and the
 * reproducibility argument are in kpm_core.h. */
#include "kpm_core.h"

#include "mcf/error.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define KPM_INLINE inline __attribute__((always_inline))
#else
#define KPM_INLINE inline
#endif

/* complete unrolling of a short loop over the groups of a block */
#if defined(__GNUC__) && !defined(__clang__)
#define KPM_UNROLL _Pragma("GCC unroll 8")
#else
#define KPM_UNROLL
#endif

static const double kpm_pi = 3.14159265358979323846;

/* ---- engine ------------------------------------------------------------------------ */

struct kpm_engine {
    size_t dim, block, nchunks;
    double *v0, *v1;  /* two blocks of 2 dim block doubles: the recursion's r_{n-1}, r_n */
    double *part;     /* nchunks x 2 block partial dot products */
};

int kpm_engine_create(size_t dim, size_t block, kpm_engine **out)
{
    *out = NULL;
    if (dim < 1 || block < 1 || block > KPM_MAX_BLOCK)
        return mcf_fail(MCF_EINVAL, "kpm: engine of dimension %zu and block %zu is invalid "
                        "(dim >= 1, 1 <= block <= %d)", dim, block, KPM_MAX_BLOCK);
    if (dim > SIZE_MAX / (2 * sizeof(double) * block))
        return mcf_fail(MCF_ENOMEM, "kpm: vectors of dimension %zu in blocks of %zu do not "
                        "fit in memory", dim, block);
    kpm_engine *e = calloc(1, sizeof *e);
    if (!e)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the engine");
    e->dim = dim;
    e->block = block;
    e->nchunks = (dim + KPM_CHUNK - 1) / KPM_CHUNK;
    const size_t n = 2 * dim * block;
    e->v0 = malloc(n * sizeof *e->v0);
    e->v1 = malloc(n * sizeof *e->v1);
    e->part = malloc(e->nchunks * 2 * block * sizeof *e->part);
    if (!e->v0 || !e->v1 || !e->part) {
        kpm_engine_destroy(e);
        return mcf_fail(MCF_ENOMEM,
                        "kpm: out of memory for 2 blocks of %zu vectors of dimension %zu "
                        "(%.1f MiB); lower [evaluator] block",
                        block, dim, 2.0 * (double)n * sizeof(double) / 1048576.0);
    }
    *out = e;
    return MCF_OK;
}

void kpm_engine_destroy(kpm_engine *e)
{
    if (!e)
        return;
    free(e->v0);
    free(e->v1);
    free(e->part);
    free(e);
}

size_t kpm_engine_dim(const kpm_engine *e) { return e->dim; }
size_t kpm_engine_block(const kpm_engine *e) { return e->block; }
double *kpm_engine_start(kpm_engine *e) { return e->v0; }

/* ---- one Chebyshev step ------------------------------------------------------------
 *
 * y = H~ x (first step) or y = 2 H~ x - y (later steps, in place), rows [r0, r1), with
 * the dot products of the rows into part[0..2B):
 *   DIAG:    part[j] = Re <y_j|x_j>,  part[B + j] = <y_j|y_j>
 *   GENERAL: part[j] + i part[B + j] = <w_j|y_j>                                        */

enum { STEP_DIAG = 0, STEP_GENERAL = 1 };

typedef struct step_args {
    const mcf_hamiltonian *h;
    double ia, b;       /* 1 / a and the shift */
    size_t B;
    const double *x;    /* r_n */
    double *y;          /* r_{n-1} in, r_{n+1} out */
    const double *w;    /* left vectors (GENERAL) */
    int first, mode;
} step_args;

static KPM_INLINE void step_rows(const step_args *s, const size_t B, size_t r0, size_t r1,
                                 double *part)
{
    const mcf_hamiltonian *h = s->h;
    const size_t dim = h->dim;
    const int W = h->width;
    const int32_t *col = h->col;
    const double *hre = h->hop_re, *him = h->hop_im, *ons = h->onsite;
    const double *restrict x = s->x;
    double *restrict y = s->y;
    const double *restrict w = s->w;
    const double ia = s->ia, shift = s->b, ia2 = 2.0 * s->ia;
    const int first = s->first, mode = s->mode;
    double ar[KPM_MAX_BLOCK], ai[KPM_MAX_BLOCK], s1[KPM_MAX_BLOCK], s2[KPM_MAX_BLOCK];
    for (size_t j = 0; j < B; j++)
        s1[j] = s2[j] = 0.0;
    for (size_t r = r0; r < r1; r++) {
        const double *restrict xr = x + 2 * B * r;
        const double e = ons[r] - shift;
        for (size_t j = 0; j < B; j++) {
            ar[j] = e * xr[j];
            ai[j] = e * xr[B + j];
        }
        for (int k = 0; k < W; k++) {
            const size_t sl = (size_t)k * dim + r;
            const int32_t c = col[sl];
            if (c < 0)
                continue;
            const double hr = hre[sl], hi = him[sl];
            const double *restrict xc = x + 2 * B * (size_t)c;
            for (size_t j = 0; j < B; j++) {
                ar[j] += hr * xc[j] - hi * xc[B + j];
                ai[j] += hr * xc[B + j] + hi * xc[j];
            }
        }
        double *restrict yr = y + 2 * B * r;
        if (first) {
            for (size_t j = 0; j < B; j++) {
                yr[j] = ia * ar[j];
                yr[B + j] = ia * ai[j];
            }
        } else {
            for (size_t j = 0; j < B; j++) {
                yr[j] = ia2 * ar[j] - yr[j];
                yr[B + j] = ia2 * ai[j] - yr[B + j];
            }
        }
        if (mode == STEP_DIAG) {
            for (size_t j = 0; j < B; j++) {
                s1[j] += yr[j] * xr[j] + yr[B + j] * xr[B + j];
                s2[j] += yr[j] * yr[j] + yr[B + j] * yr[B + j];
            }
        } else {
            const double *restrict wr = w + 2 * B * r;
            for (size_t j = 0; j < B; j++) {
                s1[j] += wr[j] * yr[j] + wr[B + j] * yr[B + j];
                s2[j] += wr[j] * yr[B + j] - wr[B + j] * yr[j];
            }
        }
    }
    for (size_t j = 0; j < B; j++) {
        part[j] = s1[j];
        part[B + j] = s2[j];
    }
}

/* The same step for blocks of 4 NG vectors with explicit 4-wide vectors (GCC's vector
 * extension; two SSE2 halves in the baseline clone): the accumulators of PG groups (up to
 * 16 vectors) stay in registers, where step_rows' arrays of B accumulators live on the
 * stack; the rows' table entries are re-read from L1 for each pass of PG groups.  Every
 * element goes through the same operations in the same order as in step_rows (element-
 * wise products, sums and differences, no FMA), so the moments are the same bits for any
 * block size (test_kpm_exact (b)).  The table and the gathered rows of x are prefetched
 * KPM_PREFETCH and KPM_PREFETCH / 4 rows ahead: the step is bound by the latency of its
 * 20-odd streams on one core rather than by the memory bus (docs/benchmarks.md). */
#if defined(__GNUC__)
typedef double kpm_v4 __attribute__((vector_size(32), aligned(8), may_alias));
#define KPM_HAVE_V4 1
#define KPM_PREFETCH 64
/* macros, not functions: a function returning a 32-byte vector warns (-Wpsabi) */
#define v4_load(p) (*(const kpm_v4 *)(p))
#define v4_store(p, v) (*(kpm_v4 *)(p) = (v))
#define v4_all(a) ((kpm_v4){(a), (a), (a), (a)})

static KPM_INLINE void step_prefetch(const mcf_hamiltonian *h, const double *x, size_t B,
                                     size_t r)
{
    const size_t dim = h->dim;
    if (r + KPM_PREFETCH >= dim)
        return;
    if (!(r & 7))
        for (int k = 0; k < h->width; k++) {
            const size_t sp = (size_t)k * dim + r + KPM_PREFETCH;
            __builtin_prefetch(h->col + sp);
            __builtin_prefetch(h->hop_re + sp);
            __builtin_prefetch(h->hop_im + sp);
        }
    for (int k = 0; k < h->width; k++) {
        const int32_t c = h->col[(size_t)k * dim + r + KPM_PREFETCH / 4];
        if (c >= 0)
            for (size_t o = 0; o < 2 * B; o += 8)
                __builtin_prefetch(x + 2 * B * (size_t)c + o);
    }
}

static KPM_INLINE void step_rows_v4(const step_args *s, const size_t NG, const size_t PG,
                                    size_t r0, size_t r1, double *part)
{
    const mcf_hamiltonian *h = s->h;
    const size_t dim = h->dim, B = 4 * NG;
    const int W = h->width;
    const int32_t *col = h->col;
    const double *hre = h->hop_re, *him = h->hop_im, *ons = h->onsite;
    const double *restrict x = s->x;
    double *restrict y = s->y;
    const double *restrict w = s->w;
    const double shift = s->b;
    const kpm_v4 zero = {0.0, 0.0, 0.0, 0.0};
    const kpm_v4 ia = v4_all(s->ia), ia2 = v4_all(2.0 * s->ia);
    const int first = s->first, mode = s->mode;
    kpm_v4 s1[KPM_MAX_BLOCK / 4], s2[KPM_MAX_BLOCK / 4];
    for (size_t g = 0; g < NG; g++)
        s1[g] = s2[g] = zero;
    for (size_t r = r0; r < r1; r++) {
        step_prefetch(h, x, B, r);
        const double *restrict xr = x + 2 * B * r;
        double *restrict yr = y + 2 * B * r;
        const kpm_v4 e = v4_all(ons[r] - shift);
        for (size_t g0 = 0; g0 < NG; g0 += PG) {
            kpm_v4 ar[4], ai[4];
            KPM_UNROLL
            for (size_t q = 0; q < PG; q++) {
                const size_t o = 4 * (g0 + q);
                ar[q] = e * v4_load(xr + o);
                ai[q] = e * v4_load(xr + B + o);
            }
            for (int k = 0; k < W; k++) {
                const size_t sl = (size_t)k * dim + r;
                const int32_t c = col[sl];
                if (c < 0)
                    continue;
                const kpm_v4 hr = v4_all(hre[sl]), hi = v4_all(him[sl]);
                const double *restrict xc = x + 2 * B * (size_t)c;
                KPM_UNROLL
                for (size_t q = 0; q < PG; q++) {
                    const size_t o = 4 * (g0 + q);
                    const kpm_v4 cr = v4_load(xc + o), ci = v4_load(xc + B + o);
                    ar[q] += hr * cr - hi * ci;
                    ai[q] += hr * ci + hi * cr;
                }
            }
            KPM_UNROLL
            for (size_t q = 0; q < PG; q++) {
                const size_t o = 4 * (g0 + q);
                kpm_v4 yre, yim;
                if (first) {
                    yre = ia * ar[q];
                    yim = ia * ai[q];
                } else {
                    yre = ia2 * ar[q] - v4_load(yr + o);
                    yim = ia2 * ai[q] - v4_load(yr + B + o);
                }
                v4_store(yr + o, yre);
                v4_store(yr + B + o, yim);
                if (mode == STEP_DIAG) {
                    const kpm_v4 xre = v4_load(xr + o), xim = v4_load(xr + B + o);
                    s1[g0 + q] += yre * xre + yim * xim;
                    s2[g0 + q] += yre * yre + yim * yim;
                } else {
                    const kpm_v4 wre = v4_load(w + 2 * B * r + o);
                    const kpm_v4 wim = v4_load(w + 2 * B * r + B + o);
                    s1[g0 + q] += wre * yre + wim * yim;
                    s2[g0 + q] += wre * yim - wim * yre;
                }
            }
        }
    }
    for (size_t g = 0; g < NG; g++)
        for (int l = 0; l < 4; l++) {
            part[4 * g + (size_t)l] = s1[g][l];
            part[B + 4 * g + (size_t)l] = s2[g][l];
        }
}
#endif

typedef void (*step_fn)(const step_args *s, size_t r0, size_t r1, double *part);

/* Versions with the block size known to the compiler (the inner loops unroll and
 * vectorize), and one for any block size.  On x86-64 with GCC each is also compiled for
 * AVX2 and picked at run time (ifunc): about 1.2-1.9x faster for blocks >= 4 on the
 * development machine.  No FMA is enabled and ISO C mode keeps -ffp-contract=off, so both
 * clones compute the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define KPM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef KPM_CLONES
#define KPM_CLONES
#endif
#define KPM_STEP_FIXED(NB)                                                             \
    KPM_CLONES static void step_b##NB(const step_args *s, size_t r0, size_t r1,       \
                                      double *part)                                    \
    {                                                                                  \
        step_rows(s, NB, r0, r1, part);                                                \
    }
#ifdef KPM_HAVE_V4
#define KPM_STEP_V4(NB, PG)                                                            \
    KPM_CLONES static void step_b##NB(const step_args *s, size_t r0, size_t r1,       \
                                      double *part)                                    \
    {                                                                                  \
        step_rows_v4(s, NB / 4, PG, r0, r1, part);                                     \
    }
#else
#define KPM_STEP_V4(NB, PG) KPM_STEP_FIXED(NB)
#endif
KPM_STEP_FIXED(1)
KPM_STEP_FIXED(2)
KPM_STEP_V4(4, 1)
KPM_STEP_V4(8, 2)
KPM_STEP_V4(16, 4)
KPM_STEP_V4(32, 4)
KPM_CLONES static void step_bn(const step_args *s, size_t r0, size_t r1, double *part)
{
    step_rows(s, s->B, r0, r1, part);
}

static step_fn step_select(size_t B)
{
    switch (B) {
    case 1: return step_b1;
    case 2: return step_b2;
    case 4: return step_b4;
    case 8: return step_b8;
    case 16: return step_b16;
    case 32: return step_b32;
    default: return step_bn;
    }
}

/* One step over all rows; the totals of the dot products into tot[0..2B), added chunk by
 * chunk in a fixed order (independent of the thread count). */
static void step_all(kpm_engine *e, const step_args *s, double *tot)
{
    const step_fn fn = step_select(s->B);
    const size_t dim = e->dim, nch = e->nchunks, B = s->B;
    double *part = e->part;
    const long nchl = (long)nch;
    if (nch == 1) {
        /* one chunk: no OpenMP construct at all (even an if(0) parallel region costs a
         * team set-up in libgomp, which dominated GFMC on small lattices) */
        fn(s, 0, dim, part);
    } else {
        /* no more threads than chunks: waking idle threads for every step cost ~0.2 ms a
         * step with 16 threads and 2 chunks (a 16^3 lattice) */
        int nt = 1;
#ifdef _OPENMP
        nt = omp_get_max_threads();
#endif
        if ((long)nt > nchl)
            nt = (int)nchl;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (long c = 0; c < nchl; c++) {
            const size_t r0 = (size_t)c * KPM_CHUNK;
            const size_t r1 = r0 + KPM_CHUNK < dim ? r0 + KPM_CHUNK : dim;
            fn(s, r0, r1, part + (size_t)c * 2 * B);
        }
    }
    for (size_t j = 0; j < 2 * B; j++)
        tot[j] = 0.0;
    for (size_t c = 0; c < nch; c++)
        for (size_t j = 0; j < 2 * B; j++)
            tot[j] += part[c * 2 * B + j];
}

static int engine_args_check(const kpm_engine *e, const mcf_hamiltonian *h, double a,
                             size_t nvec, size_t M, const char *who)
{
    if (!h || h->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm: %s: the Hamiltonian's dimension %zu differs from "
                        "the engine's %zu", who, h ? h->dim : 0, e->dim);
    if (nvec < 1 || nvec > e->block)
        return mcf_fail(MCF_EINVAL, "kpm: %s: %zu vectors, but the engine holds 1 to %zu",
                        who, nvec, e->block);
    if (M < 1)
        return mcf_fail(MCF_EINVAL, "kpm: %s: no moments asked for", who);
    if (!(a > 0.0) || !isfinite(a))
        return mcf_fail(MCF_EINVAL, "kpm: %s: scale a = %g must be finite and > 0", who, a);
    return MCF_OK;
}

int kpm_moments_diag(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                     size_t nvec, size_t M, double *mu)
{
    int rc = engine_args_check(e, h, a, nvec, M, "diagonal moments");
    if (rc)
        return rc;
    const size_t B = nvec, dim = e->dim;
    double mu0[KPM_MAX_BLOCK], mu1[KPM_MAX_BLOCK], tot[2 * KPM_MAX_BLOCK];
    for (size_t j = 0; j < B; j++)
        mu0[j] = 0.0;
    for (size_t r = 0; r < dim; r++) {
        const double *v = e->v0 + 2 * B * r;
        for (size_t j = 0; j < B; j++)
            mu0[j] += v[j] * v[j] + v[B + j] * v[B + j];
    }
    for (size_t j = 0; j < B; j++)
        mu[j * M] = mu0[j];
    if (M == 1)
        return MCF_OK;

    step_args s = {.h = h, .ia = 1.0 / a, .b = b, .B = B, .x = e->v0, .y = e->v1,
                   .w = NULL, .first = 1, .mode = STEP_DIAG};
    step_all(e, &s, tot);
    for (size_t j = 0; j < B; j++) {
        mu1[j] = tot[j];
        mu[j * M + 1] = mu1[j];
        if (M > 2)
            mu[j * M + 2] = 2.0 * tot[B + j] - mu0[j];
    }
    /* r_n into the buffer of r_{n-2}: x = r_{n-1}, y = r_{n-2} -> r_n */
    double *cur = e->v1, *old = e->v0;
    const size_t K = M / 2;
    s.first = 0;
    for (size_t n = 2; n <= K; n++) {
        s.x = cur;
        s.y = old;
        step_all(e, &s, tot);
        for (size_t j = 0; j < B; j++) {
            mu[j * M + 2 * n - 1] = 2.0 * tot[j] - mu1[j];
            if (2 * n < M)
                mu[j * M + 2 * n] = 2.0 * tot[B + j] - mu0[j];
        }
        double *t = cur;
        cur = old;
        old = t;
    }
    /* |T_n(x)| <= 1 on [-1, 1], so |mu_n| <= mu_0 when the spectrum of H~ lies inside;
     * beyond it T_n grows exponentially and so would the moments */
    for (size_t j = 0; j < B; j++)
        for (size_t n = 1; n < M; n++) {
            const double v = mu[j * M + n];
            if (!(fabs(v) <= mu0[j] * (1.0 + 1e-8) + DBL_MIN))
                return mcf_fail(MCF_EINVAL,
                                "kpm: Chebyshev moment <r|T_%zu(H~)|r> of vector %zu is %g, "
                                "beyond <r|r> = %g: the spectrum of the Hamiltonian reaches "
                                "outside [%g, %g], the bounds used for rescaling (fixed bounds "
                                "too narrow, or a damaged ELL table); widen the bounds or check "
                                "the Hamiltonian (mcf_hamiltonian_check)",
                                n, j, v, mu0[j], b - a, b + a);
        }
    return MCF_OK;
}

int kpm_moments_general(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                        size_t nvec, const double *left, size_t M, double *mu)
{
    int rc = engine_args_check(e, h, a, nvec, M, "general moments");
    if (rc)
        return rc;
    const size_t B = nvec, dim = e->dim;
    double tot[2 * KPM_MAX_BLOCK];
    for (size_t j = 0; j < 2 * B; j++)
        tot[j] = 0.0;
    for (size_t r = 0; r < dim; r++) {
        const double *v = e->v0 + 2 * B * r, *w = left + 2 * B * r;
        for (size_t j = 0; j < B; j++) {
            tot[j] += w[j] * v[j] + w[B + j] * v[B + j];
            tot[B + j] += w[j] * v[B + j] - w[B + j] * v[j];
        }
    }
    for (size_t j = 0; j < B; j++) {
        mu[2 * (j * M)] = tot[j];
        mu[2 * (j * M) + 1] = tot[B + j];
    }
    step_args s = {.h = h, .ia = 1.0 / a, .b = b, .B = B, .x = e->v0, .y = e->v1,
                   .w = left, .first = 1, .mode = STEP_GENERAL};
    double *cur = e->v0, *old = e->v1;
    for (size_t n = 1; n < M; n++) {
        s.x = cur;
        s.y = old;
        step_all(e, &s, tot);
        s.first = 0;
        for (size_t j = 0; j < B; j++) {
            mu[2 * (j * M + n)] = tot[j];
            mu[2 * (j * M + n) + 1] = tot[B + j];
        }
        double *t = cur;
        cur = old;
        old = t;
    }
    return MCF_OK;
}

/* ---- vectors ----------------------------------------------------------------------- */

void kpm_random_vector(mcf_rng *rng, kpm_random kind, size_t dim, size_t nvec, size_t j,
                       double *v)
{
    const double two_pi = 2.0 * kpm_pi, rs2 = sqrt(0.5);
    for (size_t r = 0; r < dim; r++) {
        double re, im;
        if (kind == KPM_RANDOM_GAUSSIAN) {
            re = rs2 * mcf_rng_normal(rng);
            im = rs2 * mcf_rng_normal(rng);
        } else {
            const double phi = two_pi * mcf_rng_uniform(rng);
            re = cos(phi);
            im = sin(phi);
        }
        v[2 * nvec * r + j] = re;
        v[2 * nvec * r + nvec + j] = im;
    }
}

int kpm_stochastic_moments(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                           mcf_rng *rng, kpm_random kind, size_t R, size_t M,
                           double *mu_vec)
{
    if (!h || h->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm: stochastic trace: the Hamiltonian's dimension "
                        "differs from the engine's %zu", e->dim);
    const double inv_dim = 1.0 / (double)e->dim;
    for (size_t r = 0; r < R; r += e->block) {
        const size_t nb = R - r < e->block ? R - r : e->block;
        double *v = kpm_engine_start(e);
        for (size_t j = 0; j < nb; j++)
            kpm_random_vector(rng, kind, e->dim, nb, j, v);
        int rc = kpm_moments_diag(e, h, a, b, nb, M, mu_vec + r * M);
        if (rc)
            return rc;
        for (size_t q = 0; q < nb * M; q++)
            mu_vec[r * M + q] *= inv_dim;
    }
    return MCF_OK;
}

int kpm_ldos_moments(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                     const size_t *rows, size_t n_rows, size_t M, double *mu)
{
    if (!h || h->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm: LDOS: the Hamiltonian's dimension differs from the "
                        "engine's %zu", e->dim);
    for (size_t j = 0; j < n_rows; j++)
        if (rows[j] >= e->dim)
            return mcf_fail(MCF_EINVAL, "kpm: LDOS of row %zu asked for, but the Hamiltonian "
                            "has rows 0 to %zu", rows[j], e->dim - 1);
    for (size_t r = 0; r < n_rows; r += e->block) {
        const size_t nb = n_rows - r < e->block ? n_rows - r : e->block;
        double *v = kpm_engine_start(e);
        memset(v, 0, 2 * e->dim * nb * sizeof *v);
        for (size_t j = 0; j < nb; j++)
            v[2 * nb * rows[r + j] + j] = 1.0;
        int rc = kpm_moments_diag(e, h, a, b, nb, M, mu + r * M);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

void kpm_moments_mean(size_t R, size_t M, const double *mu_vec, double *mean, double *err)
{
    for (size_t n = 0; n < M; n++) {
        double m = 0.0;
        for (size_t r = 0; r < R; r++)
            m += mu_vec[r * M + n];
        mean[n] = m / (double)R;
    }
    if (!err)
        return;
    /* the standard error of the mean, sqrt(var / R); NaN below 2 vectors */
    kpm_moments_variance(R, M, mu_vec, mean, err);
    for (size_t n = 0; n < M; n++)
        err[n] = R < 2 ? NAN : sqrt(err[n] / (double)R);
}

void kpm_moments_variance(size_t R, size_t M, const double *mu_vec, const double *mean,
                          double *var)
{
    for (size_t n = 0; n < M; n++) {
        if (R < 2) {
            var[n] = R == 1 ? NAN : 0.0;
            continue;
        }
        double ss = 0.0;
        for (size_t r = 0; r < R; r++) {
            const double d = mu_vec[r * M + n] - mean[n];
            ss += d * d;
        }
        var[n] = ss / ((double)R - 1.0);
    }
}
