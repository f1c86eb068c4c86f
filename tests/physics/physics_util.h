/* physics_util.h — what the physics tests share: run `mcf run CONFIG` in a fresh folder
 * under $MCF_TEST_TMP, read OUTPUT/results.tsv by column name, and compare a Monte Carlo
 * value with an exact one within a stated tolerance.
 *
 * Include this header first (before any system header): it selects POSIX.1-2008 / XSI
 * for mkdir(), nftw() and clock_gettime(). */
#ifndef MCF_PHYSICS_UTIL_H
#define MCF_PHYSICS_UTIL_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define PHYS_PATH_MAX 4096

/* results.tsv: the column names and an nrows x ncols table of numbers (NAN where a cell
 * is not a number). */
typedef struct phys_table {
    size_t ncols, nrows;
    char **names;
    double *v;
} phys_table;

static inline void phys_table_free(phys_table *t)
{
    for (size_t k = 0; k < t->ncols; k++)
        free(t->names[k]);
    free(t->names);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* MCF_TEST_LONG=1 (set and not "0"): the full-strength runs of a test whose default is cut
 * to fit .ci/run's 20 minutes (docs/reliability.md, "The time of .ci/run"). */
static inline int phys_long(void)
{
    const char *e = getenv("MCF_TEST_LONG");
    return e && *e && strcmp(e, "0") != 0;
}

/* The tiers of a test whose statistical comparisons need minutes (docs/reliability.md, "The
 * time of .ci/run"): `TEST MCF_PROGRAM --long` (ctest's NAME_long, label long) runs only those,
 * the plain call the rest.  Returns 1 for the long part, 0 for the default, 77 (printed as
 * skipped) for the long part without MCF_TEST_LONG=1, 2 on a bad command line. */
static inline int phys_tier(int argc, char **argv, const char *what)
{
    const int long_part = argc == 3 && strcmp(argv[2], "--long") == 0;
    if (argc != 2 && !long_part) {
        fprintf(stderr, "usage: %s MCF_PROGRAM [--long]\n", argv[0]);
        return 2;
    }
    if (long_part && !phys_long()) {
        printf("skipped: the long part (%s) runs with MCF_TEST_LONG=1\n", what);
        return 77;
    }
    return long_part;
}

static inline double phys_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int phys_rm_entry(const char *path, const struct stat *sb, int flag,
                                struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    int rc = (flag == FTW_DP) ? rmdir(path) : unlink(path);
    if (rc != 0)
        fprintf(stderr, "physics: cannot remove %s: %s\n", path, strerror(errno));
    return rc;
}

/* Makes dir = $MCF_TEST_TMP/name, empty (an old one is removed first, so mcf never finds a
 * checkpoint of an earlier run to resume).  0 on success. */
static inline int phys_fresh_dir(const char *name, char *dir, size_t size)
{
    const char *tmp = getenv("MCF_TEST_TMP");
    if (!tmp || !tmp[0]) {
        fprintf(stderr, "physics: MCF_TEST_TMP is not set; run the test through ctest\n");
        return -1;
    }
    if ((size_t)snprintf(dir, size, "%s/%s", tmp, name) >= size) {
        fprintf(stderr, "physics: scratch path too long\n");
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) == 0 && nftw(dir, phys_rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return -1;
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "physics: cannot create %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "physics: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Splits line (modified in place) at tabs into at most max fields; returns the count. */
static inline size_t phys_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

/* Reads a results.tsv: '#' lines are metadata, the first other line is the header, every
 * later non-empty line one row.  0 on success. */
static inline int phys_read_table(const char *path, phys_table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "physics: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    static char line[1 << 16];
    char *fields[512];
    size_t cap = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line[0] == '#' || len == 0)
            continue;
        size_t n = phys_split(line, fields, sizeof fields / sizeof fields[0]);
        if (!t->names) {
            t->names = calloc(n, sizeof *t->names);
            if (!t->names) {
                rc = -1;
                break;
            }
            t->ncols = n;
            for (size_t k = 0; k < n; k++) {
                t->names[k] = malloc(strlen(fields[k]) + 1);
                if (!t->names[k]) {
                    rc = -1;
                    break;
                }
                strcpy(t->names[k], fields[k]);
            }
            if (rc)
                break;
            continue;
        }
        if (n != t->ncols) {
            fprintf(stderr, "physics: %s: a row has %zu fields, the header %zu\n", path, n,
                    t->ncols);
            rc = -1;
            break;
        }
        if (t->nrows == cap) {
            cap = cap ? 2 * cap : 16;
            double *v = realloc(t->v, cap * t->ncols * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            t->v = v;
        }
        for (size_t k = 0; k < n; k++) {
            char *end;
            double x = strtod(fields[k], &end);
            t->v[t->nrows * t->ncols + k] = (end == fields[k] || *end) ? NAN : x;
        }
        t->nrows++;
    }
    fclose(f);
    if (!rc && !t->names) {
        fprintf(stderr, "physics: %s has no header line\n", path);
        rc = -1;
    }
    if (rc)
        phys_table_free(t);
    return rc;
}

/* Index of column `name`, or -1 (with a message). */
static inline int phys_col(const phys_table *t, const char *name)
{
    for (size_t k = 0; k < t->ncols; k++)
        if (strcmp(t->names[k], name) == 0)
            return (int)k;
    fprintf(stderr, "physics: results.tsv has no column '%s'\n", name);
    return -1;
}

/* The value in row `row` of column `name`; NAN if either is missing. */
static inline double phys_get(const phys_table *t, size_t row, const char *name)
{
    int k = phys_col(t, name);
    if (k < 0 || row >= t->nrows)
        return NAN;
    return t->v[row * t->ncols + (size_t)k];
}

/* The first row whose column `name` equals `value` (to 1e-9 relative), or -1. */
static inline long phys_find_row(const phys_table *t, const char *name, double value)
{
    int k = phys_col(t, name);
    if (k < 0)
        return -1;
    for (size_t r = 0; r < t->nrows; r++)
        if (fabs(t->v[r * t->ncols + (size_t)k] - value) <= 1e-9 * fmax(1.0, fabs(value)))
            return (long)r;
    fprintf(stderr, "physics: results.tsv has no row with %s = %g\n", name, value);
    return -1;
}

/* Prints the last lines of a file to stderr (mcf's output after a failed run). */
static inline void phys_print_tail(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static char buf[8192];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0;
    fseek(f, from, SEEK_SET);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    buf[got] = '\0';
    fclose(f);
    fprintf(stderr, "---- %s (tail) ----\n%s\n----\n", path, buf);
}

/* Runs one mcf job: writes $MCF_TEST_TMP/<name>/config.ini as
 *
 *     [run]  model, seed, output = $MCF_TEST_TMP/<name>/out, threads = 0
 *     <sections>                    the caller's [schedule] and [model] text
 *
 * runs `<mcf> run config.ini` (its output goes to mcf.log beside the config) and reads
 * out/results.tsv into *t.  Prints the wall time.  0 on success; on failure prints why
 * and the tail of mcf's output. */
static inline int phys_run_mcf(const char *mcf, const char *name, const char *model,
                               unsigned long long seed, const char *sections, phys_table *t)
{
    char dir[PHYS_PATH_MAX], config[PHYS_PATH_MAX], log[PHYS_PATH_MAX], results[PHYS_PATH_MAX];
    static char cmd[4 * PHYS_PATH_MAX];
    memset(t, 0, sizeof *t);
    if (phys_fresh_dir(name, dir, sizeof dir))
        return -1;
    if (strchr(dir, '\'') || strchr(mcf, '\'')) {
        fprintf(stderr, "physics: paths with a single quote are not supported\n");
        return -1;
    }
    snprintf(config, sizeof config, "%s/config.ini", dir);
    snprintf(log, sizeof log, "%s/mcf.log", dir);
    snprintf(results, sizeof results, "%s/out/results.tsv", dir);
    FILE *f = fopen(config, "w");
    if (!f) {
        fprintf(stderr, "physics: cannot write %s: %s\n", config, strerror(errno));
        return -1;
    }
    fprintf(f,
            "; written by the physics test %s\n"
            "[run]\nmodel = %s\nseed = %llu\noutput = %s/out\nthreads = 0\n\n%s",
            name, model, seed, dir, sections);
    if (fclose(f) != 0) {
        fprintf(stderr, "physics: cannot write %s\n", config);
        return -1;
    }
    /* --no-plots: gnuplot's ~2.5 s of CPU a run, which no physics test reads (the plots'
     * own tests: test_plot, test_plots, test_cli) */
    snprintf(cmd, sizeof cmd, "'%s' run '%s' --no-plots > '%s' 2>&1", mcf, config, log);
    const double t0 = phys_now();
    int status = system(cmd);
    const double wall = phys_now() - t0;
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "physics: `%s` failed (status %d)\n", cmd,
                status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        phys_print_tail(log);
        return -1;
    }
    printf("%s: mcf run took %.2f s\n", name, wall);
    if (phys_read_table(results, t)) {
        phys_print_tail(log);
        return -1;
    }
    return 0;
}

/* 1 when needle occurs in hay, ignoring ASCII case. */
static inline int phys_contains(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* `mcf response $MCF_TEST_TMP/<name>/out ARGS` (what it prints: <name>/response.log), then,
 * when it succeeds, the table <name>/out/FILE into t (zeroed otherwise; the caller frees it
 * with phys_table_free).  Returns mcf response's exit status, or -1 when it could not run or
 * the table could not be read. */
static inline int phys_run_response(const char *mcf, const char *name, const char *args,
                                    const char *file, phys_table *t)
{
    char dir[PHYS_PATH_MAX];
    static char cmd[3 * PHYS_PATH_MAX];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(dir, sizeof dir, "%s/%s", tmp ? tmp : ".", name);
    snprintf(cmd, sizeof cmd, "'%s' response '%s/out' %s > '%s/response.log' 2>&1", mcf, dir,
             args, dir);
    const int status = system(cmd);
    const int rc = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    memset(t, 0, sizeof *t);
    if (rc == 0) {
        snprintf(cmd, sizeof cmd, "%s/out/%s", dir, file);
        if (phys_read_table(cmd, t))
            return -1;
    }
    return rc;
}

/* 1 when the file `file` of the run `name` (under $MCF_TEST_TMP/<name>/: "mcf.log" is what
 * phys_run_mcf captured from the terminal, "out/log" the run's own log, where messages of
 * chain creation go) has a line containing needle and, unless NULL, not `unless` (both
 * ignoring ASCII case); the line is printed. */
static inline int phys_file_has(const char *name, const char *file, const char *needle,
                                const char *unless)
{
    char path[PHYS_PATH_MAX], line[1024];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/%s/%s", tmp ? tmp : ".", name, file);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        if (phys_contains(line, needle) && !(unless && phys_contains(line, unless))) {
            printf("  log: %s", line);
            found = 1;
        }
    if (f)
        fclose(f);
    return found;
}

/* phys_file_has on the run's terminal output (mcf.log) */
static inline int phys_log_has(const char *name, const char *needle, const char *unless)
{
    return phys_file_has(name, "mcf.log", needle, unless);
}

/* Runs `mcf run` on "[run] model = <model>, seed 1, output, threads 0" followed by
 * `sections` (which go on in [run]) in a fresh folder under $MCF_TEST_TMP; the run must be
 * refused: a non-zero exit status, no results.tsv, and every string of the NULL-terminated
 * `needles` in its output (case-insensitive). */
static inline void phys_expect_refusal(const char *mcf, const char *name, const char *model,
                                       const char *sections, const char *const *needles)
{
    char dir[PHYS_PATH_MAX], config[PHYS_PATH_MAX], log[PHYS_PATH_MAX], results[PHYS_PATH_MAX];
    static char cmd[4 * PHYS_PATH_MAX], text[16384];
    if (phys_fresh_dir(name, dir, sizeof dir)) {
        CHECK(0, "%s: no scratch folder", name);
        return;
    }
    snprintf(config, sizeof config, "%s/config.ini", dir);
    snprintf(log, sizeof log, "%s/mcf.log", dir);
    snprintf(results, sizeof results, "%s/out/results.tsv", dir);
    FILE *f = fopen(config, "w");
    CHECK(f != NULL, "%s: cannot write %s", name, config);
    if (!f)
        return;
    fprintf(f, "[run]\nmodel = %s\nseed = 1\noutput = %s/out\nthreads = 0\n%s", model, dir,
            sections);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' run '%s' > '%s' 2>&1", mcf, config, log);
    const int status = system(cmd);
    f = fopen(log, "r");
    const size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f)
        fclose(f);
    printf("  %-24s exit %d: %s", name, WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0,
          "%s: mcf run accepted the configuration", name);
    CHECK(access(results, F_OK) != 0, "%s: a refused run wrote %s", name, results);
    for (size_t k = 0; needles[k]; k++)
        CHECK(phys_contains(text, needles[k]), "%s: the message does not mention '%s'", name,
              needles[k]);
}

