/* lattice.c — chain, square, cubic and bcc lattices with neighbour tables (mcf/lattice.h).
 *
 * Simple lattices (chain, square, cubic): site (x, y, z) has number x + L (y + L z) and
 * position (x, y, z); neighbour slot 2k is +e_k, slot 2k+1 is -e_k (k = 0: x, 1: y, 2: z).
 *
 * bcc: cell (x, y, z) holds site 2 c (corner, position (x, y, z)) and site 2 c + 1 (body
 * centre, position (x + 1/2, y + 1/2, z + 1/2)), c = x + L (y + L z).  The eight nearest
 * neighbours lie at (+-1/2, +-1/2, +-1/2); slot 2k is +d_k and slot 2k+1 is -d_k with
 *   d_0 = ( 1,  1,  1)/2,  d_1 = (-1,  1,  1)/2,  d_2 = ( 1, -1,  1)/2,  d_3 = ( 1,  1, -1)/2.
 * A corner's neighbours are body centres and vice versa.
 *
 * The public struct has const pointers; the arrays are owned by a private wrapper whose
 * first member is the public struct, so mcf_lattice_destroy() can recover it. */
#include "mcf/lattice.h"

#include "mcf/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct lattice_owner {
    mcf_lattice pub; /* must stay first */
    int32_t *neighbours;
    double *positions;
} lattice_owner;

/* The bcc half-diagonals d_k in units of 1/2 (see above). */
static const int bcc_dirs[4][3] = {{1, 1, 1}, {-1, 1, 1}, {1, -1, 1}, {1, 1, -1}};

/* Wraps or rejects coordinate c of a neighbour: returns the coordinate in [0, L), or -1
 * when it lies outside with open boundaries. */
static long wrap(long c, long L, mcf_boundary boundary)
{
    if (c >= 0 && c < L)
        return c;
    if (boundary == MCF_BOUNDARY_OPEN)
        return -1;
    return ((c % L) + L) % L;
}

static void fill_simple(lattice_owner *o)
{
    const long L = o->pub.L;
    const int dim = o->pub.dim;
    const int z_n = o->pub.coordination;
    const long ny = dim >= 2 ? L : 1;
    const long nz = dim >= 3 ? L : 1;
    for (long z = 0; z < nz; z++)
        for (long y = 0; y < ny; y++)
            for (long x = 0; x < L; x++) {
                const long c[3] = {x, y, z};
                const size_t site = (size_t)(x + L * (y + L * z));
                double *pos = o->positions + 3 * site;
                pos[0] = (double)x;
                pos[1] = (double)y;
                pos[2] = (double)z;
                int32_t *nb = o->neighbours + (size_t)z_n * site;
                for (int k = 0; k < dim; k++)
                    for (int s = 0; s < 2; s++) {
                        long d[3] = {c[0], c[1], c[2]};
                        long w = wrap(c[k] + (s == 0 ? 1 : -1), L, o->pub.boundary);
                        if (w < 0) {
                            nb[2 * k + s] = -1;
                            continue;
                        }
                        d[k] = w;
                        nb[2 * k + s] = (int32_t)(d[0] + L * (d[1] + L * d[2]));
                    }
            }
}

static void fill_bcc(lattice_owner *o)
{
    const long L = o->pub.L;
    for (long z = 0; z < L; z++)
        for (long y = 0; y < L; y++)
            for (long x = 0; x < L; x++) {
                const long c[3] = {x, y, z};
                const size_t cell = (size_t)(x + L * (y + L * z));
                for (int b = 0; b < 2; b++) {
                    const size_t site = 2 * cell + (size_t)b;
                    double *pos = o->positions + 3 * site;
                    for (int a = 0; a < 3; a++)
                        pos[a] = (double)c[a] + (b ? 0.5 : 0.0);
                    int32_t *nb = o->neighbours + 8 * site;
                    for (int k = 0; k < 4; k++)
                        for (int s = 0; s < 2; s++) {
                            long d[3];
                            int missing = 0;
                            for (int a = 0; a < 3; a++) {
                                const int sign = (s == 0 ? 1 : -1) * bcc_dirs[k][a];
                                /* corner at c moving by sign/2 reaches the centre of cell
                                 * c - 1 (sign < 0) or c (sign > 0); a centre of cell c
                                 * reaches the corner of cell c (sign < 0) or c + 1. */
                                long t = c[a];
                                if (b == 0 && sign < 0)
                                    t -= 1;
                                if (b == 1 && sign > 0)
                                    t += 1;
                                d[a] = wrap(t, L, o->pub.boundary);
                                if (d[a] < 0)
                                    missing = 1;
                            }
                            if (missing) {
                                nb[2 * k + s] = -1;
                                continue;
                            }
                            const long other = d[0] + L * (d[1] + L * d[2]);
                            nb[2 * k + s] = (int32_t)(2 * other + (1 - b));
                        }
                }
            }
}

