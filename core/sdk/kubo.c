/* kubo.c — conductivities from two-dimensional Chebyshev moments (mcf/response.h): the
 * kernels, Kubo-Greenwood's Re sigma(omega) and its DC limit, Kubo-Bastin's DC tensor.
 *
 * Every integral is over x = (E - b) / a, done in t = arccos x (dx = -sin t dt, so the
 * 1 / s(x) of the Chebyshev weight is harmless) by Gauss-Legendre panels of 16 points; the
 * sums run in a fixed order, so the bits depend on the input alone. */
#include "mcf/response.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

#define KUBO_GL 16
static const double kubo_pi = 3.14159265358979323846;

int mcf_kubo_kernel(const char *kernel, size_t M, double *g)
{
    if (!g || M < 1)
        return mcf_fail(MCF_EINVAL, "kubo kernel: no moments");
    const char *k = kernel ? kernel : "jackson";
    if (!strcmp(k, "jackson")) {
        const double q = kubo_pi / (double)(M + 1), cot = cos(q) / sin(q);
        for (size_t n = 0; n < M; n++)
            g[n] = ((double)(M - n + 1) * cos(q * (double)n) + sin(q * (double)n) * cot) /
                   (double)(M + 1);
        return MCF_OK;
    }
    if (!strcmp(k, "none")) {
        for (size_t n = 0; n < M; n++)
            g[n] = 1.0;
        return MCF_OK;
    }
    if (!strncmp(k, "lorentz", 7) && (k[7] == '\0' || k[7] == ':')) {
        double lambda = 4.0;
        if (k[7] == ':') {
            char *end;
            lambda = strtod(k + 8, &end);
            if (end == k + 8 || *end || !isfinite(lambda) || lambda <= 0.0)
                return mcf_fail(MCF_EINVAL, "kubo kernel \"%s\": lorentz:LAMBDA wants a "
                                "positive number", k);
        }
        for (size_t n = 0; n < M; n++)
            g[n] = sinh(lambda * (1.0 - (double)n / (double)M)) / sinh(lambda);
        return MCF_OK;
    }
    return mcf_fail(MCF_EINVAL, "kubo kernel \"%s\": known are jackson, lorentz, "
                    "lorentz:LAMBDA and none", k);
}

