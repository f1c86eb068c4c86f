/* test_blip_cuda.c — the GPU orbital evaluator blip-cuda against the CPU evaluator blip and
 * the exact planewave (label gpu).  Without a usable CUDA device it prints "skipped: no
 * device" and returns 77, which ctest counts as skipped.
 *
 * Orbitals: the homogeneous electron gas, closed shells (k = 0, then cos/sin pairs of the
 * shells |n|^2 = 1, 2 and 1 ... 5: 19 and 57 orbitals), cubic cell at r_s = 1, 24^3 and
 * automatic grids; random points in [-1, 2) cells (reduction into the cell included).
 *
 * The single-precision bound.  The GPU rounds the table and the weights to float and sums
 * the 64 terms c_ijk,l Bx By Bz in float: each term carries at most ~8 roundings (table,
 * 3 weights, 2-3 weight products, the term), the running sum at most 64 more, each of
 * relative size u = 2^-24 = FLT_EPSILON / 2, so
 *     |gpu - cpu| <= 64 FLT_EPSILON S + (CPU rounding, 256 DBL_EPSILON S),
 *     S = sum over the 64 terms of |c_ijk,l| |Bx By Bz|
 * (for d/dx_d the weight with B' on axis d; for the Laplacian |B''BB| + |BB''B| + |BBB''|),
 * computed here per point and orbital from the double table (blip_core, the same table both
 * plugins build), not picked.
 *
 *   (a) device layer, float and double accumulation: values, gradients, Laplacians of the
 *       GPU vs the CPU blip plugin within the bound; max |gpu - cpu| / S printed; also for
 *       56 and 54 orbitals with 4 orbitals per thread asked (the values kernel's float4 and
 *       float2 variants), whose values must equal those of 1 orbital per thread bit for bit;
 *   (b) vs planewave (exact): |gpu - pw| <= |cpu - pw| + the bound, per entry;
 *   (c) the plugin through the loader: name, probe, auto_priority 20, one_batch, the
 *       parameters of blip and the two settings (sum_precision, orbitals_per_thread, in
 *       config.ini only when changed); a batch of two workspaces (19 and 57 orbitals) equals
 *       the device layer's results bit for bit and two single calls bit for bit; a workspace
 *       made with sum_precision = double equals the device layer's double sums bit for bit
 *       (the key reaches the kernel), and a batch mixing it with a float one is refused;
 *   (d) refusals: a grid too coarse (naming the minimum), a non-finite position (naming the
 *       workspace), a NULL array;
 *   (e) out of device memory: a 600^3 x 1024 table (885 GB) is refused with MCF_ENOMEM
 *       naming the bytes; the device still works afterwards;
 *   (f) the determinant ops (Slater matrices on the device) against the same arithmetic on
 *       the host: three determinants (19 of 19, 57 and 40 of 57 orbitals: the two spins of
 *       one workspace; called through tests/orbital_test.h) in one batch, six
 *       particle-by-particle sweeps with Metropolis decisions.  The host takes the orbital
 *       rows from the plugin's values op (the same kernel, so the same bits) and, at every
 *       step, the exact ratio R = v . Ainv[:, i] from a FRESH LU inverse of its own rows.
 *       Sherman-Morrison in double loses about m eps kappa per update (kappa = |A| |Ainv|,
 *       infinity norms, measured here), so after k updates the ratio may be off by
 *           tol_R = (k + 1) m kappa eps sum_l |v_l Ainv[l][i]|,
 *       printed as max error / tol_R; the rows A and positions coming back (det_get) must
 *       equal the host's bit for bit (they are copies), the inverse within the same
 *       bound taken normwise ((k + 1) m kappa eps max|Ainv| per entry); det_refresh's drift must equal the host's max |Ainv A - 1| up to the product's
 *       rounding (2 m eps |Ainv| |A|) and leave a drift below 8 m eps kappa; det_local's
 *       grad_i D / D and lap_i D / D equal the host's contraction within tol_R.  Refusals:
 *       m > L, a determinant twice in a call, an electron out of range, accepting a move
 *       that was not the last ratio. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "blip_core.h"
#include "blip_cuda.h"
#include "check.h"
#include "orbital_test.h"
#include "test_params.h"

typedef struct heg {
    mcf_pw_orbitals o;
    int32_t g[3 * 64];
    double *a, *b;
} heg;

/* k = 0 and the cos/sin pairs of the shells |n|^2 = 1 .. max_shell */
static heg *heg_make(int max_shell)
{
    heg *s = calloc(1, sizeof *s);
    int ng = 1;
    for (int shell = 1; shell <= max_shell; shell++)
        for (int x = -3; x <= 3; x++)
            for (int y = -3; y <= 3; y++)
                for (int z = -3; z <= 3; z++) {
                    const int first = x ? x : y ? y : z;
                    if (x * x + y * y + z * z != shell || first < 0 || ng >= 64)
                        continue;
                    s->g[3 * ng] = x;
                    s->g[3 * ng + 1] = y;
                    s->g[3 * ng + 2] = z;
                    ng++;
                }
    const size_t L = (size_t)(2 * ng - 1);
    s->a = calloc(L * (size_t)ng, sizeof *s->a);
    s->b = calloc(L * (size_t)ng, sizeof *s->b);
    s->a[0] = 1.0;
    for (int g = 1; g < ng; g++) {
        s->a[(size_t)(2 * g - 1) * (size_t)ng + (size_t)g] = 1.0;
        s->b[(size_t)(2 * g) * (size_t)ng + (size_t)g] = 1.0;
    }
    const double side = cbrt(4.0 * 3.14159265358979323846 / 3.0 * (double)(2 * L));
    s->o = (mcf_pw_orbitals){{side, side, side}, L, (size_t)ng, s->g, s->a, s->b};
    return s;
}