int mcf_lattice_create(mcf_lattice_kind kind, long L, mcf_boundary boundary,
                       mcf_lattice **out)
{
    if (!out)
        return mcf_fail(MCF_EINVAL, "lattice: no place to store the lattice (out is NULL)");
    *out = NULL;

    int dim, coordination;
    long sites_per_cell = 1; /* sites per conventional cell */
    switch (kind) {
    case MCF_LATTICE_CHAIN: dim = 1; coordination = 2; break;
    case MCF_LATTICE_SQUARE: dim = 2; coordination = 4; break;
    case MCF_LATTICE_CUBIC: dim = 3; coordination = 6; break;
    case MCF_LATTICE_BCC: dim = 3; coordination = 8; sites_per_cell = 2; break;
    default:
        return mcf_fail(MCF_EINVAL, "lattice: unknown lattice kind %d; choose one of %s",
                        (int)kind, MCF_LATTICE_CHOICES);
    }
    if (boundary != MCF_BOUNDARY_PERIODIC && boundary != MCF_BOUNDARY_OPEN)
        return mcf_fail(MCF_EINVAL, "lattice: unknown boundary condition %d; choose one of %s",
                        (int)boundary, MCF_BOUNDARY_CHOICES);
    if (L < 2)
        return mcf_fail(MCF_EINVAL, "lattice: L = %ld is too small; L must be >= 2", L);

    /* Site numbers are int32_t in the neighbour table: the lattice must fit. */
    double sites_d = (double)sites_per_cell;
    for (int a = 0; a < dim; a++)
        sites_d *= (double)L;
    if (sites_d > (double)INT32_MAX)
        return mcf_fail(MCF_EINVAL,
                        "lattice: L = %ld gives %.0f sites, more than the %ld a lattice "
                        "may have; choose a smaller L",
                        L, sites_d, (long)INT32_MAX);
    size_t sites = (size_t)sites_per_cell;
    for (int a = 0; a < dim; a++)
        sites *= (size_t)L;

    lattice_owner *o = calloc(1, sizeof *o);
    if (!o)
        return mcf_fail(MCF_ENOMEM, "lattice: out of memory");
    o->neighbours = malloc(sites * (size_t)coordination * sizeof *o->neighbours);
    o->positions = malloc(sites * 3 * sizeof *o->positions);
    if (!o->neighbours || !o->positions) {
        free(o->neighbours);
        free(o->positions);
        free(o);
        return mcf_fail(MCF_ENOMEM, "lattice: out of memory for %zu sites (L = %ld)", sites,
                        L);
    }
    o->pub.kind = kind;
    o->pub.boundary = boundary;
    o->pub.dim = dim;
    o->pub.L = L;
    o->pub.sites = sites;
    o->pub.coordination = coordination;
    o->pub.neighbours = o->neighbours;
    o->pub.positions = o->positions;

    if (kind == MCF_LATTICE_BCC)
        fill_bcc(o);
    else
        fill_simple(o);

    *out = &o->pub;
    return MCF_OK;
}

void mcf_lattice_destroy(mcf_lattice *lattice)
{
    if (!lattice)
        return;
    lattice_owner *o = (lattice_owner *)lattice; /* pub is the first member */
    free(o->neighbours);
    free(o->positions);
    free(o);
}

int mcf_lattice_kind_from_name(const char *name, mcf_lattice_kind *out)
{
    static const struct {
        const char *name;
        mcf_lattice_kind kind;
    } table[] = {{"chain", MCF_LATTICE_CHAIN},
                 {"square", MCF_LATTICE_SQUARE},
                 {"cubic", MCF_LATTICE_CUBIC},
                 {"bcc", MCF_LATTICE_BCC}};
    if (name)
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
            if (strcmp(name, table[i].name) == 0) {
                if (out)
                    *out = table[i].kind;
                return MCF_OK;
            }
    return mcf_fail(MCF_EINVAL, "unknown lattice '%s'; choose one of %s",
                    name ? name : "(null)", MCF_LATTICE_CHOICES);
}

int mcf_boundary_from_name(const char *name, mcf_boundary *out)
{
    if (name && strcmp(name, "periodic") == 0) {
        if (out)
            *out = MCF_BOUNDARY_PERIODIC;
        return MCF_OK;
    }
    if (name && strcmp(name, "open") == 0) {
        if (out)
            *out = MCF_BOUNDARY_OPEN;
        return MCF_OK;
    }
    return mcf_fail(MCF_EINVAL, "unknown boundary condition '%s'; choose one of %s",
                    name ? name : "(null)", MCF_BOUNDARY_CHOICES);
}

