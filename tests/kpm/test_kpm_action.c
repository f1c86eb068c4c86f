/* test_kpm_action.c — the `action` op of the fermion evaluators ed and kpm (loaded with
 * the core's plugin loader, used only through their ops: tests/evaluator_test.h):
 *
 *     S_eff(H) = -sum_nu log(1 + exp(-(eps_nu - mu) / T)),
 *
 * on double-exchange Hamiltonians built here (spins of random directions; infinite Hund
 * coupling: H_ij = -<chi_i|chi_j>; finite: spin-diagonal hopping and -J_H S.sigma):
 * square 4x4 and cubic 3^3 with infinite Hund coupling, cubic 3^3 with J_H = 2.
 *
 *   (a) ed against an independent computation: this test's own eigenvalues (GSL's real
 *       solver on the 2 dim x 2 dim real embedding of mcf_hamiltonian_dense; ed uses the
 *       complex solver on these complex Hamiltonians) summed
 *       with the formula in another form (x = (eps - mu)/T: -log1p(e^-x) for x > 0,
 *       x - log1p(e^x) otherwise) in long double.  Agreement to rounding:
 *       1e-12 dim max|L|, L the per-level term (the solvers' eigenvalues differ by
 *       ~3e-14 ||H||, i.e. ~3e-14 |L| per level, and each sum rounds ~1e-16 per term);
 *   (b) ed: delta_action(H, Delta) = action(H + Delta) - action(H) (H + Delta built from
 *       scratch with the spin turned) to the same 1e-12 dim max|L|;
 *   (c) kpm (vectors = 0, M = 64 and 256) against ed, T in {0.05, 0.2, 1}, mu in
 *       {-1, 0, 0.7}: |S_kpm - S_ed| <= err_kpm + 1e-9 dim (the slack: rounding of the
 *       moments and the eigenvalues, ~1e-14 max|F| per level).  The truncation bound err
 *       follows the analyticity of F(x) = -softplus(-(a x + b - mu)/T): its nearest
 *       singularities are logarithmic branch points at the Fermi poles
 *       x0 = (mu - b +- i pi T)/a, and log(x - x0) has Chebyshev coefficients of modulus
 *       2 rho^-n / n, rho = |x0 + sqrt(x0^2 - 1)| (the branch with |.| > 1: the Bernstein
 *       ellipse through x0).  The two conjugate points give |c_n| ~ 4 rho^-n / n |cos(n
 *       phi + phi0)|, on average (8/pi) rho^-n / n (between 2 and 8/pi over n), so
 *
 *           err ~ est = dim (8/pi) rho^-M / (M (1 - 1/rho)),
 *
 *       asserted within a factor 3 either way where est is above the rounding floor
 *       (est > 1e-11 dim); measured within ~25 %.  At T = 1 (a ~ 6: Im x0 ~ 0.52,
 *       rho >~ 1.6) rho^-256 < 1e-50: err is the FFT's rounding of the dropped
 *       coefficients, ~1e-16 max|F| per coefficient over K/2 - M = 768 of them, ~1e-14 dim:
 *       asserted < 1e-6 and < 1e-11 dim.  Where the truncation is above that floor
 *       (rho^-64 > 1e-10: T = 0.05, 0.2) err falls from M = 64 to 256 (asserted).
 *       The printed table shows |S_kpm - S_ed| against err and est;
 *   (d) determinism: m points in one call give bitwise the same S (and err) as m
 *       single-point calls; a batch of 3 workspaces the same bits as 3 single calls
 *       (kpm and ed);
 *   (e) refusals: kpm with vectors = 8 (the default: a stochastic trace) -> MCF_EINVAL
 *       naming "vectors"; T = 0, T = -1, mu = NaN -> MCF_EINVAL for both plugins. */
#include <complex.h>
#include <stdio.h>
#include <time.h>

