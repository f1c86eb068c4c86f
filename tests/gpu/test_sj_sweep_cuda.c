/* test_sj_sweep_cuda.c — whole Metropolis sweeps of Slater-Jastrow walkers on the device
 * (blip-cuda's walker_sweep: decisions, Jastrow and delayed updates there) against the same
 * sweeps made on the host from fresh LU decompositions (label gpu).  Without a usable CUDA
 * device it prints "skipped: no device" and returns 77, which ctest counts as skipped.
 *
 * Orbitals: 40 random B-spline orbitals on a 12^3 grid of a 6.3 x 6.3 x 6.3 cell (random
 * coefficients in [-1, 1]); walkers of 40 up and 35 down electrons (one walker polarized:
 * 40 up, no down determinant; more than 32 rows and electrons, so that the kernel's sums
 * have several items of 32); pair functions none, rpa (A = 0.6, cusp-like F) and a bspline
 * of 12 random coefficients, with windows k = 1, 4, 16 and 32, each case on 1, 2, 4 or 8
 * blocks per walker.  Six sweeps per case, Gaussian trial moves; after each sweep the
 * inverses are refreshed (det_refresh, as the model does every N accepted moves).
 *
 * The host reference, move by move, from the rows the device uses (the values op: the
 * same kernel as det_trial, so the same bits): R = det A' / det A from a FRESH LU of its own
 * current rows, the Jastrow sums by mcf_pair_value with its own nearest image, log ratio
 * = 2 log |R| + 2 (J' - J), and the decision by mcf_metropolis_accept from its own copy of
 * the walker's stream.  Checks:
 *   (a) every log ratio: |lr_dev - lr_host| <= 2 b max(|v| |A^-1|, T) / |R| + 2 (N + 2) eps U,
 *       b = (4 + a) m kappa eps the relative rounding of the device's inverse after the
 *       accepted moves since the last refresh (kappa = ||A|| ||A^-1||, Frobenius, of the
 *       current rows: the bound of test_sj_delayed, each accepted move adding a correction
 *       rounded to m kappa eps / |R|, since an update divides by its ratio R: a = sum over
 *       them of max(1, 1/|R|)); a ratio R = v . A^-1[:, i] inherits it times |v| |A^-1|
 *       (Cauchy-Schwarz), and the device's own sum R = R_0 - x^T S^-1 b rounds relative to
 *       T = |R_0| + sum |x_a| |S^-1_ab| |b_b| of its window (recomputed here from the inverse
 *       at the window's start: a small R left by cancelling terms is only as good as them),
 *       and U = sum_j |u(r_e' - r_j)| + |u(r_e - r_j)|, two sums of N terms in different
 *       orders, each u with an exponential good to an ulp;
 *   (b) every decision equal to the host's (a difference is allowed only where the host's
 *       uniform lies within (a)'s tolerance of e^lr: counted and printed, expected 0), the
 *       streams' final states equal bit for bit, and the positions equal the host's;
 *   (c) after each sweep the device's inverse against the fresh LU inverse of the host's
 *       rows, relative to ||A^-1||, within (4 + a) m kappa eps (a as in (a));
 *   (d) two identical walkers of one launch give the same log ratios and decisions bit for
 *       bit (fixed reduction orders);
 *   (e) refusals: no trial rows, a NULL walker array, a bad pair form, 3 blocks per walker;
 *   (f) the same walkers and trial moves swept on 1 block per walker and on 2, 4 and 8: the
 *       same log ratios, decisions, streams, positions and inverses, bit for bit (the
 *       kernel's sums are the same whatever the number of blocks), and the launch used the
 *       blocks asked for. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "blip_cuda.h"
#include "check.h"
#include "orbital_test.h" /* the test's batch (tor_batch), which the device layer stages in */
#include "mcf/error.h"
#include "mcf/pair_function.h"
#include "mcf/rng.h"
#include "mcf/rng_device.h"

#define NORB 40
#define MUP 40
#define MDN 35
#define NW 4 /* walkers: 0 and 3 identical, 2 polarized */
#define SWEEPS 6
#define SIDE 6.3

