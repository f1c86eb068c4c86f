/* FROZEN: the ABI-1 ed of mcf 0.6 (i43-layers-merge), for the up-adapter test; never edited. */
/* ed_spectra.c — the curves of the ed evaluator for one workspace: DOS, LDOS and Green's
 * functions (ed.c lists the sums), exact over the cached spectrum (ed_diagonalize.c) on the
 * energy grid (ed.c).
 *
 * Broadening.  g is the normalized Gaussian of width sigma = `broadening`,
 * g(x) = exp(-x^2 / (2 sigma^2)) / (sqrt(2 pi) sigma), and eta = sigma.  Note that
 * -Im G_rr / pi is therefore the *Lorentzian*-broadened LDOS (eta / pi) / ((E - eps)^2 +
 * eta^2), not the Gaussian-broadened curve ldos() returns: the two agree as sigma -> 0.
 * Gaussian terms with |E - eps_k| > 40 sigma are skipped: exp(-800) underflows to 0, so
 * the skip changes no bit. */
#include "ed_internal.h"

#include <math.h>
#include <stdlib.h>

#define ED_GAUSS_CUTOFF 40.0 /* in units of sigma */
#define ED_BLOCK 32          /* energies per kernel block in ldos() and green() */
#define ED_SQRT_2PI 2.50662827463100050242 /* sqrt(2 pi) */

static double ed_gauss(double x, double sigma)
{
    const double u = x / sigma;
    if (fabs(u) > ED_GAUSS_CUTOFF)
        return 0.0;
    return exp(-0.5 * u * u) / (ED_SQRT_2PI * sigma);
}

/* First index k with eval[k] >= x (eval ascending). */
static size_t ed_lower(const double *eval, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (eval[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int ed_dos_one(ed_ws *w, double *out)
{
    if (!out)
        return mcf_fail(MCF_EINVAL, "ed: dos: the output array is NULL");
    int rc = ed_diagonalize(w, 0);
    if (rc)
        return rc;
    ed_grid(w, w->grid);
    const size_t n = w->dim;
    const double cut = ED_GAUSS_CUTOFF * w->sigma, inv = 1.0 / (double)n;
    for (size_t e = 0; e < w->points; e++) {
        const double E = w->grid[e];
        double s = 0.0;
        for (size_t k = ed_lower(w->eval, n, E - cut); k < n && w->eval[k] <= E + cut; k++)
            s += ed_gauss(E - w->eval[k], w->sigma);
        out[e] = s * inv;
    }
    return MCF_OK;
}

static int ed_check_rows(const ed_ws *w, const size_t *rows, size_t n_rows, const char *op)
{
    if (n_rows && !rows)
        return mcf_fail(MCF_EINVAL, "ed: %s: %zu rows asked for but the row list is NULL", op,
                        n_rows);
    for (size_t j = 0; j < n_rows; j++)
        if (rows[j] >= w->dim)
            return mcf_fail(MCF_EINVAL,
                            "ed: %s: row %zu (entry %zu of the list) is out of range; rows run "
                            "from 0 to %zu",
                            op, rows[j], j, w->dim - 1);
    return MCF_OK;
}

/* LDOS (im == NULL: Gaussian) or Green's functions (re, im: Lorentzian) of the rows, by
 * blocks of ED_BLOCK energies: the kernel values for all levels of a block are computed
 * once and shared by all rows. */
int ed_rows_one(ed_ws *w, const size_t *rows, size_t n_rows, double *re, double *im)
{
    const int green = im != NULL;
    const char *op = green ? "green" : "ldos";
    int rc = ed_check_rows(w, rows, n_rows, op);
    if (rc)
        return rc;
    if (n_rows && !re)
        return mcf_fail(MCF_EINVAL, "ed: %s: the output array is NULL", op);
    if (!n_rows)
        return MCF_OK;
    if ((rc = ed_diagonalize(w, 1)))
        return rc;
    ed_grid(w, w->grid);
    const size_t n = w->dim, P = w->points;
    double *kr = malloc(ED_BLOCK * n * sizeof *kr);
    double *ki = green ? malloc(ED_BLOCK * n * sizeof *ki) : NULL;
    if (!kr || (green && !ki)) {
        free(kr);
        free(ki);
        return mcf_fail(MCF_ENOMEM, "ed: %s: out of memory for the kernel block", op);
    }
    const double eta = w->sigma, eta2 = eta * eta;
    for (size_t e0 = 0; e0 < P; e0 += ED_BLOCK) {
        const size_t nb = P - e0 < ED_BLOCK ? P - e0 : ED_BLOCK;
        for (size_t b = 0; b < nb; b++) {
            const double E = w->grid[e0 + b];
            double *kb = kr + b * n;
            if (green) {
                double *ib = ki + b * n;
                for (size_t k = 0; k < n; k++) {
                    const double x = E - w->eval[k], d = 1.0 / (x * x + eta2);
                    kb[k] = x * d;
                    ib[k] = -eta * d;
                }
            } else {
                for (size_t k = 0; k < n; k++)
                    kb[k] = ed_gauss(E - w->eval[k], w->sigma);
            }
        }
        for (size_t j = 0; j < n_rows; j++) {
            const double *wt = w->weight + rows[j] * n;
            for (size_t b = 0; b < nb; b++) {
                const double *kb = kr + b * n;
                double s = 0.0;
                for (size_t k = 0; k < n; k++)
                    s += wt[k] * kb[k];
                re[j * P + e0 + b] = s;
                if (green) {
                    const double *ib = ki + b * n;
                    double t = 0.0;
                    for (size_t k = 0; k < n; k++)
                        t += wt[k] * ib[k];
                    im[j * P + e0 + b] = t;
                }
            }
        }
    }
    free(kr);
    free(ki);
    return MCF_OK;
}
