/* test_anderson.c — the Anderson model of disorder through `mcf run`, with the KPM
 * evaluator.
 *
 * (a) Clean cubic lattice (W = 0): the DOS per state integrates to 1 over E, and is
 *     symmetric about E = 0 (a bipartite lattice) within its error bars.
 * (b) The Anderson transition seen in the typical DOS: the ratio rho_typ(0) / rho(0) of the
 *     typical DOS exp<log rho_i(0)> to the average DOS falls monotonically with W over
 *     W = 2, 8, 14, 20, 26 (each step beyond the error bars), is >= 0.5 at W = 2 (extended
 *     states: the LDOS of every site looks like the DOS) and < 0.1 at W = 26.  Why so small
 *     deep in the localized phase (W >> W_c = 16.5): a site's LDOS is then a sum of a few
 *     isolated peaks, one per localized state near the site, and the kernel resolution
 *     (about pi a / M, a the half-width of the rescaled spectrum) is finer than the level
 *     spacing of those states, so at a given E most sites sit between peaks where their
 *     LDOS is exponentially small, and its geometric mean collapses while the arithmetic
 *     mean stays the DOS.  At W = 2 the resolution must instead be coarser than the level
 *     spacing of the whole finite lattice (1 / (N rho)), or even extended states show up
 *     as separate peaks: L = 12 (N = 1728, spacing ~0.004) with M = 1024 (resolution
 *     ~0.02 at W = 2, ~0.06 at W = 26) satisfies both.
 * (d) (long) The same transition in the DC conductivity (issue 47): sigma_xx(E = 0) by
 *     Kubo-Bastin at T = 0 from ed's exact two-dimensional moments (response_moments = 256,
 *     cubic L = 8, 24 realizations each at W = 4 and W = 24, one scan), and from the first 128
 *     of the same moments (`mcf response --moments 128`).  A kernel of width eta ~ pi a / M
 *     broadens the Kubo formula: a metal's sigma does not depend on eta once eta exceeds the
 *     level spacing (here ~0.03 and ~0.07 against eta ~ 0.1 and 0.2), an insulator's
 *     broadened sigma grows with eta (sigma ~ eta where eta is below the localized states'
 *     energy scale), so the ratio r = sigma(256) / sigma(128) is 1 in the metal and below 1
 *     in the insulator.  Its error: the delta method on the two jackknife errors as if
 *     independent (the two share their samples, so this overstates it).  Asserted: the metal's
 *     r within 3 errors of 1, the insulator's below the metal's by more than 3 combined
 *     errors, and sigma(W = 24) below a tenth of sigma(W = 4) — the conductivity vanishing
 *     beyond W_c ~ 16.5 as the typical DOS of (b) does.
 * (c) Bad input refused through `mcf run`, each with a message that says what to fix:
 *     W = -1, an ldos_sites index beyond the lattice, [run] evaluator = none, and
 *     [evaluator] moments = 1 (the kpm plugin's declaration).
 *
 * Tiers (docs/reliability.md, "The time of .ci/run"): test_anderson runs (c), (a) (32 sweeps
 * at M = 256: ~0.3 s of sampling) and (b)'s set-up cut to L = 6, M = 256, 8 sites x 32
 * realizations, which holds what (b) asserts without statistics: the scan writes a dos and a
 * typical_dos curve for every W, their grids hold E = 0, and each ratio is a number with a
 * positive error (the ratios are printed, not compared); test_anderson_long (`--long`, label
 * long: skipped, 77, unless MCF_TEST_LONG=1) runs (b) as above (L = 12 at M = 1024: ~20 s of CPU)
 * and (d) (~4 min of CPU).
 *
 * Usage: test_anderson MCF_PROGRAM [--long] (run through ctest, which sets MCF_TEST_TMP and
 * MCF_PLUGIN_PATH). */
#include "physics_util.h"

#include <ctype.h>

static const char *mcf_program;

/* ---- curve files --------------------------------------------------------------------- */

/* One curve of <output>/<obs>.tsv: the rows whose scan column `axis` equals `value` (all
 * rows when axis is NULL), in file order (ascending E). */
typedef struct curve {
    size_t n;
    double *E, *v, *err;
} curve;

