/* test_sj_delayed.c — delayed (rank-k) updates of an inverse Slater matrix
 * (models/slater-jastrow/sj_delayed.c) against fresh LU decompositions (GSL).
 *
 * For windows k = 1, 2, 5, 8, 16 and 64 and matrices of order 24 (random entries in
 * [-1, 1]), 300 proposals: row i in sweep order (every 7th proposal a random row, so a row
 * comes back within a window), a random new row v.
 *   (a) every proposal's ratio (the window's pending moves included) against det A'' /
 *       det A' from two LU decompositions of the explicit matrices;
 *   (b) every accepted move's ratio (the bordered S's Schur complement) against the same;
 *   (c) after a flush (at random moments, and whenever the window filled) the inverse
 *       against the fresh LU inverse of the explicit matrix.
 * Tolerance: rounding of an inverse grows like m kappa eps (kappa = ||A|| ||A^-1||, the
 * Frobenius norms of the current matrix); each of the k moves of a window adds a correction
 * rounded to that order, and a few windows' errors carry over between flushes, so |error| <=
 * (4 + k) m kappa eps (a ratio relative to max(1, |R|), the inverse relative to ||A^-1||).
 * Measured errors are printed as fractions of the bound.
 *   (d) a move to a zero row (ratio exactly 0) is refused and changes nothing;
 *   (e) sj_delay_window: [model] delay = 0 is the model's automatic 1 where it makes the
 *       updates and 0 (the evaluator's choice) passed on to an evaluator's sweep; k >= 1 is
 *       k on both. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "check.h"
#include "mcf/error.h"
#include "mcf/rng.h"
#include "sj_delayed.h"

#define M 24

/* det(A) by LU, and (inv not NULL) the inverse in the model's layout inv[l * M + j] */
static double lu_det(const double *A, double *inv)
{
    gsl_matrix *lu = gsl_matrix_alloc(M, M);
    gsl_permutation *p = gsl_permutation_alloc(M);
    for (size_t i = 0; i < M; i++)
        for (size_t l = 0; l < M; l++)
            gsl_matrix_set(lu, i, l, A[i * M + l]);
    int sign;
    gsl_linalg_LU_decomp(lu, p, &sign);
    const double det = gsl_linalg_LU_det(lu, sign);
    if (inv) {
        gsl_matrix *x = gsl_matrix_alloc(M, M);
        gsl_linalg_LU_invert(lu, p, x);
        for (size_t l = 0; l < M; l++)
            for (size_t j = 0; j < M; j++)
                inv[l * M + j] = gsl_matrix_get(x, l, j);
        gsl_matrix_free(x);
    }
    gsl_matrix_free(lu);
    gsl_permutation_free(p);
    return det;
}

static double frob(const double *X)
{
    double s = 0.0;
    for (size_t q = 0; q < M * M; q++)
        s += X[q] * X[q];
    return sqrt(s);
}

