/* response.c — `mcf response DIR [--T T] [--mu LIST|A:B:N] [--omega LIST] [--energies LIST|A:B:N]
 * [--kernel K] [--moments M]`
 * (T of the Fermi function: --T, else each scan point's temperature, 0 without one):
 * the conductivities of the curves a run stored as two-dimensional Chebyshev moments
 * (MCF_OBS_RESPONSE_MOMENTS: sigma_xx_moments, sigma_xy_moments), per scan point, with
 * jackknife errors over the bins, into DIR/response-KERNEL.tsv: Kubo-Bastin's DC tensor at
 * each mu (the Hall part included), and with --omega Kubo-Greenwood's Re sigma(omega)
 * (mcf/response.h).
 *
 * The conductivities are linear in the moments, so the jackknife is exact bookkeeping: per
 * scan point the bins of all walkers (sums s_b and weights w_b), sigma of each bin's mean,
 * the total (sum_b w_b sigma_b) / W and the leave-one-bin-out values
 * (W sigma - w_b sigma_b) / (W - w_b), combined by the engine's weighted jackknife.  The
 * scaling, the bounds and n_s stored with the moments must be the same in every bin.
 * Reads results.h5 as `mcf dos` does (dos_h5.c), under the folder's lock.  The curves of
 * Bloch-state moments (MCF_OBS_SPECTRAL_MOMENTS) give A(k, E) and n(k) (response_spectral.c,
 * --energies their grid).  --moments M takes the first M of the stored moments (per index):
 * the same run at a coarser kernel, which measures the kernel's bias (docs/methods.md). */
#define _POSIX_C_SOURCE 200809L
#include "dos.h"

#include "mcf_engine.h"
#include "mcf/log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESPONSE_MAX_LIST 4096
#define FERMI_WINDOW_SD 1.8137993642342178 /* pi / sqrt 3: -f'(E)'s standard deviation / T */

typedef struct resp_args {
    const char *dir, *kernel;
    double T;
    int T_given;                /* --T; else each scan point's T (0 without a T column) */
    size_t n_mu, n_omega, n_E;
    size_t moments;             /* --moments: the first M per index; 0: all stored */
    int mu_range;               /* --mu A:B:N */
    double mu[RESPONSE_MAX_LIST], omega[RESPONSE_MAX_LIST], E[RESPONSE_MAX_LIST];
} resp_args;

static const char resp_use[] = "usage: mcf response DIR [--T T] [--mu m1,m2,...|A:B:N] "
                               "[--omega w1,w2,...] [--energies e1,e2,...|A:B:N] "
                               "[--kernel jackson|lorentz[:LAMBDA]|none] [--moments M]";

/* a list "x1,x2,..." (or with range, "A:B:N") of finite numbers into v */
static int parse_list(const char *opt, const char *text, int range, double *v, size_t *n,
                      int *is_range)
{
    char *end;
    errno = 0;
    *n = 0;
    *is_range = 0;
    if (range && strchr(text, ':')) {
        const double a = strtod(text, &end);
        char *e2 = end, *e3;
        const double b = *end == ':' ? strtod(end + 1, &e2) : NAN;
        const long long k = *e2 == ':' ? strtoll(e2 + 1, &e3, 10) : 0;
        if (*end != ':' || *e2 != ':' || *e3 || errno || !isfinite(a) || !isfinite(b) ||
            !(a < b) || k < 2 || k > RESPONSE_MAX_LIST)
            return mcf_fail(MCF_EINVAL, "response: %s %s: write A:B:N with A < B and 2 <= N <= "
                            "%d (%s)", opt, text, RESPONSE_MAX_LIST, resp_use);
        for (long long i = 0; i < k; i++)
            v[i] = a + (b - a) * (double)i / (double)(k - 1);
        *n = (size_t)k;
        *is_range = 1;
        return MCF_OK;
    }
    for (const char *p = text; *p && *n < RESPONSE_MAX_LIST;) {
        v[*n] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[*n]) || (*end && *end != ','))
            return mcf_fail(MCF_EINVAL, "response: %s %s: finite numbers separated by commas "
                            "are wanted (%s)", opt, text, resp_use);
        (*n)++;
        p = *end ? end + 1 : end;
    }
    return *n ? MCF_OK : mcf_fail(MCF_EINVAL, "response: %s is empty (%s)", opt, resp_use);
}

