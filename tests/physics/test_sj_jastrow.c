/* test_sj_jastrow.c — the slater-jastrow model's B-spline Jastrow (jastrow = bspline) and
 * its variational parameters, called through the core's verbs of a model (model_ops.h:
 * variational_count/get/set/local/write, which for the ABI-2 model come from its state()
 * description and its measure() with the batch's variational flag) on chains made as a run
 * makes them (mcfe_chain_services, the model's create, the planewave evaluator in a batch
 * of the test's own), like tests/bands/test_configuration.c.  The homogeneous electron gas
 * at r_s = 5: N = 14 unpolarized (7 + 7) and N = 19 polarized (one spin, a closed shell), with QMCPACK's
 * heg_14_gamma coefficients (5 per spin pair).  (a) runs on three configurations of each
 * chain: the uniform random start, the configuration after (b)'s sweep, and after 30
 * Metropolis sweeps through the core's verbs (sweep, which draws the trial moves and
 * declines, then propose and apply per electron; a typical configuration of |Psi|^2); (b)
 * on the first and the last.  The seed of the start is the first from
 * 1000 on whose configuration has pairs of like and of unlike spins in every knot interval
 * [i dr, (i + 1) dr) of the spline, i = 0 .. 5 (printed): a mistake confined to one interval
 * (the cusp coefficient c_0 enters only below dr, which |Psi|^2 rarely visits at r_s = 5)
 * shows only for a pair in it.
 *
 * Why every check below is exact up to rounding: J = -sum_{i<j} w(r_ij) and w is linear in
 * the parameters p, so O_m = d ln Psi / d p_m = dJ/dp_m does not depend on p at all, ln Psi
 * is linear in p, grad_i ln Psi is linear in p and the local energy
 *     E_L = -(1/2) sum_i [lap_i ln Psi + |grad_i ln Psi|^2] + V
 * is a quadratic polynomial in p (V does not depend on p).  For a quadratic f the central
 * difference (f(p + h) - f(p - h)) / (2h) equals f'(p) for EVERY h (the h^2 f''' / 6 term
 * of the expansion vanishes), and for a linear f likewise.
 *
 *   (a) dE_L/dp_m (variational_local) against the central difference of E_L in p_m at the
 *       same configuration, for h = 1e-3 and h = 0.25.  Rounding: the model sums O(N^2)
 *       pair terms u', u'' into grad_i J, lap_i J and then N per-electron kinetic terms,
 *       all of size <= S (hartree); the position-dependent Ewald part is computed from the
 *       same positions at both p with the same operations, so its bits cancel.  Standard
 *       summation bounds give |rounding of E_L| <= c N u S with u = 2^-53 and c a small
 *       constant (~ the pair count per electron plus a few products: 2 N), so the central
 *       difference is off by at most 2 N^2 u S / h.  S is not observable through the ops;
 *       we take S = 1 + |E_L| + sum_m |p_m dE_L/dp_m| (hartree), the size of the terms that
 *       move with p, which is O(1) hartree here (printed), and allow a factor 64:
 *           tol(h) = 64 * 2 N^2 u S / h   (~ 2e-9 S at h = 1e-3 for N = 14).
 *       A wrong derivative (a missing factor 2 on the cross term grad ln D . grad O, a sign,
 *       a dropped pair) is wrong by O(|dE_L/dp|) ~ 0.1 .. 1: eight orders above.  The two
 *       h must agree within tol(h1) + tol(h2): for a local energy that were not quadratic in
 *       p (a bug in how w or its derivatives depend on p) they differ by O(h^2) ~ 0.06.  The
 *       second difference (f(p+h) - 2 f(p) + f(p-h)) / h^2 is the same for both h too.  And
 *       O_m must come out bit-identical at p + h e_m, p - h e_m and p (O does not depend on
 *       p: the model computes it from the B-spline basis alone).
 *   (b) O_m against the log ratio: when electron e moves R -> R', log_ratio returns
 *       ln|Psi(R')|^2 - ln|Psi(R)|^2 = 2 ln|D'/D| + 2 (J(R') - J(R)), linear in p with slope
 *       2 (O_m(R') - O_m(R)).  For every electron of one sweep: propose, log_ratio at p and
 *       p +- h e_m (variational_set in between, propose again: the same electron and
 *       trial position, for the turn moves only when apply settles it), the central
 *       difference, then p restored (log_ratio must return the same bits again), the move
 *       accepted (whatever the ratio: O at R' is needed) and variational_local at R'.
 *       Rounding: the determinant part 2 ln|D'/D| does not depend on p (the same bits at
 *       every p); J at a position is a sum of N - 1 values |w| <= 2 (coefficients < 1.7, the
 *       basis sums to 1), rounded to <= 2 N u, so 2 (J(R') - J(R)) to <= 8 N u and the
 *       central difference to <= 8 N u / h; we allow 64 N u (1 + |log ratio|) / h.
 *       2 (O(R') - O(R)), sums of <= N^2/2 basis values <= 2/3, carries <= 2 N^2 u more.
 *   (c) p = 0 (jastrow_uu = jastrow_ud = zero, jastrow_size = 5): w is the cusp-only spline
 *       (coefficient c_0 = -2 dr gamma alone).  variational_count is 10 (5 polarized);
 *       variational_get returns zeros; O_m is the same bits when evaluated twice and the
 *       same bits as for the chain with QMCPACK's p at the same configuration (same seed,
 *       same start; O does not depend on p); set then get returns the bits set; a NaN
 *       parameter is refused.  And O_m against an independent evaluation written here from
 *       the convention of sj_bspline.c's header (knots dr = r_c / (P + 1), coefficient
 *       c_1 = p_0, c_0 and c_2 = p_1, c_{k+1} = p_k, the uniform cubic basis, nearest image,
 *       like-spin pairs to the uu block, unlike to ud), from the positions the chain's
 *       save() record holds: O_m = -sum_{i<j} dw/dp_m(r_ij), to 1e-12 (sums of <= N^2/2
 *       basis values <= 2/3: rounding ~ N^2 u).
 *   (d) variational_write to a file, a second chain with jastrow_file = that file and the
 *       same seed (so the same start): variational_local gives the same bits as the first
 *       chain (the file has 17 significant digits: p and the cutoff round-trip exactly).
 *       With parameters changed by variational_set before writing, and a cutoff below L/2,
 *       unpolarized and polarized.
 *   (e) refusals: create fails and the message names the key: jastrow_uu = "1.0 abc",
 *       jastrow_uu = "1.0" (one parameter), jastrow_file naming a missing file (the path
 *       in the message), jastrow_file and jastrow_uu together, jastrow_uu with jastrow =
 *       rpa, jastrow_cutoff > L/2, a parameter file with an unknown item (file:line).
 *
 * Measured: |FD - dE_L/dp| <= 5.3e-13 at h = 1e-3 (tolerance 1e-8 .. 3e-8) and <= 2.2e-15
 * at h = 0.25; |d(log ratio)/dp - 2 (O(R') - O(R))| <= 5.5e-13 (at most 2.3 % of the
 * tolerance); O_m against the independent evaluation 3.6e-15; everything bit-exact that
 * should be.  Made to fail by hand (not kept): a factor 1 instead of 2 on the cross term of
 * dE_L/dp, O counted over all pairs (j != e) instead of j > e, c_0 not mapped to p_1, the
 * last parameter not mapped, dw'/dp without 1/dr, a factor 1 instead of 2 in lap J, and a
 * parameter file written without its last parameter: each fails (a), (b), (c) or (d).
 * 0.2 s. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "test_params.h"

#include "chain.h"
#include "internal.h"
#include "mcf/batch.h"
#include "mcf/error.h"
#include "mcf/model.h"
#include "model_ops.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMAX 16                /* parameters at most in this test */
#define UNIT 0x1p-53           /* the unit roundoff u */
#define QMC_UU "1.082858193 0.6653279375 0.4358910287 0.2243616172 0.1102948764"
#define QMC_UD "1.696171854 1.047722154 0.6275148566 0.3175982878 0.1446706214"

