/* test_kbe_free.c — the two-time propagator of plugins/kbe (mcf_kbe_core) without a
 * correlation self-energy, against references computed here independently (label physics):
 *
 * 1. U = 0 with a pulse: every G^<(t_i, t_j) and G^>(t_i, t_j) (both triangles, every k and
 *    band pair) against i U(t_i) rho0 U(t_j)^dagger and -i U(t_i) (1 - rho0) U(t_j)^dagger,
 *    U_k(t) the one-time propagator integrated by RK4 at 1/64 of the finest step.  The
 *    scheme is second order, so the largest error must fall by 2^2 per halving of dt, the
 *    ratio within 4 x [0.8, 1.25] (issue 45), at dt = 0.04, 0.02, 0.01.  N(t) = sum_k tr rho_k
 *    is kept by the unitary step to rounding: |N(t) - N(0)| <= 4 n eps N (n steps).
 * 2. Time-dependent Hartree-Fock: rho_k(t_n) = -i G^<(t_n, t_n) against i d rho_k/dt =
 *    [h_k(t, rho^loc), rho_k] integrated by RK4 at 1/64 of the finest step (the mean-field
 *    Hamiltonian written out again here, not taken from the library): second order with 2
 *    corrector passes (ratio 4 x [0.8, 1.25]), first order with none (ratio 2 x [0.8, 1.25]:
 *    the predictor's h(t_{n+1}) is off by O(dt)).
 * 3. The thermal initial state kbe_rho_thermal (f(h_k): commutes with h_k, occupations f(e-)
 *    and f(e+), stationary under a constant h to 1e-13), and refused input: rho0 not
 *    Hermitian, occupations outside [0, 1], storage over the limit, a step past the storage, a
 *    non-finite drive, T < 0. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/error.h"

#define NK 6
#define T_END 4.0
static const double dts[3] = {0.04, 0.02, 0.01};
#include "kbe_free_reference.h"

static int run(double dt, kbe_selfenergy se, int correctors, double U, kbe **out)
{
    double eps[2 * NK];
    double complex rho0[4 * NK];
    initial_state(rho0, eps);
    const size_t n = (size_t)llround(T_END / dt);
    kbe_spec s = {.nk = NK, .eps = eps, .dipole = dipole, .rho0 = rho0, .dt = dt, .steps = n,
                  .correctors = correctors, .selfenergy = se};
    int rc = kbe_create(&s, field(0.0), U, out);
    for (size_t i = 1; i <= n && !rc; i++)
        rc = kbe_step(*out, field((double)i * dt), U);
    return rc;
}

/* the free case: the largest |G - G_exact| over both triangles, and N's drift */
static double free_error(double dt, const double complex *Uref, double ref_dt, double *ndrift)
{
    kbe *w = NULL;
    CHECK(run(dt, KBE_SELFENERGY_NONE, 0, 0.0, &w) == MCF_OK, "%s", mcf_last_error());
    if (!w)
        return INFINITY;
    const double err = free_error_of(w, dt, Uref, ref_dt, ndrift, NULL);
    kbe_destroy(w);
    return err;
}

