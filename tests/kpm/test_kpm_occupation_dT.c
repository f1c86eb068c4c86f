/* test_kpm_occupation_dT.c — the op occupation_dT of the kpm evaluator (mcf/fermion.h):
 * density and energy as occupation(), and from the same trace their T-derivatives
 *
 *     dn/dT = int rho(E) F_1 dE,  de/dT = int rho(E) F_2 dE,
 *     F_1 = df/dT = (E - mu) / T^2 f (1 - f),  F_2 = E F_1,
 *
 * kpm and ed loaded with the core's plugin loader and used through their ops (ABI 1's call
 * shapes on either ABI: tests/evaluator_test.h):
 *
 *   (a) the Chebyshev-Gauss branch against ed: kpm with the exact trace (vectors = 0) and
 *       no kernel (kernel = none: int rho_M F dE = sum_{n<M} c_n mu_n, the truncated
 *       Chebyshev series of (1/dim) sum_k F(E_k), which ed sums exactly), 6x6 square lattice
 *       with on-site disorder (dim 36), M = 2048, T = 0.05, 0.2, 1, mu = -1.5, 0.3, 2, for
 *       all four of n, e, dn/dT, de/dT.  |kpm - ed| <= tail + slack:
 *         tail  = sum_{n >= M} |c_n| of F's plain Chebyshev coefficients in the workspace's
 *                 scaling (|mu_n| <= 1), computed here from 2^15 (b: 2^18)
 *                 Chebyshev-Gauss nodes;
 *         slack = 2 M eps |c|_1 (each exact-trace moment off by <~ n eps: linear growth of
 *                 the recursion's rounding; the coefficients' FFT rounding is below that)
 *               + 10 eps E_max max|F'| (ed's eigenvalues off by a few eps ||H||, dim <= 36),
 *                 max|F'| bounded by 1/(4T), 1 + E_max/(4T), 1/T^2, (1 + E_max)/T^2 for
 *                 f, E f, F_1, F_2 (T <= 1);
 *   (b) the panel branch against ed: a ring of 12 sites (levels -2 cos(2 pi k/12), +-1
 *       twice) with M = 65600 > 2^16 moments (no Chebyshev-Gauss sum on <= 2^16 nodes can
 *       hold them, so the occupation and its derivatives both take the Gauss-Legendre
 *       panels), T = 4.4e-4 (1.1e-4 of the bandwidth: gamma M ~ 50, the truncation ~e^-50),
 *       mu = 1 + 0.7 T (two levels inside the Fermi window, dn/dT ~ -59); the same
 *       tolerance (about 5 s: ~1000 panels of 16 nodes, each a Clenshaw sum of M terms);
 *   (c) the Jackson kernel at M = 256 (the normal setting) on the 6x6 lattice: the panel
 *       branch reached by a low T (T = 2e-4, 46/gamma + M > 2^17) and the series branch
 *       (T = 0.05) against GSL's adaptive Gauss-Kronrod quadrature (qag, 61 points) of
 *       rho_M(E) F(E) over |E - mu| <= 60 T, rho_M the Jackson-damped series of the
 *       exact-trace moments (dos_moments) summed directly here: |kpm - qag| <= qag's error
 *       estimate + 1e-12 int |rho_M F| dE: the two sums of the series (Clenshaw there, the
 *       T_n recurrence here) each round by ~M eps = 6e-14 of its terms, an error smooth in
 *       E that does not average out over the Fermi window (the branches' e^-40 aliases and
 *       2e-20 panel tails are far below);
 *   (d) central differences (n(T + h) - n(T - h)) / 2h of occupation() (exact trace,
 *       Jackson, M = 256, T = 0.2, h = 1e-4): within twice [h^2 |n_TTT| / 6, n_TTT from a
 *       second difference of occupation_dT at T -+ T/20, + rounding 4 (M + 10) eps
 *       max(1, E_max) / h (each occupation a sum of M products, |c|_1 ~ 2)];
 *   (e) a stochastic trace (vectors = 8): occupation_dT with a copy of the stream gives
 *       occupation()'s density and energy bit for bit and leaves the stream where
 *       occupation() leaves it; its derivatives are kpm_occupation_dT of the mean moments
 *       that dos_moments() gives with a third copy, bit for bit; a batch of two = two single
 *       calls;
 *   (f) T = 0, -1, NaN and mu = NaN refused (MCF_EINVAL naming occupation_dT), the stream
 *       not advanced. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "internal.h"
#include "kpm_core.h"
#include "kpm_test_util.h"
#include "test_params.h"

static const mcf_plugin_info *kpm, *ed;

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* ---- Hamiltonians (and kt_disordered, kpm_test_util.h) -------------------------------- */

