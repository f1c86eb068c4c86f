/* mcf/lattice.h — lattice geometry for model plugins: chain, square, cubic and bcc
 * lattices of linear size L with periodic or open boundaries, with neighbour tables.
 *
 * Site numbering: x fastest, then y, then z (bcc: the two sites of a conventional cell,
 * corner then body centre, fastest of all).  Neighbour slots come in opposite pairs:
 * slot 2k and slot 2k+1 point along +d_k and -d_k, so summing a bond term over the even
 * slots of every site counts each bond exactly once.  bcc directions, in units of the cubic
 * lattice constant: d0 = (+,+,+)/2, d1 = (-,+,+)/2, d2 = (+,-,+)/2, d3 = (+,+,-)/2.  Open
 * bcc has corners at 0..L-1 along each axis, so the last body centres lack their outer
 * corner neighbours.  With open boundaries a missing
 * neighbour is -1.  With periodic boundaries and L = 2 the +d and -d neighbours coincide;
 * the table then lists that site twice, as the torus has two bonds between the pair. */
#ifndef MCF_LATTICE_H
#define MCF_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcf_lattice_kind {
    MCF_LATTICE_CHAIN = 1,   /* 1D, 2 neighbours */
    MCF_LATTICE_SQUARE = 2,  /* 2D, 4 neighbours */
    MCF_LATTICE_CUBIC = 3,   /* 3D simple cubic, 6 neighbours */
    MCF_LATTICE_BCC = 4      /* 3D body-centred cubic, 2 L^3 sites, 8 neighbours */
} mcf_lattice_kind;

typedef enum mcf_boundary {
    MCF_BOUNDARY_PERIODIC = 1,
    MCF_BOUNDARY_OPEN = 2
} mcf_boundary;

/* The choices strings for parameter declarations. */
#define MCF_LATTICE_CHOICES "chain|square|cubic|bcc"
#define MCF_BOUNDARY_CHOICES "periodic|open"

/* Read-only after creation.  Fields are only ever appended. */
typedef struct mcf_lattice {
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    int dim;                  /* 1, 2 or 3 */
    long L;                   /* linear size in conventional cells */
    size_t sites;             /* number of sites */
    int coordination;         /* neighbour slots per site */
    const int32_t *neighbours;/* sites x coordination; -1 = no neighbour (open boundary) */
    const double *positions;  /* sites x 3 Cartesian coordinates, lattice constant 1 */
} mcf_lattice;

/* Builds a lattice.  L >= 2.  On success *out owns the tables; free with
 * mcf_lattice_destroy().  Errors: MCF_EINVAL (bad kind, boundary or L, with a message),
 * MCF_ENOMEM. */
int mcf_lattice_create(mcf_lattice_kind kind, long L, mcf_boundary boundary,
                       mcf_lattice **out);

/* Frees a lattice from mcf_lattice_create(); NULL is ignored. */
void mcf_lattice_destroy(mcf_lattice *lattice);

/* Parse "chain"/"square"/"cubic"/"bcc" and "periodic"/"open".  MCF_OK or MCF_EINVAL. */
int mcf_lattice_kind_from_name(const char *name, mcf_lattice_kind *out);
int mcf_boundary_from_name(const char *name, mcf_boundary *out);

/* Number of bonds (each counted once): what a bond energy per site is normalized by. */
size_t mcf_lattice_bonds(const mcf_lattice *lattice);

#ifdef __cplusplus
}
#endif
#endif
