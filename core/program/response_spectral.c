/* response_spectral.c — `mcf response`'s spectral functions (dos.h): from the curves a run
 * stored as moments of Bloch states (MCF_OBS_SPECTRAL_MOMENTS: mu_n(K) along a path, with the
 * wave vectors and the scaling; mcf/response.h), per scan point and with jackknife errors,
 *   DIR/spectral-KERNEL.tsv   A(K, E) on an energy grid (--energies, else 201 energies across
 *                             the scaling's interval)
 *   DIR/momentum-KERNEL.tsv   the occupation n(K) = int A(K, E) f(E) dE at each mu (--mu, else
 *                             the scan point's mu or the model's) and T (--T, else the scan
 *                             point's), and the weight int A(K, E) dE
 *   DIR/plot-momentum.svg     n(K) along the path, one curve per scan point (at most 8), at
 *                             the first mu
 * Both A and n are linear in the moments: each is a fixed weight vector w_q (the response of
 * mcf_spectral_function / mcf_spectral_occupation to the unit moment vectors) dotted with a
 * bin's mean moments, so the jackknife is exact bookkeeping as for the conductivities. */
#define _POSIX_C_SOURCE 200809L
#include "dos.h"

#include "mcf_engine.h"
#include "mcf/log.h"
#include "plot.h"
#include "plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPECTRAL_DEFAULT_E 201
#define SPECTRAL_PLOT_POINTS 8

/* one curve at one scan point: its bins and what every bin must agree on */
typedef struct sp_point {
    size_t P, M, nk, nb;
    double *s, *w;   /* nb x P sums, nb weights */
    double a, b;
    const double *K; /* the first bin's mean wave vectors and path lengths: 4 nk (in hd) */
    double *hd;      /* 4 + 4 nk: the first bin's header */
} sp_point;

static int sp_header(sp_point *q, const char *name, size_t p, const char *path)
{
    const size_t H = 4 + 4 * q->nk;
    for (size_t j = 0; j < q->nb; j++)
        for (size_t t = 0; t < H; t++) {
            const double x = q->s[j * q->P + t] / q->w[j];
            if (j == 0)
                q->hd[t] = x;
            else if (fabs(x - q->hd[t]) > 1e-12 * fmax(fabs(q->hd[t]), 1.0))
                return mcf_fail(MCF_EINVAL, "%s: /observables/%s: scan point %zu: the %s "
                                "changed between measurements (%.17g, then %.17g): moments of "
                                "different %s cannot be averaged", path, name, p,
                                t < 2 ? "number of moments or wave vectors" : t < 4
                                ? "scaling" : "path", q->hd[t], x, t < 4 ? "scalings" : "paths");
        }
    q->a = q->hd[2];
    q->b = q->hd[3];
    q->K = q->hd + 4;
    if (!(q->a > 0) || !isfinite(q->b))
        return mcf_fail(MCF_EFORMAT, "%s: /observables/%s: scan point %zu: the scaling a = %g, "
                        "b = %g (a > 0 wanted)", path, name, p, q->a, q->b);
    return MCF_OK;
}

/* the weights of A at the energies (n_E x M) and of the occupation at each mu (n_mu x M)
 * and of the total weight (M) into wt: each the image of the unit moment vectors */
