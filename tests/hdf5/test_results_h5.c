/* test_results_h5.c — results.h5 (issue 18) read back with HDF5's C API against the
 * results.tsv and curve file of the same run:
 *   1. an Ising scan (3 temperatures x 2 walkers): every cell of results.tsv equals the
 *      table's double printed as results.c prints it (%.10g), the header's columns are
 *      /results' "columns" in order; the per-chain estimates combine into the table's
 *      walker columns bit for bit; the jackknife of the susceptibility, Binder cumulant
 *      and specific heat redone from /observables/NAME/bin_means and /chains/bin_weights
 *      gives the table's value and error bit for bit; config.ini and the run's attributes;
 *   2. the test model over a real axis and a choice (a text column) x 2 temperatures x 2
 *      walkers: the curve file histogram.tsv against /curves/histogram, and its per-chain
 *      bins against the curve's mean;
 *   3. DMC over two time steps x two r_s (slater-jastrow, planewave): /timestep against
 *      timestep.tsv cell by cell, and each row's E0 against the line through results.tsv's
 *      two energies of its r_s, (t2 E1 - t1 E2) / (t2 - t1), to 1e-9.
 * Built without HDF5 it says so and returns 77 (skipped).
 * usage: test_results_h5 MCF   (scratch folder: $MCF_TEST_TMP) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#ifndef MCF_HAVE_HDF5
int main(void)
{
    printf("skipped: built without HDF5\n");
    return 77;
}
#else

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"

#define MAXC 64   /* columns */
#define MAXR 64   /* rows */

typedef struct tsv {
    int n_cols, n_rows;
    char *name[MAXC];
    char *cell[MAXR][MAXC];
    char *text; /* the file, cut in place */
} tsv;

static char scratch[4096];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* results.tsv or a curve file: the header and the rows, '#' lines skipped */
static int read_tsv(const char *path, tsv *t)
{
    memset(t, 0, sizeof *t);
    if (!(t->text = slurp(path)))
        return -1;
    int header = 1;
    for (char *line = strtok(t->text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        int c = 0;
        for (char *cell = line, *tab;; cell = tab + 1) {
            tab = strchr(cell, '\t');
            if (tab)
                *tab = '\0';
            if (c < MAXC && header)
                t->name[c] = cell;
            else if (c < MAXC && t->n_rows < MAXR)
                t->cell[t->n_rows][c] = cell;
            c++;
            if (!tab)
                break;
        }
        if (header)
            t->n_cols = c;
        else
            t->n_rows++;
        header = 0;
    }
    return t->n_cols > 0 ? 0 : -1;
}

static int run_mcf(const char *mcf, const char *ini, const char *text)
{
    char path[4200], cmd[8600];
    snprintf(path, sizeof path, "%s/%s", scratch, ini);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run %s --force --no-progress >/dev/null 2>&1",
             scratch, mcf, ini);
    return system(cmd);
}

/* A whole dataset of doubles; NULL (and a failed check) when absent or not numbers. */
static double *read_doubles(hid_t f, const char *name, size_t *n)
{
    *n = 0;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    CHECK(d >= 0, "dataset %s is missing", name);
    if (d < 0)
        return NULL;
    hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
    hssize_t count = H5Sget_simple_extent_npoints(sp);
    double *x = NULL;
    CHECK(H5Tget_class(ty) == H5T_FLOAT, "%s does not hold floating point numbers", name);
    if (count >= 0 && H5Tget_class(ty) == H5T_FLOAT) {
        x = malloc(((size_t)count + 1) * sizeof *x);
        if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0) {
            free(x);
            x = NULL;
        }
        *n = (size_t)count;
    }
    H5Tclose(ty);
    H5Sclose(sp);
    H5Dclose(d);
    return x;
}

static int64_t *read_int64s(hid_t f, const char *name, size_t *n)
{
    *n = 0;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    CHECK(d >= 0, "dataset %s is missing", name);
    if (d < 0)
        return NULL;
    hid_t sp = H5Dget_space(d);
    hssize_t count = H5Sget_simple_extent_npoints(sp);
    int64_t *x = malloc(((size_t)(count > 0 ? count : 0) + 1) * sizeof *x);
    if (H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0) {
        free(x);
        x = NULL;
    }
    *n = count > 0 ? (size_t)count : 0;
    H5Sclose(sp);
    H5Dclose(d);
    return x;
}