static const double pi = 3.14159265358979323846;
/* the seeds of the unpolarized and polarized chains of (a) - (c) (covering_seed) */
static uint64_t seed_of[2];

#include "sj_chain_util.h"

/* ---- (a) dE_L/dp_m against central differences of E_L ------------------------------- */

static void check_energy_derivative(sjc *c, const char *what)
{
    const size_t P = c->P, N = c->n;
    double p0[PMAX], p[PMAX], o0[1 + 2 * PMAX], op[1 + 2 * PMAX], om[1 + 2 * PMAX];
    if (P > PMAX || MCFI_MODEL(md, variational_get, c->chain, p0) || local(c, o0))
        return;
    const double E0 = o0[0], *O0 = o0 + 1, *dE = o0 + 1 + P;
    double S = 1.0 + fabs(E0), dEmax = 0;
    for (size_t m = 0; m < P; m++) {
        S += fabs(p0[m] * dE[m]);
        dEmax = fmax(dEmax, fabs(dE[m]));
    }
    const double hs[2] = {1e-3, 0.25};
    double fd[2][PMAX], d2[2][PMAX], worst[2] = {0, 0}, tol[2];
    int o_same = 1;
    for (int k = 0; k < 2; k++) {
        const double h = hs[k];
        tol[k] = 64.0 * 2.0 * (double)(N * N) * UNIT * S / h;
        for (size_t m = 0; m < P; m++) {
            memcpy(p, p0, P * sizeof *p);
            p[m] = p0[m] + h;
            if (set_p(c, p) || local(c, op))
                return;
            p[m] = p0[m] - h;
            if (set_p(c, p) || local(c, om))
                return;
            fd[k][m] = (op[0] - om[0]) / (2.0 * h);
            d2[k][m] = (op[0] - 2.0 * E0 + om[0]) / (h * h);
            worst[k] = fmax(worst[k], fabs(fd[k][m] - dE[m]));
            o_same &= !memcmp(op + 1, O0, P * sizeof *O0) && !memcmp(om + 1, O0, P * sizeof *O0);
        }
        if (set_p(c, p0))
            return;
        CHECK(worst[k] <= tol[k], "%s (a): dE_L/dp against the central difference, h = %g: "
              "largest difference %.3g > tolerance %.3g", what, h, worst[k], tol[k]);
    }
    double agree = 0, d2diff = 0, d2max = 0;
    for (size_t m = 0; m < P; m++) {
        agree = fmax(agree, fabs(fd[0][m] - fd[1][m]));
        d2diff = fmax(d2diff, fabs(d2[0][m] - d2[1][m]));
        d2max = fmax(d2max, fabs(d2[1][m]));
    }
    CHECK(agree <= tol[0] + tol[1], "%s (a): central differences with h = %g and %g differ by "
          "%.3g > %.3g (E_L not quadratic in p?)", what, hs[0], hs[1], agree, tol[0] + tol[1]);
    /* the second difference: rounding 4 |delta E| / h^2 at the smaller h */
    const double tol2 = 4.0 * tol[0] / hs[0] + 4.0 * tol[1] / hs[1];
    CHECK(d2diff <= tol2, "%s (a): second differences with h = %g and %g differ by %.3g > "
          "%.3g", what, hs[0], hs[1], d2diff, tol2);
    CHECK(o_same, "%s (a): O_m changed with p (it must not: J is linear in p)", what);
    /* the chain is back at p0: the same bits as before */
    double again[1 + 2 * PMAX];
    if (!local(c, again))
        CHECK(!memcmp(again, o0, (1 + 2 * P) * sizeof *o0),
              "%s (a): variational_local at p0 after set(p0) differs from before", what);
    printf("(a) %-34s E_L = %.10f, max|dE/dp| = %.4f, S = %.3f: |FD - dE/dp| <= %.2e "
           "(h = %g, tol %.2e), %.2e (h = %g, tol %.2e); FD(h1) - FD(h2) %.2e; d2E/dp2 up to "
           "%.4f, h1 vs h2 %.2e (tol %.2e); O_m independent of p: %s\n", what, E0, dEmax, S,
           worst[0], hs[0], tol[0], worst[1], hs[1], tol[1], agree, d2max, d2diff, tol2,
           o_same ? "yes" : "NO");
}

