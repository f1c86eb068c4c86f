/* kbe_free_reference.h — the system of test_kbe_free.c and test_kbe_order.c and its
 * references computed independently of plugins/kbe: a two-band crystal of NK k points (the
 * includer defines NK) with bands eps_v, eps_c, a
 * dipole coupling to a Gaussian pulse, the mean-field Hamiltonian of U n_v n_c written out
 * again, and RK4 of the one-time propagator or of time-dependent Hartree-Fock at 1/64 of the
 * output step. */
#ifndef MCF_KBE_FREE_REFERENCE_H
#define MCF_KBE_FREE_REFERENCE_H

#include <complex.h>
#include <math.h>
#include <stddef.h>

#include "kbe_core.h"

static const double two_pi = 6.28318530717958647692;
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

/* The largest |G^lg(t_i, t_j) - exact| of a run w at U = 0 with step dt over every pair,
 * k and band pair, against U(t_i) rho0 U(t_j)^dagger (times i) and U(t_i) (1 - rho0)
 * U(t_j)^dagger (times -i) of the propagators Uref on the grid ref_dt; *ndrift: the largest
 * |N(t) - N(0)| / N(0); *anti (if not NULL): the largest |G^>(t, t) - G^<(t, t) + i|. */
static double free_error_of(kbe *w, double dt, const double complex *Uref, double ref_dt,
                            double *ndrift, double *anti)
{
    double complex rho0[4 * NK];
    double eps[2 * NK];
    initial_state(rho0, eps);
    const size_t n = kbe_steps_done(w), stride = (size_t)llround(dt / ref_dt);
    double complex g[4 * NK], gl[4 * NK];
    double err = 0.0, N0 = 0.0;
    double anti_max = 0.0;
    *ndrift = 0.0;
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
                anti_max = fmax(anti_max, cabs(g[4 * k + q] - gl[4 * k + q] +
                                           (q == 0 || q == 3 ? I : 0.0)));
        }
        if (i == 0)
            N0 = N;
        *ndrift = fmax(*ndrift, fabs(N - N0) / N0);
    }
    if (anti)
        *anti = anti_max;
    return err;
}

#endif
