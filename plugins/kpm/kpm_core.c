/* kpm_core.c — the kernel polynomial method: kernels, the blocked Chebyshev recursion,
 * the stochastic trace, reconstruction by FFT, Green's functions and integrated
 * quantities.  The formulas and conventions are written in kpm_core.h. */
#include "kpm_core.h"

#include "mcf/error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fft_complex.h>
#include <gsl/gsl_integration.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define KPM_INLINE inline __attribute__((always_inline))
#else
#define KPM_INLINE inline
#endif

static const double kpm_pi = 3.14159265358979323846;

/* ---- configuration --------------------------------------------------------------- */

void kpm_config_default(kpm_config *c)
{
    c->moments = 256;
    c->vectors = 8;
    c->kernel = KPM_KERNEL_JACKSON;
    c->lambda = 4.0;
    c->points = 0;
    c->random = KPM_RANDOM_PHASE;
    c->margin = 0.01;
    c->block = 8;
    c->gfmc = KPM_GFMC_CONTOUR;
}

int kpm_config_check(const kpm_config *c)
{
    if (c->moments < 2)
        return mcf_fail(MCF_EINVAL,
                        "kpm: moments = %ld is too small; the Chebyshev expansion needs at "
                        "least 2 moments (typical: 256 to 4096, resolution ~ pi a / moments)",
                        c->moments);
    if (c->moments > (1L << 24))
        return mcf_fail(MCF_EINVAL, "kpm: moments = %ld is too large (at most %ld)",
                        c->moments, 1L << 24);
    if (c->vectors < 0)
        return mcf_fail(MCF_EINVAL,
                        "kpm: vectors = %ld; the stochastic trace needs at least 1 random "
                        "vector (or 0 for the exact trace over all unit vectors)", c->vectors);
    if (c->kernel != KPM_KERNEL_JACKSON && c->kernel != KPM_KERNEL_LORENTZ &&
        c->kernel != KPM_KERNEL_NONE)
        return mcf_fail(MCF_EINVAL, "kpm: unknown kernel %d; use jackson, lorentz or none",
                        (int)c->kernel);
    if (c->kernel == KPM_KERNEL_LORENTZ && !(c->lambda > 0.0 && isfinite(c->lambda)))
        return mcf_fail(MCF_EINVAL,
                        "kpm: lambda = %g; the Lorentz kernel needs a finite lambda > 0 "
                        "(3 to 5 is customary)", c->lambda);
    if (c->points != 0 && c->points < c->moments)
        return mcf_fail(MCF_EINVAL,
                        "kpm: energy_points = %ld is smaller than moments = %ld; the "
                        "reconstruction needs at least as many Chebyshev nodes as moments "
                        "(set energy_points >= %ld, or 0 for 2 x moments = %ld)",
                        c->points, c->moments, c->moments, 2 * c->moments);
    if (c->points < 0 || c->points > (1L << 26))
        return mcf_fail(MCF_EINVAL, "kpm: energy_points = %ld is out of range [0, %ld]",
                        c->points, 1L << 26);
    if (c->random != KPM_RANDOM_PHASE && c->random != KPM_RANDOM_GAUSSIAN)
        return mcf_fail(MCF_EINVAL, "kpm: unknown random vector kind %d; use phase or gaussian",
                        (int)c->random);
    if (!(c->margin > 0.0 && c->margin < 0.5))
        return mcf_fail(MCF_EINVAL,
                        "kpm: margin = %g is out of range; it must lie in (0, 0.5) "
                        "(0.01 is customary)", c->margin);
    if (c->block < 1 || c->block > KPM_MAX_BLOCK)
        return mcf_fail(MCF_EINVAL, "kpm: block = %ld is out of range; it must lie in [1, %d]",
                        c->block, KPM_MAX_BLOCK);
    return MCF_OK;
}

size_t kpm_config_points(const kpm_config *c)
{
    return c->points > 0 ? (size_t)c->points : 2 * (size_t)c->moments;
}

/* ---- kernels ----------------------------------------------------------------------- */

