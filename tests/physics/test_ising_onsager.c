/* test_ising_onsager — the L x L periodic Ising model (J = 1, h = 0) against Onsager's
 * exact infinite-lattice results at T = 1.8, 2.0 (ordered) and 3.0, 3.5 (disordered).
 *
 * Energy per site (Onsager 1944), with K = beta J:
 *     u(T) = -J coth(2K) [1 + (2/pi) (2 tanh^2(2K) - 1) K1(k)],   k = 2 sinh(2K) / cosh^2(2K),
 * K1(k) = int_0^{pi/2} dphi (1 - k^2 sin^2 phi)^{-1/2} the complete elliptic integral of
 * the first kind of MODULUS k.  GSL's gsl_sf_ellint_Kcomp(k, mode) takes the modulus k
 * (not the parameter m = k^2), so it is called with k itself, in double precision.
 * Spontaneous magnetization (Onsager, Yang 1952), T < Tc:
 *     m0(T) = (1 - sinh^{-4}(2K))^{1/8}.
 *
 * Finite size.  Away from Tc, the corrections on an L x L torus to the energy per site and
 * to <|m|> (below Tc) decay as exp(-L/xi) times at most a power of L, with xi the exact
 * correlation length of the infinite lattice (Onsager; McCoy & Wu):
 *     T > Tc:  1/xi = ln coth K - 2K          (T = 3.0: xi = 2.14;  T = 3.5: xi = 1.41)
 *     T < Tc:  1/xi = 4K + 2 ln tanh K        (T = 2.0: xi = 2.19;  T = 1.8: xi = 1.17)
 * (below Tc this is also twice the interface tension per unit length over T, so the
 * states with two interfaces across the torus that tunnel between +m0 and -m0 weigh
 * ~ L^2 exp(-L/xi) too).  We allow the generous bound  L^2 exp(-L/xi(T))  explicitly in
 * the tolerance; with L = 48 it is < 1e-6 at every T here, three orders of magnitude
 * below the statistical errors, so the test checks Onsager's numbers, not the bound.
 * Tolerance: |mc - exact| <= 4 err + L^2 exp(-L/xi).
 *
 * The chains start ordered (all +1): a random start quenched to T = 1.8 on a torus can
 * freeze into a long-lived striped state with two straight domain walls, which would bias
 * <|m|> far beyond its error bar; from the ordered start the high-T chains disorder
 * within a few sweeps (xi <= 2.2).
 *
 * Usage: test_ising_onsager PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#include <gsl/gsl_errno.h>

#include "ising_exact.h" /* onsager_energy(), shared with test_tempering */

#define LSIZE 48

static double onsager_magnetization(double T)
{
    const double s = sinh(2.0 / T);
    return pow(1.0 - 1.0 / (s * s * s * s), 0.125);
}

/* ln Z / N of the infinite lattice (Onsager's double integral, midpoint rule, which
 * converges exponentially for this smooth periodic integrand away from Tc). */
static double log_z_per_site(double beta)
{
    const int n = 200;
    const double c2 = cosh(2 * beta), s2 = sinh(2 * beta);
    double sum = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double t1 = M_PI * (i + 0.5) / n, t2 = M_PI * (j + 0.5) / n;
            sum += log(c2 * c2 - s2 * (cos(t1) + cos(t2)));
        }
    return log(2.0) + 0.5 * sum / ((double)n * n);
}

/* u = -d(ln Z/N)/d beta by a central difference: an independent check of the elliptic
 * form and of GSL's modulus convention. */
static double energy_by_quadrature(double T)
{
    const double h = 1e-5;
    return -(log_z_per_site(1.0 / T + h) - log_z_per_site(1.0 / T - h)) / (2 * h);
}

