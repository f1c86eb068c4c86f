/* test_kbe_embed.c — the collision integrals of plugins/kbe against an exact embedding (issue
 * 45's reference after NESSi's libcntr/test/dyson.cpp, in real time; label physics).
 *
 * An orbital 1 (energy e1, occupation n1 at t = 0) coupled from t = 0 by lambda to an orbital
 * 2 (energy e2, occupation f2, no coherence between them at t = 0).  Exactly, with
 * H = [[e1, lambda], [lambda, e2]] and rho0 = diag(n1, f2),
 *     G^<_11(t, t') = i [U(t) rho0 U(t')^dagger]_11,  G^>_11 = -i [U(t) (1 - rho0) U(t')^dagger]_11,
 * U(t) = exp(-i H t).  The same element solves the Kadanoff-Baym equations of orbital 1 alone
 * with the embedding self-energy Sigma = lambda^2 g_2 of the free orbital 2,
 *     g_2^<(t, t') = i f2 e^{-i e2 (t - t')},  g_2^>(t, t') = -i (1 - f2) e^{-i e2 (t - t')},
 * exact for a bath coupled linearly to an uncorrelated start.  The library propagates it with
 * KBE_SELFENERGY_GIVEN (band 0 = orbital 1; band 1 a spectator level e_d, empty, uncoupled).
 * Checks at t <= 5, every pair (t_i, t_j):
 *  - band 0's G^< and G^> against the exact element; the error falls at order p: e(h) / e(h/2)
 *    within 2^p x [0.8, 1.25] for h = 0.1 -> 0.05 -> 0.025, p = 2 (the trapezoid for the
 *    integrals, the exponential integrator) and p = 3 .. 5 (kbe_bdf.c: BDF-p, Gregory's
 *    weights of order p, the start block of kbe_start.c);
 *  - the off-diagonal blocks 0 to 1e-13 (nothing couples them), and the spectator's G^> =
 *    -i e^{-i e_d (t - t')}, G^< = 0: to 1e-13 at p = 2 (the exponential integrator is exact
 *    for a constant h), at order p otherwise (BDF is not: the same ratio as G_11);
 *  - a given self-energy without its function is refused. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/error.h"

static const double e1 = 0.3, e2 = -0.5, lam = 0.4, n1 = 0.7, f2 = 0.2, e_d = 1.1;
static const double t_end = 5.0;

typedef struct bath {
    double dt;
} bath;

/* Sigma(t_i, t_j) = lambda^2 g_2 on band 0's diagonal, 0 elsewhere (nk = 1) */
static void sigma(void *ctx, size_t i, size_t j, double complex *sl, double complex *sg)
{
    const bath *b = ctx;
    const double complex ph = cexp(-I * e2 * b->dt * ((double)i - (double)j));
    for (int q = 0; q < 4; q++)
        sl[q] = sg[q] = 0.0;
    sl[0] = lam * lam * I * f2 * ph;
    sg[0] = lam * lam * -I * (1.0 - f2) * ph;
}

/* U(t) = exp(-i H t) of the real symmetric 2 x 2 H, row-major */
static void propagator(double t, double complex *u)
{
    const double m = 0.5 * (e1 + e2), d = 0.5 * (e1 - e2), w = sqrt(d * d + lam * lam);
    const double complex ph = cexp(-I * m * t), c = cos(w * t), s = -I * sin(w * t) / w;
    u[0] = ph * (c + s * d);
    u[1] = ph * s * lam;
    u[2] = ph * s * lam;
    u[3] = ph * (c - s * d);
}

/* the exact [U(t) r U(t')^dagger]_00 of r = diag(r0, r1) */
static double complex element(double t, double tp, double r0, double r1)
{
    double complex a[4], b[4];
    propagator(t, a);
    propagator(tp, b);
    return a[0] * r0 * conj(b[0]) + a[1] * r1 * conj(b[1]);
}

