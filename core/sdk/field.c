/* field.c — a uniform magnetic field on a lattice by Peierls phases (mcf/lattice.h, mcf 1.2):
 * the flux per plaquette read from a model's parameters, the phase of a bond, and hoppings
 * with the field and a twist together (mcf_hamiltonian_set_hopping_twisted is this with no
 * field). */
#include "mcf/hamiltonian.h"
#include "mcf/lattice.h"

#include <math.h>

#include "mcf/error.h"

static const double field_pi = 3.14159265358979323846;

int mcf_lattice_flux(const mcf_params *params, const char *model, const mcf_lattice *lattice,
                     double *phi)
{
    *phi = 0.0;
    int rc = mcf_params_real(params, "flux", phi);
    if (rc)
        return mcf_fail_prefix(rc, "%s: declare the field with MCF_LATTICE_FLUX_PARAM", model);
    if (*phi == 0.0)
        return MCF_OK;
    const char *sec = mcf_params_section(params), *where = mcf_params_where(params, "flux");
    if (lattice->kind != MCF_LATTICE_SQUARE && lattice->kind != MCF_LATTICE_CUBIC)
        return mcf_fail(MCF_EINVAL, "%s: %s: [%s] flux = %g on the %s lattice: the field is "
                        "written for the square and simple cubic lattices (plaquettes of the "
                        "xy plane); set flux = 0", model, where, sec, *phi,
                        mcf_lattice_kind_name(lattice->kind));
    const double q = *phi * (double)lattice->L;
    if (lattice->boundary == MCF_BOUNDARY_PERIODIC && fabs(q - nearbyint(q)) > 1e-9)
        return mcf_fail(MCF_EINVAL, "%s: %s: [%s] flux = %.15g with L = %ld: on the torus "
                        "flux x L must be a whole number of flux quanta (the Landau gauge "
                        "closes around x only then); take flux = n / %ld, or boundary = open",
                        model, where, sec, *phi, lattice->L, lattice->L);
    return MCF_OK;
}

void mcf_lattice_field_phase(const mcf_lattice *lat, double phi, size_t i, int slot, double *re,
                             double *im)
{
    *re = 1.0;
    *im = 0.0;
    if (!lat || phi == 0.0 || i >= lat->sites || slot < 0 || slot >= lat->coordination ||
        (lat->kind != MCF_LATTICE_SQUARE && lat->kind != MCF_LATTICE_CUBIC))
        return;
    const int32_t j = lat->neighbours[i * (size_t)lat->coordination + (size_t)slot];
    if (j < 0 || slot / 2 != 1) /* only the y bonds (slots 2, 3) carry the Landau gauge */
        return;
    const double dy = slot == 2 ? 1.0 : -1.0; /* y_j - y_i along the slot's direction */
    const double a = 2.0 * field_pi * phi * lat->positions[3 * i] * dy;
    if (a != 0.0) {
        *re = cos(a);
        *im = sin(a);
    }
}

int mcf_hamiltonian_set_hopping_gauged(mcf_hamiltonian *h, const mcf_lattice *lat, double t,
                                       const double *theta, double phi)
{
    if (phi == 0.0 && !mcf_twist_nonzero(theta))
        return mcf_hamiltonian_set_hopping(h, lat, t);
    const char *what = phi == 0.0 ? "set_hopping_twisted" : "set_hopping_gauged";
    if (!h || !lat || lat->sites != h->sites)
        return mcf_fail(MCF_EINVAL, "hamiltonian: %s needs a lattice of the Hamiltonian's %zu "
                        "sites", what, h ? h->sites : (size_t)0);
    if (lat->boundary == MCF_BOUNDARY_PERIODIC && lat->L < 3 && lat->kind != MCF_LATTICE_BCC)
        return mcf_fail(MCF_EINVAL, "hamiltonian: %s on a periodic L = %ld lattice, whose table "
                        "lists a neighbour twice; use L >= 3", what, lat->L);
    const size_t z = (size_t)lat->coordination, orb = (size_t)h->orbitals;
    for (size_t i = 0; i < lat->sites; i++)
        for (size_t s = 0; s < z; s += 2) { /* even slots: every bond once */
            const int32_t j = lat->neighbours[i * z + s];
            if (j < 0)
                continue;
            double c1, s1, c2, s2;
            mcf_lattice_bond_phase(lat, theta, i, (int)s, &c1, &s1);
            mcf_lattice_field_phase(lat, phi, i, (int)s, &c2, &s2);
            /* no field: exactly the twist's phase (c2 = 1, s2 = 0) */
            const double c = phi == 0.0 ? c1 : c1 * c2 - s1 * s2;
            const double sn = phi == 0.0 ? s1 : s1 * c2 + c1 * s2;
            const double re = -t * c, im = sn != 0.0 ? -t * sn : 0.0;
            for (size_t o = 0; o < orb; o++) {
                const int rc = mcf_hamiltonian_set(h, i * orb + o, (size_t)j * orb + o, re, im);
                if (rc)
                    return rc;
            }
        }
    return MCF_OK;
}
