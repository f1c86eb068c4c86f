/* dos.c — `mcf dos DIR [--kernel K] [--points N] [--range Emin:Emax]`: the densities whose
 * Chebyshev moments a run stored (curves marked MCF_OBS_MOMENTS, e.g. dos_moments and
 * ldos_moments), reconstructed per scan point with the kernel and grid asked for, and a
 * jackknife error band, into DIR/dos-KERNEL-N.tsv.
 *
 * The densities are linear in the moments, so the jackknife over the bins is exact
 * bookkeeping: per scan point the bins of all walkers (means and weights from results.h5,
 * as results.c's curves), the total moments S / W and the leave-one-bin-out moments
 * (S - s_b) / (W - w_b) are reconstructed in one reconstruct() call of the run's evaluator
 * plugin (mcf/fermion.h: the kernels and the FFT stay in the evaluator), and the error is
 * the weighted jackknife of stats.h over them, as results_table.c's curve_point.  With
 * the run's kernel and grid the table gives back the run's own curves (dos.tsv) to
 * rounding.  Curves measured as geometric means (typical_dos) cannot be reconstructed from
 * averaged moments and are named as such.
 *
 * Takes the output folder's lock as `mcf plot` does; writes the table atomically.  Not
 * libmcf's: the program's, beside plot.c. */
#define _POSIX_C_SOURCE 200809L
#include "dos.h"

#include "mcf_engine.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct dos_args {
    const char *dir, *kernel;
    size_t points;          /* 0: the run's */
    int range;
    double emin, emax;
} dos_args;

static int parse_args(int argc, char **argv, dos_args *a)
{
    memset(a, 0, sizeof *a);
    static const char use[] = "usage: mcf dos DIR [--kernel jackson|lorentz[:LAMBDA]|none] "
                              "[--points N] [--range Emin:Emax]";
    for (int k = 0; k < argc; k++) {
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(argv[k], "--kernel") || !strcmp(argv[k], "--points") ||
            !strcmp(argv[k], "--range")) {
            if (!v)
                return mcf_fail(MCF_EINVAL, "dos: %s needs a value (%s)", argv[k], use);
            char *end;
            errno = 0;
            if (argv[k][2] == 'k') {
                a->kernel = v;
            } else if (argv[k][2] == 'p') {
                const long long n = strtoll(v, &end, 10);
                if (end == v || *end || errno || n < 1 || n > 100000000)
                    return mcf_fail(MCF_EINVAL, "dos: --points %s: an integer from 1 to 1e8 "
                                    "is wanted", v);
                a->points = (size_t)n;
            } else {
                a->emin = strtod(v, &end);
                char *end2 = end;
                if (*end == ':')
                    a->emax = strtod(end + 1, &end2);
                if (end == v || *end != ':' || end2 == end + 1 || *end2 || errno ||
                    !isfinite(a->emin) || !isfinite(a->emax) || !(a->emin < a->emax))
                    return mcf_fail(MCF_EINVAL, "dos: --range %s: write Emin:Emax, two finite "
                                    "energies with Emin < Emax (e.g. --range -8:8)", v);
                a->range = 1;
            }
            k++;
        } else if (argv[k][0] == '-') {
            return mcf_fail(MCF_EINVAL, "dos: unknown option '%s' (%s)", argv[k], use);
        } else if (!a->dir) {
            a->dir = argv[k];
        } else {
            return mcf_fail(MCF_EINVAL, "dos: one folder only ('%s' is extra; %s)", argv[k],
                            use);
        }
    }
    if (!a->dir)
        return mcf_fail(MCF_EINVAL, "dos: missing DIR (%s)", use);
    return MCF_OK;
}

/* dos.h */
int mcfi_dos_point_bins(const mcfi_dos_input *in, const mcfi_dos_curve *cv, size_t c0,
                        size_t M, double *s, double *w, size_t *nb, const char *path)
{
    *nb = 0;
    for (size_t c = c0; c < c0 + in->walkers; c++) {
        size_t first = 0, rows = 0;
        while (first < cv->rows && (size_t)cv->chain[first] < c)
            first++;
        while (first + rows < cv->rows && (size_t)cv->chain[first + rows] == c)
            rows++;
        if (rows != M)
            return mcf_fail(MCF_EFORMAT, "%s: /observables/%s: chain %zu has %zu rows, chain "
                            "%zu %zu: the walkers of a scan point differ", path, cv->name, c,
                            rows, c0, M);
        for (size_t b = 0; b < in->bins; b++) {
            const double wb = in->weights[c * in->bins + b];
            if (!(wb > 0))
                continue;
            for (size_t m = 0; m < M; m++)
                s[*nb * M + m] = cv->bins[(first + m) * in->bins + b] * wb;
            w[(*nb)++] = wb;
        }
    }
    return MCF_OK;
}

