/* test_kbe_order.c — the stepper of order p = 3 .. 5 of plugins/kbe (kbe_bdf.c, kbe_start.c:
 * BDF-p in the first time, Gregory's weights of order p for the collision integrals, the
 * start block by collocation) against references computed here independently (label
 * physics), as test_kbe_free does for the second-order step:
 *
 * 1. U = 0 with a pulse: every G^<(t_i, t_j) and G^>(t_i, t_j) (both triangles, every k and
 *    band pair) against i U(t_i) rho0 U(t_j)^dagger and -i U(t_i) (1 - rho0) U(t_j)^dagger,
 *    U_k(t) by RK4 at 1/64 of the finest step.  Order p: the largest error falls by 2^p per
 *    halving of dt, the ratio within 2^p x [0.8, 1.25] (issue 45).  N(t) and G^>(t, t) -
 *    G^<(t, t) = -i are linear invariants of the linear multistep formula: kept to rounding,
 *    |N(t) - N(0)| / N and max |G^> - G^< + i| <= 1e-13.
 * 2. Time-dependent Hartree-Fock: rho_k(t_n) = -i G^<(t_n, t_n) against i d rho_k/dt =
 *    [h_k(t, rho^loc), rho_k] by RK4 at 1/64 of the finest step, with one corrector pass
 *    (the row is first extrapolated from p rows, an error O(dt^p) in h(t_{n+1})): order p.
 * 3. Second Born (U = 1, one corrector pass, t <= 2): no closed form; the differences of
 *    successive halvings max |G_dt - G_dt/2| over the pairs of the coarsest grid fall by
 *    2^p per halving as the error does (dt = 0.08 .. 0.01).
 * 4. Refusals: order 1 and 6.
 * The steps: dt = 0.08, 0.04, 0.02 up to t = 4 (errors from about 1e-3 down to 1e-10 at order
 * 5, well above rounding, and the largest step still in the asymptotic range). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/error.h"

#define NK 6
#define T_END 4.0
static const double dts[3] = {0.08, 0.04, 0.02};
#include "kbe_free_reference.h"

static int run_to(double t_end, double dt, int order, kbe_selfenergy se, int correctors,
                  double U, kbe **out)
{
    double eps[2 * NK];
    double complex rho0[4 * NK];
    initial_state(rho0, eps);
    const size_t n = (size_t)llround(t_end / dt);
    kbe_spec s = {.nk = NK, .eps = eps, .dipole = dipole, .rho0 = rho0, .dt = dt, .steps = n,
                  .correctors = correctors, .selfenergy = se, .order = order};
    int rc = kbe_create(&s, field(0.0), U, out);
    for (size_t i = 1; i <= n && !rc; i++)
        rc = kbe_step(*out, field((double)i * dt), U);
    return rc;
}

static int run(double dt, int order, kbe_selfenergy se, int correctors, double U, kbe **out)
{
    return run_to(T_END, dt, order, se, correctors, U, out);
}

/* the free case: the largest |G - G_exact| over both triangles, N's drift and the largest
 * |G^>(t, t) - G^<(t, t) + i| */
static double free_error(double dt, int order, const double complex *Uref, double ref_dt,
                         double *ndrift, double *anti)
{
    kbe *w = NULL;
    CHECK(run(dt, order, KBE_SELFENERGY_NONE, 0, 0.0, &w) == MCF_OK, "%s", mcf_last_error());
    if (!w)
        return INFINITY;
    const double err = free_error_of(w, dt, Uref, ref_dt, ndrift, anti);
    kbe_destroy(w);
    return err;
}

static double hf_error(double dt, int order, int correctors, double U,
                       const double complex *rref, double ref_dt)
{
    kbe *w = NULL;
    CHECK(run(dt, order, KBE_SELFENERGY_HF, correctors, U, &w) == MCF_OK, "%s",
          mcf_last_error());
    if (!w)
        return INFINITY;
    const size_t n = kbe_steps_done(w), stride = (size_t)llround(dt / ref_dt);
    double complex rho[4 * NK];
    double err = 0.0;
    for (size_t i = 0; i <= n; i++) {
        kbe_density(w, i, rho);
        for (int q = 0; q < 4 * NK; q++)
            err = fmax(err, cabs(rho[q] - rref[i * stride * 4 * NK + q]));
    }
    kbe_destroy(w);
    return err;
}

/* second Born (no closed form): G of every pair of the coarsest grid at dt = 0.08 / 2^q,
 * q = 0 .. 3, into g[q] (pairs i >= j of the 0.08 grid, t <= 2; lesser, greater) */