static bcu_table *table;

/* values of the table's orbitals at np points (np x NORB) */
static void rows_at(const double *r, size_t np, double *phi)
{
    const bcu_table *t[1] = {table};
    const double *rr[1] = {r};
    double *out[1] = {phi};
    int rc = bcu_eval(tor_batch(), t, 1, rr, &np, out, NULL, NULL, 0);
    CHECK(rc == MCF_OK, "bcu_eval: %s", mcf_last_error());
}

/* LU of the m x m rows A (A[i * m + l] = phi_l(r_i)): det, and the inverse in the layout
 * inv[l * m + i] when inv is not NULL */
static double lu(const double *A, size_t m, double *inv)
{
    gsl_matrix *a = gsl_matrix_alloc(m, m);
    gsl_permutation *p = gsl_permutation_alloc(m);
    for (size_t i = 0; i < m; i++)
        for (size_t l = 0; l < m; l++)
            gsl_matrix_set(a, i, l, A[i * m + l]);
    int sign;
    gsl_linalg_LU_decomp(a, p, &sign);
    const double det = gsl_linalg_LU_det(a, sign);
    if (inv) {
        gsl_matrix *x = gsl_matrix_alloc(m, m);
        gsl_linalg_LU_invert(a, p, x);
        for (size_t l = 0; l < m; l++)
            for (size_t i = 0; i < m; i++)
                inv[l * m + i] = gsl_matrix_get(x, l, i);
        gsl_matrix_free(x);
    }
    gsl_matrix_free(a);
    gsl_permutation_free(p);
    return det;
}

static double frob(const double *X, size_t n)
{
    double s = 0.0;
    for (size_t q = 0; q < n; q++)
        s += X[q] * X[q];
    return sqrt(s);
}

static double nearest(const double *a, const double *b)
{
    double s2 = 0.0;
    for (int d = 0; d < 3; d++) {
        double x = a[d] - b[d];
        x -= SIDE * nearbyint(x / SIDE);
        s2 += x * x;
    }
    return sqrt(s2);
}

/* one walker on the host */
typedef struct walker {
    size_t m[2], n;
    double r[3 * (MUP + MDN)], trial[3 * (MUP + MDN)];
    double A[2][MUP * MUP];
    mcf_rng rng;
    bcu_det *det[2];
} walker;

static double wrap(double x) { return x - SIDE * floor(x / SIDE); }

static void walker_init(walker *w, mcf_rng *g, int polarized, uint64_t stream)
{
    memset(w, 0, sizeof *w);
    w->m[0] = MUP;
    w->m[1] = polarized ? 0 : MDN;
    w->n = w->m[0] + w->m[1];
    for (size_t q = 0; q < 3 * w->n; q++)
        w->r[q] = SIDE * mcf_rng_uniform(g);
    mcf_rng_init(&w->rng, 20261125, stream);
    double phi[(MUP + MDN) * NORB];
    rows_at(w->r, w->n, phi);
    size_t e = 0;
    for (int s = 0; s < 2; s++) {
        const size_t m = w->m[s];
        if (!m)
            continue;
        for (size_t i = 0; i < m; i++, e++)
            for (size_t l = 0; l < m; l++)
                w->A[s][i * m + l] = phi[e * NORB + l];
        double inv[MUP * MUP];
        lu(w->A[s], m, inv);
        int rc = bcu_det_create(table, m, &w->det[s]);
        CHECK(rc == MCF_OK, "det_create: %s", mcf_last_error());
        rc = bcu_det_set(w->det[s], w->r + 3 * (s ? w->m[0] : 0), w->A[s], inv);
        CHECK(rc == MCF_OK, "det_set: %s", mcf_last_error());
    }
}

static void walker_copy_device(walker *dst, const walker *src)
{
    for (int s = 0; s < 2; s++)
        if (src->m[s]) {
            double inv[MUP * MUP], A[MUP * MUP], r[3 * MUP];
            int rc = bcu_det_get(src->det[s], r, A, inv);
            CHECK(rc == MCF_OK, "det_get: %s", mcf_last_error());
            rc = bcu_det_set(dst->det[s], r, A, inv);
            CHECK(rc == MCF_OK, "det_set: %s", mcf_last_error());
        }
}