#include "de_test_hamiltonian.h"
#include "internal.h"
#include "kpm_test_util.h"
#include "test_params.h"

#include <gsl/gsl_sort_vector.h>

static const mcf_plugin_info *ed, *kpm;

#define NT 3
#define NMU 3
#define NP (NT * NMU)
static const double Ts[NT] = {0.05, 0.2, 1.0};
static const double mus[NMU] = {-1.0, 0.0, 0.7};

/* ---- Hamiltonians ------------------------------------------------------------------ */

/* a periodic L x L square lattice of random spins, infinite Hund coupling, bounds +-4 */
static mcf_hamiltonian *square_de(size_t L, uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    const size_t n = L * L;
    double *s = malloc(3 * n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        de_unit(&rng, s + 3 * i);
    mcf_hamiltonian *h = NULL;
    int rc = mcf_hamiltonian_create(n, 1, 4, &h);
    CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
    for (size_t i = 0; i < n && !rc; i++) {
        const size_t x = i % L, y = i / L;
        const size_t nb[2] = {(x + 1) % L + L * y, x + L * ((y + 1) % L)};
        for (int k = 0; k < 2; k++) {
            double re, im;
            de_overlap(s + 3 * i, s + 3 * nb[k], &re, &im);
            rc = mcf_hamiltonian_set(h, i, nb[k], -re, -im);
            CHECK(rc == MCF_OK, "set: %s", mcf_last_error());
        }
    }
    mcf_hamiltonian_fix_bounds(h, -4.0, 4.0);
    free(s);
    return h;
}

/* ---- the independent reference ------------------------------------------------------ */

/* The eigenvalues by another route than ed's: the real symmetric 2 dim x 2 dim embedding
 * [[Re H, -Im H], [Im H, Re H]] (each eigenvalue of H twice) diagonalized by
 * gsl_eigen_symm, the pairs averaged.  (GSL's complex solvers with and without
 * eigenvectors give bitwise the same eigenvalues, so they would not be independent.) */
static void eigenvalues(const mcf_hamiltonian *h, double *ev)
{
    const size_t n = h->dim, N = 2 * n;
    double *z = malloc(2 * n * n * sizeof *z);
    mcf_hamiltonian_dense(h, z);
    gsl_matrix *B = gsl_matrix_alloc(N, N);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const double re = z[2 * (i * n + j)], im = z[2 * (i * n + j) + 1];
            gsl_matrix_set(B, i, j, re);
            gsl_matrix_set(B, n + i, n + j, re);
            gsl_matrix_set(B, i, n + j, -im);
            gsl_matrix_set(B, n + i, j, im);
        }
    gsl_vector *v = gsl_vector_alloc(N);
    gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(N);
    gsl_eigen_symm(B, v, w);
    gsl_sort_vector(v);
    for (size_t k = 0; k < n; k++)
        ev[k] = 0.5 * (gsl_vector_get(v, 2 * k) + gsl_vector_get(v, 2 * k + 1));
    gsl_eigen_symm_free(w);
    gsl_vector_free(v);
    gsl_matrix_free(B);
    free(z);
}

/* S_eff from eigenvalues in long double; *lmax: the largest |term| */
static double s_direct(const double *ev, size_t n, double T, double mu, double *lmax)
{
    long double s = 0.0L;
    double m = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double x = (ev[k] - mu) / T;
        const double t = x > 0 ? -log1p(exp(-x)) : x - log1p(exp(x));
        s += t;
        m = fmax(m, fabs(t));
    }
    if (lmax)
        *lmax = m;
    return (double)s;
}

/* rho of the Bernstein ellipse through x0 = (mu - b + i pi T) / a */
static double bernstein_rho(double a, double b, double T, double mu)
{
    const double complex x0 = (mu - b) / a + I * (kt_pi * T / a);
    double complex r = x0 + csqrt(x0 * x0 - 1.0);
    if (cabs(r) < 1.0)
        r = x0 - csqrt(x0 * x0 - 1.0);
    return cabs(r);
}