void kpm_kernel_coefficients(kpm_kernel k, double lambda, size_t M, double *g)
{
    const double Md = (double)M;
    switch (k) {
    case KPM_KERNEL_JACKSON: {
        const double q = kpm_pi / (Md + 1.0), cot = cos(q) / sin(q);
        for (size_t n = 0; n < M; n++) {
            const double nd = (double)n;
            g[n] = ((Md - nd + 1.0) * cos(q * nd) + sin(q * nd) * cot) / (Md + 1.0);
        }
        break;
    }
    case KPM_KERNEL_LORENTZ: {
        const double s = sinh(lambda);
        for (size_t n = 0; n < M; n++)
            g[n] = sinh(lambda * (1.0 - (double)n / Md)) / s;
        break;
    }
    case KPM_KERNEL_NONE:
    default:
        for (size_t n = 0; n < M; n++)
            g[n] = 1.0;
        break;
    }
}

double kpm_jackson_width(size_t M, double x)
{
    /* a delta at x = cos(phi) broadened by the kernel: <y> = g_1 x and
     * <y^2> = (1 + g_2 T_2(x)) / 2, with g_1 = cos q, g_2 = (M cos 2q + 1) / (M + 1) */
    const double q = kpm_pi / ((double)M + 1.0);
    const double g1 = cos(q), g2 = ((double)M * cos(2.0 * q) + 1.0) / ((double)M + 1.0);
    const double var = 0.5 * (1.0 + g2 * (2.0 * x * x - 1.0)) - g1 * g1 * x * x;
    return sqrt(var > 0.0 ? var : 0.0);
}

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
KPM_STEP_FIXED(1)
KPM_STEP_FIXED(2)
KPM_STEP_FIXED(4)
KPM_STEP_FIXED(8)
KPM_STEP_FIXED(16)
KPM_STEP_FIXED(32)
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
        m /= (double)R;
        mean[n] = m;
        if (err) {
            if (R < 2) {
                err[n] = NAN;
                continue;
            }
            double ss = 0.0;
            for (size_t r = 0; r < R; r++) {
                const double d = mu_vec[r * M + n] - m;
                ss += d * d;
            }
            err[n] = sqrt(ss / ((double)R - 1.0) / (double)R);
        }
    }
}

/* ---- reconstruction ---------------------------------------------------------------- */

struct kpm_dct {
    size_t N, M;
    double *data;       /* 2 N complex (4 N doubles) */
    double *ph;         /* M pairs cos, sin of pi n / (2 N) */
    double *isin;       /* N: 1 / sin theta_k, node order k */
    double *x;          /* N ascending nodes */
    double *tmp;        /* N scratch */
    gsl_fft_complex_wavetable *wt;
    gsl_fft_complex_workspace *ws;
};

int kpm_dct_create(size_t N, size_t M, kpm_dct **out)
{
    *out = NULL;
    if (N < 1 || M < 1 || M > N)
        return mcf_fail(MCF_EINVAL, "kpm: reconstruction with %zu points and %zu moments is "
                        "invalid: it needs 1 <= moments <= points", N, M);
    kpm_dct *d = calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for the reconstruction plan");
    d->N = N;
    d->M = M;
    d->data = malloc(4 * N * sizeof *d->data);
    d->ph = malloc(2 * M * sizeof *d->ph);
    d->isin = malloc(N * sizeof *d->isin);
    d->x = malloc(N * sizeof *d->x);
    d->tmp = malloc(N * sizeof *d->tmp);
    if (d->data && d->ph && d->isin && d->x && d->tmp) {
        d->wt = gsl_fft_complex_wavetable_alloc(2 * N);
        d->ws = gsl_fft_complex_workspace_alloc(2 * N);
    }
    if (!d->wt || !d->ws) {
        kpm_dct_destroy(d);
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for an FFT of length %zu", 2 * N);
    }
    const double Nd = (double)N;
    for (size_t n = 0; n < M; n++) {
        const double p = kpm_pi * (double)n / (2.0 * Nd);
        d->ph[2 * n] = cos(p);
        d->ph[2 * n + 1] = sin(p);
    }
    for (size_t k = 0; k < N; k++) {
        const double th = kpm_pi * ((double)k + 0.5) / Nd;
        d->isin[k] = 1.0 / sin(th);
        d->x[N - 1 - k] = cos(th);
    }
    *out = d;
    return MCF_OK;
}

void kpm_dct_destroy(kpm_dct *d)
{
    if (!d)
        return;
    if (d->wt)
        gsl_fft_complex_wavetable_free(d->wt);
    if (d->ws)
        gsl_fft_complex_workspace_free(d->ws);
    free(d->data);
    free(d->ph);
    free(d->isin);
    free(d->x);
    free(d->tmp);
    free(d);
}

size_t kpm_dct_points(const kpm_dct *d) { return d->N; }

