/* ed_internal.h — what the files of the ed evaluator share: the workspace and the functions
 * that one file calls in another.  Not installed and not part of the SDK: the plugin's only
 * interface is its descriptor (ed.c).
 *
 * Files: ed.c (the method; parameters, workspace, energy grid, the descriptor),
 * ed_diagonalize.c (the cached diagonalization with GSL), ed_spectra.c (DOS, LDOS and Green's
 * functions of one workspace), ed_thermodynamics.c (occupation, action and action differences
 * of one workspace), ed_batch.c (the fermion ops: argument checks and the OpenMP loop over
 * the workspaces of a batch), ed_density.c (density_matrix), ed_pf.c (pseudofermion),
 * ed_response.c (response: the two-dimensional moments), ed_vector_moments.c
 * (vector_moments: spectral functions).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message (mcf_fail).
 * Pointers are borrowed. */
#ifndef MCF_ED_INTERNAL_H
#define MCF_ED_INTERNAL_H

#include "mcf/mcf.h"

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_eigen.h>

typedef struct ed_ws {
    const mcf_hamiltonian *h; /* borrowed */
    size_t dim, points;
    double sigma;             /* Gaussian width = Lorentzian eta */
    double *eval;             /* dim eigenvalues, ascending */
    double *weight;           /* dim x dim, weight[r * dim + k] = |psi_k(r)|^2; lazy */
    int has_val, has_vec;
    uint64_t val_version, vec_version;
    double *grid;             /* points energies, refreshed by every op */
    double *dense;            /* 2 dim^2: scratch of change_action (dense H'), lazy, kept */
    double *eval2;            /* dim eigenvalues of H', ascending; lazy, with dense */
    gsl_eigen_symm_workspace *symm_ws; /* the real eigenvalue-only solver's, with dense */
    int gsl_complex;          /* [evaluator] eigensolver = gsl: GSL's complex solvers */
    int rc;                   /* status of this workspace in the current batch */
    char err[1024];           /* its message (the failing thread's, copied) */
} ed_ws;

/* ---- ed.c ---------------------------------------------------------------------------- */

/* The energy grid of h's current bounds into E (points values). */
void ed_grid(const ed_ws *w, double *E);

/* ---- ed_diagonalize.c ---------------------------------------------------------------- */

/* Diagonalizes w->h unless its current version has been diagonalized already (with
 * eigenvectors when need_vec): w->eval, and w->weight with need_vec. */
int ed_diagonalize(ed_ws *w, int need_vec);

/* The eigenvalues (ascending) of a dense matrix of order n, mat destroyed: complex
 * Hermitian (mat 2 n^2 interleaved) or real symmetric (the real parts of mat, packed in
 * place); with vec (2 n^2 scratch) not NULL also weight[r * n + k] = |psi_k(r)|^2; sw
 * GSL's real eigenvalue workspace when not NULL; gsl: GSL's complex solvers instead of
 * ed_eigen.c's ([evaluator] eigensolver = gsl).  A GSL status. */
int ed_eigen_complex(double *mat, double *vec, size_t n, double *eval, double *weight,
                     int gsl);
int ed_eigen_real(double *mat, double *vec, size_t n, double *eval, double *weight,
                  gsl_eigen_symm_workspace *sw);

/* ---- ed_eigen.c ----------------------------------------------------------------------- */

/* The eigenpairs of the complex Hermitian a (n x n, 2 n^2 interleaved, its lower triangle,
 * destroyed): eval ascending, z[2 (r n + k)] (+ 1) = psi_k(r) (z NULL: eigenvalues only).
 * 0; 1 when the QL iteration did not converge; -1 out of memory. */
int ed_eigen_hermitian(double *a, double *z, size_t n, double *eval);

/* ---- ed_spectra.c -------------------------------------------------------------------- */

/* The DOS of w on its grid into out (points values). */
int ed_dos_one(ed_ws *w, double *out);

/* The LDOS (im == NULL) or Green's functions (re, im) of n_rows rows, row j at
 * out[j * points ...]. */
int ed_rows_one(ed_ws *w, const size_t *rows, size_t n_rows, double *re, double *im);

/* ---- ed_thermodynamics.c ------------------------------------------------------------- */

int ed_occupation_one(ed_ws *w, double mu, double T, double *density, double *energy);

/* ed_occupation_one and the T-derivatives of density and energy (T > 0, checked by the
 * caller). */
int ed_occupation_dT_one(ed_ws *w, double mu, double T, double *density, double *energy,
                         double *ddensity, double *denergy);

/* dS of the change c (change_action), T and mu checked by the caller. */
int ed_delta_one(ed_ws *w, const mcf_change *c, double T, double mu, double *dS);

/* S_eff of the cached spectrum at m points (T, mu checked by the caller). */
int ed_action_one(ed_ws *w, size_t m, const double *T, const double *mu, double *S,
                  double *err);

/* ---- ed_batch.c: the ops of ABI 2's table (mcf/fermion.h) ------------------------ */

/* After a batch's OpenMP loop, which left each workspace's status in w->rc and its message
 * in w->err: MCF_OK, or the first failure's code with its message (naming the workspace
 * when n > 1). */
int ed_batch_status(void *const *ws, size_t n);

int ed_spectra(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs, mcf_spectra *s);
int ed_occupation(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                  double T, const mcf_occupation *out);
int ed_change_action(mcf_batch *b, void *const *ws, size_t n, const mcf_change *const *changes,
                     const double *T, const double *mu, double *dS, double *err);
int ed_action(mcf_batch *b, void *const *ws, size_t n, size_t m, const double *T,
              const double *mu, double *S, double *err);

/* ---- ed_density.c: density_matrix and pseudofermion (mcf 1.1) ------------------------ */
/* the eigenpairs of h (gsl: GSL's complex solver): eval ascending, vec[2 (r dim + k)] (re,
 * im) = psi_k(r) (2 dim^2) */
int ed_eigenpairs(const mcf_hamiltonian *h, int gsl, double *vec, double *eval);
/* ed_pf.c */
int ed_pseudofermion(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                     const double *T, const double *mu, mcf_pseudofermion *p);

int ed_density_matrix(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                      const double *T, const double *mu, const mcf_density_matrix *out);

/* ---- ed_response.c: response (mcf 1.2) ------------------------------------------------ */
int ed_response(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                const mcf_response *r);

/* ---- ed_vector_moments.c: vector_moments (mcf 1.2) ------------------------------------ */
int ed_vector_moments(mcf_batch *b, void *const *ws, size_t n, const mcf_vector_moments *r);
/* The scaling an op of the eigenbasis uses (response, vector_moments): the caller's `scale`
 * (checked against h's bounds) or mcf_hamiltonian_scaling(h, 0.01); h checked; `op` names it
 * in the messages. */
int ed_op_scale(const ed_ws *w, const double *scale, const char *op, double *a, double *b);

#endif