/* ---- helpers ------------------------------------------------------------------------- */

static void *make_ws(const mcf_plugin_info *info, const mcf_hamiltonian *h, test_params *tp)
{
    void *ws = NULL;
    CHECK(tp->ok, "%s params: %s", info->name, mcf_last_error());
    const int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK && ws, "%s create: %s", info->name, mcf_last_error());
    return ws;
}

static test_params *kpm_params(const char *M, const char *vectors)
{
    return test_params_make(kpm->params, "test_kpm_action.ini", "moments", M, "vectors",
                            vectors, NULL);
}

static test_params *ed_params(void)
{
    return test_params_make(ed->params, "test_kpm_action.ini", NULL);
}

/* the NP points (T, mu) of the grid */
static void grid_points(double *T, double *mu)
{
    for (int t = 0; t < NT; t++)
        for (int u = 0; u < NMU; u++) {
            T[t * NMU + u] = Ts[t];
            mu[t * NMU + u] = mus[u];
        }
}

/* ---- (a), (c): one Hamiltonian -------------------------------------------------------- */

static double worst_ratio_c = 0.0; /* largest |S_kpm - S_ed| / (err + slack) */
static double worst_est = 0.0;     /* largest |log(err / est)| where asserted */

static void compare(const char *name, const mcf_hamiltonian *h)
{
    const size_t n = h->dim;
    double T[NP], mu[NP], S_ed[NP], e_ed[NP];
    grid_points(T, mu);
    /* (a) ed vs the direct sum */
    double *ev = malloc(n * sizeof *ev);
    eigenvalues(h, ev);
    test_params *tpe = ed_params();
    void *we = make_ws(ed, h, tpe);
    int rc = tev_action(ed, &we, 1, NP, T, mu, S_ed, e_ed);
    CHECK(rc == MCF_OK, "ed action: %s", mcf_last_error());
    double worst_a = 0.0;
    for (int p = 0; p < NP; p++) {
        double lmax;
        const double ref = s_direct(ev, n, T[p], mu[p], &lmax);
        const double tol = 1e-12 * (double)n * lmax;
        CHECK(fabs(S_ed[p] - ref) <= tol && e_ed[p] == 0.0,
              "%s: ed action %.17g vs direct %.17g (tol %.2e) at T = %g mu = %g, err %g", name,
              S_ed[p], ref, tol, T[p], mu[p], e_ed[p]);
        worst_a = fmax(worst_a, fabs(S_ed[p] - ref) / ((double)n * lmax));
    }
    printf("%s (dim %zu): (a) ed vs direct: max |dS| / (dim max|L|) = %.1e\n", name, n,
           worst_a);

    /* (c) kpm vs ed */
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    const char *Ms[2] = {"64", "256"};
    const size_t Mv[2] = {64, 256};
    double S[2][NP], err[2][NP];
    for (int q = 0; q < 2; q++) {
        test_params *tp = kpm_params(Ms[q], "0");
        void *wk = make_ws(kpm, h, tp);
        rc = tev_action(kpm, &wk, 1, NP, T, mu, S[q], err[q]);
        CHECK(rc == MCF_OK, "kpm action M = %s: %s", Ms[q], mcf_last_error());
        tev_destroy(kpm, wk);
        test_params_free(tp);
    }
    printf("  (c)   T     mu  |    M = 64: |dS|      err    est.   |   M = 256: |dS|      err"
           "    est.\n");
    for (int p = 0; p < NP; p++) {
        const double rho = bernstein_rho(a, b, T[p], mu[p]);
        double est[2];
        printf("  %6.2f %5.1f  |", T[p], mu[p]);
        for (int q = 0; q < 2; q++) {
            const double d = fabs(S[q][p] - S_ed[p]), slack = 1e-9 * (double)n;
            est[q] = (double)n * (8.0 / kt_pi) * pow(rho, -(double)Mv[q]) /
                     ((double)Mv[q] * (1.0 - 1.0 / rho));
            printf(" %10.2e %10.2e %8.1e |", d, err[q][p], est[q]);
            CHECK(d <= err[q][p] + slack, "%s M = %zu T = %g mu = %g: |S_kpm - S_ed| = %.3e "
                  "exceeds err %.3e + %.1e", name, Mv[q], T[p], mu[p], d, err[q][p], slack);
            worst_ratio_c = fmax(worst_ratio_c, d / (err[q][p] + slack));
            /* the bound follows the Bernstein-ellipse rate where the truncation is above
             * the rounding floor */
            if (est[q] > 1e-11 * (double)n) {
                CHECK(err[q][p] < 3.0 * est[q] && err[q][p] > est[q] / 3.0,
                      "%s M = %zu T = %g mu = %g: err %.3e not within a factor 3 of the "
                      "estimate %.3e (rho = %.4f)", name, Mv[q], T[p], mu[p], err[q][p], est[q],
                      rho);
                worst_est = fmax(worst_est, fabs(log(err[q][p] / est[q])));
            }
        }
        printf("\n");
        if (pow(rho, -64.0) > 1e-10)
            CHECK(err[1][p] < err[0][p], "%s T = %g mu = %g: err does not fall from M = 64 "
                  "(%.3e) to 256 (%.3e)", name, T[p], mu[p], err[0][p], err[1][p]);
        if (T[p] == 1.0)
            CHECK(err[1][p] < 1e-6 && err[1][p] < 1e-11 * (double)n, "%s T = 1 mu = %g: err "
                  "%.3e at M = 256 (truncation rho^-256 = %.1e)", name, mu[p], err[1][p],
                  pow(rho, -256.0));
    }
    tev_destroy(ed, we);
    test_params_free(tpe);
    free(ev);
}

