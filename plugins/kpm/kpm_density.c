/* kpm_density.c — the mathematics of the density matrix (kpm_core.h, "the density matrix"):
 * the Chebyshev series of the Fermi function cut at a stated truncation bound, and the
 * probing colours of the Hamiltonian's rows.  The probes themselves are kpm_ops_density.c's;
 * the series applied to a block of vectors is kpm_engine.c's (kpm_series_apply). */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double kpm_pi = 3.14159265358979323846;

/* the sum of the semi-axes of the Bernstein ellipse through z = x + i y: |z + sqrt(z^2 - 1)|
 * on the branch outside the unit interval */
static double bernstein_rho(double x, double y)
{
    /* rho + 1/rho = |z - 1| + |z + 1| */
    const double s = hypot(x - 1.0, y) + hypot(x + 1.0, y);
    return 0.5 * (s + sqrt(fmax(s * s - 4.0, 0.0)));
}

/* the Chebyshev coefficients of fn(a x + b) (see kpm_fermi_series), rho the Bernstein
 * parameter of fn's nearest singularity, tol the absolute bound on the rest */
typedef double (*series_fn)(double E, const double *prm);

static int cheb_series(series_fn fn, const double *prm, double a, double b, double rho,
                       double tol, size_t max_terms, double **c, size_t *Mf, double *tail)
{
    /* |c_n| ~ 2 max|f| rho^-n: the order that meets tol, with room for the sum of the tail */
    const double lr = log(rho);
    double guess = lr > 0.0 ? (log(4.0 / tol) + log(1.0 / (1.0 - 1.0 / rho))) / lr : 1e300;
    if (!(guess < (double)max_terms))
        guess = (double)max_terms;
    size_t want = (size_t)guess + 2;
    for (;;) {
        size_t K = 1024;
        while (K < 8 * want)
            K *= 2;
        const size_t half = K / 2;
        double *z = malloc((4 * K + half) * sizeof *z);
        if (!z)
            return mcf_fail(MCF_ENOMEM, "kpm: a Chebyshev series: out of memory for %zu "
                            "nodes", K);
        double *cs = z + 4 * K;
        for (size_t j = 0; j < K; j++) {
            z[2 * j] = fn(a * cos(kpm_pi * ((double)j + 0.5) / (double)K) + b, prm);
            z[2 * j + 1] = 0.0;
        }
        int rc = kpm_chebyshev_sums(z, K, half, cs, NULL);
        if (rc) {
            free(z);
            return rc;
        }
        for (size_t n = 0; n < half; n++)
            cs[n] *= (n ? 2.0 : 1.0) / (double)K;
        /* the smallest order whose rest (to K/2) is within tol, at most max_terms */
        double rest = 0.0;
        size_t m = half;
        while (m > 2 && rest + fabs(cs[m - 1]) <= tol) {
            rest += fabs(cs[m - 1]);
            m--;
        }
        if (m > max_terms) {
            for (size_t n = max_terms; n < m; n++)
                rest += fabs(cs[n]);
            m = max_terms;
        }
        if (m <= half / 4 || m == max_terms || K >= 8 * (size_t)KPM_MAX_SERIES) {
            double *out = malloc(m * sizeof *out);
            if (!out) {
                free(z);
                return mcf_fail(MCF_ENOMEM, "kpm: a Chebyshev series: out of memory");
            }
            memcpy(out, cs, m * sizeof *out);
            free(z);
            *c = out;
            *Mf = m;
            *tail = rest;
            return MCF_OK;
        }
        free(z); /* the coefficients reach past a quarter of the nodes: more nodes */
        want = 2 * m;
    }
}

static double fermi_fn(double E, const double *prm) { return kpm_fermi((E - prm[0]) / prm[1]); }

int kpm_fermi_series(double a, double b, double T, double mu, double tol, size_t max_terms,
                     double **c, size_t *Mf, double *tail)
{
    *c = NULL;
    if (!(a > 0.0) || !isfinite(a) || !isfinite(b) || !(T > 0.0) || !isfinite(T) ||
        !isfinite(mu) || !(tol > 0.0) || max_terms < 2)
        return mcf_fail(MCF_EINVAL, "kpm: density_matrix: invalid scaling a = %g, b = %g, "
                        "T = %g, mu = %g or tolerance %g", a, b, T, mu, tol);
    const double prm[2] = {mu, T};
    return cheb_series(fermi_fn, prm, a, b, bernstein_rho((mu - b) / a, kpm_pi * T / a), tol,
                       max_terms, c, Mf, tail);
}