/* rows of curve cv for chain c */
static size_t chain_rows(const mcfi_dos_curve *cv, size_t c)
{
    size_t n = 0;
    for (size_t j = 0; j < cv->rows; j++)
        n += (size_t)cv->chain[j] == c;
    return n;
}

/* a and b of scan point p: every non-empty bin of its walkers must hold the same values
 * (to rounding of the bin means), else the moments mix energy scales */
static int point_scale(const mcfi_dos_input *in, size_t p, double *a, double *b,
                       const char *path)
{
    const size_t R = in->walkers, c0 = p * R;
    int have = 0;
    for (size_t c = c0; c < c0 + R; c++) {
        size_t first = 0;
        while (first < in->scale.rows && (size_t)in->scale.chain[first] < c)
            first++;
        if (chain_rows(&in->scale, c) != 2)
            return mcf_fail(MCF_EINVAL, "%s: /observables/%s: chain %zu measured no scaling "
                            "(the evaluator gave no moments there)", path, in->scale.name, c);
        for (size_t q = 0; q < in->bins; q++) {
            if (!(in->weights[c * in->bins + q] > 0))
                continue;
            const double x = in->scale.bins[first * in->bins + q];
            const double y = in->scale.bins[(first + 1) * in->bins + q];
            if (!have) {
                *a = x;
                *b = y;
                have = 1;
            } else if (fabs(x - *a) > 1e-12 * fabs(*a) || fabs(y - *b) > 1e-12 * fabs(*a)) {
                return mcf_fail(MCF_EINVAL,
                                "%s: /observables/%s: scan point %zu: the scaling of the "
                                "moments changed between measurements (a = %.17g, b = %.17g in "
                                "one bin of chain %zu, a = %.17g, b = %.17g in bin %zu): the "
                                "Hamiltonian's spectral bounds were not fixed, so its moments "
                                "refer to different energy scales and their average cannot be "
                                "reconstructed; the model must fix the bounds "
                                "(mcf_hamiltonian_fix_bounds) for mcf dos",
                                path, in->scale.name, p, *a, *b, c, x, y, q);
            }
        }
    }
    if (!have || !(*a > 0) || !isfinite(*b))
        return mcf_fail(MCF_EFORMAT, "%s: /observables/%s: scan point %zu has no valid "
                        "scaling (no measurements?)", path, in->scale.name, p);
    return MCF_OK;
}

typedef struct dos_out {
    size_t n_curves, rows, cap;
    size_t *row_point;   /* rows: the scan point */
    double *E;           /* rows */
    double *val, *err;   /* rows x n_curves */
} dos_out;

static int out_grow(dos_out *o, size_t more)
{
    if (o->rows + more <= o->cap)
        return MCF_OK;
    size_t cap = o->cap ? o->cap : 256;
    while (cap < o->rows + more)
        cap *= 2;
    size_t *rp = realloc(o->row_point, cap * sizeof *rp);
    if (rp)
        o->row_point = rp;
    double *E = realloc(o->E, cap * sizeof *E);
    if (E)
        o->E = E;
    double *v = realloc(o->val, cap * o->n_curves * sizeof *v);
    if (v)
        o->val = v;
    double *e = realloc(o->err, cap * o->n_curves * sizeof *e);
    if (e)
        o->err = e;
    if (!rp || !E || !v || !e)
        return mcf_fail(MCF_ENOMEM, "dos: out of memory for %zu rows", cap);
    o->cap = cap;
    return MCF_OK;
}

/* the weighted jackknife error of one energy: x[0] from all bins, x[(1 + b) N] leaving
 * bin b (weight w[b]) out, as results_table.c's curve_point */
static double jackknife(const double *x, const double *w, size_t nb, size_t N)
{
    double estimate, error;
    mcfe_jackknife_combine(x[0], x + N, N, w, nb, &estimate, &error);
    return error;
}

