/* test_lattice.c — mcf_lattice: sizes, neighbour tables, bonds, geometry, errors. */
#include "check.h"

#include "mcf/error.h"
#include "mcf/lattice.h"

#include <math.h>
#include <string.h>

static const char *kind_name(mcf_lattice_kind k)
{
    switch (k) {
    case MCF_LATTICE_CHAIN: return "chain";
    case MCF_LATTICE_SQUARE: return "square";
    case MCF_LATTICE_CUBIC: return "cubic";
    case MCF_LATTICE_BCC: return "bcc";
    }
    return "?";
}

/* Expected bond counts.  Periodic: sites x coordination / 2.  Open simple lattices:
 * dim L^(dim-1) (L-1).  Open bcc: each bond joins a body centre of cell c to a corner at
 * c + (0 or 1) per axis; along one axis that is 2 choices for c < L-1 and 1 for c = L-1,
 * and the axes factorize, so (2(L-1) + 1)^3 = (2L-1)^3. */
static size_t expected_bonds(mcf_lattice_kind kind, long L, mcf_boundary bc)
{
    const size_t l = (size_t)L;
    if (bc == MCF_BOUNDARY_PERIODIC) {
        switch (kind) {
        case MCF_LATTICE_CHAIN: return l;
        case MCF_LATTICE_SQUARE: return 2 * l * l;
        case MCF_LATTICE_CUBIC: return 3 * l * l * l;
        case MCF_LATTICE_BCC: return 8 * l * l * l; /* 2 L^3 sites x 8 / 2 */
        }
    } else {
        switch (kind) {
        case MCF_LATTICE_CHAIN: return l - 1;
        case MCF_LATTICE_SQUARE: return 2 * l * (l - 1);
        case MCF_LATTICE_CUBIC: return 3 * l * l * (l - 1);
        case MCF_LATTICE_BCC: return (2 * l - 1) * (2 * l - 1) * (2 * l - 1);
        }
    }
    return 0;
}

/* The unit step of slot 2k (the opposite slot 2k+1 is its negative). */
static void direction(mcf_lattice_kind kind, int k, double d[3])
{
    static const double bcc[4][3] = {
        {0.5, 0.5, 0.5}, {-0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0.5, 0.5, -0.5}};
    if (kind == MCF_LATTICE_BCC) {
        memcpy(d, bcc[k], sizeof bcc[k]);
    } else {
        d[0] = d[1] = d[2] = 0.0;
        d[k] = 1.0;
    }
}

