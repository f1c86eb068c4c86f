/* kpm_contour_finish.c — GFMC on a contour, the finish: the Chebyshev moment matrix of a
 * change's vectors, then det(1 - G Delta) at the nodes of the ellipse, its phase and
 * logarithm, the trapezoidal sums, their error bounds and the residues of the Fermi poles
 * inside the ellipse (kpm_core.h, "GFMC on a contour").  The workspace and the placement
 * of the ellipse are in kpm_contour.c. */
#include "kpm_contour_impl.h"

#include "mcf/error.h"

#include <math.h>
#include <string.h>

static const double kc_pi = 3.14159265358979323846;

/* LU with partial pivoting of the K x K matrix A (in place, row-major); the pivot rows into
 * perm; returns 0, or -1 on a zero pivot. */
static int kc_lu(double complex *A, int K, int *perm, int *swaps)
{
    *swaps = 0;
    for (int i = 0; i < K; i++)
        perm[i] = i;
    for (int c = 0; c < K; c++) {
        int p = c;
        double best = cabs(A[c * K + c]);
        for (int r = c + 1; r < K; r++)
            if (cabs(A[r * K + c]) > best) {
                best = cabs(A[r * K + c]);
                p = r;
            }
        if (!(best > 0.0))
            return -1;
        if (p != c) {
            for (int j = 0; j < K; j++) {
                const double complex t = A[c * K + j];
                A[c * K + j] = A[p * K + j];
                A[p * K + j] = t;
            }
            const int t = perm[c];
            perm[c] = perm[p];
            perm[p] = t;
            ++*swaps;
        }
        for (int r = c + 1; r < K; r++) {
            const double complex l = A[r * K + c] / A[c * K + c];
            A[r * K + c] = l;
            for (int j = c + 1; j < K; j++)
                A[r * K + j] -= l * A[c * K + j];
        }
    }
    return 0;
}

/* ||A^-1 B||_F from the LU of A (perm) for the K x K matrix B. */
static double kc_solve_norm(const double complex *LU, const int *perm, int K,
                            const double complex *B)
{
    double s = 0.0;
    for (int col = 0; col < K; col++) {
        double complex x[MCF_CHANGE_RANK];
        for (int i = 0; i < K; i++) {
            double complex v = B[perm[i] * K + col];
            for (int j = 0; j < i; j++)
                v -= LU[i * K + j] * x[j];
            x[i] = v;
        }
        for (int i = K - 1; i >= 0; i--) {
            double complex v = x[i];
            for (int j = i + 1; j < K; j++)
                v -= LU[i * K + j] * x[j];
            x[i] = v / LU[i * K + i];
            s += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
        }
    }
    return sqrt(s);
}

/* A = 1 - (C W) / s for K x K matrices (row-major): the matrix whose determinant is d, at a
 * node (W with the 1/a of its node factor, s = 1) or a pole (s = a). */
static void kc_one_minus(const double complex *C, const double complex *W, int K, double s,
                         double complex *A)
{
    for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++) {
            double complex v = 0.0;
            for (int r = 0; r < K; r++)
                v += C[p * K + r] * W[r * K + q];
            A[p * K + q] = (p == q ? 1.0 : 0.0) - v / s;
        }
}

static void kc_combine(kpm_contour *g, size_t K, const double *dmu);

/* The moment matrix of the change's vectors into g->mu.  Rank 1 and 2 (every single-site
 * move of the models here): the engine's diagonal moments of u_0 [, u_1, u_0 + u_1,
 * u_0 + i u_1] (its fastest path, and what the GPU kernel computes), combined by
 * Hermiticity: mu^{01} = (P - i Q) / 2, P = mu[u_0 + u_1] - mu^{00} - mu^{11},
 * Q = mu[u_0 + i u_1] - mu^{00} - mu^{11}.  Rank 3..8: the pair sums of
 * kpm_moment_matrix. */