/* rows x cols doubles and one more, or NULL (also when the count overflows) */
static double *doubles_of(size_t rows, size_t cols)
{
    if (cols && rows > (SIZE_MAX / sizeof(double) - 1) / cols)
        return NULL;
    return malloc((rows * cols + 1) * sizeof(double));
}

/* scan point p: every moments curve reconstructed on one grid, appended to o */
static int dos_point(const mcf_setup *s, const mcf_plugin_info *ev, const mcfi_dos_input *in,
                     const dos_args *args, size_t p, const char *path, dos_out *o,
                     size_t *points_used)
{
    const size_t R = in->walkers, c0 = p * R;
    double a = 0, b = 0;
    int rc = point_scale(in, p, &a, &b, path);
    if (rc)
        return rc;
    mcf_params *params = NULL;
    if ((rc = mcfe_setup_params(s, p, 1, &params)))
        return rc;
    /* the grid: --points, else the run's density curve, else 2 M */
    const size_t M0 = chain_rows(&in->moments[0], c0);
    size_t N = args->points;
    if (!N && in->density[0].rows)
        N = chain_rows(&in->density[0], c0);
    if (!N)
        N = 2 * M0;
    *points_used = N;
    const size_t nbmax = R * in->bins;
    double *E = doubles_of(N, 1);
    if (!E) {
        free(params);
        return mcf_fail(MCF_ENOMEM, "dos: out of memory for a grid of %zu energies", N);
    }
    if (args->range)
        for (size_t i = 0; i < N; i++)
            E[i] = N == 1 ? 0.5 * (args->emin + args->emax)
                          : args->emin + (args->emax - args->emin) * (double)i / (double)(N - 1);
    if (!(rc = out_grow(o, N))) {
        for (size_t k = 0; k < in->n_moments && !rc; k++) {
            const mcfi_dos_curve *cv = &in->moments[k];
            const size_t M = chain_rows(cv, c0);
            double *sum = doubles_of(nbmax, M), *w = doubles_of(nbmax, 1);
            double *mu = doubles_of(nbmax + 1, M), *rho = doubles_of(nbmax + 1, N);
            size_t nb = 0;
            if (!sum || !w || !mu || !rho)
                rc = mcf_fail(MCF_ENOMEM, "%s: /observables/%s: out of memory for %zu bins of "
                              "%zu moments and %zu energies (scan point %zu)", path, cv->name,
                              nbmax, M, N, p);
            if (!rc && M == 0)
                rc = mcf_fail(MCF_EINVAL, "%s: /observables/%s: scan point %zu has no moments "
                              "(the evaluator gave none there)", path, cv->name, p);
            if (!rc)
                rc = mcfi_dos_point_bins(in, cv, c0, M, sum, w, &nb, path);
            if (!rc && nb == 0)
                rc = mcf_fail(MCF_EFORMAT, "%s: scan point %zu has no measurements", path, p);
            if (!rc) {
                /* set 0: S / W; set 1 + j: leaving bin j out */
                double W = 0;
                for (size_t j = 0; j < nb; j++)
                    W += w[j];
                for (size_t m = 0; m < M; m++) {
                    double S = 0;
                    for (size_t j = 0; j < nb; j++)
                        S += sum[j * M + m];
                    mu[m] = S / W;
                    for (size_t j = 0; j < nb; j++)
                        mu[(1 + j) * M + m] = nb > 1 ? (S - sum[j * M + m]) / (W - w[j]) : S / W;
                }
                rc = mcf_fermion_reconstruct(ev, params, args->kernel, M, nb + 1, mu, a, b, N,
                                             args->range ? E : NULL, args->range ? NULL : E, rho);
                if (rc)
                    rc = mcf_fail_prefix(rc, "dos: evaluator %s, scan point %zu, %s",
                                         s->evaluator_name, p, cv->name);
            }
            for (size_t i = 0; !rc && i < N; i++) {
                o->val[(o->rows + i) * o->n_curves + k] = rho[i];
                o->err[(o->rows + i) * o->n_curves + k] = jackknife(rho + i, w, nb, N);
            }
            free(sum);
            free(w);
            free(mu);
            free(rho);
        }
    }
    for (size_t i = 0; !rc && i < N; i++) {
        o->row_point[o->rows + i] = p;
        o->E[o->rows + i] = E[i];
    }
    if (!rc)
        o->rows += N;
    free(E);
    free(params);
    return rc;
}