static int sp_weights(const sp_point *q, const mcfi_spectral_args *a, const double *E,
                      size_t n_E, const double *mus, size_t n_mu, double T, double *wt)
{
    const size_t M = q->M, Mu = a->moments ? a->moments : M; /* stored; used (--moments) */
    for (size_t i = 0; i < (n_E + n_mu + 1) * M; i++)
        wt[i] = 0.0;
    double *e = calloc(M, sizeof *e), *col = malloc((n_E ? n_E : 1) * sizeof *col);
    int rc = !e || !col ? mcf_fail(MCF_ENOMEM, "response: out of memory") : MCF_OK;
    for (size_t n = 0; !rc && n < Mu; n++) {
        e[n] = 1.0;
        rc = mcf_spectral_function(Mu, e, q->a, q->b, a->kernel, n_E, E, col);
        for (size_t i = 0; !rc && i < n_E; i++)
            wt[i * M + n] = col[i];
        for (size_t m = 0; !rc && m < n_mu; m++)
            rc = mcf_spectral_occupation(Mu, e, q->a, q->b, a->kernel, T, mus[m],
                                         wt + (n_E + m) * M + n);
        wt[(n_E + n_mu) * M + n] = n == 0; /* int T_n / (pi s) dx = delta_n0 */
        e[n] = 0.0;
    }
    free(e);
    free(col);
    return rc;
}

typedef struct sp_ctx {
    const mcfi_spectral_args *args;
    mcf_text A, occ;
    size_t rows_A, rows_n;
    double *plot;     /* points x nk: n(K) at the first mu, NaN where none */
    double *plot_err;
    double *plot_s;   /* nk: the path (the last curve's) */
    double *plot_k;   /* nk x 3: its wave vectors, for the corners */
    size_t plot_nk, plot_points;
} sp_ctx;

static void sp_scan(mcf_text *t, const mcfi_dos_input *in, size_t p)
{
    for (size_t c = 0; c < in->n_scan; c++)
        mcfe_text_printf(t, "%s\t", in->scan_values[c * in->points + p]);
}

/* the scan point's value of column name, or NAN */
static double sp_scan_value(const mcfi_dos_input *in, size_t p, const char *name)
{
    for (size_t c = 0; c < in->n_scan; c++)
        if (!strcmp(in->scan_names[c], name))
            return strtod(in->scan_values[c * in->points + p], NULL);
    return NAN;
}

