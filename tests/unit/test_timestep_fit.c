/* test_timestep_fit.c — DMC's extrapolation to zero time step (core/engine/timestep_fit.c,
 * mcfi_timestep_fit) against what least squares must give:
 *   (a) two time steps: the line through both, E0 = (t2 E1 - t1 E2) / (t2 - t1), and its
 *       error by propagation, sqrt(t2^2 s1^2 + t1^2 s2^2) / |t2 - t1| (to 1e-12 relative);
 *       no chi2 and no parabola (NaN);
 *   (b) four energies exactly on a line, unequal errors: E0 and the slope exact, chi2 0,
 *       p = 1, the parabola's E0 the same;
 *   (c) five noisy energies: the fit is the minimum of chi2 (moving E0 or the slope by a
 *       small step either way raises it), chi2_dof is the residuals' sum over n - 2, and the
 *       errors of E0 (line and parabola) are those of linear propagation, sqrt(sum c_i^2
 *       s_i^2) with c_i = dE0/dE_i found by refitting with E_i moved (a check of the
 *       covariance formulas by another route, to 1e-8 relative); three energies exactly
 *       on a parabola: its E0 exact;
 *   (d) zero variance (an exact energy at every time step, errors 0 or at rounding, 1e-17):
 *       E0 that energy, error 0;
 *       refusals: zero errors with energies that differ, some errors zero and others not, a
 *       NaN or negative error, a NaN energy, equal time steps, one time step. */
#include "check.h"
#include "mcf/error.h"
#include "timestep_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* chi2 of the line (e0, a) */
static double chi2_line(const double *t, const double *e, const double *s, size_t n,
                        double e0, double a)
{
    double c = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double d = (e[i] - e0 - a * t[i]) / s[i];
        c += d * d;
    }
    return c;
}

static void test_two(void)
{
    const double t[2] = {0.04, 0.01}, e[2] = {-0.70, -0.71}, s[2] = {0.001, 0.002};
    mcfi_timestep_line f;
    char why[256];
    CHECK(mcfi_timestep_fit(t, e, s, 2, &f, why, sizeof why) == MCF_OK, "(a) %s", why);
    const double e0 = (t[1] * e[0] - t[0] * e[1]) / (t[1] - t[0]);
    const double err = sqrt(t[1] * t[1] * s[0] * s[0] + t[0] * t[0] * s[1] * s[1]) /
                       fabs(t[1] - t[0]);
    const double slope = (e[0] - e[1]) / (t[0] - t[1]);
    printf("(a) two time steps: E0 %.12f +- %.3g (exact %.12f +- %.3g), slope %.6f\n", f.e0,
           f.e0_err, e0, err, f.slope);
    CHECK(rel(f.e0, e0) < 1e-12 && rel(f.e0_err, err) < 1e-12 && rel(f.slope, slope) < 1e-12,
          "(a) E0 %.15g +- %.15g, slope %.15g; exact %.15g +- %.15g, %.15g", f.e0, f.e0_err,
          f.slope, e0, err, slope);
    CHECK(isnan(f.chi2_dof) && isnan(f.p_value) && isnan(f.q0) && isnan(f.q0_err),
          "(a) chi2 %g, p %g, parabola %g +- %g with two points", f.chi2_dof, f.p_value, f.q0,
          f.q0_err);
}

static void test_exact_line(void)
{
    const double t[4] = {0.125, 0.0625, 0.03125, 0.015625}, s[4] = {3e-4, 5e-4, 8e-4, 1.3e-3};
    double e[4];
    for (int i = 0; i < 4; i++)
        e[i] = -1.11 + 0.25 * t[i];
    mcfi_timestep_line f;
    char why[256];
    CHECK(mcfi_timestep_fit(t, e, s, 4, &f, why, sizeof why) == MCF_OK, "(b) %s", why);
    printf("(b) on a line: E0 %.15f, slope %.15f, chi2/dof %.3g, p %.3g, parabola %.15f\n",
           f.e0, f.slope, f.chi2_dof, f.p_value, f.q0);
    CHECK(fabs(f.e0 + 1.11) < 1e-13 && fabs(f.slope - 0.25) < 1e-11 && f.chi2_dof < 1e-20 &&
              fabs(f.p_value - 1.0) < 1e-12 && fabs(f.q0 + 1.11) < 1e-11,
          "(b) E0 %.15g slope %.15g chi2 %g p %g parabola %.15g", f.e0, f.slope, f.chi2_dof,
          f.p_value, f.q0);
}

/* E0 of the fit (line: 0, parabola: 1) of e */
static double e0_of(const double *t, const double *e, const double *s, size_t n, int quad)
{
    mcfi_timestep_line f;
    char why[256];
    if (mcfi_timestep_fit(t, e, s, n, &f, why, sizeof why))
        return NAN;
    return quad ? f.q0 : f.e0;
}