/* The check every physics comparison makes: mc +- err against the exact value, passing when
 * |mc - exact| <= nsigma * err + bound (bound: a stated systematic allowance such as a
 * finite-size correction, 0 when the exact value is for the same finite system).  The
 * error bar must itself be positive and finite. */
static inline void phys_compare(const char *what, double mc, double err, double exact,
                                double nsigma, double bound)
{
    const double diff = mc - exact;
    printf("  %-28s mc = %+.6f +- %.6f   exact = %+.6f   diff = %+.2e (%+.2f sigma)"
           "   tol = %.2e\n",
           what, mc, err, exact, diff, diff / err, nsigma * err + bound);
    CHECK(isfinite(err) && err > 0, "%s: error bar %g is not positive and finite", what, err);
    CHECK(isfinite(mc) && fabs(diff) <= nsigma * err + bound,
          "%s: mc = %.8g +- %.3g, exact = %.8g: |diff| = %.3g > %g sigma + %.3g", what, mc, err,
          exact, fabs(diff), nsigma, bound);
}

/* 1 when the two files exist and are equal byte for byte */
static inline int phys_same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        const int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* `mcf run ini` (its output folder out), stopped by SIGTERM as soon as out/checkpoint
 * exists (after the first checkpoint: the run must be longer than that), which must exit
 * with status 143; then `mcf resume out`, whose log line says from which sweep (printed).
 * Standard output and error of both go to log.  Checks each step; 0 when all went as
 * expected. */