static int parse_args(int argc, char **argv, resp_args *a)
{
    memset(a, 0, sizeof *a);
    for (int k = 0; k < argc; k++) {
        const char *o = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        const int known = !strcmp(o, "--T") || !strcmp(o, "--mu") || !strcmp(o, "--omega") ||
                          !strcmp(o, "--kernel") || !strcmp(o, "--energies") ||
                          !strcmp(o, "--moments");
        if (known && !v)
            return mcf_fail(MCF_EINVAL, "response: %s needs a value (%s)", o, resp_use);
        int rc = MCF_OK, r;
        if (!strcmp(o, "--T")) {
            char *end;
            errno = 0;
            a->T = strtod(v, &end);
            a->T_given = 1;
            if (end == v || *end || errno || !isfinite(a->T) || a->T < 0)
                rc = mcf_fail(MCF_EINVAL, "response: --T %s: a temperature >= 0 is wanted", v);
        } else if (!strcmp(o, "--mu")) {
            rc = parse_list(o, v, 1, a->mu, &a->n_mu, &a->mu_range);
        } else if (!strcmp(o, "--omega")) {
            rc = parse_list(o, v, 0, a->omega, &a->n_omega, &r);
            for (size_t i = 0; !rc && i < a->n_omega; i++)
                if (!(a->omega[i] > 0))
                    rc = mcf_fail(MCF_EINVAL, "response: --omega %s: frequencies > 0 (the DC "
                                  "limit is Bastin's rows)", v);
        } else if (!strcmp(o, "--energies")) {
            rc = parse_list(o, v, 1, a->E, &a->n_E, &r);
        } else if (!strcmp(o, "--moments")) {
            char *end;
            errno = 0;
            const long long m = strtoll(v, &end, 10);
            a->moments = m >= 2 && !*end && !errno ? (size_t)m : 0;
            if (!a->moments)
                rc = mcf_fail(MCF_EINVAL, "response: --moments %s: a whole number >= 2 is wanted "
                              "(at most the run's)", v);
        } else if (!strcmp(o, "--kernel")) {
            a->kernel = v;
        } else if (o[0] == '-') {
            return mcf_fail(MCF_EINVAL, "response: unknown option '%s' (%s)", o, resp_use);
        } else if (!a->dir) {
            a->dir = o;
            continue;
        } else {
            return mcf_fail(MCF_EINVAL, "response: one folder only ('%s' is extra; %s)", o,
                            resp_use);
        }
        if (rc)
            return rc;
        k++;
    }
    if (!a->dir)
        return mcf_fail(MCF_EINVAL, "response: missing DIR (%s)", resp_use);
    double g[2];
    return mcf_kubo_kernel(a->kernel, 2, g) ? mcf_fail_prefix(MCF_EINVAL, "response") : MCF_OK;
}

/* one curve at one scan point: the bins, their common tail, sigma per bin and the jackknife
 * of every quantity (n_q of them: Bastin at each mu, then Greenwood at each (mu, omega)) */
typedef struct resp_point {
    size_t P, M, nb;
    double *s, *w;       /* nb x P sums, nb weights */
    double tail[5];      /* a, b, emin, emax, n_s */
} resp_point;

static int point_tail(resp_point *q, const char *name, size_t p, const char *path)
{
    for (size_t j = 0; j < q->nb; j++)
        for (int t = 0; t < 5; t++) {
            const double x = q->s[j * q->P + q->P - 5 + (size_t)t] / q->w[j];
            if (j == 0)
                q->tail[t] = x;
            else if (fabs(x - q->tail[t]) > 1e-12 * fmax(fabs(q->tail[t]), 1.0))
                return mcf_fail(MCF_EINVAL, "%s: /observables/%s: scan point %zu: the %s of the "
                                "moments changed between measurements (%.17g, then %.17g): "
                                "moments of different scalings cannot be averaged (the model "
                                "must fix the spectral bounds)", path, name, p,
                                t < 2 ? "scaling" : t < 4 ? "bounds" : "states per volume",
                                q->tail[t], x);
        }
    if (q->nb == 0)
        return mcf_fail(MCF_EFORMAT, "%s: /observables/%s: scan point %zu has no measurements",
                        path, name, p);
    return MCF_OK;
}