/* curve cv at scan point p: its rows of both tables */
static int sp_curve_point(sp_ctx *x, const mcfi_dos_input *in, const mcfi_dos_curve *cv,
                          size_t p, double model_mu, const char *path)
{
    const mcfi_spectral_args *args = x->args;
    sp_point q = {0};
    size_t first = 0;
    while (first < cv->rows && (size_t)cv->chain[first] < p * in->walkers)
        first++;
    while (first + q.P < cv->rows && (size_t)cv->chain[first + q.P] == p * in->walkers)
        q.P++;
    /* M and nk from the first row's first bin that has measurements */
    for (size_t b = 0; b < in->bins && !q.M; b++)
        if (q.P >= 5 && in->weights[p * in->walkers * in->bins + b] > 0) {
            const double M = cv->bins[first * in->bins + b], nk = cv->bins[(first + 1) *
                                                                         in->bins + b];
            if (M >= 1 && M <= 1e6 && nk >= 1 && nk <= 1e7 && M == floor(M) && nk == floor(nk)) {
                q.M = (size_t)M;
                q.nk = (size_t)nk;
            }
        }
    if (!q.M || MCF_SPECTRAL_POINTS(q.nk, q.M) != q.P)
        return mcf_fail(MCF_EFORMAT, "%s: /observables/%s: scan point %zu: %zu values a chain, "
                        "not 4 + 4 nk + nk M for the M and nk it names", path, cv->name, p,
                        q.P);
    if (args->moments > q.M)
        return mcf_fail(MCF_EINVAL, "response: --moments %zu: the run stored %zu moments in "
                        "/observables/%s (take at most that many)", args->moments, q.M,
                        cv->name);
    const size_t nbmax = in->walkers * in->bins, M = q.M, nk = q.nk;
    double mus[1] = {args->n_mu ? 0.0 : model_mu};
    const double *mu_list = args->n_mu ? args->mu : mus;
    const size_t n_mu = args->n_mu ? args->n_mu : 1;
    double T = args->T_given ? args->T : sp_scan_value(in, p, "T");
    if (!args->T_given && isnan(T))
        T = 0.0;
    double E[SPECTRAL_DEFAULT_E];
    const double *grid = args->n_E ? args->E : E;
    const size_t n_E = args->n_E ? args->n_E : SPECTRAL_DEFAULT_E;
    const size_t nq = n_E + n_mu + 1;
    q.s = malloc(nbmax * q.P * sizeof *q.s);
    q.w = malloc(nbmax * sizeof *q.w);
    q.hd = malloc((4 + 4 * nk) * sizeof *q.hd);
    double *wt = malloc(nq * M * sizeof *wt), *v = malloc((nbmax + 1) * nq * sizeof *v);
    double *loo = malloc((nbmax + 1) * sizeof *loo);
    int rc = !q.s || !q.w || !q.hd || !wt || !v || !loo
                 ? mcf_fail(MCF_ENOMEM, "response: out of memory") : MCF_OK;
    if (!rc)
        rc = mcfi_dos_point_bins(in, cv, p * in->walkers, q.P, q.s, q.w, &q.nb, path);
    if (!rc && q.nb == 0)
        rc = mcf_fail(MCF_EFORMAT, "%s: /observables/%s: scan point %zu has no measurements",
                      path, cv->name, p);
    if (!rc)
        rc = sp_header(&q, cv->name, p, path);
    if (!rc && !(isfinite(T) && T >= 0))
        rc = mcf_fail(MCF_EFORMAT, "%s: scan point %zu has the temperature %g", path, p, T);
    for (size_t i = 0; !args->n_E && i < n_E; i++)
        E[i] = q.b + q.a * (-1.0 + 2.0 * ((double)i + 0.5) / (double)n_E);
    if (!rc)
        rc = sp_weights(&q, args, grid, n_E, mu_list, n_mu, T, wt);
    double W = 0.0;
    for (size_t j = 0; j < q.nb; j++)
        W += q.w[j];
    if (!rc && cv == &in->spectral[0] && p == 0) { /* the plot: the first curve's path */
        const size_t cells = (2 * SPECTRAL_PLOT_POINTS + 4) * nk;
        x->plot = malloc(cells * sizeof *x->plot);
        if (!x->plot)
            rc = mcf_fail(MCF_ENOMEM, "response: out of memory");
        for (size_t i = 0; !rc && i < cells; i++)
            x->plot[i] = NAN;
        x->plot_err = rc ? NULL : x->plot + SPECTRAL_PLOT_POINTS * nk;
        x->plot_s = rc ? NULL : x->plot_err + SPECTRAL_PLOT_POINTS * nk;
        x->plot_k = rc ? NULL : x->plot_s + nk;
        x->plot_nk = rc ? 0 : nk;
    }
    if (!rc && cv == &in->spectral[0] && p < SPECTRAL_PLOT_POINTS && x->plot)
        x->plot_points = p + 1;
    for (size_t k = 0; !rc && k < nk; k++) {
        const size_t off = 4 + 4 * nk + k * M;
        for (size_t j = 0; j < q.nb; j++)
            for (size_t i = 0; i < nq; i++) {
                double sum = 0.0;
                for (size_t n = 0; n < M; n++)
                    sum += wt[i * M + n] * q.s[j * q.P + off + n];
                v[j * nq + i] = sum / q.w[j];
            }
        const double *Kk = q.K + 4 * k;
        for (size_t i = 0; i < nq; i++) {
            double tot = 0.0, val, err;
            for (size_t j = 0; j < q.nb; j++)
                tot += q.w[j] * v[j * nq + i];
            for (size_t j = 0; j < q.nb; j++)
                loo[j] = q.nb > 1 ? (tot - q.w[j] * v[j * nq + i]) / (W - q.w[j]) : tot / W;
            mcfe_jackknife_combine(tot / W, loo, 1, q.w, q.nb, &val, &err);
            mcf_text *t = i < n_E ? &x->A : &x->occ;
            sp_scan(t, in, p);
            mcfe_text_printf(t, "%s\t%zu\t%.10g\t%.10g\t%.10g\t%.10g\t", cv->name, k, Kk[3],
                             Kk[0], Kk[1], Kk[2]);
            if (i < n_E) {
                mcfe_text_printf(t, "%.10g\t%.17g\t%.17g\n", grid[i], val, err);
                x->rows_A++;
            } else if (i < n_E + n_mu) {
                mcfe_text_printf(t, "occupation\t%.17g\t%.17g\t%.17g\t%.17g\n",
                                 mu_list[i - n_E], T, val, err);
                x->rows_n++;
                if (i == n_E && cv == &in->spectral[0] && p < SPECTRAL_PLOT_POINTS &&
                    x->plot && k < x->plot_nk) {
                    x->plot[p * x->plot_nk + k] = val;
                    x->plot_err[p * x->plot_nk + k] = err;
                    x->plot_s[k] = Kk[3];
                    memcpy(x->plot_k + 3 * k, Kk, 3 * sizeof *Kk);
                }
            } else {
                mcfe_text_printf(t, "weight\tinf\t%.17g\t%.17g\t%.17g\n", T, val, err);
                x->rows_n++;
            }
        }
    }
    free(q.s);
    free(q.w);
    free(q.hd);
    free(wt);
    free(v);
    free(loo);
    return rc;
}