size_t mcf_lattice_bonds(const mcf_lattice *lattice)
{
    if (!lattice)
        return 0;
    size_t bonds = 0;
    const size_t z = (size_t)lattice->coordination;
    for (size_t i = 0; i < lattice->sites; i++)
        for (size_t k = 0; k < z; k += 2)
            if (lattice->neighbours[i * z + k] >= 0)
                bonds++;
    return bonds;
}

size_t mcf_lattice_bond_slots(const mcf_lattice *lattice)
{
    return lattice ? lattice->sites * (size_t)(lattice->coordination / 2) : 0;
}

int64_t mcf_lattice_bond(const mcf_lattice *lattice, size_t b, size_t *site, int *direction)
{
    if (b >= mcf_lattice_bond_slots(lattice))
        return -1;
    const size_t half = (size_t)(lattice->coordination / 2), i = b / half;
    const int k = (int)(b % half);
    if (site)
        *site = i;
    if (direction)
        *direction = k;
    const int32_t j = lattice->neighbours[i * (size_t)lattice->coordination + 2 * (size_t)k];
    return j >= 0 ? (int64_t)j : -1;
}

int64_t mcf_lattice_bond_next(const mcf_lattice *lattice, size_t b)
{
    int k;
    const int64_t j = mcf_lattice_bond(lattice, b, NULL, &k);
    if (j < 0)
        return -1;
    const size_t next = (size_t)j * (size_t)(lattice->coordination / 2) + (size_t)k;
    return mcf_lattice_bond(lattice, next, NULL, NULL) < 0 ? -1 : (int64_t)next;
}

int mcf_lattice_from_params(const mcf_params *params, const char *model, unsigned flags,
                            mcf_lattice **out)
{
    const char *kind_name, *boundary_name;
    long L;
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    int rc;
    *out = NULL;
    if ((rc = mcf_params_string(params, "lattice", &kind_name)) ||
        (rc = mcf_params_int(params, "L", &L)) ||
        (rc = mcf_params_string(params, "boundary", &boundary_name)))
        return mcf_fail_prefix(rc, "%s: declare the lattice with MCF_LATTICE_PARAMS", model);
    if ((rc = mcf_lattice_kind_from_name(kind_name, &kind)))
        return mcf_fail_prefix(rc, "%s: [%s] lattice in %s", model, sec, origin);
    if ((rc = mcf_boundary_from_name(boundary_name, &boundary)))
        return mcf_fail_prefix(rc, "%s: [%s] boundary in %s", model, sec, origin);
    if ((flags & MCF_LATTICE_SIMPLE_BONDS) && boundary == MCF_BOUNDARY_PERIODIC && L < 3 &&
        kind != MCF_LATTICE_BCC) /* bcc's 8 diagonal neighbours stay distinct at L = 2 */
        return mcf_fail(MCF_EINVAL, "%s: [%s] L = %ld in %s with periodic boundaries: on the "
                        "L = 2 torus the +d and -d neighbours of a site coincide, so a "
                        "neighbour would appear twice; use L >= 3, or boundary = open", model,
                        sec, L, origin);
    if ((rc = mcf_lattice_create(kind, L, boundary, out)))
        return mcf_fail_prefix(rc, "%s: [%s] lattice = %s, L = %ld in %s", model, sec,
                               kind_name, L, origin);
    return MCF_OK;
}

int mcf_lattice_parity(const mcf_lattice *lattice, size_t site)
{
    if (lattice->kind == MCF_LATTICE_BCC)
        return site % 2 ? -1 : 1;
    const size_t L = (size_t)lattice->L;
    size_t sum = 0;
    for (int d = 0; d < lattice->dim; d++, site /= L)
        sum += site % L;
    return sum % 2 ? -1 : 1;
}

const char *mcf_lattice_kind_name(mcf_lattice_kind kind)
{
    switch (kind) {
    case MCF_LATTICE_CHAIN: return "chain";
    case MCF_LATTICE_SQUARE: return "square";
    case MCF_LATTICE_CUBIC: return "cubic";
    case MCF_LATTICE_BCC: return "bcc";
    }
    return "unknown";
}

const char *mcf_boundary_name(mcf_boundary boundary)
{
    switch (boundary) {
    case MCF_BOUNDARY_PERIODIC: return "periodic";
    case MCF_BOUNDARY_OPEN: return "open";
    }
    return "unknown";
}
