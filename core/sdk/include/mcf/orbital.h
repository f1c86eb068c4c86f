/* mcf/orbital.h — the vtable of an orbital evaluator (kind MCF_PLUGIN_ORBITAL_EVALUATOR).
 *
 * An orbital evaluator knows one piece of mathematics on one kind of hardware: the values,
 * gradients and Laplacians of a set of L real single-particle orbitals phi_l(r) in a
 * periodic orthorhombic cell, at batches of points.  It never knows which model asked.  The
 * model (a Slater-Jastrow wave function, say) describes its orbitals once, by their
 * plane-wave expansion, and creates one workspace per chain (walker); the batched ops take
 * the workspaces of many chains at once, so a GPU evaluator gets enough work to fill the
 * device (all N trial positions of a sweep, for every walker, in one call).  ABI 1's table
 * (mcf_orbital_ops, mcf 0.1-0.8) is no longer declared here: evaluators built with it keep
 * working through the SDK's adapter.
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

/* For evaluator plugins: checks a batch of evaluate (non-NULL arrays, one entry
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

/* ==== The evaluator's table (ABI 2): mcf_orbital_evaluator ===============================
 *
 * Every computing op gets the core's batch (mcf/batch.h): what an evaluator keeps per batch
 * (device buffers, job lists) lives in its keep slots (mcf_batch_keep), never in a first
 * workspace or a file static.  What an evaluator has beyond create, destroy and evaluate is
 * its `provides` bits: every op of a bit it states is set; an op it does not provide is NULL
 * and never called.
 *
 * Slater determinants kept by the evaluator (MCF_ORBITAL_DETERMINANTS).  An evaluator whose
 * orbitals live on a device can keep a walker's Slater matrices there too, so that a
 * particle-by-particle sweep moves a few numbers per step instead of orbital rows.  A
 * walker's workspace holds two determinants, addressed by (workspace, spin) with spin 0
 * (up) or 1 (down).  A determinant holds m <= L electrons in the first m orbitals:
 * A[i * m + l] = phi_l(r_i) (row = electron), its inverse Ainv[l * m + i] (A Ainv = 1), the
 * electrons' positions r (m x 3), and their trial positions with the orbital rows there
 * (det_trial).  The mathematics is the model's:
 *   ratio of moving electron i to its trial position r_i':  R = sum_l phi_l(r_i') Ainv[l][i],
 *   accept (Sherman-Morrison):  w = v^T Ainv (v the trial row, w_i = R),
 *                               Ainv[:, j] -= Ainv[:, i] (w_j - delta_ij) / R,  A[i] = v.
 * An evaluator may apply an accepted move lazily (at the next op on that determinant) and
 * must give the same numbers as if it had not.  Batched determinant ops take n (ws[k],
 * spin[k]) pairs, each pair at most once per call, and run them as one batch (one device
 * launch).  Errors: MCF_EINVAL (bad arguments, naming them), MCF_ENOMEM, MCF_EDEVICE. */

/* What an orbital evaluator provides beyond create, destroy and evaluate (its `provides`;
 * also the `needs` of mcf_orbital_bind, mcf/orbital_model.h). */
enum {
    MCF_ORBITAL_VALUES = 1u << 0,       /* evaluate: orbitals, gradients, Laplacians (always) */
    MCF_ORBITAL_DETERMINANTS = 1u << 1, /* det_set .. det_local: the walkers' determinants */
    MCF_ORBITAL_WALKER_SWEEP = 1u << 2, /* walker_sweep (with the determinants) */
    MCF_ORBITAL_DRIFT_SWEEP = 1u << 3   /* walker_drift_sweep (mcf 1.2, appended; with the
                                           determinants) */
};

/* One walker of walker_sweep: a Slater-Jastrow wave function
 * Psi = det A_up det A_down exp(sum_{i<j} u_{s_i s_j}(r_ij)) of N = m_up + m_down electrons,
 * the determinants being those of the walker's workspace (det_set: electrons 0 .. m_up - 1
 * are its spin-0 ones, then the spin-1 ones). */