/* ---- (b) O_m against the derivative of the log ratio ---------------------------------- */

static void check_log_ratio(sjc *c, const char *what)
{
    const size_t P = c->P, N = c->n;
    uint64_t move[16];
    double p0[PMAX], p[PMAX], before[1 + 2 * PMAX], after[1 + 2 * PMAX];
    if (P > PMAX || md->move_size > sizeof move ||
        MCFI_MODEL(md, variational_get, c->chain, p0))
        return;
    const double hs[2] = {1e-3, 0.25};
    double worst[2] = {0, 0}, ratio[2] = {0, 0}, omax = 0;
    int same = 1, rc = sweep_start(c);
    for (size_t e = 0; !rc && e < N; e++) {
        double lr0, lrp, lrm, lr1, fd[2][PMAX];
        if (local(c, before))
            return;
        rc = propose(c, move, &lr0);
        for (int k = 0; !rc && k < 2; k++)
            for (size_t m = 0; !rc && m < P; m++) {
                memcpy(p, p0, P * sizeof *p);
                p[m] = p0[m] + hs[k];
                rc = MCFI_MODEL(md, variational_set, c->chain, p);
                rc = rc ? rc : propose(c, move, &lrp);
                p[m] = p0[m] - hs[k];
                rc = rc ? rc : MCFI_MODEL(md, variational_set, c->chain, p);
                rc = rc ? rc : propose(c, move, &lrm);
                fd[k][m] = (lrp - lrm) / (2.0 * hs[k]);
            }
        rc = rc ? rc : MCFI_MODEL(md, variational_set, c->chain, p0);
        rc = rc ? rc : propose(c, move, &lr1);
        if (!rc)
            same &= lr1 == lr0;
        rc = rc ? rc : decide(c, move, 1); /* every move, to have O at R' */
        if (rc || local(c, after)) {
            CHECK(0, "%s (b): electron %zu: %s", what, e, mcf_last_error());
            return;
        }
        for (int k = 0; k < 2; k++) {
            const double tol = 64.0 * (double)N * UNIT * (1.0 + fabs(lr0)) / hs[k] +
                               2.0 * (double)(N * N) * UNIT;
            for (size_t m = 0; m < P; m++) {
                const double want = 2.0 * (after[1 + m] - before[1 + m]);
                const double d = fabs(fd[k][m] - want);
                worst[k] = fmax(worst[k], d);
                ratio[k] = fmax(ratio[k], d / tol);
                omax = fmax(omax, fabs(want));
                CHECK(d <= tol, "%s (b): electron %zu, parameter %zu, h = %g: d(log ratio)/dp "
                      "= %.15g, 2 (O(R') - O(R)) = %.15g: difference %.3g > %.3g", what, e, m,
                      hs[k], fd[k][m], want, d, tol);
            }
        }
    }
    CHECK(same, "%s (b): log_ratio after restoring p differs from before", what);
    printf("(b) %-34s %zu moves: max|2 dO| = %.4f; |d(log ratio)/dp - 2 (O(R') - O(R))| <= "
           "%.2e (h = %g), %.2e (h = %g): at most %.3f of the tolerance; log ratio restored "
           "bit-exactly: %s\n", what, N, omax, worst[0], hs[0], worst[1], hs[1],
           fmax(ratio[0], ratio[1]), same ? "yes" : "NO");
}

