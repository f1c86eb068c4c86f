/* test_holstein.c — the adiabatic Holstein model (models/holstein) through `mcf run`,
 * against exact limits, the exact evaluator against GFMC, the CDW, and reproducibility.
 *
 * Tolerances.  Every Monte Carlo comparison passes when |mc - exact| <= 3.5 sigma (+ a
 * stated systematic bound, printed), sigma the blocking error (two runs: the errors
 * combined in quadrature).  Why 3.5: this file makes 39 such comparisons; at 3.5 sigma a
 * correct model fails one of 39 independent Gaussian comparisons with probability 1.8%
 * (3 sigma: 10%), while the mutations tried on the model (the sign of the g x / 2 term, the
 * sign of the change -g dx, a missing 1/T in -dE_cl / T) each move the comparisons of (b)
 * by 40 to 10^5 sigma.  The seeds are fixed, so the test is deterministic.
 *
 * (a) g = 0, 4x4 periodic, ed, T = 0.3 and 1.5: the x_i are independent Gaussians of
 *     variance T/k and the fermions free, so x2_mean = T/k, x_mean = 0 exactly; the energy
 *     per site is k <x^2> / 2 + (1/N) sum_k eps_k f(eps_k) = T/2 + the free band energy of
 *     the 16 momenta (eps_k = -2t (cos kx + cos ky)); the density is 1/2 to rounding (the
 *     spectrum of the bipartite lattice is symmetric about mu = 0).
 * (b) t = 0, 4x4 (16 independent sites per sample), ed, g = k = 1, T = 0.1 and 0.5,
 *     mu = 0 and 0.5: a site has the weight p(x) = exp(-[(k/2) x^2 + (g/2) x] / T)
 *     (1 + exp((g x + mu) / T)) (the empty and the filled level -g x), so <x>, <x^2> and
 *     <n> = <f(-g x - mu)> are one-dimensional integrals (GSL QAG, relative 1e-12).
 * (c) The same seeded runs with ed and with kpm (GFMC on the contour, 512 moments, vectors
 *     = 0 and kernel = none), 4x4, g = k = 1, mu = 0, T = 0.05, 0.15, 1.0: all seven
 *     observables within 3.5 combined sigma.  kpm's occupation with the exact trace and no
 *     kernel is the Chebyshev series of f (of E f for the energy) truncated at M, exact up
 *     to the dropped coefficients, |c_n| ~ 2 tau e^{-n g0} from the nearest Fermi pole at
 *     Bernstein parameter g0 = asinh(pi T / a) (tau = T / a, residue -tau), i.e. a density
 *     bias of (2 tau / g0) e^{-M g0} ~ (2/pi) e^{-M g0} and an energy bias below 2a times
 *     that (|E| <= a + |b| < 2a).  The scale a is Gershgorin's, (4 t + g max|x|) /
 *     (1 - margin / 2), with max|x| < g / (2k) + 10 sqrt(T/k) (10 standard deviations of the
 *     Gaussian confinement).  The bias enters the tolerance (at most 6e-5: the energy at
 *     T = 0.05).  GFMC's own truncation: kpm warns when its bound on dS exceeds 0.05; the
 *     test asserts that no kpm warning appears.  In practice GFMC's dS is so close to the
 *     exact one that both runs take the same decisions and agree to the printed digits.
 * (d) The CDW at half filling, ed, g = 1.5, k = 1, mu = 0, 4x4 and 6x6 periodic.  T = 0.02:
 *     ordered.  The checkerboard order breaks a Z2 symmetry (2D Ising class), so on the
 *     ordered side of the transition the Binder cumulant U lies above the universal value at
 *     T_c of the 2D Ising model on periodic squares, U* = 0.61069 (Salas & Sokal, J. Stat.
 *     Phys. 98, 551 (2000)), and never above 2/3 (Cauchy-Schwarz: <m^4> >= <m^2>^2).  The
 *     test asserts U* < U - 3.5 sigma and U <= 2/3 + 3.5 sigma.  The Gaussian-width value
 *     (2/3) (<|m|>^2 / <m^2>)^2 (m = +-(m0 + eta), eta of variance <m^2> - <|m|>^2) is
 *     printed beside it.  T = 2: disordered.  The staggered structure factor
 *     S = N <m^2> / <x^2> is 1 for uncorrelated sites and ~N (16, 36) in the ordered phase;
 *     the leading correlation at high T comes from the T^-4 term of log(1 + e^{-eps/T}),
 *     -tr h^4 / (192 T^4), whose part 4 t^2 g^2 sum_<ij> x_i x_j gives
 *     S - 1 = g^2 t^2 z / (48 k_eff T^3) = 0.03 (k_eff = k - g^2 / (4T) from the T^-2
 *     term).  Asserted: S + 3.5 sigma_S < 2 (|m| small: no order), and the low-T S above
 *     N / 2.
 * (e) Reproducibility with a stochastic occupation (kpm, vectors = 4: the measurement
 *     stream is used): 1 thread and 2 threads give the same results.tsv bytes; a run stopped
 *     by SIGTERM during thermalization (while delta is adapted) and finished with `mcf
 *     resume` gives the same bytes as the uninterrupted run.
 * (f) Refusals: evaluator = none, an evaluator without change_action (the test plugin
 *     tautogpu), L = 2 periodic.
 *
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_holstein runs (a), (b), (e), (f);
 * test_holstein_long (`--long`, label long: skipped, 77, unless MCF_TEST_LONG=1) (c) and (d).
 *
 * Usage: test_holstein MCF_PROGRAM [--long] (through ctest). */
