/* hamiltonian_factors.c — hoppings factorized over a field on the sites
 * (mcf/hamiltonian_factors.h): the declaration and the field's changes.  The form's data
 * and the check that the table still follows the field are hamiltonian.c's (the table's
 * destroy and check see them there).
 *
 * Choices made here, beyond the header:
 *   - factorize() copies the lattice's neighbour table, so the model may drop its lattice;
 *     the field starts as e_0 (component 0 = 1, the rest 0) on every site, so that the
 *     table's entries start as the amplitude, whatever the rank.
 *   - set_field() writes the site's bonds in slot order, each through the table's own
 *     write (the change journal records both rows of each bond): the same rows and
 *     versions as the model's own z set() calls would give.  A refused call (a bad
 *     component) writes nothing. */
#include "mcf/hamiltonian_factors.h"
#include "mcf/error.h"

#include "hamiltonian_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mcf_hamiltonian_factorize(mcf_hamiltonian *h, const mcf_lattice *lat, double amplitude,
                              int rank)
{
    const char *who = "mcf_hamiltonian_factorize";
    if (!h || !lat)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian or the lattice is NULL", who);
    if (h->factors)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian is factorized already", who);
    if (h->orbitals != 1)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian has %d orbitals per site; factorized "
                        "hoppings need one (write the table with mcf_hamiltonian_set)", who,
                        h->orbitals);
    if (rank < 0 || rank > MCF_FACTORS_RANK_MAX)
        return mcf_fail(MCF_EINVAL, "%s: rank %d; a field has 0 to %d components", who, rank,
                        MCF_FACTORS_RANK_MAX);
    if (!isfinite(amplitude))
        return mcf_fail(MCF_EINVAL, "%s: the amplitude %g is not finite", who, amplitude);
    if (lat->sites != h->sites)
        return mcf_fail(MCF_EINVAL, "%s: the lattice has %zu sites, the Hamiltonian %zu", who,
                        lat->sites, h->sites);
    const int z = lat->coordination;
    if (h->width < z)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian's width %d is below the lattice's "
                        "coordination %d; create it with width >= %d", who, h->width, z, z);
    if (lat->boundary == MCF_BOUNDARY_PERIODIC && lat->L < 3 && lat->kind != MCF_LATTICE_BCC)
        return mcf_fail(MCF_EINVAL, "%s: a periodic L = %ld %s lattice lists a neighbour "
                        "twice (two bonds between one pair); use L >= 3 or open boundaries, "
                        "or write the table with mcf_hamiltonian_set", who, lat->L,
                        mcf_lattice_kind_name(lat->kind));
    const size_t slots = (size_t)h->width * h->dim;
    for (size_t s = 0; s < slots; s++)
        if (h->col[s] != -1)
            return mcf_fail(MCF_EINVAL, "%s: row %zu already holds a hopping; factorize "
                            "before writing any (right after mcf_hamiltonian_create)", who,
                            s % h->dim);
    struct mcf_hamiltonian_factors *f = calloc(1, sizeof *f);
    int32_t *nb = malloc(h->sites * (size_t)z * sizeof *nb);
    double *field = rank ? calloc(2 * (size_t)rank * h->sites, sizeof *field) : NULL;
    if (!f || !nb || (rank && !field)) {
        free(f);
        free(nb);
        free(field);
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for %zu sites", who, h->sites);
    }
    memcpy(nb, lat->neighbours, h->sites * (size_t)z * sizeof *nb);
    for (size_t i = 0; i < h->sites && rank; i++)
        field[2 * (size_t)rank * i] = 1.0;
    f->rank = rank;
    f->amplitude = amplitude;
    f->kind = lat->kind;
    f->boundary = lat->boundary;
    f->L = lat->L;
    f->coordination = z;
    f->neighbours = nb;
    f->field = field;
    /* slot k of row i = neighbour k: written directly (both rows of a bond at the slots of
     * the two opposite directions), then the whole table announced as changed */
    for (size_t i = 0; i < h->sites; i++)
        for (int k = 0; k < z; k++) {
            const int32_t j = nb[i * (size_t)z + (size_t)k];
            if (j < 0)
                continue;
            const size_t s = (size_t)k * h->dim + i;
            h->col[s] = j;
            h->hop_re[s] = amplitude;
            h->hop_im[s] = 0.0;
        }
    h->factors = f;
    mcf_hamiltonian_touch_all(h);
    return MCF_OK;
}

int mcf_hamiltonian_set_field(mcf_hamiltonian *h, size_t site, const double *a)
{
    const char *who = "mcf_hamiltonian_set_field";
    if (!h || !h->factors)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian has no factorized hoppings "
                        "(mcf_hamiltonian_factorize)", who);
    const struct mcf_hamiltonian_factors *f = h->factors;
    const int rank = f->rank;
    if (rank == 0)
        return mcf_fail(MCF_EINVAL, "%s: the hoppings were factorized with rank 0 (a uniform "
                        "hopping): there is no field to set", who);
    if (site >= h->sites)
        return mcf_fail(MCF_EINVAL, "%s: site %zu is out of range (0 to %zu)", who, site,
                        h->sites - 1);
    for (int c = 0; c < 2 * rank; c++)
        if (!isfinite(a[c]))
            return mcf_fail(MCF_EINVAL, "%s: site %zu: component %d (%s part) = %g is not "
                            "finite", who, site, c / 2, c % 2 ? "imaginary" : "real", a[c]);
    double *mine = (double *)f->field + 2 * (size_t)rank * site;
    memcpy(mine, a, 2 * (size_t)rank * sizeof *mine);
    const int z = f->coordination;
    for (int k = 0; k < z; k++) {
        const int32_t j = f->neighbours[site * (size_t)z + (size_t)k];
        if (j < 0)
            continue;
        double re, im;
        mcf_factors_hop(rank, f->amplitude, mine, f->field + 2 * (size_t)rank * (size_t)j,
                        &re, &im);
        const int rc = mcfi_hamiltonian_put(h, site, (size_t)j, re, im);
        if (rc)
            return rc; /* cannot happen: the pair's slots exist */
    }
    return MCF_OK;
}
