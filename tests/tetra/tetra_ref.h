/* tetra_ref.h — exact references for the tetrahedron tests (test_tetra.c): the density of
 * states of the simple cubic lattice with nearest-neighbour hopping -1 (band [-6, 6]) by
 * quadrature of elliptic integrals, its integrals, and the crystals as mcf_periodic.
 *
 *   rho_sq(e) = K(sqrt(1 - e^2/16)) / (2 pi^2)             |e| < 4 (square lattice)
 *   rho_sc(E) = (1/pi) int_0^pi rho_sq(E + 2 cos q) dq      (cubic: a square lattice per
 *                                                            k_z, shifted by -2 cos k_z)
 *
 * K is GSL's gsl_sf_ellint_Kcomp (modulus, GSL_PREC_DOUBLE).  The integrand has a
 * logarithmic singularity where E + 2 cos q = 0 and jumps where E + 2 cos q = +-4; those
 * q are break points of GSL's qagp, which handles the integrable singularity by
 * extrapolation.  N_sc(E) and the band energy are outer qagp integrals of rho_sc with the
 * van Hove points -2, 2 as break points.
 *
 * A closed form of rho_sc(0) exists (G. S. Joyce, J. Phys. A 5 (1972) L65: a product of
 * complete elliptic integrals at a singular modulus), but we could not find its exact
 * statement in a source we trust, so the quadrature stands alone; its value, 0.1426730,
 * is printed as a sanity check only. */
#ifndef MCF_TEST_TETRA_REF_H
#define MCF_TEST_TETRA_REF_H

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_ellint.h>

#include "mcf/periodic.h"

static const double ref_pi = 3.14159265358979323846;

#define REF_LIMIT 2000

static double rho_sq(double e)
{
    const double q = e / 4.0;
    if (!(fabs(q) < 1.0) || e == 0.0) /* outside the band; e = 0 has measure zero */
        return 0.0;
    return gsl_sf_ellint_Kcomp(sqrt(1.0 - q * q), GSL_PREC_DOUBLE) / (2.0 * ref_pi * ref_pi);
}

static double sc_integrand(double q, void *par)
{
    return rho_sq(*(const double *)par + 2.0 * cos(q)) / ref_pi;
}

static double rho_sc(double E)
{
    if (!(fabs(E) < 6.0))
        return 0.0;
    double pts[5] = {0.0}, x[3] = {-E / 2.0, (-4.0 - E) / 2.0, (4.0 - E) / 2.0};
    size_t np = 1;
    for (int i = 0; i < 3; i++) /* break points acos(x) inside (0, pi), ascending */
        if (fabs(x[i]) < 1.0)
            pts[np++] = acos(x[i]);
    for (size_t i = 1; i < np; i++)
        for (size_t j = i; j > 1 && pts[j] < pts[j - 1]; j--) {
            const double t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    pts[np++] = ref_pi;
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(REF_LIMIT);
    gsl_function f = {sc_integrand, &E};
    double r = 0.0, err = 0.0;
    gsl_integration_qagp(&f, pts, np, 1e-14, 1e-12, REF_LIMIT, w, &r, &err);
    gsl_integration_workspace_free(w);
    return r;
}

typedef struct moment_par {
    int power; /* 0: rho, 1: E rho */
} moment_par;

static double sc_moment_integrand(double E, void *par)
{
    const moment_par *m = par;
    return (m->power ? E : 1.0) * rho_sc(E);
}

/* int_{-6}^{E} E'^power rho_sc(E') dE' */
static double sc_moment_below(double E, int power)
{
    if (E <= -6.0)
        return 0.0;
    const double top = fmin(E, 6.0);
    double pts[4] = {-6.0};
    size_t np = 1;
    if (top > -2.0)
        pts[np++] = -2.0;
    if (top > 2.0)
        pts[np++] = 2.0;
    pts[np++] = top;
    moment_par m = {power};
    gsl_function f = {sc_moment_integrand, &m};
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(REF_LIMIT);
    double r = 0.0, err = 0.0;
    gsl_integration_qagp(&f, pts, np, 1e-13, 1e-11, REF_LIMIT, w, &r, &err);
    gsl_integration_workspace_free(w);
    return r;
}

/* ---- crystals ------------------------------------------------------------------------ */

/* simple cubic, one orbital, hopping -1 to the 6 neighbours */
static mcf_cell_hopping sc_hops[6];
static mcf_periodic sc_crystal(void)
{
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            mcf_cell_hopping *h = &sc_hops[2 * d + s];
            *h = (mcf_cell_hopping){{0, 0, 0}, 0, 0, -1.0, 0.0};
            h->R[d] = s ? -1 : 1;
        }
    return (mcf_periodic){3, 1, 1, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 6, sc_hops};
}

