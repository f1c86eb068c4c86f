/* test_shells.c — degenerate shells of the ordered state at mu (core/engine/shells.c): the
 * double-exchange ferromagnet (hund = inf, the model's ordered_state "ferro") on the
 * periodic L^d torus, against an independent count from its cosine band
 *
 *     eps(n) = -2t sum_d cos(2 pi n_d / L),   n in [0, L)^d
 *
 * (de_periodic.c's convention: H_ij = -t <chi_i|chi_j>, every spinor the same).
 *   1. the core's torus levels (mcfi_torus_levels) are these, level for level, to 1e-12 t;
 *   2. at mu = 0 the cosine band has 24 of 216 levels at 0 on 6^3, 68 of 512 on 8^3 and
 *      none on 10^3 (its nearest, 48 levels at +-2t (1 - cos 36 - cos 72 deg)... are
 *      0.236 t away, more than 3 T at T = 0.05);
 *   3. a setup of L = 6, 8, 10 at T = 0.05, 0.12 warns once for 6 and once for 8 with
 *      exactly those counts, and not for 10; the sizes it offers have no level within 3 T;
 *   4. a run (square 4 x 4, ed, 6 of 16 levels at 0) writes the warning on the terminal,
 *      into its log and as a "# warning:" line of results.tsv; open boundaries: none;
 *   5. twisted boundaries: the twisted torus's levels are the shifted cosine band, and the
 *      6^3 torus at mu = 0 with twist = 0.13 0.29 0.41 warns no more (test_twist). */
#include "../physics/physics_util.h"

#include "model_ops.h"
#include "setup.h"
#include "test_params.h"

#include "mcf/error.h"
#include "mcf/model.h"
#include "mcf/periodic.h"

static const double pi = 3.14159265358979323846;

/* the cosine band of the L^dims torus, sorted */
static double *cosine_levels(long L, int dims, double t, size_t *n)
{
    size_t N = 1;
    for (int d = 0; d < dims; d++)
        N *= (size_t)L;
    double *e = malloc(N * sizeof *e);
    for (size_t k = 0; e && k < N; k++) {
        size_t m = k;
        e[k] = 0;
        for (int d = 0; d < dims; d++, m /= (size_t)L)
            e[k] += -2 * t * cos(2 * pi * (double)(m % (size_t)L) / (double)L);
    }
    *n = N;
    return e;
}

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* levels of the cosine band within w of mu: a shell at mu up to rounding has |eps| ~ 1e-15 */
static size_t count_near(const double *e, size_t n, double mu, double w)
{
    size_t c = 0;
    for (size_t k = 0; k < n; k++)
        c += fabs(e[k] - mu) < w;
    return c;
}

static mcf_plugin *model;

/* the ferro crystal of the double-exchange model at t, hund = inf, on `lattice` */
static mcf_cell *ferro(const char *lattice, double t)
{
    const mcfi_model *m = model->model;
    char tt[32];
    snprintf(tt, sizeof tt, "%.17g", t);
    test_params *tp = test_params_make(model->info->params, "test.ini", "lattice", lattice,
                                       "t", tt, "hund", "inf", NULL);
    mcf_cell *cell = NULL;
    CHECK(tp && mcf_cell_create(&cell) == MCF_OK, "a cell");
    CHECK(MCFI_MODEL(m, periodic, &tp->p, NULL, m->ordered_state, cell) == MCF_OK &&
              mcf_cell_view(cell), "the ordered state '%s': %s",
          m->ordered_state ? m->ordered_state : "(none)", mcf_last_error());
    test_params_free(tp);
    return cell;
}

