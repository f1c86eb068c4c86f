/* test_linear_method.c — the linear method's step against exactly known answers.
 *
 * The "system" is a discrete space of NS = 6 states with a real symmetric Hamiltonian
 * H_xy whose off-diagonal elements are <= 0 (random from a fixed seed), so its ground state
 * is positive (Perron-Frobenius) and reachable by the positive ansatz
 *     psi(x; p) = exp(sum_k p_k f_k(x)) .
 * Instead of sampling, every state x is added once with the weight w_x = NS psi(x)^2 /
 * sum_y psi(y)^2 (weights summing to NS, so count = NS >= 2), and
 *     E_L(x) = sum_y H_xy psi(y) / psi(x),   O_k(x) = f_k(x),
 *     dE_L/dp_k(x) = sum_y H_xy psi(y) (f_k(y) - f_k(x)) / psi(x) ;
 * the sums are then exact averages, and the method's answers can be compared with exact
 * diagonalization and brute-force minimization without statistical tolerances. */
#include "check.h"

#include "linear_method.h"
#include "mcf/error.h"
#include "mcf/rng.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 6
#define MAXP (NS - 1)

static double Hm[NS][NS];   /* the Hamiltonian */
static double evals[NS];    /* its eigenvalues, ascending */
static double gs[NS];       /* its ground state, positive, unit norm */

typedef struct model {
    size_t P;
    double f[MAXP][NS]; /* f[k][x] */
} model;

static void make_system(void)
{
    mcf_rng r;
    mcf_rng_init(&r, 2007, 0);
    for (int x = 0; x < NS; x++) {
        /* site energies in [-5, 5] against hoppings in [-1, -0.1]: a ground state far
         * from the uniform start p = 0 (one component 0.91, c0 = 0.74 in the first step) */
        Hm[x][x] = 5.0 * (2.0 * mcf_rng_uniform(&r) - 1.0);
        for (int y = 0; y < x; y++)
            Hm[x][y] = Hm[y][x] = -(0.1 + 0.9 * mcf_rng_uniform(&r));
    }
    gsl_matrix *A = gsl_matrix_alloc(NS, NS), *V = gsl_matrix_alloc(NS, NS);
    gsl_vector *ev = gsl_vector_alloc(NS);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(NS);
    for (int x = 0; x < NS; x++)
        for (int y = 0; y < NS; y++)
            gsl_matrix_set(A, (size_t)x, (size_t)y, Hm[x][y]);
    gsl_eigen_symmv(A, ev, V, ws);
    gsl_eigen_symmv_sort(ev, V, GSL_EIGEN_SORT_VAL_ASC);
    const double sign = gsl_matrix_get(V, 0, 0) < 0 ? -1.0 : 1.0;
    for (int x = 0; x < NS; x++) {
        evals[x] = gsl_vector_get(ev, (size_t)x);
        gs[x] = sign * gsl_matrix_get(V, (size_t)x, 0);
    }
    gsl_eigen_symmv_free(ws);
    gsl_vector_free(ev);
    gsl_matrix_free(V);
    gsl_matrix_free(A);
    printf("spectrum of H:");
    for (int x = 0; x < NS; x++)
        printf(" %.12f", evals[x]);
    printf("\nground state:");
    for (int x = 0; x < NS; x++)
        printf(" %.9f", gs[x]);
    printf("\n");
}

/* the complete ansatz: f_k = indicator of state k, k = 1..NS-1 */
static model complete_model(void)
{
    model M;
    memset(&M, 0, sizeof M);
    M.P = NS - 1;
    for (size_t k = 0; k < M.P; k++)
        M.f[k][k + 1] = 1.0;
    return M;
}

/* an incomplete one: two smooth functions on the ring of states */
static model smooth_model(void)
{
    model M;
    memset(&M, 0, sizeof M);
    M.P = 2;
    const double two_pi = 2.0 * acos(-1.0);
    for (int x = 0; x < NS; x++) {
        M.f[0][x] = cos(two_pi * x / NS);
        M.f[1][x] = sin(two_pi * x / NS);
    }
    return M;
}

static void psi_of(const model *M, const double *p, double *psi)
{
    for (int x = 0; x < NS; x++) {
        double l = 0.0;
        for (size_t k = 0; k < M->P; k++)
            l += p[k] * M->f[k][x];
        psi[x] = exp(l);
    }
}