static void check_lattice(mcf_lattice_kind kind, long L, mcf_boundary bc)
{
    const char *bn = bc == MCF_BOUNDARY_PERIODIC ? "periodic" : "open";
    mcf_lattice *lat = NULL;
    int rc = mcf_lattice_create(kind, L, bc, &lat);
    CHECK(rc == MCF_OK && lat, "create %s L=%ld %s: rc %d (%s)", kind_name(kind), L, bn, rc,
          mcf_last_error());
    if (rc != MCF_OK || !lat)
        return;

    const int dim = kind == MCF_LATTICE_CHAIN ? 1 : kind == MCF_LATTICE_SQUARE ? 2 : 3;
    const int z = kind == MCF_LATTICE_CHAIN ? 2 : kind == MCF_LATTICE_SQUARE ? 4
                  : kind == MCF_LATTICE_CUBIC ? 6 : 8;
    size_t sites = kind == MCF_LATTICE_BCC ? 2 : 1;
    for (int a = 0; a < dim; a++)
        sites *= (size_t)L;
    CHECK(lat->kind == kind && lat->boundary == bc && lat->L == L && lat->dim == dim,
          "%s L=%ld %s: header fields", kind_name(kind), L, bn);
    CHECK(lat->sites == sites, "%s L=%ld %s: %zu sites, expected %zu", kind_name(kind), L, bn,
          lat->sites, sites);
    CHECK(lat->coordination == z, "%s %s: coordination %d, expected %d", kind_name(kind), bn,
          lat->coordination, z);

    /* Positions follow the documented numbering. */
    int bad_pos = 0;
    for (size_t i = 0; i < sites; i++) {
        size_t cell = kind == MCF_LATTICE_BCC ? i / 2 : i;
        double off = kind == MCF_LATTICE_BCC && (i % 2) ? 0.5 : 0.0;
        const size_t l = (size_t)L;
        double want[3] = {(double)(cell % l), dim >= 2 ? (double)((cell / l) % l) : 0.0,
                          dim >= 3 ? (double)(cell / (l * l)) : 0.0};
        for (int a = 0; a < 3; a++)
            if (lat->positions[3 * i + (size_t)a] != want[a] + (a < dim ? off : 0.0))
                bad_pos++;
    }
    CHECK(bad_pos == 0, "%s L=%ld %s: %d position components differ from the numbering",
          kind_name(kind), L, bn, bad_pos);

    /* Every neighbour relation is symmetric with the opposite slot; geometry of each
     * bond: the minimum-image displacement is the slot's step (its length 1 for the simple
     * lattices, sqrt(3)/2 for bcc).  For periodic simple lattices with L = 2, +e and -e
     * are the same image, so only the length is checked there. */
    const double bond_len = kind == MCF_LATTICE_BCC ? sqrt(3.0) / 2.0 : 1.0;
    int asym = 0, bad_geom = 0, bad_range = 0, missing = 0, dup = 0;
    double worst_len = 0.0;
    for (size_t i = 0; i < sites; i++) {
        const int32_t *nb = lat->neighbours + i * (size_t)z;
        for (int s = 0; s < z; s++) {
            int32_t j = nb[s];
            if (j < 0) {
                missing++;
                if (j != -1)
                    bad_range++;
                continue;
            }
            if ((size_t)j >= sites) {
                bad_range++;
                continue;
            }
            if (lat->neighbours[(size_t)j * (size_t)z + (size_t)(s ^ 1)] != (int32_t)i)
                asym++;
            for (int t = 0; t < s; t++)
                if (nb[t] == j && !(bc == MCF_BOUNDARY_PERIODIC && L == 2 && t == (s ^ 1)))
                    dup++;
            double step[3], d[3], len2 = 0.0, dev = 0.0;
            direction(kind, s / 2, step);
            for (int a = 0; a < 3; a++) {
                d[a] = lat->positions[3 * (size_t)j + (size_t)a] -
                       lat->positions[3 * i + (size_t)a];
                if (bc == MCF_BOUNDARY_PERIODIC && a < dim)
                    d[a] -= (double)L * round(d[a] / (double)L);
                len2 += d[a] * d[a];
                const double want = (s % 2 ? -1.0 : 1.0) * step[a];
                dev = fmax(dev, fabs(d[a] - want));
            }
            double lerr = fabs(sqrt(len2) - bond_len);
            worst_len = fmax(worst_len, lerr);
            int ambiguous = bc == MCF_BOUNDARY_PERIODIC && L == 2 && kind != MCF_LATTICE_BCC;
            if (lerr > 1e-12 || (!ambiguous && dev > 1e-12))
                bad_geom++;
        }
    }
    CHECK(bad_range == 0, "%s L=%ld %s: %d neighbour entries out of range", kind_name(kind), L,
          bn, bad_range);
    CHECK(asym == 0, "%s L=%ld %s: %d neighbour relations not symmetric", kind_name(kind), L,
          bn, asym);
    CHECK(dup == 0, "%s L=%ld %s: %d duplicate neighbours", kind_name(kind), L, bn, dup);
    CHECK(bad_geom == 0, "%s L=%ld %s: %d bonds with the wrong displacement (worst |len| "
          "error %.3g)", kind_name(kind), L, bn, bad_geom, worst_len);
    if (bc == MCF_BOUNDARY_PERIODIC)
        CHECK(missing == 0, "%s L=%ld periodic: %d missing neighbours", kind_name(kind), L,
              missing);

    /* Bonds: by the library, by counting the table, and from the closed form. */
    size_t bonds = mcf_lattice_bonds(lat);
    size_t present = 0;
    for (size_t i = 0; i < sites * (size_t)z; i++)
        present += lat->neighbours[i] >= 0;
    size_t want = expected_bonds(kind, L, bc);
    CHECK(bonds == want, "%s L=%ld %s: %zu bonds, expected %zu", kind_name(kind), L, bn, bonds,
          want);
    CHECK(2 * bonds == present, "%s L=%ld %s: %zu bonds but %zu occupied slots",
          kind_name(kind), L, bn, bonds, present);

    /* Bond slots (mcf_lattice_bond): as many bonds as counted, each from site i along +d_k
     * to the neighbour whose -d_k neighbour is i; following mcf_lattice_bond_next along a
     * line comes back after L steps (bcc: 2L, its directions are half diagonals) on a torus
     * and stops at the far end of an open line. */
    const size_t slots = mcf_lattice_bond_slots(lat);
    const size_t period = (size_t)(kind == MCF_LATTICE_BCC ? 2 * L : L);
    size_t valid = 0;
    int bad_end = 0, bad_line = 0;
    for (size_t b = 0; b < slots; b++) {
        size_t i = SIZE_MAX;
        int k = -1;
        const int64_t j = mcf_lattice_bond(lat, b, &i, &k);
        if (i != b / (size_t)(z / 2) || k != (int)(b % (size_t)(z / 2)))
            bad_end++;
        if (j < 0)
            continue;
        valid++;
        if (lat->neighbours[(size_t)j * (size_t)z + 2 * (size_t)k + 1] != (int32_t)i)
            bad_end++;
        size_t steps = 0;
        int64_t c = (int64_t)b;
        do {
            c = mcf_lattice_bond_next(lat, (size_t)c);
            steps++;
        } while (c >= 0 && c != (int64_t)b && steps <= period);
        if (bc == MCF_BOUNDARY_PERIODIC ? c != (int64_t)b || steps != period
                                        : c >= 0 || steps > period)
            bad_line++;
    }
    CHECK(valid == bonds, "%s L=%ld %s: %zu bond slots hold a bond, %zu bonds", kind_name(kind),
          L, bn, valid, bonds);
    CHECK(bad_end == 0, "%s L=%ld %s: %d bond slots with the wrong ends", kind_name(kind), L,
          bn, bad_end);
    CHECK(bad_line == 0, "%s L=%ld %s: %d bonds whose line of next bonds is wrong",
          kind_name(kind), L, bn, bad_line);
    CHECK(mcf_lattice_bond(lat, slots, NULL, NULL) == -1 &&
              mcf_lattice_bond_next(lat, slots) == -1,
          "%s L=%ld %s: the slot past the last is no bond", kind_name(kind), L, bn);

    mcf_lattice_destroy(lat);
}