/* the table's text */
static int dos_table(const mcf_setup *s, const mcfi_dos_input *in, const dos_args *args,
                     const char *label, size_t N, const dos_out *o, mcf_text *t)
{
    mcfe_text_printf(t, "# mcf %s: densities reconstructed from the Chebyshev moments in "
                     "results.h5 (mcf dos)\n", MCF_VERSION_STRING);
    mcfe_text_printf(t, "# kernel: %s%s; evaluator %s\n", label,
                     args->kernel ? "" : " (the run's)", s->evaluator_name);
    if (args->range)
        mcfe_text_printf(t, "# grid: %zu uniform energies from %.17g to %.17g\n", N,
                         args->emin, args->emax);
    else
        mcfe_text_printf(t, "# grid: %zu Chebyshev nodes of (b - a, b + a) (the evaluator's "
                         "grid, as the run's curves with energy_points = %zu)\n", N, N);
    mcfe_text_printf(t, "# errors: jackknife over the bins of the moments (%zu bins x %zu "
                     "walker(s) a scan point)\n", in->bins, in->walkers);
    for (size_t g = 0; g < in->n_geometric; g++)
        mcfe_text_printf(t, "# not reconstructed: %s, a geometric mean over sites, is not "
                         "linear in the moments (see %s.tsv for the run's, with errors from "
                         "its bins)\n", in->geometric[g], in->geometric[g]);
    mcfe_text_printf(t, "# scan:");
    for (size_t j = 0; j < in->n_scan; j++)
        mcfe_text_printf(t, " %s", in->scan_names[j]);
    mcfe_text_printf(t, "\n");
    for (size_t j = 0; j < in->n_scan; j++)
        mcfe_text_printf(t, "%s\t", in->scan_names[j]);
    mcfe_text_printf(t, "E");
    for (size_t k = 0; k < in->n_moments; k++) {
        const char *n = in->moments[k].name;
        const size_t len = strlen(n);
        const int cut = len > 8 && !strcmp(n + len - 8, "_moments");
        mcfe_text_printf(t, "\t%.*s\t%.*s_err", (int)(cut ? len - 8 : len), n,
                         (int)(cut ? len - 8 : len), n);
    }
    mcfe_text_printf(t, "\n");
    for (size_t r = 0; r < o->rows; r++) {
        for (size_t j = 0; j < in->n_scan; j++)
            mcfe_text_printf(t, "%s\t", in->scan_values[j * in->points + o->row_point[r]]);
        mcfe_text_printf(t, "%.17g", o->E[r]);
        for (size_t k = 0; k < in->n_moments; k++)
            mcfe_text_printf(t, "\t%.17g\t%.17g", o->val[r * o->n_curves + k],
                             o->err[r * o->n_curves + k]);
        mcfe_text_printf(t, "\n");
    }
    return t->failed ? mcf_fail(MCF_ENOMEM, "dos: out of memory for the table") : MCF_OK;
}

/* after the run's setup s: results.h5, the densities, the table (path: len bytes for the
 * names of files) */
