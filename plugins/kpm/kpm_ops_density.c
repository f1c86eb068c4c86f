/* kpm_ops_density.c — density_matrix of the KPM evaluators (mcf/fermion.h, mcf 1.1): the
 * probes of kpm_core.h ("the density matrix") driven over a backend's series step, the same
 * for kpm (host) and kpm-cuda (device).  Per workspace, in order: the scaling (and the
 * backend's prepare), the probing colours of the table's pattern (kept while the pattern
 * stays), the Fermi series of (a, b, T, mu) (kept while they stay), then `probes` probes,
 * each drawing dim phases from the chain's stream in row order and advancing the colours'
 * vectors `block` at a time; the mean of the probes, their standard errors and the series'
 * truncation bound.  Host arithmetic in a fixed order: kpm and kpm-cuda differ only in the
 * bits of the series step. */
#include "kpm_ops.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double kpm_pi = 3.14159265358979323846;

void kpm_ops_density_free(kpm_ops_ws *w)
{
    free(w->dm_colour);
    free(w->dm_col);
    free(w->dm_c);
    free(w->dm_x);
    free(w->dm_y);
    free(w->dm_sq);
    free(w->dm_est);
    w->dm_colour = w->dm_col = NULL;
    w->dm_c = w->dm_x = w->dm_y = w->dm_sq = w->dm_est = NULL;
}

/* entries: the diagonal (dim) then the table's slots (width x dim) */
static size_t entries_of(const mcf_hamiltonian *h) { return ((size_t)h->width + 1) * h->dim; }

static int buffers(kpm_ops_ws *w)
{
    const mcf_hamiltonian *h = w->h;
    const size_t blk = 2 * h->dim * w->block, ne = entries_of(h);
    if (!w->dm_x) {
        w->dm_x = malloc(blk * sizeof *w->dm_x);
        w->dm_y = malloc(blk * sizeof *w->dm_y);
        /* per entry: this probe's estimate (re, im), the sum over probes (re, im); then the
         * phases (re, im per row) */
        w->dm_est = malloc((4 * ne + 2 * h->dim) * sizeof *w->dm_est);
        w->dm_sq = malloc(ne * sizeof *w->dm_sq);
        w->dm_colour = malloc(h->dim * sizeof *w->dm_colour);
        w->dm_col = malloc((size_t)h->width * h->dim * sizeof *w->dm_col);
    }
    if (!w->dm_x || !w->dm_y || !w->dm_est || !w->dm_sq || !w->dm_colour || !w->dm_col) {
        kpm_ops_density_free(w);
        return mcf_fail(MCF_ENOMEM, "%s: density_matrix: out of memory for dimension %zu "
                        "(%.1f MiB)", w->be->name, h->dim,
                        (double)(2 * blk + 5 * ne + 3 * h->dim) * 8.0 / 1048576.0);
    }
    return MCF_OK;
}

/* the colours of the table's pattern now (recomputed when it changed or the mode did) */
static int colours(kpm_ops_ws *w)
{
    const mcf_hamiltonian *h = w->h;
    const int exact = w->cfg.vectors == 0;
    const size_t slots = (size_t)h->width * h->dim;
    if (w->dm_ncolours && w->dm_exact == exact &&
        !memcmp(w->dm_col, h->col, slots * sizeof *h->col))
        return MCF_OK;
    w->dm_ncolours = 0;
    if (exact) {
        for (size_t r = 0; r < h->dim; r++)
            w->dm_colour[r] = (int32_t)r;
        w->dm_ncolours = h->dim;
    } else {
        int rc = kpm_probe_colours(h, (size_t)w->cfg.probing_distance, w->dm_colour,
                                   &w->dm_ncolours);
        if (rc)
            return rc;
    }
    memcpy(w->dm_col, h->col, slots * sizeof *h->col);
    w->dm_exact = exact;
    return MCF_OK;
}

static int series(kpm_ops_ws *w, double T, double mu)
{
    const double key[4] = {w->a, w->b, T, mu};
    if (w->dm_c && !memcmp(key, w->dm_key, sizeof key))
        return MCF_OK;
    free(w->dm_c);
    w->dm_c = NULL;
    int rc = kpm_fermi_series(w->a, w->b, T, mu, w->cfg.density_tolerance, KPM_MAX_SERIES,
                              &w->dm_c, &w->dm_M, &w->dm_tail);
    if (rc)
        return rc;
    memcpy(w->dm_key, key, sizeof key);
    return MCF_OK;
}

/* one probe into est (re, im per entry): phases from rng (NULL: all 1, the exact mode) */
static int probe(kpm_ops_ws *w, mcf_rng *rng, double *est)
{
    const mcf_hamiltonian *h = w->h;
    const size_t dim = h->dim, width = (size_t)h->width, nc = w->dm_ncolours;
    double *zr = w->dm_est + 4 * entries_of(h), *zi = zr + dim;
    for (size_t r = 0; r < dim; r++) {
        if (rng) {
            const double phi = 2.0 * kpm_pi * mcf_rng_uniform(rng);
            zr[r] = cos(phi);
            zi[r] = sin(phi);
        } else {
            zr[r] = 1.0;
            zi[r] = 0.0;
        }
    }
    memset(est, 0, 2 * entries_of(h) * sizeof *est);
    const int32_t *colour = w->dm_colour;
    for (size_t c0 = 0; c0 < nc; c0 += w->block) {
        const size_t nb = nc - c0 < w->block ? nc - c0 : w->block;
        double *x = w->dm_x, *y = w->dm_y;
        memset(x, 0, 2 * dim * nb * sizeof *x);
        for (size_t r = 0; r < dim; r++) {
            const size_t q = (size_t)colour[r] - c0;
            if ((size_t)colour[r] >= c0 && q < nb) {
                x[2 * nb * r + q] = zr[r];
                x[2 * nb * r + nb + q] = zi[r];
            }
        }
        int rc = w->be->series(w, w->dm_c, w->dm_M, nb, x, y);
        if (rc)
            return rc;
        /* est(i, j) += <i| P xi_colour(j) > conj(z_j), j = i (the diagonal) or col */
        for (size_t i = 0; i < dim; i++)
            for (size_t k = 0; k <= width; k++) {
                const int32_t j = k == 0 ? (int32_t)i : h->col[(k - 1) * dim + i];
                if (j < 0)
                    continue;
                const size_t q = (size_t)colour[j] - c0;
                if ((size_t)colour[j] < c0 || q >= nb)
                    continue;
                const double vr = y[2 * nb * i + q], vi = y[2 * nb * i + nb + q];
                const size_t e = k == 0 ? i : k * dim + i;
                est[2 * e] += vr * zr[j] + vi * zi[j];
                est[2 * e + 1] += vi * zr[j] - vr * zi[j];
            }
    }
    return MCF_OK;
}