static double energy_of(const model *M, const double *p)
{
    double psi[NS], num = 0.0, den = 0.0;
    psi_of(M, p, psi);
    for (int x = 0; x < NS; x++) {
        double hp = 0.0;
        for (int y = 0; y < NS; y++)
            hp += Hm[x][y] * psi[y];
        num += psi[x] * hp;
        den += psi[x] * psi[x];
    }
    return num / den;
}

/* exact energy, variance of E_L and energy gradient 2 <(O_k - <O_k>)(E_L - <E_L>)> */
static void moments(const model *M, const double *p, double *E, double *var, double *grad)
{
    double psi[NS], w[NS], el[NS], z = 0.0;
    psi_of(M, p, psi);
    for (int x = 0; x < NS; x++)
        z += psi[x] * psi[x];
    double e = 0.0, e2 = 0.0;
    for (int x = 0; x < NS; x++) {
        w[x] = psi[x] * psi[x] / z;
        double hp = 0.0;
        for (int y = 0; y < NS; y++)
            hp += Hm[x][y] * psi[y];
        el[x] = hp / psi[x];
        e += w[x] * el[x];
    }
    for (int x = 0; x < NS; x++)
        e2 += w[x] * (el[x] - e) * (el[x] - e);
    *E = e;
    *var = e2;
    if (grad)
        for (size_t k = 0; k < M->P; k++) {
            double fm = 0.0, g = 0.0;
            for (int x = 0; x < NS; x++)
                fm += w[x] * M->f[k][x];
            for (int x = 0; x < NS; x++)
                g += w[x] * (M->f[k][x] - fm) * (el[x] - e);
            grad[k] = 2.0 * g;
        }
}

/* the local quantities of state x */
static double local_of(const model *M, const double *psi, int x, double *O, double *dE)
{
    double hp = 0.0;
    for (int y = 0; y < NS; y++)
        hp += Hm[x][y] * psi[y];
    for (size_t k = 0; k < M->P; k++) {
        O[k] = M->f[k][x];
        double d = 0.0;
        for (int y = 0; y < NS; y++)
            d += Hm[x][y] * psi[y] * (M->f[k][y] - M->f[k][x]);
        dE[k] = d / psi[x];
    }
    return hp / psi[x];
}

/* adds the states `order[0..n-1]` with their exact weights */
static void add_states(mcfi_lm_sums *s, const model *M, const double *p, const int *order,
                       int n)
{
    double psi[NS], z = 0.0, O[MAXP], dE[MAXP];
    psi_of(M, p, psi);
    for (int x = 0; x < NS; x++)
        z += psi[x] * psi[x];
    for (int i = 0; i < n; i++) {
        const int x = order[i];
        const double el = local_of(M, psi, x, O, dE);
        mcfi_lm_add_weighted(s, NS * psi[x] * psi[x] / z, el, O, dE);
    }
}

static const int all_states[NS] = {0, 1, 2, 3, 4, 5};

static void exact_sums(mcfi_lm_sums *s, const model *M, const double *p)
{
    mcfi_lm_sums_clear(s);
    add_states(s, M, p, all_states, NS);
}

typedef struct trace {
    int iters;                 /* steps taken until |dp| < tol; -1: not converged / failed */
    int first_e_converged;     /* first step after which |E - E0| < 1e-10 (-1: never) */
    double max_pred_err;       /* max |predicted - E0| over the steps */
    double first_norm;         /* |dp| of the first step */
} trace;

/* iterates p += dp from *p until |dp| < tol or maxit steps */
static trace optimize(const model *M, double *p, const mcfi_lm_options *o, int maxit,
                      double tol, int verbose)
{
    trace t = {-1, -1, 0.0, NAN};
    mcfi_lm_sums s;
    if (mcfi_lm_sums_init(&s, M->P))
        return t;
    double dp[MAXP];
    for (int it = 1; it <= maxit; it++) {
        exact_sums(&s, M, p);
        mcfi_lm_result res;
        const int rc = mcfi_lm_solve(&s, o, dp, &res);
        if (rc) {
            printf("  step %d: mcfi_lm_solve failed: %s\n", it, mcf_last_error());
            break;
        }
        for (size_t k = 0; k < M->P; k++)
            p[k] += dp[k];
        const double e = energy_of(M, p);
        if (verbose)
            printf("  step %2d: E = %.15f  predicted = %.15f  c0 = %.6f  |dp| = %.3e  "
                   "E(p+dp) - E0 = %.3e\n", it, res.energy, res.predicted, res.c0, res.norm,
                   e - evals[0]);
        if (it == 1)
            t.first_norm = res.norm;
        t.max_pred_err = fmax(t.max_pred_err, fabs(res.predicted - evals[0]));
        if (t.first_e_converged < 0 && fabs(e - evals[0]) < 1e-10)
            t.first_e_converged = it;
        if (res.norm < tol) {
            t.iters = it;
            break;
        }
    }
    mcfi_lm_sums_free(&s);
    return t;
}

