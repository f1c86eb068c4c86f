/* test_response_cuda.c — kpm-cuda's two-dimensional Chebyshev moments (mcf/fermion.h's
 * response on the device: kpm_cuda_response.cu) against ed's exact ones and kpm's on the
 * host.  Without a usable device it prints "skipped: no device" and returns 77, which ctest
 * counts as skipped.
 *
 * Hamiltonians: AND, Anderson on a periodic 6x6 square (t = 1, W = 3, a twist of
 * (0.13, 0.27) x 2 pi: complex, dim 36); CUBE(L), Anderson on a periodic L^3 cube (W = 2,
 * twist (0.1, 0.2, 0.3) x 2 pi, width 6); the current operators J_a of mcf/response.h
 * (||J_a|| <= 2 t: a row of J has two entries of modulus t).
 *
 * Tolerance of device against host for the same vectors: x_nm = <gamma_n|beta_m> / dim with
 * |x_nm| <= ||A|| ||B|| (||T_n(H~)|| <= 1, |v|^2 = dim).  The recursion's rounding grows at
 * most linearly in n (Chebyshev's three-term recurrence on [-1, 1]), each product adds a
 * few eps per term (width + 1 terms), and the sums over rows are in another order (ZGEMM):
 * tol = 64 M eps ||A|| ||B|| covers all of it with room, and is ~1e-12 at M = 40, far below
 * any statistical error of the estimate.
 *
 * (a) vectors = 0 (every unit vector: exact) on AND, M = 24, (J_x, J_y) and (J_x, J_x):
 *     kpm-cuda against ed within 1e-11 (as kpm's own test), and against kpm within tol.
 * (b) vectors = 40 from one seed on AND: the same vectors as kpm draws, so every moment
 *     within tol of kpm's, and the standard errors within tol of kpm's.
 * (c) the device layer's blocking on CUBE(8), M = 40, R = 5 random vectors: the automatic
 *     shape and forced ones (vectors a pass 2, betas a block 16, gammas a chunk 7 — passes
 *     of 2, 2, 1, blocks of 16, 16, 8, chunks with a short last one; 1, 16, 1; 3, 40, 13)
 *     report the shape they were given and give sums within tol of the host's
 *     (kpm_response_sums) for the same vectors.
 * (d) two workspaces in one call (AND and AND with W = 5), vectors = 8: each within tol of
 *     kpm's; then one on-site energy of the first changed (the journal carries it to the
 *     device): again within tol of kpm's on the changed H, and the result moved by more
 *     than 100 tol (the device did not keep the old H).
 * (e) the plugin's automatic shape on CUBE(16) (dim 4096), M = 64, vectors = 3: within tol
 *     of kpm. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evaluator_test.h"
#include "internal.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_ops.h"
#include "mcf/mcf.h"
#include "test_params.h"
#include "test_xorshift.h"

static const double pi = 3.14159265358979323846;
static const mcf_plugin_info *ed_info, *kpm_info, *cu_info;

static double tol_of(size_t M) { return 64.0 * (double)M * DBL_EPSILON * 4.0; }

static mcf_lattice *lattice(mcf_lattice_kind kind, long L)
{
    mcf_lattice *lat = NULL;
    CHECK(mcf_lattice_create(kind, L, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK, "%s",
          mcf_last_error());
    return lat;
}

static mcf_hamiltonian *anderson(const mcf_lattice *lat, int width, double W,
                                 unsigned long long seed)
{
    const double theta[3] = {0.13 * 2 * pi, 0.27 * 2 * pi, 0.3 * 2 * pi};
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, width, &h) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set_hopping_twisted(h, lat, 1.0, theta) == MCF_OK, "%s",
          mcf_last_error());
    for (size_t i = 0; i < lat->sites; i++)
        mcf_hamiltonian_set_onsite(h, i, W * (test_xorshift_uniform(&seed) - 0.5));
    return h;
}

static mcf_hamiltonian *current(const mcf_hamiltonian *h, const mcf_lattice *lat, int axis)
{
    mcf_hamiltonian *J = NULL;
    CHECK(mcf_current_operator(h, lat, axis, &J) == MCF_OK, "current: %s", mcf_last_error());
    return J;
}

typedef struct mom {
    size_t M;
    double *re, *im, *err, ab[2];
} mom;

static mom mom_new(size_t M)
{
    mom m = {M, calloc(M * M, sizeof(double)), calloc(M * M, sizeof(double)),
             calloc(M * M, sizeof(double)), {0, 0}};
    return m;
}

static void mom_free(mom *m)
{
    free(m->re);
    free(m->im);
    free(m->err);
}

/* the moments of n workspaces of plugin e (one call), on hs[k], A[k], B[k]; rngs seeded
 * 47 + k */