/* ---- (c) p = 0, get/set, O_m from the positions -------------------------------------- */

/* the positions (3 n) from the chain's save() record: magic, N, N_up, positions */
static int positions(const sjc *c, double *r)
{
    mcf_stream s;
    mcf_stream_init_writer(&s);
    int rc = MCFI_MODEL(md, save, c->chain, &s);
    const size_t at = 3 * sizeof(uint64_t);
    if (!rc && s.size >= at + 3 * c->n * sizeof *r)
        memcpy(r, (const unsigned char *)s.data + at, 3 * c->n * sizeof *r);
    else
        rc = MCF_EINTERNAL;
    mcf_stream_release(&s);
    CHECK(rc == MCF_OK, "save: %s", mcf_last_error());
    return rc;
}

/* dw/dp_m at r for a spline of P parameters and cutoff rc (sj_bspline.c's header), into
 * g[P] (added) */
static void spline_param_derivative(size_t P, double rc, double r, double *g, double sign)
{
    if (r >= rc)
        return;
    const double dr = rc / (double)(P + 1), x = r / dr;
    double fl = floor(x);
    if (fl > (double)P)
        fl = (double)P;
    const double t = x - fl;
    const long i = (long)fl;
    const double B[4] = {(1 - t) * (1 - t) * (1 - t) / 6, (3 * t * t * t - 6 * t * t + 4) / 6,
                         (-3 * t * t * t + 3 * t * t + 3 * t + 1) / 6, t * t * t / 6};
    for (int a = 0; a < 4; a++) {
        const long cidx = i + a; /* coefficient index; which parameter it holds */
        long m = -1;
        if (cidx == 1)
            m = 0;
        else if (cidx == 0 || cidx == 2)
            m = 1;
        else if (cidx >= 3 && cidx <= (long)P)
            m = cidx - 1;
        if (m >= 0)
            g[m] += sign * B[a];
    }
}

