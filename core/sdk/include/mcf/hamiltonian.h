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
 * and learn what changed from `version` and the change journal (below).
 *
 * Change journal.  Every Hamiltonian carries a core-owned ring buffer of the last
 * MCF_HAMILTONIAN_JOURNAL (version, row) records, so an evaluator that keeps a copy of H
 * (a GPU evaluator's device copy) can refresh only the rows that changed:
 *
 *     set(h, i, j, ...)        version++; records rows i and j with the new version
 *     set_onsite(h, r, ...)    version++; records row r
 *     fix_bounds(h, ...)       version++; records no row (no entry changed: an evaluator
 *                              that caches the scaling compares fixed_bounds/emin/emax)
 *     touch_all(h)             version++; "everything changed": every query with since
 *                              older than this version answers -1
 *
 * An evaluator remembers the version it last synced, v, and asks
 * mcf_hamiltonian_changed_rows(h, v, rows, max): 0 (nothing to do; also when only the
 * bounds changed), n > 0 (re-read these n rows, i.e. their onsite entry and their ELL
 * slots: by Hermiticity the partner entries are in rows listed too), or -1 (re-read
 * everything), then sets v = h->version.  Code that writes col/hop_re/hop_im/onsite
 * directly must call mcf_hamiltonian_touch_all() afterwards, or evaluators keep stale
 * rows.
 *
 * Spectral bounds: Gershgorin's theorem gives [emin, emax]; a model may instead fix the
 * bounds (e.g. Anderson: +-(z t + W/2) for every realization) so that curves of different
 * realizations share one energy grid.  KPM rescales H~ = (H - b) / a with
 * a = (emax - emin) / (2 - margin), b = (emax + emin) / 2. */
#ifndef MCF_HAMILTONIAN_H
#define MCF_HAMILTONIAN_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#include "mcf/lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- factorized hoppings (a model declares them: mcf/hamiltonian_factors.h) -------- */
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

/* ---- the Hamiltonian ------------------------------------------------------------------ */
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
    struct mcf_hamiltonian_journal *journal; /* core-owned: rows changed by recent changes */
    /* core-owned, NULL unless the model declared its hoppings factorized over a field on
     * the sites (mcf/hamiltonian_factors.h: mcf_hamiltonian_factorize) */
    const struct mcf_hamiltonian_factors *factors;
} mcf_hamiltonian;

/* Records kept by the change journal: (version, row) pairs; a set() takes two. */
#define MCF_HAMILTONIAN_JOURNAL 4096

/* An empty Hamiltonian (all zero, every slot empty).  sites >= 1, orbitals >= 1,
 * width >= 1.  *out owned by the caller: mcf_hamiltonian_destroy().  Errors: MCF_EINVAL,
 * MCF_ENOMEM. */
MCF_API int mcf_hamiltonian_create(size_t sites, int orbitals, int width, mcf_hamiltonian **out);
MCF_API void mcf_hamiltonian_destroy(mcf_hamiltonian *h);

/* Sets H[i][j] = re + i im and H[j][i] = re - i im (i != j): updates the existing entries
 * if the pair is present, otherwise takes the first free slot of both rows.  Errors:
 * MCF_EINVAL (i == j, out of range, non-finite, a full row: the message names the row
 * and the width; or a Hamiltonian whose hoppings are factorized, whose bonds change
 * through mcf_hamiltonian_set_field). */
MCF_API int mcf_hamiltonian_set(mcf_hamiltonian *h, size_t i, size_t j, double re, double im);

/* Nearest-neighbour hopping on a lattice (mcf/lattice.h; lattice->sites == h->sites):
 * H[(i,o)][(j,o)] = -t for every bond i-j and every orbital o of the site (a spin-diagonal
 * hopping), each bond once: sites i ascending, for each its even neighbour slots 0, 2, ...
 * (the ELL slots of a row therefore fill in that order, which KPM's rounding follows; a
 * model with its own loop in another order gets other last bits).  Errors as mcf_hamiltonian_set
 * (a full row), MCF_EINVAL for a lattice of another size or a periodic L = 2 lattice whose
 * table lists a neighbour twice (chain, square, cubic) (mcf_lattice_from_params' MCF_LATTICE_SIMPLE_BONDS). */
struct mcf_lattice;
MCF_API int mcf_hamiltonian_set_hopping(mcf_hamiltonian *h, const struct mcf_lattice *lattice,
                                        double t);