#include "physics_util.h"


#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

static const char *mcf_program;

static double combined(double a, double b)
{
    return sqrt(a * a + b * b);
}

/* the value and error of `name` in row r */
static void get2(const phys_table *t, size_t r, const char *name, double *v, double *e)
{
    char err[64];
    snprintf(err, sizeof err, "%s_err", name);
    *v = phys_get(t, r, name);
    *e = phys_get(t, r, err);
}

static void compare_col(const phys_table *t, size_t r, const char *name, double exact,
                        double bound)
{
    double v, e;
    get2(t, r, name, &v, &e);
    phys_compare(name, v, e, exact, 3.5, bound);
}

/* ---- (a) g = 0 --------------------------------------------------------------------------- */

static void test_free(void)
{
    printf("(a) g = 0, 4x4 periodic, ed: Gaussian x of variance T/k and free fermions\n");
    const double k = 1.0, t = 1.0, temps[2] = {0.3, 1.5};
    phys_table tab;
    const char *sections = "evaluator = ed\n\n[schedule]\nthermalize = 200\nsweeps = 4000\n"
                           "temperatures = 0.3, 1.5\n\n[model]\nL = 4\ng = 0\nk = 1\nt = 1\n";
    if (phys_run_mcf(mcf_program, "holstein_free", "holstein", 11, sections, &tab)) {
        CHECK(0, "the g = 0 run failed");
        return;
    }
    for (int q = 0; q < 2; q++) {
        const double T = temps[q];
        const long r = phys_find_row(&tab, "T", T);
        CHECK(r >= 0, "no row T = %g", T);
        if (r < 0)
            continue;
        double band = 0.0; /* sum over the 16 momenta of eps f(eps), per site */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                const double e = -2.0 * t * (cos(M_PI * a / 2) + cos(M_PI * b / 2));
                band += e / (1.0 + exp(e / T)) / 16.0;
            }
        printf(" T = %g (acceptance %.3f):\n", T, phys_get(&tab, (size_t)r, "acceptance"));
        compare_col(&tab, (size_t)r, "x2_mean", T / k, 0.0);
        compare_col(&tab, (size_t)r, "x_mean", 0.0, 0.0);
        compare_col(&tab, (size_t)r, "energy", T / 2.0 + band, 0.0);
        const double n = phys_get(&tab, (size_t)r, "density");
        printf("  %-28s %.17g (exact 1/2)\n", "density", n);
        CHECK(fabs(n - 0.5) < 1e-12, "T = %g: density %.17g is not 1/2", T, n);
    }
    phys_table_free(&tab);
}

