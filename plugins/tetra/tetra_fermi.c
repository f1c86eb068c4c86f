/* tetra_fermi.c — the Fermi level of a filling (tetra.h, tetra_fermi_search), for any
 * integrator of the number of states N(E): the CPU grid of tetra_dos.c and the GPU grid of
 * cuda/tetra-cuda give their N(E) and rho(E) as callbacks and share this search.
 *
 * Inside a band N(E) is continuous and increasing: the crossing N(E) = q is found by regula
 * falsi with the Illinois modification, and it is the Fermi level where rho > 0 there.  In
 * a gap (or at the bottom or the top) N is flat at q: the Fermi level is the middle of the
 * energies where N = q within the resolution of N, each end found by bisection. */
#include "tetra.h"

#include "mcf/error.h"

#include <float.h>
#include <math.h>

/* the least E with N(E) > target (above = 1) or the largest with N(E) < target (above = 0),
 * by bisection in [lo, hi] to tol */
static int bisect(const tetra_counter *c, double target, int above, double lo, double hi,
                  double tol, double *out)
{
    while (hi - lo > tol) {
        const double mid = 0.5 * (lo + hi);
        double ne;
        const int rc = c->count(c->ctx, mid, &ne);
        if (rc)
            return rc;
        if (above ? ne > target : ne >= target)
            hi = mid;
        else
            lo = mid;
    }
    *out = above ? hi : lo;
    return MCF_OK;
}

/* where N(E) = target inside a band, N continuous and nondecreasing on [lo, hi] with
 * N(lo) < target < N(hi): regula falsi with the Illinois modification (the end that stays
 * twice loses half its weight), superlinear on the smooth pieces of N, where bisection
 * needs ~45 sums over every tetrahedron; a step that does not halve the bracket twice in a
 * row is replaced by the midpoint.  Ends when the bracket is below tol or N meets the target
 * to rounding. */
static int crossing(const tetra_counter *c, double target, double lo, double hi, double tol,
                    double *out)
{
    const double ftol = 8.0 * DBL_EPSILON * c->bands;
    double ne, flo, fhi;
    int rc;
    if ((rc = c->count(c->ctx, lo, &ne)))
        return rc;
    flo = ne - target;
    if ((rc = c->count(c->ctx, hi, &ne)))
        return rc;
    fhi = ne - target;
    int side = 0, slow = 0;
    for (int it = 0; it < 200 && hi - lo > tol; it++) {
        const double width = hi - lo;
        double x = 0.5 * (lo + hi);
        if (slow < 2 && flo < 0.0 && fhi > 0.0) {
            const double y = lo - flo * (hi - lo) / (fhi - flo);
            if (y > lo && y < hi)
                x = y;
        }
        if ((rc = c->count(c->ctx, x, &ne)))
            return rc;
        const double f = ne - target;
        if (fabs(f) <= ftol) {
            *out = x; /* N meets the target to rounding */
            return MCF_OK;
        }
        if (f > 0.0) {
            hi = x;
            fhi = f;
            if (side == 1)
                flo *= 0.5;
            side = 1;
        } else {
            lo = x;
            flo = f;
            if (side == -1)
                fhi *= 0.5;
            side = -1;
        }
        slow = hi - lo > 0.5 * width ? slow + 1 : 0;
    }
    *out = 0.5 * (lo + hi);
    return MCF_OK;
}

int tetra_fermi_search(const tetra_counter *c, double electrons_per_cell, double *E_F)
{
    const double q = electrons_per_cell, top = c->bands;
    if (!(q >= 0.0 && q <= top))
        return mcf_fail(MCF_EINVAL, "tetra: %g electrons per cell cannot be placed in %g "
                        "bands; give 0 to %g", q, top, top);
    const double width = c->emax - c->emin, tol = 1e-13 * fmax(width, 1e-300);
    const double delta = 1e-12 * top; /* the resolution of N(E) that we trust */
    int rc;
    /* where N crosses q; inside a band (rho > 0 there) that is the Fermi level */
    if (q > delta && q < top - delta) {
        double x, rho;
        if ((rc = crossing(c, q, c->emin, c->emax, tol, &x)) ||
            (rc = c->density(c->ctx, x, &rho)))
            return rc;
        if (rho > 1e-9 * top / fmax(width, 1e-300)) {
            *E_F = x;
            return MCF_OK;
        }
    }
    /* in a gap (or at the bottom or top): the middle of the energies where N = q within
     * delta.  E_lo: the largest E with N(E) < q - delta; E_hi: the least with N(E) > q +
     * delta */
    double lo = c->emin, hi = c->emax;
    if (q - delta > 0.0 && (rc = bisect(c, q - delta, 0, c->emin, c->emax, tol, &lo)))
        return rc;
    if (q + delta < top && (rc = bisect(c, q + delta, 1, lo, c->emax, tol, &hi)))
        return rc;
    *E_F = 0.5 * (lo + hi);
    return MCF_OK;
}