static inline int phys_stop_and_resume(const char *mcf, const char *ini, const char *out,
                                       const char *log)
{
    char ckpt[PHYS_PATH_MAX];
    static char cmd[3 * PHYS_PATH_MAX];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint", out);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(mcf, mcf, "run", ini, "--no-progress", "--no-plots", (char *)NULL);
        _exit(127);
    }
    struct stat st;
    const struct timespec ms = {0, 1000000};
    for (int i = 0; i < 60000 && stat(ckpt, &st) != 0; i++)
        nanosleep(&ms, NULL);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    printf("  stopped by SIGTERM: exit status %d\n", code);
    CHECK(code == 143, "SIGTERM: exit status %d, not 143 (see %s)", code, log);
    snprintf(cmd, sizeof cmd, "'%s' resume '%s' --no-progress --no-plots >> '%s' 2>&1", mcf,
             out, log);
    const int resumed = system(cmd) == 0;
    CHECK(resumed, "`%s` failed", cmd);
    snprintf(cmd, sizeof cmd, "grep -o 'resumed from the checkpoint at sweep [0-9]* of [0-9]*' "
             "'%s/log'", out);
    printf("  ");
    fflush(stdout);
    const int said = system(cmd) == 0;
    CHECK(said, "the log does not say where the run resumed");
    return code == 143 && resumed && said ? 0 : -1;
}

