/* hamiltonian.c — the tight-binding Hamiltonian of mcf/hamiltonian.h. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mcf_hamiltonian_create(size_t sites, int orbitals, int width, mcf_hamiltonian **out)
{
    *out = NULL;
    if (sites < 1 || orbitals < 1 || width < 1)
        return mcf_fail(MCF_EINVAL, "hamiltonian: sites = %zu, orbitals = %d, width = %d; "
                        "all must be >= 1", sites, orbitals, width);
    mcf_hamiltonian *h = calloc(1, sizeof *h);
    if (!h)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    h->sites = sites;
    h->orbitals = orbitals;
    h->dim = sites * (size_t)orbitals;
    h->width = width;
    size_t n = h->dim * (size_t)width;
    h->col = malloc(n * sizeof *h->col);
    h->hop_re = calloc(n, sizeof *h->hop_re);
    h->hop_im = calloc(n, sizeof *h->hop_im);
    h->onsite = calloc(h->dim, sizeof *h->onsite);
    if (!h->col || !h->hop_re || !h->hop_im || !h->onsite) {
        mcf_hamiltonian_destroy(h);
        return mcf_fail(MCF_ENOMEM, "out of memory for a Hamiltonian of dimension %zu and "
                        "width %d", sites * (size_t)orbitals, width);
    }
    for (size_t k = 0; k < n; k++)
        h->col[k] = -1;
    *out = h;
    return MCF_OK;
}

void mcf_hamiltonian_destroy(mcf_hamiltonian *h)
{
    if (!h)
        return;
    free(h->col);
    free(h->hop_re);
    free(h->hop_im);
    free(h->onsite);
    free(h);
}

/* slot of column j in row i, or of the first free slot (*free_slot), -1 if none */
static int find_slot(const mcf_hamiltonian *h, size_t i, size_t j, int *free_slot)
{
    *free_slot = -1;
    for (int k = 0; k < h->width; k++) {
        int32_t c = h->col[(size_t)k * h->dim + i];
        if (c == (int32_t)j)
            return k;
        if (c < 0 && *free_slot < 0)
            *free_slot = k;
    }
    return -1;
}

int mcf_hamiltonian_set(mcf_hamiltonian *h, size_t i, size_t j, double re, double im)
{
    if (i >= h->dim || j >= h->dim || i == j)
        return mcf_fail(MCF_EINVAL, "hamiltonian: entry (%zu, %zu) is not an off-diagonal "
                        "entry of a matrix of dimension %zu", i, j, h->dim);
    if (!isfinite(re) || !isfinite(im))
        return mcf_fail(MCF_EINVAL, "hamiltonian: entry (%zu, %zu) = %g%+gi is not finite", i,
                        j, re, im);
    int fi, fj;
    int ki = find_slot(h, i, j, &fi), kj = find_slot(h, j, i, &fj);
    if (ki < 0)
        ki = fi;
    if (kj < 0)
        kj = fj;
    if (ki < 0 || kj < 0)
        return mcf_fail(MCF_EINVAL, "hamiltonian: row %zu is full (width %d): no slot for "
                        "column %zu", ki < 0 ? i : j, h->width, ki < 0 ? j : i);
    size_t a = (size_t)ki * h->dim + i, b = (size_t)kj * h->dim + j;
    h->col[a] = (int32_t)j;
    h->hop_re[a] = re;
    h->hop_im[a] = im;
    h->col[b] = (int32_t)i;
    h->hop_re[b] = re;
    h->hop_im[b] = -im;
    h->version++;
    return MCF_OK;
}

int mcf_hamiltonian_set_onsite(mcf_hamiltonian *h, size_t r, double e)
{
    if (r >= h->dim)
        return mcf_fail(MCF_EINVAL, "hamiltonian: row %zu is beyond the dimension %zu", r,
                        h->dim);
    if (!isfinite(e))
        return mcf_fail(MCF_EINVAL, "hamiltonian: on-site energy %g of row %zu is not finite",
                        e, r);
    h->onsite[r] = e;
    h->version++;
    return MCF_OK;
}

int mcf_hamiltonian_fix_bounds(mcf_hamiltonian *h, double emin, double emax)
{
    if (!isfinite(emin) || !isfinite(emax) || !(emin < emax))
        return mcf_fail(MCF_EINVAL, "hamiltonian: bounds [%g, %g] must be finite with "
                        "emin < emax", emin, emax);
    h->fixed_bounds = 1;
    h->emin = emin;
    h->emax = emax;
    h->version++;
    return MCF_OK;
}

