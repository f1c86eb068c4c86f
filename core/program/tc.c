/* tc.c — `mcf tc DIR [DIR ...] [--blocks B] [--jackknife slices|chains] [--skip N] [--omega W]
 * [--nu NU] [--grid N] [--window LO:HI] [--sizes L1,L2,...] [--fixed QUANTITY=VALUE ...]`:
 * T_c from the measurement series of runs that scanned L and T (tc.h; docs/methods.md,
 * "Finite-size scaling").  Reads each DIR/series/index.tsv and the chains' files
 * (tc_sources.c: the runs share one physics, neighbouring temperatures overlap; --skip
 * leaves out the start of every chain), reweights every size over its temperatures
 * (tc_reweight.c), writes the curves with jackknife errors to DIR/tc-curves.tsv, the
 * crossings of successive sizes of the Binder cumulant and of xi/L, nu from the ratio of
 * the slopes at each crossing, and T_c extrapolated from the crossings as T*(L) = T_c +
 * a L^-(1/nu + omega) (nu the largest pair's, or the universality class's with --nu; the
 * fit's chi2 with three crossings or more), to DIR/tc.tsv and the terminal; with --fixed the
 * temperatures where each size's curve takes a value (tc_fixed.c). */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include "mcf/error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void size_free(tc_size *s)
{
    free(s->beta);
    free(s->count);
    free(s->lnz);
    free(s->q);
    free(s->chain);
    free(s->block);
    free(s->logden);
    free(s->cls);
    free(s->cls_rep);
    free(s->cls_sum);
    free(s->cls_logden);
}

static void run_free(tc_run *t)
{
    for (size_t k = 0; k < t->n_sizes; k++)
        size_free(&t->size[k]);
    free(t->size);
}

/* the words of a tab- or space-separated line, in place; their number (at most max) */
static size_t split(char *line, const char *seps, char **word, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *w = strtok_r(line, seps, &save); w && n < max;
         w = strtok_r(NULL, seps, &save))
        word[n++] = w;
    return n;
}

/* Appends chain file `file` (records of `width` doubles, columns col[TC_NQ]) at beta to the
 * size of length L, making the size when new. */