/* sigma of every quantity for bin j's mean moments into v (n_q values) */
static int bin_values(const resp_args *args, double T, const resp_point *q, size_t j,
                      const double *mus, size_t n_mu, double *mean, double *v)
{
    for (size_t i = 0; i < q->P; i++)
        mean[i] = q->s[j * q->P + i] / q->w[j];
    const size_t Ms = q->M, M = args->moments ? args->moments : Ms;
    /* the first M x M block of each part, packed in place (each value moves down) */
    for (int part = 0; part < 2 && M < Ms; part++)
        for (size_t n = 0; n < M; n++)
            for (size_t m = 0; m < M; m++)
                mean[(size_t)part * M * M + n * M + m] = mean[(size_t)part * Ms * Ms + n * Ms + m];
    const mcf_kubo k = {.M = M, .mu_re = mean, .mu_im = mean + M * M, .a = q->tail[0],
                        .b = q->tail[1], .emin = q->tail[2], .emax = q->tail[3],
                        .kernel = args->kernel, .states_per_volume = q->tail[4]};
    int rc = mcf_kubo_bastin(&k, T, n_mu, mus, v, NULL);
    for (size_t i = 0; !rc && args->n_omega && i < n_mu; i++)
        rc = mcf_kubo_greenwood(&k, T, mus[i], args->n_omega, args->omega,
                                v + n_mu + i * args->n_omega);
    return rc;
}

typedef struct resp_ctx {
    const resp_args *args;
    mcf_text t;
    mcf_text inv;                /* the scan point's inv_sigma_xx rows, after its curves' */
    size_t rows;
    double mus[RESPONSE_MAX_LIST]; /* the mu of the last curve (the same for every point) */
    double *xx, *xy, *xy_err;    /* points x n_mu: Bastin's sigma_xx, sigma_xy and its error
                                    (NaN: none) */
    mcfi_resp_plot_row *plot;    /* 1/sigma_xx at every (point, mu), in scan order */
    size_t n_plot;
    size_t broad;                /* scan points whose kernel width exceeds pi T / sqrt 3 */
    double broad_width, broad_T; /* the first of them */
    size_t broad_point;
} resp_ctx;

/* The energy resolution of the kernel at the band's centre for M moments, half-width a:
 * Jackson's (and the plain series') pi a / M, Lorentz's lambda a / M */
static double kernel_width(const char *kernel, size_t M, double a)
{
    double lambda = 4.0;
    if (kernel && !strncmp(kernel, "lorentz", 7)) {
        if (kernel[7] == ':')
            lambda = strtod(kernel + 8, NULL);
        return lambda * a / (double)M;
    }
    return 3.14159265358979323846 * a / (double)M;
}

/* the jackknife of 1/sigma from the bins' totals (a nonlinear function: its own
 * leave-one-out values, bias-corrected by the combination) */
static void inverse_jackknife(double tot, double W, const double *loo, const double *w,
                              size_t nb, double *scratch, double *val, double *err)
{
    for (size_t j = 0; j < nb; j++)
        scratch[j] = 1.0 / loo[j];
    mcfe_jackknife_combine(W / tot, scratch, 1, w, nb, val, err);
}