static void moments_n(const mcf_plugin_info *e, test_params *tp, size_t n, void **ws,
                      const mcf_hamiltonian *const *A, const mcf_hamiltonian *const *B,
                      size_t M, const double *scale, mom *out)
{
    mcf_rng rng[4], *rp[4];
    double *re[4], *im[4], *err[4], *ab[4];
    for (size_t k = 0; k < n; k++) {
        mcf_rng_init(&rng[k], 47 + k, 1);
        rp[k] = &rng[k];
        re[k] = out[k].re;
        im[k] = out[k].im;
        err[k] = out[k].err;
        ab[k] = out[k].ab;
    }
    (void)tp;
    mcf_response r = {.moments = M, .scale = scale, .op_a = A, .op_b = B, .mu_re = re,
                      .mu_im = im, .mu_err = err, .moment_scale = ab};
    CHECK(tev_v2(e)->response(tev_batch(), ws, n, rp, &r) == MCF_OK, "%s response: %s",
          e->name, mcf_last_error());
}

static mom moments(const mcf_plugin_info *e, test_params *tp, const mcf_hamiltonian *h,
                   const mcf_hamiltonian *A, const mcf_hamiltonian *B, size_t M,
                   const double *scale)
{
    mom m = mom_new(M);
    void *ws = test_params_workspace(e, tp, h);
    if (ws) {
        moments_n(e, tp, 1, &ws, &A, &B, M, scale, &m);
        tev_destroy(e, ws);
    }
    return m;
}

/* the largest |x - y| over the M^2 complex moments (and over the errors when err) */
static double max_diff(const mom *x, const mom *y, int err)
{
    double d = 0.0;
    for (size_t q = 0; q < x->M * x->M; q++) {
        d = fmax(d, hypot(x->re[q] - y->re[q], x->im[q] - y->im[q]));
        if (err)
            d = fmax(d, fabs(x->err[q] - y->err[q]));
    }
    return d;
}

static void part_a(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_SQUARE, 6);
    mcf_hamiltonian *h = anderson(lat, 4, 3.0, 20261203);
    mcf_hamiltonian *jx = current(h, lat, 0), *jy = current(h, lat, 1);
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    test_params *tk = test_params_make(kpm_info->params, "test", "vectors", "0", NULL);
    test_params *tc = test_params_make(cu_info->params, "test", "vectors", "0", NULL);
    const size_t M = 24;
    for (int xy = 0; xy < 2; xy++) {
        const mcf_hamiltonian *B = xy ? jx : jy;
        mom ed = moments(ed_info, te, h, jx, B, M, NULL);
        mom kp = moments(kpm_info, tk, h, jx, B, M, ed.ab);
        mom cu = moments(cu_info, tc, h, jx, B, M, ed.ab);
        const double de = max_diff(&cu, &ed, 0), dk = max_diff(&cu, &kp, 1);
        printf("(a) exact, J_x J_%c, M = %zu: kpm-cuda against ed %.2e, against kpm %.2e "
               "(tol %.2e)\n", xy ? 'x' : 'y', M, de, dk, tol_of(M));
        CHECK(de < 1e-11, "(a) kpm-cuda against ed: %.3e", de);
        CHECK(dk < tol_of(M), "(a) kpm-cuda against kpm: %.3e", dk);
        mom_free(&ed);
        mom_free(&kp);
        mom_free(&cu);
    }
    test_params_free(te);
    test_params_free(tk);
    test_params_free(tc);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(jy);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

static void part_b(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_SQUARE, 6);
    mcf_hamiltonian *h = anderson(lat, 4, 3.0, 20261203);
    mcf_hamiltonian *jx = current(h, lat, 0), *jy = current(h, lat, 1);
    test_params *tk = test_params_make(kpm_info->params, "test", "vectors", "40", NULL);
    test_params *tc = test_params_make(cu_info->params, "test", "vectors", "40", NULL);
    const size_t M = 32;
    mom kp = moments(kpm_info, tk, h, jx, jy, M, NULL);
    mom cu = moments(cu_info, tc, h, jx, jy, M, NULL);
    const double d = max_diff(&cu, &kp, 1);
    double err_max = 0.0;
    for (size_t q = 0; q < M * M; q++)
        err_max = fmax(err_max, kp.err[q]);
    printf("(b) 40 random vectors, M = %zu: kpm-cuda against kpm %.2e (tol %.2e; the "
           "estimate's standard errors reach %.2e)\n", M, d, tol_of(M), err_max);
    CHECK(d < tol_of(M), "(b) kpm-cuda against kpm: %.3e", d);
    CHECK(kp.ab[0] == cu.ab[0] && kp.ab[1] == cu.ab[1], "(b) the scaling differs");
    mom_free(&kp);
    mom_free(&cu);
    test_params_free(tk);
    test_params_free(tc);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(jy);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* random phases from a stream: the source of part (c) */