/* O_m = -sum_{i<j} dw/dp_m(r_ij) from positions: uu block first, then ud (not polarized) */
static void independent_O(const double *r, size_t n, size_t n_up, double L, size_t Puu,
                          size_t Pud, double rc, double *O)
{
    for (size_t m = 0; m < Puu + Pud; m++)
        O[m] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double s2 = 0;
            for (int a = 0; a < 3; a++) {
                double d = r[3 * i + a] - r[3 * j + a];
                d -= L * nearbyint(d / L);
                s2 += d * d;
            }
            const int like = (i < n_up) == (j < n_up);
            if (like)
                spline_param_derivative(Puu, rc, sqrt(s2), O, -1.0);
            else
                spline_param_derivative(Pud, rc, sqrt(s2), O + Puu, -1.0);
        }
}

static void check_zero_parameters(int polarized)
{
    const char *ne = polarized ? "19" : "14", *pol = polarized ? "true" : "false";
    const size_t want_P = polarized ? 5 : 10;
    sjc z, q;
    int rz = sjc_make(&z, seed_of[polarized], "electrons", ne, "polarized", pol, "rs", "5",
                      "jastrow", "bspline", "jastrow_size", "5", NULL);
    CHECK(rz == MCF_OK, "(c) p = 0 chain: %s", mcf_last_error());
    int rq = sjc_make(&q, seed_of[polarized], "electrons", ne, "polarized", pol, "rs", "5",
                      "jastrow", "bspline", "jastrow_uu", QMC_UU, "jastrow_ud", QMC_UD, NULL);
    CHECK(rq == MCF_OK, "(c) QMCPACK chain: %s", mcf_last_error());
    if (rz || rq) {
        sjc_free(&z);
        sjc_free(&q);
        return;
    }
    const size_t P = z.P, n = z.n;
    CHECK(P == want_P && q.P == want_P, "(c) variational_count %zu and %zu, want %zu", P, q.P,
          want_P);
    double p[PMAX], a[1 + 2 * PMAX], b[1 + 2 * PMAX], o_q[1 + 2 * PMAX], Oind[PMAX];
    if (P != want_P || q.P != want_P || MCFI_MODEL(md, variational_get, z.chain, p))
        goto done;
    int zeros = 1;
    for (size_t m = 0; m < P; m++)
        zeros &= p[m] == 0.0;
    CHECK(zeros, "(c) variational_get of jastrow_uu = jastrow_ud = zero: not all zero");
    if (local(&z, a) || local(&z, b) || local(&q, o_q))
        goto done;
    CHECK(!memcmp(a, b, (1 + 2 * P) * sizeof *a), "(c) variational_local twice: not the same "
          "bits");
    CHECK(!memcmp(a + 1, o_q + 1, P * sizeof *a), "(c) O_m at p = 0 and at QMCPACK's p differ "
          "at the same configuration (O does not depend on p)");
    /* O_m from the positions, written here from the convention */
    double *r = malloc(3 * n * sizeof *r), omax = 0, odiff = 0;
    if (r && !positions(&z, r)) {
        double L = cbrt(4.0 / 3.0 * pi * 125.0 * (double)n);
        independent_O(r, n, polarized ? n : n / 2, L, 5, polarized ? 0 : 5, 0.5 * L, Oind);
        for (size_t m = 0; m < P; m++) {
            odiff = fmax(odiff, fabs(Oind[m] - a[1 + m]));
            omax = fmax(omax, fabs(Oind[m]));
        }
        CHECK(odiff <= 1e-12 * fmax(1.0, omax), "(c) O_m differs from the independent "
              "evaluation from the positions by %.3g (max |O| %.3g)", odiff, omax);
    }
    free(r);
    /* set then get: the same bits; a NaN is refused */
    double s[PMAX], g[PMAX];
    for (size_t m = 0; m < P; m++)
        s[m] = 0.1 * (double)(m + 1) - 0.37 / (double)(m + 3);
    if (!set_p(&z, s) && !MCFI_MODEL(md, variational_get, z.chain, g))
        CHECK(!memcmp(s, g, P * sizeof *s), "(c) variational_get after set: not the bits set");
    s[P - 1] = NAN;
    const int rn = MCFI_MODEL(md, variational_set, z.chain, s);
    CHECK(rn == MCF_EINVAL, "(c) variational_set with a NaN parameter: returned %d", rn);
    printf("(c) p = 0, %-19s count %zu, get zeros: %s; O_m twice and at QMCPACK's p bit-equal; "
           "O_m vs the independent evaluation: %.2e (max |O| %.3f); set/get round trip, NaN "
           "refused\n", polarized ? "N = 19 polarized:" : "N = 14:", P, zeros ? "yes" : "NO",
           odiff, omax);
done:
    sjc_free(&z);
    sjc_free(&q);
}