/* plot-momentum: n(K) against the path's length, one curve per scan point */
typedef struct sp_plot {
    const sp_ctx *x;
    const mcfi_dos_input *in;
    double mu;
} sp_plot;

static void sp_plot_write(FILE *g, const void *ctx, const char *svg, const char *png)
{
    const sp_plot *pl = ctx;
    const sp_ctx *x = pl->x;
    for (size_t p = 0; p < x->plot_points; p++) {
        fprintf(g, "$d%zu << EOD\n", p);
        for (size_t k = 0; k < x->plot_nk; k++)
            fprintf(g, "%.17g %.17g %.17g\n", x->plot_s[k], x->plot[p * x->plot_nk + k],
                    x->plot_err[p * x->plot_nk + k]);
        fputs("EOD\n", g);
    }
    /* the path's corners, where its direction turns: a vertical line each (not for "all",
       whose s is the index) */
    int all = 1;
    for (size_t k = 0; k < x->plot_nk && all; k++)
        all = x->plot_s[k] == (double)k;
    for (size_t k = 1; !all && k + 1 < x->plot_nk; k++) {
        const double *a = x->plot_k + 3 * (k - 1), *b = a + 3, *c = b + 3;
        double d1[3], d2[3], n1 = 0, n2 = 0, dot = 0;
        for (int q = 0; q < 3; q++) {
            d1[q] = b[q] - a[q];
            d2[q] = c[q] - b[q];
            n1 += d1[q] * d1[q];
            n2 += d2[q] * d2[q];
            dot += d1[q] * d2[q];
        }
        if (dot < (1 - 1e-9) * sqrt(n1 * n2))
            fprintf(g, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 2 "
                    "lc rgb '#888888'\n", x->plot_s[k], x->plot_s[k]);
    }
    for (int t = 0; t < 1 + (png != NULL); t++) {
        mcfi_response_plot_terminal(g, t ? png : svg, t);
        fprintf(g, "set grid\nset key outside right\nset xlabel 'length along the k path'\n"
                "set ylabel 'n(k)'\nset title 'occupation at {/Symbol m} = %g, jackknife "
                "errors (mcf response)'\nplot ", pl->mu);
        for (size_t p = 0; p < x->plot_points; p++) {
            fprintf(g, "%s$d%zu using 1:2:3 with yerrorlines title '", p ? ", " : "", p);
            for (size_t c = 0; c < pl->in->n_scan; c++)
                fprintf(g, "%s%s = %s", c ? ", " : "", pl->in->scan_names[c],
                        pl->in->scan_values[c * pl->in->points + p]);
            fputs("'", g);
        }
        fputc('\n', g);
    }
    fputs("unset output\n", g);
}