/* max_x | psi(x)/|psi| - gs(x) | */
static double psi_error(const model *M, const double *p)
{
    double psi[NS], z = 0.0, err = 0.0;
    psi_of(M, p, psi);
    for (int x = 0; x < NS; x++)
        z += psi[x] * psi[x];
    for (int x = 0; x < NS; x++)
        err = fmax(err, fabs(psi[x] / sqrt(z) - gs[x]));
    return err;
}

/* (a), (b): complete ansatz, energy target, from p = 0 */
static void test_complete_energy(void)
{
    printf("(a, b) complete ansatz, target energy, shift 0, xi 0.5, from p = 0\n");
    model M = complete_model();
    double p[MAXP] = {0};
    mcfi_lm_options o = {MCFI_LM_ENERGY, 0.0, 0.5};
    const double e_start = energy_of(&M, p);
    trace t = optimize(&M, p, &o, 40, 1e-13, 1);
    const double e = energy_of(&M, p), perr = psi_error(&M, p);
    printf("  E start %.12f, E final %.15f, E0 %.15f, |E - E0| = %.3e, psi error %.3e, "
           "|E - E0| < 1e-10 after step %d, |dp| < 1e-13 after step %d\n",
           e_start, e, evals[0], fabs(e - evals[0]), perr, t.first_e_converged, t.iters);
    printf("  max |predicted - E0| over the steps: %.3e\n", t.max_pred_err);
    CHECK(t.iters > 0, "did not converge (|dp| < 1e-13) in 40 steps");
    CHECK(t.first_e_converged > 0 && t.first_e_converged <= 20,
          "|E - E0| < 1e-10 first after step %d", t.first_e_converged);
    CHECK(fabs(e - evals[0]) < 1e-10, "E = %.15f, E0 = %.15f", e, evals[0]);
    CHECK(perr < 1e-8, "psi differs from the ground state by %.3e", perr);
    CHECK(t.max_pred_err < 1e-10, "predicted differs from E0 by up to %.3e", t.max_pred_err);
}

/* (c): two smooth functions */
static void test_incomplete(void)
{
    printf("(c) incomplete ansatz f = (cos, sin)(2 pi x / 6), target energy, from p = 0\n");
    model M = smooth_model();
    double p[2] = {0.0, 0.0};
    mcfi_lm_options o = {MCFI_LM_ENERGY, 0.0, 0.5};
    const double e_start = energy_of(&M, p);
    trace t = optimize(&M, p, &o, 100, 1e-13, 1);
    double E, var, g[2];
    moments(&M, p, &E, &var, g);
    const double gn = hypot(g[0], g[1]);
    printf("  p* = (%.12f, %.12f), E* = %.15f (start %.12f, E0 %.12f), |grad| = %.3e, "
           "steps %d\n", p[0], p[1], E, e_start, evals[0], gn, t.iters);
    CHECK(t.iters > 0, "did not converge");
    CHECK(gn < 1e-9, "|gradient| = %.3e at the fixed point", gn);
    CHECK(E < e_start, "E* = %.15f not below the start %.15f", E, e_start);
    CHECK(E >= evals[0] - 1e-14, "E* = %.15f below the exact ground energy %.15f", E,
          evals[0]);

    /* brute force over [-B, B]^2 with spacing h.  Bound on E(nearest grid point) - E*:
     * along p* + t delta (|delta_k| <= h/2) with g = delta.f, phi = normalized psi,
     * G = g - <g>:  E'' = 2<G^2 (H-c)> + 2<G (H-c) G> - 4 Var(g) (E - c) for any c, so
     * with c the middle of the spectrum and R = (e_max - e_min) / 2,
     * |E''| <= 2 R range(g) sd(g) + 6 R Var(g) <= 2.5 R range(g)^2, and
     * E(grid) - E* <= |grad| |delta| + 1.25 R range(g)^2,
     * range(g) <= (h/2) (range f_1 + range f_2). */
    const double B = 4.0, h = 0.004;
    const int ng = (int)lround(2.0 * B / h);
    double gmin = INFINITY, gp[2] = {0, 0};
    for (int i = 0; i <= ng; i++)
        for (int j = 0; j <= ng; j++) {
            const double q[2] = {-B + h * i, -B + h * j};
            const double eq = energy_of(&M, q);
            if (eq < gmin) {
                gmin = eq;
                gp[0] = q[0];
                gp[1] = q[1];
            }
        }
    double r1 = 0.0, r2 = 0.0;
    {
        double mn[2] = {INFINITY, INFINITY}, mx[2] = {-INFINITY, -INFINITY};
        for (int x = 0; x < NS; x++)
            for (int k = 0; k < 2; k++) {
                mn[k] = fmin(mn[k], M.f[k][x]);
                mx[k] = fmax(mx[k], M.f[k][x]);
            }
        r1 = mx[0] - mn[0];
        r2 = mx[1] - mn[1];
    }
    const double R = 0.5 * (evals[NS - 1] - evals[0]);
    const double rg = 0.5 * h * (r1 + r2);
    const double bound = gn * h / sqrt(2.0) + 1.25 * R * rg * rg;
    printf("  grid %d^2 over [-%g, %g]^2, h = %g: min %.15f at (%.3f, %.3f); E* - grid min "
           "= %.3e, resolution bound %.3e\n", ng + 1, B, B, h, gmin, gp[0], gp[1],
           E - gmin, bound);
    CHECK(fabs(p[0]) < B - h && fabs(p[1]) < B - h, "p* outside the grid");
    CHECK(E <= gmin + 1e-13, "a grid point is lower than the LM minimum by %.3e", E - gmin);
    CHECK(gmin <= E + bound, "grid minimum %.15f above E* + bound (%.3e)", gmin, bound);
    CHECK(fabs(gp[0] - p[0]) < 0.1 && fabs(gp[1] - p[1]) < 0.1,
          "grid minimum at (%.3f, %.3f), far from p*", gp[0], gp[1]);
}

