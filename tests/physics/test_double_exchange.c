/* test_double_exchange.c — the double-exchange model through `mcf run`, with the exact
 * evaluator ([run] evaluator = ed), so that every number below is the model's physics and
 * not an approximation of the evaluator.
 *
 * (a) High temperature, T = 1000, cubic 3^3 periodic, hund = inf, mu = 0: the spins are
 *     independent up to a negligible coupling, so m2 = 1/N and nn_correlation = 0, and the
 *     fermion energy has a closed form.  The estimate: with mu = 0 and Tr H = 0,
 *         S_eff = -sum_nu log(1 + e^{-eps_nu / T})
 *               = -N log 2 - Tr H^2 / (8 T^2) + O(T^-4),
 *         Tr H^2 = sum_ij |H_ij|^2 = t^2 sum_<ij> 2 |<chi_i|chi_j>|^2
 *                = t^2 sum_<ij> (1 + S_i.S_j),
 *     a ferromagnetic Heisenberg weight exp(K sum_<ij> S_i.S_j) with K = t^2 / (8 T^2) =
 *     1.25e-7.  To first order in K, <S_i.S_j> = K/3 on a bond and 0 beyond, so
 *         m2 = <|sum_i S_i|^2> / N^2 = 1/N + 2 (bonds / N^2) K/3 = 1/27 + 9e-9,
 *         nn_correlation = K/3 = 4e-8,
 *     both far below the statistical errors (~1e-3): the exact values used are 1/N and 0.
 *     The energy per site: sum_nu eps f(eps) = -Tr H^2 / (4 T) + O(T^-3), so
 *         energy = -(t^2 / (4 T)) (bonds / N) (1 + nn) = -3 t^2 / (4 T) (1 + O(K)),
 *     where the O(T^-3) term is smaller by (eps_max / T)^2 / 12 < 3e-6.  Every comparison is
 *     |mc - exact| <= 3 sigma (the blocking error), nothing else.
 *
 * (b) Low temperature, T = 0.02, cubic 4^3 with OPEN boundaries, mu = 0: the spins order
 *     ferromagnetically from a random start.  Why open: the 4^3 torus is a bad half-filled
 *     cluster, its ferromagnetic tight-binding spectrum has 20 degenerate levels at
 *     eps = 0 = mu (cos k in {1, 0, -1, 0}), so a spin texture that splits them competes
 *     with the ferromagnet (a random start there settles at |m| ~ 0.14 with the ferromagnet's
 *     energy); the open 4^3 cube has no level at 0 (cos(pi n / 5) never sums to 0), a gap of
 *     0.76 t around mu and a closed-shell ferromagnetic ground state.
 *     The threshold is from classical spin waves.  In the ordered phase a bond costs
 *     -K_b |<chi_i|chi_j>| = -K_b cos(theta_ij / 2) = -K_b + (K_b / 4) (1 - S_i.S_j) + ...,
 *     with K_b the fermion kinetic energy per bond (frozen bands), so the spins see a
 *     Heisenberg coupling J_eff = K_b / 4, K_b = |energy| N / bonds (infinite hund: all of
 *     the energy is kinetic), measured in the same run.  Harmonic spin waves with
 *     equipartition (kT/2 per transverse mode, 2 components, N - 1 modes besides the
 *     uniform one) give
 *         1 - |m|  = (T / (2 J_eff)) W,   W = (1/N) sum_{k != 0} 1 / lambda_k,
 *         1 - nn   = (N - 1) T / (bonds J_eff),
 *     lambda_k = sum_d (1 - cos(pi n_d / L)), n_d = 0..L-1, the eigenvalues of the open
 *     cube's graph Laplacian / 2.  Corrections: anharmonic terms and the measure on the
 *     sphere are O(T / J_eff) (~0.2 here), and the frozen-band J_eff is an upper bound on
 *     the stiffness of nonuniform modes (the fermions' second-order response can only soften
 *     them).  So the assertions are the spin-wave values within a factor 2 either way:
 *         delta / 2 <= 1 - x <= 2 delta   (x = abs_m, nn_correlation; each +- 3 sigma),
 *     which says |m| is close to 1 (1 - |m| <= 2 delta ~ 0.14) and that the spins really
 *     fluctuate as equipartition demands (not frozen).  Also exact: on a bipartite lattice
 *     the spectrum of every configuration is symmetric about 0 (c_i -> (-1)^i c_i^+ maps H to
 *     -H^*), so mu = 0 is exactly half filling: density = 1/2 to the rounding of the
 *     eigenvalues, dim eps_mach ||H|| times the largest slope of f, 1 / (4 T).
 *
 * (c) hund = 40 with mu = -40 against hund = inf with mu = 0 (same seed, so chain 0 of both
 *     runs draws the same stream), cubic 3^3 periodic, T = 0.2.  The lower band of the finite
 *     model is the infinite model shifted by -J_H, up to second-order virtual hops into the
 *     upper band (energy denominator 2 J_H, amplitude t <dn_j|up_i>, |.|^2 = (1 - S_i.S_j)/2):
 *         E_2 / N = -(t^2 n / (2 J_H)) (bonds / N) (1 - nn)      (n = density),
 *     i.e. an energy shift of ~0.015 and an antiferromagnetic Heisenberg term J_AF sum S_i.S_j
 *     with J_AF = t^2 n / (2 J_H) = 0.006 against the frozen-band ferromagnetic J_eff =
 *     |energy| N / (4 bonds) ~ 0.06.  In the paramagnet at T = 0.2 the correlations grow
 *     linearly with the coupling, so they shift by the fraction r = J_AF / J_eff ~ 0.1:
 *         |d nn| ~ r nn,  |d m2| ~ r (m2 - 1/N),  |d abs_m| ~ |d m2| / (2 abs_m).
 *     Assertions: abs_m, m2, nn_correlation agree within 3 combined sigma plus that stated
 *     t^2 / J_H allowance; energy + J_H density of the finite model agrees with the infinite
 *     model's energy within 3 sigma plus |E_2 / N|.  The error of energy + J_H density is
 *     bounded by err(energy) + J_H err(density) (the two are correlated; their covariance is
 *     not reported, and complete correlation is the worst case).
 *
 * (d) Bad input refused through `mcf run`, each message checked: T = 0 (the core's range of
 *     [schedule] temperatures), T = inf (the model: fix [schedule] temperatures), hund = 0,
 *     L = 2 periodic, [run] evaluator = none, a spins file with a vector of length 1.1 (the
 *     message names file:line and the length), a spins file with too few lines (the count);
 *     a valid spins file with comments is accepted (finite hund, open boundaries).  And the
 *     warning for mu = 10 outside the band [-4, 4] of the square lattice: once per chain in
 *     mcf's output; with the band full, density >= 1 / (1 + e^{-(mu - 4) / T}) holds exactly
 *     for every configuration.
 *
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_double_exchange runs (d) and, on a
 * run of (b)'s set-up cut to 42 sweeps (thermalize 10, sweeps 32), (b)'s exact checks, half
 * filling and a negative energy, which hold for every configuration; test_double_exchange_long
 * (`--long`, label long: skipped, 77, unless MCF_TEST_LONG=1) runs (a), (b) and (c) as above,
 * whose comparisons need their 1 600 + 2 x 800 sweeps of 3^3 and 450 of 4^3 (~25 s of CPU).
 *
 * Usage: test_double_exchange MCF_PROGRAM [--long] (through ctest, which sets MCF_TEST_TMP and
 * MCF_PLUGIN_PATH). */
