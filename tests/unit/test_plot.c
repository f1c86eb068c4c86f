/* test_plot.c — `mcf plot`: SVGs from a synthetic results.tsv, and its error messages.
 *
 * Needs gnuplot.  Without it the test prints "skipped: gnuplot not installed" and returns
 * 77; tests/unit/CMakeLists.txt must give this test the property SKIP_RETURN_CODE 77
 * so that ctest reports it as skipped rather than failed. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mcf/error.h"
#include "plot.h"

static char scratch[4096];

/* buf = scratch/sub[/name]; a path too long for buf becomes "" (and the checks fail). */
static void path_in(char *buf, size_t n, const char *sub, const char *name)
{
    int k = snprintf(buf, n, "%s/%s%s%s", scratch, sub, name ? "/" : "", name ? name : "");
    if (k < 0 || (size_t)k >= n) {
        fprintf(stderr, "path too long under %s\n", scratch);
        buf[0] = '\0';
    }
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* The whole file, NUL terminated; NULL if it cannot be read.  Caller frees. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        char *grown = realloc(buf, cap + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

static size_t count_occurrences(const char *hay, const char *needle)
{
    size_t k = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        k++;
    return k;
}

static int make_dir(const char *sub)
{
    char path[4096];
    path_in(path, sizeof path, sub, NULL);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* A results.tsv as `mcf run` writes it for an Ising scan over L = 8, 12 and 5
 * temperatures: observables energy and abs_m, derived binder, and acceptance. */
static void write_scan(const char *sub)
{
    char path[4096];
    path_in(path, sizeof path, sub, "results.tsv");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fprintf(f, "# mcf 0.1.0\n# model: ising\n# scan: L T\n");
    fprintf(f, "L\tT\tenergy\tenergy_err\ttau_energy\tabs_m\tabs_m_err\ttau_abs_m"
               "\tbinder\tbinder_err\tacceptance\n");
    for (int L = 8; L <= 12; L += 4) {
        for (int i = 0; i < 5; i++) {
            double T = 2.0 + 0.1 * i;
            double e = -1.8 + 0.2 * i + 0.01 * L;
            fprintf(f, "%d\t%.1f\t%.6f\t%.6f\t%.3f\t%.6f\t%.6f\t%.3f\t%.6f\t%s\t%.6f\n", L,
                    T, e, 0.002 + 0.001 * i, 2.5, 0.9 - 0.15 * i, 0.01, 7.0,
                    0.6 - 0.1 * i, i == 2 ? "nan" : "0.02", 0.2 + 0.05 * i);
        }
    }
    fclose(f);
}

static void check_svg(const char *sub, const char *name, const char *const *titles)
{
    char path[4096];
    path_in(path, sizeof path, sub, name);
    size_t len = 0;
    char *svg = read_file(path, &len);
    CHECK(svg != NULL, "%s was not written", path);
    if (!svg)
        return;
    CHECK(strstr(svg, "<svg") != NULL, "%s: no <svg element", path);
    CHECK(strstr(svg, "</svg>") != NULL, "%s: not closed by </svg> (truncated?)", path);
    CHECK(len > 2000, "%s: only %zu bytes; expected a full plot", path, len);
    for (const char *const *t = titles; *t; t++)
        CHECK(strstr(svg, *t) != NULL, "%s: title '%s' not found", path, *t);
    free(svg);

    /* written atomically: no temporary left behind */
    char tmp[4096], tmpname[512];
    snprintf(tmpname, sizeof tmpname, ".%s.tmp", name);
    path_in(tmp, sizeof tmp, sub, tmpname);
    CHECK(access(tmp, F_OK) != 0, "%s left behind", tmp);
}

static int gnuplot_installed(void)
{
    int st = system("command -v gnuplot >/dev/null 2>&1");
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* What mcfi_plot_dir sends to gnuplot: a script named gnuplot, first on PATH, appends its
 * input to scratch/gnuplot-input and passes it on to the real gnuplot. */
static char gp_log[4096];

static int install_gnuplot_spy(void)
{
    char real[4096] = "";
    FILE *p = popen("command -v gnuplot", "r");
    if (!p)
        return -1;
    if (!fgets(real, sizeof real, p))
        real[0] = '\0';
    pclose(p);
    real[strcspn(real, "\r\n")] = '\0';
    if (real[0] != '/')
        return -1;
    char bin[4096], spy[4096];
    path_in(bin, sizeof bin, "bin", NULL);
    path_in(spy, sizeof spy, "bin", "gnuplot");
    path_in(gp_log, sizeof gp_log, "gnuplot-input", NULL);
    if (make_dir("bin") != 0 || setenv("MCF_TEST_GNUPLOT", real, 1) != 0 ||
        setenv("MCF_TEST_GNUPLOT_INPUT", gp_log, 1) != 0)
        return -1;
    /* with MCF_TEST_NO_PNGCAIRO=1 it plays a gnuplot without pngcairo: asked whether it
       has that terminal (-e 'set terminal pngcairo'), it fails as gnuplot does */
    if (write_file(spy, "#!/bin/sh\n"
                        "if [ \"$MCF_TEST_NO_PNGCAIRO\" = 1 ]; then\n"
                        "  case \"$*\" in *pngcairo*) echo 'unknown terminal' >&2; exit 1;; esac\n"
                        "fi\n"
                        "tee -a \"$MCF_TEST_GNUPLOT_INPUT\" | \"$MCF_TEST_GNUPLOT\" \"$@\"\n") != 0 ||
        chmod(spy, 0755) != 0)
        return -1;
    const char *old = getenv("PATH");
    size_t n = strlen(bin) + (old ? strlen(old) : 0) + 2;
    char *path = malloc(n);
    if (!path)
        return -1;
    snprintf(path, n, "%s%s%s", bin, old ? ":" : "", old ? old : "");
    int rc = setenv("PATH", path, 1);
    free(path);
    return rc;
}

/* The script and data sent to gnuplot for plot-<name>.svg by the last mcfi_plot_dir call
 * (the input recorded since the last clear_gnuplot_input()); NULL if there is none.
 * Caller frees. */
static char *gnuplot_input(const char *name)
{
    char *all = read_file(gp_log, NULL);
    if (!all)
        return NULL;
    char key[600];
    snprintf(key, sizeof key, "/.plot-%s.svg.tmp'", name);
    char *hit = strstr(all, key);
    char *found = NULL;
    if (hit) {
        char *start = hit, *p;
        while (start > all && strncmp(start, "set terminal", 12) != 0)
            start--;
        p = strstr(hit, "\nset terminal");
        size_t len = p ? (size_t)(p + 1 - start) : strlen(start);
        found = malloc(len + 1);
        if (found) {
            memcpy(found, start, len);
            found[len] = '\0';
        }
    }
    free(all);
    return found;
}

static void clear_gnuplot_input(void)
{
    FILE *f = fopen(gp_log, "w");
    if (f)
        fclose(f);
}

/* Lines of the inline data ('-' blocks) whose first field is x (as printed by %.17g). */
static size_t data_lines_at(const char *script, const char *x)
{
    size_t k = 0, n = strlen(x);
    for (const char *p = strchr(script, '\n'); p; p = strchr(p + 1, '\n'))
        if (strncmp(p + 1, x, n) == 0 && p[1 + n] == ' ')
            k++;
    return k;
}

/* Whether the file at path is a whole PNG: its signature, and the IEND chunk last. */
static int png_whole(const char *path)
{
    size_t len = 0;
    char *b = read_file(path, &len);
    int ok = b && len > 20 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) &&
             !memcmp(b + len - 12, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
    free(b);
    return ok;
}

int main(void)
{
    if (!gnuplot_installed()) {
        printf("skipped: gnuplot not installed\n");
        return 77;
    }
    const char *tmp = getenv("MCF_TEST_TMP");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/test_plot-XXXXXX", tmp);
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "cannot create a scratch folder under %s: %s\n", tmp,
                strerror(errno));
        return 1;
    }
    char dir[4096];
    CHECK(install_gnuplot_spy() == 0, "cannot put a recording gnuplot first on PATH");

    /* --- a two-parameter scan: one curve per L, T on the x axis -------------------- */
    CHECK(make_dir("scan") == 0, "mkdir scan");
    write_scan("scan");
    path_in(dir, sizeof dir, "scan", NULL);
    int n = -1;
    clear_gnuplot_input();
    int rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_OK, "mcfi_plot_dir(%s) = %d: %s", dir, rc, mcf_last_error());
    CHECK(n == 5, "expected 5 plots (energy, abs_m, binder, acceptance and the transition's "
          "abs_m and binder panels), got %d", n);
    {
        const char *titles[] = {"L = 8", "L = 12", "energy", ">T<", NULL};
        check_svg("scan", "plot-energy.svg", titles);
    }
    {
        const char *titles[] = {"L = 8", "L = 12", "abs_m", NULL};
        check_svg("scan", "plot-abs_m.svg", titles);
    }
    {
        const char *titles[] = {"L = 8", "L = 12", "binder", NULL};
        check_svg("scan", "plot-binder.svg", titles);
    }
    {
        const char *titles[] = {"L = 8", "L = 12", "acceptance", NULL};
        check_svg("scan", "plot-acceptance.svg", titles);
    }
    char path[4096];
    path_in(path, sizeof path, "scan", "plot-tau_energy.svg");
    CHECK(access(path, F_OK) != 0, "%s written, but tau_energy has no _err column", path);
    path_in(path, sizeof path, "scan", "plot-energy_err.svg");
    CHECK(access(path, F_OK) != 0, "%s written; errors are not plotted by themselves", path);

    /* error bars: gnuplot draws each as a path; with 10 points there are at least 10
     * more paths in the error-bar plot than in the acceptance plot of the same points */
    {
        path_in(path, sizeof path, "scan", "plot-energy.svg");
        char *a = read_file(path, NULL);
        path_in(path, sizeof path, "scan", "plot-acceptance.svg");
        char *b = read_file(path, NULL);
        if (a && b) {
            size_t pa = count_occurrences(a, "<path"), pb = count_occurrences(b, "<path");
            CHECK(pa >= pb + 10, "energy plot has %zu paths, acceptance %zu: error bars?",
                  pa, pb);
        }
        free(a);
        free(b);
    }

    /* the script: T on x with a margin, one curve (one '-' block) per L */
    {
        char *gp = gnuplot_input("energy");
        CHECK(gp != NULL, "no gnuplot input recorded for plot-energy.svg in %s", gp_log);
        if (gp) {
            CHECK(strstr(gp, "set xlabel 'T'\n") != NULL, "x axis not T:\n%s", gp);
            CHECK(count_occurrences(gp, "$mcf_data index") == 2,
                  "expected 2 curves (L = 8, L = 12):\n%s", gp);
            CHECK(strstr(gp, "title 'L = 8'") && strstr(gp, "title 'L = 12'"),
                  "curve titles:\n%s", gp);
            CHECK(strstr(gp, "set title 'energy'\n") != NULL, "plot title:\n%s", gp);
            CHECK(data_lines_at(gp, "2") == 2 && data_lines_at(gp, "2.3999999999999999") == 2,
                  "expected one point per L at T = 2 and T = 2.4:\n%s", gp);
            CHECK(strstr(gp, "set offsets graph 0.03, graph 0.03, 0, 0\n") != NULL,
                  "no x margin (set offsets) in a scalar plot:\n%s", gp);
        }
        free(gp);
    }

    /* plotting again replaces the files */
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_OK && n == 5, "second mcfi_plot_dir: %d (%s), n = %d", rc,
          mcf_last_error(), n);

    /* --- only L scanned, at one temperature: energy against L, one curve ------------- */
    /* (the x axis used to be the last scan column, T, whatever its values: three points
     * stacked at T = 2.3, one per L) */
    CHECK(make_dir("l-scan") == 0, "mkdir l-scan");
    path_in(path, sizeof path, "l-scan", "results.tsv");
    CHECK(write_file(path, "# mcf 0.1.0 results\n# scan: L T\n"
                           "L\tT\tenergy\tenergy_err\ttau_energy\tacceptance\n"
                           "4\t2.3\t-1.50\t0.02\t2.0\t0.30\n"
                           "8\t2.3\t-1.45\t0.01\t3.0\t0.31\n"
                           "16\t2.3\t-1.42\t0.005\t4.0\t0.32\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "l-scan", NULL);
    clear_gnuplot_input();
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_OK, "L scan: %d: %s", rc, mcf_last_error());
    CHECK(n == 2, "L scan: expected 2 plots (energy, acceptance), got %d", n);
    {
        char *gp = gnuplot_input("energy");
        CHECK(gp != NULL, "no gnuplot input recorded for l-scan/plot-energy.svg");
        if (gp) {
            CHECK(strstr(gp, "set xlabel 'L'\n") != NULL, "x axis not L:\n%s", gp);
            CHECK(count_occurrences(gp, "$mcf_data index") == 1, "expected one curve:\n%s", gp);
            CHECK(strstr(gp, "L = ") == NULL, "a curve per L:\n%s", gp);
            CHECK(strstr(gp, "unset key\n") != NULL, "a legend for one curve:\n%s", gp);
            CHECK(data_lines_at(gp, "4") == 1 && data_lines_at(gp, "8") == 1 &&
                      data_lines_at(gp, "16") == 1,
                  "expected points at x = 4, 8, 16:\n%s", gp);
            CHECK(data_lines_at(gp, "2.2999999999999998") == 0, "points at x = T:\n%s", gp);
            CHECK(strstr(gp, "set title 'energy (T = 2.3)'\n") != NULL,
                  "the fixed temperature is not in the title:\n%s", gp);
        }
        free(gp);
        gp = gnuplot_input("acceptance");
        CHECK(gp && strstr(gp, "set xlabel 'L'\n"), "acceptance x axis:\n%s",
              gp ? gp : "(none)");
        free(gp);
        const char *titles[] = {">L<", "energy (T = 2.3)", NULL};
        check_svg("l-scan", "plot-energy.svg", titles);
        path_in(path, sizeof path, "l-scan", "plot-energy.svg");
        char *svg = read_file(path, NULL);
        CHECK(svg && !strstr(svg, ">T<") && !strstr(svg, "L = 8"),
              "%s: T on the x axis or a curve per L", path);
        free(svg);
    }

    /* --- curve observables: x = the curve's axis E, one curve per T; the constant L is
     * in the title, not in the curve names; results.tsv is drawn against T ---------------- */
    CHECK(make_dir("curve") == 0, "mkdir curve");
    path_in(path, sizeof path, "curve", "results.tsv");
    CHECK(write_file(path, "# mcf 0.1.0 results\n# scan: L T\n# curves: dos\n"
                           "L\tT\tenergy\tenergy_err\ttau_energy\tacceptance\n"
                           "8\t1.5\t-1.9\t0.01\t2.0\t0.10\n"
                           "8\t2.5\t-1.1\t0.02\t3.0\t0.40\n") == 0,
          "write %s", path);
    path_in(path, sizeof path, "curve", "dos.tsv");
    CHECK(write_file(path, "# mcf 0.1.0 curve: dos\n# scan: L T E\n"
                           "L\tT\tE\tdos\tdos_err\n"
                           "8\t1.5\t-1\t0.2\t0.01\n8\t1.5\t0\t0.5\t0.01\n"
                           "8\t1.5\t1\t0.3\t0.01\n"
                           "8\t2.5\t-1\t0.25\t0.01\n8\t2.5\t0\t0.4\t0.01\n"
                           "8\t2.5\t1\t0.35\t0.01\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "curve", NULL);
    clear_gnuplot_input();
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_OK, "curve: %d: %s", rc, mcf_last_error());
    CHECK(n == 3, "curve: expected 3 plots (energy, acceptance, dos), got %d", n);
    {
        char *gp = gnuplot_input("dos");
        CHECK(gp != NULL, "no gnuplot input recorded for curve/plot-dos.svg");
        if (gp) {
            CHECK(strstr(gp, "set xlabel 'E'\n") != NULL, "curve x axis not E:\n%s", gp);
            /* a band (filledcurves) and a line per T */
            CHECK(count_occurrences(gp, "with filledcurves") == 2 &&
                      count_occurrences(gp, "with lines") == 2,
                  "expected 2 curves (T), each a band and a line:\n%s", gp);
            CHECK(strstr(gp, "title 'T = 1.5'") && strstr(gp, "title 'T = 2.5'"),
                  "curve titles:\n%s", gp);
            CHECK(strstr(gp, "set title 'dos (L = 8)'\n") != NULL, "plot title:\n%s", gp);
            CHECK(data_lines_at(gp, "-1") == 2 && data_lines_at(gp, "0") == 2 &&
                      data_lines_at(gp, "1") == 2,
                  "expected two points at each E:\n%s", gp);
        }
        free(gp);
        gp = gnuplot_input("energy");
        CHECK(gp && strstr(gp, "set xlabel 'T'\n") && count_occurrences(gp, "$mcf_data index") == 1,
              "curve/results.tsv: energy against T in one curve:\n%s", gp ? gp : "(none)");
        free(gp);
        const char *titles[] = {"T = 1.5", "T = 2.5", ">E<", "<polygon", "fill-opacity", NULL};
        check_svg("curve", "plot-dos.svg", titles);
    }

    /* --- nothing scanned: plotted against the row number ----------------------------- */
    CHECK(make_dir("single") == 0, "mkdir single");
    path_in(path, sizeof path, "single", "results.tsv");
    CHECK(write_file(path, "# mcf 0.1.0\n# scan:\n"
                           "energy\tenergy_err\ttau_energy\tacceptance\n"
                           "-1.25\t0.01\t3.5\t0.41\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "single", NULL);
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_OK, "single point: %d: %s", rc, mcf_last_error());
    CHECK(n == 2, "single point: expected 2 plots, got %d", n);
    {
        const char *titles[] = {"energy", NULL};
        check_svg("single", "plot-energy.svg", titles);
    }

    /* --- labels: symbols and units from "# labels:" on the axes, in the legend and in
     * the title; every plot also as a whole PNG; the old file above (no labels) keeps the
     * column names ---------------------------------------------------------------------- */
    {
        char *gp = NULL;
        path_in(dir, sizeof dir, "scan", NULL);
        clear_gnuplot_input();
        rc = mcfi_plot_dir(dir, &n, NULL, NULL);
        gp = gnuplot_input("abs_m");
        CHECK(gp && strstr(gp, "set ylabel 'abs\\_m'\n") && strstr(gp, "set xlabel 'T'\n"),
              "a file without labels: raw names on the axes:\n%s", gp ? gp : "(none)");
        free(gp);
    }
    CHECK(make_dir("labels") == 0, "mkdir labels");
    path_in(path, sizeof path, "labels", "results.tsv");
    CHECK(write_file(path, "# mcf 0.1.0 results\n# scan: L T\n"
                           "# labels: L: L\tT: T [J]\tenergy: E/N [J]\tabs_m: ⟨|m|⟩\t"
                           "susceptibility: χ [1/J]\tbinder: U_4\tacceptance: acceptance\n"
                           "L\tT\tenergy\tenergy_err\tabs_m\tabs_m_err\tsusceptibility\t"
                           "susceptibility_err\tbinder\tbinder_err\tacceptance\n"
                           "8\t2.0\t-1.7\t0.01\t0.9\t0.01\t1.0\t0.1\t0.60\t0.01\t0.2\n"
                           "8\t2.5\t-1.2\t0.01\t0.5\t0.01\t3.0\t0.1\t0.40\t0.01\t0.4\n"
                           "12\t2.0\t-1.75\t0.01\t0.92\t0.01\t1.5\t0.1\t0.64\t0.01\t0.2\n"
                           "12\t2.5\t-1.1\t0.01\t0.4\t0.01\t4.0\t0.1\t0.30\t0.01\t0.4\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "labels", NULL);
    clear_gnuplot_input();
    int n_png = -1;
    rc = mcfi_plot_dir(dir, &n, NULL, &n_png);
    CHECK(rc == MCF_OK && n == 6 && n_png == 6, "labels: %d (%s), %d plots, %d PNG", rc,
          mcf_last_error(), n, n_png);
    {
        char *gp = gnuplot_input("abs_m");
        CHECK(gp && strstr(gp, "set ylabel '⟨|m|⟩'\n") && strstr(gp, "set xlabel 'T / J'\n") &&
                  strstr(gp, "set title '⟨|m|⟩'\n") && strstr(gp, " enhanced"),
              "labels on the axes:\n%s", gp ? gp : "(none)");
        free(gp);
        gp = gnuplot_input("energy");
        CHECK(gp && strstr(gp, "set ylabel '(E/N) / J'\n"), "a compound symbol:\n%s",
              gp ? gp : "(none)");
        free(gp);
        gp = gnuplot_input("binder");
        CHECK(gp && strstr(gp, "set ylabel 'U_{4}'\n"), "U_4 as U with a subscript 4:\n%s",
              gp ? gp : "(none)");
        free(gp);
        gp = gnuplot_input("susceptibility");
        CHECK(gp && strstr(gp, "set ylabel 'χ · J'\n"), "a unit 1/J:\n%s", gp ? gp : "(none)");
        free(gp);
        const char *titles[] = {"⟨|m|⟩", "T / J", "L = 8", "L = 12", NULL};
        check_svg("labels", "plot-abs_m.svg", titles);
        const char *chi[] = {"χ · J", NULL};
        check_svg("labels", "plot-susceptibility.svg", chi);
        /* the Binder cumulants cross: 0.60 - 0.64 < 0 at T = 2, 0.40 - 0.30 > 0 at 2.5,
           each beyond its error 0.014: at T = 2 + 0.5 * 0.04 / 0.14 = 2.1429, error
           0.5 sqrt(0.1^2 + 0.04^2) 0.01 sqrt(2) / 0.14^2 = 0.0389 */
        gp = gnuplot_input("binder");
        CHECK(gp && strstr(gp, "$mcf_cross") && strstr(gp, "title 'L = 8/12 at T = 2.143 ± 0.039 J'"),
              "the Binder crossing:\n%s", gp ? gp : "(none)");
        free(gp);
        static const char *const names[] = {"abs_m", "energy", "susceptibility", "binder",
                                             "acceptance"};
        for (int k = 0; k < 5; k++) {
            char name[64], tmpname[64];
            snprintf(name, sizeof name, "plot-%s.png", names[k]);
            snprintf(tmpname, sizeof tmpname, ".plot-%s.png.tmp", names[k]);
            path_in(path, sizeof path, "labels", name);
            CHECK(png_whole(path), "%s: not a whole PNG (signature, IEND)", path);
            path_in(path, sizeof path, "labels", tmpname);
            CHECK(access(path, F_OK) != 0, "%s left behind", path);
        }
    }

    /* --- a malformed labels line: the file and the line ----------------------------- */
    CHECK(make_dir("bad-labels") == 0, "mkdir bad-labels");
    path_in(path, sizeof path, "bad-labels", "results.tsv");
    CHECK(write_file(path, "# scan: T\n# labels: T: T [J]\tenergy E/N\n"
                           "T\tenergy\tenergy_err\n1.0\t-1.9\t0.01\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "bad-labels", NULL);
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_EFORMAT && strstr(mcf_last_error(), "results.tsv:2:") &&
              strstr(mcf_last_error(), "'energy E/N'"),
          "malformed labels: %d, %s", rc, mcf_last_error());

    /* --- a curve file of 12 scan points: 8 of them drawn, evenly spaced ------------- */
    CHECK(make_dir("many") == 0, "mkdir many");
    path_in(path, sizeof path, "many", "results.tsv");
    {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "write %s", path);
        if (f) {
            fputs("# scan: W\n# curves: dos\nW\tacceptance\n", f);
            for (int w = 0; w < 12; w++)
                fprintf(f, "%d\t1\n", w);
            fclose(f);
        }
        path_in(path, sizeof path, "many", "dos.tsv");
        f = fopen(path, "w");
        CHECK(f != NULL, "write %s", path);
        if (f) {
            fputs("# scan: W E\n# labels: W: W [t]\tE: E [t]\tdos: ρ(E) [1/t]\n"
                  "W\tE\tdos\tdos_err\n", f);
            for (int w = 0; w < 12; w++)
                for (int e = -2; e <= 2; e++)
                    fprintf(f, "%d\t%d\t%g\t0.01\n", w, e, 0.3 - 0.05 * abs(e) + 0.001 * w);
            fclose(f);
        }
    }
    path_in(dir, sizeof dir, "many", NULL);
    clear_gnuplot_input();
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    {
        char *gp = gnuplot_input("dos");
        CHECK(rc == MCF_OK && gp && count_occurrences(gp, "with lines") == 8 &&
                  strstr(gp, "set title 'ρ(E) (8 of 12 curves)'\n") &&
                  strstr(gp, "title 'W = 0 t'") && strstr(gp, "title 'W = 11 t'") &&
                  strstr(gp, "set ylabel 'ρ(E) · t'\n") && strstr(gp, "set xlabel 'E / t'\n"),
              "thinned curves: %d\n%s", rc, gp ? gp : "(none)");
        free(gp);
    }

    /* --- gnuplot without pngcairo: SVG only, one warning, no PNG -------------------- */
    setenv("MCF_TEST_NO_PNGCAIRO", "1", 1);
    path_in(dir, sizeof dir, "labels", NULL);
    path_in(path, sizeof path, "labels", "plot-abs_m.png");
    unlink(path);
    rc = mcfi_plot_dir(dir, &n, NULL, &n_png);
    CHECK(rc == MCF_OK && n == 6 && n_png == 0, "no pngcairo: %d (%s), %d plots, %d PNG", rc,
          mcf_last_error(), n, n_png);
    CHECK(access(path, F_OK) != 0, "no pngcairo, yet %s", path);
    unsetenv("MCF_TEST_NO_PNGCAIRO");

    /* --- a missing folder -------------------------------------------------------------- */
    path_in(dir, sizeof dir, "no-such-run", NULL);
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_EINVAL, "missing folder (bad input): expected MCF_EINVAL, got %d", rc);
    CHECK(n == 0, "missing folder: n = %d", n);
    CHECK(strstr(mcf_last_error(), "results.tsv") != NULL, "message: %s", mcf_last_error());
    CHECK(strstr(mcf_last_error(), "no such file") != NULL, "message: %s", mcf_last_error());
    CHECK(strstr(mcf_last_error(), "mcf run") != NULL, "message: %s", mcf_last_error());
    CHECK(strstr(mcf_last_error(), "no-such-run") != NULL, "message: %s", mcf_last_error());

    /* --- a malformed row: the message names the file and the line --------------------- */
    CHECK(make_dir("bad-number") == 0, "mkdir bad-number");
    path_in(path, sizeof path, "bad-number", "results.tsv");
    CHECK(write_file(path, "# mcf 0.1.0\n# scan: T\nT\tenergy\tenergy_err\n"
                           "1.0\t-1.9\t0.01\n2.0\t-1.5x\t0.01\n3.0\t-1.0\t0.01\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "bad-number", NULL);
    int no_gnuplot = -1;
    rc = mcfi_plot_dir(dir, &n, &no_gnuplot, NULL);
    CHECK(rc == MCF_EFORMAT, "bad number: expected MCF_EFORMAT, got %d", rc);
    CHECK(no_gnuplot == 0, "a malformed file is not a missing gnuplot: %d", no_gnuplot);
    CHECK(strstr(mcf_last_error(), "results.tsv:5:") != NULL, "message: %s",
          mcf_last_error());
    CHECK(strstr(mcf_last_error(), "energy") != NULL, "message: %s", mcf_last_error());
    CHECK(strstr(mcf_last_error(), "-1.5x") != NULL, "message: %s", mcf_last_error());
    path_in(path, sizeof path, "bad-number", "plot-energy.svg");
    CHECK(access(path, F_OK) != 0, "a plot was written from a malformed file");

    CHECK(make_dir("bad-fields") == 0, "mkdir bad-fields");
    path_in(path, sizeof path, "bad-fields", "results.tsv");
    CHECK(write_file(path, "# scan: T\nT\tenergy\tenergy_err\n"
                           "1.0\t-1.9\t0.01\n\n2.0\t-1.5\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "bad-fields", NULL);
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_EFORMAT, "missing field: expected MCF_EFORMAT, got %d", rc);
    CHECK(strstr(mcf_last_error(), "results.tsv:5:") != NULL, "message: %s",
          mcf_last_error());

    CHECK(make_dir("bad-scan") == 0, "mkdir bad-scan");
    path_in(path, sizeof path, "bad-scan", "results.tsv");
    CHECK(write_file(path, "# scan: L T\nT\tenergy\tenergy_err\n1.0\t-1.9\t0.01\n") == 0,
          "write %s", path);
    path_in(dir, sizeof dir, "bad-scan", NULL);
    rc = mcfi_plot_dir(dir, &n, NULL, NULL);
    CHECK(rc == MCF_EFORMAT, "unknown scan column: expected MCF_EFORMAT, got %d", rc);
    CHECK(strstr(mcf_last_error(), "results.tsv:1:") != NULL &&
              strstr(mcf_last_error(), "'L'") != NULL,
          "message: %s", mcf_last_error());

    /* --- gnuplot missing from PATH ------------------------------------------------------ */
    const char *old_path = getenv("PATH");
    char *saved = old_path ? strdup(old_path) : NULL;
    setenv("PATH", "/nonexistent-mcf-test", 1);
    path_in(dir, sizeof dir, "scan", NULL);
    rc = mcfi_plot_dir(dir, &n, &no_gnuplot, NULL);
    CHECK(rc == MCF_EIO, "no gnuplot: expected MCF_EIO, got %d", rc);
    CHECK(no_gnuplot == 1, "no gnuplot: the flag a finished run only warns of: %d",
          no_gnuplot);
    CHECK(strstr(mcf_last_error(), "gnuplot not found") != NULL &&
              strstr(mcf_last_error(), "gnuplot-nox") != NULL,
          "message: %s", mcf_last_error());
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("PATH");
    }

    return check_exit();
}