static void walker_free(walker *w)
{
    for (int s = 0; s < 2; s++)
        bcu_det_destroy(w->det[s]);
}

/* the trial positions of a sweep (wrapped) and the dets' rows there */
static void propose(walker *w, mcf_rng *g)
{
    for (size_t q = 0; q < 3 * w->n; q++)
        w->trial[q] = wrap(w->r[q] + 0.35 * mcf_rng_normal(g));
    for (int s = 0; s < 2; s++)
        if (w->m[s]) {
            const double *rt[1] = {w->trial + 3 * (s ? w->m[0] : 0)};
            int rc = bcu_det_trial(tor_batch(), &w->det[s], 1, rt);
            CHECK(rc == MCF_OK, "det_trial: %s", mcf_last_error());
        }
}

typedef struct stats {
    double worst_lr, worst_inv; /* as fractions of their bounds */
    size_t moves, accepted, ties, differ;
} stats;

/* the host's sweep of walker w against the device's log ratios lr and decisions acc */
/* The size of the terms the device's ratio sums, R = R_0 - x^T S^-1 b (blip_cuda_det_sweep.cu),
 * for the p moves pending in its window (rows row[], trial rows Vrow[]), from the inverse
 * inv0 of the rows at the window's start: |R_0| + sum_ab |x_a| |(S^-1)_ab| |b_b|. */
static double window_terms(const double *inv0, size_t m, const double *v, size_t i, size_t p,
                           const size_t *row, const double *const *Vrow)
{
    double R0 = 0.0, x[MUP], b[MUP];
    for (size_t l = 0; l < m; l++)
        R0 += v[l] * inv0[l * m + i];
    if (!p)
        return fabs(R0);
    gsl_matrix *S = gsl_matrix_alloc(p, p), *Si = gsl_matrix_alloc(p, p);
    gsl_permutation *perm = gsl_permutation_alloc(p);
    for (size_t a = 0; a < p; a++) {
        x[a] = b[a] = 0.0;
        for (size_t l = 0; l < m; l++) {
            x[a] += v[l] * inv0[l * m + row[a]];
            b[a] += Vrow[a][l] * inv0[l * m + i];
        }
        for (size_t c = 0; c < p; c++) {
            double sac = 0.0;
            for (size_t l = 0; l < m; l++)
                sac += Vrow[a][l] * inv0[l * m + row[c]];
            gsl_matrix_set(S, a, c, sac);
        }
    }
    int sign;
    gsl_linalg_LU_decomp(S, perm, &sign);
    gsl_linalg_LU_invert(S, perm, Si);
    double T = fabs(R0);
    for (size_t a = 0; a < p; a++)
        for (size_t c = 0; c < p; c++)
            T += fabs(x[a]) * fabs(gsl_matrix_get(Si, a, c)) * fabs(b[c]);
    gsl_matrix_free(S);
    gsl_matrix_free(Si);
    gsl_permutation_free(perm);
    return T;
}

