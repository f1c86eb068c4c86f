/* orbital.c — checks of a plane-wave orbital description (mcf/orbital.h).  No physics
 * beyond the definition of the plane waves. */
#include "mcf/error.h"
#include "mcf/orbital.h"

#include <math.h>
#include <stdlib.h>

int mcf_pw_orbitals_check(const mcf_pw_orbitals *o)
{
    if (!o)
        return mcf_fail(MCF_EINVAL, "orbitals: NULL description");
    for (int d = 0; d < 3; d++)
        if (!(o->cell[d] > 0) || !isfinite(o->cell[d]))
            return mcf_fail(MCF_EINVAL, "orbitals: cell length %d is %g; it must be finite and "
                            "> 0", d, o->cell[d]);
    if (o->n_orbitals < 1 || o->n_g < 1 || !o->g || !o->cos_coef || !o->sin_coef)
        return mcf_fail(MCF_EINVAL, "orbitals: %zu orbitals of %zu plane waves (both must be "
                        ">= 1, with the G list and both coefficient tables)", o->n_orbitals,
                        o->n_g);
    for (size_t i = 0; i < o->n_g; i++)
        for (size_t j = 0; j < i; j++)
            if (o->g[3 * i] == o->g[3 * j] && o->g[3 * i + 1] == o->g[3 * j + 1] &&
                o->g[3 * i + 2] == o->g[3 * j + 2])
                return mcf_fail(MCF_EINVAL, "orbitals: plane wave G = (%d, %d, %d) is listed "
                                "twice (entries %zu and %zu)", (int)o->g[3 * i],
                                (int)o->g[3 * i + 1], (int)o->g[3 * i + 2], j, i);
    for (size_t k = 0; k < o->n_orbitals * o->n_g; k++)
        if (!isfinite(o->cos_coef[k]) || !isfinite(o->sin_coef[k]))
            return mcf_fail(MCF_EINVAL, "orbitals: coefficient of orbital %zu, plane wave %zu "
                            "is not finite", k / o->n_g, k % o->n_g);
    return MCF_OK;
}

double mcf_pw_orbitals_gmax2(const mcf_pw_orbitals *o)
{
    const double two_pi = 6.28318530717958647692;
    double gmax2 = 0;
    for (size_t i = 0; i < o->n_g; i++) {
        int used = 0;
        for (size_t l = 0; l < o->n_orbitals && !used; l++)
            used = o->cos_coef[l * o->n_g + i] != 0.0 || o->sin_coef[l * o->n_g + i] != 0.0;
        if (!used)
            continue;
        double g2 = 0;
        for (int d = 0; d < 3; d++) {
            const double gd = two_pi * (double)o->g[3 * i + d] / o->cell[d];
            g2 += gd * gd;
        }
        if (g2 > gmax2)
            gmax2 = g2;
    }
    return gmax2;
}

int mcf_orbital_batch_check(const char *who, const char *op, void *const *ws, size_t n,
                            const double *const *r, const size_t *n_points,
                            double *const *phi, double *const *grad, double *const *lap,
                            int want_gl, size_t **off, size_t *total)
{
    *off = NULL;
    *total = 0;
    if (n == 0)
        return MCF_OK;
    if (!ws || !r || !n_points || !phi || (want_gl && (!grad || !lap)))
        return mcf_fail(MCF_EINVAL, "%s: %s: NULL %s array for a batch of %zu "
                        "workspaces; pass one entry per workspace", who, op,
                        !ws ? "workspace" : !r ? "position" : !n_points ? "n_points" :
                        !phi ? "phi" : !grad ? "grad" : "lap", n);
    size_t *o = malloc((n + 1) * sizeof *o);
    if (!o)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory", who);
    o[0] = 0;
    for (size_t k = 0; k < n; k++) {
        const char *what = !ws[k] ? "workspace" : NULL;
        if (!what && n_points[k] > 0)
            what = !r[k] ? "position array" : !phi[k] ? "phi array" :
                   want_gl && !grad[k] ? "grad array" : want_gl && !lap[k] ? "lap array" : NULL;
        if (what) {
            free(o);
            return mcf_fail(MCF_EINVAL, "%s: %s: the %s of workspace %zu (of %zu, with "
                            "%zu points) is NULL; create the workspace and pass arrays of "
                            "n_points x L entries", who, op, what, k, n, n_points[k]);
        }
        for (size_t p = 0; p < 3 * n_points[k]; p++)
            if (!isfinite(r[k][p])) {
                free(o);
                return mcf_fail(MCF_EINVAL, "%s: %s: coordinate %zu of point %zu of "
                                "workspace %zu is %g; positions must be finite", who, op, p % 3,
                                p / 3, k, r[k][p]);
            }
        o[k + 1] = o[k] + n_points[k];
    }
    *off = o;
    *total = o[n];
    return MCF_OK;
}

size_t mcf_orbital_batch_owner(const size_t *off, size_t n, size_t q)
{
    size_t lo = 0, hi = n; /* off[lo] <= q < off[hi] */
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= q)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
