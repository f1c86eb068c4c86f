/* test_ising_exact4x4 — the 4 x 4 periodic Ising model (J = 1, h = 0) against exact
 * enumeration of all 2^16 states, at T = 1.5, 2.27 and 3.5.
 *
 * The exact values are for the same finite system mcf simulates, so there is no
 * systematic allowance: every quantity must agree within 4 of mcf's own error bars.
 * Plain observables (energy, abs_m, m2, m4) carry blocking errors; the derived ones
 * (specific heat, susceptibility, Binder cumulant, xi_over_l) jackknife errors over 32 bins.
 * m2_kmin, the structure factor at k_min = 2 pi / 4 averaged over x and y, is enumerated
 * beside (b, m) as a sum per class, and xi_over_l = sqrt(m2 / m2_kmin - 1) / (2 L sin(pi/L))
 * follows from the exact m2 and m2_kmin (the second-moment correlation length).  The
 * error bars are themselves estimates (a jackknife over 32 bins has ~ 1/sqrt(2 * 31)
 * = 13% relative uncertainty), so a 4-sigma window passes a correct run with probability
 * above 99.9% per comparison; the seed is fixed, so the outcome is deterministic.
 *
 * Walkers: the same run with [run] walkers = 4 (four independent chains per temperature,
 * combined into one row) must (a) still agree with the exact values within 4 of its
 * combined error bars, and (b) have error bars about half those of the walkers = 1 run
 * with the same sweeps: four times the measurements give 1/sqrt(4) = 0.5.  The window
 * [0.35, 0.7] allows for the scatter of error estimates: an error estimated from n
 * independent blocks has a relative uncertainty of about 1/sqrt(2 n).  Blocking errors
 * here use plateau levels with n of order N / (a few tau) >~ 10^3 blocks (N = 2 x 10^5
 * sweeps, tau a few sweeps): ~2% for walkers = 1, ~1% for the combined four, so the ratio
 * scatters by ~3%.  The jackknife errors of the derived quantities use 32 bins (walkers = 1,
 * 1/sqrt(62) = 13%) against 4 x 32 = 128 bins (walkers = 4, 1/sqrt(254) = 6%), so their
 * ratio scatters by sqrt(0.13^2 + 0.06^2) ~ 14%, i.e. 0.5 +- 0.07: the window is -2 to
 * +2.8 of those sigmas.  (c) walkers = 0 is refused with a message naming the key.
 *
 * Usage: test_ising_exact4x4 PATH_TO_MCF  (through ctest, which sets MCF_TEST_TMP). */
#include "physics_util.h"

#include <stdint.h>
#include <sys/wait.h>

#define LSIZE 4
#define NSITES (LSIZE * LSIZE)

/* Exact thermal averages of the 4 x 4 torus at temperature T. */
typedef struct exact4 {
    double e, abs_m, m2, m4, c, chi, binder, m2k, xi_L;
} exact4;

/* counts[b + 2N][m + N]: number of states with bond sum b = sum_<ij> s_i s_j (2N bonds on
 * the torus, b in [-2N, 2N]) and magnetization m = sum_i s_i. */
static double counts[4 * NSITES + 1][2 * NSITES + 1];
/* the sum over those states of |sum_i s_i exp(i k_min . r_i) / N|^2, averaged over k_min
 * along x and y */
static double kmin_sums[4 * NSITES + 1][2 * NSITES + 1];

static void enumerate(void)
{
    for (uint32_t state = 0; state < (1u << NSITES); state++) {
        int b = 0, m = 0;
        double re[2] = {0, 0}, im[2] = {0, 0};
        for (int y = 0; y < LSIZE; y++)
            for (int x = 0; x < LSIZE; x++) {
                const int i = x + LSIZE * y;
                const int right = (x + 1) % LSIZE + LSIZE * y;
                const int up = x + LSIZE * ((y + 1) % LSIZE);
                const int s = (state >> i) & 1u ? 1 : -1;
                const int sr = (state >> right) & 1u ? 1 : -1;
                const int su = (state >> up) & 1u ? 1 : -1;
                b += s * (sr + su);
                m += s;
                const double k = 2 * M_PI / LSIZE;
                re[0] += s * cos(k * x);
                im[0] += s * sin(k * x);
                re[1] += s * cos(k * y);
                im[1] += s * sin(k * y);
            }
        counts[b + 2 * NSITES][m + NSITES] += 1;
        kmin_sums[b + 2 * NSITES][m + NSITES] +=
            0.5 * (re[0] * re[0] + im[0] * im[0] + re[1] * re[1] + im[1] * im[1]) /
            ((double)NSITES * NSITES);
    }
}

