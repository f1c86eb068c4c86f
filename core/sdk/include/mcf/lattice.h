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

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#include "mcf/params.h"

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
MCF_API int mcf_lattice_create(mcf_lattice_kind kind, long L, mcf_boundary boundary,
                               mcf_lattice **out);

/* Frees a lattice from mcf_lattice_create(); NULL is ignored. */
MCF_API void mcf_lattice_destroy(mcf_lattice *lattice);

/* Parse "chain"/"square"/"cubic"/"bcc" and "periodic"/"open".  MCF_OK or MCF_EINVAL. */
MCF_API int mcf_lattice_kind_from_name(const char *name, mcf_lattice_kind *out);
MCF_API int mcf_boundary_from_name(const char *name, mcf_boundary *out);
/* ... and back, for messages: "chain", "square", "cubic", "bcc", "periodic", "open"
 * ("unknown" otherwise).  Static storage. */
MCF_API const char *mcf_lattice_kind_name(mcf_lattice_kind kind);
MCF_API const char *mcf_boundary_name(mcf_boundary boundary);

/* Number of bonds (each counted once): what a bond energy per site is normalized by. */
MCF_API size_t mcf_lattice_bonds(const mcf_lattice *lattice);

/* ---- variables on bonds (mcf 0.8) ---------------------------------------------------------
 *
 * A model whose degrees of freedom live on bonds (bond distortions, link variables) numbers
 * them by bond slots: slot b = i * (coordination / 2) + k is the bond from site i along +d_k
 * (neighbour slot 2k of site i).  There are mcf_lattice_bond_slots() slots; with periodic
 * boundaries every slot is a bond, with open ones the slots whose neighbour is missing are
 * none (mcf_lattice_bonds() counts the bonds).  A loop over bonds:
 *
 *     for (size_t b = 0; b < mcf_lattice_bond_slots(lat); b++) {
 *         size_t i;  int k;
 *         const int64_t j = mcf_lattice_bond(lat, b, &i, &k);
 *         if (j < 0) continue;              (an open boundary: no bond)
 *         ... the bond (i, j) along d_k; the next one along d_k: mcf_lattice_bond_next ...
 *     }
 */
MCF_API size_t mcf_lattice_bond_slots(const mcf_lattice *lattice);

/* The bond in slot b: its far end j (from site *site = i along direction *direction = k), or
 * -1 when the slot has no bond (an open boundary) or b is out of range (*site and
 * *direction are still written for b in range; either pointer may be NULL). */
MCF_API int64_t mcf_lattice_bond(const mcf_lattice *lattice, size_t b, size_t *site,
                                 int *direction);

/* The slot of the next bond along the same direction (from b's far end along +d_k), or -1
 * where there is none (an open end, or b is no bond).  Periodic: the bonds along one line
 * close into a ring. */
MCF_API int64_t mcf_lattice_bond_next(const mcf_lattice *lattice, size_t b);

/* ---- a model's lattice from its configuration, in one spec and one call ----------------
 *
 * MCF_LATTICE_PARAMS(kinds, default_kind, default_L) expands to the three entries of a
 * model's parameter array,
 *     lattice = <one of kinds>   L = <int >= 2>   boundary = periodic|open
 * and mcf_lattice_from_params() reads them and builds the lattice:
 *
 *     static const mcf_param_spec my_params[] = {
 *         MCF_LATTICE_PARAMS("square|cubic", "square", "4"),
 *         {"t", MCF_PARAM_REAL, "1", ...},
 *         ...};
 *     ... mcf_lattice_from_params(params, "my-model", MCF_LATTICE_SIMPLE_BONDS, &lat) ...
 */
#define MCF_LATTICE_PARAMS(kinds, default_kind, default_L)                                   \
    {"lattice", MCF_PARAM_CHOICE, default_kind, MCF_PARAM_NO_SCAN, 0, 0, kinds,                    \
     .doc = "lattice: chain (L sites), square (L^2), cubic (L^3) or bcc (2 L^3); here " kinds},    \
    {"L", MCF_PARAM_INT, default_L, MCF_PARAM_HAS_MIN, 2, 0, NULL,                                 \
     .doc = "linear size in conventional cells"},                                                  \
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0,                     \
     MCF_BOUNDARY_CHOICES, .doc = "boundary conditions of the lattice"}

/* Bits of mcf_lattice_from_params' flags. */
enum {
    /* Refuse periodic L = 2 chain, square and cubic lattices, where the +d and -d
     * neighbours of a site coincide and the table lists the same site twice: a model that
     * writes one Hamiltonian entry per bond needs every bond once (bcc's neighbours stay
     * distinct at L = 2 and pass). */
    MCF_LATTICE_SIMPLE_BONDS = 1u << 0
};