/* ---- (b) ed: delta_action = action(H') - action(H) ------------------------------------ */

static void delta_vs_action(size_t L, double hund, uint64_t seed)
{
    de_lattice d = de_random_lattice(L, hund, seed);
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 7);
    mcf_hamiltonian *h = de_build(&d);
    test_params *tp = ed_params();
    void *w0 = make_ws(ed, h, tp);
    const size_t n = h->dim;
    double *ev = malloc(n * sizeof *ev);
    double worst = 0.0;
    for (int move = 0; move < 3; move++) {
        const size_t o = (size_t)mcf_rng_below(&rng, d.n);
        double snew[3], old[3];
        de_unit(&rng, snew);
        mcf_local_change c;
        de_change(&d, o, snew, &c);
        memcpy(old, d.s + 3 * o, sizeof old);
        memcpy(d.s + 3 * o, snew, sizeof old);
        mcf_hamiltonian *h1 = de_build(&d);
        memcpy(d.s + 3 * o, old, sizeof old);
        void *w1 = make_ws(ed, h1, tp);
        eigenvalues(h1, ev);
        for (int p = 0; p < NP; p++) {
            const double T = Ts[p / NMU], mu = mus[p % NMU];
            double S0, S1, dS;
            const mcf_local_change *cl[1] = {&c};
            int rc = tev_action(ed, &w0, 1, 1, &T, &mu, &S0, NULL);
            rc |= tev_action(ed, &w1, 1, 1, &T, &mu, &S1, NULL);
            rc |= tev_delta_action(ed, &w0, 1, cl, &T, &mu, &dS);
            CHECK(rc == MCF_OK, "ed: %s", mcf_last_error());
            double lmax;
            s_direct(ev, n, T, mu, &lmax);
            const double tol = 1e-12 * (double)n * lmax;
            CHECK(fabs(dS - (S1 - S0)) <= tol,
                  "L = %zu hund = %g move %d T = %g mu = %g: delta_action %.15g vs "
                  "action(H') - action(H) = %.15g (tol %.2e)", L, hund, move, T, mu, dS,
                  S1 - S0, tol);
            worst = fmax(worst, fabs(dS - (S1 - S0)) / ((double)n * lmax));
        }
        tev_destroy(ed, w1);
        mcf_hamiltonian_destroy(h1);
    }
    printf("(b) cubic %zu^3, hund %g: ed delta_action vs action(H') - action(H): max |diff| / "
           "(dim max|L|) = %.1e\n", L, hund, worst);
    tev_destroy(ed, w0);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
    free(ev);
    free(d.s);
}