/* curve cv at scan point p: its rows of the table */
static int curve_point(resp_ctx *x, const mcfi_dos_input *in, const mcfi_dos_curve *cv,
                       size_t p, const char *path)
{
    const resp_args *args = x->args;
    resp_point q = {0};
    size_t first = 0;
    while (first < cv->rows && (size_t)cv->chain[first] < p * in->walkers)
        first++;
    while (first + q.P < cv->rows && (size_t)cv->chain[first + q.P] == p * in->walkers)
        q.P++;
    q.M = (size_t)llround(sqrt((double)(q.P > 5 ? (q.P - 5) / 2 : 0)));
    if (q.P < 13 || MCF_RESPONSE_POINTS(q.M) != q.P)
        return mcf_fail(MCF_EFORMAT, "%s: /observables/%s: %zu values a chain, not 2 M^2 + 5 "
                        "for an M >= 2", path, cv->name, q.P);
    if (args->moments > q.M)
        return mcf_fail(MCF_EINVAL, "response: --moments %zu: the run stored %zu moments per "
                        "index in /observables/%s (take at most that many)", args->moments, q.M,
                        cv->name);
    const size_t nbmax = in->walkers * in->bins;
    double mus[RESPONSE_MAX_LIST];
    q.s = malloc(nbmax * q.P * sizeof *q.s);
    q.w = malloc(nbmax * sizeof *q.w);
    double *mean = malloc(q.P * sizeof *mean);
    int rc = !q.s || !q.w || !mean ? mcf_fail(MCF_ENOMEM, "response: out of memory") : MCF_OK;
    if (!rc)
        rc = mcfi_dos_point_bins(in, cv, p * in->walkers, q.P, q.s, q.w, &q.nb, path);
    if (!rc)
        rc = point_tail(&q, cv->name, p, path);
    size_t n_mu = args->n_mu;
    if (!rc && n_mu)
        memcpy(mus, args->mu, n_mu * sizeof *mus);
    else if (!rc)
        for (n_mu = 41; n_mu-- > 0;) /* 41 inside the bounds */
            mus[n_mu] = q.tail[2] + (q.tail[3] - q.tail[2]) * (double)(n_mu + 1) / 42.0;
    n_mu = args->n_mu ? args->n_mu : 41;
    if (!rc)
        memcpy(x->mus, mus, n_mu * sizeof *mus);
    const size_t nq = n_mu * (1 + args->n_omega);
    double *v = rc ? NULL : malloc((q.nb + 1) * nq * sizeof *v), *loo = NULL;
    if (!rc && (!v || !(loo = malloc(2 * (q.nb + 1) * sizeof *loo))))
        rc = mcf_fail(MCF_ENOMEM, "response: out of memory");
    /* the Fermi function's T: --T, else the scan point's own (a temperature scan) */
    double T = args->T;
    for (size_t c = 0; !args->T_given && c < in->n_scan; c++)
        if (!strcmp(in->scan_names[c], "T"))
            T = strtod(in->scan_values[c * in->points + p], NULL);
    if (!rc && !(isfinite(T) && T >= 0))
        rc = mcf_fail(MCF_EFORMAT, "%s: scan point %zu has the temperature %g", path, p, T);
    /* the Fermi window's standard deviation is pi T / sqrt 3: a wider kernel sets the
     * resolution instead (once per scan point: the first curve) */
    const double width =
        kernel_width(args->kernel, args->moments ? args->moments : q.M, q.tail[0]);
    if (!rc && cv == &in->response[0] && width > FERMI_WINDOW_SD * T) {
        if (x->broad++ == 0) {
            x->broad_width = width;
            x->broad_T = T;
            x->broad_point = p;
        }
    }
    for (size_t j = 0; !rc && j < q.nb; j++)
        rc = bin_values(args, T, &q, j, mus, n_mu, mean, v + j * nq);
    double W = 0.0;
    for (size_t j = 0; !rc && j < q.nb; j++)
        W += q.w[j];
    const size_t len = strlen(cv->name);
    const int cut = len > 8 && !strcmp(cv->name + len - 8, "_moments");
    const int is_xx = !strcmp(cv->name, "sigma_xx_moments");
    const int is_xy = !strcmp(cv->name, "sigma_xy_moments");
    for (size_t i = 0; !rc && i < nq; i++) {
        double tot = 0.0, val, err;
        for (size_t j = 0; j < q.nb; j++)
            tot += q.w[j] * v[j * nq + i];
        for (size_t j = 0; j < q.nb; j++)
            loo[j] = (tot - q.w[j] * v[j * nq + i]) / (W - q.w[j]);
        mcfe_jackknife_combine(tot / W, loo, 1, q.w, q.nb, &val, &err);
        for (size_t c = 0; c < in->n_scan; c++)
            mcfe_text_printf(&x->t, "%s\t", in->scan_values[c * in->points + p]);
        const size_t m = i < n_mu ? i : (i - n_mu) / args->n_omega;
        mcfe_text_printf(&x->t, "%.*s\t%s\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\n",
                         (int)(cut ? len - 8 : len), cv->name, i < n_mu ? "bastin" : "greenwood",
                         mus[m], i < n_mu ? 0.0 : args->omega[(i - n_mu) % args->n_omega],
                         T, val, err);
        x->rows++;
        if (i < n_mu && is_xy) {
            x->xy[p * n_mu + i] = val;
            x->xy_err[p * n_mu + i] = err;
        }
        if (i < n_mu && is_xx) { /* 1/sigma_xx, the resistivity where the Hall part is small */
            x->xx[p * n_mu + i] = val;
            double iv, ie;
            inverse_jackknife(tot, W, loo, q.w, q.nb, loo + q.nb + 1, &iv, &ie);
            for (size_t c = 0; c < in->n_scan; c++)
                mcfe_text_printf(&x->inv, "%s\t", in->scan_values[c * in->points + p]);
            mcfe_text_printf(&x->inv, "inv_sigma_xx\tbastin\t%.17g\t0\t%.17g\t%.17g\t%.17g\n",
                             mus[m], T, iv, ie);
            x->rows++;
            x->plot[x->n_plot++] = (mcfi_resp_plot_row){T, iv, ie, i};
        }
    }
    free(q.s);
    free(q.w);
    free(mean);
    free(v);
    free(loo);
    return rc;
}

