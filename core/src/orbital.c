/* orbital.c — checks of a plane-wave orbital description (mcf/orbital.h).  No physics
 * beyond the definition of the plane waves. */
#include "mcf/error.h"
#include "mcf/orbital.h"

#include <math.h>

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