/* Builds the lattice of the parameters "lattice", "L" and "boundary" (declared with
 * MCF_LATTICE_PARAMS).  Errors: MCF_EINVAL "<model>: [<section>] ... in <file>: ..." saying
 * what to change, MCF_ENOMEM.  *out as from mcf_lattice_create(). */
MCF_API int mcf_lattice_from_params(const mcf_params *params, const char *model, unsigned flags,
                                    mcf_lattice **out);

/* ---- twisted boundary conditions (mcf 1.1; docs/methods.md, "Twisted boundaries") -------
 *
 * A twist theta_d multiplies every hopping that crosses the periodic boundary along the
 * Cartesian direction d by exp(i theta_d): a particle going once around the torus along d
 * picks up that phase, psi(r + L e_d) = exp(i theta_d) psi(r), and the allowed wave vectors
 * become K_d = (2 pi n_d + theta_d) / L.  Precisely: the hopping <i| H |j> from site j to
 * site i, j the neighbour of i at i + delta (delta the neighbour vector of the slot), gets
 * exp(i theta . w), w = (r_i + delta - r_j) / L the times the bond wraps around each
 * direction (0 for a bond inside the box).
 *
 * MCF_LATTICE_TWIST_PARAM is one more entry of a model's parameter array (after
 * MCF_LATTICE_PARAMS), the key
 *     twist = X            the same theta_d / 2 pi = X along every direction
 *     twist = X Y [Z]      one per direction (as many as the lattice has: 1, 2 or 3),
 *                          separated by spaces (a comma makes a list of the INI file)
 *     twist = average:M    twist averaging: the walkers of a scan point ([run] walkers, a
 *                          multiple of M^dims) take the M^dims twists of the grid
 *                          theta_d / 2 pi = (j_d + 1/2) / M, walker w the twist w mod M^dims
 *                          (mcf_twist_grid), so that the averages over walkers that the
 *                          core reports are twist averages
 * in units of 2 pi (twist = 0.5 is antiperiodic along every direction), default 0 (plain
 * periodic boundaries, bit for bit as without the key).  Only periodic boundaries take a
 * twist other than 0.  mcf_lattice_twist() reads it, for the lattice the model built:
 *
 *     double theta[3];
 *     ... mcf_lattice_twist(params, "my-model", lat, theta) ...
 *     ... mcf_hamiltonian_set_hopping_twisted(h, lat, t, theta) ...
 */
#define MCF_LATTICE_TWIST_PARAM                                                               \
    {"twist", MCF_PARAM_STRING, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,     \
     NULL, .doc = "twisted boundaries, theta_d / 2 pi: one number for every direction, one "  \
     "per direction (\"0.1 0.2 0.3\"), or average:M (the walkers of a scan point take the " \
     "M^d twists (j + 1/2) / M; walkers a multiple of M^d); periodic boundaries only"}

/* The directions a twist has on a lattice: its dim (bcc: 3, the conventional cube). */
MCF_API int mcf_lattice_twist_dims(const mcf_lattice *lattice);

/* Parses a twist value (the text of the key above) for a lattice of `dims` directions:
 * theta[0..3) in radians (0 beyond dims), *average = 0; or for "average:M" theta zero and
 * *average = M (1 <= M <= 64).  MCF_EINVAL with a message saying what the value should look
 * like (without the file and key: the caller prefixes them). */
MCF_API int mcf_twist_parse(const char *text, int dims, double theta[3], long *average);

/* The twist number j (0 <= j < M^dims; j = j_0 + M (j_1 + M j_2)) of the average:M grid:
 * theta_d = 2 pi (j_d + 1/2) / M for d < dims, 0 beyond. */
MCF_API void mcf_twist_grid(long M, int dims, size_t j, double theta[3]);

/* The twist of this chain from the model's parameters (declared with
 * MCF_LATTICE_TWIST_PARAM) for its lattice: theta[0..3) in radians.  average:M gives the
 * walker's twist of the grid (mcf_params_walker; values the host made for no chain of a
 * run, such as mcf band's chain 0, the grid's first twist, chain 0's).  Errors: MCF_EINVAL
 * "<model>: <file>: [<section>] twist = ...: ..." for a malformed value, a twist other
 * than 0 on open boundaries (set boundary = periodic or twist = 0), or average:M with
 * [run] walkers not a multiple of M^dims (the message names the walkers to set). */
MCF_API int mcf_lattice_twist(const mcf_params *params, const char *model,
                              const mcf_lattice *lattice, double theta[3]);