static void test_levels(void)
{
    const mcfi_model *m = model->model;
    CHECK(m->has_periodic && m->ordered_state && m->mu_key &&
              !strcmp(m->ordered_state, "ferro") && !strcmp(m->mu_key, "mu"),
          "double exchange names its ordered state ferro and its chemical potential mu");
    if (!m->ordered_state)
        return;
    const double t = 0.7; /* not 1: a lost factor t shows */
    mcf_cell *cell = ferro("cubic", t);
    const long sizes[] = {3, 4, 5, 6, 8, 10};
    for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++) {
        size_t n, want_n, repeat;
        double *eps = NULL, *want = cosine_levels(sizes[j], 3, t, &want_n);
        qsort(want, want_n, sizeof *want, ascending);
        CHECK(mcfi_torus_levels(mcf_cell_view(cell), sizes[j], &eps, &n, &repeat) == MCF_OK &&
                  repeat == 1 && n == want_n, "L = %ld: %zu levels, want %zu", sizes[j], n,
              want_n);
        CHECK(mcfi_torus_level_count(mcf_cell_view(cell), sizes[j]) == n,
              "L = %ld: the count without the levels is %zu, the levels %zu", sizes[j],
              mcfi_torus_level_count(mcf_cell_view(cell), sizes[j]), n);
        double worst = 0;
        for (size_t k = 0; eps && k < n && k < want_n; k++)
            worst = fmax(worst, fabs(eps[k] - want[k]));
        CHECK(worst < 1e-12, "L = %ld: the torus levels differ from the cosine band by %g",
              sizes[j], worst);
        free(eps);
        free(want);
    }
    mcf_cell_destroy(cell);

    /* the counts of the issue, from the cosine band alone */
    const long L[3] = {6, 8, 10};
    const size_t at_zero[3] = {24, 68, 0};
    for (int j = 0; j < 3; j++) {
        size_t n;
        double *e = cosine_levels(L[j], 3, 1.0, &n);
        CHECK(count_near(e, n, 0.0, 1e-9) == at_zero[j], "L = %ld: %zu levels at 0, want %zu",
              L[j], count_near(e, n, 0.0, 1e-9), at_zero[j]);
        free(e);
    }
}

/* a setup of cfg (written to $MCF_TEST_TMP/shells.ini); its shell warnings (owned) */
static char *setup_warnings(const char *cfg)
{
    char path[PHYS_PATH_MAX];
    snprintf(path, sizeof path, "%s/shells.ini", getenv("MCF_TEST_TMP"));
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(cfg, f);
        fclose(f);
    }
    mcf_config *c = NULL;
    mcf_setup *s = NULL;
    char *w = NULL;
    CHECK(f && mcfe_config_read(path, &c) == MCF_OK && mcfe_setup_create(c, &s) == MCF_OK,
          "setup of %s: %s", path, mcf_last_error());
    if (s && s->shell_warnings)
        w = strdup(s->shell_warnings);
    mcfe_setup_free(s);
    mcfe_config_free(c);
    return w ? w : strdup("");
}