void mcf_hamiltonian_bounds(const mcf_hamiltonian *h, double *emin, double *emax)
{
    if (h->fixed_bounds) {
        *emin = h->emin;
        *emax = h->emax;
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t r = 0; r < h->dim; r++) {
        double radius = 0;
        for (int k = 0; k < h->width; k++) {
            size_t a = (size_t)k * h->dim + r;
            if (h->col[a] >= 0)
                radius += hypot(h->hop_re[a], h->hop_im[a]);
        }
        if (h->onsite[r] - radius < lo)
            lo = h->onsite[r] - radius;
        if (h->onsite[r] + radius > hi)
            hi = h->onsite[r] + radius;
    }
    *emin = lo;
    *emax = hi;
}

void mcf_hamiltonian_scaling(const mcf_hamiltonian *h, double margin, double *a, double *b)
{
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    *b = 0.5 * (hi + lo);
    *a = (hi - lo) / (2.0 - margin);
    if (!(*a > 0)) /* a spectrum of one point: any positive scale maps it to 0 */
        *a = fabs(*b) > 0 ? 1e-12 * fabs(*b) : 1e-12;
}

void mcf_hamiltonian_apply(const mcf_hamiltonian *h, const double *x_re, const double *x_im,
                           double alpha, double beta, double *y_re, double *y_im)
{
    for (size_t r = 0; r < h->dim; r++) {
        double sr = h->onsite[r] * x_re[r], si = h->onsite[r] * x_im[r];
        for (int k = 0; k < h->width; k++) {
            size_t a = (size_t)k * h->dim + r;
            int32_t c = h->col[a];
            if (c < 0)
                continue;
            sr += h->hop_re[a] * x_re[c] - h->hop_im[a] * x_im[c];
            si += h->hop_re[a] * x_im[c] + h->hop_im[a] * x_re[c];
        }
        y_re[r] = alpha * sr + beta * y_re[r];
        y_im[r] = alpha * si + beta * y_im[r];
    }
}

void mcf_hamiltonian_dense(const mcf_hamiltonian *h, double *out)
{
    memset(out, 0, 2 * h->dim * h->dim * sizeof *out);
    for (size_t r = 0; r < h->dim; r++) {
        out[2 * (r * h->dim + r)] = h->onsite[r];
        for (int k = 0; k < h->width; k++) {
            size_t a = (size_t)k * h->dim + r;
            int32_t c = h->col[a];
            if (c < 0)
                continue;
            out[2 * (r * h->dim + (size_t)c)] = h->hop_re[a];
            out[2 * (r * h->dim + (size_t)c) + 1] = h->hop_im[a];
        }
    }
}

int mcf_hamiltonian_check(const mcf_hamiltonian *h)
{
    for (size_t r = 0; r < h->dim; r++) {
        if (!isfinite(h->onsite[r]))
            return mcf_fail(MCF_EINVAL, "hamiltonian: row %zu: on-site energy is not finite", r);
        for (int k = 0; k < h->width; k++) {
            size_t a = (size_t)k * h->dim + r;
            int32_t c = h->col[a];
            if (c < 0)
                continue;
            if ((size_t)c >= h->dim || (size_t)c == r)
                return mcf_fail(MCF_EINVAL, "hamiltonian: row %zu slot %d has column %d", r, k,
                                (int)c);
            if (!isfinite(h->hop_re[a]) || !isfinite(h->hop_im[a]))
                return mcf_fail(MCF_EINVAL, "hamiltonian: entry (%zu, %d) is not finite", r,
                                (int)c);
            for (int q = 0; q < k; q++)
                if (h->col[(size_t)q * h->dim + r] == c)
                    return mcf_fail(MCF_EINVAL, "hamiltonian: row %zu holds column %d twice",
                                    r, (int)c);
            int fr, kr = find_slot(h, (size_t)c, r, &fr);
            if (kr < 0)
                return mcf_fail(MCF_EINVAL, "hamiltonian: entry (%zu, %d) has no partner "
                                "(%d, %zu)", r, (int)c, (int)c, r);
            size_t b = (size_t)kr * h->dim + (size_t)c;
            if (h->hop_re[b] != h->hop_re[a] || h->hop_im[b] != -h->hop_im[a])
                return mcf_fail(MCF_EINVAL, "hamiltonian: entries (%zu, %d) and (%d, %zu) are "
                                "not complex conjugates", r, (int)c, (int)c, r);
        }
    }
    return MCF_OK;
}