/* ---- (d) determinism ------------------------------------------------------------------ */

static void determinism(const mcf_plugin_info *info, test_params *(*params)(void))
{
    de_lattice ds[3] = {de_random_lattice(3, 0.0, 31), de_random_lattice(3, 2.0, 32),
                        de_random_lattice(3, 0.0, 33)};
    mcf_hamiltonian *h[3];
    void *w[3];
    test_params *tp = params();
    for (int k = 0; k < 3; k++) {
        h[k] = de_build(&ds[k]);
        w[k] = make_ws(info, h[k], tp);
    }
    double T[3 * NP], mu[3 * NP], S[3 * NP], E[3 * NP];
    for (int k = 0; k < 3; k++)
        grid_points(T + k * NP, mu + k * NP);
    int rc = tev_action(info, w, 3, NP, T, mu, S, E);
    CHECK(rc == MCF_OK, "%s batch: %s", info->name, mcf_last_error());
    int same_batch = 1, same_points = 1;
    for (int k = 0; k < 3; k++) {
        double S1[NP], E1[NP];
        rc = tev_action(info, &w[k], 1, NP, T + k * NP, mu + k * NP, S1, E1);
        CHECK(rc == MCF_OK, "%s single: %s", info->name, mcf_last_error());
        same_batch &= !memcmp(S1, S + k * NP, sizeof S1) && !memcmp(E1, E + k * NP, sizeof E1);
        for (int p = 0; p < NP; p++) {
            double s1, e1;
            rc = tev_action(info, &w[k], 1, 1, T + k * NP + p, mu + k * NP + p, &s1, &e1);
            CHECK(rc == MCF_OK, "%s point: %s", info->name, mcf_last_error());
            same_points &= !memcmp(&s1, &S1[p], sizeof s1) && !memcmp(&e1, &E1[p], sizeof e1);
        }
    }
    CHECK(same_batch, "%s: a batch of 3 workspaces differs from 3 single calls", info->name);
    CHECK(same_points, "%s: %d points in one call differ from single-point calls", info->name,
          NP);
    /* err may be NULL */
    double S2[NP];
    rc = tev_action(info, &w[0], 1, NP, T, mu, S2, NULL);
    CHECK(rc == MCF_OK && !memcmp(S2, S, sizeof S2), "%s: err = NULL changed S (%s)",
          info->name, mcf_last_error());
    printf("(d) %s: batch of 3 = single calls, %d points = single points: %s\n", info->name, NP,
           same_batch && same_points ? "bitwise" : "DIFFERENT");
    for (int k = 0; k < 3; k++) {
        tev_destroy(info, w[k]);
        mcf_hamiltonian_destroy(h[k]);
        free(ds[k].s);
    }
    test_params_free(tp);
}

static test_params *kpm_exact256(void) { return kpm_params("256", "0"); }

/* ---- (e) refusals ------------------------------------------------------------------- */