static mcf_hamiltonian *ring(size_t N)
{
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(N, 1, 2, &h) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < N && h; i++)
        CHECK(mcf_hamiltonian_set(h, i, (i + 1) % N, -1.0, 0.0) == MCF_OK, "%s",
              mcf_last_error());
    return h;
}

/* ---- the four integrands -------------------------------------------------------------- */

/* f (q = 0), E f (1), df/dT (2), E df/dT (3) at E; f (1 - f) = e^-|x| / (1 + e^-|x|)^2 */
static double integrand(int q, double E, double mu, double T)
{
    const double x = (E - mu) / T, e = exp(-fabs(x));
    const double f = x > 0 ? e / (1.0 + e) : 1.0 / (1.0 + e);
    const double d = (E - mu) / (T * T) * e / ((1.0 + e) * (1.0 + e));
    const double v = q < 2 ? f : d;
    return q & 1 ? E * v : v;
}

/* the plain Chebyshev coefficients c_n = (2 - delta_n0) / K sum_j F(x_j) cos(n theta_j)
 * of the integrands q0 and q0 + 1 (one FFT) in the scaling (a, b), from K nodes: the tails
 * sum_{n >= M} |c_n| and |c|_1 over n < K/2 (K/2 >= M + 60 / gamma in both uses: the
 * coefficients beyond, and the aliases, are below e^-60 of the largest) */
static void coefficient_tails(int q0, size_t K, double a, double b, double mu, double T,
                              size_t M, double *tail, double *l1)
{
    const size_t nout = K / 2;
    double *z = malloc(4 * K * sizeof *z), *c = malloc(2 * nout * sizeof *c);
    for (size_t j = 0; j < K; j++) {
        const double E = a * cos(kt_pi * ((double)j + 0.5) / (double)K) + b;
        z[2 * j] = integrand(q0, E, mu, T);
        z[2 * j + 1] = integrand(q0 + 1, E, mu, T);
    }
    CHECK(kpm_chebyshev_sums(z, K, nout, c, c + nout) == MCF_OK, "%s", mcf_last_error());
    for (int q = 0; q < 2; q++) {
        tail[q] = l1[q] = 0.0;
        for (size_t n = 0; n < nout; n++) {
            const double cn = (n ? 2.0 : 1.0) * fabs(c[q * nout + n]) / (double)K;
            l1[q] += cn;
            if (n >= M)
                tail[q] += cn;
        }
    }
    free(z);
    free(c);
}

/* ---- helpers -------------------------------------------------------------------------- */

#define make_kpm(...) \
    test_params_make(kpm->params, "test_kpm_occupation_dT.ini", __VA_ARGS__)

static int occ_dT(const mcf_plugin_info *e, void *ws, mcf_rng *rng, double mu, double T,
                  double *v)
{
    void *const w[1] = {ws};
    mcf_rng *const r[1] = {rng};
    return tev_occupation_dT(e, w, 1, r, mu, T, v, v + 1, v + 2, v + 3);
}

/* the scaling a, b and (when mu is not NULL) the exact-trace moments of a kpm workspace */
static void kpm_scaling(void *ws, size_t M, double *a, double *b, double *mu)
{
    double scale[2] = {NAN, NAN}, *sp[1] = {scale};
    double *m = mu ? mu : malloc(M * sizeof *m), *mp[1] = {m};
    mcf_rng rng;
    mcf_rng_init(&rng, 1, 0);
    mcf_rng *rp[1] = {&rng};
    void *const w[1] = {ws};
    CHECK(tev_dos_moments(kpm, w, 1, rp, mp, NULL, sp, NULL) == MCF_OK, "%s", mcf_last_error());
    *a = scale[0];
    *b = scale[1];
    if (!mu)
        free(m);
}