void kpm_dct_nodes(const kpm_dct *d, double *x) { memcpy(x, d->x, d->N * sizeof *x); }

void kpm_dct_energies(const kpm_dct *d, double a, double b, double *E)
{
    for (size_t i = 0; i < d->N; i++)
        E[i] = a * d->x[i] + b;
}

/* chi_k = sum_n c_n exp(-i n theta_k) into d->data[2k], d->data[2k + 1], k < N, with
 * c_0 = g_0 mu_0 / 2, c_n = g_n mu_n. */
static int dct_chi(kpm_dct *d, const double *mu_re, const double *mu_im, const double *g,
                   size_t M)
{
    if (M < 1 || M > d->M)
        return mcf_fail(MCF_EINVAL, "kpm: reconstruction of %zu moments with a plan for 1 to "
                        "%zu", M, d->M);
    double *z = d->data;
    for (size_t n = 0; n < M; n++) {
        const double f = n ? g[n] : 0.5 * g[0];
        const double cr = f * mu_re[n], ci = mu_im ? f * mu_im[n] : 0.0;
        const double c = d->ph[2 * n], s = d->ph[2 * n + 1];
        /* (cr + i ci) (c - i s) */
        z[2 * n] = cr * c + ci * s;
        z[2 * n + 1] = ci * c - cr * s;
    }
    memset(z + 2 * M, 0, (4 * d->N - 2 * M) * sizeof *z);
    if (gsl_fft_complex_forward(z, 1, 2 * d->N, d->wt, d->ws) != 0)
        return mcf_fail(MCF_EINTERNAL, "kpm: the FFT of length %zu failed", 2 * d->N);
    return MCF_OK;
}

int kpm_dct_density(kpm_dct *d, const double *mu, const double *g, size_t M, double a,
                    double *out)
{
    int rc = dct_chi(d, mu, NULL, g, M);
    if (rc)
        return rc;
    const size_t N = d->N;
    const double f = 2.0 / (kpm_pi * a);
    for (size_t k = 0; k < N; k++)
        out[N - 1 - k] = f * d->data[2 * k] * d->isin[k];
    return MCF_OK;
}

int kpm_dct_green(kpm_dct *d, const double *mu_re, const double *mu_im, const double *g,
                  size_t M, double a, double *re, double *im)
{
    int rc = dct_chi(d, mu_re, mu_im, g, M);
    if (rc)
        return rc;
    const size_t N = d->N;
    const double f = 2.0 / a;
    for (size_t k = 0; k < N; k++) {
        /* G = -2 i chi / sin theta */
        re[N - 1 - k] = f * d->data[2 * k + 1] * d->isin[k];
        im[N - 1 - k] = -f * d->data[2 * k] * d->isin[k];
    }
    return MCF_OK;
}

int kpm_dct_density_stats(kpm_dct *d, const double *mu_vec, size_t R, const double *g,
                          size_t M, double a, double *mean, double *err)
{
    const size_t N = d->N;
    for (size_t i = 0; i < N; i++)
        mean[i] = err[i] = 0.0;
    /* Welford: mean and sum of squared deviations, vector by vector */
    for (size_t r = 0; r < R; r++) {
        int rc = kpm_dct_density(d, mu_vec + r * M, g, M, a, d->tmp);
        if (rc)
            return rc;
        const double inv = 1.0 / (double)(r + 1);
        for (size_t i = 0; i < N; i++) {
            const double delta = d->tmp[i] - mean[i];
            mean[i] += delta * inv;
            err[i] += delta * (d->tmp[i] - mean[i]);
        }
    }
    for (size_t i = 0; i < N; i++)
        err[i] = R < 2 ? NAN : sqrt(err[i] / ((double)R - 1.0) / (double)R);
    return MCF_OK;
}

/* ---- integrated quantities ------------------------------------------------------------ */

/* S(theta) = sum_n w_n cos(n theta), w_0 = g_0 mu_0, w_n = 2 g_n mu_n, by Clenshaw's
 * recurrence in x = cos theta. */
static double series_s(const double *mu, const double *g, size_t M, double x)
{
    double b1 = 0.0, b2 = 0.0;
    for (size_t n = M - 1; n >= 1; n--) {
        const double b0 = 2.0 * g[n] * mu[n] + 2.0 * x * b1 - b2;
        b2 = b1;
        b1 = b0;
    }
    return g[0] * mu[0] + x * b1 - b2;
}