static void refusals(void)
{
    de_lattice d = de_random_lattice(3, 0.0, 41);
    mcf_hamiltonian *h = de_build(&d);
    test_params *tk8 = kpm_params("64", "8"), *tk0 = kpm_params("64", "0"), *te = ed_params();
    void *wk8 = make_ws(kpm, h, tk8), *wk0 = make_ws(kpm, h, tk0);
    void *we = make_ws(ed, h, te);
    double T = 0.2, mu = 0.0, S = 0.0, err = 0.0;
    int rc = tev_action(kpm, &wk8, 1, 1, &T, &mu, &S, &err);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "vectors"),
          "kpm vectors = 8: rc %d, %s", rc, mcf_last_error());
    printf("(e) kpm, vectors = 8: %s\n", mcf_last_error());
    const double badT[3] = {0.0, -1.0, 0.2}, badmu[3] = {0.0, 0.0, NAN};
    const char *what[3] = {"T = 0", "T = -1", "mu = nan"};
    for (int q = 0; q < 3; q++) {
        /* the bad point second of two: the message names it */
        const double Tq[2] = {0.2, badT[q]}, muq[2] = {0.0, badmu[q]};
        double Sq[2], Eq[2];
        rc = tev_action(kpm, &wk0, 1, 2, Tq, muq, Sq, Eq);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "point 1"),
              "kpm %s: rc %d, %s", what[q], rc, mcf_last_error());
        printf("    kpm %s: %s\n", what[q], mcf_last_error());
        rc = tev_action(ed, &we, 1, 2, Tq, muq, Sq, Eq);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "point 1") &&
                  strstr(mcf_last_error(), "workspace 0"),
              "ed %s: rc %d, %s", what[q], rc, mcf_last_error());
        printf("    ed %s: %s\n", what[q], mcf_last_error());
    }
    /* NULL arrays */
    rc = tev_action(ed, &we, 1, 1, NULL, &mu, &S, NULL);
    CHECK(rc == MCF_EINVAL, "ed: NULL T accepted");
    rc = tev_action(kpm, &wk0, 1, 1, &T, &mu, NULL, NULL);
    CHECK(rc == MCF_EINVAL, "kpm: NULL S accepted");
    tev_destroy(kpm, wk8);
    tev_destroy(kpm, wk0);
    tev_destroy(ed, we);
    test_params_free(tk8);
    test_params_free(tk0);
    test_params_free(te);
    mcf_hamiltonian_destroy(h);
    free(d.s);
}

static int has_action(const mcf_plugin_info *e)
{
    return (mcf_fermion_provides(e) & MCF_PROVIDES_ACTION) != 0;
}

int main(void)
{
    const clock_t t0 = clock();
    mcf_plugin *pe = NULL, *pk = NULL;
    int rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe);
    if (!rc)
        rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk);
    CHECK(rc == MCF_OK, "loading ed and kpm: %s", mcf_last_error());
    if (rc)
        return check_exit();
    ed = pe->info;
    kpm = pk->info;
    CHECK(has_action(ed) && has_action(kpm), "an evaluator lacks the action op");
    if (!has_action(ed) || !has_action(kpm))
        return check_exit();

    mcf_hamiltonian *hs = square_de(4, 1);
    compare("square 4x4, hund = inf", hs);
    mcf_hamiltonian_destroy(hs);
    de_lattice d1 = de_random_lattice(3, 0.0, 2);
    mcf_hamiltonian *h1 = de_build(&d1);
    compare("cubic 3^3, hund = inf", h1);
    mcf_hamiltonian_destroy(h1);
    free(d1.s);
    de_lattice d2 = de_random_lattice(3, 2.0, 3);
    mcf_hamiltonian *h2 = de_build(&d2);
    compare("cubic 3^3, hund = 2", h2);
    mcf_hamiltonian_destroy(h2);
    free(d2.s);
    printf("(c) largest |S_kpm - S_ed| / (err + 1e-9 dim) = %.2e; err / est within a factor "
           "%.2f\n", worst_ratio_c, exp(worst_est));

    delta_vs_action(3, 0.0, 11);
    delta_vs_action(3, 2.0, 12);
    determinism(kpm, kpm_exact256);
    determinism(ed, ed_params);
    refusals();
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    printf("cpu time %.2f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    return check_exit();
}