/* ---- (d) the parameter file round trip ---------------------------------------------- */

static void tmp_path(char *path, size_t size, const char *name)
{
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, size, "%s/%s", tmp && tmp[0] ? tmp : "/tmp", name);
}

static void check_file_round_trip(int polarized)
{
    const char *ne = polarized ? "19" : "14", *pol = polarized ? "true" : "false";
    char path[1024];
    tmp_path(path, sizeof path, polarized ? "sj_jastrow_pol.txt" : "sj_jastrow.txt");
    sjc a, b;
    /* a cutoff below L/2 (L/2 = 9.71 for N = 14, 10.75 for N = 19) */
    if (sjc_make(&a, 777, "electrons", ne, "polarized", pol, "rs", "5", "jastrow", "bspline",
                 "jastrow_uu", QMC_UU, "jastrow_ud", QMC_UD, "jastrow_cutoff", "8.3", NULL)) {
        CHECK(0, "(d) chain: %s", mcf_last_error());
        return;
    }
    double p[PMAX], oa[1 + 2 * PMAX], ob[1 + 2 * PMAX];
    const size_t P = a.P;
    if (P > PMAX || MCFI_MODEL(md, variational_get, a.chain, p))
        goto out_a;
    for (size_t m = 0; m < P; m++) /* digits that a short format would lose */
        p[m] = p[m] * (1.0 + 1.0 / 3.0) - 0.1 / 7.0;
    if (set_p(&a, p) || local(&a, oa))
        goto out_a;
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "(d) cannot write %s", path);
    if (!f)
        goto out_a;
    int rc = MCFI_MODEL(md, variational_write, a.chain, f);
    CHECK(rc == MCF_OK, "(d) variational_write: %s", mcf_last_error());
    if (fclose(f) != 0 || rc)
        goto out_a;
    rc = sjc_make(&b, 777, "electrons", ne, "polarized", pol, "rs", "5", "jastrow", "bspline",
                  "jastrow_file", path, NULL);
    CHECK(rc == MCF_OK, "(d) chain from %s: %s", path, mcf_last_error());
    if (rc)
        goto out_a;
    double pb[PMAX];
    CHECK(b.P == P, "(d) %zu parameters read back, %zu written", b.P, P);
    if (b.P == P && !MCFI_MODEL(md, variational_get, b.chain, pb) && !local(&b, ob)) {
        CHECK(!memcmp(p, pb, P * sizeof *p), "(d) the parameters read back are not the bits "
              "written");
        CHECK(!memcmp(oa, ob, (1 + 2 * P) * sizeof *oa), "(d) variational_local of the chain "
              "from the file differs from the chain that wrote it (E_L %.17g vs %.17g)", oa[0],
              ob[0]);
        printf("(d) %-26s %zu parameters through %s: parameters and variational_local "
               "(E_L %.12f) bit-identical: %s\n", polarized ? "N = 19 polarized" : "N = 14", P,
               path, oa[0],
               !memcmp(oa, ob, (1 + 2 * P) * sizeof *oa) && !memcmp(p, pb, P * sizeof *p)
                   ? "yes" : "NO");
    }
    sjc_free(&b);