typedef struct mcf_walker {
    void *ws;                /* the walker's workspace */
    double *r;               /* N x 3: the positions (those of the dets); moved on return */
    const double *trial;     /* N x 3: the trial positions given to det_trial this sweep */
    mcf_rng *rng;            /* the stream the decisions are drawn from; advanced on return */
    unsigned char *accepted; /* N: 1 where the move was accepted, written */
    double *log_ratio;       /* N or NULL: each move's log |Psi'/Psi|^2, written */
} mcf_walker;

/* One walker of walker_drift_sweep (mcf 1.2): the walker of walker_sweep (w.trial is not
 * read: the trial points are made during the sweep, each from the drift at its turn) and
 * what its drift-diffusion moves need. */
typedef struct mcf_drift_walker {
    mcf_walker w;
    const double *chi; /* N x 3: the sweep's Gaussians, electron e's at 3 e (borrowed) */
    double tau;        /* the time step (> 0, finite) */
    int fixed_node;    /* 1: a move whose determinant ratio is negative is refused */
    int reserved;      /* 0 */
} mcf_drift_walker;

typedef struct mcf_orbital_evaluator {
    uint32_t struct_size;  /* sizeof(mcf_orbital_evaluator) the plugin was built with */
    unsigned provides;     /* MCF_ORBITAL_* bits (MCF_ORBITAL_VALUES is implied) */

    /* A workspace for the orbitals o (borrowed during the call only: create copies what it
     * keeps) with the validated [evaluator] params (borrowed until destroy) and the
     * descriptor's app_data; it holds two empty determinants.  destroy frees it with its
     * determinants.  Errors: MCF_EINVAL (e.g. a grid too coarse for the orbitals' cutoff:
     * the message names the minimum), MCF_ENOMEM. */
    int (*create)(const mcf_params *params, const mcf_pw_orbitals *o, void *app_data,
                  void **ws);
    void (*destroy)(void *ws);

    /* For n workspaces: the values of all L orbitals at n_points[k] points r[k] (3 doubles
     * each, anywhere: positions are reduced into the cell) into phi[k], and when grad and
     * lap are not NULL their gradients and Laplacians (the layouts above). */
    int (*evaluate)(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                    const size_t *n_points, double *const *phi, double *const *grad,
                    double *const *lap);

    /* Determinant `spin` of ws: m electrons (m <= L; 0 empties it) at r (m x 3) with rows A
     * and inverse Ainv (borrowed), replacing everything, pending moves and trial positions
     * included. */
    int (*det_set)(void *ws, int spin, size_t m, const double *r, const double *A,
                   const double *Ainv);
    /* Its current positions, rows and inverse (any may be NULL). */
    int (*det_get)(void *ws, int spin, double *r, double *A, double *Ainv);

    /* For n determinants: the trial positions r_trial[k] (m x 3) of all m electrons of
     * determinant k and the orbital rows there, kept for det_ratio / det_accept until the
     * next det_trial. */
    int (*det_trial)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                     const double *const *r_trial);
    /* For n determinants: ratio[k] = R of moving electron electron[k] (< m) of determinant
     * k from its current position to its trial position. */
    int (*det_ratio)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                     const size_t *electron, double *ratio);
    /* The move of the last det_ratio on that determinant (that electron) is accepted: the
     * electron is at its trial position from now on, A and Ainv follow (Sherman-Morrison).
     * MCF_EINVAL when electron is not the one of the last det_ratio or that ratio was 0. */
    int (*det_accept)(mcf_batch *b, void *ws, int spin, size_t electron);
    /* For n determinants: drift[k] = max_lj |sum_i Ainv[l][i] A[i][j] - delta_lj|, the
     * rounding the updates have accumulated; then, when drift[k] < 0.25, Ainv is brought
     * back to rounding accuracy from A (the evaluator chooses how: a Newton step
     * Ainv <- Ainv - (Ainv A - 1) Ainv, or a fresh LU).  When drift[k] >= 0.25 the
     * determinant is left as it is and the caller recomputes the inverse itself (det_get,
     * det_set). */
    int (*det_refresh)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                       double *drift);
    /* For n determinants, at the current positions: grad_ratio[k] (m x 3) = grad_i D / D
     * and lap_ratio[k] (m) = lap_i D / D for every electron i (D = det A): the Slater
     * determinant's part of the local kinetic energy. */
    int (*det_local)(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                     double *const *grad_ratio, double *const *lap_ratio);

    /* A whole particle-by-particle Metropolis sweep of n walkers (mcf_walker) made by the
     * evaluator where its determinants are, with no round trip per move: electrons 0 ..
     * N-1 in order, each moved to its trial position (det_trial) with log ratio
     *     log |Psi'/Psi|^2 = 2 log |R| + 2 sum_{j != e} [u(|r_e' - r_j|) - u(|r_e - r_j|)]
     * (R the determinant ratio, R = 0 giving -infinity; u = u[0] for like spins, u[1] for
     * unlike, the separation the nearest image in the orthorhombic cell[3]) and decided by
     * mcf_metropolis_accept (mcf/rng_device.h) from the walker's stream, the draws in the
     * order the core's loop would make them.  The inverses follow exactly (delayed rank-k
     * updates with k = delay, 0: the evaluator's choice; all applied on return).  Errors as
     * the determinant ops; MCF_EPLUGIN when a log ratio is NaN (the walker named). */
    int (*walker_sweep)(mcf_batch *b, const mcf_walker *w, size_t n,
                        const mcf_pair_function u[2], const double cell[3], size_t delay);

    /* ---- mcf 1.2, appended (read only where struct_size covers it) -------------------
     * MCF_ORBITAL_DRIFT_SWEEP: a whole sweep of drift-diffusion moves of n walkers (the move
     * of diffusion Monte Carlo; Umrigar, Nightingale and Runge, J. Chem. Phys. 99, 2865
     * (1993)), made where the determinants are.  Electrons 0 .. N-1 in order; electron e at
     * r, in the configuration left by the moves before it, proposes
     *     r' = r + tau vbar(r) + sqrt(tau) chi_e,
     *     v = grad_e ln|Psi| = grad_e D / D + grad_e J,  vbar = 2 v / (1 + sqrt(1 + 2 |v|^2 tau)),
     * with J = sum_{i<j} u(r_ij) as for walker_sweep (the derivative of u:
     * mcf_pair_derivative) and grad_e D / D from the orbitals' gradients at r and the inverse
     * of that moment; its log ratio is
     *     log |Psi'/Psi|^2 - |r - r' - tau vbar(r')|^2 / (2 tau) + |chi_e|^2 / 2
     * (the Green's functions' ratio; -infinity when R = 0, or R < 0 with fixed_node), decided
     * by mcf_metropolis_accept from w.rng in turn order.  r' is taken as it comes (not
     * reduced into the cell: the Green's function needs the displacement); an accepted
     * electron's position, in w.r and the determinant, is r' reduced into [0, cell).  The
     * inverses are updated exactly after every accepted move.  w.accepted and w.log_ratio
     * as walker_sweep.  No det_trial is needed.  Errors as walker_sweep. */
    int (*walker_drift_sweep)(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                              const mcf_pair_function u[2], const double cell[3]);
} mcf_orbital_evaluator;

/* The size of an ABI-2 table before mcf 1.2's appended ops: the least struct_size the core
 * loads. */
#define MCF_ORBITAL_EVALUATOR_SIZE_1_0                                                     \
    (offsetof(mcf_orbital_evaluator, walker_sweep) + sizeof(void (*)(void)))

#ifdef __cplusplus
}
#endif
#endif