static int add_chain(tc_run *t, size_t d, const char *file, size_t width, const int *col,
                     long L, double T, double units)
{
    int wanted = t->n_only == 0;
    for (size_t q = 0; q < t->n_only; q++)
        wanted |= t->only[q] == L;
    if (!wanted || T < t->window[0] || T > t->window[1]) {
        t->left_out++;
        return MCF_OK;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", t->dirs[d], t->series[d], file);
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcf_fail(MCF_EIO, "%s: cannot open (%s)", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    const long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    const size_t rec = width * sizeof(double);
    if (t->skip && bytes >= 0 && (size_t)bytes / rec < t->skip + 2 * t->blocks) {
        fclose(f); /* too short to keep 2 records a block after --skip: left out, said */
        t->skipped_out++;
        return MCF_OK;
    }
    if (bytes < 0 || ((size_t)bytes % rec != 0 && !tc_partial(t)) ||
        (size_t)bytes / rec < 2 * t->blocks) {
        fclose(f);
        return mcf_fail(MCF_EFORMAT, "%s: %ld bytes: not a whole number of records of %zu "
                        "bytes, or fewer than 2 x --blocks = %zu of them", path, bytes, rec,
                        2 * t->blocks);
    }
    size_t k = 0;
    while (k < t->n_sizes && t->size[k].L != L)
        k++;
    if (k == t->n_sizes) {
        tc_size *grown = realloc(t->size, (t->n_sizes + 1) * sizeof *grown);
        if (!grown) {
            fclose(f);
            return mcf_fail(MCF_ENOMEM, "mcf tc: out of memory");
        }
        t->size = grown;
        memset(&t->size[k], 0, sizeof t->size[k]);
        t->size[k].L = L;
        t->size[k].units = units;
        t->size[k].t_min = t->size[k].t_max = T;
        t->n_sizes++;
    }
    tc_size *s = &t->size[k];
    const size_t all = (size_t)bytes / rec; /* whole records (partial: the rest is in write) */
    const size_t n = all - t->skip;         /* those kept: --skip leaves out the first */
    double *raw = malloc(all * rec + 1);
    double *q = realloc(s->q, (s->n + n) * TC_NQ * sizeof *q);
    if (q)
        s->q = q;
    size_t *ch = realloc(s->chain, (s->n + n) * sizeof *ch);
    if (ch)
        s->chain = ch;
    unsigned *bl = realloc(s->block, (s->n + n) * sizeof *bl);
    if (bl)
        s->block = bl;
    double *beta = realloc(s->beta, (s->n_chains + 1) * sizeof *beta);
    if (beta)
        s->beta = beta;
    if (!raw || !q || !ch || !bl || !beta) {
        free(raw);
        fclose(f);
        return mcf_fail(MCF_ENOMEM, "mcf tc: out of memory for %s", path);
    }
    const int got = fread(raw, rec, all, f) == all;
    fclose(f);
    if (!got) {
        free(raw);
        return mcf_fail(MCF_EIO, "%s: cannot read", path);
    }
    for (size_t i = 0; i < n; i++) {
        double *to = s->q + (s->n + i) * TC_NQ;
        for (int c = 0; c < TC_NQ; c++)
            to[c] = col[c] >= 0 ? raw[(t->skip + i) * width + (size_t)col[c]] : 1.0;
        to[TC_E] *= units; /* the weight's energy */
        s->chain[s->n + i] = s->n_chains;
        s->block[s->n + i] = (unsigned)(i * t->blocks / n);
    }
    free(raw);
    s->n += n;
    s->beta[s->n_chains++] = 1.0 / T;
    if (T < s->t_min)
        s->t_min = T;
    if (T > s->t_max)
        s->t_max = T;
    return MCF_OK;
}

/* DIR/series/index.tsv of dir d and every chain's series; the refusals of what cannot be
 * used */
static int read_dir(tc_run *t, size_t d)
{
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/%s/index.tsv", t->dirs[d], t->series[d]);
    FILE *f = fopen(path, "r");
    if (!f)
        return mcf_fail(MCF_EINVAL, "mcf tc: %s: %s; the run has no measurement series: run "
                        "it with [run] series = yes (a finished run; `mcf resume` finishes a "
                        "stopped one)", path, strerror(errno));
    char *word[64];
    size_t width = 0, n_head = 0;
    int col[TC_NQ] = {-1, -1, -1, -1}, Lc = -1, Tc = -1, Uc = -1, rc = MCF_OK;
    while (!rc && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "# roles:", 8)) {
            static const char *const want[TC_NQ] = {"energy", "order2", "order4", "order_kmin"};
            width = split(line + 8, " ", word, 64);
            for (size_t k = 0; k < width; k++)
                for (int c = 0; c < TC_NQ; c++)
                    if (!strcmp(word[k], want[c]))
                        col[c] = (int)k;
            continue;
        }
        if (line[0] == '#' || !line[0])
            continue;
        size_t n = split(line, "\t", word, 64);
        if (!n_head++) {
            for (size_t k = 0; k < n; k++) {
                Lc = !strcmp(word[k], "L") ? (int)k : Lc;
                Tc = !strcmp(word[k], "T") ? (int)k : Tc;
                Uc = !strcmp(word[k], "units") ? (int)k : Uc;
            }
            if (col[TC_E] < 0 || col[TC_M2] < 0 || col[TC_M4] < 0)
                rc = mcf_fail(MCF_EINVAL, "mcf tc: %s: the series lack an energy, m^2 or m^4 "
                              "column (roles energy, order2, order4): the model has no "
                              "Binder cumulant to cross", path);
            else if (Tc < 0 || Lc < 0 || Uc < 0)
                rc = mcf_fail(MCF_EINVAL, "mcf tc: %s: the run did not scan %s; mcf tc needs a "
                              "scan of [model] L (two sizes or more) and [schedule] "
                              "temperatures", path, Tc < 0 ? "temperatures" : "L");
            continue;
        }
        if (n <= (size_t)Tc || n <= (size_t)Lc || n <= (size_t)Uc || n < 2) {
            rc = mcf_fail(MCF_EFORMAT, "mcf tc: %s: a row with %zu columns", path, n);
            break;
        }
        rc = add_chain(t, d, word[1], width, col, strtol(word[Lc], NULL, 10),
                       strtod(word[Tc], NULL), strtod(word[Uc], NULL));
    }
    fclose(f);
    t->has_xi = (d == 0 || t->has_xi) && col[TC_MK] >= 0;
    return rc;
}

/* every dir's series (after checking that they share the physics); the refusals of what
 * cannot be used */