/* ---- (b) t = 0 --------------------------------------------------------------------------- */

typedef struct site_law {
    double T, mu, g, k, shift; /* shift: log p at its maximum on the grid, against overflow */
    int what;                  /* 0: 1, 1: x, 2: x^2, 3: n, 4: x n */
} site_law;

static double log_p(double x, const site_law *s)
{
    const double y = (s->g * x + s->mu) / s->T; /* log(1 + e^y) without overflow */
    return -(0.5 * s->k * x * x + 0.5 * s->g * x) / s->T + fmax(y, 0.0) + log1p(exp(-fabs(y)));
}

static double site_integrand(double x, void *p)
{
    const site_law *s = p;
    const double w = exp(log_p(x, s) - s->shift);
    if (s->what >= 3) /* n = f(-g x - mu) = 1 / (1 + e^{-(g x + mu)/T}) */
        return w / (1.0 + exp(-(s->g * x + s->mu) / s->T)) * (s->what == 4 ? x : 1.0);
    return s->what == 0 ? w : s->what == 1 ? w * x : w * x * x;
}

/* <x>, <x^2>, <n>, <x n> of one site by quadrature over |x| <= g/k + 40 sqrt(T/k) + 1 */
static void site_moments(double T, double mu, double g, double k, double out[4])
{
    site_law s = {T, mu, g, k, -INFINITY, 0};
    const double R = fabs(g) / k + 40.0 * sqrt(T / k) + 1.0;
    for (int i = 0; i <= 4000; i++)
        s.shift = fmax(s.shift, log_p(-R + 2.0 * R * i / 4000.0, &s));
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    gsl_function f = {site_integrand, &s};
    double m[5], err;
    for (s.what = 0; s.what < 5; s.what++) { /* absolute 1e-12 of the norm: <x> may be 0 */
        const int rc = gsl_integration_qag(&f, -R, R, s.what ? 1e-12 * m[0] : 0.0, 1e-12, 1000,
                                           GSL_INTEG_GAUSS61, w, &m[s.what], &err);
        CHECK(rc == 0, "quadrature %d at T = %g, mu = %g: %s", s.what, T, mu, gsl_strerror(rc));
    }
    gsl_integration_workspace_free(w);
    for (int q = 0; q < 4; q++)
        out[q] = m[q + 1] / m[0];
}

/* The energy per site (k/2) <x^2> + (g/2) <x> - g <x n> (the level -g x filled with
 * probability n), and C = d<e>/dT at fixed mu by a central difference of the quadratures:
 * step h = 1e-3 T, truncation h^2 |d3e/dT3| / 6 ~ 1e-7 |e| (d3e/dT3 ~ e / T^3), rounding
 * 1e-12 |e| / h ~ 1e-9 / T: both far below the Monte Carlo errors (~1e-2 C). */
static void site_energy(double T, double mu, double g, double k, double *e, double *c)
{
    double m[4], eq[3];
    const double h = 1e-3 * T;
    for (int q = 0; q < 3; q++) {
        site_moments(q == 0 ? T : q == 1 ? T + h : T - h, mu, g, k, m);
        eq[q] = 0.5 * k * m[1] + 0.5 * g * m[0] - g * m[3];
    }
    *e = eq[0];
    *c = (eq[1] - eq[2]) / (2.0 * h);
}