/* the number of lines of text containing needle */
static int lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_setup(void)
{
    char *w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = ed\n"
                             "[schedule]\ntemperatures = 0.05, 0.12\n"
                             "[model]\nlattice = cubic\nL = 6, 8, 10\nboundary = periodic\n"
                             "mu = 0\nhund = inf\n");
    printf("setup warnings:\n%s", w);
    CHECK(lines_with(w, "\n") == 2, "two warnings (L = 6 and 8), got:\n%s", w);
    CHECK(lines_with(w, "shells.ini:8: [model] L = 6 (periodic): 24 of 216 levels") == 1 &&
              lines_with(w, "shells.ini:8: [model] L = 8 (periodic): 68 of 512 levels") == 1,
          "the counts 24 of 216 and 68 of 512, naming file, line and key:\n%s", w);
    CHECK(!strstr(w, "L = 10 (periodic)"), "no warning for L = 10:\n%s", w);
    CHECK(strstr(w, "at eps = 0, within 3 T of mu = 0 at T = 0.05") != NULL,
          "the shell's energy, the window, mu and T:\n%s", w);
    /* the sizes offered for L = 6 at T = 0.05: those of 3..14 (L - 4 .. L + 8, >= 3) whose
       cosine band has no level within 3 T = 0.15 of 0 */
    char want[256] = "no level within 3 T of mu at L = ";
    int any = 0;
    for (long l = 3; l <= 14; l++) {
        size_t n;
        double *e = cosine_levels(l, 3, 1.0, &n);
        if (l != 6 && !count_near(e, n, 0.0, 0.15)) {
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%ld", any ? ", " : "",
                     l);
            any = 1;
        }
        free(e);
    }
    const char *l6 = strstr(w, "L = 6 (periodic)");
    const char *end = l6 ? strchr(l6, '\n') : NULL;
    CHECK(any && l6 && end && strstr(l6, want) && strstr(l6, want) + strlen(want) == end,
          "L = 6 offers exactly the sizes without a level near mu: want '%s' in\n%s", want, w);
    free(w);

    /* open boundaries have no k grid of shells; nor has a mu far from every level */
    w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = ed\n"
                       "[schedule]\ntemperatures = 0.05\n"
                       "[model]\nlattice = cubic\nL = 6\nboundary = open\nmu = 0\n");
    CHECK(!*w, "open boundaries: no warning, got %s", w);
    free(w);
    w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = ed\n"
                       "[schedule]\ntemperatures = 0.05\n"
                       "[model]\nlattice = cubic\nL = 6\nmu = 0.5\n");
    CHECK(!*w, "mu = 0.5 on 6^3 (levels at 0 and 1 only): no warning, got %s", w);
    free(w);
    /* 129^3 = 2146689 levels, past the check's limit of 2^21: not computed (a setup of
       seconds), and the run says the check was not made rather than nothing */
    w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = kpm\n"
                       "[schedule]\ntemperatures = 0.05, 0.1\n"
                       "[model]\nlattice = cubic\nL = 128, 129\nmu = 0.5\n");
    CHECK(lines_with(w, "\n") == 1 &&
              lines_with(w, "shells.ini:8: [model] L = 129 (periodic): the check for "
                            "degenerate shells at mu was not made: the ordered state 'ferro' "
                            "has 2146689 levels") == 1,
          "L = 129 (not L = 128) says once that it was not checked, got:\n%s", w);
    free(w);
    /* more cells than a double counts (fuzz_config found the cast's overflow) */
    w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = kpm\n"
                       "[schedule]\ntemperatures = 0.05\n"
                       "[model]\nlattice = cubic\nL = 46666666666\nmu = 0.5\n");
    CHECK(lines_with(w, "\n") == 1 && lines_with(w, "L = 46666666666 (periodic): the check for "
                                                     "degenerate shells at mu was not made") == 1,
          "L = 46666666666: the check not made, said once, got:\n%s", w);
    free(w);
}

/* Twisted boundaries (docs/methods.md, "Twisted boundaries"): the twisted torus's levels
 * are the cosine band at K_d = (2 pi n_d + theta_d) / L, level for level to 1e-12 t; the
 * 6^3 torus at mu = 0, which has a shell of 24 levels at 0 without a twist, has with a
 * generic twist no two equal levels within 3 T of mu (the shell split: the count printed),
 * so no shell and no warning; twist = 0 is the periodic torus and warns. */