typedef struct phases {
    mcf_rng rng;
    size_t dim;
} phases;

static void phases_fill(void *ctx, size_t nv, double *v)
{
    phases *p = ctx;
    for (size_t k = 0; k < nv; k++)
        kpm_random_vector(&p->rng, KPM_RANDOM_PHASE, p->dim, 1, 0, v + 2 * k * p->dim);
}

static void part_c(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_CUBIC, 8);
    mcf_hamiltonian *h = anderson(lat, 6, 2.0, 47);
    mcf_hamiltonian *jx = current(h, lat, 0), *jz = current(h, lat, 2);
    const size_t dim = h->dim, M = 40, R = 5;
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    const double a = 0.5 * (hi - lo) * 1.01, b = 0.5 * (hi + lo);
    double *hr = malloc(3 * M * M * sizeof *hr), *gr = malloc(3 * M * M * sizeof *gr);
    phases src = {.dim = dim};
    mcf_rng_init(&src.rng, 2026, 12);
    const kpm_vector_source vs = {phases_fill, &src};
    CHECK(kpm_response_sums("host", h, jx, jz, a, b, M, R, &vs, hr, hr + M * M,
                            hr + 2 * M * M) == MCF_OK, "(c) host: %s", mcf_last_error());
    kcu_ham *dh = NULL, *da = NULL, *db = NULL;
    CHECK(kcu_ham_load(&dh, h) == MCF_OK && kcu_ham_load(&da, jx) == MCF_OK &&
          kcu_ham_load(&db, jz) == MCF_OK, "(c) device copies: %s", mcf_last_error());
    const kcu_response_limits shapes[4] = {{0, 0, 0, 0}, {2, 16, 7, 0}, {1, 16, 1, 0},
                                           {3, 40, 13, 0}};
    for (int i = 0; i < 4 && dh && da && db; i++) {
        kcu_response *s = NULL;
        CHECK(kcu_response_create(dim, M, R, &shapes[i], &s) == MCF_OK, "(c) scratch: %s",
              mcf_last_error());
        if (!s)
            continue;
        size_t nv, mb, nb;
        kcu_response_shape(s, &nv, &mb, &nb);
        if (i > 0)
            CHECK(nv == shapes[i].vectors && mb == shapes[i].beta_block &&
                  nb == shapes[i].gamma_block, "(c) shape %zu %zu %zu, asked %zu %zu %zu", nv,
                  mb, nb, shapes[i].vectors, shapes[i].beta_block, shapes[i].gamma_block);
        mcf_rng_init(&src.rng, 2026, 12);
        CHECK(kcu_response_sums(s, dh, da, db, a, b, R, phases_fill, &src, gr, gr + M * M,
                                gr + 2 * M * M, NULL) == MCF_OK, "(c) device: %s",
              mcf_last_error());
        double d = 0.0, dq = 0.0;
        for (size_t q = 0; q < M * M; q++) {
            d = fmax(d, hypot(gr[q] - hr[q], gr[M * M + q] - hr[M * M + q]));
            dq = fmax(dq, fabs(gr[2 * M * M + q] - hr[2 * M * M + q]));
        }
        printf("(c) CUBE(8), M = %zu, R = %zu, shape (vectors %zu, betas %zu, gammas %zu): "
               "sums against the host's %.2e, squares %.2e (tol %.2e R)\n", M, R, nv, mb, nb,
               d, dq, tol_of(M));
        CHECK(d < tol_of(M) * (double)R, "(c) sums: %.3e", d);
        CHECK(dq < tol_of(M) * 2.0 * 4.0 * (double)R, "(c) squares: %.3e", dq);
        kcu_response_destroy(s);
    }
    kcu_ham_destroy(dh);
    kcu_ham_destroy(da);
    kcu_ham_destroy(db);
    free(hr);
    free(gr);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(jz);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