static void test_errors(void)
{
    mcf_lattice *lat = (mcf_lattice *)&lat; /* must be reset to NULL on failure */
    mcf_clear_error();
    int rc = mcf_lattice_create(MCF_LATTICE_SQUARE, 1, MCF_BOUNDARY_PERIODIC, &lat);
    CHECK(rc == MCF_EINVAL, "L = 1 gives %d, expected MCF_EINVAL", rc);
    CHECK(lat == NULL, "output reset on failure");
    CHECK(strstr(mcf_last_error(), "L") != NULL && strstr(mcf_last_error(), "1") != NULL,
          "message mentions L and its value: \"%s\"", mcf_last_error());
    rc = mcf_lattice_create(MCF_LATTICE_CHAIN, 0, MCF_BOUNDARY_OPEN, &lat);
    CHECK(rc == MCF_EINVAL, "L = 0 refused (%d)", rc);
    rc = mcf_lattice_create(MCF_LATTICE_CUBIC, -4, MCF_BOUNDARY_OPEN, &lat);
    CHECK(rc == MCF_EINVAL, "L = -4 refused (%d)", rc);
    mcf_clear_error();
    rc = mcf_lattice_create((mcf_lattice_kind)9, 4, MCF_BOUNDARY_OPEN, &lat);
    CHECK(rc == MCF_EINVAL && mcf_last_error()[0], "bad kind refused (%d): \"%s\"", rc,
          mcf_last_error());
    mcf_clear_error();
    rc = mcf_lattice_create(MCF_LATTICE_CUBIC, 4, (mcf_boundary)0, &lat);
    CHECK(rc == MCF_EINVAL && mcf_last_error()[0], "bad boundary refused (%d): \"%s\"", rc,
          mcf_last_error());
    /* Too many sites for int32 neighbour indices. */
    rc = mcf_lattice_create(MCF_LATTICE_CUBIC, 2000, MCF_BOUNDARY_PERIODIC, &lat);
    CHECK(rc == MCF_EINVAL && lat == NULL, "cubic L = 2000 (8e9 sites) refused (%d): \"%s\"",
          rc, mcf_last_error());
    mcf_lattice_destroy(NULL);
    CHECK(mcf_lattice_bonds(NULL) == 0, "bonds of NULL is 0");
}

static void test_names(void)
{
    static const struct {
        const char *name;
        mcf_lattice_kind kind;
    } kinds[] = {{"chain", MCF_LATTICE_CHAIN},
                 {"square", MCF_LATTICE_SQUARE},
                 {"cubic", MCF_LATTICE_CUBIC},
                 {"bcc", MCF_LATTICE_BCC}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        mcf_lattice_kind k = (mcf_lattice_kind)0;
        int rc = mcf_lattice_kind_from_name(kinds[i].name, &k);
        CHECK(rc == MCF_OK && k == kinds[i].kind, "kind \"%s\" -> %d (rc %d)", kinds[i].name,
              (int)k, rc);
    }
    mcf_lattice_kind k;
    mcf_clear_error();
    int rc = mcf_lattice_kind_from_name("hexagonal", &k);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "hexagonal"),
          "unknown kind refused with its name: \"%s\"", mcf_last_error());
    CHECK(mcf_lattice_kind_from_name(NULL, &k) == MCF_EINVAL, "NULL kind name refused");

    mcf_boundary b = (mcf_boundary)0;
    CHECK(mcf_boundary_from_name("periodic", &b) == MCF_OK && b == MCF_BOUNDARY_PERIODIC,
          "\"periodic\"");
    CHECK(mcf_boundary_from_name("open", &b) == MCF_OK && b == MCF_BOUNDARY_OPEN, "\"open\"");
    mcf_clear_error();
    rc = mcf_boundary_from_name("twisted", &b);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "twisted"),
          "unknown boundary refused: \"%s\"", mcf_last_error());
}

int main(void)
{
    const mcf_lattice_kind kinds[] = {MCF_LATTICE_CHAIN, MCF_LATTICE_SQUARE, MCF_LATTICE_CUBIC,
                                      MCF_LATTICE_BCC};
    const mcf_boundary bcs[] = {MCF_BOUNDARY_PERIODIC, MCF_BOUNDARY_OPEN};
    const long sizes[] = {2, 3, 4, 5, 8};
    for (size_t k = 0; k < 4; k++)
        for (size_t b = 0; b < 2; b++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                check_lattice(kinds[k], sizes[s], bcs[b]);
    test_errors();
    test_names();
    return check_exit();
}