static int one(kpm_ops_ws *w, mcf_rng *rng, double T, double mu, const mcf_density_matrix *out,
               size_t k)
{
    int rc;
    if ((rc = kpm_ops_prepare(w)) || (rc = buffers(w)) || (rc = colours(w)) ||
        (rc = series(w, T, mu)))
        return rc;
    const mcf_hamiltonian *h = w->h;
    const size_t ne = entries_of(h), dim = h->dim;
    const int exact = w->dm_exact;
    const size_t P = exact ? 1 : (size_t)w->cfg.probes;
    double *est = w->dm_est, *sum = est + 2 * ne, *sq = w->dm_sq;
    memset(sum, 0, 2 * ne * sizeof *sum);
    memset(sq, 0, ne * sizeof *sq);
    for (size_t p = 0; p < P; p++) {
        if ((rc = probe(w, exact ? NULL : rng, est)))
            return rc;
        for (size_t e = 0; e < ne; e++) {
            sum[2 * e] += est[2 * e];
            sum[2 * e + 1] += est[2 * e + 1];
            /* the diagonal's error is that of its real part */
            sq[e] += est[2 * e] * est[2 * e] + (e < dim ? 0.0 : est[2 * e + 1] * est[2 * e + 1]);
        }
    }
    const double inv = 1.0 / (double)P;
    for (size_t e = 0; e < ne; e++) {
        const double mr = sum[2 * e] * inv, mi = sum[2 * e + 1] * inv;
        if (!isfinite(mr) || !isfinite(mi))
            return mcf_fail(MCF_EPLUGIN, "%s: density_matrix: entry %zu is not finite",
                            w->be->name, e);
        double se = 0.0;
        if (!exact) {
            const double m2 = mr * mr + (e < dim ? 0.0 : mi * mi);
            se = P > 1 ? sqrt(fmax(sq[e] * inv - m2, 0.0) / (double)(P - 1)) : NAN;
        }
        if (e < dim) {
            out->diag[k][e] = mr;
            if (out->diag_err)
                out->diag_err[k][e] = se;
            continue;
        }
        const size_t s = e - dim;
        const int empty = h->col[s] < 0;
        out->bond_re[k][s] = empty ? 0.0 : mr;
        out->bond_im[k][s] = empty ? 0.0 : mi;
        if (out->bond_err)
            out->bond_err[k][s] = empty ? 0.0 : se;
    }
    if (out->truncation)
        out->truncation[k] = w->dm_tail;
    return MCF_OK;
}

int kpm_ops_density_matrix(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                           const double *T, const double *mu, const mcf_density_matrix *out)
{
    (void)b;
    int rc = MCF_OK;
    const kpm_backend *be = kpm_ops_batch(ws, n, "density_matrix", &rc);
    if (rc || n == 0)
        return rc;
    if (!be->series)
        return mcf_fail(MCF_EINVAL, "%s: density_matrix: this build has no series step",
                        be->name);
    if (!T || !mu || !out || !out->diag || !out->bond_re || !out->bond_im)
        return mcf_fail(MCF_EINVAL, "%s: density_matrix: the %s is NULL", be->name,
                        !T ? "T array" : !mu ? "mu array" : "output array");
    for (size_t k = 0; k < n; k++) {
        const kpm_ops_ws *w = ws[k];
        if (!out->diag[k] || !out->bond_re[k] || !out->bond_im[k] ||
            (out->diag_err && !out->diag_err[k]) || (out->bond_err && !out->bond_err[k]))
            return mcf_fail(MCF_EINVAL, "%s: density_matrix: workspace %zu of %zu: an output "
                            "array is NULL", be->name, k, n);
        if (!(T[k] > 0.0) || !isfinite(T[k]) || !isfinite(mu[k]))
            return mcf_fail(MCF_EINVAL, "%s: density_matrix: workspace %zu of %zu: T = %g must "
                            "be finite and > 0 and mu = %g finite", be->name, k, n, T[k],
                            mu[k]);
        if (w->cfg.vectors > 0 && (!rngs || !rngs[k]))
            return mcf_fail(MCF_EINVAL, "%s: density_matrix: workspace %zu of %zu: the random "
                            "stream is NULL (probes draw phases; vectors = 0 draws none)",
                            be->name, k, n);
    }
    for (size_t k = 0; k < n; k++)
        if ((rc = one(ws[k], rngs ? rngs[k] : NULL, T[k], mu[k], out, k)))
            return n > 1 ? mcf_fail_prefix(rc, "workspace %zu of %zu", k, n) : rc;
    return MCF_OK;
}
