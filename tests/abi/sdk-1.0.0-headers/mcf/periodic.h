/* mcf/periodic.h — a tight-binding Hamiltonian described as a periodic crystal: a unit cell
 * of n orbitals, its lattice vectors, and the hoppings between cells,
 *
 *     H(k)_ab = sum over the hoppings h with h.to = a, h.from = b of
 *               (h.re + i h.im) exp(2 pi i k . h.R),
 *
 * k in reduced coordinates (k = sum_i k_i b_i with b_i the reciprocal vectors, a_i . b_j =
 * 2 pi delta_ij, so that k . R = 2 pi sum_i k_i R_i for an integer cell offset R).  A
 * hopping is the matrix element <to, cell R| H |from, cell 0>; the list holds every term,
 * the Hermitian conjugates included (an on-site energy is a term with R = 0 and to = from),
 * and terms with the same (R, to, from) add up.  So H(k) is Hermitian exactly when, summed
 * that way, t_ab(R) = conj(t_ba(-R)); mcf_periodic_check tests it.
 *
 * A model describes its configuration this way (mcf/model.h, periodic) and a band
 * evaluator (k-point sums, tetrahedra) integrates over the Brillouin zone without knowing
 * which model it was.  Energies in the model's unit (the hopping t for lattice models). */
#ifndef MCF_PERIODIC_H
#define MCF_PERIODIC_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#include "mcf/lattice.h"
#include "mcf/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_cell_hopping {
    int32_t R[3];      /* cell offset of `to` from `from`, in lattice vectors (0 beyond dims) */
    uint32_t to, from; /* orbitals of the cell, < orbitals */
    double re, im;     /* <to, R| H |from, 0> */
} mcf_cell_hopping;

typedef struct mcf_periodic {
    uint32_t dims;          /* periodic directions, 1..3 */
    uint32_t orbitals;      /* orbitals per cell, >= 1 */
    uint32_t sites;         /* lattice sites per cell, >= 1 (densities per site divide by it) */
    double lattice[3][3];   /* a_1 .. a_dims (rows), Cartesian, in lattice constants; rows
                               beyond dims unused.  Only the shape of the k grid's
                               tetrahedra depends on them, never a density per cell. */
    size_t n_hoppings;
    const mcf_cell_hopping *hoppings;
} mcf_periodic;

/* ---- building a description: what a model's periodic() op does (mcf/model.h) ----------
 *
 * A model fills a core-owned mcf_cell: its shape once, then its bonds and on-site
 * energies; the core checks the result and hands the evaluator the mcf_periodic view.
 *
 *     const double a[9] = {1, 0, 0,  0, 1, 0,  0, 0, 1};
 *     mcf_cell_shape(cell, 3, 1, 1, a);               simple cubic, one orbital
 *     mcf_cell_bond(cell, 1, 0, 0, 0, 0, -t, 0);      hopping -t to the cell at +x ...
 *     mcf_cell_onsite(cell, 0, eps);                  ... and an on-site energy
 *
 * Errors (MCF_EINVAL with a message; MCF_ENOMEM) are sticky: the core reports the first
 * when the op returns, so a model may check only the op's last call. */
typedef struct mcf_cell mcf_cell;

/* dims 1..3 periodic directions, `orbitals` per cell, `sites` lattice sites per cell,
 * lattice[3 i + d] component d of lattice vector i < dims (Cartesian, lattice constants;
 * 3 dims numbers).  Once, first. */
MCF_API int mcf_cell_shape(mcf_cell *c, unsigned dims, unsigned orbitals, unsigned sites,
                           const double *lattice);

/* The hopping <to, R| H |from, 0> = re + i im, R = (Rx, Ry, Rz) in lattice vectors (0
 * beyond dims), AND its Hermitian conjugate <from, -R| H |to, 0> = re - i im: list each
 * bond once.  R = 0 with to == from is an on-site energy: mcf_cell_onsite. */