static void curve_free(curve *c)
{
    free(c->E);
    free(c->v);
    free(c->err);
    memset(c, 0, sizeof *c);
}

static int read_curve(const char *run_name, const char *obs, const char *axis, double value,
                      curve *out)
{
    memset(out, 0, sizeof *out);
    char path[PHYS_PATH_MAX], err_name[128];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/%s/out/%s.tsv", tmp ? tmp : ".", run_name, obs);
    snprintf(err_name, sizeof err_name, "%s_err", obs);
    phys_table t;
    if (phys_read_table(path, &t))
        return -1;
    int ka = axis ? phys_col(&t, axis) : -2, ke = phys_col(&t, "E"), kv = phys_col(&t, obs),
        kr = phys_col(&t, err_name);
    if (ka == -1 || ke < 0 || kv < 0 || kr < 0) {
        phys_table_free(&t);
        return -1;
    }
    out->E = malloc(t.nrows * sizeof *out->E);
    out->v = malloc(t.nrows * sizeof *out->v);
    out->err = malloc(t.nrows * sizeof *out->err);
    if (!out->E || !out->v || !out->err) {
        phys_table_free(&t);
        curve_free(out);
        return -1;
    }
    for (size_t r = 0; r < t.nrows; r++) {
        const double *row = t.v + r * t.ncols;
        if (ka >= 0 && fabs(row[ka] - value) > 1e-9 * fmax(1.0, fabs(value)))
            continue;
        out->E[out->n] = row[ke];
        out->v[out->n] = row[kv];
        out->err[out->n] = row[kr];
        out->n++;
    }
    phys_table_free(&t);
    if (out->n < 2) {
        fprintf(stderr, "physics: %s has %zu rows for %s = %g\n", path, out->n,
                axis ? axis : "-", value);
        curve_free(out);
        return -1;
    }
    return 0;
}

/* Value and error of a curve at energy x, linearly interpolated between grid points. */
static int curve_at(const curve *c, double x, double *v, double *err)
{
    for (size_t k = 0; k + 1 < c->n; k++) {
        if (c->E[k] <= x && x <= c->E[k + 1]) {
            const double w = (x - c->E[k]) / (c->E[k + 1] - c->E[k]);
            *v = (1 - w) * c->v[k] + w * c->v[k + 1];
            *err = (1 - w) * c->err[k] + w * c->err[k + 1];
            return 0;
        }
    }
    return -1;
}

/* Trapezoid rule over the curve's own (non-uniform) grid, every `step`-th point. */
static double trapezoid(const double *E, const double *y, size_t n, size_t step)
{
    double s = 0;
    size_t prev = 0;
    for (size_t k = step; k < n; k += step) {
        s += 0.5 * (E[k] - E[prev]) * (y[k] + y[prev]);
        prev = k;
    }
    return s;
}

/* ---- refused runs -------------------------------------------------------------------- */

static void expect_refusal(const char *name, const char *sections, const char *const *needles)
{
    phys_expect_refusal(mcf_program, name, "anderson", sections, needles);
}

/* ---- (a) clean lattice --------------------------------------------------------------- */