static void host_sweep(walker *w, const mcf_pair_function u[2], const double *lr,
                       const unsigned char *acc, size_t K, stats *st, const char *what)
{
    double phi[(MUP + MDN) * NORB];
    rows_at(w->trial, w->n, phi);
    size_t e = 0;
    for (int s = 0; s < 2; s++) {
        const size_t m = w->m[s];
        double a = 0.0; /* accepted since the refresh, each weighted by max(1, 1/|R|) */
        size_t p = 0, row[MUP]; /* the device's window: pending moves, their rows */
        const double *Vrow[MUP];
        double inv0[MUP * MUP];
        if (m)
            lu(w->A[s], m, inv0);
        for (size_t i = 0; i < m; i++, e++) {
            double inv[MUP * MUP];
            lu(w->A[s], m, inv);
            const double *v = phi + e * NORB;
            double R = 0.0;
            for (size_t l = 0; l < m; l++)
                R += v[l] * inv[l * m + i];
            const double kappa = frob(w->A[s], m * m) * frob(inv, m * m);
            const double T = window_terms(inv0, m, v, i, p, row, Vrow);
            const double B = (4.0 + a) * (double)m * kappa * DBL_EPSILON *
                             fmax(frob(v, m) * frob(inv, m * m), T);
            double jn = 0.0, jo = 0.0, U = 0.0;
            for (size_t j = 0; j < w->n; j++) {
                if (j == e)
                    continue;
                const mcf_pair_function *f = &u[(j < w->m[0]) == (s == 0) ? 0 : 1];
                const double un = mcf_pair_value(f, nearest(w->trial + 3 * e, w->r + 3 * j));
                const double uo = mcf_pair_value(f, nearest(w->r + 3 * e, w->r + 3 * j));
                jn += un;
                jo += uo;
                U += fabs(un) + fabs(uo);
            }
            const double lr_h = (R == 0.0 ? -INFINITY : 2.0 * log(fabs(R))) + 2.0 * (jn - jo);
            const double tol = 2.0 * B / fabs(R) +
                               2.0 * (double)(w->n + 2) * DBL_EPSILON * U;
            const double d = fabs(lr[e] - lr_h);
            if (d / tol > st->worst_lr)
                st->worst_lr = d / tol;
            CHECK(d <= tol, "%s: electron %zu: log ratio %.17g on the device, %.17g on the host "
                  "(|diff| %.3g > tol %.3g)", what, e, lr[e], lr_h, d, tol);
            mcf_rng keep = w->rng;
            const int dec = mcf_metropolis_accept(&w->rng, lr_h);
            if (dec != acc[e]) {
                mcf_rng again = keep;
                const double x = lr_h < 0.0 ? log(mcf_rng_uniform(&again)) : 0.0;
                st->differ++;
                if (fabs(x - lr_h) <= tol)
                    st->ties++;
                CHECK(fabs(x - lr_h) <= tol, "%s: electron %zu: the device %s, the host %s "
                      "(log u = %.17g, lr = %.17g: not a tie)", what, e,
                      acc[e] ? "accepted" : "rejected", dec ? "accepted" : "rejected", x, lr_h);
            }
            st->moves++;
            if (!acc[e]) /* the device's decision is followed either way */
                continue;
            st->accepted++;
            a += fmax(1.0, 1.0 / fabs(R));
            memcpy(w->A[s] + i * m, v, m * sizeof *v);
            row[p] = i;
            Vrow[p++] = v;
            if (p == K) { /* the device applies its window */
                lu(w->A[s], m, inv0);
                p = 0;
            }
            memcpy(w->r + 3 * e, w->trial + 3 * e, 3 * sizeof(double));
        }
        if (!m)
            continue;
        /* (c) the device's inverse after the sweep against a fresh one */
        double inv[MUP * MUP], dinv[MUP * MUP];
        lu(w->A[s], m, inv);
        int rc = bcu_det_get(w->det[s], NULL, NULL, dinv);
        CHECK(rc == MCF_OK, "det_get: %s", mcf_last_error());
        double err = 0.0;
        for (size_t q = 0; q < m * m; q++)
            err = fmax(err, fabs(dinv[q] - inv[q]));
        const double ninv = frob(inv, m * m), kappa = frob(w->A[s], m * m) * ninv;
        const double bound = (4.0 + a) * (double)m * kappa * DBL_EPSILON;
        if (err / ninv / bound > st->worst_inv)
            st->worst_inv = err / ninv / bound;
        CHECK(err <= bound * ninv, "%s: spin %d: inverse off by %.3g (relative %.3g > %.3g)",
              what, s, err, err / ninv, bound);
    }
}