static exact4 exact_at(double T)
{
    const double beta = 1.0 / T, n = NSITES;
    /* Weights exp(beta b) relative to the ground state b = 2N to keep them <= 1. */
    double z = 0, se = 0, se2 = 0, sam = 0, sm2 = 0, sm4 = 0, smk = 0;
    for (int b = -2 * NSITES; b <= 2 * NSITES; b++)
        for (int m = -NSITES; m <= NSITES; m++) {
            const double g = counts[b + 2 * NSITES][m + NSITES];
            if (g == 0)
                continue;
            const double w = g * exp(beta * (b - 2 * NSITES));
            const double e = -b / n, mm = m / n;
            z += w;
            se += w * e;
            se2 += w * e * e;
            sam += w * fabs(mm);
            sm2 += w * mm * mm;
            sm4 += w * mm * mm * mm * mm;
            smk += exp(beta * (b - 2 * NSITES)) * kmin_sums[b + 2 * NSITES][m + NSITES];
        }
    exact4 r;
    r.e = se / z;
    r.abs_m = sam / z;
    r.m2 = sm2 / z;
    r.m4 = sm4 / z;
    r.c = n * (se2 / z - r.e * r.e) / (T * T);
    r.chi = n * (r.m2 - r.abs_m * r.abs_m) / T;
    r.binder = 1.0 - r.m4 / (3.0 * r.m2 * r.m2);
    r.m2k = smk / z;
    r.xi_L = sqrt(r.m2 / r.m2k - 1.0) / (2.0 * LSIZE * sin(M_PI / LSIZE));
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_MCF\n", argv[0]);
        return 2;
    }
    enumerate();
    double total = 0;
    for (int b = 0; b <= 4 * NSITES; b++)
        for (int m = 0; m <= 2 * NSITES; m++)
            total += counts[b][m];
    CHECK(total == 65536.0, "enumeration counted %g states", total);

    /* 16 spins: 200000 measured sweeps = 3.2e6 flips per temperature, under a second.
     * Integrated autocorrelation times are a few sweeps at these T for L = 4, so each
     * series has > 10^4 independent samples and the jackknife bins hold ~ 6000 sweeps,
     * far longer than any autocorrelation time. */
    const double temps[] = {1.5, 2.27, 3.5};
    phys_table t;
    if (phys_run_mcf(argv[1], "ising_exact4x4", "ising", 20240601ull,
                     "extra_observables = m2_kmin\n\n"
                     "[schedule]\n"
                     "thermalize = 5000\n"
                     "sweeps = 200000\n"
                     "measure_every = 1\n"
                     "temperatures = 1.5, 2.27, 3.5\n"
                     "\n[model]\n"
                     "L = 4\n"
                     "J = 1\n"
                     "h = 0\n"
                     "boundary = periodic\n"
                     "start = random\n",
                     &t)) {
        CHECK(0, "mcf run failed");
        return check_exit();
    }
    CHECK(t.nrows == 3, "results.tsv has %zu rows, expected 3", t.nrows);

    static const struct {
        const char *column, *label;
    } cols[] = {{"energy", "energy per site"},
                {"abs_m", "<|m|>"},
                {"m2", "<m^2>"},
                {"m4", "<m^4>"},
                {"specific_heat", "specific heat per site"},
                {"susceptibility", "susceptibility"},
                {"binder", "Binder cumulant"},
                {"m2_kmin", "<|m(k_min)|^2>"},
                {"xi_over_l", "xi / L"}};
    for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
        const double T = temps[k];
        long row = phys_find_row(&t, "T", T);
        CHECK(row >= 0, "no row for T = %g", T);
        if (row < 0)
            continue;
        const exact4 ex = exact_at(T);
        const double exact[] = {ex.e,   ex.abs_m,  ex.m2,  ex.m4, ex.c,
                                ex.chi, ex.binder, ex.m2k, ex.xi_L};
        printf("T = %g (acceptance %.3f)\n", T, phys_get(&t, (size_t)row, "acceptance"));
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char err_name[64];
            snprintf(err_name, sizeof err_name, "%s_err", cols[c].column);
            phys_compare(cols[c].label, phys_get(&t, (size_t)row, cols[c].column),
                         phys_get(&t, (size_t)row, err_name), exact[c], 4.0, 0.0);
        }
    }

    /* (a), (b): four walkers per temperature, the same schedule */
    printf("walkers = 4\n");
    phys_table t4;
    if (phys_run_mcf(argv[1], "ising_exact4x4_walkers", "ising", 20240601ull,
                     "walkers = 4\nextra_observables = m2_kmin\n\n"
                     "[schedule]\n"
                     "thermalize = 5000\n"
                     "sweeps = 200000\n"
                     "measure_every = 1\n"
                     "temperatures = 1.5, 2.27, 3.5\n"
                     "\n[model]\n"
                     "L = 4\n"
                     "J = 1\n"
                     "h = 0\n"
                     "boundary = periodic\n"
                     "start = random\n",
                     &t4)) {
        CHECK(0, "mcf run with walkers = 4 failed");
    } else {
        CHECK(t4.nrows == 3, "walkers = 4: results.tsv has %zu rows, expected 3", t4.nrows);
        for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
            const double T = temps[k];
            long row = phys_find_row(&t4, "T", T), row1 = phys_find_row(&t, "T", T);
            CHECK(row >= 0 && row1 >= 0, "walkers = 4: no row for T = %g", T);
            if (row < 0 || row1 < 0)
                continue;
            const exact4 ex = exact_at(T);
            const double exact[] = {ex.e,   ex.abs_m,  ex.m2,  ex.m4, ex.c,
                                ex.chi, ex.binder, ex.m2k, ex.xi_L};
            printf("T = %g (acceptance %.3f)\n", T, phys_get(&t4, (size_t)row, "acceptance"));
            for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
                char err_name[64];
                snprintf(err_name, sizeof err_name, "%s_err", cols[c].column);
                const double err4 = phys_get(&t4, (size_t)row, err_name);
                const double err1 = phys_get(&t, (size_t)row1, err_name);
                phys_compare(cols[c].label, phys_get(&t4, (size_t)row, cols[c].column), err4,
                             exact[c], 4.0, 0.0);
                const double ratio = err4 / err1;
                printf("  %-28s error ratio walkers 4 / 1 = %.3f\n", "", ratio);
                CHECK(isfinite(ratio) && ratio >= 0.35 && ratio <= 0.7,
                      "T = %g, %s: error with 4 walkers %.3g, with 1 %.3g: ratio %.3f outside "
                      "[0.35, 0.7]", T, cols[c].label, err4, err1, ratio);
            }
        }
    }
    phys_table_free(&t4);
    phys_table_free(&t);

    /* (c): walkers = 0 is refused, with a message naming the key */
    {
        char dir[PHYS_PATH_MAX], config[PHYS_PATH_MAX], log[PHYS_PATH_MAX];
        static char cmd[4 * PHYS_PATH_MAX], text[16384];
        CHECK(phys_fresh_dir("ising_exact4x4_walkers0", dir, sizeof dir) == 0,
              "no scratch folder");
        snprintf(config, sizeof config, "%s/config.ini", dir);
        snprintf(log, sizeof log, "%s/mcf.log", dir);
        FILE *f = fopen(config, "w");
        CHECK(f != NULL, "cannot write %s", config);
        if (f) {
            fprintf(f, "[run]\nmodel = ising\nseed = 1\noutput = %s/out\nwalkers = 0\n\n"
                    "[schedule]\nthermalize = 0\nsweeps = 64\n\n[model]\nL = 4\n", dir);
            fclose(f);
            snprintf(cmd, sizeof cmd, "'%s' run '%s' > '%s' 2>&1", argv[1], config, log);
            int status = system(cmd);
            f = fopen(log, "r");
            size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
            text[got] = '\0';
            if (f)
                fclose(f);
            printf("walkers = 0: exit %d: %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   text);
            CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0,
                  "mcf run accepted walkers = 0");
            CHECK(strstr(text, "walkers") != NULL && strstr(text, ">= 1") != NULL,
                  "the refusal of walkers = 0 does not name the key and its range");
        }
    }
    return check_exit();
}