static void test_twist(void)
{
    const double t = 0.7, theta[3] = {2 * pi * 0.13, 2 * pi * 0.29, 2 * pi * 0.41};
    mcf_cell *cell = ferro("cubic", t);
    for (long L = 3; L <= 6; L++) {
        size_t n, repeat, N = (size_t)(L * L * L);
        double *eps = NULL, *want = malloc(N * sizeof *want);
        for (size_t k = 0; k < N; k++) {
            size_t m = k;
            want[k] = 0;
            for (int d = 0; d < 3; d++, m /= (size_t)L)
                want[k] += -2 * t * cos((2 * pi * (double)(m % (size_t)L) + theta[d]) /
                                        (double)L);
        }
        qsort(want, N, sizeof *want, ascending);
        const int rc = mcfi_torus_levels_twisted(mcf_cell_view(cell), L, theta, &eps, &n,
                                                 &repeat);
        double worst = 0;
        for (size_t k = 0; !rc && k < n && k < N; k++)
            worst = fmax(worst, fabs(eps[k] - want[k]));
        CHECK(rc == MCF_OK && n == N && worst < 1e-12, "L = %ld twisted: %zu levels (want %zu), "
              "off the shifted cosine band by %g", L, n, N, worst);
        if (L == 6) { /* the levels within 3 T = 0.15 of mu = 0: every one single */
            size_t near = 0, most = 0;
            for (size_t k = 0; k < N; k++) {
                size_t same = 1;
                while (k + same < N && want[k + same] - want[k] < 1e-9)
                    same++;
                if (fabs(want[k]) < 0.15) {
                    near += same;
                    most = same > most ? same : most;
                }
                k += same - 1;
            }
            printf("twist 0.13 0.29 0.41 on 6^3: %zu levels within 3 T = 0.15 of mu = 0, the "
                   "most of them equal: %zu\n", near, most);
            CHECK(most == 1 && mcfi_shell_at(eps, n, repeat, 0.0, 0.05, &(double){0}) == 0,
                  "the twisted 6^3 torus has %zu equal levels within 3 T of 0", most);
        }
        free(eps);
        free(want);
    }
    mcf_cell_destroy(cell);
    char *w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = ed\n"
                             "[schedule]\ntemperatures = 0.05\n"
                             "[model]\nlattice = cubic\nL = 6\nmu = 0\nhund = inf\n"
                             "twist = 0.13 0.29 0.41\n");
    CHECK(!*w, "6^3 at mu = 0 with twist 0.13 0.29 0.41: no warning, got %s", w);
    free(w);
    w = setup_warnings("[run]\nmodel = double-exchange\nevaluator = ed\n"
                       "[schedule]\ntemperatures = 0.05\n"
                       "[model]\nlattice = cubic\nL = 6\nmu = 0\nhund = inf\ntwist = 0\n");
    CHECK(lines_with(w, "24 of 216 levels") == 1, "twist = 0 is the periodic torus: the shell "
          "of 24 levels, got:\n%s", w);
    free(w);
}

static void test_run(const char *mcf)
{
    phys_table t;
    const int rc = phys_run_mcf(mcf, "shells_run", "double-exchange", 1,
                                "evaluator = ed\n[schedule]\nthermalize = 2\nsweeps = 8\n"
                                "measure_every = 1\nbins = 2\ntemperatures = 0.1\n"
                                "[model]\nlattice = square\nL = 4\nmu = 0\n", &t);
    CHECK(rc == 0, "the run");
    phys_table_free(&t);
    const char *want = "L = 4 (periodic): 6 of 16 levels of the ordered state 'ferro'";
    CHECK(phys_file_has("shells_run", "mcf.log", want, NULL), "the terminal has '%s'", want);
    CHECK(phys_file_has("shells_run", "out/log", want, NULL), "the log has '%s'", want);
    CHECK(phys_file_has("shells_run", "out/results.tsv", "# warning: [model] L = 4 (periodic)",
                        NULL) && phys_file_has("shells_run", "out/results.tsv", want, NULL),
          "results.tsv has '# warning: [model] %s' (no file:line: the bytes of results.tsv "
          "do not depend on the folder)", want);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_shells MCF_PROGRAM\n");
        return 2;
    }
    if (mcfe_plugin_open("double-exchange", MCF_PLUGIN_MODEL, &model) != MCF_OK) {
        fprintf(stderr, "cannot load double-exchange: %s\n", mcf_last_error());
        return 1;
    }
    test_levels();
    test_setup();
    test_twist();
    test_run(argv[1]);
    mcfe_plugin_close(model);
    return check_exit();
}