static void make_pairs(int form, mcf_rng *g, mcf_pair_function u[2])
{
    for (int k = 0; k < 2; k++) {
        memset(&u[k], 0, sizeof u[k]);
        u[k].form = form;
        u[k].cutoff = 0.5 * SIDE;
        if (form == MCF_PAIR_RPA) {
            const double gamma = k ? 0.5 : 0.25, A = 0.6, b = 3.0 * A / u[k].cutoff;
            u[k].A = A;
            u[k].F = (b + sqrt(b * b + 2.0 * gamma * A)) / (2.0 * gamma);
        } else if (form == MCF_PAIR_BSPLINE) {
            u[k].sign = -1.0;
            u[k].n_coef = 12;
            u[k].inv_dr = (double)(u[k].n_coef - 3) / u[k].cutoff;
            for (size_t c = 0; c < u[k].n_coef - 3; c++)
                u[k].coef[c] = 0.5 * (2.0 * mcf_rng_uniform(g) - 1.0);
        }
    }
}

static void run_case(int form, size_t delay, unsigned int blocks, mcf_rng *g)
{
    static const char *forms[] = {"none", "bspline", "rpa"};
    char what[96];
    snprintf(what, sizeof what, "pair %s, delay %zu, %u blocks", forms[form], delay, blocks);
    mcf_pair_function u[2];
    make_pairs(form, g, u);
    walker w[NW];
    for (int k = 0; k < NW; k++)
        walker_init(&w[k], g, k == 2, (uint64_t)k);
    memcpy(w[3].r, w[0].r, sizeof w[0].r); /* (d): walker 3 is a copy of walker 0 */
    memcpy(w[3].A, w[0].A, sizeof w[0].A);
    walker_copy_device(&w[3], &w[0]);
    w[3].rng = w[0].rng;
    const double cell[3] = {SIDE, SIDE, SIDE};
    const size_t K = bcu_sweep_window(delay, MUP, MUP + MDN);
    stats st = {0};
    for (int sweep = 0; sweep < SWEEPS; sweep++) {
        mcf_rng g0 = *g;
        for (int k = 0; k < NW; k++) {
            if (k == 3)
                *g = g0; /* the same trial moves as walker 0 */
            propose(&w[k], g);
        }
        mcf_walker_moves mv[NW];
        double lr[NW][MUP + MDN], r_dev[NW][3 * (MUP + MDN)];
        unsigned char acc[NW][MUP + MDN];
        mcf_rng rng_dev[NW];
        for (int k = 0; k < NW; k++) {
            memcpy(r_dev[k], w[k].r, sizeof r_dev[k]);
            rng_dev[k] = w[k].rng;
            mv[k] = (mcf_walker_moves){{w[k].det[0], w[k].det[1]}, r_dev[k], w[k].trial,
                                       &rng_dev[k], acc[k], lr[k]};
        }
        int rc = bcu_walker_sweep_blocks(tor_batch(), mv, NW, u, cell, delay, blocks);
        CHECK(rc == MCF_OK, "%s: walker_sweep: %s", what, mcf_last_error());
        if (rc)
            return;
        CHECK(memcmp(lr[0], lr[3], sizeof lr[0]) == 0 && memcmp(acc[0], acc[3], sizeof acc[0])
              == 0, "%s: (d) two identical walkers differ", what);
        for (int k = 0; k < NW; k++) {
            char wk[128];
            snprintf(wk, sizeof wk, "%s, sweep %d, walker %d", what, sweep, k);
            host_sweep(&w[k], u, lr[k], acc[k], K, &st, wk);
            CHECK(memcmp(&w[k].rng, &rng_dev[k], sizeof(mcf_rng)) == 0 || st.differ,
                  "%s: (b) the streams' final states differ", wk);
            w[k].rng = rng_dev[k];
            CHECK(memcmp(w[k].r, r_dev[k], 3 * w[k].n * sizeof(double)) == 0,
                  "%s: (b) the positions differ from the host's", wk);
            /* the refresh the model makes every N accepted moves */
            void *dets[2];
            size_t nd = 0;
            for (int s = 0; s < 2; s++)
                if (w[k].det[s])
                    dets[nd++] = w[k].det[s];
            double drift[2];
            rc = bcu_det_refresh(tor_batch(), (bcu_det *const *)dets, nd, drift);
            CHECK(rc == MCF_OK && drift[0] < 0.25, "%s: refresh: %s", wk, mcf_last_error());
        }
    }
    printf("%-32s window %2zu: %zu moves, %zu accepted; log ratios <= %.3f of the bound, "
           "inverses <= %.3f; decisions differing %zu (ties %zu)\n", what, K, st.moves,
           st.accepted, st.worst_lr, st.worst_inv, st.differ, st.ties);
    CHECK(st.accepted > st.moves / 5 && st.accepted < st.moves, "%s: acceptance %zu of %zu "
          "(the moves should be neither all taken nor all refused)", what, st.accepted,
          st.moves);
    for (int k = 0; k < NW; k++)
        walker_free(&w[k]);
}

