/* kpm_engine.c — the Chebyshev moment engine: the blocked recursion (each step over all
 * rows in fixed chunks, bit-for-bit the same on any number of threads: kpm_step.c),
 * diagonal and general moments; and the stochastic trace driven on it (random
 * vectors, DOS and LDOS moments, their mean and error).  The layout and the
 * reproducibility argument are in kpm_core.h. */
#include "kpm_core.h"
#include "kpm_step.h"

#include "mcf/error.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const double kpm_pi = 3.14159265358979323846;

/* ---- engine ------------------------------------------------------------------------ */

struct kpm_engine {
    size_t dim, block, nchunks;
    double *v0, *v1;  /* two blocks of 2 dim block doubles: the recursion's r_{n-1}, r_n */
    double *part;     /* nchunks x 2 block partial dot products */
    double *grad;     /* kpm_series_gradient's phi, X, Y (5 dim block doubles), on first use:
                       * kept, since fresh blocks cost a page fault every 4 KiB every call */
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
    free(e->grad);
    free(e);
}

size_t kpm_engine_dim(const kpm_engine *e) { return e->dim; }
size_t kpm_engine_block(const kpm_engine *e) { return e->block; }
double *kpm_engine_start(kpm_engine *e) { return e->v0; }

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
    kpm_step_all(e->dim, e->nchunks, e->part, &s, tot);
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
        kpm_step_all(e->dim, e->nchunks, e->part, &s, tot);
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
        kpm_step_all(e->dim, e->nchunks, e->part, &s, tot);
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

/* ---- a series applied to a block (the density matrix, kpm_core.h) ------------------- */

/* y += c x over the block's rows, chunk by chunk (OpenMP; elementwise: any thread count
 * gives the same bits) */
static void series_axpy(size_t n, double c, const double *x, double *y)
{
    const long nn = (long)n;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (long q = 0; q < nn; q++)
        y[q] += c * x[q];
}

int kpm_series_apply(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                     const double *c, size_t Mf, size_t nvec, double *y)
{
    int rc = engine_args_check(e, h, a, nvec, Mf, "series");
    if (rc)
        return rc;
    const size_t n = 2 * e->dim * nvec;
    double tot[2 * KPM_MAX_BLOCK];
    for (size_t q = 0; q < n; q++)
        y[q] = c[0] * e->v0[q];
    if (Mf == 1)
        return MCF_OK;
    step_args s = {.h = h, .ia = 1.0 / a, .b = b, .B = nvec, .x = e->v0, .y = e->v1,
                   .w = NULL, .first = 1, .mode = STEP_DIAG};
    double *cur = e->v0, *old = e->v1;
    for (size_t m = 1; m < Mf; m++) {
        s.x = cur;
        s.y = old;
        kpm_step_all(e->dim, e->nchunks, e->part, &s, tot);
        s.first = 0;
        series_axpy(n, c[m], old, y);
        double *t = cur;
        cur = old;
        old = t;
    }
    for (size_t q = 0; q < n; q++)
        if (!isfinite(y[q]))
            return mcf_fail(MCF_EINVAL, "kpm: series: a non-finite entry (the spectrum reaches "
                            "outside the bounds used for rescaling, [%g, %g])", b - a, b + a);
    return MCF_OK;
}

/* ---- the gradient of quadratic forms of a series (the pseudofermions, kpm_core.h) ----- */

/* acc(r, c) += w sum_{v<nb} conj(u_v(r)) x_v(c) on the diagonal (c = r; its real part) and
 * on every occupied slot (c = col): u the vectors nb..2 nb-1 of block U, x the vectors
 * 0..nb-1 of block X (both of stride B = 2 nb).  Rows on OpenMP threads, each entry summed by
 * one thread in a fixed order. */