static void test_clean(void)
{
    printf("(a) W = 0, cubic L = 12, KPM M = 256: normalization and symmetry of the DOS\n");
    phys_table t;
    const char *sections = "evaluator = kpm\n\n"
                           "[schedule]\nthermalize = 0\nsweeps = 32\n\n"
                           "[model]\nlattice = cubic\nL = 12\nW = 0\ntypical_sites = 4\n\n"
                           "[evaluator]\nmoments = 256\nvectors = 4\nenergy_points = 1024\n"
                           "random = phase\n";
    if (phys_run_mcf(mcf_program, "anderson_clean", "anderson", 11, sections, &t)) {
        CHECK(0, "the clean run failed");
        return;
    }
    phys_table_free(&t);
    curve c;
    if (read_curve("anderson_clean", "dos", NULL, 0, &c)) {
        CHECK(0, "cannot read dos.tsv of the clean run");
        return;
    }
    /* normalization: the trapezoid over the Chebyshev grid, with its discretization error
     * estimated from the same rule on every other point (Richardson: |I_h - I_2h| is about
     * 3x the error of I_h for a smooth curve) and the statistical error bounded by the
     * integral of the pointwise errors (their correlation is at most complete) */
    const double I = trapezoid(c.E, c.v, c.n, 1), I2 = trapezoid(c.E, c.v, c.n, 2);
    const double Ierr = trapezoid(c.E, c.err, c.n, 1);
    const double h_max = (c.E[c.n - 1] - c.E[0]) * M_PI / (2.0 * (double)c.n);
    printf("  %zu grid points over [%.4f, %.4f], largest spacing ~%.4f\n", c.n, c.E[0],
           c.E[c.n - 1], h_max);
    phys_compare("integral of dos over E", I, Ierr, 1.0, 3.0, fabs(I - I2));
    /* and without statistics: random phase vectors have <r|r> = N exactly, so the zeroth
     * moment is exactly 1 in every measurement and only the quadrature can miss; the
     * trapezoid's error is O(h^2) with h the grid spacing */
    const double grid_tol = fabs(I - I2) + h_max * h_max;
    printf("  |integral - 1| = %.2e, grid tolerance |I_h - I_2h| + h^2 = %.2e\n", fabs(I - 1.0),
           grid_tol);
    CHECK(fabs(I - 1.0) <= grid_tol,
          "the DOS integrates to %.8f, off by more than the grid tolerance %.2e", I, grid_tol);
    /* symmetry: rho(E) - rho(-E) against the combined error, point by point */
    double max_z = 0, sum_z2 = 0;
    size_t pairs = 0;
    for (size_t k = 0; k < c.n / 2; k++) {
        double v, e;
        if (curve_at(&c, -c.E[k], &v, &e))
            continue;
        const double s = sqrt(c.err[k] * c.err[k] + e * e);
        const double d = c.v[k] - v;
        if (s == 0) {
            CHECK(d == 0, "rho(%g) = %g differs from rho(%g) = %g with zero error", c.E[k],
                  c.v[k], -c.E[k], v);
            continue;
        }
        const double z = d / s;
        sum_z2 += z * z;
        if (fabs(z) > max_z)
            max_z = fabs(z);
        pairs++;
    }
    printf("  symmetry over %zu pairs E, -E: max |diff|/err = %.2f, mean (diff/err)^2 = %.2f\n",
           pairs, max_z, pairs ? sum_z2 / (double)pairs : NAN);
    CHECK(pairs > 100, "only %zu symmetric pairs", pairs);
    /* 5 sigma over ~500 correlated pairs (errors from 32 jackknife bins: t-distributed) */
    CHECK(max_z < 5.0, "the DOS is not symmetric about E = 0: a pair differs by %.2f sigma",
          max_z);
    CHECK(sum_z2 / (double)pairs < 2.5,
          "the DOS is not symmetric about E = 0: mean (diff/err)^2 = %.2f",
          sum_z2 / (double)pairs);
    curve_free(&c);
}

/* ---- (b) typical DOS across the transition ------------------------------------------- */

/* short: the set-up cut to L = 6, M = 256, 8 sites x 32 realizations (the default tier):
 * the checks without statistics alone */