static void test_refusals(mcf_rng *g)
{
    walker w;
    walker_init(&w, g, 0, 9);
    mcf_pair_function u[2];
    make_pairs(MCF_PAIR_NONE, g, u);
    const double cell[3] = {SIDE, SIDE, SIDE};
    unsigned char acc[MUP + MDN];
    mcf_walker_moves mv = {{w.det[0], w.det[1]}, w.r, w.trial, &w.rng, acc, NULL};
    int rc = bcu_walker_sweep(tor_batch(), &mv, 1, u, cell, 0);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "det_trial"), "(e) no trial rows: "
          "rc %d, %s", rc, mcf_last_error());
    rc = bcu_walker_sweep(tor_batch(), NULL, 1, u, cell, 0);
    CHECK(rc == MCF_EINVAL, "(e) a NULL walker array: rc %d", rc);
    propose(&w, g);
    u[1].form = 7;
    rc = bcu_walker_sweep(tor_batch(), &mv, 1, u, cell, 0);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "form"), "(e) a bad pair form: rc %d, "
          "%s", rc, mcf_last_error());
    u[1].form = MCF_PAIR_NONE;
    rc = bcu_walker_sweep_blocks(tor_batch(), &mv, 1, u, cell, 0, 3);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "blocks"), "(e) 3 blocks per walker: "
          "rc %d, %s", rc, mcf_last_error());
    walker_free(&w);
}

