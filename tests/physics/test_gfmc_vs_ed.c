/* test_gfmc_vs_ed.c — the double-exchange Monte Carlo with the approximate evaluator (kpm:
 * GFMC) against the exact one (ed), through `mcf run`, and the model's optional DOS curve.
 *
 * (a) The same seeded run, cubic 4^3 with open boundaries (no level at mu = 0, see
 *     test_double_exchange.c (b)), hund = inf, mu = 0, move = rotation, at a low, an
 *     intermediate and a high temperature (T = 0.05, 0.2, 1.0), once with evaluator = ed and
 *     once with evaluator = kpm (GFMC on the contour, the default, M = 512, vectors = 0: the
 *     exact trace, so the energy and density carry no stochastic-trace noise).  The chains
 *     use the same random streams, but they diverge at the first acceptance decided
 *     differently, so the two runs are independent estimates of the same averages.  The
 *     spin observables (abs_m, m2, nn_correlation), which depend only on the sampled
 *     configurations, must agree within 3.5 combined standard errors at every T.  Why 3.5:
 *     9 such comparisons; a threshold of 3 would be crossed by one of 9 independent
 *     Gaussian differences with probability 2.4%, 3.5 with 0.4%.  What may not hide there:
 *     GFMC's truncation.  On the contour its bound falls as e^{-M gamma}, gamma ~ 0.8 pi T / a
 *     (kpm_core.h): M gamma = 11 at T = 0.05 and M = 512, a bound below the 0.05 of kpm's
 *     warning, a change of the acceptance by a few percent at worst, which moves these
 *     averages far less than their errors.
 *     The energy is another matter: KPM's occupation() integrates the Jackson-broadened
 *     spectrum, which differs from the exact one by the kernel, not by the sampling.  For
 *     one level at E_nu the broadened value of h(E) = E f(E) differs from h(E_nu) by
 *     sigma^2 h''/2 to leading order (the kernel's mean g_1 x_nu also moves by
 *     (1 - g_1) |x| < (pi/M)^2 / 2, the same order), with sigma = pi a / M the Jackson width
 *     and |h''| <= 2 |f'| + |E| |f''| <= 1 / (2 T) + E_max / (6 sqrt(3) T^2) (max |f'| =
 *     1/(4T), max |f''| = 1/(6 sqrt(3) T^2)).  At T = 1.0, M = 256, a = 6.06: sigma = 0.074,
 *     |h''| <= 1.08, so the energies per site agree within 3.5 sigma_comb + sigma^2 |h''|
 *     (twice the leading term, for the mean shift).  At T = 0.2 and 0.05 that bound is 0.07
 *     and 1 (useless), and the energy is not compared; the density at mu = 0 is exactly
 *     1/2 in both runs (a symmetric spectrum), checked to 1e-10.
 * (b) The DOS curve (dos_every = 3, kpm, vectors = 0): on the bipartite cubic lattice the
 *     spectrum of every spin configuration is symmetric about 0, so with the exact trace
 *     the odd moments vanish and dos(E) = dos(-E) on the symmetric Chebyshev grid to
 *     rounding (1e-10 of the maximum); and the Chebyshev-Gauss sum (pi / N) sum a sin(theta)
 *     dos(E) is exactly g_0 mu_0 = 1 (the quadrature is exact for the expansion).
 * (c) kpm's warning when its truncation bound is too large for T (M = 32, T = 0.05), and
 *     that the moments it advises silence it.
 *
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_gfmc_vs_ed runs (b) and (c);
 * test_gfmc_vs_ed_long (`--long`, label long: skipped, 77, unless MCF_TEST_LONG=1) runs (a).
 *
 * Usage: test_gfmc_vs_ed MCF_PROGRAM [--long] (through ctest). */
#include "physics_util.h"

static const char *mcf_program;

#define NT 3
static const double temps[NT] = {0.05, 0.2, 1.0};