/* kpm (exact trace, kernel none, M moments) against ed on h at the points (mus x Ts): the
 * tolerance of (a) and (b); *worst the largest |kpm - ed| / tolerance */
static void against_ed(const char *what, mcf_hamiltonian *h, const char *moments, size_t K,
                       const double *mus, size_t nmu, const double *Ts, size_t nT)
{
    test_params *tk = make_kpm("moments", moments, "vectors", "0", "kernel", "none", NULL);
    test_params *te = test_params_make(ed->params, "test_kpm_occupation_dT.ini", NULL);
    void *wk = test_params_workspace(kpm, tk, h), *we = test_params_workspace(ed, te, h);
    if (!wk || !we)
        return;
    const size_t M = (size_t)atol(moments);
    double a, b;
    kpm_scaling(wk, M, &a, &b, NULL);
    const double emax = fmax(fabs(b - a), fabs(b + a)), eps = DBL_EPSILON;
    double worst = 0.0, worst_abs[4] = {0, 0, 0, 0};
    static const char *const names[4] = {"n", "e", "dn/dT", "de/dT"};
    for (size_t i = 0; i < nmu; i++)
        for (size_t j = 0; j < nT; j++) {
            const double mu = mus[i], T = Ts[j];
            double vk[4], ve[4];
            mcf_rng rng;
            mcf_rng_init(&rng, 5, 0);
            CHECK(occ_dT(kpm, wk, &rng, mu, T, vk) == MCF_OK &&
                      occ_dT(ed, we, NULL, mu, T, ve) == MCF_OK,
                  "%s: %s", what, mcf_last_error());
            const double dF[4] = {1.0 / (4.0 * T), 1.0 + emax / (4.0 * T), 1.0 / (T * T),
                                  (1.0 + emax) / (T * T)};
            double tails[4], l1[4];
            coefficient_tails(0, K, a, b, mu, T, M, tails, l1);
            coefficient_tails(2, K, a, b, mu, T, M, tails + 2, l1 + 2);
            for (int q = 0; q < 4; q++) {
                const double tail = tails[q];
                const double tol = tail + 2.0 * (double)M * eps * l1[q] +
                                   10.0 * eps * emax * dF[q];
                const double d = fabs(vk[q] - ve[q]);
                CHECK(d <= tol, "%s, mu = %g, T = %g: %s kpm %.17g, ed %.17g: |diff| %.3g > "
                      "tail %.3g + slack %.3g", what, mu, T, names[q], vk[q], ve[q], d, tail,
                      tol - tail);
                worst = fmax(worst, d / tol);
                worst_abs[q] = fmax(worst_abs[q], d);
            }
            if (i == 0 && j == 0)
                printf("%s, mu = %g, T = %g: dn/dT kpm %.12g, ed %.12g; de/dT kpm %.12g, ed "
                       "%.12g\n", what, mu, T, vk[2], ve[2], vk[3], ve[3]);
        }
    printf("%s: max |kpm - ed|: n %.1e, e %.1e, dn/dT %.1e, de/dT %.1e; at most %.3f of the "
           "tolerance\n", what, worst_abs[0], worst_abs[1], worst_abs[2], worst_abs[3], worst);
    tev_destroy(kpm, wk);
    tev_destroy(ed, we);
    test_params_free(tk);
    test_params_free(te);
}

/* ---- (a), (b) against ed ---------------------------------------------------------------- */

static void test_series_vs_ed(void)
{
    mcf_hamiltonian *h = kt_disordered(6, 2.0, 17);
    const double mus[3] = {-1.5, 0.3, 2.0}, Ts[3] = {0.05, 0.2, 1.0};
    /* K/2 = 2^14: gamma >~ pi 0.05 / 5 = 0.03, M + 60 / gamma < 4100 */
    against_ed("(a) 6x6, M = 2048, series", h, "2048", (size_t)1 << 15, mus, 3, Ts, 3);
    mcf_hamiltonian_destroy(h);
}