/* (d): variance target on the complete ansatz, started near the ground state */
static void test_variance(void)
{
    printf("(d) complete ansatz, target variance, from log(ground state) + 0.2 N(0,1)\n");
    model M = complete_model();
    double p[MAXP];
    mcf_rng r;
    mcf_rng_init(&r, 98, 0);
    for (size_t k = 0; k < M.P; k++)
        p[k] = log(gs[k + 1] / gs[0]) + 0.2 * mcf_rng_normal(&r);
    double E, var;
    moments(&M, p, &E, &var, NULL);
    /* first step: in the complete space the predicted value is min_k (e_k - E)^2 */
    double want = INFINITY;
    for (int k = 0; k < NS; k++)
        want = fmin(want, (evals[k] - E) * (evals[k] - E));
    mcfi_lm_sums s;
    CHECK(mcfi_lm_sums_init(&s, M.P) == MCF_OK, "init");
    exact_sums(&s, &M, p);
    mcfi_lm_options o = {MCFI_LM_VARIANCE, 0.0, 0.5};
    mcfi_lm_result res;
    double dp[MAXP];
    const int rc = mcfi_lm_solve(&s, &o, dp, &res);
    printf("  start: E = %.12f, variance = %.6e; first step predicted %.15e, "
           "min_k (e_k - E)^2 = %.15e\n", E, var, res.predicted, want);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    CHECK(fabs(res.predicted - want) < 1e-12, "predicted %.15e, expected %.15e",
          res.predicted, want);
    CHECK(fabs(res.energy - E) < 1e-14 && fabs(res.variance - var) < 1e-14,
          "res energy/variance %.15f %.15e vs exact %.15f %.15e", res.energy, res.variance, E,
          var);
    mcfi_lm_sums_free(&s);

    trace t = optimize(&M, p, &o, 40, 1e-13, 1);
    moments(&M, p, &E, &var, NULL);
    double dist = INFINITY;
    for (int k = 0; k < NS; k++)
        dist = fmin(dist, fabs(E - evals[k]));
    printf("  final: E = %.15f, variance = %.3e, distance to the spectrum %.3e, E - E0 = "
           "%.3e, psi error %.3e, steps %d\n", E, var, dist, E - evals[0], psi_error(&M, p),
           t.iters);
    CHECK(t.iters > 0, "did not converge");
    CHECK(var < 1e-12, "variance %.3e", var);
    CHECK(dist < 1e-9, "E = %.15f is no eigenvalue (distance %.3e)", E, dist);
    CHECK(fabs(E - evals[0]) < 1e-9, "E = %.15f, E0 = %.15f", E, evals[0]);
}

