/* sj_determinants.c — the Slater determinants D_sigma = det A_sigma of the slater-jastrow
 * model as the model keeps them (determinants = model, or auto below the evaluator's
 * threshold): the inverses (by LU, sj_inverse.c) and their drift, the ratio of one
 * electron's move, and the update when the move is accepted (accept_move, which also hands
 * an accepted move to the evaluator when it keeps the determinants: sj_determinants_ev.c).
 *
 * A_sigma[i][l] = phi_l(r_i) (row = electron i of spin sigma, column = orbital l) is kept
 * as the rows A[s][i * m + l], its inverse as Ainv[s][l * m + i] (m electrons of spin s).
 * The ratio of moving electron i to r_i' is R = sum_l phi_l(r_i') Ainv[l][i].
 *
 * accept: Sherman-Morrison, A' = A + e_i (v - a_i)^T, with w = v^T Ainv (w_i = R),
 *     Ainv'[:, j] = Ainv[:, j] - Ainv[:, i] (w_j - delta_ij) / R.
 * With [model] delay = k > 1 the update is delayed instead: the accepted moves of a spin
 * wait in a window (sj_delayed.c), the ratios of later moves are corrected by them, and
 * every k moves, at a row's second move, and at the end of every sweep, they are applied to
 * Ainv as one rank-k product (Woodbury).
 * Every N accepted moves of a chain the inverses are recomputed from the stored rows A by
 * LU (GSL); the drift max |Ainv_SM A - 1| is measured before, logged (MCF_LOG_DEBUG) and its
 * maximum kept (logged at destroy). */
#include "slater_jastrow_internal.h"

#include <math.h>
#include <string.h>


/* Fills the rows A from phi (n x norb at the electrons); refresh_inverses inverts them. */
int rows_from_phi(sj_chain *c, const double *phi, double *A_out[2])
{
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s), first = s == 0 ? 0 : c->n_up;
        for (size_t i = 0; i < m; i++)
            memcpy(A_out[s] + i * m, phi + (first + i) * c->norb, m * sizeof(double));
    }
    return MCF_OK;
}

/* Recomputes the inverses from the rows A by LU; measure: first logs the drift of the
 * Sherman-Morrison inverses and keeps its maximum. */
int refresh_inverses(sj_chain *c, int measure)
{
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        if (!m)
            continue;
        if (measure) {
            const double d = drift(c->A[s], c->Ainv[s], m);
            if (isnan(d))
                return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a refresh");
            if (d > c->max_drift)
                c->max_drift = d;
            mcf_log(MCF_LOG_DEBUG, "slater-jastrow: spin %s, after %llu accepted moves: "
                    "Sherman-Morrison drift max|Ainv A - 1| = %.3e", s ? "down" : "up",
                    (unsigned long long)c->accepted_since, d);
        }
        if (invert(c, c->A[s], m, c->Ainv[s]))
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: the %s-spin Slater matrix is "
                            "singular (two electrons of one spin at the same point?)",
                            s ? "down" : "up");
    }
    c->accepted_since = 0;
    c->refreshes++;
    return MCF_OK;
}

/* The determinant ratio of moving electron e to its trial position. */
double sj_det_ratio(const sj_chain *c, size_t e)
{
    const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
    const double *v = c->trial_phi + e * c->norb, *Ai = c->Ainv[s];
    if (c->delay > 1)
        return sj_delay_ratio(&c->dl[s], Ai, i, v);
    double R = 0.0;
    for (size_t l = 0; l < m; l++)
        R += v[l] * Ai[l * m + i];
    return R;
}

/* Sherman-Morrison: row i of spin s's matrix becomes v, Ainv updated at once. */
static int sherman_morrison(sj_chain *c, size_t s, size_t i, const double *v)
{
    const size_t m = spin_count(c, s);
    double *Ai = c->Ainv[s], *w = c->w, *col = c->col;
    for (size_t j = 0; j < m; j++) {
        double x = 0.0;
        for (size_t l = 0; l < m; l++)
            x += v[l] * Ai[l * m + j];
        w[j] = x;
    }
    const double R = w[i]; /* against the current configuration (for qs: not the ratio used) */
    if (R == 0.0 || !isfinite(R)) {
        if (c->qs)
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: move = qs: the moves accepted in "
                            "this sweep together make the Slater matrix singular (ratio %g); "
                            "use move = pbp", R);
        return mcf_fail(MCF_EINTERNAL, "slater-jastrow: accepted a move with determinant "
                        "ratio %g (a bug, please report it)", R);
    }
    for (size_t l = 0; l < m; l++)
        col[l] = Ai[l * m + i] / R;
    for (size_t l = 0; l < m; l++) {
        double *row = Ai + l * m;
        for (size_t j = 0; j < m; j++)
            row[j] -= col[l] * (w[j] - (j == i ? 1.0 : 0.0));
    }
    return MCF_OK;
}

/* The accepted move of electron e: the update of its spin's inverse (Sherman-Morrison, or
 * the delayed window, here; det_accept on the evaluator), its row and its position; the
 * turn advances, and every N accepted moves the inverses are refreshed. */
int accept_move(mcf_batch *b, sj_chain *c, const sj_move *move)
{
    const size_t e = (size_t)move->e;
    const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
    if (c->on_ev) {
        int rc = mcf_orbital_det_accept(b, c->ws, (int)s, i);
        if (rc)
            return rc;
        for (int a = 0; a < 3; a++)
            c->r[3 * e + a] = c->trial[3 * e + a]; /* wrapped at the sweep's start */
        c->turn++;
        if (++c->accepted_since >= c->n)
            return refresh_on_ev(b, c);
        return MCF_OK;
    }
    const double *v = c->trial_phi + e * c->norb;
    double R;
    if (c->delay > 1 && sj_delay_accept(&c->dl[s], c->Ainv[s], i, v, &R))
        return mcf_fail(MCF_EINTERNAL, "slater-jastrow: accepted a move with determinant "
                        "ratio %g (a bug, please report it)", R);
    int rc = c->delay > 1 ? MCF_OK : sherman_morrison(c, s, i, v);
    if (rc)
        return rc;
    memcpy(c->A[s] + i * m, v, m * sizeof *v);
    for (int a = 0; a < 3; a++)
        c->r[3 * e + a] = wrap(c->trial[3 * e + a], c->L);
    next_turn(c);
    if (++c->accepted_since >= c->n) {
        flush_delayed(c);
        return refresh_inverses(c, 1);
    }
    return MCF_OK;
}

void flush_delayed(sj_chain *c)
{
    if (c->delay > 1)
        for (size_t s = 0; s < 2; s++)
            sj_delay_flush(&c->dl[s], c->Ainv[s]);
}

void next_turn(sj_chain *c)
{
    if (++c->turn == c->n)
        flush_delayed(c);
}