static void test_atomic(void)
{
    printf("(b) t = 0, g = k = 1, 4x4, ed: independent sites against quadrature\n");
    phys_table tab;
    const char *sections = "evaluator = ed\n\n[schedule]\nthermalize = 300\nsweeps = 4000\n"
                           "temperatures = 0.1, 0.5\n\n[model]\nL = 4\nt = 0\ng = 1\nk = 1\n"
                           "mu = 0, 0.5\n";
    if (phys_run_mcf(mcf_program, "holstein_atomic", "holstein", 12, sections, &tab)) {
        CHECK(0, "the t = 0 run failed");
        return;
    }
    for (size_t r = 0; r < tab.nrows; r++) {
        const double T = phys_get(&tab, r, "T"), mu = phys_get(&tab, r, "mu");
        double ex[4], e, c;
        site_moments(T, mu, 1.0, 1.0, ex);
        site_energy(T, mu, 1.0, 1.0, &e, &c);
        printf(" T = %g, mu = %g (acceptance %.3f):\n", T, mu, phys_get(&tab, r, "acceptance"));
        compare_col(&tab, r, "x_mean", ex[0], 0.0);
        compare_col(&tab, r, "x2_mean", ex[1], 0.0);
        compare_col(&tab, r, "density", ex[2], 0.0);
        compare_col(&tab, r, "energy", e, 0.0);
        /* d<e>/dT of a weight exp(-S(x; T)): <e_T> - N cov(e, s_T) (the core's) */
        compare_col(&tab, r, "specific_heat", c, 0.0);
    }
    CHECK(tab.nrows == 4, "expected 4 rows (2 mu x 2 T), got %zu", tab.nrows);
    phys_table_free(&tab);
}

/* ---- (c) ed against kpm ------------------------------------------------------------------ */

static void test_ed_vs_kpm(void)
{
    printf("(c) 4x4, g = k = 1, mu = 0: evaluator = ed vs kpm (GFMC, 512 moments)\n");
    const char *common = "[schedule]\nthermalize = 200\nsweeps = 2000\nmeasure_every = 8\n"
                         "temperatures = 0.05, 0.15, 1.0\n\n[model]\nL = 4\ng = 1\nk = 1\n";
    char sections[1024];
    phys_table ed, kpm;
    snprintf(sections, sizeof sections, "evaluator = ed\n\n%s", common);
    if (phys_run_mcf(mcf_program, "holstein_ed", "holstein", 4242, sections, &ed)) {
        CHECK(0, "the ed run failed");
        return;
    }
    snprintf(sections, sizeof sections, "evaluator = kpm\n\n%s\n[evaluator]\nmoments = 512\n"
             "vectors = 0\nkernel = none\n", common);
    if (phys_run_mcf(mcf_program, "holstein_kpm", "holstein", 4242, sections, &kpm)) {
        CHECK(0, "the kpm run failed");
        phys_table_free(&ed);
        return;
    }
    CHECK(!phys_log_has("holstein_kpm", "warning: kpm", NULL), "kpm warned (see above)");
    static const char *const obs[] = {"energy", "abs_m", "m2", "m4", "x_mean", "x2_mean",
                                      "density"};
    const double g = 1.0, k = 1.0, t = 1.0, M = 512, margin = 0.01;
    double maxrel = 0.0;
    for (size_t r = 0; r < ed.nrows && r < kpm.nrows; r++) {
        const double T = phys_get(&ed, r, "T");
        const double a = (4.0 * t + g * (g / (2.0 * k) + 10.0 * sqrt(T / k))) / (1 - margin / 2);
        const double bias_n = 2.0 / M_PI * exp(-M * asinh(M_PI * T / a));
        printf(" T = %g: occupation truncation bound %.2g (density), %.2g (energy)\n", T,
               bias_n, 2.0 * a * bias_n);
        for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
            double vk, ek, ve, ee;
            get2(&kpm, r, obs[o], &vk, &ek);
            get2(&ed, r, obs[o], &ve, &ee);
            const double bound = o == 0 ? 2.0 * a * bias_n : o == 6 ? bias_n : 0.0;
            phys_compare(obs[o], vk, combined(ek, ee), ve, 3.5, bound);
            maxrel = fmax(maxrel, fabs(vk - ve) / fmax(fabs(ve), 1e-300));
        }
    }
    printf("  largest relative difference kpm - ed: %.2g (the chains made the same decisions "
           "when it is near rounding)\n", maxrel);
    CHECK(ed.nrows == 3 && kpm.nrows == 3, "expected 3 rows, got %zu and %zu", ed.nrows,
          kpm.nrows);
    phys_table_free(&ed);
    phys_table_free(&kpm);
}

