/* mcf/change.h — a finite-rank Hermitian change of a tight-binding Hamiltonian, the
 * question a fermion model asks its evaluator at every Metropolis step.
 *
 * What it holds: Delta = H' - H written as
 *
 *     Delta = sum_{a,b < rank} |u_a> C_ab <u_b|,      C Hermitian (rank x rank),
 *
 * with sparse vectors u_a (at most MCF_CHANGE_ENTRIES nonzeros each, distinct rows) and
 * rank <= MCF_CHANGE_RANK.  Every local move of a lattice model is such a change:
 *
 *   on-site energy of row r shifted by e   rank 1: u_0 = |r>, C = [[e]]  (traceful)
 *   a bond i-j changed by t                rank 2: u = {|i>, |j>}, C = [[0, t], [t*, 0]]
 *   a site o with all its bonds            rank 2: u = {|o>, |v>}, |v> = sum_j dH_jo |j>,
 *                                          C = [[dH_oo, 1], [1, 0]]
 *   a spin block of site o (2 orbitals)    rank <= 2: u = {|o up>, |o down>}, C the block
 *   several distant sites                  one pair (or one vector) per site, rank <= 8
 *
 * Most models never fill the arrays by hand: mcf_change_from_block() takes the dense block
 * of H' - H on the rows a move touches and finds the smallest rank by itself, and
 * mcf_change_onsite() writes the rank-1 on-site change.
 *
 * What it does not hold: the Hamiltonian itself (the evaluator's workspace has it), nor
 * any hardware or model state.  A change is plain data (about 7 KB): a model keeps one per
 * chain and hands pointers to a batched evaluator op (mcf/fermion.h, change_action).
 *
 * This supersedes mcf_local_change (rank <= 2, 16 entries, mcf/fermion.h), which stays for
 * plugins built against mcf 0.2: mcf_change_from_local() converts one into the other. */
#ifndef MCF_CHANGE_H
#define MCF_CHANGE_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_CHANGE_RANK 8     /* largest rank of a change */
#define MCF_CHANGE_ENTRIES 32 /* largest number of nonzeros of one vector u_a */

typedef struct mcf_change {
    int rank;                                            /* 1 .. MCF_CHANGE_RANK */
    int entries[MCF_CHANGE_RANK];                        /* nonzeros of u_a, 1 .. ENTRIES */
    int64_t row[MCF_CHANGE_RANK][MCF_CHANGE_ENTRIES];    /* distinct within u_a, < dim */
    double re[MCF_CHANGE_RANK][MCF_CHANGE_ENTRIES];      /* amplitudes of u_a */
    double im[MCF_CHANGE_RANK][MCF_CHANGE_ENTRIES];
    double c_re[MCF_CHANGE_RANK][MCF_CHANGE_RANK];       /* C, Hermitian */
    double c_im[MCF_CHANGE_RANK][MCF_CHANGE_RANK];
} mcf_change;

/* Checks a change (borrowed) against a Hamiltonian of dimension dim: rank, entry counts,
 * rows in range and distinct within a vector, finite values, C Hermitian (to 1e-12 of its
 * largest entry).  MCF_EINVAL with a message naming the first problem. */
MCF_API int mcf_change_check(const mcf_change *c, size_t dim);

/* The rank-1 change of one diagonal entry: H'_rr = H_rr + delta.  Writes rank, entries[0]
 * and the [0][0] elements only (what a change of rank 1 with one entry consists of; no
 * reader looks past rank and entries), so a move can carry an mcf_change at no cost per
 * proposal.  Cannot fail (the check catches a row out of range or a non-finite delta). */
MCF_API void mcf_change_onsite(mcf_change *c, size_t r, double delta);

/* The change whose nonzero entries are the n x n Hermitian block B = H' - H on the rows
 * rows[0..n) (distinct; n <= MCF_CHANGE_ENTRIES), given row-major as re[i n + j] and
 * im[i n + j] (im may be NULL for a real block): B_ij = (H' - H)[rows[i]][rows[j]].
 * Finds the smallest rank: B = sum_k |w_k> lambda_k <w_k| from its eigenvectors, keeping
 * the eigenvalues with |lambda_k| > 1e-13 max|lambda|; u_k = w_k (entries below 1e-15 of
 * the vector's largest dropped), C = diag(lambda_k).  A zero block gives rank 1 with
 * C = [[0]] (dS = 0).  Overwrites *c.  Deterministic (the same block gives the same
 * bits).  Errors: MCF_EINVAL (n out of range, a repeated row, a non-finite entry, a block
 * that is not Hermitian to 1e-12 of its largest entry, or a rank above MCF_CHANGE_RANK:
 * the message names the rank and says to split the move), MCF_ENOMEM. */
MCF_API int mcf_change_from_block(mcf_change *c, const int64_t *rows, int n, const double *re,
                                  const double *im);

/* Adds Delta to the dense row-major interleaved-complex matrix m (2 dim^2 doubles, as
 * written by mcf_hamiltonian_dense): for exact methods.  c must pass the check. */
MCF_API void mcf_change_add_dense(const mcf_change *c, size_t dim, double *m);

/* The trace of Delta, sum_ab C_ab <u_b|u_a> (real for a Hermitian change). */
MCF_API double mcf_change_trace(const mcf_change *c);

#ifdef __cplusplus
}
#endif
#endif