static void heg_free(heg *s)
{
    free(s->a);
    free(s->b);
    free(s);
}

typedef struct evaluator {
    mcf_plugin *pl;
    const mcf_plugin_info *info; /* its table, of either ABI: called through orbital_test.h */
} evaluator;

static evaluator ev_open(const char *name)
{
    evaluator e = {NULL, NULL};
    int rc = mcfe_plugin_open(name, MCF_PLUGIN_ORBITAL_EVALUATOR, &e.pl);
    CHECK(rc == MCF_OK, "loading %s: %s", name, mcf_last_error());
    if (!rc)
        e.info = e.pl->info;
    return e;
}

static void *ev_create(const evaluator *e, const mcf_pw_orbitals *o, const char *grid)
{
    test_params *tp = test_params_make(e->pl->info->params, "test_blip_cuda.ini", "grid", grid,
                                       NULL);
    void *ws = NULL;
    int rc = tor_create(e->info, &tp->p, o, &ws);
    CHECK(rc == MCF_OK && ws, "%s create (grid %s): %s", e->pl->info->name, grid,
          mcf_last_error());
    test_params_free(tp);
    return ws;
}

/* results of one evaluation at P points: values, gradients, Laplacians */
typedef struct vgl {
    double *v, *g, *l;
} vgl;

static vgl vgl_alloc(size_t P, size_t L)
{
    vgl r = {calloc(P * L, sizeof(double)), calloc(3 * P * L, sizeof(double)),
             calloc(P * L, sizeof(double))};
    return r;
}

static void vgl_free(vgl *r)
{
    free(r->v);
    free(r->g);
    free(r->l);
}

/* S of every entry: the sums of |terms| (see the head of the file), in the layout of vgl */
static vgl term_sums(const double *c, const size_t n[3], const double cell[3], size_t L,
                     const double *r, size_t P)
{
    vgl S = vgl_alloc(P, L);
    double inv_h[3];
    for (int d = 0; d < 3; d++)
        inv_h[d] = (double)n[d] / cell[d];
    for (size_t p = 0; p < P; p++) {
        blip_axis_stencil s[3];
        for (int d = 0; d < 3; d++)
            blip_axis_setup(r[3 * p + (size_t)d], cell[d], inv_h[d], n[d], 1, &s[d]);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int k = 0; k < 4; k++) {
                    const double *row =
                        c + ((s[0].idx[a] * n[1] + s[1].idx[b]) * n[2] + s[2].idx[k]) * L;
                    const double X0 = fabs(s[0].w[0][a]), Y0 = fabs(s[1].w[0][b]),
                                 Z0 = fabs(s[2].w[0][k]);
                    const double wv = X0 * Y0 * Z0;
                    const double wg[3] = {fabs(s[0].w[1][a]) * Y0 * Z0,
                                          X0 * fabs(s[1].w[1][b]) * Z0,
                                          X0 * Y0 * fabs(s[2].w[1][k])};
                    const double wl = fabs(s[0].w[2][a]) * Y0 * Z0 +
                                      X0 * fabs(s[1].w[2][b]) * Z0 +
                                      X0 * Y0 * fabs(s[2].w[2][k]);
                    for (size_t l = 0; l < L; l++) {
                        const double ac = fabs(row[l]);
                        S.v[p * L + l] += ac * wv;
                        S.l[p * L + l] += ac * wl;
                        for (int d = 0; d < 3; d++)
                            S.g[(p * L + l) * 3 + (size_t)d] += ac * wg[d];
                    }
                }
    }
    return S;
}

static const double float_factor = 64.0 * FLT_EPSILON + 256.0 * DBL_EPSILON;

/* max over entries of |x - y| / S and of |x - y| / (float_factor S) */
static void compare(const double *x, const double *y, const double *S, size_t m,
                    double *rel, double *ratio)
{
    for (size_t i = 0; i < m; i++) {
        const double e = fabs(x[i] - y[i]), s = S[i] > 0 ? S[i] : DBL_MIN;
        *rel = fmax(*rel, e / s);
        *ratio = fmax(*ratio, e / (float_factor * s));
    }
}

/* the grid of a parameter text, through blip_core (as both plugins choose it) */
static int grid_of(const evaluator *e, const mcf_pw_orbitals *o, const char *grid, size_t n[3])
{
    test_params *tp = test_params_make(e->pl->info->params, "test_blip_cuda.ini", "grid", grid,
                                       NULL);
    int rc = blip_choose_grid("test", &tp->p, o, n);
    test_params_free(tp);
    return rc;
}

static evaluator cpu, gpu, pw;

/* (a), (b) for one orbital set and grid, vec orbitals per thread asked of the values
 * kernel; the device results with float and double accumulation into dev[0], dev[1] (P
 * points r) for (c) */