static void test_ed_vs_kpm(void)
{
    printf("(a) double exchange 4^3 open, mu = 0: evaluator = ed vs kpm (GFMC)\n");
    const char *common = "[schedule]\nthermalize = 100\nsweeps = 400\n"
                         "temperatures = 0.05, 0.2, 1.0\n\n"
                         "[model]\nlattice = cubic\nL = 4\nboundary = open\nmu = 0\n"
                         "move = rotation\n";
    char sections[1024];
    phys_table ed, kpm;
    /* ed's own eigensolver (plugins/ed/ed_eigen.c, held to GSL's in test_ed_eigen): 28 % less
     * time than GSL's for these 64 x 64 eigenvalue problems */
    snprintf(sections, sizeof sections, "evaluator = ed\n\n%s\n[evaluator]\neigensolver = "
             "householder\n", common);
    if (phys_run_mcf(mcf_program, "gfmc_ed", "double-exchange", 4242, sections, &ed)) {
        CHECK(0, "the ed run failed");
        return;
    }
    snprintf(sections, sizeof sections,
             "evaluator = kpm\n\n%s\n[evaluator]\nmoments = 512\nvectors = 0\n",
             common);
    if (phys_run_mcf(mcf_program, "gfmc_kpm", "double-exchange", 4242, sections, &kpm)) {
        CHECK(0, "the kpm run failed");
        phys_table_free(&ed);
        return;
    }
    const char *obs[] = {"abs_m", "m2", "nn_correlation"};
    for (int k = 0; k < NT; k++) {
        const long re = phys_find_row(&ed, "T", temps[k]), rk = phys_find_row(&kpm, "T", temps[k]);
        CHECK(re >= 0 && rk >= 0, "no row for T = %g", temps[k]);
        if (re < 0 || rk < 0)
            continue;
        printf(" T = %g (kpm vs ed):\n", temps[k]);
        for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
            char err[64];
            snprintf(err, sizeof err, "%s_err", obs[o]);
            const double ek = phys_get(&kpm, (size_t)rk, err), ee = phys_get(&ed, (size_t)re, err);
            phys_compare(obs[o], phys_get(&kpm, (size_t)rk, obs[o]), sqrt(ek * ek + ee * ee),
                         phys_get(&ed, (size_t)re, obs[o]), 3.5, 0.0);
        }
        const double dk = phys_get(&kpm, (size_t)rk, "density");
        const double de = phys_get(&ed, (size_t)re, "density");
        printf("  %-28s kpm = %.15f   ed = %.15f   (exact 1/2)\n", "density", dk, de);
        CHECK(fabs(dk - 0.5) < 1e-10 && fabs(de - 0.5) < 1e-10,
              "T = %g: density kpm %.15f, ed %.15f, not 1/2", temps[k], dk, de);
        if (temps[k] >= 1.0) {
            const double T = temps[k], a = 6.0 / (1.0 - 0.005), sigma = M_PI * a / 256.0;
            const double h2 = 1.0 / (2.0 * T) + 6.0 / (6.0 * sqrt(3.0) * T * T);
            const double ek = phys_get(&kpm, (size_t)rk, "energy_err");
            const double ee = phys_get(&ed, (size_t)re, "energy_err");
            phys_compare("energy (+ kernel bias)", phys_get(&kpm, (size_t)rk, "energy"),
                         sqrt(ek * ek + ee * ee), phys_get(&ed, (size_t)re, "energy"), 3.5,
                         sigma * sigma * h2);
        }
    }
    phys_table_free(&ed);
    phys_table_free(&kpm);
}

static void test_dos_curve(void)
{
    printf("(b) the DOS curve of the double-exchange model (kpm, exact trace)\n");
    const char *sections = "evaluator = kpm\n\n"
                           "[schedule]\nthermalize = 10\nsweeps = 64\ntemperatures = 0.3\n\n"
                           "[model]\nlattice = cubic\nL = 4\nboundary = periodic\nmu = 0\n"
                           "dos_every = 3\n\n[evaluator]\nmoments = 128\nvectors = 0\n";
    phys_table tab;
    if (phys_run_mcf(mcf_program, "gfmc_dos", "double-exchange", 7, sections, &tab)) {
        CHECK(0, "the DOS run failed");
        return;
    }
    phys_table_free(&tab);
    char path[PHYS_PATH_MAX];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/gfmc_dos/out/dos.tsv", tmp ? tmp : ".");
    phys_table d;
    if (phys_read_table(path, &d)) {
        CHECK(0, "no dos.tsv");
        return;
    }
    const size_t N = d.nrows;
    CHECK(N == 256, "dos.tsv has %zu energies, expected 2 x moments = 256", N);
    /* the grid: E_i = a x_i (b = 0 for the symmetric fixed bounds +-6), x_i ascending nodes */
    double asym = 0, max = 0, sum = 0;
    const double a = phys_get(&d, N - 1, "E") / cos(M_PI * 0.5 / (double)N);
    for (size_t i = 0; i < N; i++) {
        const double rho = phys_get(&d, i, "dos"), mirror = phys_get(&d, N - 1 - i, "dos");
        asym = fmax(asym, fabs(rho - mirror));
        max = fmax(max, fabs(rho));
        const double x = phys_get(&d, i, "E") / a;
        sum += M_PI / (double)N * a * sqrt(1.0 - x * x) * rho;
    }
    printf("  max |dos(E) - dos(-E)| = %.2e (max dos %.4f); Chebyshev-Gauss sum = %.15f\n", asym,
           max, sum);
    CHECK(asym <= 1e-10 * max, "the DOS is not symmetric: %.3g", asym);
    CHECK(fabs(sum - 1.0) < 1e-10, "the DOS integrates to %.15f, not 1", sum);
    phys_table_free(&d);
}