#include "physics_util.h"

#include <ctype.h>
#include <float.h>

/* (a)-(c)'s ed runs use ed's own eigensolver (plugins/ed/ed_eigen.c, held to GSL's in
 * test_ed_eigen): their spectra (27 x 27 and 64 x 64 complex, eigenvalues only) ~30 % faster
 * than by GSL's, which took ~70 % of this test's time (perf) */
#define ED_HH "evaluator = ed\n\n[evaluator]\neigensolver = householder\n\n"

static const char *mcf_program;

/* ---- helpers --------------------------------------------------------------------------- */

/* Occurrences of needle (case-sensitive). */
static int count_text(const char *hay, const char *needle)
{
    int count = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        count++;
    return count;
}

/* Reads at most size - 1 bytes of a file into buf ("" when it cannot be read). */
static void read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, size - 1, f) : 0;
    buf[got] = '\0';
    if (f)
        fclose(f);
}

/* The output of the run phys_run_mcf made under `name` (its stdout and stderr). */
static void run_output(const char *name, char *buf, size_t size)
{
    char path[PHYS_PATH_MAX];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/%s/mcf.log", tmp ? tmp : ".", name);
    read_text(path, buf, size);
}

static void expect_refusal(const char *name, const char *sections, const char *const *needles)
{
    phys_expect_refusal(mcf_program, name, "double-exchange", sections, needles);
}