#define T_2B 2.0
#define N_2B 25 /* T_2B / 0.08 */
static void run_2b(int order, double complex (*g)[2][N_2B + 1][N_2B + 1][4 * NK])
{
    for (int q = 0; q < 4; q++) {
        const double dt = 0.08 / (double)(1 << q);
        kbe *w = NULL;
        CHECK(run_to(T_2B, dt, order, KBE_SELFENERGY_2B, 1, 1.0, &w) == MCF_OK, "%s",
              mcf_last_error());
        for (int lesser = 0; lesser < 2 && w; lesser++)
            for (size_t i = 0; i <= N_2B; i++)
                for (size_t j = 0; j <= i; j++)
                    kbe_green(w, lesser, i << q, j << q, g[q][lesser][i][j]);
        kbe_destroy(w);
    }
}

/* the ratios e(dt) / e(dt / 2) of one order against 2^p x [0.8, 1.25] */
static void ratios(const char *what, int p, const double *e)
{
    const double want = ldexp(1.0, p);
    for (int q = 0; q < 2; q++) {
        const double r = e[q] / e[q + 1];
        printf("%s, order %d: error ratio dt = %.2f / %.2f: %.3f (2^%d = %.0f)\n", what, p,
               dts[q], dts[q + 1], r, p, want);
        CHECK(r >= want * 0.8 && r <= want * 1.25, "%s, order %d: error ratio %.3f at dt = "
              "%g / %g, not %g x [0.8, 1.25]", what, p, r, dts[q], dts[q + 1], want);
    }
}

int main(void)
{
    const double ref_dt = dts[2];
    const size_t nout = (size_t)llround(T_END / ref_dt);
    double complex *ref = malloc((nout + 1) * 4 * NK * sizeof *ref), y0[4 * NK];
    double eps[2 * NK];
    double complex rho0[4 * NK];
    initial_state(rho0, eps);

    /* 1. U = 0 */
    for (size_t k = 0; k < NK; k++) {
        y0[4 * k] = y0[4 * k + 3] = 1.0;
        y0[4 * k + 1] = y0[4 * k + 2] = 0.0;
    }
    integrate(0, 0.0, y0, ref_dt, nout, ref);
    for (int p = 3; p <= 5; p++) {
        double e[3], drift = 0.0, anti = 0.0;
        for (int q = 0; q < 3; q++) {
            e[q] = free_error(dts[q], p, ref, ref_dt, &drift, &anti);
            printf("U = 0, order %d, dt = %.2f: max |G - G_exact| = %.3e, N drift %.1e, "
                   "max |G^> - G^< + i| %.1e\n", p, dts[q], e[q], drift, anti);
            CHECK(drift <= 1e-13 && anti <= 1e-13, "order %d, dt = %g: N drifts by %.2e, "
                  "G^> - G^< off -i by %.2e (> 1e-13)", p, dts[q], drift, anti);
        }
        ratios("U = 0", p, e);
    }

    /* 2. time-dependent Hartree-Fock, U = 1, one corrector pass */
    const double U = 1.0;
    integrate(1, U, rho0, ref_dt, nout, ref);
    for (int p = 3; p <= 5; p++) {
        double h[3];
        for (int q = 0; q < 3; q++) {
            h[q] = hf_error(dts[q], p, 1, U, ref, ref_dt);
            printf("HF, order %d, dt = %.2f: max |rho - rho_TDHF| = %.3e\n", p, dts[q], h[q]);
        }
        ratios("HF", p, h);
    }
    free(ref);

    /* 3. second Born, U = 1, one corrector pass: no closed form, so the differences of
     * successive halvings d_q = max |G_{dt/2^q} - G_{dt/2^{q+1}}| over the coarse pairs,
     * which fall as the error itself, 2^p per halving */
    double complex(*g)[2][N_2B + 1][N_2B + 1][4 * NK] = malloc(4 * sizeof *g);
    for (int p = 3; p <= 5 && g; p++) {
        run_2b(p, g);
        double d[3] = {0.0, 0.0, 0.0};
        for (int q = 0; q < 3; q++)
            for (int lesser = 0; lesser < 2; lesser++)
                for (size_t i = 0; i <= N_2B; i++)
                    for (size_t j = 0; j <= i; j++)
                        for (size_t x = 0; x < 4 * NK; x++)
                            d[q] = fmax(d[q], cabs(g[q][lesser][i][j][x] -
                                                   g[q + 1][lesser][i][j][x]));
        printf("2b, order %d: |G_dt - G_dt/2| at dt = 0.08, 0.04, 0.02: %.3e %.3e %.3e\n", p,
               d[0], d[1], d[2]);
        ratios("2b (successive differences)", p, d);
    }
    free(g);

    /* 4. refusals */
    kbe *w = NULL;
    for (int p = 1; p <= 6; p += 5)
        CHECK(run(0.1, p, KBE_SELFENERGY_NONE, 0, 0.0, &w) == MCF_EINVAL && !w,
              "order %d was taken", p);
    return check_exit();
}