/* one run at step h: the largest error of band 0 over all pairs (into *err), of the spectator
 * (into *spec) and of the off-diagonal blocks (into *other) */
static int run(double h, int order, double *err, double *spec, double *other)
{
    const size_t n = (size_t)llround(t_end / h);
    const double eps[2] = {e1, e_d};
    const double complex rho0[4] = {n1, 0.0, 0.0, 0.0};
    bath b = {h};
    const kbe_spec s = {.nk = 1, .eps = eps, .dipole = 0.0, .rho0 = rho0, .dt = h, .steps = n,
                        .correctors = 2, .selfenergy = KBE_SELFENERGY_GIVEN, .sigma = sigma,
                        .sigma_ctx = &b, .order = order};
    kbe *w = NULL;
    int rc = kbe_create(&s, 0.0, 0.0, &w);
    for (size_t k = 0; k < n && !rc; k++)
        rc = kbe_step(w, 0.0, 0.0);
    *err = *spec = *other = 0.0;
    double complex g[4];
    for (size_t i = 0; i <= n && !rc; i++)
        for (size_t j = 0; j <= i; j++) {
            const double t = (double)i * h, tp = (double)j * h;
            for (int lesser = 0; lesser < 2; lesser++) {
                kbe_green(w, lesser, i, j, g);
                const double complex ex = lesser ? I * element(t, tp, n1, f2)
                                                 : -I * element(t, tp, 1.0 - n1, 1.0 - f2);
                const double complex spect = lesser ? 0.0 : -I * cexp(-I * e_d * (t - tp));
                *err = fmax(*err, cabs(g[0] - ex));
                *spec = fmax(*spec, cabs(g[3] - spect));
                *other = fmax(*other, fmax(cabs(g[1]), cabs(g[2])));
            }
        }
    kbe_destroy(w);
    return rc;
}

int main(void)
{
    const double h[3] = {0.1, 0.05, 0.025};
    for (int p = 2; p <= 5; p++) {
        double e[3], sp[3], o[3];
        for (int q = 0; q < 3; q++) {
            CHECK(run(h[q], p, &e[q], &sp[q], &o[q]) == MCF_OK, "h = %g: %s", h[q],
                  mcf_last_error());
            printf("embedding, order %d, h = %-5g: max |G_11 - exact| over all pairs %.3e, "
                   "spectator %.3e, off-diagonal %.1e\n", p, h[q], e[q], sp[q], o[q]);
            CHECK(o[q] <= 1e-13 && (p > 2 || sp[q] <= 1e-13), "h = %g: the uncoupled blocks "
                  "moved by %.2e, the spectator by %.2e", h[q], o[q], sp[q]);
        }
        const double want = ldexp(1.0, p);
        for (int q = 0; q < 2; q++)
            for (int c = 0; c < (p > 2 ? 2 : 1); c++) {
                const double r = c ? sp[q] / sp[q + 1] : e[q] / e[q + 1];
                const char *what = c ? "the spectator" : "G_11";
                printf("embedding, order %d: %s's error ratio h = %g -> %g: %.3f (2^%d = "
                       "%.0f)\n", p, what, h[q], h[q + 1], r, p, want);
                CHECK(r >= 0.8 * want && r <= 1.25 * want, "order %d: %s's error falls by %.3f "
                      "from h = %g to %g, not %g x [0.8, 1.25]", p, what, r, h[q], h[q + 1],
                      want);
            }
    }
    /* a given self-energy needs its function */
    const double eps[2] = {e1, e_d};
    const double complex rho0[4] = {n1, 0.0, 0.0, 0.0};
    const kbe_spec bad = {.nk = 1, .eps = eps, .rho0 = rho0, .dt = 0.1, .steps = 2,
                          .correctors = 1, .selfenergy = KBE_SELFENERGY_GIVEN};
    kbe *w = NULL;
    CHECK(kbe_create(&bad, 0.0, 0.0, &w) == MCF_EINVAL && !w,
          "a given self-energy without its function was taken");
    return check_exit();
}