/* the number of GFMC warnings in the log of run `name`, the log into text */
static int gfmc_warnings(const char *name, char *text, size_t cap)
{
    char path[PHYS_PATH_MAX];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/%s/mcf.log", tmp ? tmp : ".", name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, cap - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    int count = 0;
    for (const char *q = text; (q = strstr(q, "warning: kpm: GFMC")); q++)
        count++;
    return count;
}

/* (c) The truncation warning: M = 32 moments at T = 0.05 on 3^3 (a = 6.06): M gamma ~ 0.7,
 * a bound of dS far above 0.05, so kpm must warn, once per chain, naming T, the moments
 * and the moments that would do; the run still completes (a warning, not an error).  The
 * advice must be right: a second run with the moments it names gives no warning. */
static void test_resolution_warning(void)
{
    printf("(c) kpm warns when its truncation bound is too large for T\n");
#define WARN_RUN                                                                           \
    "evaluator = kpm\n\n[schedule]\nthermalize = 2\nsweeps = 32\ntemperatures = 0.05\n\n"    \
    "[model]\nL = 3\n\n[evaluator]\nmoments = %ld\n"
    char sections[512];
    snprintf(sections, sizeof sections, WARN_RUN, 32L);
    phys_table tab;
    if (phys_run_mcf(mcf_program, "gfmc_warn", "double-exchange", 3, sections, &tab)) {
        CHECK(0, "the run with too few moments failed (it should only warn)");
        return;
    }
    phys_table_free(&tab);
    static char text[65536];
    int count = gfmc_warnings("gfmc_warn", text, sizeof text);
    printf("  %d truncation warning(s)\n", count);
    CHECK(count == 1, "expected one truncation warning for the one chain, found %d", count);
    const char *adv = strstr(text, "moments >= ");
    CHECK(strstr(text, "T = 0.05") && strstr(text, "moments = 32") && adv,
          "the warning does not name T, the moments and the remedy:\n%s", text);
    const long need = adv ? strtol(adv + strlen("moments >= "), NULL, 10) : 0;
    CHECK(need > 32 && need <= 65536, "the advised moments (%ld) are not a remedy", need);
    if (need <= 32 || need > 65536)
        return;
    snprintf(sections, sizeof sections, WARN_RUN, need);
    if (phys_run_mcf(mcf_program, "gfmc_warn2", "double-exchange", 3, sections, &tab)) {
        CHECK(0, "the run with the advised moments = %ld failed", need);
        return;
    }
    phys_table_free(&tab);
    count = gfmc_warnings("gfmc_warn2", text, sizeof text);
    printf("  with the advised moments = %ld: %d warning(s)\n", need, count);
    CHECK(count == 0, "moments = %ld, as advised, still warns:\n%s", need, text);
}

/* (c2) The real axis's resolution warning (lambda a / M = 0.9 T at M = 256, T = 0.1) is
 * the same advice for every chain at that T: once per run, not once per chain (issue 42:
 * tests/bench/gfmc_flip printed it 768 times) */
static void test_resolution_warning_once(void)
{
    printf("(c2) the real axis's resolution warning, once for three chains at one T\n");
    phys_table tab;
    if (phys_run_mcf(mcf_program, "gfmc_warn_once", "double-exchange", 3,
                     "evaluator = kpm\nwalkers = 3\n\n[schedule]\nthermalize = 2\nsweeps = 8\n"
                     "bins = 2\ntemperatures = 0.1\n\n[model]\nL = 3\n\n[evaluator]\n"
                     "moments = 256\ngfmc = real-axis\n", &tab)) {
        CHECK(0, "the real-axis run failed (it should only warn)");
        return;
    }
    phys_table_free(&tab);
    static char text[65536];
    const int count = gfmc_warnings("gfmc_warn_once", text, sizeof text);
    printf("  %d resolution warning(s)\n", count);
    CHECK(count == 1 && strstr(text, "resolution"),
          "expected one resolution warning for the 3 chains at T = 0.1, found %d:\n%s", count,
          text);
}

int main(int argc, char **argv)
{
    const int long_part = phys_tier(argc, argv, "(a), kpm against ed");
    if (long_part > 1)
        return long_part;
    mcf_program = argv[1];
    const double t0 = phys_now();
    if (!long_part) {
        test_dos_curve();
        test_resolution_warning();
        test_resolution_warning_once();
    } else {
        test_ed_vs_kpm();
    }
    printf("test_gfmc_vs_ed%s: %.1f s\n", long_part ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