MCF_API int mcf_cell_bond(mcf_cell *c, int Rx, int Ry, int Rz, unsigned to, unsigned from,
                          double re, double im);

/* The on-site energy of orbital a (adds up when given twice). */
MCF_API int mcf_cell_onsite(mcf_cell *c, unsigned a, double energy);

/* A cell of the simple lattice with `dims` = 1, 2, 3 (chain, square, cubic; lattice constant
 * 1) spanned by the integer vectors a_i (a[3 i + d] their components, 3 dims numbers), with `per_site` orbitals per site: shapes
 * the cell (|det a| sites, ordered by the z, then y, then x of their positions; orbital
 * s per_site + o is orbital o of site s) and asks the model for the matrix elements:
 *   onsite(ctx, r, block)     for every site r of the cell (a lattice point r[0..dims),
 *                             r[d] = 0 beyond dims): its on-site block, per_site x per_site,
 *                             block[2 (o per_site + p)] + i block[... + 1] = <r, o| H |r, p>,
 *                             Hermitian (zeroed before the call);
 *   hop(ctx, r, d, block)     for every site r and direction d < dims: the block of the bond
 *                             to r + e_d, block[2 (o per_site + p)] = <r + e_d, o| H |r, p>
 *                             (zeroed before the call); its conjugate is added too.
 * The site r + e_d may lie outside the cell: the model answers for it from its periodic
 * pattern (e.g. the spin at r + e_d).  NULL callbacks add nothing.  Instead of
 * mcf_cell_shape; MCF_EINVAL for a bad shape or a non-Hermitian on-site block. */
MCF_API int mcf_cell_lattice(mcf_cell *c, unsigned dims, const int *a, unsigned per_site,
                             void (*onsite)(void *ctx, const int r[3], double *block),
                             void (*hop)(void *ctx, const int r[3], unsigned d, double *block),
                             void *ctx);

/* A chain's own configuration (state NULL: mcf/model.h) is its L^d box as one cell, cell
 * vectors L e_d: mcf_cell_lattice(c, dims, (int[9]){L, 0, 0, 0, L, 0, 0, 0, L}, ...) with
 * callbacks that read the chain.  Only a periodic lattice is such a crystal; this is the
 * check first: MCF_OK for periodic boundaries, else MCF_EINVAL "<model>: [<section>]
 * boundary = open in <file> (params): ... set boundary = periodic". */
MCF_API int mcf_cell_box_boundary(const mcf_params *params, const char *model,
                                  mcf_boundary boundary);

/* For the core, evaluators and tests: an empty cell, the description built so far (NULL
 * while the shape is missing; valid until the next call on c), and its end. */
MCF_API int mcf_cell_create(mcf_cell **out);
MCF_API const mcf_periodic *mcf_cell_view(const mcf_cell *c);
/* MCF_OK, or the first error of the calls on c (code; the message was set then). */
MCF_API int mcf_cell_status(const mcf_cell *c);
MCF_API void mcf_cell_destroy(mcf_cell *c);

/* Checks p: dims 1..3, orbitals and sites >= 1, linearly independent lattice vectors,
 * hoppings in range (orbitals, R zero beyond dims, finite values) and H(k) Hermitian (the
 * sums t_ab(R) and conj(t_ba(-R)) agree to 1e-12 of the largest |t|).  MCF_EINVAL with a
 * message naming the first problem (the hopping's index); `who` prefixes it. */
MCF_API int mcf_periodic_check(const mcf_periodic *p, const char *who);

/* H(k) at the reduced k[0..dims) into hk, row-major interleaved complex: hk[2 (a n + b)]
 * and hk[2 (a n + b) + 1] the real and imaginary parts of H(k)_ab, n = orbitals
 * (2 n^2 doubles). */
MCF_API void mcf_periodic_hk(const mcf_periodic *p, const double *k, double *hk);

#ifdef __cplusplus
}
#endif
#endif