/* f(y) - step(-y) for y = (E - mu) / T: +f(y) above mu, f(y) - 1 = -f(-y) below. */
static double fermi_minus_step(double y)
{
    const double t = exp(-fabs(y));
    const double v = t / (1.0 + t);
    return y > 0.0 ? v : -v;
}

/* Adds (1/pi) int_{t0}^{t1} S (F - step) (1, E) dtheta on panels walking away from
 * theta_mu = t0 (dir = +1) or t1 (dir = -1). */
static void occ_side(const double *mu, const double *g, size_t M, double a, double b,
                     double mu_chem, double T, double t0, double t1, int dir,
                     const gsl_integration_glfixed_table *tab, double *dn, double *de)
{
    const double hmax = kpm_pi / (2.0 * (double)M), hroot = sqrt(T / a);
    double lo = t0, hi = t1, sn = 0.0, se = 0.0;
    double t = dir > 0 ? lo : hi;
    while (dir > 0 ? t < hi : t > lo) {
        const double st = fabs(sin(t));
        double w = hmax;
        if (hroot < w)
            w = hroot;
        if (st > 0.0 && T / (a * st) < w)
            w = T / (a * st);
        double p0, p1;
        if (dir > 0) {
            p0 = t;
            p1 = t + w < hi ? t + w : hi;
            t = p1;
        } else {
            p1 = t;
            p0 = t - w > lo ? t - w : lo;
            t = p0;
        }
        for (size_t i = 0; i < tab->n; i++) {
            double th, wt;
            gsl_integration_glfixed_point(p0, p1, i, &th, &wt, tab);
            const double x = cos(th), E = a * x + b;
            const double v = wt * series_s(mu, g, M, x) * fermi_minus_step((E - mu_chem) / T);
            sn += v;
            se += v * E;
        }
    }
    *dn += sn / kpm_pi;
    *de += se / kpm_pi;
}