/* the same lattice as an L x L x L supercell: site x + L (y + L z), the torus hoppings;
 * hops must hold 6 L^3 terms */
static mcf_periodic sc_supercell(int L, mcf_cell_hopping *hops)
{
    size_t h = 0;
    for (int z = 0; z < L; z++)
        for (int y = 0; y < L; y++)
            for (int x = 0; x < L; x++) {
                const int r[3] = {x, y, z};
                for (int d = 0; d < 3; d++)
                    for (int s = -1; s <= 1; s += 2) {
                        int q[3] = {r[0], r[1], r[2]}, R[3] = {0, 0, 0};
                        q[d] += s;
                        if (q[d] < 0 || q[d] >= L) { /* wraps into the next cell */
                            R[d] = q[d] < 0 ? -1 : 1;
                            q[d] = (q[d] + L) % L;
                        }
                        hops[h++] = (mcf_cell_hopping){{R[0], R[1], R[2]},
                                                       (uint32_t)(q[0] + L * (q[1] + L * q[2])),
                                                       (uint32_t)(x + L * (y + L * z)), -1.0,
                                                       0.0};
                    }
            }
    const double a = (double)L;
    return (mcf_periodic){3, (uint32_t)(L * L * L), (uint32_t)(L * L * L),
                          {{a, 0, 0}, {0, a, 0}, {0, 0, a}}, h, hops};
}

/* The checkerboard CDW on the cubic lattice: fcc primitive vectors (1,1,0), (1,0,1),
 * (0,1,1); orbital 0 (site A, at the origin, on-site +delta) and orbital 1 (site B at
 * (1,0,0), -delta).  Each A site hops (-1) to its 6 neighbours r + d, all B sites: the
 * B site of the cell at r + d - (1,0,0), whose lattice coordinates n solve
 * n1 (1,1,0) + n2 (1,0,1) + n3 (0,1,1) = v: n1 = (vx+vy-vz)/2, n2 = (vx-vy+vz)/2,
 * n3 = (-vx+vy+vz)/2.  hops must hold 14 terms. */
static mcf_periodic cdw_crystal(double delta, mcf_cell_hopping *hops)
{
    size_t h = 0;
    hops[h++] = (mcf_cell_hopping){{0, 0, 0}, 0, 0, delta, 0.0};
    hops[h++] = (mcf_cell_hopping){{0, 0, 0}, 1, 1, -delta, 0.0};
    for (int d = 0; d < 3; d++)
        for (int s = -1; s <= 1; s += 2) {
            int v[3] = {0, 0, 0};
            v[d] = s;
            v[0] -= 1; /* r + d - (1,0,0), r = 0 */
            const int32_t n1 = (v[0] + v[1] - v[2]) / 2, n2 = (v[0] - v[1] + v[2]) / 2;
            const int32_t n3 = (-v[0] + v[1] + v[2]) / 2;
            hops[h++] = (mcf_cell_hopping){{n1, n2, n3}, 1, 0, -1.0, 0.0};
            hops[h++] = (mcf_cell_hopping){{-n1, -n2, -n3}, 0, 1, -1.0, 0.0};
        }
    return (mcf_periodic){3, 2, 2, {{1, 1, 0}, {1, 0, 1}, {0, 1, 1}}, h, hops};
}

#endif