static void test_transition(int short_run)
{
    static const double W[] = {2, 8, 14, 20, 26};
    const size_t nW = sizeof W / sizeof W[0];
    phys_table t;
    const char *name = short_run ? "anderson_transition_short" : "anderson_transition";
    const char *sections;
    if (short_run) {
        printf("(b) without statistics: rho_typ(0) / rho(0) against W, cubic L = 6, KPM "
               "M = 256, 8 sites x 32 realizations\n");
        sections = "evaluator = kpm\n\n"
                   "[schedule]\nthermalize = 0\nsweeps = 32\n\n"
                   "[model]\nlattice = cubic\nL = 6\nW = 2, 8, 14, 20, 26\n"
                   "typical_sites = 8\n\n"
                   "[evaluator]\nmoments = 256\nvectors = 4\nenergy_points = 257\n";
    } else {
        printf("(b) rho_typ(0) / rho(0) against W, cubic L = 12, KPM M = 1024, 32 sites x 32 "
               "realizations\n");
        sections = "evaluator = kpm\n\n"
                   "[schedule]\nthermalize = 0\nsweeps = 32\n\n"
                   "[model]\nlattice = cubic\nL = 12\nW = 2, 8, 14, 20, 26\n"
                   "typical_sites = 32\n\n"
                   "[evaluator]\nmoments = 1024\nvectors = 4\nenergy_points = 1025\n";
    }
    if (phys_run_mcf(mcf_program, name, "anderson", 12, sections, &t)) {
        CHECK(0, "the transition run failed");
        return;
    }
    phys_table_free(&t);
    double ratio[5], ratio_err[5];
    for (size_t w = 0; w < nW; w++) {
        curve d, ty;
        ratio[w] = ratio_err[w] = NAN;
        if (read_curve(name, "dos", "W", W[w], &d)) {
            CHECK(0, "no dos curve for W = %g", W[w]);
            continue;
        }
        if (read_curve(name, "typical_dos", "W", W[w], &ty)) {
            CHECK(0, "no typical_dos curve for W = %g", W[w]);
            curve_free(&d);
            continue;
        }
        double rho, rho_err, typ, typ_err;
        if (curve_at(&d, 0.0, &rho, &rho_err) || curve_at(&ty, 0.0, &typ, &typ_err)) {
            CHECK(0, "E = 0 is outside the grid for W = %g", W[w]);
        } else {
            ratio[w] = typ / rho;
            /* relative errors in quadrature: the two are positively correlated (the same
             * realizations), so this overestimates the ratio's error */
            ratio_err[w] = ratio[w] * sqrt(pow(typ_err / typ, 2) + pow(rho_err / rho, 2));
            printf("  W = %4.1f   rho(0) = %.5f +- %.5f   rho_typ(0) = %.3e +- %.2e   ratio = "
                   "%.4f +- %.4f\n",
                   W[w], rho, rho_err, typ, typ_err, ratio[w], ratio_err[w]);
            CHECK(isfinite(ratio[w]) && isfinite(ratio_err[w]) && ratio_err[w] > 0,
                  "W = %g: ratio %g +- %g is not a number with a positive error", W[w],
                  ratio[w], ratio_err[w]);
        }
        curve_free(&d);
        curve_free(&ty);
    }
    if (short_run)
        return;
    for (size_t w = 0; w + 1 < nW; w++) {
        const double gap = ratio[w] - ratio[w + 1];
        const double err = sqrt(ratio_err[w] * ratio_err[w] + ratio_err[w + 1] * ratio_err[w + 1]);
        CHECK(gap > 2.0 * err,
              "rho_typ/rho does not fall from W = %g to %g beyond the errors: %.4f +- %.4f -> "
              "%.4f +- %.4f",
              W[w], W[w + 1], ratio[w], ratio_err[w], ratio[w + 1], ratio_err[w + 1]);
    }
    CHECK(ratio[0] >= 0.5, "W = 2 (extended states): rho_typ/rho = %.4f < 0.5", ratio[0]);
    CHECK(ratio[nW - 1] < 0.1, "W = 26 (localized states): rho_typ/rho = %.4f >= 0.1",
          ratio[nW - 1]);
}

/* ---- (c) bad input ------------------------------------------------------------------- */

static void test_refusals(void)
{
    printf("(c) bad input refused\n");
    const char *base_sched = "[schedule]\nthermalize = 0\nsweeps = 32\n\n";
    static char sections[4096];

    snprintf(sections, sizeof sections,
             "evaluator = kpm\n\n%s[model]\nL = 4\nW = -1\n\n[evaluator]\nmoments = 64\n",
             base_sched);
    expect_refusal("anderson_bad_W", sections,
                   (const char *const[]){"W", "-1", ">= 0", NULL});

    snprintf(sections, sizeof sections,
             "evaluator = kpm\n\n%s[model]\nL = 4\nW = 1\nldos_sites = 0 63 64\n\n"
             "[evaluator]\nmoments = 64\n",
             base_sched);
    expect_refusal("anderson_bad_ldos", sections,
                   (const char *const[]){"ldos_sites", "64", "L = 4", "too small", NULL});

    snprintf(sections, sizeof sections, "evaluator = none\n\n%s[model]\nL = 4\nW = 1\n",
             base_sched);
    expect_refusal("anderson_no_evaluator", sections,
                   (const char *const[]){"evaluator = kpm", NULL});

    snprintf(sections, sizeof sections,
             "evaluator = kpm\n\n%s[model]\nL = 4\nW = 1\n\n[evaluator]\nmoments = 1\n",
             base_sched);
    expect_refusal("anderson_bad_moments", sections,
                   (const char *const[]){"moments", NULL});
}