/* Combined error of two independent estimates. */
static double combined(double a, double b)
{
    return sqrt(a * a + b * b);
}

/* ---- (a) high temperature -------------------------------------------------------------- */

static void test_high_temperature(void)
{
    const double T = 1000.0, t = 1.0, N = 27.0, bonds = 81.0;
    printf("(a) T = %g, cubic 3^3 periodic, hund = inf, mu = 0: independent spins\n", T);
    phys_table tab;
    const char *sections = ED_HH
                           "[schedule]\nthermalize = 100\nsweeps = 1500\ntemperatures = 1000\n\n"
                           "[model]\nlattice = cubic\nL = 3\nboundary = periodic\nmu = 0\n"
                           "move = uniform\nstart = random\n";
    if (phys_run_mcf(mcf_program, "de_high_T", "double-exchange", 2024, sections, &tab)) {
        CHECK(0, "the high-temperature run failed");
        return;
    }
    const double K = t * t / (8.0 * T * T);
    printf("  coupling K = t^2 / (8 T^2) = %.3g: m2 - 1/N = %.2g, nn = %.2g (neglected)\n", K,
           2.0 * bonds / (N * N) * K / 3.0, K / 3.0);
    phys_compare("m2 (exact 1/N)", phys_get(&tab, 0, "m2"), phys_get(&tab, 0, "m2_err"),
                 1.0 / N, 3.0, 0.0);
    phys_compare("nn_correlation (exact 0)", phys_get(&tab, 0, "nn_correlation"),
                 phys_get(&tab, 0, "nn_correlation_err"), 0.0, 3.0, 0.0);
    phys_compare("energy (-3 t^2 / (4 T))", phys_get(&tab, 0, "energy"),
                 phys_get(&tab, 0, "energy_err"), -t * t / (4.0 * T) * bonds / N, 3.0, 0.0);
    phys_table_free(&tab);
}

/* ---- (b) low temperature: ferromagnetic order ------------------------------------------ */

/* W = (1/N) sum_{k != 0} 1 / sum_d (1 - cos(pi n_d / L)) of the open L^3 cube. */
static double spin_wave_sum_open(int L)
{
    double s = 0.0;
    for (int a = 0; a < L; a++)
        for (int b = 0; b < L; b++)
            for (int c = 0; c < L; c++) {
                if (a == 0 && b == 0 && c == 0)
                    continue;
                s += 1.0 / (3.0 - cos(M_PI * a / L) - cos(M_PI * b / L) - cos(M_PI * c / L));
            }
    return s / ((double)L * L * L);
}

/* delta / 2 <= 1 - x <= 2 delta, each side widened by 3 sigma. */
static void check_deficit(const char *what, double x, double err, double delta)
{
    const double d = 1.0 - x;
    printf("  1 - %-15s = %.5f +- %.5f   spin waves %.5f   ratio %.2f   allowed "
           "[%.5f, %.5f]\n",
           what, d, err, delta, d / delta, 0.5 * delta - 3 * err, 2.0 * delta + 3 * err);
    CHECK(isfinite(err) && err > 0, "%s: error bar %g is not positive and finite", what, err);
    CHECK(d <= 2.0 * delta + 3.0 * err,
          "%s = %.5f: 1 - %s = %.5f exceeds twice the spin-wave value %.5f (+3 sigma): the "
          "spins are less ordered than spin waves allow",
          what, x, what, d, delta);
    CHECK(d >= 0.5 * delta - 3.0 * err,
          "%s = %.5f: 1 - %s = %.5f is below half the spin-wave value %.5f (-3 sigma): the "
          "spins fluctuate less than equipartition demands",
          what, x, what, d, delta);
}

/* (b)'s exact checks: the energy is negative (the spectrum is symmetric about mu = 0 and not
 * all zero) and the density is 1/2 to the rounding, for every configuration */
static void check_exact(const phys_table *tab, double T, double N, double t)
{
    const double e = phys_get(tab, 0, "energy"), density = phys_get(tab, 0, "density");
    CHECK(isfinite(e) && e < 0, "energy %g is not negative", e);
    /* exact half filling: eigenvalue rounding dim eps ||H|| (||H|| <= z|t|) times the
     * largest slope 1 / (4 T) of the Fermi function */
    const double tol = N * DBL_EPSILON * 6.0 * t / (4.0 * T);
    printf("  density = %.17g (exact 1/2, tolerance %.2g)\n", density, tol);
    CHECK(fabs(density - 0.5) <= tol, "density %.17g is not 1/2 on the bipartite lattice",
          density);
}

