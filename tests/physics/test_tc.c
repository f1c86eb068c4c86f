/* test_tc — `mcf tc DIR`: multi-histogram reweighting and the crossings of the Binder
 * cumulant and of xi/L (core/program/tc*.c; docs/methods.md, "Finite-size scaling").
 *
 * (a) Reweighting against exact enumeration: the 4 x 4 torus measured at T = 2.0, 2.5, 3.0
 *     only (beside an 8 x 8 at the same T, since mcf tc wants two sizes); tc-curves.tsv's
 *     energy and Binder cumulant of L = 4 at T = 2.25 and 2.75, between the simulated
 *     temperatures, must meet the exact values of the 2^16 states within 4 of their
 *     jackknife errors (16 blocks: an error estimate good to ~1/sqrt(30) = 18%, so 4 of
 *     them is > 3 true sigma; the seed is fixed).  Also at a simulated T = 2.5.
 * (b) The 2D Ising model, L = 8, 16, 32, 22000 sweeps at 6 temperatures across T_c: T_c of
 *     the Binder and of the xi/L crossings, extrapolated, must meet Onsager's
 *     2 / ln(1 + sqrt 2) = 2.269185 within 3 of their jackknife errors, and nu within 3
 *     of its error of 1.  No allowance for the finite-size shift: it is measured smaller
 *     than the errors here (the L = 8/16 Binder crossing, the most shifted, lay
 *     0.005 below T_c with an error of 0.009 when this test was written), and the
 *     extrapolation removes its leading term.  Each pair's crossing must be within 3 of its
 *     error too (the same argument).
 * (c) Refusals, each with a message saying what to change: no series (series = no), one
 *     size, curves that do not cross (L = 4, 8 at T = 3.5, 4.0: above T_c the larger
 *     lattice has the smaller U and xi/L at every T).
 *
 * Usage: test_tc PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#include <stdint.h>

#define NSITES 16

static double counts[4 * NSITES + 1][2 * NSITES + 1];

static void enumerate(void)
{
    for (uint32_t state = 0; state < (1u << NSITES); state++) {
        int b = 0, m = 0;
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) {
                const int i = x + 4 * y, right = (x + 1) % 4 + 4 * y, up = x + 4 * ((y + 1) % 4);
                const int s = (state >> i) & 1u ? 1 : -1;
                b += s * (((state >> right) & 1u ? 1 : -1) + ((state >> up) & 1u ? 1 : -1));
                m += s;
            }
        counts[b + 2 * NSITES][m + NSITES] += 1;
    }
}

/* exact energy per site and Binder cumulant of the 4 x 4 torus at T */
static void exact4(double T, double *e, double *U)
{
    double z = 0, se = 0, s2 = 0, s4 = 0;
    for (int b = -2 * NSITES; b <= 2 * NSITES; b++)
        for (int m = -NSITES; m <= NSITES; m++) {
            const double g = counts[b + 2 * NSITES][m + NSITES];
            if (g == 0)
                continue;
            const double w = g * exp((b - 2 * NSITES) / T), mm = (double)m / NSITES;
            z += w;
            se += w * -b / (double)NSITES;
            s2 += w * mm * mm;
            s4 += w * mm * mm * mm * mm;
        }
    *e = se / z;
    *U = 1.0 - (s4 / z) / (3.0 * (s2 / z) * (s2 / z));
}