/* (e): xi and shift */
static void test_xi_shift(void)
{
    printf("(e) xi and shift\n");
    const model models[2] = {complete_model(), smooth_model()};
    const char *names[2] = {"complete", "smooth"};
    for (int mi = 0; mi < 2; mi++) {
        const model *M = &models[mi];
        const double xis[3] = {0.0, 0.5, 1.0};
        double n1[3], c0[3], pf[3][MAXP], ef[3];
        int its[3];
        for (int i = 0; i < 3; i++) {
            double p[MAXP] = {0};
            mcfi_lm_sums s;
            mcfi_lm_sums_init(&s, M->P);
            exact_sums(&s, M, p);
            mcfi_lm_options o = {MCFI_LM_ENERGY, 0.0, xis[i]};
            mcfi_lm_result res;
            double dp[MAXP];
            CHECK(mcfi_lm_solve(&s, &o, dp, &res) == MCF_OK, "%s", mcf_last_error());
            mcfi_lm_sums_free(&s);
            n1[i] = res.norm;
            c0[i] = res.c0;
            trace t = optimize(M, p, &o, 100, 1e-13, 0);
            its[i] = t.iters;
            memcpy(pf[i], p, sizeof p);
            ef[i] = energy_of(M, p);
        }
        printf("  %s: first |dp| for xi = 0, 0.5, 1: %.12f %.12f %.12f (c0 = %.12f); "
               "steps to converge %d %d %d; final E %.15f %.15f %.15f\n", names[mi], n1[0],
               n1[1], n1[2], c0[1], its[0], its[1], its[2], ef[0], ef[1], ef[2]);
        /* dp = dpbar c0^(2 (1 - xi)): |dp(1/2)| = |dp(1)| c0, |dp(0)| = |dp(1)| c0^2 */
        CHECK(fabs(n1[1] - n1[2] * c0[1]) < 1e-12 * n1[2], "xi = 1/2: %.15f vs %.15f", n1[1],
              n1[2] * c0[1]);
        CHECK(fabs(n1[0] - n1[2] * c0[1] * c0[1]) < 1e-12 * n1[2], "xi = 0: %.15f vs %.15f",
              n1[0], n1[2] * c0[1] * c0[1]);
        CHECK(n1[0] < n1[1] * (1 - 1e-3) && n1[1] < n1[2] * (1 - 1e-3),
              "the steps for different xi do not differ: %g %g %g", n1[0], n1[1], n1[2]);
        double dmax = 0.0;
        for (int i = 0; i < 3; i++) {
            CHECK(its[i] > 0, "xi = %g did not converge", xis[i]);
            for (size_t k = 0; k < M->P; k++)
                dmax = fmax(dmax, fabs(pf[i][k] - pf[1][k]));
        }
        printf("  %s: max |p*(xi) - p*(0.5)| = %.3e\n", names[mi], dmax);
        CHECK(dmax < 1e-8, "converged parameters differ by %.3e", dmax);
        CHECK(fabs(ef[0] - ef[1]) < 1e-13 && fabs(ef[2] - ef[1]) < 1e-13,
              "converged energies differ");

        const double shifts[4] = {0.0, 0.1, 1.0, 10.0};
        double ns[4];
        for (int i = 0; i < 4; i++) {
            double p[MAXP] = {0}, dp[MAXP];
            mcfi_lm_sums s;
            mcfi_lm_sums_init(&s, M->P);
            exact_sums(&s, M, p);
            mcfi_lm_options o = {MCFI_LM_ENERGY, shifts[i], 0.5};
            mcfi_lm_result res;
            CHECK(mcfi_lm_solve(&s, &o, dp, &res) == MCF_OK, "%s", mcf_last_error());
            mcfi_lm_sums_free(&s);
            ns[i] = res.norm;
        }
        printf("  %s: first |dp| for shift 0, 0.1, 1, 10: %.9f %.9f %.9f %.9f\n", names[mi],
               ns[0], ns[1], ns[2], ns[3]);
        CHECK(ns[1] < ns[0] && ns[2] < ns[1] && ns[3] < ns[2],
              "the step does not shrink with the shift");
    }
}

static double max_rel_diff(const double *a, const double *b, size_t nn)
{
    double d = 0.0, m = 0.0;
    for (size_t k = 0; k < nn; k++) {
        d = fmax(d, fabs(a[k] - b[k]));
        m = fmax(m, fabs(a[k]));
    }
    return m > 0 ? d / m : d;
}