/* (b)'s run (cubic 4^3 open, hund = inf, mu = 0, T = 0.02, random start, seed 7) as `name`,
 * thermalize + sweeps long, into *tab; nonzero (and a failed check) when it failed */
static int low_t_run(const char *name, long thermalize, long sweeps, phys_table *tab)
{
    char sections[1024];
    snprintf(sections, sizeof sections,
             ED_HH "[schedule]\nthermalize = %ld\nadapt_every = 10\nsweeps = %ld\n"
                   "temperatures = 0.02\n\n[model]\nlattice = cubic\nL = 4\nboundary = open\n"
                   "mu = 0\nmove = rotation\nstart = random\n",
             thermalize, sweeps);
    const int bad = phys_run_mcf(mcf_program, name, "double-exchange", 7, sections, tab);
    CHECK(!bad, "the low-temperature run %s failed", name);
    return bad;
}

static void test_low_temperature(void)
{
    const int L = 4;
    const double T = 0.02, t = 1.0, N = 64.0, bonds = 3.0 * L * L * (L - 1);
    printf("(b) T = %g, cubic %d^3 open, hund = inf, mu = 0, random start: ferromagnetic "
           "order\n",
           T, L);
    phys_table tab;
    if (low_t_run("de_low_T", 150, 300, &tab))
        return;
    const double e = phys_get(&tab, 0, "energy"), m = phys_get(&tab, 0, "abs_m");
    const double m_err = phys_get(&tab, 0, "abs_m_err"), nn = phys_get(&tab, 0, "nn_correlation");
    const double nn_err = phys_get(&tab, 0, "nn_correlation_err");
    const double W = spin_wave_sum_open(L);
    const double K_bond = fabs(e) * N / bonds, J_eff = K_bond / 4.0;
    printf("  energy %.5f -> kinetic energy per bond %.5f, J_eff = %.5f, T / J_eff = %.3f, "
           "W = %.5f, acceptance %.3f\n",
           e, K_bond, J_eff, T / J_eff, W, phys_get(&tab, 0, "acceptance"));
    printf("  abs_m = %.5f +- %.5f, nn_correlation = %.5f +- %.5f\n", m, m_err, nn, nn_err);
    check_deficit("abs_m", m, m_err, T / (2.0 * J_eff) * W);
    check_deficit("nn_correlation", nn, nn_err, (N - 1.0) * T / (bonds * J_eff));
    check_exact(&tab, T, N, t);
    phys_table_free(&tab);
}

/* (b)'s set-up cut to 42 sweeps: its exact checks alone (the default tier) */
static void test_half_filling(void)
{
    const double T = 0.02, t = 1.0, N = 64.0;
    printf("(b) exact checks: T = %g, cubic 4^3 open, hund = inf, mu = 0, 42 sweeps\n", T);
    phys_table tab;
    if (low_t_run("de_low_T_short", 10, 32, &tab))
        return;
    printf("  abs_m = %.5f, nn_correlation = %.5f (not compared: 32 sweeps from a random "
           "start)\n",
           phys_get(&tab, 0, "abs_m"), phys_get(&tab, 0, "nn_correlation"));
    check_exact(&tab, T, N, t);
    phys_table_free(&tab);
}

/* ---- (c) large finite Hund coupling against infinite ----------------------------------- */