static void gradient_terms(const mcf_hamiltonian *h, size_t nb, const double *U,
                           const double *X, double w, double *acc_d, double *acc_re,
                           double *acc_im)
{
    const size_t dim = h->dim, width = (size_t)h->width, B = 2 * nb;
    const long nn = (long)dim;
#pragma omp parallel for schedule(static) if (dim > 4096)
    for (long rl = 0; rl < nn; rl++) {
        const size_t r = (size_t)rl;
        const double *ur = U + 2 * B * r + nb;
        for (size_t k = 0; k <= width; k++) {
            const int32_t c = k == 0 ? (int32_t)r : h->col[(k - 1) * dim + r];
            if (c < 0)
                continue;
            const double *xc = X + 2 * B * (size_t)c;
            double sr = 0.0, si = 0.0;
            for (size_t v = 0; v < nb; v++) {
                const double ar = ur[v], ai = ur[B + v], p = xc[v], q = xc[B + v];
                sr += ar * p + ai * q; /* conj(ar + i ai) (p + i q) */
                si += ar * q - ai * p;
            }
            if (k == 0) {
                acc_d[r] += w * sr;
            } else {
                acc_re[(k - 1) * dim + r] += w * sr;
                acc_im[(k - 1) * dim + r] += w * si;
            }
        }
    }
}

int kpm_series_gradient(kpm_engine *e, const mcf_hamiltonian *h, double a, double b,
                        const double *c, size_t Mf, size_t nvec, double *y, double *g_diag,
                        double *g_re, double *g_im)
{
    int rc = engine_args_check(e, h, a, 2 * nvec, Mf, "series gradient");
    if (rc)
        return rc;
    if (Mf < 2)
        return mcf_fail(MCF_EINVAL, "kpm: series gradient: %zu terms (at least 2)", Mf);
    const size_t dim = e->dim, B = 2 * nvec, nv = 2 * dim * nvec;
    double tot[2 * KPM_MAX_BLOCK];
    if (!e->grad && !(e->grad = malloc(5 * dim * e->block * sizeof *e->grad)))
        return mcf_fail(MCF_ENOMEM, "kpm: series gradient: out of memory");
    double *phi = e->grad; /* nv <= dim block (2 nvec <= block, checked above) */
    double *X = phi + nv, *Y = X + 2 * nv;
    /* forward: alpha_n = T_n(H~) phi, y = sum c_n alpha_n, up to alpha_{M-1} and alpha_M */
    memcpy(phi, e->v0, nv * sizeof *phi);
    for (size_t q = 0; q < nv; q++)
        y[q] = c[0] * phi[q];
    step_args s = {.h = h, .ia = 1.0 / a, .b = b, .B = nvec, .x = e->v0, .y = e->v1,
                   .w = NULL, .first = 1, .mode = STEP_DIAG};
    double *cur = e->v0, *old = e->v1;
    for (size_t m = 1; m <= Mf; m++) {
        s.x = cur;
        s.y = old;
        kpm_step_all(dim, e->nchunks, e->part, &s, tot);
        s.first = 0;
        if (m < Mf)
            series_axpy(nv, c[m], old, y);
        double *t = cur;
        cur = old;
        old = t;
    }
    /* cur = alpha_M, old = alpha_{M-1} (stride nvec).  Backward on blocks of 2 nvec: vectors
     * 0..nvec-1 alpha, nvec..2 nvec-1 psi; X = [alpha_{M-1} | psi_{M-1} = c_{M-1} phi],
     * Y = [alpha_M | 0].  The engine's blocks hold 2 nvec vectors (checked above). */
    for (size_t r = 0; r < dim; r++)
        for (size_t v = 0; v < nvec; v++)
            for (int part = 0; part < 2; part++) {
                const size_t src = 2 * nvec * r + part * nvec + v;
                const size_t dst = 2 * B * r + part * B;
                X[dst + v] = old[src];
                X[dst + nvec + v] = c[Mf - 1] * phi[src];
                Y[dst + v] = cur[src];
                Y[dst + nvec + v] = 0.0;
            }
    s.B = B;
    s.first = 0;
    for (size_t j = Mf - 1; j >= 1; j--) {
        s.x = X;
        s.y = Y;
        kpm_step_all(dim, e->nchunks, e->part, &s, tot); /* Y = [alpha_{j-1} | psi_{j-1} - c phi] */
        for (size_t r = 0; r < dim; r++)
            for (size_t v = 0; v < nvec; v++)
                for (int part = 0; part < 2; part++)
                    Y[2 * B * r + part * B + nvec + v] +=
                        c[j - 1] * phi[2 * nvec * r + part * nvec + v];
        /* the pair (psi_j in X, alpha_{j-1} in Y): weight 2, or 1 for j = 1 */
        gradient_terms(h, nvec, X, Y, (j >= 2 ? 2.0 : 1.0) / a, g_diag, g_re, g_im);
        double *t = X;
        X = Y;
        Y = t;
    }
    return MCF_OK;
}