static int read_series(tc_run *t)
{
    int rc = MCF_OK;
    for (size_t d = 1; d < t->n_dirs && !rc; d++)
        rc = tc_same_physics(t->dirs[0], t->dirs[d]);
    for (size_t d = 0; d < t->n_dirs && !rc; d++)
        rc = read_dir(t, d);
    if (!rc && t->left_out)
        printf("mcf tc: %s leaves out %zu chain%s\n", t->n_only ? "--sizes" : "--window",
               t->left_out, t->left_out == 1 ? "" : "s");
    if (!rc && t->skip)
        printf("mcf tc: --skip %zu: the first %zu measurements of every chain left out, and "
               "%zu chain%s shorter than %zu (2 a jackknife block after them)\n", t->skip,
               t->skip, t->skipped_out, t->skipped_out == 1 ? "" : "s",
               t->skip + 2 * t->blocks);
    if (!rc && t->n_sizes == 0 && t->skipped_out)
        rc = mcf_fail(MCF_EINVAL, "mcf tc: --skip %zu leaves no chain: each has fewer than "
                      "%zu measurements (--skip and 2 a jackknife block); skip fewer", t->skip,
                      t->skip + 2 * t->blocks);
    for (size_t q = 0; !rc && q < t->n_only; q++) {
        size_t k = 0;
        while (k < t->n_sizes && t->size[k].L != t->only[q])
            k++;
        if (k == t->n_sizes)
            rc = mcf_fail(MCF_EINVAL, "mcf tc: --sizes names L = %ld, which the series do not "
                          "have%s", t->only[q], t->left_out ? " (in the window)" : "");
    }
    if (!rc && t->n_sizes < 2)
        rc = mcf_fail(MCF_EINVAL, "mcf tc: %s: one lattice size (L = %ld)%s: crossings need "
                      "two sizes or more; scan [model] L = 8, 16, 32 (say)", t->dir,
                      t->n_sizes ? t->size[0].L : 0L, t->left_out ? " in the window" : "");
    for (size_t k = 0; !rc && k < t->n_sizes; k++)
        if (t->size[k].t_max <= t->size[k].t_min)
            rc = mcf_fail(MCF_EINVAL, "mcf tc: %s: L = %ld has one temperature%s; "
                          "reweighting needs a window of several", t->dir, t->size[k].L,
                          t->left_out ? " in the window" : "");
    /* ascending L */
    for (size_t a = 1; a < t->n_sizes; a++)
        for (size_t b = a; b > 0 && t->size[b - 1].L > t->size[b].L; b--) {
            tc_size tmp = t->size[b];
            t->size[b] = t->size[b - 1];
            t->size[b - 1] = tmp;
        }
    return rc;
}

/* Newton steps before the fixed point (tc_reweight_solve): ~10 are taken where the fixed
 * point takes thousands; 100 is the cap */
#define TC_NEWTON_STEPS 100