static void test_hund_limit(void)
{
    const double T = 0.2, t = 1.0, JH = 40.0, N = 27.0, bonds = 81.0;
    printf("(c) hund = %g, mu = -%g against hund = inf, mu = 0: cubic 3^3 periodic, T = %g\n", JH,
           JH, T);
    const char *common = "[schedule]\nthermalize = 100\nsweeps = 700\ntemperatures = 0.2\n\n"
                         "[model]\nlattice = cubic\nL = 3\nboundary = periodic\nmove = uniform\n"
                         "start = random\n";
    char sections[1024];
    phys_table inf_tab, fin_tab;
    snprintf(sections, sizeof sections, ED_HH "%shund = inf\nmu = 0\n", common);
    if (phys_run_mcf(mcf_program, "de_hund_inf", "double-exchange", 40, sections, &inf_tab)) {
        CHECK(0, "the hund = inf run failed");
        return;
    }
    snprintf(sections, sizeof sections, ED_HH "%shund = 40\nmu = -40\n", common);
    if (phys_run_mcf(mcf_program, "de_hund_40", "double-exchange", 40, sections, &fin_tab)) {
        CHECK(0, "the hund = 40 run failed");
        phys_table_free(&inf_tab);
        return;
    }
    const double e_inf = phys_get(&inf_tab, 0, "energy"), n_inf = phys_get(&inf_tab, 0, "density");
    const double nn_inf = phys_get(&inf_tab, 0, "nn_correlation");
    const double m2_inf = phys_get(&inf_tab, 0, "m2"), m_inf = phys_get(&inf_tab, 0, "abs_m");
    /* the t^2 / J_H estimates (see the header) */
    const double J_AF = t * t * n_inf / (2.0 * JH);
    const double J_eff = fabs(e_inf) * N / (4.0 * bonds);
    const double r = J_AF / J_eff;
    const double E2 = -(t * t * n_inf / (2.0 * JH)) * (bonds / N) * (1.0 - nn_inf);
    const double d_nn = r * fabs(nn_inf), d_m2 = r * fabs(m2_inf - 1.0 / N);
    const double d_m = d_m2 / (2.0 * m_inf);
    printf("  J_AF = %.4f, J_eff = %.4f, r = %.3f; allowances: nn %.4f, m2 %.4f, abs_m %.4f, "
           "energy %.4f\n",
           J_AF, J_eff, r, d_nn, d_m2, d_m, fabs(E2));
    static const char *const obs[] = {"abs_m", "m2", "nn_correlation"};
    const double allow[] = {d_m, d_m2, d_nn};
    for (size_t k = 0; k < 3; k++) {
        char err_name[64], what[64];
        snprintf(err_name, sizeof err_name, "%s_err", obs[k]);
        snprintf(what, sizeof what, "%s (40 vs inf)", obs[k]);
        const double a = phys_get(&fin_tab, 0, obs[k]), b = phys_get(&inf_tab, 0, obs[k]);
        const double s = combined(phys_get(&fin_tab, 0, err_name),
                                  phys_get(&inf_tab, 0, err_name));
        phys_compare(what, a, s, b, 3.0, allow[k]);
    }
    const double e_fin = phys_get(&fin_tab, 0, "energy"), n_fin = phys_get(&fin_tab, 0, "density");
    const double shifted = e_fin + JH * n_fin;
    const double s_fin = phys_get(&fin_tab, 0, "energy_err") + JH * phys_get(&fin_tab, 0,
                                                                             "density_err");
    printf("  energy: hund = 40 %.5f, density %.5f -> energy + J_H density = %.5f; "
           "hund = inf %.5f, density %.5f; predicted with E_2: %.5f\n",
           e_fin, n_fin, shifted, e_inf, n_inf, e_inf + E2);
    phys_compare("energy + J_H density", shifted,
                 combined(s_fin, phys_get(&inf_tab, 0, "energy_err")), e_inf, 3.0, fabs(E2));
    phys_table_free(&inf_tab);
    phys_table_free(&fin_tab);
}

/* ---- (d) refusals and the warning ------------------------------------------------------- */

/* Writes a spins file of `lines` unit vectors along +z (a comment line first, and a blank
 * line), with line `bad_line` (numbered as in the file; 0 for none) replaced by a vector
 * of length 1.1.  0 on success. */
static int write_spins(const char *path, int lines, int bad_line)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int line = 1;
    fprintf(f, "# initial spins of the 3^3 lattice, x fastest\n");
    line++;
    fprintf(f, "\n");
    line++;
    for (int k = 0; k < lines; k++, line++) {
        if (line == bad_line)
            fprintf(f, "0 0 1.1\n");
        else
            fprintf(f, "0 0 1   # site %d\n", k);
    }
    return fclose(f) ? -1 : 0;
}