static void test_accuracy(const heg *s, const char *grid, const double *r, size_t P, int vec,
                          vgl *dev)
{
    const mcf_pw_orbitals *o = &s->o;
    const size_t L = o->n_orbitals;
    size_t n[3];
    CHECK(grid_of(&cpu, o, grid, n) == MCF_OK, "grid: %s", mcf_last_error());
    double *c = malloc(n[0] * n[1] * n[2] * L * sizeof *c);
    CHECK(blip_build_table("test", o, n, c) == MCF_OK, "table: %s", mcf_last_error());
    bcu_table *t = NULL;
    int rc = bcu_table_alloc(n, L, o->cell, &t);
    if (!rc)
        rc = bcu_table_upload(t, c);
    CHECK(rc == MCF_OK, "device table: %s", mcf_last_error());
    void *wc = ev_create(&cpu, o, grid), *wp = ev_create(&pw, o, grid);
    if (rc || !wc || !wp)
        return;
    vgl C = vgl_alloc(P, L), X = vgl_alloc(P, L);
    size_t np = P;
    rc = tor_vgl(cpu.info, &wc, 1, &r, &np, &C.v, &C.g, &C.l) ||
         tor_vgl(pw.info, &wp, 1, &r, &np, &X.v, &X.g, &X.l);
    CHECK(rc == MCF_OK, "CPU evaluation: %s", mcf_last_error());
    vgl S = term_sums(c, n, o->cell, L, r, P);
    for (int acc = 0; acc < 2; acc++) {
        const bcu_settings one = {acc, 1}, set = {acc, vec};
        vgl G = vgl_alloc(P, L);
        double *vonly = malloc(P * L * sizeof *vonly), *v1 = malloc(P * L * sizeof *v1);
        const bcu_table *tt = t;
        rc = bcu_table_set_settings(t, &one) ||
             bcu_eval(tor_batch(), &tt, 1, &r, &np, &v1, NULL, NULL, 0) ||
             bcu_table_set_settings(t, &set) ||
             bcu_eval(tor_batch(), &tt, 1, &r, &np, &G.v, &G.g, &G.l, 1) ||
             bcu_eval(tor_batch(), &tt, 1, &r, &np, &vonly, NULL, NULL, 0);
        CHECK(rc == MCF_OK, "GPU evaluation: %s", mcf_last_error());
        CHECK(!memcmp(vonly, v1, P * L * sizeof *v1), "%zu orbitals, %s accumulation: the "
              "values with %d orbitals per thread asked differ from those with 1", L,
              acc ? "double" : "float", vec);
        double rel[4] = {0, 0, 0, 0}, ratio[4] = {0, 0, 0, 0};
        compare(G.v, C.v, S.v, P * L, &rel[0], &ratio[0]);
        compare(G.g, C.g, S.g, 3 * P * L, &rel[1], &ratio[1]);
        compare(G.l, C.l, S.l, P * L, &rel[2], &ratio[2]);
        compare(vonly, C.v, S.v, P * L, &rel[3], &ratio[3]);
        printf("(a) %zu orbitals, grid %zu^3, %s accumulation, %d orbitals per thread asked: "
               "max |gpu - cpu| / S = %.2e (values), %.2e (gradients), %.2e (Laplacians), "
               "%.2e (values op); / bound (64 FLT_EPSILON S) = %.3f %.3f %.3f %.3f\n", L, n[0],
               acc ? "double" : "float", vec, rel[0], rel[1], rel[2], rel[3], ratio[0],
               ratio[1], ratio[2], ratio[3]);
        CHECK(ratio[0] <= 1 && ratio[1] <= 1 && ratio[2] <= 1 && ratio[3] <= 1,
              "%zu orbitals grid %s: error / float bound = %.3g %.3g %.3g %.3g", L, grid,
              ratio[0], ratio[1], ratio[2], ratio[3]);
        if (!acc) {
            /* (b) against the exact orbitals */
            double worst = 0, egpu = 0, ecpu = 0;
            const double *gs[3] = {G.v, G.g, G.l}, *cs[3] = {C.v, C.g, C.l},
                         *xs[3] = {X.v, X.g, X.l}, *ss[3] = {S.v, S.g, S.l};
            for (int q = 0; q < 3; q++) {
                const size_t m = (q == 1 ? 3 : 1) * P * L;
                for (size_t i = 0; i < m; i++) {
                    const double eg = fabs(gs[q][i] - xs[q][i]), ec = fabs(cs[q][i] - xs[q][i]);
                    const double bound = ec + float_factor * ss[q][i];
                    worst = fmax(worst, eg / bound);
                    if (q == 0) {
                        egpu = fmax(egpu, eg);
                        ecpu = fmax(ecpu, ec);
                    }
                }
            }
            printf("(b) vs planewave: max |value error| gpu %.3e, cpu %.3e; max |gpu - pw| / "
                   "(|cpu - pw| + float bound) = %.3f (all of v, g, l)\n", egpu, ecpu, worst);
            CHECK(worst <= 1, "gpu vs planewave beyond the CPU's error + float bound: %.3g",
                  worst);
        }
        if (dev) {
            memcpy(dev[acc].v, G.v, P * L * sizeof(double));
            memcpy(dev[acc].g, G.g, 3 * P * L * sizeof(double));
            memcpy(dev[acc].l, G.l, P * L * sizeof(double));
        }
        free(vonly);
        free(v1);
        vgl_free(&G);
    }
    vgl_free(&C);
    vgl_free(&X);
    vgl_free(&S);
    tor_destroy(cpu.info, wc);
    tor_destroy(pw.info, wp);
    bcu_table_destroy(t);
    free(c);
}

static void random_points(mcf_rng *rng, double side, size_t P, double *r)
{
    for (size_t i = 0; i < 3 * P; i++)
        r[i] = side * (3.0 * mcf_rng_uniform(rng) - 1.0);
}

