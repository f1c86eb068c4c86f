/* current.c — the current operator J_a = i [H, X_a] of a lattice Hamiltonian (mcf/response.h):
 * (J_a)_rc = i d_rc H_rc with d_rc the shortest displacement from row r's site to row c's
 * along axis a. */
#include "mcf/response.h"

#include <math.h>
#include <string.h>

#include "mcf/error.h"

/* the axis' component of the displacement from site i to site j, the shortest image along
 * a periodic axis; NAN when two images are equally short */
static double displacement(const mcf_lattice *lat, size_t i, size_t j, int axis)
{
    double d = lat->positions[3 * j + (size_t)axis] - lat->positions[3 * i + (size_t)axis];
    if (lat->boundary == MCF_BOUNDARY_PERIODIC) {
        const double L = (double)lat->L;
        d -= L * floor(d / L + 0.5);
        if (fabs(fabs(d) - 0.5 * L) < 1e-9)
            return NAN;
    }
    return d;
}

static int check(const mcf_hamiltonian *h, const mcf_lattice *lat, int axis, const char *what)
{
    if (!h || !lat || !lat->positions)
        return mcf_fail(MCF_EINVAL, "%s: no Hamiltonian or lattice", what);
    if (axis < 0 || axis >= lat->dim)
        return mcf_fail(MCF_EINVAL, "%s: axis %d outside the %s lattice's %d dimension%s", what,
                        axis, mcf_lattice_kind_name(lat->kind), lat->dim,
                        lat->dim == 1 ? "" : "s");
    if (h->sites != lat->sites)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian has %zu sites, the lattice %zu", what,
                        h->sites, lat->sites);
    if (lat->boundary == MCF_BOUNDARY_PERIODIC && lat->L < 3)
        return mcf_fail(MCF_EINVAL, "%s: a periodic lattice of L = %ld has two bonds between "
                        "neighbours in opposite directions, so a bond's displacement is "
                        "ambiguous: take L >= 3", what, lat->L);
    return MCF_OK;
}

static int fill(mcf_hamiltonian *J, const mcf_hamiltonian *h, const mcf_lattice *lat, int axis,
                const char *what)
{
    const size_t dim = h->dim, orb = (size_t)h->orbitals;
    for (int k = 0; k < h->width; k++)
        for (size_t r = 0; r < dim; r++) {
            const size_t s = (size_t)k * dim + r;
            const int32_t c = h->col[s];
            J->col[s] = c;
            J->hop_re[s] = 0.0;
            J->hop_im[s] = 0.0;
            if (c < 0)
                continue;
            const double d = displacement(lat, r / orb, (size_t)c / orb, axis);
            if (isnan(d))
                return mcf_fail(MCF_EINVAL, "%s: the entry (%zu, %d) joins sites half the "
                                "box apart along axis %d: its displacement is ambiguous", what,
                                r, c, axis);
            /* i d (re + i im) = -d im + i d re; d = 0 (an entry within a site) gives 0 */
            J->hop_re[s] = d == 0.0 ? 0.0 : -d * h->hop_im[s];
            J->hop_im[s] = d == 0.0 ? 0.0 : d * h->hop_re[s];
        }
    memset(J->onsite, 0, dim * sizeof *J->onsite);
    mcf_hamiltonian_touch_all(J);
    return MCF_OK;
}

int mcf_current_operator(const mcf_hamiltonian *h, const mcf_lattice *lattice, int axis,
                         mcf_hamiltonian **out)
{
    const char *what = "current operator";
    if (!out)
        return mcf_fail(MCF_EINVAL, "%s: no output", what);
    *out = NULL;
    int rc = check(h, lattice, axis, what);
    mcf_hamiltonian *J = NULL;
    if (!rc)
        rc = mcf_hamiltonian_create(h->sites, h->orbitals, h->width, &J);
    if (!rc)
        rc = fill(J, h, lattice, axis, what);
    if (rc) {
        mcf_hamiltonian_destroy(J);
        return rc;
    }
    *out = J;
    return MCF_OK;
}

int mcf_current_operator_update(mcf_hamiltonian *J, const mcf_hamiltonian *h,
                                const mcf_lattice *lattice, int axis)
{
    const char *what = "current operator update";
    int rc = check(h, lattice, axis, what);
    if (rc)
        return rc;
    if (!J || J->dim != h->dim || J->width != h->width || J->orbitals != h->orbitals)
        return mcf_fail(MCF_EINVAL, "%s: the operator was made for another Hamiltonian", what);
    return fill(J, h, lattice, axis, what);
}