static void test_noisy(void)
{
    const double t[5] = {0.1, 0.08, 0.05, 0.02, 0.01}, s[5] = {4e-4, 6e-4, 5e-4, 9e-4, 1.2e-3};
    const double noise[5] = {0.8, -1.3, 0.4, 1.1, -0.6};
    double e[5];
    for (int i = 0; i < 5; i++)
        e[i] = -0.7 + 0.03 * t[i] + 0.2 * t[i] * t[i] + noise[i] * s[i];
    mcfi_timestep_line f;
    char why[256];
    CHECK(mcfi_timestep_fit(t, e, s, 5, &f, why, sizeof why) == MCF_OK, "(c) %s", why);
    const double c0 = chi2_line(t, e, s, 5, f.e0, f.slope);
    int minimum = 1;
    for (int k = 0; k < 4; k++) {
        const double d = (k & 1 ? -1.0 : 1.0) * 1e-5;
        minimum &= chi2_line(t, e, s, 5, f.e0 + (k < 2 ? d : 0.0), f.slope + (k < 2 ? 0.0 : d))
                   > c0;
    }
    CHECK(minimum, "(c) the line is not chi2's minimum");
    CHECK(rel(f.chi2_dof, c0 / 3.0) < 1e-12, "(c) chi2_dof %.15g, residuals %.15g", f.chi2_dof,
          c0 / 3.0);
    /* the errors by propagation: c_i = dE0/dE_i (E0 is linear in the energies) */
    for (int quad = 0; quad < 2; quad++) {
        double var = 0.0;
        const double base = e0_of(t, e, s, 5, quad);
        for (int i = 0; i < 5; i++) {
            double moved[5];
            memcpy(moved, e, sizeof moved);
            moved[i] += 1e-3;
            const double ci = (e0_of(t, moved, s, 5, quad) - base) / 1e-3;
            var += ci * ci * s[i] * s[i];
        }
        const double got = quad ? f.q0_err : f.e0_err;
        printf("(c) %s: E0 %.8f +- %.6g (propagation %.6g)%s\n", quad ? "parabola" : "line",
               quad ? f.q0 : f.e0, got, sqrt(var), quad ? "" : "");
        CHECK(rel(got, sqrt(var)) < 1e-8, "(c) %s: E0's error %.12g, by propagation %.12g",
              quad ? "parabola" : "line", got, sqrt(var));
    }
    printf("(c) chi2/dof %.4f, p %.4f\n", f.chi2_dof, f.p_value);
    CHECK(f.p_value > 0.0 && f.p_value < 1.0, "(c) p %g", f.p_value);
    /* on a parabola: its E0 exact */
    const double tp[3] = {0.12, 0.06, 0.03}, sp[3] = {1e-3, 2e-3, 3e-3};
    double ep[3];
    for (int i = 0; i < 3; i++)
        ep[i] = -0.5 + 0.1 * tp[i] - 2.0 * tp[i] * tp[i];
    const double q = e0_of(tp, ep, sp, 3, 1);
    CHECK(fabs(q + 0.5) < 1e-11, "(c) the parabola's E0 %.15g, not -0.5", q);
}

static void test_exact_and_refusals(void)
{
    const double t[3] = {0.1, 0.05, 0.025}, zero[3] = {0, 0, 0}, e[3] = {-2.5, -2.5, -2.5};
    mcfi_timestep_line f;
    char why[256];
    CHECK(mcfi_timestep_fit(t, e, zero, 3, &f, why, sizeof why) == MCF_OK && f.e0 == -2.5 &&
              f.e0_err == 0.0 && f.q0 == -2.5,
          "(d) zero variance: E0 %g +- %g", f.e0, f.e0_err);
    /* errors at the rounding of the mean (the free gas's 7e-18), energies equal to it */
    const double tiny[3] = {7e-18, 6e-18, 8e-18},
                 er[3] = {-2.5, -2.5 + 4.4e-16, -2.5 - 4.4e-16};
    CHECK(mcfi_timestep_fit(t, er, tiny, 3, &f, why, sizeof why) == MCF_OK &&
              fabs(f.e0 + 2.5) < 1e-15 && f.e0_err == 0.0,
          "(d) rounding-level errors: E0 %.17g +- %g", f.e0, f.e0_err);
    const double e2[3] = {-2.5, -2.5, -2.4}, some[3] = {0, 1e-3, 1e-3},
                 bad[3] = {1e-3, NAN, 1e-3}, neg[3] = {1e-3, -1e-3, 1e-3},
                 enan[3] = {-2.5, NAN, -2.5}, tsame[3] = {0.1, 0.1, 0.1},
                 ok[3] = {1e-3, 1e-3, 1e-3};
    const struct {
        const double *t, *e, *s;
        size_t n;
        const char *needle;
    } cases[] = {
        {t, e2, zero, 3, "differ"},          {t, e, some, 3, "zero error"},
        {t, e, bad, 3, "no error estimate"}, {t, e, neg, 3, "no error estimate"},
        {t, enan, ok, 3, "energy"},          {tsame, e, ok, 3, "all equal"},
        {t, e, ok, 1, "one time step"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        why[0] = '\0';
        const int rc = mcfi_timestep_fit(cases[k].t, cases[k].e, cases[k].s, cases[k].n, &f,
                                         why, sizeof why);
        printf("(d) case %zu: %s\n", k, why);
        CHECK(rc == MCF_EINVAL && strstr(why, cases[k].needle) && isnan(f.e0),
              "(d) case %zu: rc %d, '%s' (expected '%s')", k, rc, why, cases[k].needle);
    }
}

int main(void)
{
    test_two();
    test_exact_line();
    test_noisy();
    test_exact_and_refusals();
    return check_exit();
}