/* (c), (d); d1, d2: the device layer's float sums, d1[1] its double sums */
static void test_plugin(heg *s1, heg *s2, const double *r1, const double *r2, size_t P,
                        const vgl *d1, const vgl *d2)
{
    const mcf_plugin_info *info = gpu.pl->info;
    char why[256];
    CHECK(!strcmp(info->name, "blip-cuda") && info->auto_priority == 20 && info->one_batch == 1 &&
              info->probe && info->probe(why, sizeof why) == 1,
          "blip-cuda's descriptor: name %s, auto_priority %d, one_batch %d", info->name,
          info->auto_priority, info->one_batch);
    const mcf_param_spec *ps = info->params, *pc = cpu.pl->info->params;
    CHECK(mcfi_spec_count(pc) == 2 && mcfi_spec_count(ps) == 4 && !strcmp(ps[0].name, pc[0].name) &&
              !strcmp(ps[1].name, pc[1].name) && !strcmp(ps[2].name, "sum_precision") &&
              !strcmp(ps[3].name, "orbitals_per_thread") &&
              (ps[2].flags & ps[3].flags & MCF_PARAM_ECHO_IF_CHANGED),
          "blip-cuda declares other parameters than blip's grid, grid_factor and its "
          "sum_precision, orbitals_per_thread (echoed only when changed)");
    void *w[2] = {ev_create(&gpu, &s1->o, "24"), ev_create(&gpu, &s2->o, "24")};
    if (!w[0] || !w[1])
        return;
    const size_t L1 = s1->o.n_orbitals, L2 = s2->o.n_orbitals;
    CHECK(tor_orbitals(gpu.info, w[0]) == L1 && tor_orbitals(gpu.info, w[1]) == L2, "orbitals()");
    vgl B1 = vgl_alloc(P, L1), B2 = vgl_alloc(P, L2), S1 = vgl_alloc(P, L1),
        S2 = vgl_alloc(P, L2);
    const double *r[2] = {r1, r2};
    const size_t np[2] = {P, P - 17};
    double *v[2] = {B1.v, B2.v}, *g[2] = {B1.g, B2.g}, *l[2] = {B1.l, B2.l};
    int rc = tor_vgl(gpu.info, w, 2, r, np, v, g, l);
    CHECK(rc == MCF_OK, "batch vgl: %s", mcf_last_error());
    rc = tor_vgl(gpu.info, &w[0], 1, &r[0], &np[0], &S1.v, &S1.g, &S1.l) ||
         tor_vgl(gpu.info, &w[1], 1, &r[1], &np[1], &S2.v, &S2.g, &S2.l);
    CHECK(rc == MCF_OK, "single vgl: %s", mcf_last_error());
    const int same_dev =
        !memcmp(B1.v, d1->v, P * L1 * 8) && !memcmp(B1.g, d1->g, 3 * P * L1 * 8) &&
        !memcmp(B1.l, d1->l, P * L1 * 8) && !memcmp(B2.v, d2->v, np[1] * L2 * 8) &&
        !memcmp(B2.g, d2->g, 3 * np[1] * L2 * 8) && !memcmp(B2.l, d2->l, np[1] * L2 * 8);
    const int same_single =
        !memcmp(B1.v, S1.v, P * L1 * 8) && !memcmp(B1.g, S1.g, 3 * P * L1 * 8) &&
        !memcmp(B1.l, S1.l, P * L1 * 8) && !memcmp(B2.v, S2.v, np[1] * L2 * 8) &&
        !memcmp(B2.g, S2.g, 3 * np[1] * L2 * 8) && !memcmp(B2.l, S2.l, np[1] * L2 * 8);
    CHECK(same_dev, "the plugin's batch differs from the device layer's results");
    CHECK(same_single, "a batch of two workspaces differs from two single calls");
    /* values of the batch = the vgl values (the same sums) */
    rc = tor_values(gpu.info, w, 2, r, np, v);
    CHECK(rc == MCF_OK && !memcmp(B1.v, S1.v, P * L1 * 8) && !memcmp(B2.v, S2.v, np[1] * L2 * 8),
          "batch values differ from vgl values (%s)", mcf_last_error());
    printf("(c) loader: blip-cuda (auto_priority %d, one_batch %d, probe: %s); a batch of 2 "
           "workspaces (%zu + %zu orbitals): = device layer %s, = single calls %s\n",
           info->auto_priority, info->one_batch, why, L1, L2, same_dev ? "bit for bit" : "NO",
           same_single ? "bit for bit" : "NO");
    /* the settings reach the kernel: [evaluator] sum_precision = double is the device
     * layer's double sums, which differ from the float ones */
    test_params *tpd = test_params_make(info->params, "test_blip_cuda.ini", "grid", "24",
                                        "sum_precision", "double", "orbitals_per_thread", "4",
                                        NULL);
    void *wd = NULL;
    rc = tpd->ok ? tor_create(gpu.info, &tpd->p, &s1->o, &wd) : MCF_EINVAL;
    test_params_free(tpd);
    CHECK(rc == MCF_OK && wd, "create with sum_precision = double: %s", mcf_last_error());
    if (wd) {
        vgl D = vgl_alloc(P, L1);
        rc = tor_vgl(gpu.info, &wd, 1, &r[0], &np[0], &D.v, &D.g, &D.l);
        CHECK(rc == MCF_OK, "vgl with sum_precision = double: %s", mcf_last_error());
        const int same_double = !memcmp(D.v, d1[1].v, P * L1 * 8) &&
                                !memcmp(D.g, d1[1].g, 3 * P * L1 * 8) &&
                                !memcmp(D.l, d1[1].l, P * L1 * 8);
        const int float_too = !memcmp(D.v, d1[0].v, P * L1 * 8);
        CHECK(same_double && !float_too, "sum_precision = double: = device layer's double "
              "sums %s, = its float sums %s", same_double ? "yes" : "NO",
              float_too ? "YES" : "no");
        void *mix[2] = {w[0], wd};
        const double *rm[2] = {r1, r1};
        const size_t nm[2] = {P, P};
        double *vm[2] = {B1.v, D.v};
        rc = tor_values(gpu.info, mix, 2, rm, nm, vm);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "different settings"),
              "a batch of float and double workspaces: rc %d, %s", rc, mcf_last_error());
        printf("(c) [evaluator] sum_precision = double, orbitals_per_thread = 4: = the device "
               "layer's double sums %s; a batch mixing settings: %s\n",
               same_double ? "bit for bit" : "NO", mcf_last_error());
        vgl_free(&D);
        tor_destroy(gpu.info, wd);
    }
    /* (d) refusals */
    void *bad = NULL;
    test_params *tp = test_params_make(info->params, "test_blip_cuda.ini", "grid", "4", NULL);
    rc = tor_create(gpu.info, &tp->p, &s2->o, &bad);
    CHECK(rc == MCF_EINVAL && !bad && strstr(mcf_last_error(), "blip-cuda") &&
              strstr(mcf_last_error(), "use grid >= 5"),
          "grid 4 for |n_d| = 2: rc %d, %s", rc, mcf_last_error());
    printf("(d) refusals: %s\n", mcf_last_error());
    test_params_free(tp);
    double rbad[6] = {0.1, 0.2, 0.3, 0.4, NAN, 0.6};
    const double *rb[2] = {r1, rbad};
    const size_t nb[2] = {P, 2};
    rc = tor_values(gpu.info, w, 2, rb, nb, v);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "workspace 1") &&
              strstr(mcf_last_error(), "finite"),
          "NaN position: rc %d, %s", rc, mcf_last_error());
    printf("    %s\n", mcf_last_error());
    double *vnull[2] = {B1.v, NULL};
    rc = tor_values(gpu.info, w, 2, r, np, vnull);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "NULL"), "NULL phi: rc %d, %s", rc,
          mcf_last_error());
    printf("    %s\n", mcf_last_error());
    tor_destroy(gpu.info, w[0]);
    tor_destroy(gpu.info, w[1]);
    vgl_free(&B1);
    vgl_free(&B2);
    vgl_free(&S1);
    vgl_free(&S2);
}