/* The resume identity: in a fresh folder <name> under $MCF_TEST_TMP, the configuration
 * "[run]", run_keys (lines), the output line, then `sections` (it must checkpoint before it
 * ends) run once straight through ("whole") and once stopped by SIGTERM after its first
 * checkpoint and resumed ("stopped", phys_stop_and_resume).  Checks each step; 1 when the
 * two results.tsv are equal byte for byte, 0 when they differ or a step failed. */
static inline int phys_resume_same(const char *mcf, const char *name, const char *run_keys,
                                   const char *sections)
{
    char dir[PHYS_PATH_MAX], ini[PHYS_PATH_MAX], out[PHYS_PATH_MAX], log[PHYS_PATH_MAX];
    char fa[PHYS_PATH_MAX], fb[PHYS_PATH_MAX];
    static char cmd[3 * PHYS_PATH_MAX];
    if (phys_fresh_dir(name, dir, sizeof dir)) {
        CHECK(0, "%s: no scratch folder", name);
        return 0;
    }
    const char *names[2] = {"whole", "stopped"};
    for (int q = 0; q < 2; q++) {
        snprintf(ini, sizeof ini, "%s/%s.ini", dir, names[q]);
        snprintf(out, sizeof out, "%s/%s", dir, names[q]);
        FILE *f = fopen(ini, "w");
        CHECK(f != NULL, "cannot write %s", ini);
        if (!f)
            return 0;
        fprintf(f, "[run]\n%soutput = %s\n%s", run_keys, out, sections);
        fclose(f);
        snprintf(log, sizeof log, "%s/%s.log", dir, names[q]);
        if (q == 0) {
            snprintf(cmd, sizeof cmd, "'%s' run '%s' --no-progress --no-plots > '%s' 2>&1", mcf,
                     ini, log);
            CHECK(system(cmd) == 0, "`%s` failed", cmd);
        } else if (phys_stop_and_resume(mcf, ini, out, log)) {
            return 0;
        }
    }
    snprintf(fa, sizeof fa, "%s/whole/results.tsv", dir);
    snprintf(fb, sizeof fb, "%s/stopped/results.tsv", dir);
    const int same = phys_same_file(fa, fb);
    CHECK(same, "%s: the resumed run differs from the uninterrupted one: %s, %s", name, fa, fb);
    return same;
}

#endif