static void test_panels_vs_ed(void)
{
    mcf_hamiltonian *h = ring(12);
    const double T = 4.4e-4, mus[1] = {1.0 + 0.7 * T};
    /* K/2 = 2^17: gamma >= pi T / a = 6.9e-4 (a = 2.01), M + 60 / gamma < 1.3e5 */
    against_ed("(b) ring 12, M = 65600, panels", h, "65600", (size_t)1 << 18, mus, 1, &T, 1);
    mcf_hamiltonian_destroy(h);
}

/* ---- (c) against adaptive quadrature ------------------------------------------------------ */

typedef struct qag_args {
    const double *mu, *g;
    size_t M;
    double a, b, mu_chem, T;
    int q, absolute;
} qag_args;

static double qag_integrand(double E, void *p)
{
    const qag_args *s = p;
    const double rho = kt_series_f(s->mu, s->g, s->M, (E - s->b) / s->a) / s->a;
    const double v = rho * integrand(s->q, E, s->mu_chem, s->T);
    return s->absolute ? fabs(v) : v;
}

static void test_jackson_vs_quadrature(void)
{
    enum { M = 256 };
    mcf_hamiltonian *h = kt_disordered(6, 2.0, 17);
    test_params *tk = make_kpm("moments", "256", "vectors", "0", NULL); /* Jackson */
    void *wk = test_params_workspace(kpm, tk, h);
    if (!wk)
        return;
    double mu[M], g[M], a, b;
    kpm_scaling(wk, M, &a, &b, mu);
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0.0, M, g);
    gsl_integration_workspace *iw = gsl_integration_workspace_alloc(2000);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    const double Ts[2] = {2e-4, 0.05}, mu_chem = 0.3;
    double worst = 0.0;
    for (int t = 0; t < 2; t++) {
        const double T = Ts[t];
        double v[4];
        mcf_rng rng;
        mcf_rng_init(&rng, 3, 0);
        CHECK(occ_dT(kpm, wk, &rng, mu_chem, T, v) == MCF_OK, "%s", mcf_last_error());
        for (int q = 2; q < 4; q++) {
            qag_args s = {mu, g, M, a, b, mu_chem, T, q, 0};
            gsl_function F = {qag_integrand, &s};
            double ref, err, scale, serr;
            const double lo = mu_chem - 60.0 * T, hi = mu_chem + 60.0 * T;
            s.absolute = 1;
            int st = gsl_integration_qag(&F, lo, hi, 0.0, 1e-6, 2000, GSL_INTEG_GAUSS61, iw,
                                         &scale, &serr);
            s.absolute = 0;
            st |= gsl_integration_qag(&F, lo, hi, 1e-13 * scale, 0.0, 2000, GSL_INTEG_GAUSS61,
                                      iw, &ref, &err);
            const double tol = err + 1e-12 * scale, d = fabs(v[q] - ref);
            CHECK(st == GSL_SUCCESS && d <= tol,
                  "(c) T = %g, %s: kpm %.17g, quadrature %.17g (error estimate %.3g, GSL "
                  "status %d): |diff| %.3g > %.3g", T, q == 2 ? "dn/dT" : "de/dT", v[q], ref,
                  err, st, d, tol);
            worst = fmax(worst, d / scale);
            printf("(c) Jackson M = 256, T = %g (%s): %s = %.15g, adaptive quadrature "
                   "%.15g\n", T, t ? "series" : "panels", q == 2 ? "dn/dT" : "de/dT", v[q],
                   ref);
        }
    }
    printf("(c) max |kpm - quadrature| = %.1e of int |rho F| dE\n", worst);
    gsl_set_error_handler(old);
    gsl_integration_workspace_free(iw);
    tev_destroy(kpm, wk);
    test_params_free(tk);
    mcf_hamiltonian_destroy(h);
}

/* ---- (d) central differences -------------------------------------------------------------- */