static int kc_moments(kpm_contour *g, const mcf_hamiltonian *h, double a, double b,
                      const mcf_change *c)
{
    const size_t M = g->M, dim = g->dim, K = (size_t)c->rank;
    if (K >= 3) {
        memset(g->v0, 0, 2 * K * dim * sizeof *g->v0);
        for (size_t q = 0; q < K; q++)
            for (int e = 0; e < c->entries[q]; e++) {
                double *x = g->v0 + 2 * K * (size_t)c->row[q][e];
                x[q] += c->re[q][e];
                x[K + q] += c->im[q][e];
            }
        return kpm_moment_matrix(h, a, b, K, M, g->v0, g->v1, g->mu);
    }
    const size_t nv = K == 1 ? 1 : 4;
    double *v = kpm_engine_start(g->eng);
    memset(v, 0, 2 * nv * dim * sizeof *v);
    for (size_t q = 0; q < K; q++)
        for (int e = 0; e < c->entries[q]; e++)
            kpm_combo_add(v, nv, (int)q, (size_t)c->row[q][e], c->re[q][e], c->im[q][e]);
    int rc = kpm_moments_diag(g->eng, h, a, b, nv, M, g->dmu);
    if (rc)
        return rc;
    kc_combine(g, K, g->dmu);
    return MCF_OK;
}

/* mu^{pq} of rank K <= 2 from the diagonal moments dmu (1 or 4 sets of M, as above) */
static void kc_combine(kpm_contour *g, size_t K, const double *dmu)
{
    const size_t M = g->M;
    double *mu = g->mu;
    for (size_t n = 0; n < M; n++) {
        const double d0 = dmu[n];
        if (K == 1) {
            mu[2 * n] = d0;
            mu[2 * n + 1] = 0.0;
            continue;
        }
        const double d1 = dmu[M + n], P = dmu[2 * M + n] - d0 - d1,
                     Q = dmu[3 * M + n] - d0 - d1;
        mu[2 * (0 * M + n)] = d0;
        mu[2 * (0 * M + n) + 1] = 0.0;
        mu[2 * (1 * M + n)] = 0.5 * P;       /* (0, 1) */
        mu[2 * (1 * M + n) + 1] = -0.5 * Q;
        mu[2 * (2 * M + n)] = 0.5 * P;       /* (1, 0) */
        mu[2 * (2 * M + n) + 1] = 0.5 * Q;
        mu[2 * (3 * M + n)] = d1;
        mu[2 * (3 * M + n) + 1] = 0.0;
    }
}

static int kc_finish(kpm_contour *g, double a2, double b2, const mcf_change *c, double T,
                     double mu, double *dS, double *err);

int kpm_contour_delta_action(kpm_contour *g, const mcf_hamiltonian *h, double a, double b,
                             const mcf_change *c, double T, double mu, double *dS,
                             double *err)
{
    if (!h || h->dim != g->dim)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: the Hamiltonian's dimension %zu differs from "
                        "the workspace's %zu", h ? h->dim : 0, g->dim);
    int rc = mcf_change_check(c, g->dim);
    if (rc)
        return mcf_fail_prefix(rc, "kpm: GFMC");
    if (!(T > 0) || !isfinite(T) || !isfinite(mu))
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: temperature T = %g must be finite and > 0, "
                        "and mu = %g finite", T, mu);
    /* the scale of H and H' together: the ellipse must enclose both spectra */
    double a2, b2;
    kpm_contour_scaling(h, a, b, g->margin, c, &a2, &b2);
    if ((rc = kc_moments(g, h, a2, b2, c)))
        return mcf_fail_prefix(rc, "kpm: GFMC");
    return kc_finish(g, a2, b2, c, T, mu, dS, err);
}

int kpm_contour_finish_diag(kpm_contour *g, double a2, double b2, const mcf_change *c,
                            const double *dmu, double T, double mu, double *dS, double *err)
{
    if (c->rank < 1 || c->rank > 2)
        return mcf_fail(MCF_EINVAL, "kpm: GFMC: diagonal moments serve changes of rank 1 and "
                        "2, not %d", c->rank);
    kc_combine(g, (size_t)c->rank, dmu);
    return kc_finish(g, a2, b2, c, T, mu, dS, err);
}