/* A text attribute (a scalar) or one element of a text array attribute, into buf. */
static int read_text_attr(hid_t obj, const char *name, size_t index, char *buf, size_t len)
{
    buf[0] = '\0';
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return -1;
    hid_t sp = H5Aget_space(a), st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    char **s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
    int rc = n > (hssize_t)index && H5Aread(a, st, s) >= 0 ? 0 : -1;
    if (!rc)
        snprintf(buf, len, "%s", s[index] ? s[index] : "");
    if (n > 0)
        H5Dvlen_reclaim(st, sp, H5P_DEFAULT, s);
    free(s);
    H5Tclose(st);
    H5Sclose(sp);
    H5Aclose(a);
    return rc;
}

static long long read_int_attr(hid_t obj, const char *name)
{
    long long v = -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a >= 0 && H5Aread(a, H5T_NATIVE_LLONG, &v) < 0)
        v = -1;
    if (a >= 0)
        H5Aclose(a);
    return v;
}

/* Compares a table group (/results or /curves/NAME) with a .tsv file cell by cell. */
static void compare_table(hid_t f, const char *group, const tsv *t)
{
    char path[600], listed[256];
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    CHECK(g >= 0, "group %s is missing", group);
    if (g < 0)
        return;
    int cells = 0, bad = 0;
    for (int c = 0; c < t->n_cols; c++) {
        CHECK(read_text_attr(g, "columns", (size_t)c, listed, sizeof listed) == 0 &&
                  !strcmp(listed, t->name[c]),
              "%s: column %d is %s in the .tsv header, %s in the attribute \"columns\"", group,
              c, t->name[c], listed);
        snprintf(path, sizeof path, "%s/%s", group, t->name[c]);
        hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
        CHECK(d >= 0, "dataset %s is missing", path);
        if (d < 0)
            continue;
        hid_t ty = H5Dget_type(d), sp = H5Dget_space(d);
        hssize_t n = H5Sget_simple_extent_npoints(sp);
        CHECK(n == t->n_rows, "%s has %lld rows, the .tsv %d", path, (long long)n, t->n_rows);
        if (n == t->n_rows && H5Tget_class(ty) == H5T_FLOAT) {
            double *x = malloc(((size_t)n + 1) * sizeof *x);
            H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
            for (int k = 0; k < t->n_rows; k++) {
                char printed[64];
                /* results.c's put_number; the scan columns are the axis values' texts */
                if (isnan(x[k]))
                    snprintf(printed, sizeof printed, "nan");
                else
                    snprintf(printed, sizeof printed, "%.10g", x[k]);
                int same = !strcmp(printed, t->cell[k][c]) ||
                           (strtod(t->cell[k][c], NULL) == x[k]);
                cells++;
                if (!same && bad++ < 10)
                    CHECK(same, "%s row %d: results.h5 %s (%.17g), the .tsv %s", path, k,
                          printed, x[k], t->cell[k][c]);
            }
            free(x);
        } else if (n == t->n_rows && H5Tget_class(ty) == H5T_STRING) {
            hid_t st = H5Tcopy(H5T_C_S1);
            H5Tset_size(st, H5T_VARIABLE);
            char **s = calloc((size_t)n + 1, sizeof *s);
            H5Dread(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
            for (int k = 0; k < t->n_rows; k++) {
                cells++;
                int same = s[k] && !strcmp(s[k], t->cell[k][c]);
                if (!same && bad++ < 10)
                    CHECK(same, "%s row %d: results.h5 '%s', the .tsv '%s'", path, k,
                          s[k] ? s[k] : "(null)", t->cell[k][c]);
            }
            H5Dvlen_reclaim(st, sp, H5P_DEFAULT, s);
            free(s);
            H5Tclose(st);
        } else {
            CHECK(0, "%s: neither numbers nor text", path);
        }
        H5Tclose(ty);
        H5Sclose(sp);
        H5Dclose(d);
    }
    CHECK(bad == 0, "%s: %d of %d cells differ from the .tsv", group, bad, cells);
    printf("%s: %d cells of %d columns equal to the .tsv\n", group, cells, t->n_cols);
    H5Gclose(g);
}

static int column(const tsv *t, const char *name)
{
    for (int c = 0; c < t->n_cols; c++)
        if (!strcmp(t->name[c], name))
            return c;
    return -1;
}

/* the variables of the jackknife below: |m|, m^2, m^4, e, e^2 */
enum { V_M, V_M2, V_M4, V_E, V_E2, NV };
typedef struct ctx {
    double N, T;
} ctx;
static double chi(const double *m, void *c_)
{
    ctx *c = c_;
    return c->N * (m[V_M2] - m[V_M] * m[V_M]) / c->T;
}
static double binder(const double *m, void *c_)
{
    (void)c_;
    return 1.0 - m[V_M4] / (3.0 * m[V_M2] * m[V_M2]);
}
static double heat(const double *m, void *c_)
{
    ctx *c = c_;
    return c->N * (m[V_E2] - m[V_E] * m[V_E]) / (c->T * c->T);
}

static void check_ising(const char *mcf)
{
    const char *ini = "[run]\nmodel = ising\nseed = 41\noutput = ising.out\nwalkers = 2\n"
                      "threads = 1\n[schedule]\nthermalize = 300\nsweeps = 3000\n"
                      "temperatures = 2.0, 2.3, 2.6\n[model]\nL = 8\n";
    CHECK(run_mcf(mcf, "ising.ini", ini) == 0, "mcf run ising.ini failed");
    char path[4200];
    tsv t;
    snprintf(path, sizeof path, "%s/ising.out/results.tsv", scratch);
    CHECK(read_tsv(path, &t) == 0 && t.n_rows == 3, "cannot read %s", path);
    snprintf(path, sizeof path, "%s/ising.out/results.h5", scratch);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "cannot open %s", path);
    if (f < 0 || t.n_rows != 3)
        return;
    compare_table(f, "/results", &t);

    /* the run's description */
    char text[256];
    CHECK(read_int_attr(f, "format") == 1, "format attribute");
    CHECK(read_int_attr(f, "seed") == 41 && read_int_attr(f, "walkers") == 2 &&
              read_int_attr(f, "bins") == 32 && read_int_attr(f, "measurements") == 3000,
          "seed, walkers, bins, measurements");
    CHECK(read_text_attr(f, "model", 0, text, sizeof text) == 0 && !strcmp(text, "ising"),
          "model attribute '%s'", text);
    CHECK(read_text_attr(f, "scan", 0, text, sizeof text) == 0 && !strcmp(text, "T"),
          "scan attribute '%s'", text);
    /* symbols and units (the model's labels, and the core's for what it derives) */
    static const char *const lab[][3] = {
        {"/observables/abs_m", "⟨|m|⟩", ""}, {"/observables/energy", "E/N", "J"},
        {"/results/abs_m", "⟨|m|⟩", ""},     {"/results/T", "T", "J"},
        {"/results/susceptibility", "χ", "1/J"}, {"/results/binder", "U_4", ""},
        {"/results/specific_heat", "C", ""}};
    for (size_t k = 0; k < sizeof lab / sizeof lab[0]; k++) {
        char sym[128] = "?", unit[128] = "?";
        hid_t o = H5Oopen(f, lab[k][0], H5P_DEFAULT);
        CHECK(o >= 0 && read_text_attr(o, "symbol", 0, sym, sizeof sym) == 0 &&
                  read_text_attr(o, "unit", 0, unit, sizeof unit) == 0 &&
                  !strcmp(sym, lab[k][1]) && !strcmp(unit, lab[k][2]),
              "%s: symbol '%s' unit '%s', expected '%s' '%s'", lab[k][0], sym, unit,
              lab[k][1], lab[k][2]);
        if (o >= 0)
            H5Oclose(o);
    }
    snprintf(path, sizeof path, "%s/ising.out/config.ini", scratch);
    char *cfg = slurp(path);
    hid_t d = H5Dopen2(f, "config.ini", H5P_DEFAULT), st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    char *stored = NULL;
    CHECK(d >= 0 && H5Dread(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, &stored) >= 0 && cfg &&
              stored && !strcmp(cfg, stored),
          "/config.ini differs from config.ini");
    free(stored);
    free(cfg);
    H5Tclose(st);
    if (d >= 0)
        H5Dclose(d);

    /* per chain: the walkers' estimates combine into the table's columns, bit for bit */
    size_t n, nw, nT, nN, nbw;
    int64_t *point = read_int64s(f, "/chains/point", &n);
    int64_t *units = read_int64s(f, "/chains/units", &nN);
    double *T = read_doubles(f, "/chains/T", &nT);
    double *w = read_doubles(f, "/chains/bin_weights", &nbw);
    int64_t *walker = read_int64s(f, "/chains/walker", &nw);
    CHECK(point && walker && T && units && w && n == 6 && nw == 6 && nT == 6 && nbw == 6 * 32,
          "/chains: 6 chains of 32 bins");
    if (!point || !walker || !T || !units || !w || n != 6 || nbw != 6 * 32)
        return;
    static const char *const names[] = {"abs_m", "m2", "m4", "energy"};
    double *bins[NV] = {0}, tau_of[4][3] = {{0}};
    for (int o = 0; o < 4; o++) {
        char ds[256];
        size_t m;
        snprintf(ds, sizeof ds, "/observables/%s/bin_means", names[o]);
        bins[o] = read_doubles(f, ds, &m);
        CHECK(m == 6 * 32, "%s: %zu values", ds, m);
        double *est[3];
        static const char *const what[3] = {"mean", "error", "tau"};
        for (int q = 0; q < 3; q++) {
            snprintf(ds, sizeof ds, "/observables/%s/%s", names[o], what[q]);
            est[q] = read_doubles(f, ds, &m);
        }
        for (int k = 0; k < 3 && est[2]; k++) /* the walkers' mean tau (measure_every = 1) */
            tau_of[o][k] = (est[2][2 * k] + est[2][2 * k + 1]) / 2;
        for (int k = 0; k < 3 && est[0] && est[1] && est[2]; k++) {
            size_t a = (size_t)k * 2, b = a + 1;
            CHECK(point[a] == k && point[b] == k && walker[a] == 0 && walker[b] == 1,
                  "chain %zu, %zu: point and walker", a, b);
            double mean = (est[0][a] + est[0][b]) / 2;
            double err = sqrt(est[1][a] * est[1][a] + est[1][b] * est[1][b]) / 2;
            double tau = (est[2][a] + est[2][b]) / 2; /* measure_every = 1 */
            int c = column(&t, names[o]);
            CHECK(c >= 0, "no column %s in results.tsv", names[o]);
            char want[3][64];
            snprintf(want[0], 64, "%.10g", mean);
            snprintf(want[1], 64, "%.10g", err);
            snprintf(want[2], 64, "%.10g", tau);
            for (int q = 0; q < 3 && c >= 0; q++)
                CHECK(!strcmp(want[q], t.cell[k][c + q]), "%s %s of point %d: %s from the "
                      "chains, %s in results.tsv", names[o], what[q], k, want[q],
                      t.cell[k][c + q]);
        }
        for (int q = 0; q < 3; q++)
            free(est[q]);
    }
    bins[V_E2] = read_doubles(f, "/observables/energy/bin_means_squared", &n);
    CHECK(bins[V_E2] && n == 6 * 32, "bin_means_squared");

    /* the jackknife redone from the stored bins: the union of the walkers' bins */
    struct {
        const char *name;
        mcf_jackknife_fn fn;
        int tau_a, tau_b; /* the observables whose larger tau scales the error */
    } derived[3] = {{"susceptibility", chi, V_M, V_M2},
                    {"binder", binder, V_M2, V_M4},
                    {"specific_heat", heat, V_E, V_E}};
    for (int k = 0; k < 3 && bins[V_E2]; k++) {
        double means[64 * NV], weights[64];
        size_t used = 0;
        for (size_t ch = 0; ch < 6; ch++) {
            if (point[ch] != k)
                continue;
            for (size_t b = 0; b < 32; b++) {
                if (!(w[ch * 32 + b] > 0))
                    continue;
                for (int v = 0; v < NV; v++)
                    means[used * NV + (size_t)v] = bins[v][ch * 32 + b];
                weights[used++] = w[ch * 32 + b];
            }
        }
        CHECK(used == 64, "point %d: %zu bins", k, used);
        ctx cx = {(double)units[2 * k], T[2 * k]};
        double n_meas = 0.0, n_bins = 0.0; /* walker 0's bins: consecutive, correlated */
        for (size_t b = 0; b < 32; b++)
            if (w[2 * (size_t)k * 32 + b] > 0) {
                n_meas += w[2 * (size_t)k * 32 + b];
                n_bins += 1.0;
            }
        for (int q = 0; q < 3; q++) {
            double value, error;
            mcfi_jackknife(means, weights, used, NV, derived[q].fn, &cx, &value, &error);
            double tau = fmax(tau_of[derived[q].tau_a][k], tau_of[derived[q].tau_b][k]);
            double F = mcfi_block_factor(tau, n_meas / n_bins, n_bins);
            CHECK(F > 1.0 && F < 1.5, "%s at point %d: block factor %g for tau %g, bins of "
                  "%g", derived[q].name, k, F, tau, n_meas / n_bins);
            error *= sqrt(F);
            int c = column(&t, derived[q].name);
            char v[64], e[64], ds[128];
            snprintf(v, sizeof v, "%.10g", value);
            snprintf(e, sizeof e, "%.10g", error);
            CHECK(c >= 0 && !strcmp(v, t.cell[k][c]) && !strcmp(e, t.cell[k][c + 1]),
                  "%s at T = %g from the bins: %s +- %s, results.tsv %s +- %s", derived[q].name,
                  T[2 * k], v, e, c >= 0 ? t.cell[k][c] : "?", c >= 0 ? t.cell[k][c + 1] : "?");
            snprintf(ds, sizeof ds, "/results/%s", derived[q].name);
            double *stored_v = read_doubles(f, ds, &n);
            CHECK(stored_v && stored_v[k] == value, "%s at point %d: the stored %.17g is not "
                  "the jackknife's %.17g", ds, k, stored_v ? stored_v[k] : NAN, value);
            free(stored_v);
        }
    }
    printf("ising: the jackknife of susceptibility, binder and specific heat from the stored "
           "bins reproduces results.tsv\n");
    for (int v = 0; v < NV; v++)
        free(bins[v]);
    free(point);
    free(walker);
    free(units);
    free(T);
    free(w);
    H5Fclose(f);
    free(t.text);
}