static void test_refusals(void)
{
    printf("(d) refusals and the mu warning\n");
    const char *sched = "[schedule]\nthermalize = 0\nsweeps = 32\ntemperatures = 1\n\n";
    char sections[2048];

    expect_refusal("de_T_zero",
                   "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 32\n"
                   "temperatures = 0\n\n[model]\nL = 3\n",
                   (const char *const[]){"temperatures", "0", NULL});
    expect_refusal("de_T_inf",
                   "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 32\n"
                   "temperatures = inf\n\n[model]\nL = 3\n",
                   (const char *const[]){"fix [schedule] temperatures", NULL});
    snprintf(sections, sizeof sections, "evaluator = ed\n\n%s[model]\nL = 3\nhund = 0\n", sched);
    expect_refusal("de_hund_zero", sections, (const char *const[]){"hund", "> 0", NULL});
    snprintf(sections, sizeof sections, "evaluator = ed\n\n%s[model]\nL = 2\n", sched);
    expect_refusal("de_L2_periodic", sections,
                   (const char *const[]){"L = 2", "periodic", "boundary = open", NULL});
    snprintf(sections, sizeof sections, "evaluator = none\n\n%s[model]\nL = 3\n", sched);
    expect_refusal("de_no_evaluator", sections,
                   (const char *const[]){"evaluator = none", "evaluator = kpm", NULL});

    char dir[PHYS_PATH_MAX], bad[PHYS_PATH_MAX], few[PHYS_PATH_MAX], good[PHYS_PATH_MAX];
    if (phys_fresh_dir("de_spins", dir, sizeof dir)) {
        CHECK(0, "no scratch folder for the spins files");
        return;
    }
    snprintf(bad, sizeof bad, "%s/bad.txt", dir);
    snprintf(few, sizeof few, "%s/few.txt", dir);
    snprintf(good, sizeof good, "%s/good.txt", dir);
    /* line 3 is the first spin (after the comment and the blank line); line 9 the 7th */
    CHECK(write_spins(bad, 27, 9) == 0 && write_spins(few, 26, 0) == 0 &&
              write_spins(good, 27, 0) == 0,
          "cannot write the spins files in %s", dir);
    char where[PHYS_PATH_MAX + 8];
    snprintf(where, sizeof where, "%s:9:", bad);
    snprintf(sections, sizeof sections, "evaluator = ed\n\n%s[model]\nL = 3\nspins = %s\n",
             sched, bad);
    expect_refusal("de_spins_length", sections,
                   (const char *const[]){where, "length 1.1", NULL});
    snprintf(sections, sizeof sections, "evaluator = ed\n\n%s[model]\nL = 3\nspins = %s\n",
             sched, few);
    expect_refusal("de_spins_count", sections,
                   (const char *const[]){"26 spin lines", "27 sites", NULL});

    /* a valid file is accepted (with finite hund and open boundaries, a path the other
     * cases do not take) */
    phys_table tab;
    snprintf(sections, sizeof sections,
             "evaluator = ed\n\n%s[model]\nL = 3\nboundary = open\nhund = 5\nmu = -5\n"
             "spins = %s\n",
             sched, good);
    if (phys_run_mcf(mcf_program, "de_spins_good", "double-exchange", 5, sections, &tab))
        CHECK(0, "a run from a valid spins file failed");
    else
        phys_table_free(&tab);

    /* mu = 10 above the band [-4, 4] of the square lattice: a warning, once for the one
     * chain, and a full band */
    const double T = 1.0, mu = 10.0, top = 4.0, N = 16.0;
    snprintf(sections, sizeof sections,
             "evaluator = ed\n\n%s[model]\nlattice = square\nL = 4\nmu = 10\n", sched);
    if (phys_run_mcf(mcf_program, "de_mu_outside", "double-exchange", 5, sections, &tab)) {
        CHECK(0, "the run with mu = 10 failed (it should only warn)");
        return;
    }
    static char text[1 << 16];
    run_output("de_mu_outside", text, sizeof text);
    const int warnings = count_text(text, "warning: double-exchange");
    printf("  de_mu_outside: %d warning(s) from the model in the output\n", warnings);
    CHECK(warnings == 1, "expected one mu warning for the one chain, found %d", warnings);
    CHECK(phys_contains(text, "mu = 10") && phys_contains(text, "outside the spectrum"),
          "the warning does not name mu = 10 and the spectrum");
    const double density = phys_get(&tab, 0, "density");
    const double floor_n = 1.0 / (1.0 + exp(-(mu - top) / T));
    printf("  density = %.6f >= %.6f (every level below z|t| = %g)\n", density, floor_n, top);
    /* at most 1, up to the rounding of a sum of N occupations */
    CHECK(density >= floor_n && density <= 1.0 + N * DBL_EPSILON,
          "density %.8f not in [%.8f, 1]", density, floor_n);
    phys_table_free(&tab);
}

int main(int argc, char **argv)
{
    const int tier = phys_tier(argc, argv, "(a) high T, (b) the ferromagnet, (c) hund = 40");
    if (tier > 1)
        return tier;
    mcf_program = argv[1];
    const double t0 = phys_now();
    if (!tier) {
        test_refusals();
        test_half_filling();
    } else {
        test_high_temperature();
        test_hund_limit();
        test_low_temperature();
    }
    printf("test_double_exchange%s: %.1f s\n", tier ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