static void test_finite_difference(void)
{
    const size_t M = 256;
    mcf_hamiltonian *h = kt_disordered(6, 2.0, 17);
    test_params *tk = make_kpm("moments", "256", "vectors", "0", NULL);
    void *wk = test_params_workspace(kpm, tk, h);
    if (!wk)
        return;
    double a, b;
    kpm_scaling(wk, M, &a, &b, NULL);
    const double emax = fmax(1.0, fmax(fabs(b - a), fabs(b + a)));
    const double mu = 0.3, T = 0.2, hT = 1e-4, k2 = 0.05 * T;
    mcf_rng rng;
    mcf_rng_init(&rng, 9, 0);
    mcf_rng *rp[1] = {&rng};
    void *const w[1] = {wk};
    double v[4], vp[4], vm[4], np, ep, nm, em;
    CHECK(occ_dT(kpm, wk, &rng, mu, T, v) == MCF_OK &&
              occ_dT(kpm, wk, &rng, mu, T + k2, vp) == MCF_OK &&
              occ_dT(kpm, wk, &rng, mu, T - k2, vm) == MCF_OK &&
              tev_occupation(kpm, w, 1, rp, mu, T + hT, &np, &ep) == MCF_OK &&
              tev_occupation(kpm, w, 1, rp, mu, T - hT, &nm, &em) == MCF_OK,
          "%s", mcf_last_error());
    const double round = 4.0 * ((double)M + 10.0) * DBL_EPSILON / hT;
    double worst = 0.0;
    for (int j = 0; j < 2; j++) {
        const double fd = j ? (ep - em) / (2.0 * hT) : (np - nm) / (2.0 * hT);
        const double d3 = (vp[2 + j] - 2.0 * v[2 + j] + vm[2 + j]) / (k2 * k2);
        const double tol = 2.0 * (hT * hT * fabs(d3) / 6.0 + round * (j ? emax : 1.0));
        CHECK(fabs(v[2 + j] - fd) <= tol, "(d) d%s/dT %.15g, central difference %.15g, "
              "tolerance %.3g", j ? "e" : "n", v[2 + j], fd, tol);
        worst = fmax(worst, fabs(v[2 + j] - fd) / tol);
    }
    printf("(d) Jackson M = 256, mu = 0.3, T = 0.2: dn/dT = %.12f (central difference %.12f), "
           "de/dT = %.12f (%.12f); %.3f of the tolerance\n", v[2], (np - nm) / (2.0 * hT),
           v[3], (ep - em) / (2.0 * hT), worst);
    tev_destroy(kpm, wk);
    test_params_free(tk);
    mcf_hamiltonian_destroy(h);
}

/* ---- (e) the stochastic trace, (f) refusals ------------------------------------------------ */