/* (e) */
static void test_out_of_memory(void)
{
    const size_t n60[3] = {60, 60, 60};
    printf("(e) e.g. 1536 electrons (768 orbitals) on a 60^3 grid: %zu bytes of float table\n",
           n60[0] * n60[1] * n60[2] * 768 * sizeof(float));
    const size_t n[3] = {600, 600, 600};
    const double cell[3] = {10, 10, 10};
    bcu_table *t = NULL;
    int rc = bcu_table_alloc(n, 1024, cell, &t);
    printf("    600^3 x 1024: %s\n", mcf_last_error());
    CHECK(rc == MCF_ENOMEM && !t && strstr(mcf_last_error(), "out of device memory") &&
              strstr(mcf_last_error(), "884736000000 bytes"),
          "an 885 GB table: rc %d, %s", rc, mcf_last_error());
    rc = bcu_table_alloc(n60, 8, cell, &t);
    CHECK(rc == MCF_OK && t, "after out of memory: %s", mcf_last_error());
    bcu_table_destroy(t);
}

/* ---- (f) the determinant ops ------------------------------------------------------------ */

typedef struct host_det {
    size_t m, L;
    void *ws;
    tor_det det;                 /* the device's: spin det.spin of ws (orbital_test.h) */
    double *r, *rt, *A, *rows_t; /* positions, trial positions, rows (m x m), trial rows (m x L) */
    double *Ainv;                /* fresh inverse of A */
    size_t updates;              /* accepted moves since the last refresh */
} host_det;

/* Ainv of the m x m rows A (Ainv[l * m + i]) by LU; returns kappa = |A|_inf |Ainv|_inf */
static double host_inverse(const double *A, size_t m, double *Ainv)
{
    gsl_matrix *a = gsl_matrix_alloc(m, m), *inv = gsl_matrix_alloc(m, m);
    gsl_permutation *p = gsl_permutation_alloc(m);
    int sign;
    for (size_t i = 0; i < m; i++)
        for (size_t l = 0; l < m; l++)
            gsl_matrix_set(a, i, l, A[i * m + l]);
    gsl_linalg_LU_decomp(a, p, &sign);
    gsl_linalg_LU_invert(a, p, inv);
    double na = 0.0, ni = 0.0;
    for (size_t i = 0; i < m; i++) {
        double sa = 0.0, si = 0.0;
        for (size_t l = 0; l < m; l++) {
            Ainv[l * m + i] = gsl_matrix_get(inv, l, i);
            sa += fabs(A[i * m + l]);
            si += fabs(gsl_matrix_get(inv, i, l));
        }
        na = sa > na ? sa : na;
        ni = si > ni ? si : ni;
    }
    gsl_matrix_free(a);
    gsl_matrix_free(inv);
    gsl_permutation_free(p);
    return na * ni;
}

/* max |Ainv A - 1| and, in *scale, |Ainv|_inf |A|_inf */
static double host_drift(const double *A, const double *Ainv, size_t m, double *scale)
{
    double worst = 0.0, na = 0.0, ni = 0.0;
    for (size_t l = 0; l < m; l++) {
        double sa = 0.0, si = 0.0;
        for (size_t j = 0; j < m; j++) {
            double x = 0.0;
            for (size_t i = 0; i < m; i++)
                x += Ainv[l * m + i] * A[i * m + j];
            x = fabs(x - (l == j ? 1.0 : 0.0));
            worst = x > worst ? x : worst;
            sa += fabs(A[l * m + j]);
            si += fabs(Ainv[l * m + j]);
        }
        na = sa > na ? sa : na;
        ni = si > ni ? si : ni;
    }
    *scale = na * ni;
    return worst;
}

/* the orbital rows (first m of L) at m points, through the plugin's values op */
static void host_rows(host_det *h, const double *r, double *rows, size_t stride)
{
    double *phi = malloc(h->m * h->L * sizeof *phi);
    void *ws[1] = {h->ws};
    const double *rr[1] = {r};
    size_t np[1] = {h->m};
    double *ph[1] = {phi};
    int rc = tor_values(gpu.info, ws, 1, rr, np, ph);
    CHECK(rc == MCF_OK, "values: %s", mcf_last_error());
    for (size_t i = 0; i < h->m; i++)
        memcpy(rows + i * stride, phi + i * h->L, (stride < h->L ? stride : h->L) * sizeof *rows);
    free(phi);
}