static double sums_diff(const mcfi_lm_sums *a, const mcfi_lm_sums *b)
{
    const size_t nn = (a->P + 1) * (a->P + 1);
    double d = fabs(a->count - b->count) / fabs(a->count);
    d = fmax(d, max_rel_diff(a->aa, b->aa, nn));
    d = fmax(d, max_rel_diff(a->ab, b->ab, nn));
    d = fmax(d, max_rel_diff(a->bb, b->bb, nn));
    return d;
}

/* (f): order independence and merge */
static void test_merge(void)
{
    printf("(f) merge and order\n");
    model M = complete_model();
    double p[MAXP] = {0.3, -0.2, 0.5, 0.1, -0.4};
    mcfi_lm_sums all, h1, h2, rev;
    mcfi_lm_sums_init(&all, M.P);
    mcfi_lm_sums_init(&h1, M.P);
    mcfi_lm_sums_init(&h2, M.P);
    mcfi_lm_sums_init(&rev, M.P);
    add_states(&all, &M, p, all_states, NS);
    add_states(&h1, &M, p, all_states, 3);
    add_states(&h2, &M, p, all_states + 3, 3);
    mcfi_lm_merge(&h1, &h2);
    const int reversed[NS] = {5, 4, 3, 2, 1, 0};
    add_states(&rev, &M, p, reversed, NS);
    const double d1 = sums_diff(&all, &h1), d2 = sums_diff(&all, &rev);
    printf("  exact states: merged halves vs all %.3e, reversed order vs all %.3e\n", d1, d2);
    CHECK(d1 <= 1e-14, "merged halves differ by %.3e", d1);
    CHECK(d2 <= 1e-14, "reversed order differs by %.3e", d2);

    /* 1000 random samples: all in one, two halves merged, 10 blocks merged */
    const int N = 1000;
    mcfi_lm_sums_clear(&all);
    mcfi_lm_sums_clear(&h1);
    mcfi_lm_sums_clear(&h2);
    mcfi_lm_sums_clear(&rev);
    mcfi_lm_sums blk;
    mcfi_lm_sums_init(&blk, M.P);
    mcf_rng r;
    mcf_rng_init(&r, 11, 0);
    for (int i = 0; i < N; i++) {
        double O[MAXP], dE[MAXP];
        const double el = -1.0 + mcf_rng_normal(&r);
        for (size_t k = 0; k < M.P; k++) {
            O[k] = 0.5 + mcf_rng_normal(&r);
            dE[k] = mcf_rng_normal(&r);
        }
        mcfi_lm_add(&all, el, O, dE);
        mcfi_lm_add(i < N / 2 ? &h1 : &h2, el, O, dE);
        mcfi_lm_add(&blk, el, O, dE);
        if ((i + 1) % 100 == 0) {
            mcfi_lm_merge(&rev, &blk);
            mcfi_lm_sums_clear(&blk);
        }
    }
    mcfi_lm_merge(&h1, &h2);
    const double d3 = sums_diff(&all, &h1), d4 = sums_diff(&all, &rev);
    printf("  %d random samples: merged halves vs all %.3e, 10 merged blocks vs all %.3e\n",
           N, d3, d4);
    CHECK(all.count == N && h1.count == N && rev.count == N, "counts %g %g %g", all.count,
          h1.count, rev.count);
    CHECK(d3 <= 1e-14, "merged halves differ by %.3e", d3);
    CHECK(d4 <= 1e-14, "merged blocks differ by %.3e", d4);
    mcfi_lm_sums_free(&blk);
    mcfi_lm_sums_free(&all);
    mcfi_lm_sums_free(&h1);
    mcfi_lm_sums_free(&h2);
    mcfi_lm_sums_free(&rev);
}

/* zero-variance property: sums over random samples x ~ |psi_0|^2 (not exact averages) of
 * the complete ansatz give the exact ground energy as the linear-space eigenvalue, because
 * the non-symmetric estimator satisfies H c = E0 S c sample by sample */
