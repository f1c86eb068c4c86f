/* test_kbe_closed.c — the propagator of plugins/kbe against KadanoffBaym.jl's closed forms
 * (its test/kb.jl; issue 45's references), at every order p = 2 .. 5 (label physics):
 *
 * 1. Their two-time benchmark, i dL(t, t')/dt = cos(lambda t) L(t, t'), L(t, t) = const: in
 *    the two-band model with no bands (eps = 0), a dipole d = 1 and the drive E(t) =
 *    cos(lambda t), h(t) = cos(lambda t) sigma_x; from rho0 = |+><+| (the sigma_x = +1 state
 *    filled) G^<(t, t') = i |+><+| e^{-i phi}, G^>(t, t') = -i |-><-| e^{+i phi}, phi =
 *    (sin lambda t - sin lambda t') / lambda — every pair (t_i, t_j) of both triangles.
 *    lambda = 1 to t = 8 (phi spans 2 rad; kb.jl's lambda = 0.2 to t = 2 moves phi by 0.4 rad
 *    only, too little for the order to show at these steps).
 * 2. A Volterra equation through the collision integrals of a given self-energy: band v with
 *    eps_v = h0 and Sigma^>_vv(t, s) = -i c, Sigma^< = 0 (band c empty, uncoupled, d = 0), so
 *    the column y(t) = G^<_vv(t, 0) obeys i y' = h0 y + int_0^t (-i c) y(s) ds: y'' + i h0 y' +
 *    c y = 0, y(0) = i, y'(0) = h0 y(0) / i.  With alpha = h0 / 2, w = sqrt(c + alpha^2):
 *    y(t) = i e^{-i alpha t} [cos wt - i (alpha / w) sin wt] — at h0 = 0, i cos(sqrt(c) t),
 *    the homogeneous form of kb.jl's Volterra solution cos t + sin t (that one has a source
 *    term, which the KBE has not).  h0 = 0.5, c = 1, to t = 4.
 * Each: the largest error over the run at dt = 0.1, 0.05, 0.025 must fall by 2^p per halving,
 * the ratio within 2^p x [0.8, 1.25] (issue 45). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/error.h"

#define T_END 8.0
#define T_VOLTERRA 4.0 /* its integrals cost O(n^3): half the time, an eighth of the work */
static const double dts[3] = {0.1, 0.05, 0.025};
static const double lambda = 1.0, h0 = 0.5, cc = 1.0;

/* 1: the drive and the error over both triangles */
static double drive_error(double dt, int order)
{
    const double eps[2] = {0.0, 0.0};
    const double complex rho0[4] = {0.5, 0.5, 0.5, 0.5};
    const size_t n = (size_t)llround(T_END / dt);
    kbe_spec s = {.nk = 1, .eps = eps, .dipole = 1.0, .rho0 = rho0, .dt = dt, .steps = n,
                  .correctors = 0, .selfenergy = KBE_SELFENERGY_NONE, .order = order};
    kbe *w = NULL;
    int rc = kbe_create(&s, 1.0, 0.0, &w);
    for (size_t i = 1; i <= n && !rc; i++)
        rc = kbe_step(w, cos(lambda * (double)i * dt), 0.0);
    CHECK(rc == MCF_OK, "order %d, dt %g: %s", order, dt, mcf_last_error());
    if (rc) {
        kbe_destroy(w);
        return INFINITY;
    }
    double err = 0.0;
    double complex g[4];
    for (size_t i = 0; i <= n; i++)
        for (size_t j = 0; j <= n; j++) {
            const double phi = (sin(lambda * (double)i * dt) - sin(lambda * (double)j * dt)) /
                               lambda;
            const double complex el = 0.5 * I * cexp(-I * phi), eg = -0.5 * I * cexp(I * phi);
            kbe_green(w, 1, i, j, g);
            for (int q = 0; q < 4; q++)
                err = fmax(err, cabs(g[q] - el));
            kbe_green(w, 0, i, j, g);
            for (int q = 0; q < 4; q++) /* |-><-| = (1 - sigma_x) / 2 */
                err = fmax(err, cabs(g[q] - (q == 1 || q == 2 ? -eg : eg)));
        }
    kbe_destroy(w);
    return err;
}

/* 2: Sigma^>_vv = -i c, the rest 0 */
static void sigma(void *ctx, size_t i, size_t j, double complex *sl, double complex *sg)
{
    (void)ctx;
    (void)i;
    (void)j;
    for (int q = 0; q < 4; q++)
        sl[q] = sg[q] = 0.0;
    sg[0] = -I * cc;
}

static double volterra_error(double dt, int order)
{
    const double eps[2] = {h0, 0.0};
    const double complex rho0[4] = {1.0, 0.0, 0.0, 0.0};
    const size_t n = (size_t)llround(T_VOLTERRA / dt);
    kbe_spec s = {.nk = 1, .eps = eps, .dipole = 0.0, .rho0 = rho0, .dt = dt, .steps = n,
                  .correctors = 1, .selfenergy = KBE_SELFENERGY_GIVEN, .order = order,
                  .sigma = sigma};
    kbe *w = NULL;
    int rc = kbe_create(&s, 0.0, 0.0, &w);
    for (size_t i = 1; i <= n && !rc; i++)
        rc = kbe_step(w, 0.0, 0.0);
    CHECK(rc == MCF_OK, "order %d, dt %g: %s", order, dt, mcf_last_error());
    if (rc) {
        kbe_destroy(w);
        return INFINITY;
    }
    const double alpha = 0.5 * h0, om = sqrt(cc + alpha * alpha);
    double err = 0.0;
    double complex g[4];
    for (size_t i = 0; i <= n; i++) {
        const double t = (double)i * dt;
        const double complex y =
            I * cexp(-I * alpha * t) * (cos(om * t) - I * (alpha / om) * sin(om * t));
        kbe_green(w, 1, i, 0, g);
        err = fmax(err, cabs(g[0] - y));
    }
    kbe_destroy(w);
    return err;
}

static void check_order(const char *what, int p, const double *e)
{
    const double want = ldexp(1.0, p);
    for (int q = 0; q < 2; q++) {
        const double r = e[q] / e[q + 1];
        printf("%s, order %d: error %.3e at dt = %.3f, %.3e at %.3f: ratio %.3f (2^%d = %.0f)\n",
               what, p, e[q], dts[q], e[q + 1], dts[q + 1], r, p, want);
        CHECK(r >= want * 0.8 && r <= want * 1.25, "%s, order %d: error ratio %.3f at dt = "
              "%g / %g, not %g x [0.8, 1.25]", what, p, r, dts[q], dts[q + 1], want);
    }
}

int main(void)
{
    for (int p = 2; p <= 5; p++) {
        double e[3], v[3];
        for (int q = 0; q < 3; q++) {
            e[q] = drive_error(dts[q], p);
            v[q] = volterra_error(dts[q], p);
        }
        check_order("two-time benchmark (h = cos t sigma_x)", p, e);
        check_order("Volterra (Sigma^> = -i)", p, v);
    }
    return check_exit();
}
