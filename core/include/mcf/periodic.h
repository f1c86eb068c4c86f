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

#include <stddef.h>
#include <stdint.h>

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

/* Checks p: dims 1..3, orbitals and sites >= 1, linearly independent lattice vectors,
 * hoppings in range (orbitals, R zero beyond dims, finite values) and H(k) Hermitian (the
 * sums t_ab(R) and conj(t_ba(-R)) agree to 1e-12 of the largest |t|).  MCF_EINVAL with a
 * message naming the first problem (the hopping's index); `who` prefixes it. */
int mcf_periodic_check(const mcf_periodic *p, const char *who);

/* H(k) at the reduced k[0..dims) into hk, row-major interleaved complex: hk[2 (a n + b)]
 * and hk[2 (a n + b) + 1] the real and imaginary parts of H(k)_ab, n = orbitals
 * (2 n^2 doubles). */
void mcf_periodic_hk(const mcf_periodic *p, const double *k, double *hk);

#ifdef __cplusplus
}
#endif
#endif