out_a:
    sjc_free(&a);
    remove(path);
}

/* ---- (e) refusals ---------------------------------------------------------------------- */

/* create with the keys must fail with a message containing needle (and needle2 unless
 * NULL) */
static void refused(const char *what, const char *needle, const char *needle2, ...)
{
    const char *kv[16] = {NULL};
    va_list ap;
    va_start(ap, needle2);
    for (int i = 0; i < 15; i++)
        if (!(kv[i] = va_arg(ap, const char *)))
            break;
    va_end(ap);
    sjc c;
    const int rc = sjc_make(&c, 1, "electrons", "14", "rs", "5", kv[0], kv[1], kv[2], kv[3],
                            kv[4], kv[5], kv[6], kv[7], kv[8], kv[9], NULL);
    const char *msg = rc ? mcf_last_error() : "accepted";
    const int ok = rc != MCF_OK && strstr(msg, needle) && (!needle2 || strstr(msg, needle2));
    CHECK(ok, "(e) %s: expected a refusal naming '%s'%s%s: %s", what, needle,
          needle2 ? " and " : "", needle2 ? needle2 : "", msg);
    printf("(e) %-30s refused: %s\n", what, msg);
    sjc_free(&c);
}

static void check_refusals(void)
{
    char missing[1024], bad[1024], line[1200];
    tmp_path(missing, sizeof missing, "sj_no_such_jastrow_file.txt");
    remove(missing);
    tmp_path(bad, sizeof bad, "sj_jastrow_bad.txt");
    FILE *f = fopen(bad, "w");
    CHECK(f != NULL, "(e) cannot write %s", bad);
    if (f) {
        fprintf(f, "# a parameter file with an unknown item on line 4\nform bspline\n"
                   "uu 1 0.5 0.2\nwidth 3\nud 1 0.5 0.2\n");
        fclose(f);
    }
    snprintf(line, sizeof line, "%s:4", bad);
    refused("jastrow_uu = 1.0 abc", "jastrow_uu", "abc", "jastrow", "bspline", "jastrow_uu",
            "1.0 abc", NULL);
    refused("jastrow_uu = 1.0", "jastrow_uu", NULL, "jastrow", "bspline", "jastrow_uu", "1.0",
            NULL);
    refused("jastrow_file missing", "jastrow", missing, "jastrow", "bspline", "jastrow_file",
            missing, NULL);
    refused("jastrow_file + jastrow_uu", "jastrow_file", "jastrow_uu", "jastrow", "bspline",
            "jastrow_file", missing, "jastrow_uu", QMC_UU, NULL);
    refused("jastrow_uu with jastrow = rpa", "jastrow_uu", "bspline", "jastrow", "rpa",
            "jastrow_uu", QMC_UU, NULL);
    refused("jastrow_cutoff = 10 > L/2 = 9.71", "jastrow_cutoff", "L/2", "jastrow", "bspline",
            "jastrow_cutoff", "10", NULL);
    refused("an unknown item in the file", line, "width", "jastrow", "bspline", "jastrow_file",
            bad, NULL);
    remove(bad);
}

/* ---- the chains of (a) and (b) -------------------------------------------------------- */

/* The pairs of the chain's configuration per knot interval [i dr, (i + 1) dr), i = 0 .. P
 * (the B-spline of P parameters and cutoff L/2), like spins in count[0], unlike in
 * count[1]; returns the smallest count over the intervals (and kinds present).  A bug in
 * one interval of the spline (a coefficient mapped to the wrong parameter, the cusp
 * coefficient c_0, which enters only below dr) shows only for a pair in that interval. */