/* (f): walkers a swept on one block each, b (the same states and trial moves) on `blocks` */
static void test_blocks_bits(mcf_rng *g)
{
    mcf_pair_function u[2];
    make_pairs(MCF_PAIR_RPA, g, u);
    const double cell[3] = {SIDE, SIDE, SIDE};
    static const unsigned int blocks[3] = {2, 4, 8};
    static walker a[NW], b[NW];
    for (int k = 0; k < NW; k++) {
        walker_init(&a[k], g, k == 2, (uint64_t)k);
        walker_init(&b[k], g, k == 2, (uint64_t)k);
        memcpy(b[k].r, a[k].r, sizeof a[k].r);
        memcpy(b[k].A, a[k].A, sizeof a[k].A);
        walker_copy_device(&b[k], &a[k]);
        b[k].rng = a[k].rng;
    }
    size_t moves = 0, accepted = 0;
    for (int sweep = 0; sweep < 3; sweep++) {
        const mcf_rng g0 = *g;
        for (int k = 0; k < NW; k++)
            propose(&a[k], g);
        *g = g0;
        for (int k = 0; k < NW; k++)
            propose(&b[k], g);
        mcf_walker_moves ma[NW], mb[NW];
        double lra[NW][MUP + MDN], lrb[NW][MUP + MDN];
        unsigned char acca[NW][MUP + MDN], accb[NW][MUP + MDN];
        for (int k = 0; k < NW; k++) {
            ma[k] = (mcf_walker_moves){{a[k].det[0], a[k].det[1]}, a[k].r, a[k].trial,
                                       &a[k].rng, acca[k], lra[k]};
            mb[k] = (mcf_walker_moves){{b[k].det[0], b[k].det[1]}, b[k].r, b[k].trial,
                                       &b[k].rng, accb[k], lrb[k]};
        }
        int rc = bcu_walker_sweep_blocks(tor_batch(), ma, NW, u, cell, 4, 1);
        CHECK(rc == MCF_OK && bcu_sweep_last_blocks(tor_batch()) == 1, "(f) 1 block: %s",
              mcf_last_error());
        rc = bcu_walker_sweep_blocks(tor_batch(), mb, NW, u, cell, 4, blocks[sweep]);
        CHECK(rc == MCF_OK && bcu_sweep_last_blocks(tor_batch()) == blocks[sweep],
              "(f) %u blocks: %s (launched %u)", blocks[sweep], mcf_last_error(),
              bcu_sweep_last_blocks(tor_batch()));
        if (rc)
            break;
        for (int k = 0; k < NW; k++) {
            const size_t n = a[k].n;
            moves += n;
            for (size_t e = 0; e < n; e++)
                accepted += acca[k][e];
            CHECK(memcmp(lra[k], lrb[k], n * sizeof(double)) == 0 &&
                  memcmp(acca[k], accb[k], n) == 0, "(f) sweep %d, walker %d: %u blocks give "
                  "other log ratios or decisions than 1", sweep, k, blocks[sweep]);
            CHECK(memcmp(&a[k].rng, &b[k].rng, sizeof(mcf_rng)) == 0 &&
                  memcmp(a[k].r, b[k].r, 3 * n * sizeof(double)) == 0, "(f) sweep %d, "
                  "walker %d: other streams or positions", sweep, k);
            for (int s = 0; s < 2; s++) {
                if (!a[k].m[s])
                    continue;
                static double ia[MUP * MUP], ib[MUP * MUP];
                rc = bcu_det_get(a[k].det[s], NULL, NULL, ia);
                if (!rc)
                    rc = bcu_det_get(b[k].det[s], NULL, NULL, ib);
                CHECK(rc == MCF_OK && memcmp(ia, ib, a[k].m[s] * a[k].m[s] * sizeof(double))
                      == 0, "(f) sweep %d, walker %d, spin %d: %u blocks leave another "
                      "inverse than 1", sweep, k, s, blocks[sweep]);
            }
        }
    }
    printf("(f) 1 block vs 2, 4, 8 blocks per walker: %zu moves, %zu accepted, compared bit "
           "for bit\n", moves, accepted);
    CHECK(accepted > moves / 5 && accepted < moves, "(f) acceptance %zu of %zu", accepted,
          moves);
    for (int k = 0; k < NW; k++) {
        walker_free(&a[k]);
        walker_free(&b[k]);
    }
}

int main(void)
{
    char why[256];
    if (!bcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    mcf_rng g;
    mcf_rng_init(&g, 4242, 1);
    const size_t n[3] = {12, 12, 12};
    const double cell[3] = {SIDE, SIDE, SIDE};
    int rc = bcu_device_init();
    if (!rc)
        rc = bcu_table_alloc(n, NORB, cell, &table);
    CHECK(rc == MCF_OK, "table: %s", mcf_last_error());
    if (rc)
        return check_exit();
    const size_t nc = n[0] * n[1] * n[2] * NORB;
    double *c = malloc(nc * sizeof *c);
    for (size_t q = 0; q < nc; q++)
        c[q] = 2.0 * mcf_rng_uniform(&g) - 1.0;
    rc = bcu_table_upload(table, c);
    CHECK(rc == MCF_OK, "upload: %s", mcf_last_error());
    free(c);
    const int forms[3] = {MCF_PAIR_NONE, MCF_PAIR_RPA, MCF_PAIR_BSPLINE};
    const size_t delays[4] = {1, 4, 16, 32};
    const unsigned int blocks[4] = {1, 2, 4, 8};
    for (int f = 0; f < 3; f++)
        for (int d = 0; d < 4; d++)
            run_case(forms[f], delays[d], blocks[(f + d) % 4], &g);
    test_refusals(&g);
    test_blocks_bits(&g);
    tor_batch_release();
    bcu_table_destroy(table);
    return check_exit();
}