static int dos_with_setup(const dos_args *args, const mcf_setup *s, char *path, size_t len)
{
    mcfi_dos_input in;
    snprintf(path, len, "%s/results.h5", args->dir);
    const mcfi_dos_shape want = {s->n_points, (size_t)s->walkers, (size_t)s->bins};
    int rc = mcfi_dos_read(path, &want, &in);
    if (rc)
        return mcf_fail_prefix(rc, "dos");
    const mcf_plugin_info *ev = s->evaluator ? s->evaluator->info : NULL;
    if (in.n_moments == 0)
        rc = mcf_fail(MCF_EINVAL, "dos: %s holds no Chebyshev moments: model %s with evaluator "
                      "%s measured none (kpm and kpm-cuda give them to a model that declares "
                      "moment curves, e.g. anderson; ed has none)", path, s->model_name,
                      in.evaluator);
    else if (!in.scale.name)
        rc = mcf_fail(MCF_EFORMAT, "dos: %s: moments without a curve marked moment_scale (the "
                      "model must declare one: MCF_FERMION_MOMENT_OBSERVABLES)", path);
    else if (!(mcf_fermion_provides(ev) & MCF_PROVIDES_MOMENTS))
        rc = mcf_fail(MCF_EINVAL, "dos: evaluator %s (%s's [run] evaluator) cannot reconstruct "
                      "densities from moments (no reconstruct op)", s->evaluator_name,
                      s->config_path);
    else if (in.points != s->n_points || in.walkers != (size_t)s->walkers)
        rc = mcf_fail(MCF_EFORMAT, "dos: %s has %zu scan points of %zu walkers, but %s/config.ini "
                      "%zu of %ld: they belong to different runs", path, in.points, in.walkers,
                      args->dir, s->n_points, s->walkers);
    dos_out o = {.n_curves = in.n_moments};
    size_t N = 0, Np = 0;
    for (size_t p = 0; p < in.points && !rc; p++) {
        rc = dos_point(s, ev, &in, args, p, path, &o, &Np);
        if (p == 0)
            N = Np;
    }
    /* the kernel's name for the file: asked for, else the run's [evaluator] kernel */
    char label[64];
    const char *run_kernel = s->evaluator ? mcfe_section_text(&s->sections[1], "kernel") : NULL;
    snprintf(label, sizeof label, "%s", args->kernel ? args->kernel
                                        : run_kernel ? run_kernel
                                                     : "default");
    mcf_text t = {0};
    if (!rc)
        rc = dos_table(s, &in, args, label, N, &o, &t);
    if (!rc) {
        for (char *q = label; *q; q++)
            if (*q == ':' || *q == '/')
                *q = '_';
        if (args->range)
            snprintf(path, len, "%s/dos-%s-%zu-E%g_%g.tsv", args->dir, label, N, args->emin,
                     args->emax);
        else
            snprintf(path, len, "%s/dos-%s-%zu.tsv", args->dir, label, N);
        rc = mcfe_write_atomic(path, t.s, t.len);
    }
    if (!rc)
        printf("mcf: %zu densit%s of %zu scan point%s (kernel %s, %zu points) written to %s\n",
               in.n_moments, in.n_moments == 1 ? "y" : "ies", in.points,
               in.points == 1 ? "" : "s", label, N, path);
    free(t.s);
    free(o.row_point);
    free(o.E);
    free(o.val);
    free(o.err);
    mcfi_dos_input_free(&in);
    return rc;
}

/* everything after the lock: the run's setup, then fn */
static int with_setup_locked(const char *dir, const char *what, mcfi_folder_fn fn, void *ctx,
                             char *path, size_t len)
{
    snprintf(path, len, "%s/config.ini", dir);
    mcf_config *c = NULL;
    int rc = mcfe_config_read(path, &c);
    if (rc) {
        if (c)
            mcfe_config_free(c);
        return mcf_fail_prefix(rc, "%s: %s does not look like an mcf output folder", what, dir);
    }
    mcf_setup *s = NULL;
    if ((rc = mcfe_setup_create(c, &s))) {
        mcfe_config_free(c);
        return mcf_fail_prefix(rc, "%s: the run's configuration %s", what, path);
    }
    rc = fn(s, ctx, path, len);
    mcfe_setup_free(s);
    mcfe_config_free(c);
    return rc;
}

/* dos.h */
int mcfi_with_run_folder(const char *dir, const char *what, mcfi_folder_fn fn, void *ctx)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return mcf_fail(MCF_EINVAL, "%s: %s is not a folder (an mcf output folder is wanted)",
                        what, dir);
    int lock = -1;
    int rc = mcfe_outdir_lock(dir, &lock);
    if (rc)
        return rc;
    mcfe_outdir_clean(dir);
    const size_t len = strlen(dir) + 256;
    char *path = malloc(len);
    rc = path ? with_setup_locked(dir, what, fn, ctx, path, len)
              : mcf_fail(MCF_ENOMEM, "out of memory");
    free(path);
    mcfe_outdir_unlock(lock);
    return rc;
}

static int dos_folder(const mcf_setup *s, void *ctx, char *path, size_t len)
{
    return dos_with_setup(ctx, s, path, len);
}

int mcfi_dos_command_set_up(const mcf_setup *s, int argc, char **argv)
{
    dos_args args;
    int rc = parse_args(argc, argv, &args);
    if (rc)
        return rc;
    const size_t len = strlen(args.dir) + 256;
    char *path = malloc(len);
    rc = path ? dos_with_setup(&args, s, path, len) : mcf_fail(MCF_ENOMEM, "out of memory");
    free(path);
    return rc;
}

int mcfi_dos_command(int argc, char **argv)
{
    dos_args args;
    int rc = parse_args(argc, argv, &args);
    return rc ? rc : mcfi_with_run_folder(args.dir, "dos", dos_folder, &args);
}