/* the nodes and weights of Gauss-Legendre on [-1, 1] (Newton on P_16) */
static void gauss_legendre(double *x, double *w)
{
    const int n = KUBO_GL;
    for (int i = 0; i < n; i++) {
        double z = cos(kubo_pi * (i + 0.75) / (n + 0.5)), dp = 1.0;
        for (int it = 0; it < 100; it++) {
            double p0 = 1.0, p1 = z;
            for (int j = 2; j <= n; j++) {
                const double p2 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p0) / j;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (z * p1 - p0) / (z * z - 1.0);
            const double dz = p1 / dp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        x[i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

/* the integrand at x (s = sqrt(1 - x^2), t = arccos x), already times dx/dt's s: two
 * numbers (re, im) */
typedef void (*kubo_fn)(void *ctx, double x, double s, double t, double *re, double *im);

/* int_{x1}^{x2} F dx by panels in t no wider than dt */
static void integrate(double x1, double x2, double dt, kubo_fn f, void *ctx, double *re,
                      double *im)
{
    double gx[KUBO_GL], gw[KUBO_GL];
    gauss_legendre(gx, gw);
    *re = *im = 0.0;
    if (!(x2 > x1))
        return;
    const double t1 = acos(x2), t2 = acos(x1); /* t1 < t2 */
    const size_t panels = (size_t)ceil((t2 - t1) / dt);
    const double w = (t2 - t1) / (double)(panels ? panels : 1);
    for (size_t p = 0; p < panels; p++) {
        const double mid = t1 + ((double)p + 0.5) * w;
        for (int i = 0; i < KUBO_GL; i++) {
            const double t = mid + 0.5 * w * gx[i], x = cos(t), s = sin(t);
            double fr, fi;
            f(ctx, x, s, t, &fr, &fi);
            *re += 0.5 * w * gw[i] * fr;
            *im += 0.5 * w * gw[i] * fi;
        }
    }
}

typedef struct kubo_run {
    const mcf_kubo *k;
    size_t M;
    double *g;            /* M kernel coefficients times h_n */
    double *wr, *wi;      /* M x M: h_n h_m g_n g_m mu_nm */
    double *u, *v, *tr, *ti, *er, *ei; /* M scratch each */
    double T, mu, omega;  /* the point being integrated */
    double x_lo, x_hi;
} kubo_run;

static int fermi_ok(double T, double mu)
{
    return isfinite(T) && T >= 0.0 && isfinite(mu);
}

static double fermi(double E, double T, double mu)
{
    if (T == 0.0)
        return E < mu ? 1.0 : (E > mu ? 0.0 : 0.5);
    const double z = (E - mu) / T;
    return z > 0 ? exp(-z) / (1.0 + exp(-z)) : 1.0 / (1.0 + exp(z));
}

static int run_open(const mcf_kubo *k, kubo_run *r)
{
    memset(r, 0, sizeof *r);
    r->k = k;
    if (!k || k->M < 2 || !k->mu_re)
        return mcf_fail(MCF_EINVAL, "kubo: no moments (M >= 2 needed)");
    if (!isfinite(k->a) || k->a <= 0.0 || !isfinite(k->b))
        return mcf_fail(MCF_EINVAL, "kubo: the scaling a = %g, b = %g is not a > 0", k->a, k->b);
    r->x_lo = (k->emin - k->b) / k->a;
    r->x_hi = (k->emax - k->b) / k->a;
    if (!(r->x_lo > -1.0 && r->x_hi < 1.0 && r->x_lo < r->x_hi))
        return mcf_fail(MCF_EINVAL, "kubo: the bounds [%g, %g] are not inside the scaled "
                        "interval (%g, %g)", k->emin, k->emax, k->b - k->a, k->b + k->a);
    if (!isfinite(k->states_per_volume) || k->states_per_volume <= 0.0)
        return mcf_fail(MCF_EINVAL, "kubo: states per volume %g is not positive",
                        k->states_per_volume);
    const size_t M = r->M = k->M;
    for (size_t i = 0; i < M * M; i++)
        if (!isfinite(k->mu_re[i]) || (k->mu_im && !isfinite(k->mu_im[i])))
            return mcf_fail(MCF_EINVAL, "kubo: moment (%zu, %zu) is not finite", i / M, i % M);
    r->g = malloc(7 * M * sizeof *r->g);
    r->wr = malloc(2 * M * M * sizeof *r->wr);
    if (!r->g || !r->wr)
        return mcf_fail(MCF_ENOMEM, "kubo: out of memory for %zu moments", M);
    r->wi = r->wr + M * M;
    r->u = r->g + M;
    r->v = r->u + M;
    r->tr = r->v + M;
    r->ti = r->tr + M;
    r->er = r->ti + M;
    r->ei = r->er + M;
    int rc = mcf_kubo_kernel(k->kernel, M, r->g);
    if (rc)
        return rc;
    for (size_t n = 1; n < M; n++)
        r->g[n] *= 2.0;
    for (size_t n = 0; n < M; n++)
        for (size_t m = 0; m < M; m++) {
            const double gg = r->g[n] * r->g[m];
            r->wr[n * M + m] = gg * k->mu_re[n * M + m];
            r->wi[n * M + m] = k->mu_im ? gg * k->mu_im[n * M + m] : 0.0;
        }
    return MCF_OK;
}

static void run_close(kubo_run *r)
{
    free(r->g);
    free(r->wr);
}

/* Re L(x, x') a^2 pi^2 s(x) s(x') = sum_nm u_n Re W_nm v_m, u_n = T_n(x), v_m = T_m(x') */
static double lambda_scaled(kubo_run *r, double x, double x2)
{
    const size_t M = r->M;
    double t0 = 1.0, t1 = x, q0 = 1.0, q1 = x2;
    for (size_t n = 0; n < M; n++) {
        r->u[n] = n == 0 ? 1.0 : t1;
        r->v[n] = n == 0 ? 1.0 : q1;
        if (n > 0) {
            const double t2 = 2.0 * x * t1 - t0, q2 = 2.0 * x2 * q1 - q0;
            t0 = t1;
            t1 = t2;
            q0 = q1;
            q1 = q2;
        }
    }
    double sum = 0.0;
    for (size_t n = 0; n < M; n++) {
        double row = 0.0;
        for (size_t m = 0; m < M; m++)
            row += r->wr[n * M + m] * r->v[m];
        sum += r->u[n] * row;
    }
    return sum;
}

/* Greenwood at omega > 0: [f(E) - f(E + omega)] Re L(E, E + omega) a (dE = a dx), times s */
static void greenwood_fn(void *ctx, double x, double s, double t, double *re, double *im)
{
    (void)t;
    kubo_run *r = ctx;
    const mcf_kubo *k = r->k;
    const double E = k->a * x + k->b, x2 = x + r->omega / k->a;
    const double s2 = sqrt(fmax(0.0, 1.0 - x2 * x2));
    const double df = fermi(E, r->T, r->mu) - fermi(E + r->omega, r->T, r->mu);
    *re = df == 0.0 ? 0.0
                    : df * lambda_scaled(r, x, x2) / (kubo_pi * kubo_pi * k->a * s2);
    *im = 0.0;
    (void)s; /* s(x) of L cancels dx/dt's */
}

/* Greenwood's DC limit: -df/dE Re L(E, E) a, times s */
static void greenwood_dc_fn(void *ctx, double x, double s, double t, double *re, double *im)
{
    (void)t;
    kubo_run *r = ctx;
    const mcf_kubo *k = r->k;
    const double f = fermi(k->a * x + k->b, r->T, r->mu);
    *re = f * (1.0 - f) / r->T * lambda_scaled(r, x, x) / (kubo_pi * kubo_pi * k->a * s);
    *im = 0.0;
}

int mcf_kubo_greenwood(const mcf_kubo *k, double T, double mu, size_t n, const double *omega,
                       double *sigma)
{
    if (!fermi_ok(T, mu))
        return mcf_fail(MCF_EINVAL, "kubo greenwood: T = %g, mu = %g (T >= 0, finite)", T, mu);
    for (size_t i = 0; i < n; i++)
        if (!(omega && sigma) || !isfinite(omega[i]) || omega[i] < 0.0)
            return mcf_fail(MCF_EINVAL, "kubo greenwood: omega must be >= 0 and finite");
    kubo_run r;
    int rc = run_open(k, &r);
    r.T = T;
    r.mu = mu;
    const double dt0 = kubo_pi / (double)(k ? k->M + 1 : 1), wide = 40.0 * T;
    const double dt = T > 0.0 ? fmin(dt0, T / (2.0 * (k ? k->a : 1.0))) : dt0;
    for (size_t i = 0; !rc && i < n; i++) {
        double re, im;
        r.omega = omega[i];
        const double ns = k->states_per_volume;
        if (omega[i] == 0.0 && T == 0.0) {
            const double x = (mu - k->b) / k->a, s = sqrt(1.0 - x * x);
            re = x >= r.x_lo && x <= r.x_hi
                     ? lambda_scaled(&r, x, x) / (kubo_pi * kubo_pi * k->a * k->a * s * s)
                     : 0.0;
            sigma[i] = kubo_pi * ns * re;
        } else if (omega[i] == 0.0) {
            integrate(fmax(r.x_lo, (mu - wide - k->b) / k->a),
                      fmin(r.x_hi, (mu + wide - k->b) / k->a), dt, greenwood_dc_fn, &r, &re,
                      &im);
            sigma[i] = kubo_pi * ns * re;
        } else {
            const double lo = fmax(r.x_lo, (mu - omega[i] - wide - k->b) / k->a);
            const double hi = fmin(r.x_hi - omega[i] / k->a, (mu + wide - k->b) / k->a);
            integrate(lo, hi, dt, greenwood_fn, &r, &re, &im);
            sigma[i] = kubo_pi * ns * re / omega[i];
        }
    }
    run_close(&r);
    return rc;
}

/* Bastin: f(x) Re/Im sum_nm W_nm G_nm(x) / s^4, times s */
static void bastin_fn(void *ctx, double x, double s, double t, double *re, double *im)
{
    kubo_run *r = ctx;
    const mcf_kubo *k = r->k;
    const size_t M = r->M;
    const double f = fermi(k->a * x + k->b, r->T, r->mu);
    if (f == 0.0) {
        *re = *im = 0.0;
        return;
    }
    /* T_n = cos n t; E_m = e^{-i m t} (x + i m s); F_n = e^{i n t} (x - i n s) = conj(E_n) */
    const double c1 = cos(t), s1 = sin(t);
    double cr = 1.0, ci = 0.0;
    for (size_t m = 0; m < M; m++) {
        r->tr[m] = cr; /* cos m t */
        r->ti[m] = ci; /* sin m t */
        const double ms = (double)m * s;
        /* e^{-imt} (x + i ms) = (cr - i ci)(x + i ms) */
        r->er[m] = cr * x + ci * ms;
        r->ei[m] = cr * ms - ci * x;
        const double nr = cr * c1 - ci * s1, ni = ci * c1 + cr * s1;
        cr = nr;
        ci = ni;
    }
    double sr = 0.0, si = 0.0;
    for (size_t n = 0; n < M; n++) {
        const double *wr = r->wr + n * M, *wi = r->wi + n * M;
        double ar = 0.0, ai = 0.0, br = 0.0, bi = 0.0;
        for (size_t m = 0; m < M; m++) {
            ar += wr[m] * r->er[m] - wi[m] * r->ei[m]; /* sum_m W_nm E_m */
            ai += wr[m] * r->ei[m] + wi[m] * r->er[m];
            br += wr[m] * r->tr[m];                    /* sum_m W_nm T_m */
            bi += wi[m] * r->tr[m];
        }
        /* T_n (sum_m W_nm E_m) + F_n (sum_m W_nm T_m), F_n = conj(E_n) */
        sr += r->tr[n] * ar + r->er[n] * br + r->ei[n] * bi;
        si += r->tr[n] * ai + r->er[n] * bi - r->ei[n] * br;
    }
    const double s3 = s * s * s;
    *re = f * sr / s3;
    *im = f * si / s3;
}

/* The integrand g (f = 1) at the nodes of P panels of width w in t over [t1, t2], and for
 * T = 0 the sums of whole panels from p to the end (x from the panel down to x_lo) */
typedef struct bastin_grid {
    size_t P;
    double t1, w, gx[KUBO_GL], gw[KUBO_GL];
    double *g;     /* 2 x P x KUBO_GL: (re, im) per node, times the node's weight */
    double *tail;  /* 2 (P + 1): suffix sums of whole panels */
} bastin_grid;

static int grid_make(kubo_run *r, double dt, bastin_grid *G)
{
    memset(G, 0, sizeof *G);
    gauss_legendre(G->gx, G->gw);
    const double t1 = acos(r->x_hi), t2 = acos(r->x_lo);
    const double P = ceil((t2 - t1) / dt);
    if (!(P <= 1048576.0))
        return mcf_fail(MCF_EINVAL, "kubo bastin: T = %g needs %.0f panels of T / 2a at M = %zu "
                        "(at most 2^20): take T = 0 or a larger T", r->T, P, r->M);
    G->P = (size_t)P > 0 ? (size_t)P : 1;
    G->t1 = t1;
    G->w = (t2 - t1) / (double)G->P;
    G->g = malloc(2 * G->P * KUBO_GL * sizeof *G->g);
    G->tail = malloc(2 * (G->P + 1) * sizeof *G->tail);
    if (!G->g || !G->tail)
        return mcf_fail(MCF_ENOMEM, "kubo bastin: out of memory for %zu panels", G->P);
    /* the nodes on the OpenMP threads, each with its own copy of the run (f = 1) and its
     * own slice of the scratch (allocated here: no reduction, whose lock some OpenMP
     * runtimes make a global symbol of the library); every node's value lands at its own
     * place: the same bits on any number of threads */
    const size_t M = r->M, nth = (size_t)omp_get_max_threads();
    double *scratch = malloc(6 * M * nth * sizeof *scratch);
    if (!scratch)
        return mcf_fail(MCF_ENOMEM, "kubo bastin: out of memory for the threads' scratch");
#pragma omp parallel num_threads((int)nth) if (G->P * M * M > 65536)
    {
        kubo_run rt = *r;
        double *scr = scratch + 6 * M * (size_t)omp_get_thread_num();
        rt.T = 0.0;
        rt.mu = HUGE_VAL; /* f = 1 */
        rt.u = scr;
        rt.v = scr + M;
        rt.tr = scr + 2 * M;
        rt.ti = scr + 3 * M;
        rt.er = scr + 4 * M;
        rt.ei = scr + 5 * M;
#pragma omp for schedule(static)
        for (size_t p = 0; p < G->P; p++)
            for (int i = 0; i < KUBO_GL; i++) {
                const double t = G->t1 + ((double)p + 0.5 + 0.5 * G->gx[i]) * G->w;
                double re, im;
                bastin_fn(&rt, cos(t), sin(t), t, &re, &im);
                G->g[2 * (p * KUBO_GL + (size_t)i)] = 0.5 * G->w * G->gw[i] * re;
                G->g[2 * (p * KUBO_GL + (size_t)i) + 1] = 0.5 * G->w * G->gw[i] * im;
            }
    }
    free(scratch);
    G->tail[2 * G->P] = G->tail[2 * G->P + 1] = 0.0;
    for (size_t p = G->P; p-- > 0;) {
        double re = 0.0, im = 0.0;
        for (int i = 0; i < KUBO_GL; i++) {
            re += G->g[2 * (p * KUBO_GL + (size_t)i)];
            im += G->g[2 * (p * KUBO_GL + (size_t)i) + 1];
        }
        G->tail[2 * p] = G->tail[2 * (p + 1)] + re;
        G->tail[2 * p + 1] = G->tail[2 * (p + 1) + 1] + im;
    }
    return MCF_OK;
}

/* int_{x_lo}^{min(x_mu, x_hi)} g dx: the whole panels below x_mu and a partial one */
static void grid_zero(kubo_run *r, const bastin_grid *G, double xm, double *re, double *im)
{
    *re = *im = 0.0;
    if (xm <= r->x_lo)
        return;
    if (xm >= r->x_hi) {
        *re = G->tail[0];
        *im = G->tail[1];
        return;
    }
    const double tm = acos(xm);
    size_t p = (size_t)floor((tm - G->t1) / G->w);
    if (p >= G->P)
        p = G->P - 1;
    double pr, pi;
    const double T = r->T, mu = r->mu;
    r->T = 0.0;
    r->mu = HUGE_VAL;
    integrate(cos(G->t1 + (double)(p + 1) * G->w), xm, G->w, bastin_fn, r, &pr, &pi);
    r->T = T;
    r->mu = mu;
    *re = G->tail[2 * (p + 1)] + pr;
    *im = G->tail[2 * (p + 1) + 1] + pi;
}

/* sum over the nodes of f(x; mu, T) g (T > 0) */
static void grid_fermi(const kubo_run *r, const bastin_grid *G, double mu, double *re,
                       double *im)
{
    const mcf_kubo *k = r->k;
    *re = *im = 0.0;
    for (size_t p = 0; p < G->P; p++)
        for (int i = 0; i < KUBO_GL; i++) {
            const double t = G->t1 + ((double)p + 0.5 + 0.5 * G->gx[i]) * G->w;
            const double f = fermi(k->a * cos(t) + k->b, r->T, mu);
            *re += f * G->g[2 * (p * KUBO_GL + (size_t)i)];
            *im += f * G->g[2 * (p * KUBO_GL + (size_t)i) + 1];
        }
}

int mcf_kubo_bastin(const mcf_kubo *k, double T, size_t n, const double *mu, double *sigma,
                    double *imag)
{
    for (size_t i = 0; i < n; i++)
        if (!mu || !sigma || !fermi_ok(T, mu[i]))
            return mcf_fail(MCF_EINVAL, "kubo bastin: T = %g and every mu finite (T >= 0)", T);
    kubo_run r;
    bastin_grid G = {0};
    int rc = run_open(k, &r);
    r.T = T;
    if (!rc) {
        const double dt0 = kubo_pi / (double)(k->M + 1);
        rc = grid_make(&r, T > 0.0 ? fmin(dt0, T / (2.0 * k->a)) : dt0, &G);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        double re, im;
        if (T == 0.0)
            grid_zero(&r, &G, (mu[i] - k->b) / k->a, &re, &im);
        else
            grid_fermi(&r, &G, mu[i], &re, &im);
        const double scale = k->states_per_volume / (kubo_pi * k->a * k->a);
        sigma[i] = scale * re;
        if (imag)
            imag[i] = scale * im;
    }
    free(G.g);
    free(G.tail);
    run_close(&r);
    return rc;
}