/* the reweighting of every size and jackknife sample */
static int solve_all(tc_run *t)
{
    const size_t J = t->blocks + 1;
    /* every size's neighbouring temperatures bridged first (a refusal before the work) */
    double worst_ratio = 0; /* the largest tau_int / block length of a size warned of */
    double worst_start = 0; /* the largest |start ratio - 1| of a size warned of */
    for (size_t k = 0; k < t->n_sizes; k++) {
        tc_size *s = &t->size[k];
        char why[1024] = "";
        double d = 0, lo = 0, hi = 0;
        size_t bridging = 0;
        if (t->keep_bridged)
            tc_keep_bridged(s, t->blocks);
        if (t->chain_blocks)
            tc_chain_blocks(s, t->blocks);
        const int unbridged = tc_overlap(s, t->blocks, why, sizeof why, &d, &bridging, &lo,
                                         &hi) != 0;
        if (unbridged && !(t->drop_unbridged && t->n_sizes > 2 && t->n_found < TC_MAX_SIZES))
            return mcf_fail(MCF_EINVAL, "mcf tc: %s", why);
        if (t->n_found < TC_MAX_SIZES)
            t->found[t->n_found++] = (tc_size_found){s->L, d, fabs(hi - lo), unbridged};
        if (unbridged) { /* left out, for the refinement to bridge */
            printf("mcf tc: L = %ld left out of this analysis: %s\n", s->L, why);
            size_free(s);
            memmove(s, s + 1, (t->n_sizes - k - 1) * sizeof *s);
            t->n_sizes--;
            k--;
            continue;
        }
        printf("mcf tc: L = %ld: %zu chains; the least overlapping neighbours, T = %g and %g: "
               "%.1f standard deviations of energy apart, %zu measurements past the "
               "midpoint\n", s->L, s->n_chains, lo, hi, d, bridging);
        /* the start of the chains against the rest: a bias, not an error bar */
        double r = 1, re = 0;
        size_t nc = 0, most = 0;
        if (tc_start_biased(s, &r, &re, &nc, &most) && fabs(r - 1) > worst_start) {
            worst_start = fabs(r - 1);
            snprintf(t->start_note, sizeof t->start_note, "L = %ld: m^2 over the first quarter "
                     "of each chain's measurements is %.3f +- %.3f of the chain's mean (%zu "
                     "chains): they were not in equilibrium when their measurements began, "
                     "which biases the curves; leave the start out (--skip %zu, a quarter of "
                     "the longest) or thermalize longer", s->L, r, re, nc, most / 4);
        }
        /* the blocks against the autocorrelation of m^2 (the order parameter's, which the
         * crossings rest on): the variance of block means is low by ~2 tau / b (pieces of
         * a temperature's chains laid end to end: b the piece) */
        double at = 0;
        size_t len = 0;
        const double tau = tc_tau_max(s, TC_M2, &at, &len);
        size_t at_T = 0; /* with --jackknife chains: the measurements of its temperature */
        for (size_t n = 0; t->chain_blocks && n < s->n; n++)
            at_T += fabs(1.0 / s->beta[s->chain[n]] - at) <= 1e-12 * at;
        const double b = (double)(t->chain_blocks ? at_T : len) / (double)t->blocks;
        if (b < 20.0 * tau && tau / b > worst_ratio) {
            worst_ratio = tau / b;
            snprintf(t->tau_note, sizeof t->tau_note, "L = %ld, T = %g: tau_int(m^2) = %.1f "
                     "measurements against jackknife blocks of %.0f: blocks shorter than 20 "
                     "tau_int make the errors too small (the variance by ~2 tau_int / block "
                     "= %.0f%%); run longer or use fewer --blocks%s", s->L, at, tau, b,
                     fmin(100.0, 200.0 * tau / b),
                     t->chain_blocks ? "" : " (or --jackknife chains: blocks cut from each "
                     "temperature's chains laid end to end)");
        }
    }
    if (t->start_note[0])
        printf("mcf tc: warning: %s\n", t->start_note);
    if (t->tau_note[0])
        printf("mcf tc: warning: %s\n", t->tau_note);
    for (size_t k = 0; k < t->n_sizes; k++) {
        tc_size *s = &t->size[k];
        s->count = calloc(s->n_chains * J, sizeof *s->count);
        s->lnz = calloc(s->n_chains * J, sizeof *s->lnz);
        s->logden = calloc(s->n * J, sizeof *s->logden);
        if (!s->count || !s->lnz || !s->logden || tc_energy_classes(s, t->blocks))
            return mcf_fail(MCF_ENOMEM, "mcf tc: out of memory for the reweighting");
        double d = 0, lo = 0, hi = 0;
        size_t bridging = 0;
        tc_overlap(s, t->blocks, NULL, 0, &d, &bridging, &lo, &hi);
        for (size_t n = 0; n < s->n; n++)
            for (size_t j = 0; j < J; j++)
                s->count[s->chain[n] * J + j] += j == 0 || s->block[n] != j - 1;
        /* the full sample, then the jackknife samples from its solution, each on one thread
         * (each sample's numbers are the same on any number of threads) */
        long failed = tc_reweight_solve(s, t->blocks, 0, TC_NEWTON_STEPS, 20000) ? 0 : -1;
#pragma omp parallel for schedule(dynamic)
        for (long jj = 1; jj < (failed < 0 ? (long)J : 1); jj++) {
            const size_t j = (size_t)jj;
            for (size_t c = 0; c < s->n_chains; c++)
                s->lnz[c * J + j] = s->lnz[c * J];
            if (tc_reweight_solve(s, t->blocks, j, TC_NEWTON_STEPS, 20000)) {
#pragma omp critical(tc_failed)
                if (failed < 0 || jj < failed)
                    failed = jj;
            }
        }
        if (failed >= 0)
            return mcf_fail(MCF_EINVAL, "mcf tc: L = %ld: the reweighting equations do "
                            "not converge (jackknife sample %ld): the energy histograms "
                            "of neighbouring temperatures must overlap (the least: T = %g "
                            "and %g, %.1f standard deviations apart, %zu measurements past "
                            "the midpoint); add temperatures between them", s->L, failed,
                            lo, hi, d, bridging);
    }
    return MCF_OK;
}