/* mcf 1.1: the same with twisted boundaries (mcf/lattice.h, mcf_lattice_twist): H[(i,o)][(j,o)]
 * = -t exp(i phi_ij), phi_ij the phase of mcf_lattice_bond_phase, in the same order as
 * mcf_hamiltonian_set_hopping; theta NULL or all zero writes exactly what
 * mcf_hamiltonian_set_hopping writes.  Errors as mcf_hamiltonian_set_hopping. */
MCF_API int mcf_hamiltonian_set_hopping_twisted(mcf_hamiltonian *h,
                                                const struct mcf_lattice *lattice, double t,
                                                const double *theta);

/* mcf 1.2: the same with a uniform field of flux phi per plaquette as well (mcf/lattice.h,
 * mcf_lattice_field_phase): H[(i,o)][(j,o)] = -t exp(i (phi_twist + a_field)), in the same
 * order; phi = 0 writes exactly what mcf_hamiltonian_set_hopping_twisted writes.  Errors as
 * mcf_hamiltonian_set_hopping_twisted. */
MCF_API int mcf_hamiltonian_set_hopping_gauged(mcf_hamiltonian *h,
                                               const struct mcf_lattice *lattice, double t,
                                               const double *theta, double phi);

/* Sets the diagonal entry of row r.  MCF_EINVAL when out of range or not finite. */
MCF_API int mcf_hamiltonian_set_onsite(mcf_hamiltonian *h, size_t r, double e);

/* Fixes the spectral bounds (emin < emax, both finite) used instead of Gershgorin's. */
MCF_API int mcf_hamiltonian_fix_bounds(mcf_hamiltonian *h, double emin, double emax);

/* The rows changed since version `since` (the version an evaluator last synced):
 *   - since == h->version: returns 0;
 *   - otherwise, when every change with a version in (since, h->version] is still in the
 *     journal and they touch at most max_rows distinct rows: writes those rows, distinct
 *     and ascending, to rows[0..n) and returns n (0 when the only changes were
 *     fix_bounds());
 *   - otherwise returns -1, meaning "re-read the whole Hamiltonian": records of the range
 *     were overwritten (more than MCF_HAMILTONIAN_JOURNAL records since `since`), since >
 *     h->version, since is older than the last mcf_hamiltonian_touch_all(), more than
 *     max_rows distinct rows changed, h or its journal is NULL, or out of memory.
 * rows may be NULL when max_rows is 0.  Cost: O(records since `since`) plus sorting them;
 * nothing proportional to dim.  Does not modify h; concurrent queries of one h are safe,
 * a query concurrent with a change is not. */
MCF_API long mcf_hamiltonian_changed_rows(const mcf_hamiltonian *h, uint64_t since, size_t *rows,
                                          size_t max_rows);

/* For code that writes col/hop_re/hop_im/onsite directly: version++, and the journal
 * records that every row changed (queries with since < the new version return -1; later
 * changes are tracked again from it).  Does nothing when h is NULL. */
MCF_API void mcf_hamiltonian_touch_all(mcf_hamiltonian *h);

/* Spectral bounds: the fixed ones, or Gershgorin's discs (min/max of
 * onsite_r -+ sum_k |H_rk|).  Cannot fail on a valid h. */
MCF_API void mcf_hamiltonian_bounds(const mcf_hamiltonian *h, double *emin, double *emax);

/* The rescaling H~ = (H - b) / a onto [-1 + margin/2, 1 - margin/2] (0 <= margin < 1;
 * 0.01 is customary).  Writes a and b. */
MCF_API void mcf_hamiltonian_scaling(const mcf_hamiltonian *h, double margin, double *a, double *b);

/* y = alpha (H x) + beta y for complex vectors stored as separate re/im arrays of length
 * dim: the reference product, for tests and exact methods.  Borrowed arrays; x and y must
 * not overlap. */
MCF_API void mcf_hamiltonian_apply(const mcf_hamiltonian *h, const double *x_re, const double *x_im,
                                   double alpha, double beta, double *y_re, double *y_im);

/* Writes the dense matrix, row-major, interleaved complex (2 dim^2 doubles, caller's
 * buffer): for exact diagonalization. */
MCF_API void mcf_hamiltonian_dense(const mcf_hamiltonian *h, double *out);

/* Checks Hermiticity and the ELL structure (every entry has its conjugate partner, no
 * duplicate columns in a row, finite values).  MCF_EINVAL with the first offending row. */
MCF_API int mcf_hamiltonian_check(const mcf_hamiltonian *h);

#ifdef __cplusplus
}
#endif
#endif