static long interval_coverage(const sjc *c, size_t n_up, size_t P, long count[2][PMAX + 1])
{
    const size_t n = c->n;
    double *r = malloc(3 * n * sizeof *r);
    memset(count, 0, 2 * (PMAX + 1) * sizeof count[0][0]);
    if (!r || positions(c, r)) {
        free(r);
        return 0;
    }
    const double L = cbrt(4.0 / 3.0 * pi * 125.0 * (double)n), dr = 0.5 * L / (double)(P + 1);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double s2 = 0;
            for (int a = 0; a < 3; a++) {
                double d = r[3 * i + a] - r[3 * j + a];
                d -= L * nearbyint(d / L);
                s2 += d * d;
            }
            const long k = (long)floor(sqrt(s2) / dr);
            if (k <= (long)P)
                count[(i < n_up) == (j < n_up) ? 0 : 1][k]++;
        }
    free(r);
    long least = -1;
    for (int kind = 0; kind < (n_up < n ? 2 : 1); kind++)
        for (size_t k = 0; k <= P; k++)
            if (least < 0 || count[kind][k] < least)
                least = count[kind][k];
    return least;
}

/* The first seed from `seed` on whose start (uniform positions) has pairs of both spin
 * kinds in every knot interval: the configuration of (a) and (b) before any move, and of
 * (c).  Uniform starts have close pairs that |Psi|^2 suppresses, so the cusp interval
 * [0, dr) is covered there. */
static uint64_t covering_seed(uint64_t seed, int polarized)
{
    const char *ne = polarized ? "19" : "14", *pol = polarized ? "true" : "false";
    const size_t n = polarized ? 19 : 14, n_up = polarized ? 19 : 7;
    long count[2][PMAX + 1];
    for (int tries = 0; tries < 2000; tries++, seed++) {
        sjc c;
        if (sjc_make(&c, seed, "electrons", ne, "polarized", pol, "rs", "5", NULL)) {
            CHECK(0, "create: %s", mcf_last_error());
            return seed;
        }
        const long least = interval_coverage(&c, n_up, 5, count);
        sjc_free(&c);
        if (least > 0) {
            printf("    seed %llu: pairs per knot interval (dr = L/12), like spins:",
                   (unsigned long long)seed);
            for (int kind = 0; kind < (n_up < n ? 2 : 1); kind++) {
                if (kind)
                    printf("; unlike:");
                for (int k = 0; k <= 5; k++)
                    printf(" %ld", count[kind][k]);
            }
            printf("\n");
            return seed;
        }
    }
    CHECK(0, "no seed in 2000 has pairs in every knot interval");
    return seed;
}


static void check_derivatives(int polarized)
{
    const char *what = polarized ? "N = 19 polarized, rs = 5" : "N = 14, rs = 5";
    char label[64];
    sjc c;
    seed_of[polarized] = covering_seed(1000, polarized);
    if (sjc_make(&c, seed_of[polarized], "electrons", polarized ? "19" : "14", "polarized",
                 polarized ? "true" : "false", "rs", "5", "jastrow", "bspline", "jastrow_uu",
                 QMC_UU, "jastrow_ud", QMC_UD, NULL)) {
        CHECK(0, "%s: create: %s", what, mcf_last_error());
        return;
    }
    CHECK(c.P == (polarized ? 5u : 10u), "%s: variational_count %zu", what, c.P);
    /* the start, then one sweep of (b)'s forced moves, then 30 Metropolis sweeps */
    snprintf(label, sizeof label, "%s, start", what);
    check_energy_derivative(&c, label);
    check_log_ratio(&c, label);
    snprintf(label, sizeof label, "%s, moved", what);
    check_energy_derivative(&c, label);
    if (!metropolis(&c, 30)) {
        snprintf(label, sizeof label, "%s, |Psi|^2", what);
        check_energy_derivative(&c, label);
        check_log_ratio(&c, label);
    }
    sjc_free(&c);
}

int main(void)
{
    mcf_plugin *model = NULL;
    if (sj_util_open(&model)) {
        sj_util_close(model);
        return check_exit();
    }
    CHECK(md->has_variational && md->variational_file_key &&
              !strcmp(md->variational_file_key, "jastrow_file"),
          "slater-jastrow has variational parameters (file key jastrow_file)");
    if (md->has_variational) {
        check_derivatives(0);
        check_derivatives(1);
        check_zero_parameters(0);
        check_zero_parameters(1);
        check_file_round_trip(0);
        check_file_round_trip(1);
        check_refusals();
    }
    sj_util_close(model);
    return check_exit();
}