void tc_defaults(tc_run *t, const char *dir)
{
    memset(t, 0, sizeof *t);
    t->dir = t->dirs[0] = dir;
    t->n_dirs = 1;
    t->window[0] = -INFINITY;
    t->window[1] = INFINITY;
    t->blocks = 16;
    t->grid = 101;
    t->omega = 1.0;
    for (size_t d = 0; d < TC_MAX_DIRS; d++)
        t->series[d] = "series";
}

int tc_analyze(tc_run *t)
{
    for (int q = 0; q < 2; q++) {
        t->tc[q] = t->tc_err[q] = t->nu[q] = t->nu_err[q] = NAN;
        t->err_why[q][0] = 0;
    }
    t->tau_note[0] = t->start_note[0] = 0;
    t->n_found = 0;
    for (size_t k = 0; k < TC_MAX_SIZES; k++)
        t->pair_tx[0][k] = t->pair_tx[1][k] = NAN;
    int rc = read_series(t);
    if (!rc)
        rc = solve_all(t);
    if (!rc)
        rc = tc_write_curves(t);
    if (!rc)
        rc = tc_report(t);
    run_free(t);
    t->size = NULL;
    t->n_sizes = 0;
    return rc;
}

int tc_parse_jackknife(const char *text)
{
    return !strcmp(text, "chains") ? 1 : !strcmp(text, "slices") ? 0 : -1;
}

/* "LO:HI" into w[2] (LO < HI); -1 if not that */
static int parse_window(const char *text, double *w)
{
    char *end = NULL;
    w[0] = strtod(text, &end);
    if (end == text || *end != ':')
        return -1;
    const char *hi = end + 1;
    w[1] = strtod(hi, &end);
    return end == hi || *end || !isfinite(w[0]) || !isfinite(w[1]) || !(w[0] < w[1]) ? -1 : 0;
}

/* "8,12,16" (commas or spaces) into t->only; -1 for fewer than two or a bad size */
static int parse_sizes(const char *text, tc_run *t)
{
    t->n_only = 0;
    const char *p = text;
    while (*p) {
        p += strspn(p, ", ");
        if (!*p)
            break;
        char *end = NULL;
        const long L = strtol(p, &end, 10);
        if (end == p || L < 1 || t->n_only == sizeof t->only / sizeof t->only[0])
            return -1;
        t->only[t->n_only++] = L;
        p = end;
        if (*p && *p != ',' && *p != ' ')
            return -1;
    }
    return t->n_only >= 2 ? 0 : -1;
}

#define TC_USAGE "usage: mcf tc DIR [DIR ...] [--blocks B] [--jackknife slices|chains] " \
                 "[--skip N] " \
                 "[--omega W] [--nu NU] [--grid N] [--window LO:HI] [--sizes L1,L2,...] " \
                 "[--fixed binder=VALUE] [--fixed xi_over_l=VALUE]"

