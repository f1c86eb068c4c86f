/* mcf/hamiltonian_factors.h — hoppings that follow from a field on the sites: how a model
 * says so, and how an evaluator may compute them instead of reading the table.
 *
 * Many lattice models have hoppings that are a product of per-site quantities:
 *
 *     H_ij = amplitude * conj(a_i) . a_j     for every bond (i, j) of a lattice,
 *     H_ii = onsite_i                        (mcf_hamiltonian_set_onsite, as always),
 *
 * with a_i a field of `rank` complex components on each site:
 *   rank 0   a_i = 1: one uniform hopping (Anderson disorder, Holstein, occupations that
 *            only shift on-site energies);
 *   rank 1   a phase or an amplitude per site (a gauge field, a bond-dilution factor);
 *   rank 2   a spinor (double exchange at infinite Hund coupling: a_i = chi_i, the spinor
 *            of the core spin, H_ij = -t <chi_i|chi_j>).
 * The amplitude is the number in H: a hopping "-t" is amplitude -t.
 *
 * A model declares the form once, after creating its Hamiltonian (one orbital per site,
 * width >= the lattice's coordination, no hopping written yet):
 *
 *     mcf_hamiltonian_factorize(h, lattice, -t, 2);        every bond: slot k of row i is
 *                                                          neighbour k of site i, a_i = e_0
 *     mcf_hamiltonian_set_field(h, i, a);                  a: 2 rank doubles (re, im of
 *                                                          each component); rewrites the
 *                                                          entries of site i's bonds
 *
 * The table stays the truth.  factorize() writes every bond's entry and set_field() the
 * entries of the site's bonds (and records their rows in the change journal, as set()
 * does), so an evaluator that knows nothing of the form reads the same H from the table.
 * An evaluator that knows it may stream the field and the on-site term instead (and, on a
 * periodic chain, square or cubic lattice, compute the neighbours from the row index): 8 +
 * 16 rank bytes a row instead of the table's width x 20 + 8.  Every entry is computed by
 * mcf_factors_hop() (mcf/hamiltonian.h, beside the form's struct), in a fixed order of
 * operations without fused multiply-adds, so an evaluator that computes it the same way
 * gets the table's bits.
 *
 * The form must stay true: once factorized, change a bond only through set_field() (a
 * set() of a bond would leave the field describing another H; mcf_hamiltonian_check()
 * compares every entry with the field and refuses such a Hamiltonian).  On-site terms
 * stay free. */
#ifndef MCF_HAMILTONIAN_FACTORS_H
#define MCF_HAMILTONIAN_FACTORS_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#include "mcf/hamiltonian.h" /* the form's struct and mcf_factors_hop() */
#include "mcf/lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declares H's hoppings factorized over the bonds of `lattice` (lattice->sites == h->sites;
 * the lattice may be destroyed afterwards: its table is copied): writes every bond's entry
 * with a_i = (1, 0, ...) (so H_ij = amplitude), slot k of row i holding neighbour k.
 * Errors (MCF_EINVAL, naming what to change): h with more than one orbital per site, a
 * width below the coordination, a hopping already written, a rank outside 0..2, a
 * non-finite amplitude, a lattice of another size, or a periodic L = 2 chain, square or
 * cubic lattice (a neighbour listed twice).  MCF_ENOMEM. */
MCF_API int mcf_hamiltonian_factorize(mcf_hamiltonian *h, const mcf_lattice *lattice,
                                      double amplitude, int rank);

/* Sets the field of `site` to a[0..2 rank) (re, im of each component; borrowed, copied)
 * and rewrites the entries of its bonds, each as mcf_hamiltonian_set would: the version
 * grows by one per bond, and the site and its neighbours are recorded in the journal.
 * Errors: MCF_EINVAL for an h without factors, rank 0, a site out of range, or a
 * non-finite component (nothing is written then). */
MCF_API int mcf_hamiltonian_set_field(mcf_hamiltonian *h, size_t site, const double *a);

/* mcf 1.1: the forces of a factorized Hamiltonian (H_ij = amplitude conj(a_i) . a_j on the
 * bonds).  With rho the density matrix of h (mcf/fermion.h: bond_re, bond_im in h's layout,
 * from a density_matrix call), the gradient of the grand potential with respect to the
 * field through the hoppings (Wirtinger derivatives, the on-site terms are the model's):
 *
 *     g_i = dOmega/d conj(a_i) = amplitude sum_{bonds (i, j)} rho_ji a_j,
 *     dOmega = 2 Re sum_i conj(g_i) . da_i     for any change da of the field,
 *
 * written to grad[2 (i rank + c)] (re) and [... + 1] (im), 2 rank doubles a site, summed
 * over site i's slots in slot order.  A model maps g to its own coordinates (a spin's
 * angles, a phase) by its chain rule.  MCF_EINVAL when h is not factorized or has rank 0
 * (no field: its forces are all on-site). */
MCF_API int mcf_hamiltonian_factors_gradient(const mcf_hamiltonian *h, const double *bond_re,
                                             const double *bond_im, double *grad);

#ifdef __cplusplus
}
#endif
#endif