int main(void)
{
    const size_t windows[] = {1, 2, 5, 8, 16, 64};
    mcf_rng rng;
    mcf_rng_init(&rng, 20261124, 0);
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        const size_t k = windows[w];
        double A[M * M], Ainv[M * M], fresh[M * M], trial[M * M], v[M];
        for (size_t q = 0; q < M * M; q++)
            A[q] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
        lu_det(A, Ainv);
        sj_delay d;
        CHECK(sj_delay_init(&d, k, M) == MCF_OK, "init: %s", mcf_last_error());
        double worst_r = 0.0, worst_a = 0.0, worst_i = 0.0, bound_min = INFINITY;
        int accepted = 0, flushes = 0, ok_r = 1, ok_a = 1, ok_i = 1;
        for (int t = 0; t < 300; t++) {
            const size_t i = t % 7 == 6 ? (size_t)(M * mcf_rng_uniform(&rng)) % M : (size_t)t % M;
            for (size_t l = 0; l < M; l++)
                v[l] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
            memcpy(trial, A, sizeof A);
            memcpy(trial + i * M, v, sizeof v);
            const double d0 = lu_det(A, fresh), d1 = lu_det(trial, NULL);
            const double exact = d1 / d0;
            const double kappa = frob(A) * frob(fresh);
            const double bound = (4.0 + (double)k) * M * kappa * DBL_EPSILON;
            if (bound < bound_min)
                bound_min = bound;
            /* (a) */
            const double R = sj_delay_ratio(&d, Ainv, i, v);
            const double er = fabs(R - exact) / fmax(1.0, fabs(exact));
            worst_r = fmax(worst_r, er / bound);
            ok_r &= er <= bound;
            if (fabs(exact) < 0.3)
                continue;
            /* (b) */
            double Ra;
            CHECK(sj_delay_accept(&d, Ainv, i, v, &Ra) == MCF_OK, "k = %zu: accept refused",
                  k);
            const double ea = fabs(Ra - exact) / fmax(1.0, fabs(exact));
            worst_a = fmax(worst_a, ea / bound);
            ok_a &= ea <= bound;
            memcpy(A, trial, sizeof A);
            accepted++;
            /* (c) */
            if (d.np == 0 || mcf_rng_uniform(&rng) < 0.2) {
                sj_delay_flush(&d, Ainv);
                lu_det(A, fresh);
                const double kap = frob(A) * frob(fresh), norm = frob(fresh);
                double e = 0.0;
                for (size_t q = 0; q < M * M; q++)
                    e = fmax(e, fabs(Ainv[q] - fresh[q]));
                const double b = (4.0 + (double)k) * M * kap * DBL_EPSILON;
                worst_i = fmax(worst_i, e / norm / b);
                ok_i &= e / norm <= b;
                flushes++;
            }
        }
        CHECK(ok_r, "k = %zu: (a) a proposal's ratio off by %.2f of the bound", k, worst_r);
        CHECK(ok_a, "k = %zu: (b) an accepted move's ratio off by %.2f of the bound", k,
              worst_a);
        CHECK(ok_i, "k = %zu: (c) the flushed inverse off by %.2f of the bound", k, worst_i);
        CHECK(accepted > 50 && flushes > 5, "k = %zu: only %d accepted, %d flushes", k,
              accepted, flushes);
        printf("k = %2zu: %d accepted, %d flushes; largest error / bound: ratios %.1e, "
               "accepted %.1e, inverse %.1e (smallest bound %.1e)\n", k, accepted, flushes,
               worst_r, worst_a, worst_i, bound_min);
        sj_delay_free(&d);
    }
    /* (d) */
    sj_delay d;
    double A[M * M], Ainv[M * M], before[M * M], zero[M] = {0}, Ra;
    for (size_t q = 0; q < M * M; q++)
        A[q] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
    lu_det(A, Ainv);
    memcpy(before, Ainv, sizeof Ainv);
    sj_delay_init(&d, 4, M);
    CHECK(sj_delay_accept(&d, Ainv, 3, zero, &Ra) == MCF_EINVAL && d.np == 0 &&
              !memcmp(before, Ainv, sizeof Ainv),
          "(d) a move to a zero row (ratio %g) was accepted", Ra);
    sj_delay_free(&d);
    /* (e) [model] delay = 0 is automatic wherever the updates are made: the model's own
     * choice (Sherman-Morrison) where it makes them, passed on (0) to an evaluator's sweep;
     * any k >= 1 is kept on both paths */
    CHECK(sj_delay_window(0, 0) == SJ_DELAY_MODEL_AUTO && SJ_DELAY_MODEL_AUTO == 1,
          "(e) delay = 0 in the model: window %zu, expected 1", sj_delay_window(0, 0));
    CHECK(sj_delay_window(0, 1) == 0, "(e) delay = 0 on the evaluator's sweep: %zu, expected 0 "
          "(its own choice)", sj_delay_window(0, 1));
    for (size_t k = 1; k <= SJ_DELAY_MAX; k *= 2)
        CHECK(sj_delay_window(k, 0) == k && sj_delay_window(k, 1) == k,
              "(e) delay = %zu: windows %zu (model), %zu (evaluator)", k, sj_delay_window(k, 0),
              sj_delay_window(k, 1));
    return check_exit();
}
