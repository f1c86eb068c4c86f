/* mcf/abi1_orbital.h — ABI 1's orbital evaluator table (mcf_orbital_ops), private to mcf.
 *
 * Not installed: since mcf 1.0 (ABI 2) the public headers describe ABI 2 only.  This is
 * what plugins built against mcf 0.1-0.8 have in their binaries, moved here verbatim from
 * the public header of mcf 0.8, so the layouts never change: the SDK's adapters (the
 * core/sdk files named abi1) call such an evaluator, and the tests that exist to check
 * that path build against these headers (docs/sdk-1.md, "The flip").  A new evaluator is
 * written for ABI 2; one that must stay ABI 1 builds against the frozen headers of an older
 * mcf. */
#ifndef MCF_ABI1_ORBITAL_H
#define MCF_ABI1_ORBITAL_H

#include "mcf/abi1_plugin.h"
#include "mcf/orbital.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One walker of the walker_sweep op (below): a Slater-Jastrow wave function
 * Psi = det A_up det A_down exp(sum_{i<j} u_{s_i s_j}(r_ij)) of N = m_up + m_down electrons,
 * electrons 0 .. m_up - 1 spin up. */
typedef struct mcf_walker_moves {
    void *det[2];            /* the up and down determinants (NULL for an empty spin) */
    double *r;               /* N x 3: the positions (those of the dets); moved on return */
    const double *trial;     /* N x 3: the trial positions given to det_trial this sweep */
    mcf_rng *rng;            /* the stream the decisions are drawn from; advanced on return */
    unsigned char *accepted; /* N: 1 where the move was accepted, written */
    double *log_ratio;       /* N or NULL: each move's log |Psi'/Psi|^2, written */
} mcf_walker_moves;