static double hf_error(double dt, int correctors, double U, const double complex *rref,
                       double ref_dt)
{
    kbe *w = NULL;
    CHECK(run(dt, KBE_SELFENERGY_HF, correctors, U, &w) == MCF_OK, "%s", mcf_last_error());
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

/* kbe_rho_thermal: f(h_k) of h_k = diag(eps) + E0d sigma_x commutes with h_k, has the
 * occupations f(e-), f(e+) (trace and determinant), is a projector at T = 0 with mu in the
 * gap, and stays put under U = 0 and a constant field (the step is exact for a constant h) */
static void thermal(void)
{
    double eps[2 * NK];
    double complex rho[4 * NK], r1[4 * NK];
    initial_state(rho, eps);
    const double E0d = 0.3, cases[3][2] = {{0.1, 0.0}, {0.2, 0.4}, {-0.9, 0.05}};
    for (int c = 0; c < 3; c++) {
        const double mu = cases[c][0], T = cases[c][1];
        CHECK(kbe_rho_thermal(NK, eps, E0d, mu, T, rho) == MCF_OK, "%s", mcf_last_error());
        double err = 0.0;
        for (size_t k = 0; k < NK; k++) {
            const double complex h[4] = {eps[2 * k], E0d, E0d, eps[2 * k + 1]};
            double complex a[4], b[4];
            mul2(h, rho + 4 * k, a);
            mul2(rho + 4 * k, h, b);
            for (int q = 0; q < 4; q++)
                err = fmax(err, cabs(a[q] - b[q]));
            const double m = 0.5 * (eps[2 * k] + eps[2 * k + 1]);
            const double r = hypot(0.5 * (eps[2 * k] - eps[2 * k + 1]), E0d);
            double f[2];
            for (int s = 0; s < 2; s++) {
                const double e = m + (s ? r : -r);
                f[s] = T > 0.0 ? 1.0 / (1.0 + exp((e - mu) / T)) : e < mu ? 1.0 : 0.0;
            }
            const double complex *p = rho + 4 * k;
            err = fmax(err, cabs(p[0] + p[3] - (f[0] + f[1])));
            err = fmax(err, cabs(p[0] * p[3] - p[1] * p[2] - f[0] * f[1]));
        }
        CHECK(err < 1e-14, "thermal state mu = %g, T = %g: off by %.2e", mu, T, err);
        kbe_spec s = {.nk = NK, .eps = eps, .dipole = 1.0, .rho0 = rho, .dt = 0.05, .steps = 100,
                      .correctors = 0, .selfenergy = KBE_SELFENERGY_NONE};
        kbe *w = NULL;
        int rc = kbe_create(&s, E0d, 0.0, &w);
        for (int i = 0; i < 100 && !rc; i++)
            rc = kbe_step(w, E0d, 0.0);
        CHECK(rc == MCF_OK, "%s", mcf_last_error());
        double drift = 0.0;
        if (!rc) {
            kbe_density(w, 100, r1);
            for (size_t q = 0; q < 4 * NK; q++)
                drift = fmax(drift, cabs(r1[q] - rho[q]));
        }
        kbe_destroy(w);
        printf("thermal state mu = %g, T = %g: [h, rho], trace and determinant within %.1e; "
               "moves by %.1e in 100 steps of a constant field\n", mu, T, err, drift);
        CHECK(drift < 1e-13, "the thermal state moved by %.2e under a constant h", drift);
    }
    CHECK(kbe_rho_thermal(NK, eps, E0d, 0.0, -1.0, rho) == MCF_EINVAL, "T < 0 accepted");
}

static void refusals(void)
{
    double eps[2 * NK];
    double complex rho0[4 * NK];
    initial_state(rho0, eps);
    kbe *w = NULL;
    kbe_spec s = {.nk = NK, .eps = eps, .dipole = dipole, .rho0 = rho0, .dt = 0.1, .steps = 2,
                  .correctors = 1, .selfenergy = KBE_SELFENERGY_HF};
    rho0[1] += 0.1; /* no longer Hermitian */
    CHECK(kbe_create(&s, 0.0, 1.0, &w) == MCF_EINVAL && !w &&
              strstr(mcf_last_error(), "not Hermitian"),
          "a non-Hermitian rho0: %s", mcf_last_error());
    initial_state(rho0, eps);
    rho0[0] = 1.3; /* an occupation above 1 */
    CHECK(kbe_create(&s, 0.0, 1.0, &w) == MCF_EINVAL && strstr(mcf_last_error(), "outside"),
          "occupations outside [0, 1]: %s", mcf_last_error());
    initial_state(rho0, eps);
    s.memory_limit = kbe_storage_bytes(NK, 2) - 1;
    CHECK(kbe_create(&s, 0.0, 1.0, &w) == MCF_ENOMEM && strstr(mcf_last_error(), "GB"),
          "storage over the limit: %s", mcf_last_error());
    s.memory_limit = 0;
    CHECK(kbe_create(&s, 0.0, 1.0, &w) == MCF_OK, "%s", mcf_last_error());
    CHECK(kbe_step(w, NAN, 1.0) == MCF_EINVAL && kbe_steps_done(w) == 0,
          "a non-finite drive: %s", mcf_last_error());
    CHECK(kbe_step(w, 0.1, 1.0) == MCF_OK && kbe_step(w, 0.1, 1.0) == MCF_OK &&
              kbe_step(w, 0.1, 1.0) == MCF_EINVAL && kbe_steps_done(w) == 2,
          "a step past the storage: %s", mcf_last_error());
    kbe_destroy(w);
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
    double e[3], drift[3];
    for (int q = 0; q < 3; q++) {
        e[q] = free_error(dts[q], ref, ref_dt, &drift[q]);
        const double n = T_END / dts[q];
        printf("U = 0, dt = %.2f: max |G - G_exact| = %.3e, max |N(t) - N(0)| / N = %.1e\n",
               dts[q], e[q], drift[q]);
        CHECK(drift[q] <= 4.0 * n * DBL_EPSILON, "dt = %g: N drifts by %.2e > 4 n eps = %.2e",
              dts[q], drift[q], 4.0 * n * DBL_EPSILON);
    }
    for (int q = 0; q < 2; q++) {
        const double r = e[q] / e[q + 1];
        printf("U = 0: error ratio dt = %.2f / %.2f: %.3f (second order: 4)\n", dts[q],
               dts[q + 1], r);
        CHECK(r >= 4.0 * 0.8 && r <= 4.0 * 1.25, "U = 0: error ratio %.3f at dt = %g / %g is "
              "not second order (4 x [0.8, 1.25])", r, dts[q], dts[q + 1]);
    }

    /* 2. time-dependent Hartree-Fock, U = 1 */
    const double U = 1.0;
    integrate(1, U, rho0, ref_dt, nout, ref);
    const int corr[2] = {2, 0};
    const double order[2] = {4.0, 2.0};
    for (int c = 0; c < 2; c++) {
        double h[3];
        for (int q = 0; q < 3; q++) {
            h[q] = hf_error(dts[q], corr[c], U, ref, ref_dt);
            printf("HF, %d correctors, dt = %.2f: max |rho - rho_TDHF| = %.3e\n", corr[c],
                   dts[q], h[q]);
        }
        for (int q = 0; q < 2; q++) {
            const double r = h[q] / h[q + 1];
            printf("HF, %d correctors: error ratio dt = %.2f / %.2f: %.3f (expected %.0f)\n",
                   corr[c], dts[q], dts[q + 1], r, order[c]);
            CHECK(r >= order[c] * 0.8 && r <= order[c] * 1.25, "HF with %d correctors: error "
                  "ratio %.3f at dt = %g / %g, not %g x [0.8, 1.25]", corr[c], r, dts[q],
                  dts[q + 1], order[c]);
        }
    }
    free(ref);

    /* 3. the thermal initial state, refusals */
    thermal();
    refusals();
    return check_exit();
}