/* everything after the moments: the ellipse, the transforms, the nodes, the poles */
static int kc_finish(kpm_contour *g, double a2, double b2, const mcf_change *c, double T,
                     double mu, double *dS, double *err)
{
    int rc;
    if ((rc = kc_prepare(g, a2, b2, T, mu)))
        return rc;

    const int K = c->rank;
    const size_t Kz = (size_t)K, M = g->M, N = g->N, L = g->L;
    /* chi^{pq}_j = sum_m c_m e^{-2 pi i m j / L}, c_0 = mu_0 / 2, c_m = mu_m e^{-m gamma} */
    size_t t = 0;
    for (size_t p = 0; p < Kz; p++)
        for (size_t q = p; q < Kz; q++, t++) {
            double *x = g->chi + t * 2 * L;
            const double *m = g->mu + 2 * ((p * Kz + q) * M);
            for (size_t n = 0; n < M; n++) {
                x[2 * n] = m[2 * n] * g->damp[n];
                x[2 * n + 1] = m[2 * n + 1] * g->damp[n];
            }
            memset(x + 2 * M, 0, 2 * (L - M) * sizeof *x);
            if (gsl_fft_complex_forward(x, 1, L, g->wt, g->fw))
                return mcf_fail(MCF_EINTERNAL, "kpm: GFMC: the FFT of length %zu failed", L);
        }

    double complex C[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
    for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++)
            C[p * K + q] = c->c_re[p][q] + I * c->c_im[p][q];
    double su = 0.0; /* sum_a |u_a|^2 */
    for (size_t p = 0; p < Kz; p++)
        su += g->mu[2 * ((p * Kz + p) * M)];

    double q_fine = 0.0, q_coarse = 0.0, e_trunc = 0.0, phase = 0.0, max_step = 0.0;
    double f_max = 0.0;
    double complex prev = 1.0;
    const double h_th = kc_pi / (double)N;
    for (size_t j = 0; j <= N; j++) {
        /* (C / a) W~ with W~_pq(z_j) = -2 i chi^{pq}_j / sin(phi_j) (the factor -2i / (a
         * sin phi_j) is the cached wfac[j]) and W~_qp from the conjugate node */
        const double complex wf = g->wfac[j];
        const size_t jc = (L - j) % L;
        double complex Wm[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        t = 0;
        for (int p = 0; p < K; p++)
            for (int q = p; q < K; q++, t++) {
                const double *x = g->chi + t * 2 * L;
                Wm[p * K + q] = wf * CMPLX(x[2 * j], x[2 * j + 1]);
                if (q != p)
                    Wm[q * K + p] = wf * CMPLX(x[2 * jc], -x[2 * jc + 1]);
            }
        double complex A[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        kc_one_minus(C, Wm, K, 1.0, A);
        /* d = det A: its log modulus and its phase, followed node by node, and
         * ||A^-1 C||_F for the error bound */
        double logabs, xnorm;
        double complex d;
        if (K <= 2) {
            /* closed forms: A^-1 = adj(A) / d */
            double complex adjC[4] = {C[0], 0, 0, 0};
            if (K == 1) {
                d = A[0];
            } else {
                d = A[0] * A[3] - A[1] * A[2];
                adjC[0] = A[3] * C[0] - A[1] * C[2];
                adjC[1] = A[3] * C[1] - A[1] * C[3];
                adjC[2] = A[0] * C[2] - A[2] * C[0];
                adjC[3] = A[0] * C[3] - A[2] * C[1];
            }
            const double d2 = creal(d) * creal(d) + cimag(d) * cimag(d);
            if (!(d2 > 0.0))
                return mcf_fail(MCF_EINVAL, "kpm: GFMC: det(1 - G Delta) vanishes on the "
                                "contour at node %zu: the change is not Hermitian or the "
                                "Hamiltonian is damaged", j);
            logabs = 0.5 * log(d2);
            double ss = 0.0;
            for (int k = 0; k < K * K; k++)
                ss += creal(adjC[k]) * creal(adjC[k]) + cimag(adjC[k]) * cimag(adjC[k]);
            xnorm = sqrt(ss / d2);
        } else {
            int perm[MCF_CHANGE_RANK], swaps;
            if (kc_lu(A, K, perm, &swaps))
                return mcf_fail(MCF_EINVAL, "kpm: GFMC: det(1 - G Delta) vanishes on the "
                                "contour at node %zu: the change is not Hermitian or the "
                                "Hamiltonian is damaged", j);
            logabs = 0.0;
            d = swaps % 2 ? -1.0 : 1.0;
            for (int p = 0; p < K; p++) {
                const double complex u = A[p * K + p];
                const double au = cabs(u);
                logabs += log(au);
                d *= u / au;
            }
            xnorm = kc_solve_norm(A, perm, K, C);
        }
        /* the phase of d: the step from the previous node (only the direction matters) */
        const double step = j == 0 ? carg(d) : carg(d * conj(prev));
        if (j > 0 && fabs(step) > max_step)
            max_step = fabs(step);
        phase += step;
        prev = d;
        const double complex Fj = g->fz[j] * CMPLX(logabs, phase) * g->msphi[j];
        const double imF = cimag(Fj);
        const double aF = creal(Fj) * creal(Fj) + cimag(Fj) * cimag(Fj);
        if (aF > f_max)
            f_max = aF; /* squared until the end */
        const double w = j == 0 || j == N ? 0.5 : 1.0;
        q_fine += w * imF;
        if (j % 2 == 0)
            q_coarse += w * imF;
        /* first-order propagation of the series' tail: |dL| <= ||A^-1 C / a||_F ||dW~||_F */
        e_trunc += w * g->afz[j] * xnorm;
    }
    if (max_step > 2.0 || fabs(phase) > 1.0) {
        /* the phase of d turns by ~pi over ~gamma in theta: the nodes, pi/N apart, follow it
         * when N gamma >= 8 pi (kc_ellipse); a change that moves many levels far may need
         * more */
        return mcf_fail(MCF_EINVAL,
                        "kpm: GFMC: the %zu contour nodes do not follow the phase of det(1 - G "
                        "Delta) (largest step %.2f rad, end phase %.3g instead of 0) at T = %g, "
                        "mu = %g: the change moves levels by more than the contour's distance "
                        "%.3g (rescaled) resolves; raise energy_points (now %zu)",
                        N, max_step, phase, T, mu, g->gamma, N);
    }
    const double pref = 1.0 / (kc_pi * T);
    const double tail = 2.0 * su * exp(-(double)M * g->gamma) / -expm1(-g->gamma);
    /* the trapezoidal rule's error on N/2 intervals is ~e^(-N tau), on N ~e^(-2 N tau): the
     * difference of the two estimates the coarse error, its square ratio the fine one; before
     * that regime (N tau < 8) the difference itself is reported */
    const double dq = pref * fabs(h_th * q_fine - 2.0 * h_th * q_coarse);
    const double e_half = (double)N * g->tau >= 8.0 ? dq * exp(-(double)N * g->tau) : dq;
    /* and the trapezoidal rule's own bound for a periodic function analytic in a strip of
     * half-width tau: 2 pi max|F| e^(-2N tau) / (1 - e^(-2N tau)) (max|F| on the contour
     * stands in for its maximum on the strip's edge); halving alone can be fooled when the
     * coarse and fine rules err alike */
    const double r2 = exp(-2.0 * (double)N * g->tau);
    const double e_strip = pref * 2.0 * kc_pi * sqrt(f_max) * r2 / (1.0 - r2);
    const double e_quad = e_half > e_strip ? e_half : e_strip;
    double ds = -pref * h_th * q_fine, e = pref * h_th * e_trunc * tail + e_quad;
    /* the Fermi poles inside the ellipse: dS -= 2 log|d(mu + i (2n + 1) pi T)| each, W~ from
     * the undamped series at the pole, W~ = 4 t chi / (1 - t^2), chi = sum_m c_m t^m */
    for (size_t k = 0; k < g->poles; k++) {
        const double complex tp = g->pole_t[k];
        double complex Wm[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        for (int p = 0; p < K; p++)
            for (int q = 0; q < K; q++) {
                const double *m = g->mu + 2 * (((size_t)p * Kz + (size_t)q) * M);
                double complex chi = 0.0;
                for (size_t n = M; n-- > 1;)
                    chi = (chi + (m[2 * n] + I * m[2 * n + 1])) * tp;
                chi += 0.5 * (m[0] + I * m[1]);
                Wm[p * K + q] = 4.0 * tp * chi / (1.0 - tp * tp);
            }
        double complex A[MCF_CHANGE_RANK * MCF_CHANGE_RANK];
        kc_one_minus(C, Wm, K, a2, A);
        int perm[MCF_CHANGE_RANK], swaps;
        if (kc_lu(A, K, perm, &swaps))
            return mcf_fail(MCF_EINVAL, "kpm: GFMC: det(1 - G Delta) vanishes at the Fermi pole "
                            "%zu: too few moments for T = %g; raise moments", k, T);
        double logabs = 0.0;
        for (int p = 0; p < K; p++)
            logabs += log(cabs(A[p * K + p]));
        ds -= 2.0 * logabs;
        /* |dW~| <= 2 su |t|^M / ((1 - |t|) |sin phi|), sin phi = (1/t - t) / (2i) */
        const double at = cabs(tp), sphi = cabs((1.0 / tp - tp) * 0.5);
        const double dW = 2.0 * su * pow(at, (double)M) / ((1.0 - at) * sphi);
        e += 2.0 * kc_solve_norm(A, perm, K, C) / a2 * dW;
    }
    *dS = ds;
    if (err)
        *err = e;
    return MCF_OK;
}
