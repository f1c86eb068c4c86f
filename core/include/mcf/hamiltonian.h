/* mcf/hamiltonian.h — the tight-binding Hamiltonian shared by lattice models and fermion
 * evaluators.
 *
 * H is Hermitian, of dimension dim = sites x orbitals (row r = site * orbitals + orbital).
 * The diagonal is real and stored in `onsite`; every off-diagonal entry (hoppings, and
 * intra-site terms such as -J_H S.sigma between the two spin orbitals of a site) lives in
 * an ELL table of fixed row width, stored structure-of-arrays and slot-major:
 *
 *     entry k of row r:  col[k * dim + r],  hop_re[k * dim + r],  hop_im[k * dim + r]
 *
 * so consecutive rows of one slot are consecutive in memory (a GPU warp reads 32 rows of a
 * slot coalesced).  Unused slots have col = -1 and a zero amplitude.  The model owns the
 * Hamiltonian and changes it through the functions below, which keep H Hermitian (an
 * entry (i, j) and its partner (j, i) always change together); evaluators only read it,
 * and learn what changed from `version` and the rows they are told about.
 *
 * Spectral bounds: Gershgorin's theorem gives [emin, emax]; a model may instead fix the
 * bounds (e.g. Anderson: +-(z t + W/2) for every realization) so that curves of different
 * realizations share one energy grid.  KPM rescales H~ = (H - b) / a with
 * a = (emax - emin) / (2 - margin), b = (emax + emin) / 2. */
#ifndef MCF_HAMILTONIAN_H
#define MCF_HAMILTONIAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_hamiltonian {
    size_t sites;
    int orbitals;        /* per site */
    size_t dim;          /* sites x orbitals */
    int width;           /* ELL slots per row */
    int32_t *col;        /* width x dim, slot-major; -1 = empty */
    double *hop_re;      /* width x dim */
    double *hop_im;      /* width x dim */
    double *onsite;      /* dim, real diagonal */
    int fixed_bounds;    /* 1 when the model fixed emin/emax */
    double emin, emax;   /* valid when fixed_bounds */
    uint64_t version;    /* incremented by every change */
} mcf_hamiltonian;

/* An empty Hamiltonian (all zero, every slot empty).  sites >= 1, orbitals >= 1,
 * width >= 1.  *out owned by the caller: mcf_hamiltonian_destroy().  Errors: MCF_EINVAL,
 * MCF_ENOMEM. */
int mcf_hamiltonian_create(size_t sites, int orbitals, int width, mcf_hamiltonian **out);
void mcf_hamiltonian_destroy(mcf_hamiltonian *h);

/* Sets H[i][j] = re + i im and H[j][i] = re - i im (i != j): updates the existing entries
 * if the pair is present, otherwise takes the first free slot of both rows.  Errors:
 * MCF_EINVAL (i == j, out of range, non-finite, or a full row: the message names the row
 * and the width). */
int mcf_hamiltonian_set(mcf_hamiltonian *h, size_t i, size_t j, double re, double im);

/* Sets the diagonal entry of row r.  MCF_EINVAL when out of range or not finite. */
int mcf_hamiltonian_set_onsite(mcf_hamiltonian *h, size_t r, double e);

/* Fixes the spectral bounds (emin < emax, both finite) used instead of Gershgorin's. */
int mcf_hamiltonian_fix_bounds(mcf_hamiltonian *h, double emin, double emax);

/* Spectral bounds: the fixed ones, or Gershgorin's discs (min/max of
 * onsite_r -+ sum_k |H_rk|).  Cannot fail on a valid h. */
void mcf_hamiltonian_bounds(const mcf_hamiltonian *h, double *emin, double *emax);

/* The rescaling H~ = (H - b) / a onto [-1 + margin/2, 1 - margin/2] (0 <= margin < 1;
 * 0.01 is customary).  Writes a and b. */
void mcf_hamiltonian_scaling(const mcf_hamiltonian *h, double margin, double *a, double *b);

/* y = alpha (H x) + beta y for complex vectors stored as separate re/im arrays of length
 * dim: the reference product, for tests and exact methods.  Borrowed arrays; x and y must
 * not overlap. */
void mcf_hamiltonian_apply(const mcf_hamiltonian *h, const double *x_re, const double *x_im,
                           double alpha, double beta, double *y_re, double *y_im);

/* Writes the dense matrix, row-major, interleaved complex (2 dim^2 doubles, caller's
 * buffer): for exact diagonalization. */
void mcf_hamiltonian_dense(const mcf_hamiltonian *h, double *out);

/* Checks Hermiticity and the ELL structure (every entry has its conjugate partner, no
 * duplicate columns in a row, finite values).  MCF_EINVAL with the first offending row. */
int mcf_hamiltonian_check(const mcf_hamiltonian *h);

#ifdef __cplusplus
}
#endif
#endif
