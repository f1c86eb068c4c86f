/* sj_delayed.h — delayed (rank-k) updates of an inverse Slater matrix (sj_delayed.c), for
 * [model] delay = k > 1 with the determinants kept by the model.
 *
 * A's rows are replaced one accepted move at a time, A' = A + U V^T with U = [e_{i_1} ..
 * e_{i_p}] and V_a = v_a - a_{i_a} (the new row minus the old one).  Instead of a
 * Sherman-Morrison update of A^-1 after every move, the window keeps A^-1 as it was and
 *
 *   Q_a = v_a^T A^-1 - e_{i_a}^T   (one row per pending move, p x m),
 *   S   = 1_p + V^T A^-1 U,  S_ab = delta_ab + Q_a[i_b]   (kept as its inverse),
 *
 * so that (Woodbury) A'^-1 = A^-1 - A^-1 U S^-1 Q.  The ratio of moving row i to v against
 * A' is R = v^T A'^-1 e_i = R_0 - x^T S^-1 b with R_0 = (v^T A^-1)_i, x_b = (v^T A^-1)_{i_b},
 * b_a = Q_a[i]: O(m (p + 1)) instead of O(m).  Accepting appends Q_p (one product v^T A^-1,
 * O(m^2)) and borders S^-1 (O(p^2); its Schur complement is the move's ratio); after k moves
 * (or at the caller's flush) A^-1 -= (A^-1 U) (S^-1 Q), one rank-k product, O(m^2 k) — a
 * matrix-matrix product where Sherman-Morrison did k matrix-vector passes over A^-1.
 *
 * Storage: A^-1 as the model keeps it, Ainv[l * m + j] (column j = the inverse's column for
 * row j of A).  No allocation after sj_delay_init; nothing here can fail but a zero ratio. */
#ifndef MCF_SJ_DELAYED_H
#define MCF_SJ_DELAYED_H

#include <stddef.h>

/* the largest window */
#define SJ_DELAY_MAX 64

/* [model] delay = 0 means one thing wherever the updates are made: automatic, the window the
 * code making them was measured fastest with.  Where the model makes them (determinants =
 * model, or the evaluator's det ops move by move) that is SJ_DELAY_MODEL_AUTO, Sherman-Morrison
 * after every move: on the CPU a window gains nothing (docs/benchmarks.md, "Delayed updates
 * on the CPU"); where the evaluator makes whole sweeps (walker_sweep) it is the evaluator's
 * own, asked for by passing 0 on (mcf/orbital.h; blip-cuda: 16). */
#define SJ_DELAY_MODEL_AUTO 1

/* The window a chain keeps for [model] delay (0 .. SJ_DELAY_MAX): delay itself where the
 * evaluator sweeps (ev_sweep; 0 passed on to it), else delay, SJ_DELAY_MODEL_AUTO for 0. */
size_t sj_delay_window(size_t delay, int ev_sweep);

typedef struct sj_delay {
    size_t k, m;   /* the window and the matrix order */
    size_t np;     /* moves pending */
    size_t *row;   /* k: their rows i_a */
    double *Q;     /* k x m */
    double *Sinv;  /* k x k (leading dimension k) */
    double *P, *T; /* the flush's m x k columns of A^-1 and k x m product S^-1 Q */
} sj_delay;

/* A window of k >= 1 moves on m x m matrices (k = 1: every accept flushes at once).  MCF_OK
 * or MCF_ENOMEM (d is then empty: sj_delay_free is safe). */
int sj_delay_init(sj_delay *d, size_t k, size_t m);
void sj_delay_free(sj_delay *d);

/* The ratio det A'' / det A' of replacing row i of the current matrix A' (A and the pending
 * moves) by v. */
double sj_delay_ratio(const sj_delay *d, const double *Ainv, size_t i, const double *v);

/* Row i of the current matrix becomes v: appended to the window (a window already holding
 * row i is flushed first; a window that this move fills is flushed after it).  *ratio: the
 * move's ratio as the window computed it.  MCF_EINVAL when it is 0 or not finite (nothing
 * changed then). */
int sj_delay_accept(sj_delay *d, double *Ainv, size_t i, const double *v, double *ratio);

/* Applies the pending moves to Ainv (A^-1 -= (A^-1 U)(S^-1 Q)); the window is empty after. */
void sj_delay_flush(sj_delay *d, double *Ainv);

#endif