/* one step of (f): ratios of electron i for the dets one[0..nb), checked against the host's
 * fresh inverse; Metropolis with the exact ratio; accepted moves go to both sides */
static void det_step(host_det *const *one, size_t nb, size_t i, mcf_rng *rng, double *worst_R,
                     size_t *ratios, size_t *accepted)
{
    tor_det *bd[8] = {NULL};
    size_t el[8] = {0};
    double R[8] = {0};
    for (size_t b = 0; b < nb && b < 8; b++) {
        bd[b] = &one[b]->det;
        el[b] = i;
    }
    int rc = tor_det_ratio(gpu.info, bd, nb, el, R);
    CHECK(rc == MCF_OK, "det_ratio: %s", mcf_last_error());
    for (size_t b = 0; b < nb && !rc; b++) {
        host_det *d = one[b];
        const size_t m = d->m;
        const double kappa = host_inverse(d->A, m, d->Ainv);
        const double *v = d->rows_t + i * d->L;
        double Rref = 0.0, S = 0.0;
        for (size_t l = 0; l < m; l++) {
            Rref += v[l] * d->Ainv[l * m + i];
            S += fabs(v[l] * d->Ainv[l * m + i]);
        }
        const double tol = (double)(d->updates + 1) * (double)m * kappa * DBL_EPSILON * S;
        const double e = fabs(R[b] - Rref) / tol;
        *worst_R = e > *worst_R ? e : *worst_R;
        (*ratios)++;
        if (mcf_rng_uniform(rng) < Rref * Rref) {
            rc = tor_det_accept(gpu.info, &d->det, i);
            CHECK(rc == MCF_OK, "det_accept: %s", mcf_last_error());
            memcpy(d->A + i * m, v, m * sizeof(double));
            memcpy(d->r + 3 * i, d->rt + 3 * i, 3 * sizeof(double));
            d->updates++;
            (*accepted)++;
        }
    }
}

/* det_refresh of nd dets in one call: each drift equals the host's max |Ainv A - 1| of the
 * state before (up to 2 m eps |Ainv| |A|) and falls below 8 m eps kappa */
static void refresh_all(host_det *h, size_t nd, const char *what)
{
    tor_det *dets[8];
    double before[8], scale[8], drift[8];
    for (size_t k = 0; k < nd; k++) {
        const size_t m = h[k].m;
        double *A = malloc(m * m * sizeof *A), *Ai = malloc(m * m * sizeof *Ai);
        CHECK(tor_det_get(gpu.info, &h[k].det, NULL, A, Ai) == MCF_OK, "det_get: %s",
              mcf_last_error());
        before[k] = host_drift(A, Ai, m, &scale[k]);
        dets[k] = &h[k].det;
        free(A);
        free(Ai);
    }
    int rc = tor_det_refresh(gpu.info, dets, nd, drift);
    CHECK(rc == MCF_OK, "det_refresh: %s", mcf_last_error());
    for (size_t k = 0; k < nd && !rc; k++) {
        const size_t m = h[k].m;
        double *Ai = malloc(m * m * sizeof *Ai), sc;
        const double kappa = host_inverse(h[k].A, m, h[k].Ainv);
        CHECK(fabs(drift[k] - before[k]) <= 2.0 * (double)m * DBL_EPSILON * scale[k],
              "det_refresh (%s) m = %zu: drift %.3e, the host's %.3e", what, m, drift[k],
              before[k]);
        CHECK(tor_det_get(gpu.info, &h[k].det, NULL, NULL, Ai) == MCF_OK, "det_get: %s",
              mcf_last_error());
        const double after = host_drift(h[k].A, Ai, m, &sc);
        printf("(f) refresh (%s), m = %zu after %zu updates: drift %.3e (host %.3e), after "
               "%.3e (bound 8 m eps kappa = %.3e)\n", what, m, h[k].updates, drift[k],
               before[k], after, 8.0 * (double)m * DBL_EPSILON * kappa);
        CHECK(after <= 8.0 * (double)m * DBL_EPSILON * kappa,
              "m = %zu: drift %.3e after the refresh", m, after);
        h[k].updates = 0;
        free(Ai);
    }
}