static void test_zero_variance(void)
{
    printf("zero-variance property: 300 random samples of the complete ansatz at p != 0\n");
    model M = complete_model();
    const double p[MAXP] = {0.3, -0.2, 0.5, 0.1, -0.4};
    double psi[NS], z = 0.0, cum[NS];
    psi_of(&M, p, psi);
    for (int x = 0; x < NS; x++) {
        z += psi[x] * psi[x];
        cum[x] = z;
    }
    mcfi_lm_sums s;
    mcfi_lm_sums_init(&s, M.P);
    mcf_rng r;
    mcf_rng_init(&r, 5, 0);
    int seen[NS] = {0};
    for (int i = 0; i < 300; i++) {
        const double u = mcf_rng_uniform(&r) * z;
        int x = 0;
        while (x < NS - 1 && u >= cum[x])
            x++;
        seen[x]++;
        double O[MAXP], dE[MAXP];
        const double el = local_of(&M, psi, x, O, dE);
        mcfi_lm_add(&s, el, O, dE);
    }
    mcfi_lm_options o = {MCFI_LM_ENERGY, 0.0, 0.5};
    mcfi_lm_result res;
    double dp[MAXP];
    const int rc = mcfi_lm_solve(&s, &o, dp, &res);
    double Eex, var;
    moments(&M, p, &Eex, &var, NULL);
    printf("  visits %d %d %d %d %d %d; sampled <E_L> = %.12f (exact %.12f), predicted = "
           "%.15f, E0 = %.15f, difference %.3e\n", seen[0], seen[1], seen[2], seen[3],
           seen[4], seen[5], res.energy, Eex, res.predicted, evals[0],
           res.predicted - evals[0]);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    CHECK(fabs(res.predicted - evals[0]) < 1e-10, "predicted %.15f vs E0 %.15f",
          res.predicted, evals[0]);
    mcfi_lm_sums_free(&s);
}

/* the eigenvector rule: H2 = P H P - 10 v v^T with v = (1, -1, 0, 0, 0, 0) / sqrt 2 and
 * P = 1 - v v^T has v as its ground state (eigenvalue -10), orthogonal to the uniform
 * psi_0 of p = 0: in the complete space that eigenvector has c0 = 0 and must be passed
 * over for the lowest one with c0 >= MCFI_LM_MIN_C0 */
static void test_selection(void)
{
    printf("selection: a ground state orthogonal to psi_0 is passed over\n");
    double save[NS][NS], v[NS] = {0}, Ph[NS][NS], H2[NS][NS];
    memcpy(save, Hm, sizeof Hm);
    v[0] = 1.0 / sqrt(2.0);
    v[1] = -v[0];
    for (int x = 0; x < NS; x++)
        for (int y = 0; y < NS; y++) {
            double a = 0.0; /* (H P)_xy */
            for (int z = 0; z < NS; z++)
                a += Hm[x][z] * ((z == y) - v[z] * v[y]);
            Ph[x][y] = a;
        }
    for (int x = 0; x < NS; x++)
        for (int y = 0; y < NS; y++) {
            double a = 0.0; /* (P H P)_xy */
            for (int z = 0; z < NS; z++)
                a += ((x == z) - v[x] * v[z]) * Ph[z][y];
            H2[x][y] = a - 10.0 * v[x] * v[y];
        }
    gsl_matrix *A = gsl_matrix_alloc(NS, NS), *V = gsl_matrix_alloc(NS, NS);
    gsl_vector *ev = gsl_vector_alloc(NS);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(NS);
    for (int x = 0; x < NS; x++)
        for (int y = 0; y < NS; y++)
            gsl_matrix_set(A, (size_t)x, (size_t)y, 0.5 * (H2[x][y] + H2[y][x]));
    gsl_eigen_symmv(A, ev, V, ws);
    gsl_eigen_symmv_sort(ev, V, GSL_EIGEN_SORT_VAL_ASC);
    /* the lowest eigenvalue whose eigenvector overlaps the uniform vector */
    double want = NAN, ov = 0.0;
    for (size_t k = 0; k < NS; k++) {
        double o = 0.0;
        for (size_t x = 0; x < NS; x++)
            o += gsl_matrix_get(V, x, k) / sqrt((double)NS);
        if (fabs(o) >= MCFI_LM_MIN_C0) {
            want = gsl_vector_get(ev, k);
            ov = fabs(o);
            break;
        }
    }
    printf("  spectrum of H2: %.12f %.12f %.12f ...; expected choice %.15f (overlap %.6f)\n",
           gsl_vector_get(ev, 0), gsl_vector_get(ev, 1), gsl_vector_get(ev, 2), want, ov);
    gsl_eigen_symmv_free(ws);
    gsl_vector_free(ev);
    gsl_matrix_free(V);
    gsl_matrix_free(A);

    memcpy(Hm, H2, sizeof Hm);
    model M = complete_model();
    double p[MAXP] = {0}, dp[MAXP];
    mcfi_lm_sums s;
    mcfi_lm_sums_init(&s, M.P);
    exact_sums(&s, &M, p);
    mcfi_lm_options o = {MCFI_LM_ENERGY, 0.0, 0.5};
    mcfi_lm_result res;
    const int rc = mcfi_lm_solve(&s, &o, dp, &res);
    printf("  chosen: predicted %.15f, c0 %.6f\n", res.predicted, res.c0);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    CHECK(fabs(res.predicted - want) < 1e-10, "predicted %.15f, expected %.15f",
          res.predicted, want);
    CHECK(fabs(res.c0 - ov) < 1e-10, "c0 %.15f, expected %.15f", res.c0, ov);
    mcfi_lm_sums_free(&s);
    memcpy(Hm, save, sizeof Hm);
}