/* 1/sigma_xx is the resistivity only where sigma_xy is small beside sigma_xx: say where it
 * is not (10 %: rho_xx = sigma_xx / (sigma_xx^2 + sigma_xy^2) differs by 1 % there), and
 * sigma_xy is more than twice its error from 0 (noise alone does not warn) */
static void hall_check(const resp_ctx *x, const mcfi_dos_input *in, size_t n_mu)
{
    size_t bad = 0, at = 0;
    double worst = 0.0;
    for (size_t i = 0; i < in->points * n_mu; i++) {
        const double r = fabs(x->xy[i] / x->xx[i]);
        if (isfinite(r) && r > 0.1 && !(fabs(x->xy[i]) <= 2.0 * x->xy_err[i])) {
            bad++;
            if (r > worst) {
                worst = r;
                at = i;
            }
        }
    }
    if (bad)
        mcf_log(MCF_LOG_WARN, "response: |sigma_xy| exceeds 10 %% of sigma_xx at %zu of %zu "
                "(scan point, mu) pairs (the most, %.3g of it, at scan point %zu, mu = %g): "
                "inv_sigma_xx is not the resistivity rho_xx there (the tensor's inverse mixes "
                "in the Hall part)", bad, in->points * n_mu, worst, at / n_mu,
                x->mus[at % n_mu]);
}

/* plot-resistivity when the scan varies T alone and at most 8 mu were asked for */
static void resistivity_plot(const resp_ctx *x, const mcfi_dos_input *in, size_t n_mu)
{
    int t_col = -1, others = 0;
    for (size_t c = 0; c < in->n_scan; c++) {
        int varies = 0;
        for (size_t p = 1; p < in->points && !varies; p++)
            varies = strcmp(in->scan_values[c * in->points + p], in->scan_values[c * in->points]);
        if (varies && !strcmp(in->scan_names[c], "T"))
            t_col = (int)c;
        else if (varies)
            others = 1;
    }
    if (t_col < 0 || others || x->n_plot == 0)
        return;
    if (n_mu > 8) {
        printf("mcf: no plot-resistivity: it draws 1/sigma_xx(T) at up to 8 values of mu "
               "(--mu m1,m2,...)\n");
        return;
    }
    mcfi_response_plot(x->args->dir, x->plot, x->n_plot, x->mus, n_mu);
}