int mcfi_tc_command(int argc, char **argv)
{
    tc_run t;
    tc_defaults(&t, NULL);
    t.n_dirs = 0;
    for (int k = 0; k < argc; k++) {
        char *end = NULL;
        if (!strcmp(argv[k], "--blocks") && k + 1 < argc) {
            long b = strtol(argv[++k], &end, 10);
            if (*end || b < 2 || b > 1000)
                return mcf_fail(MCF_EINVAL, "mcf tc: --blocks %s: give 2 to 1000", argv[k]);
            t.blocks = (size_t)b;
        } else if (!strcmp(argv[k], "--skip") && k + 1 < argc) {
            long m = strtol(argv[++k], &end, 10);
            if (*end || m < 0 || m > 100000000)
                return mcf_fail(MCF_EINVAL, "mcf tc: --skip %s: give the measurements of each "
                                "chain to leave out from its start, 0 or more", argv[k]);
            t.skip = (size_t)m;
        } else if (!strcmp(argv[k], "--jackknife") && k + 1 < argc) {
            if ((t.chain_blocks = tc_parse_jackknife(argv[++k])) < 0)
                return mcf_fail(MCF_EINVAL, "mcf tc: --jackknife %s: give slices (time slices "
                                "of every chain) or chains (pieces of the chains laid end to "
                                "end)", argv[k]);
        } else if (!strcmp(argv[k], "--omega") && k + 1 < argc) {
            t.omega = strtod(argv[++k], &end);
            if (*end || !(t.omega >= 0) || !isfinite(t.omega))
                return mcf_fail(MCF_EINVAL, "mcf tc: --omega %s: give a number >= 0", argv[k]);
        } else if (!strcmp(argv[k], "--nu") && k + 1 < argc) {
            t.nu_fixed = strtod(argv[++k], &end);
            if (*end || !(t.nu_fixed > 0) || !isfinite(t.nu_fixed))
                return mcf_fail(MCF_EINVAL, "mcf tc: --nu %s: give a number > 0 (the "
                                "universality class's nu, 0.7112 for 3D Heisenberg)", argv[k]);
        } else if (!strcmp(argv[k], "--grid") && k + 1 < argc) {
            long g = strtol(argv[++k], &end, 10);
            if (*end || g < 3 || g > 100000)
                return mcf_fail(MCF_EINVAL, "mcf tc: --grid %s: give 3 to 100000", argv[k]);
            t.grid = (size_t)g;
        } else if (!strcmp(argv[k], "--window") && k + 1 < argc) {
            if (parse_window(argv[++k], t.window))
                return mcf_fail(MCF_EINVAL, "mcf tc: --window %s: give LO:HI, two "
                                "temperatures, LO < HI", argv[k]);
        } else if (!strcmp(argv[k], "--sizes") && k + 1 < argc) {
            if (parse_sizes(argv[++k], &t))
                return mcf_fail(MCF_EINVAL, "mcf tc: --sizes %s: give two or more lattice "
                                "sizes, L1,L2,... (at most 32)", argv[k]);
        } else if (!strcmp(argv[k], "--fixed") && k + 1 < argc) {
            if (tc_parse_fixed(&t, argv[++k]))
                return MCF_EINVAL;
        } else if (argv[k][0] == '-') {
            return mcf_fail(MCF_EINVAL, "mcf tc: unexpected '%s'; " TC_USAGE, argv[k]);
        } else if (t.n_dirs == TC_MAX_DIRS) {
            return mcf_fail(MCF_EINVAL, "mcf tc: %s: at most %d run folders", argv[k],
                            TC_MAX_DIRS);
        } else {
            t.dirs[t.n_dirs++] = argv[k];
        }
    }
    if (!t.n_dirs)
        return mcf_fail(MCF_EINVAL, "mcf tc: " TC_USAGE);
    t.dir = t.dirs[0];
    /* one folder of mcf tc CONFIG with [tc] refine: its refinement scans join it */
    static char sub[TC_MAX_DIRS][4200];
    for (size_t s = 1; t.n_dirs == s && s < TC_MAX_DIRS; s++) {
        char path[4300];
        tc_refine_dir(sub[s], sizeof sub[s], t.dirs[0], s);
        snprintf(path, sizeof path, "%s/config.ini", sub[s]);
        if (access(path, F_OK) == 0) {
            t.dirs[t.n_dirs++] = sub[s];
            t.keep_bridged = 1;
            printf("mcf tc: %s, a refinement scan of %s, joins it\n", sub[s], t.dirs[0]);
        }
    }
    /* a run that has not finished (stopped, or still going) has its series so far in
     * .series-partial: analysed, and said so */
    for (size_t d = 0; d < t.n_dirs; d++) {
        char finished[4096], partial[4096];
        snprintf(finished, sizeof finished, "%s/series/index.tsv", t.dirs[d]);
        snprintf(partial, sizeof partial, "%s/.series-partial/index.tsv", t.dirs[d]);
        if (access(finished, F_OK) != 0 && access(partial, F_OK) == 0) {
            t.series[d] = ".series-partial";
            printf("mcf tc: %s has not finished (no series/ yet): these are its series so "
                   "far, %s/.series-partial (`mcf resume %s` finishes it)\n", t.dirs[d],
                   t.dirs[d], t.dirs[d]);
        }
    }
    if (t.n_dirs > 1)
        printf("mcf tc: the series of %zu runs reweighted together; tc.tsv and tc-curves.tsv "
               "go to %s\n", t.n_dirs, t.dir);
    return tc_analyze(&t);
}