int kpm_occupation(const double *mu, const double *g, size_t M, double a, double b,
                   double mu_chem, double T, double *density, double *energy)
{
    if (M < 1 || !(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: occupation: invalid scaling a = %g, b = %g or %zu "
                        "moments", a, b, M);
    if (!isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "kpm: occupation: the chemical potential %g is not finite",
                        mu_chem);
    if (!(T >= 0.0) || !isfinite(T))
        return mcf_fail(MCF_EINVAL, "kpm: occupation: temperature T = %g must be finite and "
                        ">= 0", T);
    const double xm = (mu_chem - b) / a;
    const double tm = xm >= 1.0 ? 0.0 : xm <= -1.0 ? kpm_pi : acos(xm);
    /* T = 0: I_m = int_{tm}^{pi} cos(m theta) dtheta */
    double n0 = 0.0, e0 = 0.0;
    if (xm >= 1.0) { /* every state of the expansion filled: int_0^pi cos(n theta) = pi d_n0 */
        n0 = g[0] * mu[0];
        e0 = b * n0 + (M > 1 ? a * g[1] * mu[1] : 0.0);
    } else if (xm > -1.0) {
#define KPM_I(m) ((m) == 0 ? kpm_pi - tm : -sin((double)(m) * tm) / (double)(m))
        for (size_t n = 0; n < M; n++) {
            const double wn = (n ? 2.0 : 1.0) * g[n] * mu[n];
            const size_t nm = n ? n - 1 : 1;
            n0 += wn * KPM_I(n);
            e0 += wn * 0.5 * (KPM_I(n + 1) + KPM_I(nm));
        }
#undef KPM_I
        n0 /= kpm_pi;
        e0 = b * n0 + a * e0 / kpm_pi;
    }
    if (T > 0.0) {
        /* the Fermi edge within +-40 T of mu: beyond, f - step < 5e-18 */
        const double xl = (mu_chem - 40.0 * T - b) / a, xh = (mu_chem + 40.0 * T - b) / a;
        const double th_lo = xh >= 1.0 ? 0.0 : xh <= -1.0 ? kpm_pi : acos(xh);
        const double th_hi = xl >= 1.0 ? 0.0 : xl <= -1.0 ? kpm_pi : acos(xl);
        gsl_integration_glfixed_table *tab = gsl_integration_glfixed_table_alloc(16);
        if (!tab)
            return mcf_fail(MCF_ENOMEM, "kpm: occupation: out of memory");
        if (tm > th_lo)
            occ_side(mu, g, M, a, b, mu_chem, T, th_lo, tm, -1, tab, &n0, &e0);
        if (th_hi > tm)
            occ_side(mu, g, M, a, b, mu_chem, T, tm, th_hi, +1, tab, &n0, &e0);
        gsl_integration_glfixed_table_free(tab);
    }
    *density = n0;
    *energy = e0;
    return MCF_OK;
}

/* ---- the action from exact moments (kpm_action_series) ------------------------------- */

size_t kpm_action_nodes(size_t M)
{
    return 8 * M > 1024 ? 8 * M : 1024;
}

/* -softplus(y) with y = (mu - E) / T: -(max(y, 0) + log1p(exp(-|y|))) */
static double action_f(double E, double mu, double T)
{
    const double y = (mu - E) / T;
    return -(fmax(y, 0.0) + log1p(exp(-fabs(y))));
}

int kpm_action_series(const double *mu, size_t M, double a, double b, double T,
                      double mu_chem, double *S, double *err)
{
    if (M < 1 || !(a > 0.0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "kpm: action: invalid scaling a = %g, b = %g or %zu "
                        "moments", a, b, M);
    if (!(T > 0.0) || !isfinite(T) || !isfinite(mu_chem))
        return mcf_fail(MCF_EINVAL, "kpm: action: temperature T = %g must be finite and > 0, "
                        "and mu = %g finite", T, mu_chem);
    const size_t K = kpm_action_nodes(M), half = K / 2;
    double *z = malloc(4 * K * sizeof *z);
    gsl_fft_complex_wavetable *wt = gsl_fft_complex_wavetable_alloc(2 * K);
    gsl_fft_complex_workspace *fw = gsl_fft_complex_workspace_alloc(2 * K);
    int rc = MCF_OK;
    if (!z || !wt || !fw) {
        rc = mcf_fail(MCF_ENOMEM, "kpm: action: out of memory for %zu Chebyshev nodes", K);
        goto done;
    }
    /* the even extension y_j = y_{2K-1-j} = F(cos theta_j): its DFT is
     * Y_n = 2 e^{i pi n / (2K)} sum_{j<K} F_j cos(n theta_j) */
    for (size_t j = 0; j < K; j++) {
        const double x = cos(kpm_pi * ((double)j + 0.5) / (double)K);
        const double f = action_f(a * x + b, mu_chem, T);
        z[2 * j] = f;
        z[2 * j + 1] = 0.0;
        z[2 * (2 * K - 1 - j)] = f;
        z[2 * (2 * K - 1 - j) + 1] = 0.0;
    }
    if (gsl_fft_complex_forward(z, 1, 2 * K, wt, fw) != 0) {
        rc = mcf_fail(MCF_EINTERNAL, "kpm: action: the FFT of length %zu failed", 2 * K);
        goto done;
    }
    double s = 0.0, e = 0.0;
    for (size_t n = 0; n < half; n++) {
        const double ph = kpm_pi * (double)n / (2.0 * (double)K);
        const double sum = 0.5 * (cos(ph) * z[2 * n] + sin(ph) * z[2 * n + 1]);
        const double c = (n ? 2.0 : 1.0) * sum / (double)K;
        if (n < M)
            s += c * mu[n];
        else
            e += fabs(c);
    }
    if (!isfinite(s)) {
        rc = mcf_fail(MCF_EINVAL, "kpm: action: the series is not finite (T = %g, mu = %g)", T,
                      mu_chem);
        goto done;
    }
    *S = s;
    if (err)
        *err = e;
done:
    free(z);
    if (wt)
        gsl_fft_complex_wavetable_free(wt);
    if (fw)
        gsl_fft_complex_workspace_free(fw);
    return rc;
}

/* ---- the [evaluator] parameters shared by kpm and kpm-cuda ---------------------------- */

const mcf_param_spec kpm_param_specs[] = {
    {"moments", MCF_PARAM_INT, "256", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "number M of Chebyshev moments (>= 2); the resolution is about pi a / M, a the "
     "half-width of the rescaled spectrum"},
    {"vectors", MCF_PARAM_INT, "8", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "random vectors R of the stochastic trace (DOS, occupation); the error falls as "
     "1 / sqrt(R dim); 0 = the exact trace over all dim unit vectors (deterministic, dim / R "
     "times the cost: for small lattices, and where fluctuations of the energy are measured)"},
    {"kernel", MCF_PARAM_CHOICE, "jackson", MCF_PARAM_NO_SCAN, 0, 0, "jackson|lorentz|none",
     "kernel damping the moments of DOS, LDOS, Green's functions and occupations: jackson "
     "(positive, near-Gaussian peaks of width pi/M), lorentz (Lorentzian peaks), none (Gibbs "
     "oscillations); GFMC with gfmc = real-axis always uses lorentz"},
    {"lambda", MCF_PARAM_REAL, "4", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "parameter of the Lorentz kernel, g_n = sinh(lambda (1 - n/M)) / sinh(lambda): the "
     "broadening is lambda a / M (used by kernel = lorentz and by gfmc = real-axis)"},
    {"energy_points", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "number N >= moments of Chebyshev nodes of the energy grid; 0 means 2 x moments"},
    {"random", MCF_PARAM_CHOICE, "phase", MCF_PARAM_NO_SCAN, 0, 0, "phase|gaussian",
     "entries of the random vectors: random phases exp(i phi) or complex Gaussians"},
    {"margin", MCF_PARAM_REAL, "0.01",
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_MAX_EXCLUSIVE,
     0, 0.5, NULL,
     "rescaling margin: the spectrum is mapped onto [-1 + margin/2, 1 - margin/2]"},
    {"block", MCF_PARAM_INT, "8", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN, 1,
     KPM_MAX_BLOCK, NULL,
     "vectors advanced together (the Hamiltonian is read once per step for all of them); "
     "results do not depend on it"},
    {"extrapolate", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "GFMC with gfmc = real-axis: compute 2 x moments and use the two-point estimate "
     "2 dS(2M) - dS(M) (error ~ 1/M^2 instead of 1/M, at twice the cost)"},
    {"gfmc", MCF_PARAM_CHOICE, "contour", MCF_PARAM_NO_SCAN, 0, 0, "contour|real-axis",
     "how GFMC computes the action change of a move: contour (log det(1 - G Delta) on an "
     "ellipse around the spectrum: every finite-rank change, error falling exponentially "
     "with moments and reported) or real-axis (the Lorentz-damped phase on the real axis of "
     "the seed thesis: changes that keep the spectrum inside H's bounds only, error ~ "
     "lambda a / (M T))"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

int kpm_config_read(const mcf_params *params, kpm_config *c, int *extrapolate)
{
    const char *kernel = NULL, *random = NULL, *gfmc = NULL;
    int rc;
    kpm_config_default(c);
    if ((rc = mcf_params_int(params, "moments", &c->moments)) ||
        (rc = mcf_params_int(params, "vectors", &c->vectors)) ||
        (rc = mcf_params_string(params, "kernel", &kernel)) ||
        (rc = mcf_params_real(params, "lambda", &c->lambda)) ||
        (rc = mcf_params_int(params, "energy_points", &c->points)) ||
        (rc = mcf_params_string(params, "random", &random)) ||
        (rc = mcf_params_real(params, "margin", &c->margin)) ||
        (rc = mcf_params_int(params, "block", &c->block)) ||
        (rc = mcf_params_bool(params, "extrapolate", extrapolate)) ||
        (rc = mcf_params_string(params, "gfmc", &gfmc)))
        return rc;
    if (!strcmp(gfmc, "contour"))
        c->gfmc = KPM_GFMC_CONTOUR;
    else if (!strcmp(gfmc, "real-axis"))
        c->gfmc = KPM_GFMC_REAL_AXIS;
    else
        return mcf_fail(MCF_EINVAL, "kpm: gfmc = %s; use contour or real-axis", gfmc);
    if (*extrapolate && c->gfmc == KPM_GFMC_CONTOUR)
        return mcf_fail(MCF_EINVAL, "kpm: extrapolate = true belongs to gfmc = real-axis; "
                        "on the contour (the default) the error falls exponentially with "
                        "moments: raise moments instead, or set gfmc = real-axis");
    if (!strcmp(kernel, "jackson"))
        c->kernel = KPM_KERNEL_JACKSON;
    else if (!strcmp(kernel, "lorentz"))
        c->kernel = KPM_KERNEL_LORENTZ;
    else if (!strcmp(kernel, "none"))
        c->kernel = KPM_KERNEL_NONE;
    else
        return mcf_fail(MCF_EINVAL, "kpm: kernel = %s; use jackson, lorentz or none", kernel);
    if (!strcmp(random, "phase"))
        c->random = KPM_RANDOM_PHASE;
    else if (!strcmp(random, "gaussian"))
        c->random = KPM_RANDOM_GAUSSIAN;
    else
        return mcf_fail(MCF_EINVAL, "kpm: random = %s; use phase or gaussian", random);
    return MCF_OK;
}