static int response_folder(const mcf_setup *s, void *ctx, char *path, size_t len)
{
    resp_ctx *x = ctx;
    const resp_args *args = x->args;
    mcfi_dos_input in;
    snprintf(path, len, "%s/results.h5", args->dir);
    const mcfi_dos_shape want = {s->n_points, (size_t)s->walkers, (size_t)s->bins};
    int rc = mcfi_dos_read(path, &want, &in);
    if (rc)
        return mcf_fail_prefix(rc, "response");
    if (in.n_response == 0 && in.n_spectral == 0)
        rc = mcf_fail(MCF_EINVAL, "response: %s holds no response or spectral moments: model "
                      "%s measured none (a model declares them, e.g. double-exchange with "
                      "[model] response_moments = M > 0 or spectral_moments = M > 0)", path,
                      s->model_name);
    if (!rc && in.n_spectral) {
        const mcfi_spectral_args sa = {.dir = args->dir, .kernel = args->kernel, .T = args->T,
                                       .T_given = args->T_given, .mu = args->mu,
                                       .n_mu = args->n_mu, .E = args->E, .n_E = args->n_E,
                                       .moments = args->moments};
        char h5[4096];
        snprintf(h5, sizeof h5, "%s", path);
        rc = mcfi_response_spectral(&sa, &in, mcfe_section_text(&s->sections[0], "mu"), h5,
                                    path, len);
        snprintf(path, len, "%s", h5);
    }
    if (rc || in.n_response == 0) {
        mcfi_dos_input_free(&in);
        return rc;
    }
    mcfe_text_printf(&x->t, "# mcf %s: conductivities from the two-dimensional Chebyshev "
                     "moments in results.h5 (mcf response)\n", MCF_VERSION_STRING);
    mcfe_text_printf(&x->t, "# kernel %s, T: %s; units e^2/hbar (2D; e^2/h = 1/(2 pi)); "
                     "bastin: Kubo-Bastin's DC sigma_ab (Hall part included), greenwood: "
                     "Kubo-Greenwood's Re sigma_ab(omega)\n", args->kernel ? args->kernel
                     : "jackson", args->T_given ? "--T" : "each scan point's (0 without one)");
    if (args->moments)
        mcfe_text_printf(&x->t, "# moments: the first %zu per index (--moments)\n",
                         args->moments);
    mcfe_text_printf(&x->t, "# errors: jackknife over the bins (%zu bins x %zu walker(s) a "
                     "scan point)\n# scan:", in.bins, in.walkers);
    for (size_t j = 0; j < in.n_scan; j++)
        mcfe_text_printf(&x->t, " %s", in.scan_names[j]);
    mcfe_text_printf(&x->t, "\n");
    for (size_t j = 0; j < in.n_scan; j++)
        mcfe_text_printf(&x->t, "%s\t", in.scan_names[j]);
    mcfe_text_printf(&x->t, "quantity\tformula\tmu\tomega\tT\tsigma\tsigma_err\n");
    const size_t n_mu = args->n_mu ? args->n_mu : 41;
    const size_t cells = in.points * n_mu;
    x->xx = rc ? NULL : malloc(3 * cells * sizeof *x->xx);
    x->plot = rc ? NULL : malloc(cells * sizeof *x->plot);
    if (!rc && (!x->xx || !x->plot))
        rc = mcf_fail(MCF_ENOMEM, "response: out of memory");
    for (size_t i = 0; !rc && i < 3 * cells; i++)
        x->xx[i] = NAN;
    if (!rc) {
        x->xy = x->xx + cells;
        x->xy_err = x->xy + cells;
    }
    for (size_t p = 0; p < in.points && !rc; p++) {
        for (size_t k = 0; k < in.n_response && !rc; k++)
            rc = curve_point(x, &in, &in.response[k], p, path);
        if (x->inv.len)
            mcfe_text_printf(&x->t, "%s", x->inv.s);
        x->inv.len = 0;
        rc = rc ? rc : x->inv.failed ? mcf_fail(MCF_ENOMEM, "response: out of memory") : MCF_OK;
    }
    if (!rc && x->t.failed)
        rc = mcf_fail(MCF_ENOMEM, "response: out of memory for the table");
    if (!rc) {
        char label[96];
        mcfi_response_label(args->kernel, args->moments, label, sizeof label);
        snprintf(path, len, "%s/response-%s.tsv", args->dir, label);
        rc = mcfe_write_atomic(path, x->t.s, x->t.len);
    }
    if (!rc) {
        hall_check(x, &in, n_mu);
        if (x->broad)
            mcf_log(MCF_LOG_WARN, "response: at %zu of %zu scan points the kernel's energy "
                    "width (%g at scan point %zu: %s a / M for %s) exceeds the Fermi window's "
                    "(pi T / sqrt 3 = %g): there the kernel, not the temperature, sets the "
                    "energy resolution of sigma (docs/methods.md, \"The kernel's bias\"); "
                    "raise response_moments", x->broad, in.points, x->broad_width,
                    x->broad_point, args->kernel && !strncmp(args->kernel, "lorentz", 7)
                                        ? "lambda" : "pi",
                    args->kernel ? args->kernel : "jackson", FERMI_WINDOW_SD * x->broad_T);
        printf("mcf: %zu conductivit%s of %zu scan point%s written to %s\n", x->rows,
               x->rows == 1 ? "y" : "ies", in.points, in.points == 1 ? "" : "s", path);
        resistivity_plot(x, &in, n_mu);
    }
    mcfi_dos_input_free(&in);
    return rc;
}

void mcfi_response_label(const char *kernel, size_t moments, char *label, size_t n)
{
    if (moments)
        snprintf(label, n, "%s-M%zu", kernel ? kernel : "jackson", moments);
    else
        snprintf(label, n, "%s", kernel ? kernel : "jackson");
    for (char *c = label; *c; c++)
        if (*c == ':' || *c == '/')
            *c = '_';
}

int mcfi_response_command(int argc, char **argv)
{
    resp_args *args = malloc(sizeof *args);
    if (!args)
        return mcf_fail(MCF_ENOMEM, "response: out of memory");
    int rc = parse_args(argc, argv, args);
    resp_ctx x = {.args = args};
    if (!rc)
        rc = mcfi_with_run_folder(args->dir, "response", response_folder, &x);
    free(x.t.s);
    free(x.inv.s);
    free(x.xx);
    free(x.plot);
    free(args);
    return rc;
}