/* The exact correlation length of the infinite lattice (see the header comment). */
static double correlation_length(double T, double Tc)
{
    const double K = 1.0 / T;
    if (T > Tc)
        return 1.0 / (log(1.0 / tanh(K)) - 2.0 * K);
    return 1.0 / (4.0 * K + 2.0 * log(tanh(K)));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    /* A GSL domain error gives NAN (and a failed check) instead of aborting. */
    gsl_set_error_handler_off();
    const double Tc = 2.0 / log(1.0 + sqrt(2.0));
    const double temps[] = {1.8, 2.0, 3.0, 3.5};

    /* The formulas and GSL's convention, checked independently:
     *   K1(k = 1/sqrt 2) = 1.8540746773 (GSL's argument is the modulus k; were it the
     *   parameter m = k^2, the value would be K(m = 1/sqrt 2) = 2.0860);
     *   u(Tc-) = -sqrt 2 (at T = Tc (1 - 1e-7), u + sqrt 2 = -2e-6: the approach is
 *   ~ (Tc - T) ln(Tc - T); closer, k rounds to 1 and K1(k) is a domain error);
     *   u(T) = -d(ln Z/N)/d(beta) from Onsager's double integral, at every test T;
     *   m0(1) = (1 - sinh(2)^-4)^(1/8) = 0.999276. */
    CHECK(fabs(gsl_sf_ellint_Kcomp(M_SQRT1_2, GSL_PREC_DOUBLE) - 1.8540746773) < 1e-9,
          "K1(1/sqrt 2) = %.12f", gsl_sf_ellint_Kcomp(M_SQRT1_2, GSL_PREC_DOUBLE));
    CHECK(fabs(onsager_energy(Tc * (1 - 1e-7)) + sqrt(2.0)) < 1e-5, "u(Tc-) = %.9f",
          onsager_energy(Tc * (1 - 1e-7)));
    for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
        const double T = temps[k];
        CHECK(fabs(onsager_energy(T) - energy_by_quadrature(T)) < 1e-8,
              "u(%g): elliptic form %.10f, quadrature %.10f", T, onsager_energy(T),
              energy_by_quadrature(T));
    }
    CHECK(fabs(onsager_magnetization(1.0) - 0.999276) < 1e-6, "m0(1) = %.9f",
          onsager_magnetization(1.0));

    /* 48^2 = 2304 spins, 4 temperatures, 2000 + 20000 sweeps: 2.0e8 flips.  The energy's
     * autocorrelation time is a few sweeps here, its blocking error ~ 5e-4. */
    char sections[512];
    snprintf(sections, sizeof sections,
             "[schedule]\n"
             "thermalize = 2000\n"
             "sweeps = 20000\n"
             "measure_every = 1\n"
             "temperatures = 1.8, 2.0, 3.0, 3.5\n"
             "\n[model]\n"
             "L = %d\n"
             "boundary = periodic\n"
             "start = ordered\n",
             LSIZE);
    phys_table t;
    if (phys_run_mcf(argv[1], "ising_onsager", "ising", 1944ull, sections, &t)) {
        CHECK(0, "mcf run failed");
        return check_exit();
    }
    CHECK(t.nrows == 4, "results.tsv has %zu rows, expected 4", t.nrows);

    for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
        const double T = temps[k];
        long row = phys_find_row(&t, "T", T);
        CHECK(row >= 0, "no row for T = %g", T);
        if (row < 0)
            continue;
        const size_t r = (size_t)row;
        const double xi = correlation_length(T, Tc);
        const double bound = (double)LSIZE * LSIZE * exp(-LSIZE / xi);
        printf("T = %g: xi = %.3f, finite-size bound L^2 exp(-L/xi) = %.2e (acceptance %.3f)\n",
               T, xi, bound, phys_get(&t, r, "acceptance"));
        phys_compare("energy per site", phys_get(&t, r, "energy"), phys_get(&t, r, "energy_err"),
                     onsager_energy(T), 4.0, bound);
        if (T < Tc)
            phys_compare("<|m|> vs m0", phys_get(&t, r, "abs_m"), phys_get(&t, r, "abs_m_err"),
                         onsager_magnetization(T), 4.0, bound);
    }
    phys_table_free(&t);
    return check_exit();
}
