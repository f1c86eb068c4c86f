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
 * mcf_factors_hop() below, in a fixed order of operations without fused multiply-adds, so
 * an evaluator that computes it the same way gets the table's bits.
 *
 * The form must stay true: once factorized, change a bond only through set_field() (a
 * set() of a bond would leave the field describing another H; mcf_hamiltonian_check()
 * compares every entry with the field and refuses such a Hamiltonian).  On-site terms
 * stay free. */
#ifndef MCF_HAMILTONIAN_FACTORS_H
#define MCF_HAMILTONIAN_FACTORS_H

#include <stddef.h>
#include <stdint.h>

#include "mcf/hamiltonian.h"
#include "mcf/lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest rank of a field. */
#define MCF_FACTORS_RANK_MAX 2

/* The form, as an evaluator reads it (h->factors; core-owned, read-only). */
typedef struct mcf_hamiltonian_factors {
    int rank;                 /* 0 .. MCF_FACTORS_RANK_MAX */
    double amplitude;         /* H_ij = amplitude conj(a_i) . a_j */
    mcf_lattice_kind kind;    /* the lattice's geometry, for evaluators that compute the */
    mcf_boundary boundary;    /*   neighbours instead of reading them */
    long L;
    int coordination;         /* neighbour slots per site (= the ELL slots used) */
    const int32_t *neighbours;/* sites x coordination, the lattice's table (-1: none) */
    const double *field;      /* site i's component c at field[2 (i rank + c)] (re) and
                                 [... + 1] (im); NULL for rank 0 */
} mcf_hamiltonian_factors;

/* Declares H's hoppings factorized over the bonds of `lattice` (lattice->sites == h->sites;
 * the lattice may be destroyed afterwards: its table is copied): writes every bond's entry
 * with a_i = (1, 0, ...) (so H_ij = amplitude), slot k of row i holding neighbour k.
 * Errors (MCF_EINVAL, naming what to change): h with more than one orbital per site, a
 * width below the coordination, a hopping already written, a rank outside 0..2, a
 * non-finite amplitude, a lattice of another size, or a periodic L = 2 chain, square or
 * cubic lattice (a neighbour listed twice).  MCF_ENOMEM. */
int mcf_hamiltonian_factorize(mcf_hamiltonian *h, const mcf_lattice *lattice, double amplitude,
                              int rank);

/* Sets the field of `site` to a[0..2 rank) (re, im of each component; borrowed, copied)
 * and rewrites the entries of its bonds, each as mcf_hamiltonian_set would: the version
 * grows by one per bond, and the site and its neighbours are recorded in the journal.
 * Errors: MCF_EINVAL for an h without factors, rank 0, a site out of range, or a
 * non-finite component (nothing is written then). */
int mcf_hamiltonian_set_field(mcf_hamiltonian *h, size_t site, const double *a);

/* The hopping amplitude * conj(a_i) . a_j of two fields of `rank` components, as the table
 * holds it: per component c, re_c = ai.re aj.re + ai.im aj.im and
 * im_c = ai.re aj.im - ai.im aj.re, summed over c in ascending order, then times the
 * amplitude (rank 0: the amplitude itself).  Written so that no compiler contracts it
 * into fused multiply-adds under ISO C (-ffp-contract=off); device code must use
 * round-to-nearest intrinsics for the same bits. */
static inline void mcf_factors_hop(int rank, double amplitude, const double *ai,
                                   const double *aj, double *re, double *im)
{
    if (rank == 0) {
        *re = amplitude;
        *im = 0.0;
        return;
    }
    double sr = 0.0, si = 0.0;
    for (int c = 0; c < rank; c++) {
        const double pr = ai[2 * c] * aj[2 * c], qr = ai[2 * c + 1] * aj[2 * c + 1];
        const double pi = ai[2 * c] * aj[2 * c + 1], qi = ai[2 * c + 1] * aj[2 * c];
        const double cr = pr + qr, ci = pi - qi;
        sr = c ? sr + cr : cr;
        si = c ? si + ci : ci;
    }
    *re = amplitude * sr;
    *im = amplitude * si;
}

#ifdef __cplusplus
}
#endif
#endif