/* ---- (d) the CDW ----------------------------------------------------------------------- */

static void test_cdw(void)
{
    printf("(d) CDW at half filling: g = 1.5, k = 1, ed, 4x4 and 6x6, T = 0.02 and 2\n");
    const double U_ising = 0.61069;
    phys_table tab;
    const char *sections = "evaluator = ed\n\n[schedule]\nthermalize = 300\nsweeps = 1200\n"
                           "temperatures = 0.02, 2\n\n[model]\nL = 4, 6\ng = 1.5\nk = 1\n";
    if (phys_run_mcf(mcf_program, "holstein_cdw", "holstein", 2718, sections, &tab)) {
        CHECK(0, "the CDW run failed");
        return;
    }
    for (size_t r = 0; r < tab.nrows; r++) {
        const double L = phys_get(&tab, r, "L"), T = phys_get(&tab, r, "T"), N = L * L;
        double U, dU, m, dm, m2, dm2, x2, dx2;
        get2(&tab, r, "binder", &U, &dU);
        get2(&tab, r, "abs_m", &m, &dm);
        get2(&tab, r, "m2", &m2, &dm2);
        get2(&tab, r, "x2_mean", &x2, &dx2);
        const double S = N * m2 / x2, dS = S * (dm2 / m2 + dx2 / x2); /* correlated: linear */
        printf(" %gx%g, T = %g: binder %.4f +- %.4f (Gaussian width: %.4f), |m| = %.4f +- "
               "%.4f, S = N <m^2> / <x^2> = %.3f +- %.3f\n",
               L, L, T, U, dU, 2.0 / 3.0 * pow(m * m / m2, 2), m, dm, S, dS);
        CHECK(isfinite(dU) && dU > 0 && isfinite(dS) && dS > 0, "bad error bars");
        if (T < 1) {
            CHECK(U - 3.5 * dU > U_ising, "%gx%g: binder %.4f +- %.4f is not above the 2D Ising "
                  "U* = %.5f: not ordered", L, L, U, dU, U_ising);
            CHECK(U <= 2.0 / 3.0 + 3.5 * dU, "%gx%g: binder %.4f above 2/3", L, L, U);
            CHECK(S > N / 2, "%gx%g: S = %.3f is not of order N = %g", L, L, S, N);
        } else {
            CHECK(S + 3.5 * dS < 2.0, "%gx%g, T = %g: S = %.3f +- %.3f is not small", L, L, T,
                  S, dS);
        }
    }
    CHECK(tab.nrows == 4, "expected 4 rows, got %zu", tab.nrows);
    phys_table_free(&tab);
}

/* ---- (e) threads, stop and resume -------------------------------------------------------- */

#define REPRO_INI                                                                           \
    "[run]\nmodel = holstein\nevaluator = kpm\nseed = 99\noutput = %s\nthreads = %d\n\n"    \
    "[schedule]\nthermalize = 1500\nadapt_every = 10\nsweeps = 800\ncheckpoint_every = 20\n" \
    "temperatures = 0.1, 0.5\n\n[model]\nL = 4\ng = 1.2\n\n[evaluator]\nmoments = 128\n"    \
    "vectors = 4\n"

/* writes DIR/NAME.ini for output DIR/NAME with `threads`; the path into ini */
static int write_repro(const char *dir, const char *name, int threads, char *ini, size_t size)
{
    char out[PHYS_PATH_MAX];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    snprintf(ini, size, "%s/%s.ini", dir, name);
    FILE *f = fopen(ini, "w");
    if (!f)
        return -1;
    fprintf(f, REPRO_INI, out, threads);
    return fclose(f);
}