/* (g): refusals */
static void test_refusals(void)
{
    printf("(g) refusals\n");
    mcfi_lm_sums s;
    CHECK(mcfi_lm_sums_init(&s, 0) == MCF_EINVAL, "P = 0 accepted");
    mcfi_lm_sums_free(&s);

    model M = smooth_model();
    double p[2] = {0.1, 0.2}, dp[MAXP];
    mcfi_lm_options o = {MCFI_LM_ENERGY, 0.0, 0.5};
    mcfi_lm_result res;
    mcfi_lm_sums_init(&s, 2);
    {
        double psi[NS], O[2], dE[2];
        psi_of(&M, p, psi);
        const double el = local_of(&M, psi, 3, O, dE);
        mcfi_lm_add(&s, el, O, dE); /* one sample */
    }
    int rc = mcfi_lm_solve(&s, &o, dp, &res);
    printf("  count 1: rc %d: %s\n", rc, mcf_last_error());
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "at least 2"), "count 1 accepted");

    exact_sums(&s, &M, p);
    o.xi = 1.5;
    rc = mcfi_lm_solve(&s, &o, dp, &res);
    printf("  xi 1.5: rc %d: %s\n", rc, mcf_last_error());
    CHECK(rc == MCF_EINVAL, "xi = 1.5 accepted");
    o.xi = 0.5;
    o.shift = -1.0;
    rc = mcfi_lm_solve(&s, &o, dp, &res);
    printf("  shift -1: rc %d: %s\n", rc, mcf_last_error());
    CHECK(rc == MCF_EINVAL, "shift = -1 accepted");
    o.shift = 0.0;
    mcfi_lm_sums_free(&s);

    /* a constant f_2 (index 1 in dlogpsi) */
    model C;
    memset(&C, 0, sizeof C);
    C.P = 3;
    for (int x = 0; x < NS; x++) {
        C.f[0][x] = M.f[0][x];
        C.f[1][x] = 0.7;
        C.f[2][x] = M.f[1][x];
    }
    double q[3] = {0.1, 0.3, 0.2}, dq[3] = {-1, -1, -1};
    mcfi_lm_sums_init(&s, 3);
    exact_sums(&s, &C, q);
    rc = mcfi_lm_solve(&s, &o, dq, &res);
    printf("  constant f: rc %d: %s\n", rc, mcf_last_error());
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "dlogpsi[1]") &&
              strstr(mcf_last_error(), "no variance"),
          "constant f_2 not named: %s", mcf_last_error());
    CHECK(dq[0] == -1 && dq[1] == -1 && dq[2] == -1, "dp written on failure");

    /* linearly dependent: f_3 = 2 f_1 - f_2 + 0.3 */
    for (int x = 0; x < NS; x++)
        C.f[1][x] = 2.0 * M.f[0][x] - M.f[1][x] + 0.3;
    exact_sums(&s, &C, q);
    rc = mcfi_lm_solve(&s, &o, dq, &res);
    printf("  dependent f: rc %d: %s\n", rc, mcf_last_error());
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "linearly dependent") &&
              strstr(mcf_last_error(), "dlogpsi[2]"),
          "dependent f not refused: %s", mcf_last_error());

    /* non-finite sums */
    exact_sums(&s, &C, q);
    s.ab[1] = NAN;
    rc = mcfi_lm_solve(&s, &o, dq, &res);
    printf("  NaN in the sums: rc %d: %s\n", rc, mcf_last_error());
    CHECK(rc == MCF_EINVAL, "NaN accepted");
    mcfi_lm_sums_free(&s);
}

int main(void)
{
    make_system();
    test_complete_energy();
    test_incomplete();
    test_variance();
    test_xi_shift();
    test_merge();
    test_zero_variance();
    test_selection();
    test_refusals();
    return check_exit();
}