/* mcf run `ini` (written as ini_name) and its results.h5 under out (-1: failed, checked) */
static hid_t run_and_open(const char *mcf, const char *ini_name, const char *ini,
                          const char *out)
{
    CHECK(run_mcf(mcf, ini_name, ini) == 0, "mcf run %s failed", ini_name);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/results.h5", scratch, out);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "cannot open %s", path);
    return f;
}

/* the test model: a real axis h, a choice axis (text), T; the curve `histogram` */
static void check_curves(const char *mcf)
{
    const char *ini = "[run]\nmodel = tgood\nseed = 3\noutput = curve.out\nwalkers = 2\n"
                      "threads = 1\n[schedule]\nthermalize = 10\nsweeps = 400\n"
                      "measure_every = 2\nbins = 8\ntemperatures = 1.0, 2.0\n"
                      "[model]\nh = 0.5, 1.0\nlattice = square, cubic\n";
    char path[4200];
    tsv t, c;
    hid_t f = run_and_open(mcf, "curve.ini", ini, "curve.out");
    if (f < 0)
        return;
    snprintf(path, sizeof path, "%s/curve.out/results.tsv", scratch);
    CHECK(read_tsv(path, &t) == 0 && t.n_rows == 8, "cannot read %s", path);
    if (t.n_rows == 8)
        compare_table(f, "/results", &t);
    snprintf(path, sizeof path, "%s/curve.out/histogram.tsv", scratch);
    CHECK(read_tsv(path, &c) == 0 && c.n_rows == 16, "cannot read %s", path);
    if (c.n_rows == 16)
        compare_table(f, "/curves/histogram", &c);
    char text[64];
    hid_t g = H5Gopen2(f, "/observables/histogram", H5P_DEFAULT);
    CHECK(g >= 0 && read_text_attr(g, "kind", 0, text, sizeof text) == 0 &&
              !strcmp(text, "curve") && read_text_attr(g, "axis", 0, text, sizeof text) == 0 &&
              !strcmp(text, "s"),
          "/observables/histogram: kind curve, axis s");
    if (g >= 0)
        H5Gclose(g);
    /* the per-chain bins: weighted over both walkers' bins, the curve file's mean */
    size_t nrow, nb, nw;
    int64_t *chain = read_int64s(f, "/observables/histogram/chain", &nrow);
    double *bm = read_doubles(f, "/observables/histogram/bin_means", &nb);
    double *w = read_doubles(f, "/chains/bin_weights", &nw);
    CHECK(chain && bm && w && nrow == 32 && nb == 32 * 8 && nw == 16 * 8,
          "curve bins: %zu rows, %zu values; weights %zu", nrow, nb, nw);
    int vc = column(&c, "histogram");
    for (size_t j = 0; chain && bm && w && nrow == 32 && nb == 256 && nw == 128 && vc >= 0 &&
                       j < 16; j++) {
        /* histogram.tsv row j: scan point j / 2, axis point j % 2, walkers 0 and 1 */
        double S = 0, W = 0;
        for (size_t wk = 0; wk < 2; wk++) {
            size_t ch = (j / 2) * 2 + wk, row = ch * 2 + j % 2;
            CHECK(chain[row] == (int64_t)ch, "row %zu is chain %lld", row, (long long)chain[row]);
            for (size_t b = 0; b < 8; b++) {
                S += bm[row * 8 + b] * w[ch * 8 + b];
                W += w[ch * 8 + b];
            }
        }
        double want = strtod(c.cell[j][vc], NULL);
        CHECK(fabs(S / W - want) <= 1e-9 * fabs(want) + 1e-12,
              "histogram row %zu: %.12g from the bins, %s in histogram.tsv", j, S / W,
              c.cell[j][vc]);
    }
    free(chain);
    free(bm);
    free(w);
    H5Fclose(f);
    free(t.text);
    free(c.text);
}