static void test_stochastic(void)
{
    enum { M = 256 };
    mcf_hamiltonian *h[2] = {kt_disordered(12, 2.0, 23), kt_disordered(10, 1.0, 24)};
    test_params *tk = make_kpm("moments", "256", "vectors", "8", NULL);
    void *ws[2] = {test_params_workspace(kpm, tk, h[0]),
                   test_params_workspace(kpm, tk, h[1])};
    if (!ws[0] || !ws[1])
        return;
    const double mu = 0.3, T = 0.1;
    mcf_rng r1, r2, r3;
    mcf_rng_init(&r1, 77, 3);
    r2 = r1;
    r3 = r1;
    double n1, e1, v[4];
    void *const w0[1] = {ws[0]};
    mcf_rng *p1[1] = {&r1}, *p3[1] = {&r3};
    CHECK(tev_occupation(kpm, w0, 1, p1, mu, T, &n1, &e1) == MCF_OK &&
              occ_dT(kpm, ws[0], &r2, mu, T, v) == MCF_OK,
          "%s", mcf_last_error());
    CHECK(!memcmp(&n1, &v[0], sizeof n1) && !memcmp(&e1, &v[1], sizeof e1),
          "(e) stochastic trace: occupation_dT's n %.17g, e %.17g; occupation() %.17g %.17g",
          v[0], v[1], n1, e1);
    CHECK(!memcmp(&r1, &r2, sizeof r1), "(e) occupation_dT drew other numbers than occupation");
    /* its derivatives: kpm_occupation_dT of the same trace's mean moments */
    double mu3[M], g[M], sc[2], *mp[1] = {mu3}, *sp[1] = {sc};
    CHECK(tev_dos_moments(kpm, w0, 1, p3, mp, NULL, sp, NULL) == MCF_OK, "%s", mcf_last_error());
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0.0, M, g);
    double dn, de;
    CHECK(kpm_occupation_dT(mu3, g, M, sc[0], sc[1], mu, T, &dn, &de) == MCF_OK, "%s",
          mcf_last_error());
    CHECK(dn == v[2] && de == v[3], "(e) dn/dT %.17g, de/dT %.17g; from dos_moments' trace "
          "%.17g %.17g", v[2], v[3], dn, de);
    printf("(e) vectors = 8: n = %.12f, e = %.12f (occupation(): the same bits), dn/dT = %.12f, "
           "de/dT = %.12f (kpm_occupation_dT of dos_moments' trace: the same bits)\n", v[0],
           v[1], v[2], v[3]);
    /* a batch of two = two single calls (each its own stream) */
    mcf_rng s[2], t[2];
    for (int k = 0; k < 2; k++) {
        mcf_rng_init(&s[k], 200 + (uint64_t)k, 0);
        t[k] = s[k];
    }
    mcf_rng *sp2[2] = {&s[0], &s[1]};
    double bn[2], be[2], bdn[2], bde[2];
    CHECK(tev_occupation_dT(kpm, ws, 2, sp2, mu, T, bn, be, bdn, bde) == MCF_OK, "%s",
          mcf_last_error());
    for (int k = 0; k < 2; k++) {
        CHECK(occ_dT(kpm, ws[k], &t[k], mu, T, v) == MCF_OK && v[0] == bn[k] && v[1] == be[k] &&
                  v[2] == bdn[k] && v[3] == bde[k],
              "(e) batch workspace %d differs from its single call", k);
    }
    /* (f) refusals, the stream untouched */
    const double bad_T[3] = {0.0, -1.0, NAN};
    const char *text[3] = {"T = 0", "T = -1", "T = nan"};
    for (int k = 0; k < 3; k++) {
        mcf_rng before = r2;
        const int rc = occ_dT(kpm, ws[0], &r2, mu, bad_T[k], v);
        CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "occupation_dT") &&
                  contains(mcf_last_error(), text[k]) && !memcmp(&before, &r2, sizeof r2),
              "(f) T = %g: rc %d, %s", bad_T[k], rc, mcf_last_error());
        if (k == 0)
            printf("(f) T = 0: %s\n", mcf_last_error());
    }
    CHECK(occ_dT(kpm, ws[0], &r2, NAN, T, v) == MCF_EINVAL, "(f) mu = NaN accepted");
    CHECK(tev_occupation_dT(kpm, w0, 1, p1, mu, T, v, v + 1, NULL, v + 3) == MCF_EINVAL,
          "(f) a NULL output accepted");
    CHECK(tev_occupation_dT(kpm, w0, 1, NULL, mu, T, v, v + 1, v + 2, v + 3) == MCF_EINVAL,
          "(f) NULL streams accepted for a stochastic trace");
    for (int k = 0; k < 2; k++) {
        tev_destroy(kpm, ws[k]);
        mcf_hamiltonian_destroy(h[k]);
    }
    test_params_free(tk);
}

int main(void)
{
    mcf_plugin *pk = NULL, *pe = NULL;
    int rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk);
    if (!rc)
        rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe);
    CHECK(rc == MCF_OK, "loading kpm and ed: %s", mcf_last_error());
    if (rc)
        return check_exit();
    kpm = pk->info;
    ed = pe->info;
    CHECK((mcf_fermion_provides(kpm) & MCF_PROVIDES_OCCUPATION_DT) &&
              (mcf_fermion_provides(ed) & MCF_PROVIDES_OCCUPATION_DT),
          "kpm or ed lacks occupation_dT");
    if (check_failed_count)
        return check_exit();
    test_series_vs_ed();
    test_panels_vs_ed();
    test_jackson_vs_quadrature();
    test_finite_difference();
    test_stochastic();
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    return check_exit();
}
