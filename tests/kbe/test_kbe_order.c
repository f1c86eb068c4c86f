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
static const double two_pi = 6.28318530717958647692;
#define T_END 4.0
static const double dts[3] = {0.08, 0.04, 0.02};
static const double dipole = 0.4;

static double eps_v(size_t k) { return -1.0 + 0.4 * cos(two_pi * (double)k / NK); }
static double eps_c(size_t k) { return 1.0 - 0.3 * cos(two_pi * (double)k / NK); }
/* a few-cycle Gaussian pulse centred at t = 2 */
static double field(double t)
{
    const double s = t - 2.0;
    return 0.8 * exp(-s * s / (2.0 * 0.25)) * cos(3.0 * s);
}

/* h_k(t) of the crystal and the mean field of U n_v n_c from rho_loc (independent of the
 * library: the same physics written out) */
static void h_of(size_t k, double t, double U, const double complex *rl, double complex *h)
{
    const double f = field(t) * dipole;
    h[0] = eps_v(k) + U * creal(rl[3]);
    h[3] = eps_c(k) + U * creal(rl[0]);
    h[1] = f - U * rl[1];
    h[2] = f - U * rl[2];
}

static void mul2(const double complex *a, const double complex *b, double complex *c)
{
    c[0] = a[0] * b[0] + a[1] * b[2];
    c[1] = a[0] * b[1] + a[1] * b[3];
    c[2] = a[2] * b[0] + a[3] * b[2];
    c[3] = a[2] * b[1] + a[3] * b[3];
}

/* d/dt of (U_k or rho_k) for all k at time t: mode 0 propagators (-i h U, U = 0), mode 1
 * densities (-i [h, rho], with the mean field of the densities themselves) */
static void deriv(int mode, double t, double U, const double complex *y, double complex *dy)
{
    double complex rl[4] = {0, 0, 0, 0};
    if (mode == 1)
        for (size_t k = 0; k < NK; k++)
            for (int q = 0; q < 4; q++)
                rl[q] += y[4 * k + q] / NK;
    for (size_t k = 0; k < NK; k++) {
        double complex h[4], a[4], b[4];
        h_of(k, t, mode == 1 ? U : 0.0, rl, h);
        mul2(h, y + 4 * k, a);
        if (mode == 1) {
            mul2(y + 4 * k, h, b);
            for (int q = 0; q < 4; q++)
                dy[4 * k + q] = -I * (a[q] - b[q]);
        } else {
            for (int q = 0; q < 4; q++)
                dy[4 * k + q] = -I * a[q];
        }
    }
}

/* y at t_i = i * out_dt for i = 0 .. nout, by RK4 at out_dt / 64, into ys[(nout + 1) x 4 NK] */
static void integrate(int mode, double U, const double complex *y0, double out_dt, size_t nout,
                      double complex *ys)
{
    const int sub = 64;
    const double h = out_dt / sub;
    double complex y[4 * NK], k1[4 * NK], k2[4 * NK], k3[4 * NK], k4[4 * NK], tmp[4 * NK];
    memcpy(y, y0, sizeof y);
    memcpy(ys, y, sizeof y);
    for (size_t i = 0; i < nout; i++)
        for (int s = 0; s < sub; s++) {
            const double t = ((double)i * sub + s) * h;
            deriv(mode, t, U, y, k1);
            for (int q = 0; q < 4 * NK; q++)
                tmp[q] = y[q] + 0.5 * h * k1[q];
            deriv(mode, t + 0.5 * h, U, tmp, k2);
            for (int q = 0; q < 4 * NK; q++)
                tmp[q] = y[q] + 0.5 * h * k2[q];
            deriv(mode, t + 0.5 * h, U, tmp, k3);
            for (int q = 0; q < 4 * NK; q++)
                tmp[q] = y[q] + h * k3[q];
            deriv(mode, t + h, U, tmp, k4);
            for (int q = 0; q < 4 * NK; q++)
                y[q] += h / 6.0 * (k1[q] + 2.0 * k2[q] + 2.0 * k3[q] + k4[q]);
            if (s == sub - 1)
                memcpy(ys + (i + 1) * 4 * NK, y, sizeof y);
        }
}

static void initial_state(double complex *rho0, double *eps)
{
    for (size_t k = 0; k < NK; k++) {
        eps[2 * k] = eps_v(k);
        eps[2 * k + 1] = eps_c(k);
        /* mostly the filled valence band, with some coherence so that every element moves */
        rho0[4 * k + 0] = 0.9;
        rho0[4 * k + 1] = 0.2 * cexp(I * 0.3 * (double)k);
        rho0[4 * k + 2] = conj(rho0[4 * k + 1]);
        rho0[4 * k + 3] = 0.1;
    }
}

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
    double complex rho0[4 * NK];
    double eps[2 * NK];
    initial_state(rho0, eps);
    const size_t n = kbe_steps_done(w), stride = (size_t)llround(dt / ref_dt);
    double complex g[4 * NK], gl[4 * NK];
    double err = 0.0, N0 = 0.0;
    *ndrift = *anti = 0.0;
    for (size_t i = 0; i <= n; i++)
        for (size_t j = 0; j <= n; j++)
            for (int lesser = 0; lesser < 2; lesser++) {
                kbe_green(w, lesser, i, j, g);
                for (size_t k = 0; k < NK; k++) {
                    const double complex *Ui = Uref + (i * stride) * 4 * NK + 4 * k;
                    const double complex *Uj = Uref + (j * stride) * 4 * NK + 4 * k;
                    double complex m[4], a[4], ud[4], e[4];
                    for (int q = 0; q < 4; q++) /* rho0 or 1 - rho0 */
                        m[q] = lesser ? rho0[4 * k + q]
                                      : (q == 0 || q == 3 ? 1.0 : 0.0) - rho0[4 * k + q];
                    ud[0] = conj(Uj[0]);
                    ud[1] = conj(Uj[2]);
                    ud[2] = conj(Uj[1]);
                    ud[3] = conj(Uj[3]);
                    mul2(Ui, m, a);
                    mul2(a, ud, e);
                    for (int q = 0; q < 4; q++) {
                        const double complex ex = (lesser ? I : -I) * e[q];
                        err = fmax(err, cabs(g[4 * k + q] - ex));
                    }
                }
            }
    double complex rho[4 * NK];
    for (size_t i = 0; i <= n; i++) {
        kbe_density(w, i, rho);
        kbe_green(w, 0, i, i, g);
        kbe_green(w, 1, i, i, gl);
        double N = 0.0;
        for (size_t k = 0; k < NK; k++) {
            N += creal(rho[4 * k] + rho[4 * k + 3]);
            for (int q = 0; q < 4; q++)
                *anti = fmax(*anti, cabs(g[4 * k + q] - gl[4 * k + q] +
                                         (q == 0 || q == 3 ? I : 0.0)));
        }
        if (i == 0)
            N0 = N;
        *ndrift = fmax(*ndrift, fabs(N - N0) / N0);
    }
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