/* `mcf tc DIR ARGS` with its output in DIR/tc.out; the exit status, -1 if it did not run */
static int run_tc(const char *mcf, const char *dir, const char *args)
{
    static char cmd[3 * PHYS_PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' tc '%s' %s > '%s/tc.out' 2>&1", mcf, dir, args, dir);
    const double t0 = phys_now();
    int status = system(cmd);
    printf("mcf tc %s: %.1f s\n", dir, phys_now() - t0);
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* "# T_c (NAME) = X +- E" of DIR/tc.tsv and "nu (largest pair) = N +- NE" */
static int read_tc(const char *dir, const char *name, double *tc, double *err, double *nu,
                   double *nu_err)
{
    char path[PHYS_PATH_MAX], line[4096], head[128];
    snprintf(path, sizeof path, "%s/tc.tsv", dir);
    snprintf(head, sizeof head, "# T_c (%s) = ", name);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        if (!strncmp(line, head, strlen(head))) {
            const char *n = strstr(line, "nu (largest pair) = ");
            found = sscanf(line + strlen(head), "%lf +- %lf", tc, err) == 2 && n &&
                    sscanf(n + 20, "%lf +- %lf", nu, nu_err) == 2;
        }
    if (f)
        fclose(f);
    return found;
}

static void reweighting(const char *mcf)
{
    phys_table t, c;
    if (phys_run_mcf(mcf, "tc_exact4x4", "ising", 20261201ull,
                     "series = yes\n[schedule]\nthermalize = 2000\nsweeps = 32000\n"
                     "temperatures = 2.0, 2.5, 3.0\n[model]\nL = 4, 8\n", &t)) {
        CHECK(0, "(a): mcf run failed");
        return;
    }
    phys_table_free(&t);
    char dir[PHYS_PATH_MAX], curves[PHYS_PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/tc_exact4x4/out", getenv("MCF_TEST_TMP"));
    const int rc = run_tc(mcf, dir, "--grid 41"); /* T = 2.0, 2.025, ... 3.0 */
    CHECK(rc == 0, "(a): mcf tc exited %d", rc);
    snprintf(curves, sizeof curves, "%s/tc-curves.tsv", dir);
    if (rc != 0 || phys_read_table(curves, &c))
        return;
    const double temps[] = {2.25, 2.5, 2.75};
    for (int k = 0; k < 3; k++) {
        long row = -1;
        double best = INFINITY;
        for (size_t r = 0; r < c.nrows; r++) /* the grid point nearest T, of L = 4 */
            if (phys_get(&c, r, "L") == 4 && fabs(phys_get(&c, r, "T") - temps[k]) < best) {
                best = fabs(phys_get(&c, r, "T") - temps[k]);
                row = (long)r;
            }
        CHECK(row >= 0, "(a): no L = 4 curve");
        if (row < 0)
            continue;
        const double T = phys_get(&c, (size_t)row, "T");
        double e, U;
        exact4(T, &e, &U);
        printf("L = 4, T = %.4f (reweighted from 2.0, 2.5, 3.0)\n", T);
        phys_compare("energy per site", phys_get(&c, (size_t)row, "energy"),
                     phys_get(&c, (size_t)row, "energy_err"), e, 4.0, 0.0);
        phys_compare("Binder cumulant", phys_get(&c, (size_t)row, "binder"),
                     phys_get(&c, (size_t)row, "binder_err"), U, 4.0, 0.0);
    }
    phys_table_free(&c);
}

static void onsager(const char *mcf)
{
    phys_table t;
    if (phys_run_mcf(mcf, "tc_ising", "ising", 20261202ull,
                     "series = yes\nextra_observables = m2_kmin\n[schedule]\n"
                     "thermalize = 2000\nsweeps = 20000\ntemperatures = 2.15:2.40:6\n"
                     "[model]\nL = 8, 16, 32\n", &t)) {
        CHECK(0, "(b): mcf run failed");
        return;
    }
    phys_table_free(&t);
    char dir[PHYS_PATH_MAX], table[PHYS_PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/tc_ising/out", getenv("MCF_TEST_TMP"));
    const int rc = run_tc(mcf, dir, "");
    CHECK(rc == 0, "(b): mcf tc exited %d", rc);
    const double Tc = 2.0 / log(1.0 + sqrt(2.0));
    static const char *const names[] = {"binder", "xi_over_l"};
    for (int q = 0; q < 2; q++) {
        double tc, err, nu, nu_err;
        CHECK(read_tc(dir, names[q], &tc, &err, &nu, &nu_err), "(b): tc.tsv has no T_c (%s)",
              names[q]);
        printf("%s\n", names[q]);
        phys_compare("T_c (extrapolated)", tc, err, Tc, 3.0, 0.0);
        phys_compare("nu (16/32)", nu, nu_err, 1.0, 3.0, 0.0);
    }
    phys_table pairs;
    snprintf(table, sizeof table, "%s/tc.tsv", dir);
    if (phys_read_table(table, &pairs) == 0) {
        CHECK(pairs.nrows == 4, "(b): tc.tsv has %zu rows, expected 2 quantities x 2 pairs",
              pairs.nrows);
        for (size_t r = 0; r < pairs.nrows; r++) {
            printf("crossing L = %g/%g\n", phys_get(&pairs, r, "L1"), phys_get(&pairs, r, "L2"));
            phys_compare("T*", phys_get(&pairs, r, "T_cross"),
                         phys_get(&pairs, r, "T_cross_err"), Tc, 3.0, 0.0);
        }
        phys_table_free(&pairs);
    }
}

/* a run of `sections`, then mcf tc, which must fail with a message holding `needle` */
static void refused(const char *mcf, const char *name, const char *sections, const char *needle)
{
    phys_table t;
    if (phys_run_mcf(mcf, name, "ising", 7ull, sections, &t)) {
        CHECK(0, "(c) %s: mcf run failed", name);
        return;
    }
    phys_table_free(&t);
    char dir[PHYS_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s/out", getenv("MCF_TEST_TMP"), name);
    const int rc = run_tc(mcf, dir, "");
    printf("(c) %s: exit %d\n", name, rc);
    CHECK(rc == 2, "(c) %s: mcf tc exited %d, expected 2 (a refusal)", name, rc);
    CHECK(phys_file_has(name, "out/tc.out", needle, NULL), "(c) %s: the message does not say "
          "'%s'", name, needle);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    enumerate();
    reweighting(argv[1]);
    onsager(argv[1]);
    refused(argv[1], "tc_no_series", "[schedule]\nthermalize = 100\nsweeps = 640\n"
            "temperatures = 2.0, 2.5\n[model]\nL = 4, 8\n", "series = yes");
    refused(argv[1], "tc_one_size", "series = yes\n[schedule]\nthermalize = 100\n"
            "sweeps = 640\ntemperatures = 2.0, 2.5\n[model]\nL = 4\n", "two sizes or more");
    refused(argv[1], "tc_no_crossing", "series = yes\nextra_observables = m2_kmin\n"
            "[schedule]\nthermalize = 500\nsweeps = 4000\ntemperatures = 3.5, 4.0\n"
            "[model]\nL = 4, 8\n", "no two sizes cross");
    return check_exit();
}