static void test_determinants(heg *s1, heg *s2)
{
    CHECK(tor_has_dets(gpu.info), "blip-cuda offers no determinant ops");
    if (!tor_has_dets(gpu.info))
        return;
    void *ws1 = ev_create(&gpu, &s1->o, "0"), *ws2 = ev_create(&gpu, &s2->o, "0");
    if (!ws1 || !ws2)
        return;
    enum { ND = 3 };
    /* ws2 holds two: 57 electrons of spin 0 and 40 of spin 1 */
    host_det h[ND] = {{.m = 19, .ws = ws1, .det = {.ws = ws1, .spin = 0}},
                      {.m = 57, .ws = ws2, .det = {.ws = ws2, .spin = 0}},
                      {.m = 40, .ws = ws2, .det = {.ws = ws2, .spin = 1}}};
    mcf_rng rng;
    mcf_rng_init(&rng, 77, 5);
    for (int k = 0; k < ND; k++) {
        host_det *d = h + k;
        d->L = tor_orbitals(gpu.info, d->ws);
        const double side = (k == 0 ? s1 : s2)->o.cell[0];
        d->r = malloc(3 * d->m * sizeof(double));
        d->rt = malloc(3 * d->m * sizeof(double));
        d->A = malloc(d->m * d->m * sizeof(double));
        d->Ainv = malloc(d->m * d->m * sizeof(double));
        d->rows_t = malloc(d->m * d->L * sizeof(double));
        for (size_t q = 0; q < 3 * d->m; q++)
            d->r[q] = side * mcf_rng_uniform(&rng);
        host_rows(d, d->r, d->A, d->m);
        host_inverse(d->A, d->m, d->Ainv);
        int rc = tor_det_set(gpu.info, &d->det, d->m, d->r, d->A, d->Ainv);
        CHECK(rc == MCF_OK, "det_create, det_set m = %zu: %s", d->m, mcf_last_error());
        if (rc)
            return;
    }
    tor_det *dets[ND] = {&h[0].det, &h[1].det, &h[2].det};
    double worst_R = 0.0, worst_inv = 0.0, worst_local = 0.0;
    size_t ratios = 0, accepted = 0, row_mismatch = 0;
    for (int sweep = 0; sweep < 6; sweep++) {
        const double *rt[ND];
        for (int k = 0; k < ND; k++) {
            host_det *d = h + k;
            for (size_t q = 0; q < 3 * d->m; q++)
                d->rt[q] = d->r[q] + 0.6 * (mcf_rng_uniform(&rng) - 0.5);
            host_rows(d, d->rt, d->rows_t, d->L);
            rt[k] = d->rt;
        }
        int rc = tor_det_trial(gpu.info, dets, ND, rt);
        CHECK(rc == MCF_OK, "det_trial: %s", mcf_last_error());
        /* even sweeps: electron i of every det in one call; odd sweeps: det by det (the
         * model's order: up electrons, then down), with a refresh of all dets in one call
         * while det 0 holds a pending accepted move (sweep 3) */
        if (sweep % 2 == 0)
            for (size_t i = 0; i < 57; i++) {
                host_det *one[ND];
                size_t nb = 0;
                for (int k = 0; k < ND; k++)
                    if (i < h[k].m)
                        one[nb++] = h + k;
                det_step(one, nb, i, &rng, &worst_R, &ratios, &accepted);
            }
        else
            for (int k = 0; k < ND; k++) {
                for (size_t i = 0; i < h[k].m; i++) {
                    host_det *one[1] = {h + k};
                    det_step(one, 1, i, &rng, &worst_R, &ratios, &accepted);
                }
                if (sweep == 3 && k == 0)
                    refresh_all(h, ND, "all dets, det 0 pending");
            }
        if (sweep % 2 == 0 && sweep != 4)
            continue; /* det_trial flushes the pending moves next; det_get checks below */
        /* the state coming back: rows and positions exact, the inverse within the bound */
        for (int k = 0; k < ND; k++) {
            host_det *d = h + k;
            const size_t m = d->m;
            double *r = malloc(3 * m * sizeof *r), *A = malloc(m * m * sizeof *A),
                   *Ai = malloc(m * m * sizeof *Ai);
            rc = tor_det_get(gpu.info, &d->det, r, A, Ai);
            CHECK(rc == MCF_OK, "det_get: %s", mcf_last_error());
            row_mismatch += memcmp(r, d->r, 3 * m * sizeof *r) != 0;
            row_mismatch += memcmp(A, d->A, m * m * sizeof *A) != 0;
            const double kappa = host_inverse(d->A, m, d->Ainv);
            double amax = 0.0;
            for (size_t q = 0; q < m * m; q++)
                amax = fabs(d->Ainv[q]) > amax ? fabs(d->Ainv[q]) : amax;
            for (size_t q = 0; q < m * m; q++) {
                const double e = fabs(Ai[q] - d->Ainv[q]) /
                                 ((double)(d->updates + 1) * (double)m * kappa * DBL_EPSILON *
                                  amax);
                worst_inv = e > worst_inv ? e : worst_inv;
            }
            free(r);
            free(A);
            free(Ai);
        }
        if (sweep == 2)
            refresh_all(h, ND, "each det alone");
    }
    CHECK(row_mismatch == 0, "%zu rows / positions from det_get differ from the host's",
          row_mismatch);
    { /* a refresh of several dets where one inverse is off by 1e-7 of its largest entry: that
       * det's drift must be the host's (a drift read from another det's memory would be
       * ~1e-14), and one Newton step brings it back to rounding */
        host_det *d = h + 1;
        const size_t m = d->m;
        double *r = malloc(3 * m * sizeof *r), *A = malloc(m * m * sizeof *A),
               *Ai = malloc(m * m * sizeof *Ai);
        CHECK(tor_det_get(gpu.info, &d->det, r, A, Ai) == MCF_OK, "det_get: %s",
              mcf_last_error());
        double amax = 0.0;
        for (size_t q = 0; q < m * m; q++)
            amax = fabs(Ai[q]) > amax ? fabs(Ai[q]) : amax;
        Ai[m + 2] += 1e-7 * amax;
        CHECK(tor_det_set(gpu.info, &d->det, m, r, A, Ai) == MCF_OK, "det_set: %s",
              mcf_last_error());
        refresh_all(h, ND, "det 1 perturbed");
        free(r);
        free(A);
        free(Ai);
    }
    /* det_local against the host's contraction at the current positions */
    double *gd[ND], *ld[ND];
    for (int k = 0; k < ND; k++) {
        gd[k] = malloc(3 * h[k].m * sizeof(double));
        ld[k] = malloc(h[k].m * sizeof(double));
    }
    int rc = tor_det_local(gpu.info, dets, ND, gd, ld);
    CHECK(rc == MCF_OK, "det_local: %s", mcf_last_error());
    for (int k = 0; k < ND && !rc; k++) {
        host_det *d = h + k;
        const size_t m = d->m, L = d->L;
        const double kappa = host_inverse(d->A, m, d->Ainv);
        vgl x = vgl_alloc(m, L);
        void *ws[1] = {d->ws};
        const double *rr[1] = {d->r};
        size_t np[1] = {m};
        double *ph[1] = {x.v}, *gr[1] = {x.g}, *lp[1] = {x.l};
        CHECK(tor_vgl(gpu.info, ws, 1, rr, np, ph, gr, lp) == MCF_OK, "vgl: %s", mcf_last_error());
        for (size_t i = 0; i < m; i++)
            for (int c = 0; c < 4; c++) {
                double ref = 0.0, S = 0.0;
                for (size_t l = 0; l < m; l++) {
                    const double f = c < 3 ? x.g[(i * L + l) * 3 + c] : x.l[i * L + l];
                    ref += f * d->Ainv[l * m + i];
                    S += fabs(f * d->Ainv[l * m + i]);
                }
                const double got = c < 3 ? gd[k][3 * i + c] : ld[k][i];
                const double e = fabs(got - ref) /
                                 ((double)(d->updates + 1) * (double)m * kappa * DBL_EPSILON * S);
                worst_local = e > worst_local ? e : worst_local;
            }
        vgl_free(&x);
    }
    printf("(f) %zu ratios (%zu accepted): max |R - R_exact| / tol_R = %.3f; inverse %.3f; "
           "local %.3f\n", ratios, accepted, worst_R, worst_inv, worst_local);
    CHECK(worst_R <= 1.0, "ratio error %.3f of its bound", worst_R);
    CHECK(worst_inv <= 1.0, "inverse error %.3f of its bound", worst_inv);
    CHECK(worst_local <= 1.0, "det_local error %.3f of its bound", worst_local);
    CHECK(accepted > ratios / 10 && accepted < ratios, "accepted %zu of %zu", accepted, ratios);
    /* refusals */
    tor_det bad = {.ws = ws1, .spin = 1};
    double *big = calloc(20 * 20, sizeof *big);
    CHECK(tor_det_set(gpu.info, &bad, 20, big, big, big) == MCF_EINVAL && !bad.det && !bad.m,
          "m = 20 > L = 19 not refused");
    free(big);
    tor_det *twice[2] = {&h[1].det, &h[1].det};
    size_t el2[2] = {0, 1};
    double R2[2];
    CHECK(tor_det_ratio(gpu.info, twice, 2, el2, R2) == MCF_EINVAL &&
              strstr(mcf_last_error(), "twice"), "a det twice in one call: %s",
          mcf_last_error());
    size_t far[1] = {40};
    CHECK(tor_det_ratio(gpu.info, &dets[2], 1, far, R2) == MCF_EINVAL,
          "electron 40 of 40 not refused");
    size_t e0[1] = {3};
    CHECK(tor_det_ratio(gpu.info, &dets[2], 1, e0, R2) == MCF_OK, "det_ratio: %s",
          mcf_last_error());
    CHECK(tor_det_accept(gpu.info, dets[2], 4) == MCF_EINVAL &&
              strstr(mcf_last_error(), "last det_ratio"),
          "accepting another electron than the last ratio's: %s", mcf_last_error());
    for (int k = 0; k < ND; k++) {
        tor_det_free(gpu.info, &h[k].det);
        free(h[k].r);
        free(h[k].rt);
        free(h[k].A);
        free(h[k].Ainv);
        free(h[k].rows_t);
        free(gd[k]);
        free(ld[k]);
    }
    tor_destroy(gpu.info, ws1);
    tor_destroy(gpu.info, ws2);
}