typedef struct mcf_orbital_ops {
    uint32_t struct_size;  /* sizeof(mcf_orbital_ops) the plugin was built with */

    /* A workspace for the orbitals o (borrowed during the call only) with validated
     * [evaluator] params (borrowed until destroy).  *ws is freed with destroy().  Errors:
     * MCF_EINVAL (e.g. a grid too coarse for the orbitals' cutoff: the message names the
     * minimum), MCF_ENOMEM. */
    int (*create)(const mcf_params *params, const mcf_pw_orbitals *o, void **ws);
    void (*destroy)(void *ws);

    /* L, the number of orbitals. */
    size_t (*orbitals)(const void *ws);

    /* For n workspaces: the values of all L orbitals at n_points[k] points r[k] (3 doubles
     * each, anywhere: positions are reduced into the cell) into phi[k] (n_points[k] x L). */
    int (*values)(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
                  double *const *phi);

    /* The same with gradients and Laplacians (grad: n_points x L x 3, lap: n_points x L). */
    int (*vgl)(void *const *ws, size_t n, const double *const *r, const size_t *n_points,
               double *const *phi, double *const *grad, double *const *lap);

    /* ---- Optional, appended: Slater determinants kept by the evaluator ----------------
     * An evaluator whose orbitals live on a device can keep a walker's Slater matrices
     * there too, so that a particle-by-particle sweep moves a few numbers per step instead
     * of orbital rows.  Either all nine ops below are set or none (NULL: the model keeps
     * its matrices itself); the loader checks it.  A caller checks struct_size first.
     *
     * A determinant `det` belongs to one workspace ws and holds m <= L electrons in the
     * first m orbitals:  A[i * m + l] = phi_l(r_i) (row = electron), its inverse
     * Ainv[l * m + i] (A Ainv = 1), the electrons' positions r (m x 3), and their trial
     * positions with the orbital rows there (det_trial).  The mathematics is the model's:
     *   ratio of moving electron i to its trial position r_i':  R = sum_l phi_l(r_i') Ainv[l][i],
     *   accept (Sherman-Morrison):  w = v^T Ainv (v the trial row, w_i = R),
     *                               Ainv[:, j] -= Ainv[:, i] (w_j - delta_ij) / R,  A[i] = v.
     * An evaluator may apply an accepted move lazily (at the next op on that det) and
     * must give the same numbers as if it had not.  Ops taking n dets run them as one
     * batch (one device launch); a det appears at most once per call.  Errors: MCF_EINVAL
     * (bad arguments, naming them), MCF_ENOMEM, MCF_EDEVICE. */

    /* A determinant of m electrons (1 <= m <= L) over workspace ws (which must outlive it);
     * contents undefined until det_set.  Freed with det_destroy. */
    int (*det_create)(void *ws, size_t m, void **det);
    void (*det_destroy)(void *det);

    /* Loads positions r (m x 3), rows A and inverse Ainv (the layouts above; borrowed) into
     * det, replacing everything, pending moves included. */
    int (*det_set)(void *det, const double *r, const double *A, const double *Ainv);

    /* Copies the current positions, rows and inverse out (any of them may be NULL). */
    int (*det_get)(void *det, double *r, double *A, double *Ainv);

    /* For n dets: the trial positions r_trial[k] (m x 3) of all m electrons of det k and the
     * orbital rows there, kept for det_ratio / det_accept until the next det_trial. */
    int (*det_trial)(void *const *det, size_t n, const double *const *r_trial);

    /* For n dets: ratio[k] = R of moving electron electron[k] (< m) of det k from its
     * current position to its trial position. */
    int (*det_ratio)(void *const *det, size_t n, const size_t *electron, double *ratio);

    /* The move of the last det_ratio on det (that electron) is accepted: the electron is at
     * its trial position from now on, A and Ainv follow (Sherman-Morrison).  MCF_EINVAL when
     * electron is not the one of the last det_ratio or that ratio was 0. */
    int (*det_accept)(void *det, size_t electron);

    /* For n dets: drift[k] = max_lj |sum_i Ainv[l][i] A[i][j] - delta_lj|, the rounding the
     * updates have accumulated; then, when drift[k] < 0.25, Ainv is brought back to
     * rounding accuracy from A (the evaluator chooses how, e.g. a Newton step
     * Ainv <- Ainv - (Ainv A - 1) Ainv, or a fresh LU).  When drift[k] >= 0.25 the det is
     * left as it is and the caller recomputes the inverse itself (det_get, det_set). */
    int (*det_refresh)(void *const *det, size_t n, double *drift);

    /* For n dets, at the current positions: grad_ratio[k] (m x 3) = grad_i D / D and
     * lap_ratio[k] (m) = lap_i D / D for every electron i (D = det A): the Slater
     * determinant's part of the local kinetic energy. */
    int (*det_local)(void *const *det, size_t n, double *const *grad_ratio,
                     double *const *lap_ratio);

    /* ---- Optional, appended (NULL: not offered; needs the determinant ops) -------------
     * A whole particle-by-particle Metropolis sweep of n walkers (mcf_walker_moves) made by
     * the evaluator where its determinants are, with no round trip per move: electrons 0 ..
     * N-1 in order, each moved to its trial position (det_trial) with log ratio
     *     log |Psi'/Psi|^2 = 2 log |R| + 2 sum_{j != e} [u(|r_e' - r_j|) - u(|r_e - r_j|)]
     * (R the determinant ratio, R = 0 giving -infinity; u = u[0] for like spins, u[1] for
     * unlike, the separation the nearest image in the orthorhombic cell[3]) and decided by
     * mcf_metropolis_accept (mcf/rng_device.h) from the walker's stream, the draws in the
     * order the core's loop would make them.  The inverses follow exactly (delayed rank-k
     * updates with k = delay, 0: the evaluator's choice; all applied on return).  Errors as
     * the determinant ops; MCF_EPLUGIN when a log ratio is NaN (the walker named). */
    int (*walker_sweep)(mcf_walker_moves *w, size_t n, const mcf_pair_function u[2],
                        const double cell[3], size_t delay);
} mcf_orbital_ops;

/* The size of mcf_orbital_ops up to and including the optional determinant ops: a caller
 * uses them only when ops->struct_size >= MCF_ORBITAL_OPS_DET_SIZE and det_create != NULL. */
#define MCF_ORBITAL_OPS_DET_SIZE \
    (offsetof(mcf_orbital_ops, det_local) + sizeof(void *))

#ifdef __cplusplus
}
#endif
#endif