static void test_reproducible(void)
{
    printf("(e) kpm with a stochastic occupation: threads, SIGTERM and resume\n");
    char dir[PHYS_PATH_MAX], ini[PHYS_PATH_MAX], a[PHYS_PATH_MAX], b[PHYS_PATH_MAX];
    static char cmd[4 * PHYS_PATH_MAX];
    if (phys_fresh_dir("holstein_repro", dir, sizeof dir)) {
        CHECK(0, "no scratch folder for (e)");
        return;
    }
    for (int threads = 1; threads <= 2; threads++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", threads);
        CHECK(write_repro(dir, name, threads, ini, sizeof ini) == 0, "cannot write %s", ini);
        snprintf(cmd, sizeof cmd, "'%s' run '%s' --no-progress > '%s.log' 2>&1", mcf_program,
                 ini, ini);
        const double t0 = phys_now();
        CHECK(system(cmd) == 0, "`%s` failed", cmd);
        printf("  %d thread(s): %.2f s\n", threads, phys_now() - t0);
    }
    snprintf(a, sizeof a, "%s/t1/results.tsv", dir);
    snprintf(b, sizeof b, "%s/t2/results.tsv", dir);
    CHECK(phys_same_file(a, b), "1 thread and 2 threads differ: %s, %s", a, b);
    printf("  1 thread = 2 threads, byte for byte: %s\n",
           phys_same_file(a, b) ? "yes" : "NO");

    /* stop after the first checkpoint (sweep 20 of 1500 thermalization sweeps) */
    char out[PHYS_PATH_MAX], log[PHYS_PATH_MAX];
    CHECK(write_repro(dir, "stopped", 2, ini, sizeof ini) == 0, "cannot write %s", ini);
    snprintf(out, sizeof out, "%s/stopped", dir);
    snprintf(log, sizeof log, "%s/stopped.log", dir);
    phys_stop_and_resume(mcf_program, ini, out, log);
    snprintf(b, sizeof b, "%s/stopped/results.tsv", dir);
    snprintf(a, sizeof a, "%s/t2/results.tsv", dir);
    CHECK(phys_same_file(a, b), "the resumed run differs from the uninterrupted one: %s, %s",
          a, b);
    printf("  stopped and resumed = uninterrupted, byte for byte: %s\n",
           phys_same_file(a, b) ? "yes" : "NO");
}

/* ---- (f) refusals ----------------------------------------------------------------------- */

static void test_refusals(void)
{
    printf("(f) refusals\n");
#define RUN_INI(ev, L)                                                                      \
    "evaluator = " ev "\n[schedule]\nthermalize = 10\nsweeps = 64\ntemperatures = 0.5\n"    \
    "[model]\nL = " L "\n"
    phys_expect_refusal(mcf_program, "holstein_none", "holstein", RUN_INI("none", "4"),
                        (const char *const[]){"evaluator = none", "evaluator = kpm", NULL});
    phys_expect_refusal(mcf_program, "holstein_noop", "holstein", RUN_INI("tautogpu", "4"),
                        (const char *const[]){"tautogpu", "change_action", NULL});
    phys_expect_refusal(mcf_program, "holstein_L2", "holstein", RUN_INI("ed", "2"),
                        (const char *const[]){"L = 2", "boundary = open", NULL});
}

int main(int argc, char **argv)
{
    const int tier = phys_tier(argc, argv, "(c) ed against kpm, (d) the CDW");
    if (tier > 1)
        return tier;
    mcf_program = argv[1];
    gsl_set_error_handler_off();
    const double t0 = phys_now();
    if (!tier) {
        test_free();
        test_atomic();
        test_reproducible();
        test_refusals();
    } else {
        test_ed_vs_kpm();
        test_cdw();
    }
    printf("test_holstein%s: %.1f s\n", tier ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