/* DMC over two time steps x two r_s: /timestep against timestep.tsv, E0 against results.tsv */
static void check_timestep(const char *mcf)
{
    const char *ini = "[run]\nmodel = slater-jastrow\nevaluator = planewave\nseed = 4\n"
                      "output = steps.out\nwalkers = 4\nthreads = 1\nmethod = dmc\n"
                      "timestep = 0.08, 0.04\n[schedule]\nthermalize = 20\nsweeps = 200\n"
                      "bins = 8\n[model]\nelectrons = 2\nrs = 1, 2\njastrow = rpa\n";
    char path[4200];
    tsv t, ts;
    hid_t f = run_and_open(mcf, "steps.ini", ini, "steps.out");
    if (f < 0)
        return;
    snprintf(path, sizeof path, "%s/steps.out/results.tsv", scratch);
    CHECK(read_tsv(path, &t) == 0 && t.n_rows == 4, "cannot read %s", path);
    snprintf(path, sizeof path, "%s/steps.out/timestep.tsv", scratch);
    CHECK(read_tsv(path, &ts) == 0 && ts.n_rows == 2, "cannot read %s", path);
    if (t.n_rows == 4 && ts.n_rows == 2) {
        compare_table(f, "/timestep", &ts);
        const int rs = column(&t, "rs"), e = column(&t, "energy"), tau = column(&t, "timestep"),
                  rs0 = column(&ts, "rs"), e0 = column(&ts, "energy_0");
        for (int k = 0; k < 2 && rs >= 0 && e >= 0 && tau >= 0 && rs0 >= 0 && e0 >= 0; k++) {
            /* rs is the first axis: rows 2k and 2k + 1 are its two time steps */
            const double t1 = strtod(t.cell[2 * k][tau], NULL),
                         t2 = strtod(t.cell[2 * k + 1][tau], NULL),
                         E1 = strtod(t.cell[2 * k][e], NULL),
                         E2 = strtod(t.cell[2 * k + 1][e], NULL);
            const double want = (t2 * E1 - t1 * E2) / (t2 - t1),
                         got = strtod(ts.cell[k][e0], NULL);
            CHECK(!strcmp(t.cell[2 * k][rs], ts.cell[k][rs0]) &&
                      fabs(got - want) <= 1e-9 * fabs(want),
                  "timestep.tsv row %d (rs %s): E0 %.12g, the line through results.tsv's "
                  "rows %.12g", k, ts.cell[k][rs0], got, want);
            printf("rs = %s: E0 %.10g, from results.tsv %.10g\n", ts.cell[k][rs0], got, want);
        }
    }
    H5Fclose(f);
    free(t.text);
    free(ts.text);
}

int main(int argc, char **argv)
{
    const char *tmp = getenv("MCF_TEST_TMP");
    if (argc < 2 || !tmp) {
        fprintf(stderr, "usage: MCF_TEST_TMP=DIR test_results_h5 MCF\n");
        return 2;
    }
    snprintf(scratch, sizeof scratch, "%s/results_h5", tmp);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", scratch, scratch);
    if (system(cmd) != 0)
        return 2;
    check_ising(argv[1]);
    check_curves(argv[1]);
    check_timestep(argv[1]);
    return check_exit();
}

#endif