int main(void)
{
    char why[512];
    if (!bcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    cpu = ev_open("blip");
    gpu = ev_open("blip-cuda");
    pw = ev_open("planewave");
    if (!cpu.info || !gpu.info || !pw.info)
        return check_exit();
    heg *s1 = heg_make(2), *s2 = heg_make(5);
    const size_t P = 400;
    mcf_rng rng;
    mcf_rng_init(&rng, 2024, 0);
    double *r1 = malloc(3 * P * sizeof *r1), *r2 = malloc(3 * P * sizeof *r2);
    random_points(&rng, s1->o.cell[0], P, r1);
    random_points(&rng, s2->o.cell[0], P, r2);
    vgl d1[2] = {vgl_alloc(P, s1->o.n_orbitals), vgl_alloc(P, s1->o.n_orbitals)};
    vgl d2[2] = {vgl_alloc(P, s2->o.n_orbitals), vgl_alloc(P, s2->o.n_orbitals)};
    test_accuracy(s1, "24", r1, P, 2, d1);
    test_accuracy(s2, "24", r2, P, 2, d2);
    test_accuracy(s2, "0", r2, P, 2, NULL);
    { /* 56 and 54 of the 57 orbitals, 4 per thread asked: L a multiple of 4 or of 2 only,
       * so the values take the float4 and the float2 variant of the kernel */
        heg s3 = *s2;
        s3.o.n_orbitals = 56;
        test_accuracy(&s3, "24", r2, P, 4, NULL);
        s3.o.n_orbitals = 54;
        test_accuracy(&s3, "24", r2, P, 4, NULL);
    }
    test_plugin(s1, s2, r1, r2, P, d1, d2);
    test_out_of_memory();
    test_determinants(s1, s2);
    for (int k = 0; k < 2; k++) {
        vgl_free(&d1[k]);
        vgl_free(&d2[k]);
    }
    free(r1);
    free(r2);
    heg_free(s1);
    heg_free(s2);
    tor_batch_release(); /* before the plugins whose keep slots it holds */
    mcfe_plugin_close(cpu.pl);
    mcfe_plugin_close(gpu.pl);
    mcfe_plugin_close(pw.pl);
    return check_exit();
}