/* ---- the pseudofermions' functions ------------------------------------------------------ */

/* log(2 cosh y) without overflow */
static double log2cosh(double y)
{
    const double u = fabs(y);
    return u + log1p(exp(-2.0 * u));
}

/* [2 cosh((E - mu) / 2T)]^power, prm = {mu, T, power} */
static double pf_fn(double E, const double *prm)
{
    return exp(prm[2] * log2cosh((E - prm[0]) / (2.0 * prm[1])));
}

int kpm_pf_series(double a, double b, double T, double mu, double power, double tol_rel,
                  size_t max_terms, double **c, size_t *Mf, double *rel)
{
    *c = NULL;
    if (!(a > 0.0) || !isfinite(a) || !isfinite(b) || !(T > 0.0) || !isfinite(T) ||
        !isfinite(mu) || !isfinite(power) || !(tol_rel > 0.0) || max_terms < 2)
        return mcf_fail(MCF_EINVAL, "kpm: pseudofermion: invalid scaling a = %g, b = %g, "
                        "T = %g, mu = %g, power %g or tolerance %g", a, b, T, mu, power,
                        tol_rel);
    const double prm[3] = {mu, T, power};
    /* the smallest value on [b - a, b + a]: at the far end for power < 0, at mu (or the
     * end nearest it) for power > 0 */
    const double lo = b - a, hi = b + a;
    const double far = fmax(fabs(lo - mu), fabs(hi - mu));
    const double near = mu < lo ? lo - mu : mu > hi ? mu - hi : 0.0;
    const double fmin = pf_fn(mu + (power < 0 ? far : near), prm);
    double tail = 0.0;
    int rc = cheb_series(pf_fn, prm, a, b, bernstein_rho((mu - b) / a, kpm_pi * T / a),
                         tol_rel * fmin, max_terms, c, Mf, &tail);
    if (!rc)
        *rel = tail / fmin;
    return rc;
}

/* ---- probing colours ------------------------------------------------------------------ */

int kpm_probe_colours(const mcf_hamiltonian *h, size_t d, int32_t *colour, size_t *ncolours)
{
    const size_t dim = h->dim, w = (size_t)h->width;
    if (d == 0) {
        for (size_t r = 0; r < dim; r++)
            colour[r] = 0;
        *ncolours = dim ? 1 : 0;
        return MCF_OK;
    }
    /* breadth-first search to depth d from each row: the colours of the rows met so far are
     * taken; a row gets the smallest free one */
    size_t *queue = malloc(dim * sizeof *queue), *depth = malloc(dim * sizeof *depth);
    size_t *stamp = calloc(dim, sizeof *stamp), *used = calloc(dim + 1, sizeof *used);
    if (!queue || !depth || !stamp || !used) {
        free(queue);
        free(depth);
        free(stamp);
        free(used);
        return mcf_fail(MCF_ENOMEM, "kpm: density_matrix: out of memory for the probing "
                        "colours of %zu rows", dim);
    }
    for (size_t r = 0; r < dim; r++)
        colour[r] = -1;
    size_t nc = 0;
    for (size_t r = 0; r < dim; r++) {
        const size_t mark = r + 1;
        size_t head = 0, tail = 0;
        queue[tail] = r;
        depth[tail++] = 0;
        stamp[r] = mark;
        while (head < tail) {
            const size_t u = queue[head], du = depth[head++];
            if (colour[u] >= 0)
                used[colour[u]] = mark;
            if (du == d)
                continue;
            for (size_t k = 0; k < w; k++) {
                const int32_t v = h->col[k * dim + u];
                if (v < 0 || stamp[v] == mark)
                    continue;
                stamp[v] = mark;
                queue[tail] = (size_t)v;
                depth[tail++] = du + 1;
            }
        }
        size_t c = 0;
        while (used[c] == mark)
            c++;
        colour[r] = (int32_t)c;
        if (c + 1 > nc)
            nc = c + 1;
    }
    free(queue);
    free(depth);
    free(stamp);
    free(used);
    *ncolours = nc;
    return MCF_OK;
}