static void part_d(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_SQUARE, 6);
    mcf_hamiltonian *h[2] = {anderson(lat, 4, 3.0, 20261203), anderson(lat, 4, 5.0, 7)};
    const mcf_hamiltonian *A[2] = {current(h[0], lat, 0), current(h[1], lat, 1)};
    const mcf_hamiltonian *B[2] = {current(h[0], lat, 1), A[1]};
    test_params *tk = test_params_make(kpm_info->params, "test", "vectors", "8", NULL);
    test_params *tc = test_params_make(cu_info->params, "test", "vectors", "8", NULL);
    const size_t M = 20;
    void *wk[2] = {test_params_workspace(kpm_info, tk, h[0]),
                   test_params_workspace(kpm_info, tk, h[1])};
    void *wc[2] = {test_params_workspace(cu_info, tc, h[0]),
                   test_params_workspace(cu_info, tc, h[1])};
    mom kp[2] = {mom_new(M), mom_new(M)}, cu[2] = {mom_new(M), mom_new(M)};
    mom old = mom_new(M);
    for (int round = 0; round < 2 && wk[0] && wk[1] && wc[0] && wc[1]; round++) {
        if (round == 1) { /* one on-site energy changed: the journal's row */
            memcpy(old.re, cu[0].re, M * M * sizeof(double));
            memcpy(old.im, cu[0].im, M * M * sizeof(double));
            mcf_hamiltonian_set_onsite(h[0], 5, 1.7);
        }
        moments_n(kpm_info, tk, 2, wk, A, B, M, NULL, kp);
        moments_n(cu_info, tc, 2, wc, A, B, M, NULL, cu);
        for (int k = 0; k < 2; k++) {
            const double d = max_diff(&cu[k], &kp[k], 1);
            printf("(d) %s, workspace %d of 2, vectors = 8, M = %zu: against kpm %.2e\n",
                   round ? "after the change" : "two in one call", k, M, d);
            CHECK(d < tol_of(M), "(d) round %d workspace %d: %.3e", round, k, d);
        }
    }
    const double moved = max_diff(&cu[0], &old, 0);
    printf("(d) the change moved the moments by %.2e\n", moved);
    CHECK(moved > 100.0 * tol_of(M), "(d) the device kept the old Hamiltonian: %.3e", moved);
    for (int k = 0; k < 2; k++) {
        if (wk[k])
            tev_destroy(kpm_info, wk[k]);
        if (wc[k])
            tev_destroy(cu_info, wc[k]);
        mom_free(&kp[k]);
        mom_free(&cu[k]);
        mcf_hamiltonian_destroy(h[k]);
    }
    mom_free(&old);
    mcf_hamiltonian_destroy((mcf_hamiltonian *)A[0]);
    mcf_hamiltonian_destroy((mcf_hamiltonian *)A[1]);
    mcf_hamiltonian_destroy((mcf_hamiltonian *)B[0]);
    test_params_free(tk);
    test_params_free(tc);
    mcf_lattice_destroy(lat);
}

static void part_e(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_CUBIC, 16);
    mcf_hamiltonian *h = anderson(lat, 6, 2.0, 11);
    mcf_hamiltonian *jx = current(h, lat, 0);
    test_params *tk = test_params_make(kpm_info->params, "test", "vectors", "3", NULL);
    test_params *tc = test_params_make(cu_info->params, "test", "vectors", "3", NULL);
    const size_t M = 64;
    mom kp = moments(kpm_info, tk, h, jx, jx, M, NULL);
    mom cu = moments(cu_info, tc, h, jx, jx, M, NULL);
    const double d = max_diff(&cu, &kp, 1);
    printf("(e) CUBE(16), 3 vectors, M = %zu: kpm-cuda against kpm %.2e (tol %.2e)\n", M, d,
           tol_of(M));
    CHECK(d < tol_of(M), "(e) kpm-cuda against kpm: %.3e", d);
    mom_free(&kp);
    mom_free(&cu);
    test_params_free(tk);
    test_params_free(tc);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

int main(void)
{
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    mcf_plugin *pe = NULL, *pk = NULL, *pc = NULL;
    CHECK(mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe) == MCF_OK &&
          mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk) == MCF_OK &&
          mcfe_plugin_open("kpm-cuda", MCF_PLUGIN_FERMION_EVALUATOR, &pc) == MCF_OK,
          "loading ed, kpm, kpm-cuda: %s", mcf_last_error());
    if (!pe || !pk || !pc)
        return check_exit();
    ed_info = pe->info;
    kpm_info = pk->info;
    cu_info = pc->info;
    part_a();
    part_b();
    part_c();
    part_d();
    part_e();
    tev_batch_release();
    mcfe_plugin_close(pc);
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    return check_exit();
}
