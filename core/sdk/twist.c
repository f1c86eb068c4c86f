/* twist.c — twisted boundary conditions of the lattices (mcf/lattice.h): the twist key's
 * value, the grid of twist averaging, the phase of a bond, and the twisted nearest-neighbour
 * hopping (mcf/hamiltonian.h).  docs/methods.md, "Twisted boundaries". */
#include "mcf/error.h"
#include "mcf/hamiltonian.h"
#include "mcf/host.h"
#include "mcf/lattice.h"
#include "mcf/params.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TWIST_PI 3.14159265358979323846
#define TWIST_AVERAGE_MAX 64

/* the bcc half-diagonals of lattice.c, in units of 1/2 */
static const int bcc_dirs[4][3] = {{1, 1, 1}, {-1, 1, 1}, {1, -1, 1}, {1, 1, -1}};

int mcf_lattice_twist_dims(const mcf_lattice *lattice)
{
    return lattice ? lattice->dim : 0;
}

int mcf_twist_nonzero(const double *theta)
{
    return theta && (theta[0] != 0.0 || theta[1] != 0.0 || theta[2] != 0.0);
}

int mcf_twist_parse(const char *text, int dims, double theta[3], long *average)
{
    theta[0] = theta[1] = theta[2] = 0.0;
    *average = 0;
    if (dims < 1 || dims > 3)
        return mcf_fail(MCF_EINVAL, "a twist needs a lattice of 1 to 3 directions, not %d",
                        dims);
    const char *s = text ? text : "";
    while (isspace((unsigned char)*s))
        s++;
    if (strncmp(s, "average:", 8) == 0) {
        char *end;
        errno = 0;
        const long M = strtol(s + 8, &end, 10);
        while (isspace((unsigned char)*end))
            end++;
        if (end == s + 8 || *end || errno || M < 1 || M > TWIST_AVERAGE_MAX)
            return mcf_fail(MCF_EINVAL, "'%s' is no twist average; write average:M with M an "
                            "integer from 1 to %d (M^d twists per scan point)", text,
                            TWIST_AVERAGE_MAX);
        *average = M;
        return MCF_OK;
    }
    double v[3];
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        const double x = strtod(s, &end);
        if (end == s || errno || !isfinite(x) || n == 3)
            break;
        v[n++] = x;
        s = end;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == ',' && s[1]) /* "0.1, 0.2" from a caller; in an INI file a comma makes a
                                  list, so there the numbers are separated by spaces */
            s++;
        if (*s) /* the next number */
            continue;
        if (n == 1)
            v[1] = v[2] = v[0], n = dims; /* one number: every direction */
        if (n != dims)
            break;
        for (int d = 0; d < dims; d++)
            theta[d] = 2.0 * TWIST_PI * v[d];
        return MCF_OK;
    }
    return mcf_fail(MCF_EINVAL, "'%s' is no twist for a lattice of %d direction%s; write one "
                    "number (theta / 2 pi, the same along every direction, e.g. 0.25), %d "
                    "space-separated finite numbers (one per direction%s), or average:M",
                    text ? text : "", dims, dims > 1 ? "s" : "", dims,
                    dims == 3 ? ", e.g. 0.1 0.2 0.3" : dims == 2 ? ", e.g. 0.1 0.2" : "");
}

void mcf_twist_grid(long M, int dims, size_t j, double theta[3])
{
    theta[0] = theta[1] = theta[2] = 0.0;
    for (int d = 0; d < dims && M >= 1; d++, j /= (size_t)M)
        theta[d] = 2.0 * TWIST_PI * ((double)(j % (size_t)M) + 0.5) / (double)M;
}

int mcf_lattice_twist(const mcf_params *params, const char *model, const mcf_lattice *lattice,
                      double theta[3])
{
    theta[0] = theta[1] = theta[2] = 0.0;
    const char *text;
    int rc = mcf_params_string(params, "twist", &text);
    if (rc)
        return mcf_fail_prefix(rc, "%s: declare the twist with MCF_LATTICE_TWIST_PARAM", model);
    const char *sec = mcf_params_section(params), *where = mcf_params_where(params, "twist");
    const int dims = mcf_lattice_twist_dims(lattice);
    long M;
    if ((rc = mcf_twist_parse(text, dims, theta, &M)))
        return mcf_fail_prefix(rc, "%s: %s: [%s] twist = %s", model, where, sec, text);
    if ((M || mcf_twist_nonzero(theta)) && lattice->boundary != MCF_BOUNDARY_PERIODIC)
        return mcf_fail(MCF_EINVAL, "%s: %s: [%s] twist = %s with boundary = %s: a twist is a "
                        "phase on the bonds across the periodic boundary, and open boundaries "
                        "have none; set boundary = periodic, or twist = 0", model, where, sec,
                        text, mcf_boundary_name(lattice->boundary));
    if (!M)
        return MCF_OK;
    long walker, walkers;
    mcf_params_walker(params, &walker, &walkers);
    long twists = 1;
    for (int d = 0; d < dims; d++)
        twists *= M;
    if (!params->walkers) /* values made for no chain of a run (mcf band's chain 0): the
                             first twist of the grid, chain 0's */
        walker = 0, walkers = twists;
    if (walkers % twists)
        return mcf_fail(MCF_EINVAL, "%s: %s: [%s] twist = %s averages over %ld twists (M^%d), "
                        "one per walker, but a scan point has %ld walker%s; set [run] walkers "
                        "= %ld (or a multiple of it)", model, where, sec, text, twists, dims,
                        walkers, walkers == 1 ? "" : "s", twists);
    mcf_twist_grid(M, dims, (size_t)(walker % twists), theta);
    return MCF_OK;
}

void mcf_lattice_bond_phase(const mcf_lattice *lat, const double *theta, size_t i, int slot,
                            double *re, double *im)
{
    *re = 1.0;
    *im = 0.0;
    if (!lat || !mcf_twist_nonzero(theta) || lat->boundary != MCF_BOUNDARY_PERIODIC ||
        i >= lat->sites || slot < 0 || slot >= lat->coordination)
        return;
    const int32_t j = lat->neighbours[i * (size_t)lat->coordination + (size_t)slot];
    if (j < 0)
        return;
    const int k = slot / 2, sign = slot % 2 ? -1 : 1;
    double delta[3] = {0, 0, 0};
    if (lat->kind == MCF_LATTICE_BCC)
        for (int a = 0; a < 3; a++)
            delta[a] = 0.5 * sign * bcc_dirs[k][a];
    else
        delta[k] = sign;
    const double *ri = lat->positions + 3 * i, *rj = lat->positions + 3 * (size_t)j;
    double phi = 0.0;
    for (int a = 0; a < lat->dim; a++) {
        const double w = nearbyint((ri[a] + delta[a] - rj[a]) / (double)lat->L);
        if (w != 0.0)
            phi += w * theta[a];
    }
    if (phi != 0.0) {
        *re = cos(phi);
        *im = sin(phi);
    }
}

int mcf_hamiltonian_set_hopping_twisted(mcf_hamiltonian *h, const mcf_lattice *lat, double t,
                                        const double *theta)
{
    return mcf_hamiltonian_set_hopping_gauged(h, lat, t, theta, 0.0); /* field.c */
}