int mcfi_response_spectral(const mcfi_spectral_args *args, const mcfi_dos_input *in,
                           const char *model_mu_text, const char *path, char *out, size_t len)
{
    sp_ctx x = {.args = args};
    const char *what = args->n_mu ? "--mu" : "each scan point's mu (else the model's)";
    mcfe_text_printf(&x.A, "# mcf %s: spectral functions A(k, E) from the moments of Bloch "
                     "states in results.h5 (mcf response)\n# kernel %s; errors: jackknife over "
                     "the bins (%zu bins x %zu walker(s) a scan point)\n", MCF_VERSION_STRING,
                     args->kernel ? args->kernel : "jackson", in->bins, in->walkers);
    mcfe_text_printf(&x.occ, "# mcf %s: occupations n(k) = int A(k, E) f(E) dE (mu: %s; T: "
                     "%s) and weights int A(k, E) dE (mcf response)\n# kernel %s; errors: "
                     "jackknife over the bins\n", MCF_VERSION_STRING, what,
                     args->T_given ? "--T" : "each scan point's (0 without one)",
                     args->kernel ? args->kernel : "jackson");
    mcf_text *tabs[2] = {&x.A, &x.occ};
    for (int t = 0; t < 2; t++) {
        for (size_t j = 0; j < in->n_scan; j++)
            mcfe_text_printf(tabs[t], "%s\t", in->scan_names[j]);
        mcfe_text_printf(tabs[t], "curve\tk_index\tpath\tkx\tky\tkz\t%s\n",
                         t ? "quantity\tmu\tT\tvalue\tvalue_err" : "E\tA\tA_err");
    }
    double model_mu = model_mu_text ? strtod(model_mu_text, NULL) : 0.0;
    if (!isfinite(model_mu))
        model_mu = 0.0;
    int rc = MCF_OK;
    for (size_t p = 0; !rc && p < in->points; p++) {
        const double mu_p = sp_scan_value(in, p, "mu");
        for (size_t k = 0; !rc && k < in->n_spectral; k++)
            rc = sp_curve_point(&x, in, &in->spectral[k], p, isnan(mu_p) ? model_mu : mu_p,
                                path);
    }
    if (!rc && (x.A.failed || x.occ.failed))
        rc = mcf_fail(MCF_ENOMEM, "response: out of memory for the tables");
    char label[96];
    mcfi_response_label(args->kernel, args->moments, label, sizeof label);
    if (!rc) {
        snprintf(out, len, "%s/spectral-%s.tsv", args->dir, label);
        rc = mcfe_write_atomic(out, x.A.s, x.A.len);
    }
    if (!rc) {
        printf("mcf: A(k, E) at %zu (k, E) pairs of %zu scan point%s written to %s\n",
               x.rows_A, in->points, in->points == 1 ? "" : "s", out);
        snprintf(out, len, "%s/momentum-%s.tsv", args->dir, label);
        rc = mcfe_write_atomic(out, x.occ.s, x.occ.len);
    }
    if (!rc) {
        printf("mcf: n(k) and weights, %zu rows, written to %s\n", x.rows_n, out);
        const sp_plot pl = {&x, in, args->n_mu ? args->mu[0] : model_mu};
        int no_gnuplot = 0;
        if (x.plot_points && mcfi_plot_script(args->dir, "momentum", sp_plot_write, &pl,
                                              &no_gnuplot))
            mcf_log(MCF_LOG_WARN, "%s: no plot-momentum: %s", args->dir, mcf_last_error());
        else if (x.plot_points)
            printf("mcf: %s/plot-momentum.svg\n", args->dir);
    }
    free(x.A.s);
    free(x.occ.s);
    free(x.plot);
    return rc;
}