/* (d): sigma_xx at mu = 0 of both scan points from DIR/FILE after `mcf response ARGS` */
static int sigma_of_run(const char *name, const char *args, const char *file, double *s,
                        double *e)
{
    phys_table t;
    if (phys_run_response(mcf_program, name, args, file, &t))
        return -1;
    int found = 0; /* rows: per scan point sigma_xx, sigma_xy, inv_sigma_xx */
    for (size_t r = 0; r < t.nrows && found < 2; r += 3) {
        s[found] = phys_get(&t, r, "sigma");
        e[found] = phys_get(&t, r, "sigma_err");
        found++;
    }
    const size_t rows = t.nrows;
    phys_table_free(&t);
    return found == 2 && rows == 6 ? 0 : -1;
}

static void test_conductivity(void)
{
    printf("(d) sigma_xx(0) at W = 4 and 24, cubic L = 8, ed, 24 realizations, M = 256 and its "
           "first 128\n");
    const char *sections = "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 24\n"
                           "bins = 8\n\n[model]\nlattice = cubic\nL = 8\nW = 4, 24\n"
                           "typical_sites = 4\nresponse_moments = 256\n";
    phys_table t;
    if (phys_run_mcf(mcf_program, "anderson_sigma", "anderson", 21, sections, &t)) {
        CHECK(0, "(d) the run failed");
        return;
    }
    phys_table_free(&t);
    double s256[2], e256[2], s128[2], e128[2];
    if (sigma_of_run("anderson_sigma", "--mu 0 --T 0", "response-jackson.tsv", s256, e256) ||
        sigma_of_run("anderson_sigma", "--mu 0 --T 0 --moments 128",
                     "response-jackson-M128.tsv", s128, e128)) {
        CHECK(0, "(d) mcf response failed or wrote other rows");
        return;
    }
    double r[2], re[2];
    for (int w = 0; w < 2; w++) {
        r[w] = s256[w] / s128[w];
        re[w] = fabs(r[w]) * hypot(e256[w] / s256[w], e128[w] / s128[w]);
        printf("(d) W = %s: sigma_xx(M = 256) = %.5f +- %.5f, (M = 128) = %.5f +- %.5f, ratio "
               "%.3f +- %.3f\n", w ? "24" : "4", s256[w], e256[w], s128[w], e128[w], r[w],
               re[w]);
    }
    CHECK(re[0] > 0 && re[1] > 0 && fabs(r[0] - 1.0) <= 3.0 * re[0], "(d) the metal's sigma "
          "moved with the kernel: ratio %.3f +- %.3f", r[0], re[0]);
    CHECK(r[0] - r[1] > 3.0 * hypot(re[0], re[1]), "(d) the insulator's ratio %.3f +- %.3f is "
          "not below the metal's %.3f +- %.3f by 3 errors", r[1], re[1], r[0], re[0]);
    CHECK(s256[1] < 0.1 * s256[0], "(d) sigma(W = 24) = %.4g is not below a tenth of "
          "sigma(W = 4) = %.4g", s256[1], s256[0]);
}

int main(int argc, char **argv)
{
    const int tier = phys_tier(argc, argv, "(b) the typical DOS across the transition, (d) "
                               "sigma across it");
    if (tier > 1)
        return tier;
    mcf_program = argv[1];
    const double t0 = phys_now();
    if (!tier) {
        test_refusals();
        test_clean();
        test_transition(1);
    } else {
        test_transition(0);
        test_conductivity();
    }
    printf("test_anderson%s: %.1f s\n", tier ? " (long part)" : "", phys_now() - t0);
    return check_exit();
}
