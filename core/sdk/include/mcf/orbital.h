/* mcf/orbital.h — the vtable of an orbital evaluator (kind MCF_PLUGIN_ORBITAL_EVALUATOR).
 *
 * An orbital evaluator knows one piece of mathematics on one kind of hardware: the values,
 * gradients and Laplacians of a set of L real single-particle orbitals phi_l(r) in a
 * periodic orthorhombic cell, at batches of points.  It never knows which model asked.  The
 * model (a Slater-Jastrow wave function, say) describes its orbitals once, by their
 * plane-wave expansion, and creates one workspace per chain (walker); the batched ops take
 * the workspaces of many chains at once, so a GPU evaluator gets enough work to fill the
 * device (all N trial positions of a sweep, for every walker, in one call).
 *
 * Orbitals.  Real orbitals in the cell [0, Lx) x [0, Ly) x [0, Lz), periodic:
 *
 *     phi_l(r) = sum_g [ a_lg cos(G_g . r) + b_lg sin(G_g . r) ],
 *     G_g = 2 pi (n_g,x / Lx, n_g,y / Ly, n_g,z / Lz),  n_g integer triples,
 *
 * (for the homogeneous electron gas: one G per orbital, a = 1 or b = 1: the cos/sin pairs
 * of the Gamma-point plane waves).  An evaluator may represent them differently (blips:
 * cubic B-splines on a grid fitted by FFT) and says so in its documentation; `planewave`
 * sums the series directly and is the exact reference.
 *
 * Layout of results: orbital index fastest.  For point p of a batch,
 *     phi[p * L + l],  grad[(p * L + l) * 3 + d] (d = x, y, z),  lap[p * L + l].
 * Units: the cell's (bohr for electrons); the Laplacian is d2/dx2 + d2/dy2 + d2/dz2. */
#ifndef MCF_ORBITAL_H
#define MCF_ORBITAL_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>
#include "mcf/batch.h"
#include "mcf/params.h"
#include "mcf/pair_function.h"
#include "mcf/rng.h"

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

/* The plane-wave description of L real orbitals (see above).  Borrowed by create(), which
 * copies what it keeps. */
typedef struct mcf_pw_orbitals {
    double cell[3];         /* Lx, Ly, Lz > 0 */
    size_t n_orbitals;      /* L >= 1 */
    size_t n_g;             /* plane waves >= 1 */
    const int32_t *g;       /* n_g x 3 integer triples n_g (no two equal) */
    const double *cos_coef; /* n_orbitals x n_g: a_lg (row l) */
    const double *sin_coef; /* n_orbitals x n_g: b_lg */
} mcf_pw_orbitals;

/* Checks an orbital description (borrowed): positive finite cell, L >= 1, n_g >= 1, distinct G
 * triples, finite coefficients.  MCF_EINVAL with a message naming the first problem. */
MCF_API int mcf_pw_orbitals_check(const mcf_pw_orbitals *o);

/* The largest |G|^2 (in the cell's units) among the plane waves with a nonzero
 * coefficient: the cutoff an evaluator's grid must resolve. */
MCF_API double mcf_pw_orbitals_gmax2(const mcf_pw_orbitals *o);

/* For evaluator plugins: checks a batch of the values/vgl ops (non-NULL arrays, one entry
 * per workspace, finite positions; grad and lap only when want_gl) and flattens it: on
 * success *offsets (n + 1 entries, malloc'ed: the caller free()s it; NULL when n = 0) holds
 * the first flat point index of each workspace and *total the number of points.  `who`
 * and `op` name the evaluator and op in messages.  Errors: MCF_EINVAL naming the
 * workspace, array or coordinate; MCF_ENOMEM. */
MCF_API int mcf_orbital_batch_check(const char *who, const char *op, void *const *ws, size_t n,
                                    const double *const *r, const size_t *n_points,
                                    double *const *phi, double *const *grad, double *const *lap,
                                    int want_gl, size_t **offsets, size_t *total);

/* The workspace of flat point q of a batch flattened by mcf_orbital_batch_check: the last
 * k < n with offsets[k] <= q.  Cannot fail for q < total. */
MCF_API size_t mcf_orbital_batch_owner(const size_t *offsets, size_t n, size_t q);

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