/* The phase exp(i phi) = *re + i *im of the hopping <i| H |j> to site i from its neighbour
 * j in neighbour slot `slot` of i, under the twist theta (radians; NULL: none): 1 + 0i for a
 * bond inside the box, and exactly that whenever phi = 0.  Slot out of range or missing
 * neighbour: 1 + 0i. */
MCF_API void mcf_lattice_bond_phase(const mcf_lattice *lattice, const double *theta,
                                    size_t i, int slot, double *re, double *im);

/* Whether theta (radians, 3 numbers; NULL: none) is a twist at all: 1 when any is != 0. */
MCF_API int mcf_twist_nonzero(const double *theta);

/* ---- a uniform magnetic field (mcf 1.2; issue 47; docs/methods.md, "Conductivity") -------
 *
 * B along z with the flux phi (in flux quanta h/e) through every unit square of the xy plane,
 * by Peierls phases in the Landau gauge A = (0, B x, 0): the hopping <i| H |j> to site i
 * from its y neighbour j gets exp(2 pi i phi x_i (y_j - y_i)), y_j - y_i = +-1 the bond's
 * direction, x_i site i's coordinate (0 .. L-1); x and z bonds get none.  On the torus this
 * closes only when phi L is a whole number (a whole number of flux quanta through each strip
 * of L plaquettes), which mcf_lattice_flux checks.  Square and simple cubic lattices.  With a
 * twist, the bond's phase is the product of both.
 *
 * MCF_LATTICE_FLUX_PARAM is the key `flux` of a model's parameter array (default 0: no field,
 * bit for bit as without the key). */
#define MCF_LATTICE_FLUX_PARAM                                                                \
    {"flux", MCF_PARAM_REAL, "0",                                                             \
     MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,             \
     .doc = "magnetic flux per plaquette of the xy plane, in flux quanta h/e (Peierls phases, " \
     "Landau gauge; on the torus flux x L must be whole); square and cubic lattices",          \
     .symbol = "φ"}

/* The flux of this chain from the model's parameters (declared with MCF_LATTICE_FLUX_PARAM)
 * for its lattice.  Errors: MCF_EINVAL "<model>: <file>: [<section>] flux = ...: ..." for a
 * field on a lattice other than square or cubic, or phi L not whole on periodic boundaries
 * (the message names the fluxes that fit). */
MCF_API int mcf_lattice_flux(const mcf_params *params, const char *model,
                             const mcf_lattice *lattice, double *phi);

/* The field's phase exp(i a) = *re + i *im of the hopping <i| H |j> to site i from its
 * neighbour j in slot `slot` (1 + 0i for phi = 0, x and z bonds, missing neighbours). */
MCF_API void mcf_lattice_field_phase(const mcf_lattice *lattice, double phi, size_t i, int slot,
                                     double *re, double *im);

/* The checkerboard sign of a site, +1 or -1: (-1)^(x+y+z) of its cell on chain, square and
 * cubic lattices (staggered order: with periodic boundaries a true sublattice for even L),
 * +1 for bcc corners and -1 for body centres. */
MCF_API int mcf_lattice_parity(const mcf_lattice *lattice, size_t site);

/* ---- the structure factor at k_min (a model's m2_kmin; mcf 1.1) ----------------------
 *
 * S(k_min) = |sum_i f_i exp(i k_min . r_i)|^2 / N^2, summed over the field's components and
 * averaged over the lattice's dim axes, k_min = 2 pi / L along each (r_i the site positions
 * of mcf_lattice, lattice constant 1; bcc's body centres included): what mcf/model.h's
 * MCF_ROLE_ORDER_KMIN observable holds, from which the core forms xi_over_l.  0 for a
 * uniform field, 1/N on average for independent unit vectors. */
typedef struct mcf_kmin mcf_kmin;
/* Tables for the sites of `lattice` (read now, not kept) and a field of `components` (1..8)
 * reals a site.  On success *out is the caller's; free with mcf_kmin_destroy.  Errors:
 * MCF_EINVAL (components out of range, no lattice), MCF_ENOMEM. */
MCF_API int mcf_kmin_create(const mcf_lattice *lattice, int components, mcf_kmin **out);
/* Frees k; NULL is ignored. */
MCF_API void mcf_kmin_destroy(mcf_kmin *k);
/* S(k_min) of field (sites x components, site i's at field[i components]); O(N).  Uses k's
 * scratch: one call at a time per k (a chain's own). */
MCF_API double mcf_kmin_structure_factor(mcf_kmin *k, const double *field);

#ifdef __cplusplus
}
#endif
#endif