/* ==== ABI 2 (docs/sdk-1.md): mcf_orbital_evaluator =======================================
 *
 * The same mathematics as mcf_orbital_ops in 11 operations instead of 15:
 *   - every computing op gets the core's batch (mcf/batch.h): what an evaluator keeps per
 *     batch (device buffers, job lists) lives in its keep slots (mcf_batch_keep), never in a
 *     first workspace or a file static;
 *   - create gets the descriptor's app_data; `orbitals` goes (the model described them);
 *   - values and vgl are one op, evaluate (grad and lap NULL: values only);
 *   - a walker's workspace holds its two Slater determinants, addressed by (workspace,
 *     spin) with spin 0 (up) or 1 (down): det_create and det_destroy go (det_set with m
 *     electrons makes one, m = 0 empties it; destroy frees them with the workspace);
 *   - `provides` bits instead of NULL checks: every op of a bit it states is set.
 * Each determinant op means what ABI 1's does (above: rows A[i * m + l], inverse
 * Ainv[l * m + i], Sherman-Morrison on accept, lazily if the evaluator likes, the same
 * numbers either way).  Batched determinant ops take n (ws[k], spin[k]) pairs, each pair at
 * most once per call, and run them as one batch (one device launch).  Errors: MCF_EINVAL
 * (bad arguments, naming them), MCF_ENOMEM, MCF_EDEVICE; an op the evaluator does not
 * provide is NULL and never called. */

/* What an orbital evaluator provides beyond create, destroy and evaluate (its `provides`;
 * also the `needs` of mcf_orbital_bind, mcf/orbital_model.h). */
enum {
    MCF_ORBITAL_VALUES = 1u << 0,       /* evaluate: orbitals, gradients, Laplacians (always) */
    MCF_ORBITAL_DETERMINANTS = 1u << 1, /* det_set .. det_local: the walkers' determinants */
    MCF_ORBITAL_WALKER_SWEEP = 1u << 2  /* walker_sweep (with the determinants) */
};

/* One walker of walker_sweep (ABI 2): as mcf_walker_moves, the determinants being those of
 * the walker's workspace (det_set: m_up = its spin-0 electrons, 0 .. m_up - 1, then the
 * spin-1 ones). */
typedef struct mcf_walker {
    void *ws;                /* the walker's workspace */
    double *r;               /* N x 3: the positions (those of the dets); moved on return */
    const double *trial;     /* N x 3: the trial positions given to det_trial this sweep */
    mcf_rng *rng;            /* the stream the decisions are drawn from; advanced on return */
    unsigned char *accepted; /* N: 1 where the move was accepted, written */
    double *log_ratio;       /* N or NULL: each move's log |Psi'/Psi|^2, written */
} mcf_walker;

typedef struct mcf_orbital_evaluator {
    uint32_t struct_size;  /* sizeof(mcf_orbital_evaluator) the plugin was built with */
    unsigned provides;     /* MCF_ORBITAL_* bits (MCF_ORBITAL_VALUES is implied) */

    /* A workspace for the orbitals o (borrowed during the call only) with the validated
     * [evaluator] params (borrowed until destroy) and the descriptor's app_data; it holds
     * two empty determinants.  destroy frees it with its determinants. */
    int (*create)(const mcf_params *params, const mcf_pw_orbitals *o, void *app_data,
                  void **ws);
    void (*destroy)(void *ws);

    /* For n workspaces: the L orbitals' values at n_points[k] points r[k] into phi[k], and
     * when grad and lap are not NULL their gradients and Laplacians (ABI 1's values and
     * vgl; the layouts above). */
    int (*evaluate)(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                    const size_t *n_points, double *const *phi, double *const *grad,
                    double *const *lap);

    /* Determinant `spin` of ws: m electrons (m <= L; 0 empties it) at r (m x 3) with rows A
     * and inverse Ainv (borrowed), replacing everything, pending moves and trial positions
     * included (ABI 1's det_create + det_set). */
    int (*det_set)(void *ws, int spin, size_t m, const double *r, const double *A,
                   const double *Ainv);
    /* Its current positions, rows and inverse (any may be NULL; ABI 1's det_get). */
    int (*det_get)(void *ws, int spin, double *r, double *A, double *Ainv);

    /* For n determinants (ws[k], spin[k]): ABI 1's det_trial, det_ratio, det_refresh and
     * det_local; det_accept of one. */
    int (*det_trial)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                     const double *const *r_trial);
    int (*det_ratio)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                     const size_t *electron, double *ratio);
    int (*det_accept)(mcf_batch *b, void *ws, int spin, size_t electron);
    int (*det_refresh)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                       double *drift);
    int (*det_local)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                     double *const *grad_ratio, double *const *lap_ratio);

    /* ABI 1's walker_sweep for n walkers (mcf_walker). */
    int (*walker_sweep)(mcf_batch *b, const mcf_walker *w, size_t n,
                        const mcf_pair_function u[2], const double cell[3], size_t delay);
} mcf_orbital_evaluator;

/* The size of mcf_orbital_ops up to and including the optional determinant ops: a caller
 * uses them only when ops->struct_size >= MCF_ORBITAL_OPS_DET_SIZE and det_create != NULL. */
#define MCF_ORBITAL_OPS_DET_SIZE \
    (offsetof(mcf_orbital_ops, det_local) + sizeof(void *))

#ifdef __cplusplus
}
#endif
#endif
