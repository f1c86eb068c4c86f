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
 *       GPU vs the CPU blip plugin within the bound; max |gpu - cpu| / S printed;
 *   (b) vs planewave (exact): |gpu - pw| <= |cpu - pw| + the bound, per entry;
 *   (c) the plugin through the loader: name, probe, auto_priority 20, one_batch, the
 *       parameters of blip; a batch of two workspaces (19 and 57 orbitals) equals the
 *       device layer's results bit for bit and two single calls bit for bit;
 *   (d) refusals: a grid too coarse (naming the minimum), a non-finite position (naming the
 *       workspace), a NULL array;
 *   (e) out of device memory: a 600^3 x 1024 table (885 GB) is refused with MCF_ENOMEM
 *       naming the bytes; the device still works afterwards. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blip_core.h"
#include "blip_cuda.h"
#include "check.h"
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
    const mcf_orbital_ops *ops;
} evaluator;

static evaluator ev_open(const char *name)
{
    evaluator e = {NULL, NULL};
    int rc = mcf_plugin_open(name, MCF_PLUGIN_ORBITAL_EVALUATOR, &e.pl);
    CHECK(rc == MCF_OK, "loading %s: %s", name, mcf_last_error());
    if (!rc)
        e.ops = e.pl->info->ops;
    return e;
}

static void *ev_create(const evaluator *e, const mcf_pw_orbitals *o, const char *grid)
{
    test_params *tp = test_params_make(e->pl->info->params, "test_blip_cuda.ini", "grid", grid,
                                       NULL);
    void *ws = NULL;
    int rc = e->ops->create(&tp->p, o, &ws);
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

/* (a), (b) for one orbital set and grid; the device results with float accumulation into
 * *dev (P points r) for (c) */
static void test_accuracy(const heg *s, const char *grid, const double *r, size_t P, vgl *dev)
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
    rc = cpu.ops->vgl(&wc, 1, &r, &np, &C.v, &C.g, &C.l) ||
         pw.ops->vgl(&wp, 1, &r, &np, &X.v, &X.g, &X.l);
    CHECK(rc == MCF_OK, "CPU evaluation: %s", mcf_last_error());
    vgl S = term_sums(c, n, o->cell, L, r, P);
    for (int acc = 0; acc < 2; acc++) {
        bcu_set_accumulate_double(acc);
        vgl G = vgl_alloc(P, L);
        double *vonly = malloc(P * L * sizeof *vonly);
        const bcu_table *tt = t;
        rc = bcu_eval(&tt, 1, &r, &np, &G.v, &G.g, &G.l, 1) ||
             bcu_eval(&tt, 1, &r, &np, &vonly, NULL, NULL, 0);
        CHECK(rc == MCF_OK, "GPU evaluation: %s", mcf_last_error());
        double rel[4] = {0, 0, 0, 0}, ratio[4] = {0, 0, 0, 0};
        compare(G.v, C.v, S.v, P * L, &rel[0], &ratio[0]);
        compare(G.g, C.g, S.g, 3 * P * L, &rel[1], &ratio[1]);
        compare(G.l, C.l, S.l, P * L, &rel[2], &ratio[2]);
        compare(vonly, C.v, S.v, P * L, &rel[3], &ratio[3]);
        printf("(a) %zu orbitals, grid %zu^3, %s accumulation: max |gpu - cpu| / S = %.2e "
               "(values), %.2e (gradients), %.2e (Laplacians), %.2e (values op); / bound "
               "(64 FLT_EPSILON S) = %.3f %.3f %.3f %.3f\n", L, n[0],
               acc ? "double" : "float", rel[0], rel[1], rel[2], rel[3], ratio[0], ratio[1],
               ratio[2], ratio[3]);
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
            if (dev) {
                memcpy(dev->v, G.v, P * L * sizeof(double));
                memcpy(dev->g, G.g, 3 * P * L * sizeof(double));
                memcpy(dev->l, G.l, P * L * sizeof(double));
            }
        }
        free(vonly);
        vgl_free(&G);
    }
    bcu_set_accumulate_double(0);
    vgl_free(&C);
    vgl_free(&X);
    vgl_free(&S);
    cpu.ops->destroy(wc);
    pw.ops->destroy(wp);
    bcu_table_destroy(t);
    free(c);
}

static void random_points(mcf_rng *rng, double side, size_t P, double *r)
{
    for (size_t i = 0; i < 3 * P; i++)
        r[i] = side * (3.0 * mcf_rng_uniform(rng) - 1.0);
}

/* (c), (d) */
static void test_plugin(heg *s1, heg *s2, const double *r1, const double *r2, size_t P,
                        const vgl *d1, const vgl *d2)
{
    const mcf_plugin_info *info = gpu.pl->info;
    char why[256];
    CHECK(!strcmp(info->name, "blip-cuda") && info->auto_priority == 20 && info->one_batch == 1 &&
              info->probe && info->probe(why, sizeof why) == 1,
          "blip-cuda's descriptor: name %s, auto_priority %d, one_batch %d", info->name,
          info->auto_priority, info->one_batch);
    CHECK(mcf_spec_count(info->params) == mcf_spec_count(cpu.pl->info->params) &&
              !strcmp(info->params[0].name, cpu.pl->info->params[0].name),
          "blip-cuda declares other parameters than blip");
    void *w[2] = {ev_create(&gpu, &s1->o, "24"), ev_create(&gpu, &s2->o, "24")};
    if (!w[0] || !w[1])
        return;
    const size_t L1 = s1->o.n_orbitals, L2 = s2->o.n_orbitals;
    CHECK(gpu.ops->orbitals(w[0]) == L1 && gpu.ops->orbitals(w[1]) == L2, "orbitals()");
    vgl B1 = vgl_alloc(P, L1), B2 = vgl_alloc(P, L2), S1 = vgl_alloc(P, L1),
        S2 = vgl_alloc(P, L2);
    const double *r[2] = {r1, r2};
    const size_t np[2] = {P, P - 17};
    double *v[2] = {B1.v, B2.v}, *g[2] = {B1.g, B2.g}, *l[2] = {B1.l, B2.l};
    int rc = gpu.ops->vgl(w, 2, r, np, v, g, l);
    CHECK(rc == MCF_OK, "batch vgl: %s", mcf_last_error());
    rc = gpu.ops->vgl(&w[0], 1, &r[0], &np[0], &S1.v, &S1.g, &S1.l) ||
         gpu.ops->vgl(&w[1], 1, &r[1], &np[1], &S2.v, &S2.g, &S2.l);
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
    rc = gpu.ops->values(w, 2, r, np, v);
    CHECK(rc == MCF_OK && !memcmp(B1.v, S1.v, P * L1 * 8) && !memcmp(B2.v, S2.v, np[1] * L2 * 8),
          "batch values differ from vgl values (%s)", mcf_last_error());
    printf("(c) loader: blip-cuda (auto_priority %d, one_batch %d, probe: %s); a batch of 2 "
           "workspaces (%zu + %zu orbitals): = device layer %s, = single calls %s\n",
           info->auto_priority, info->one_batch, why, L1, L2, same_dev ? "bit for bit" : "NO",
           same_single ? "bit for bit" : "NO");
    /* (d) refusals */
    void *bad = NULL;
    test_params *tp = test_params_make(info->params, "test_blip_cuda.ini", "grid", "4", NULL);
    rc = gpu.ops->create(&tp->p, &s2->o, &bad);
    CHECK(rc == MCF_EINVAL && !bad && strstr(mcf_last_error(), "blip-cuda") &&
              strstr(mcf_last_error(), "use grid >= 5"),
          "grid 4 for |n_d| = 2: rc %d, %s", rc, mcf_last_error());
    printf("(d) refusals: %s\n", mcf_last_error());
    test_params_free(tp);
    double rbad[6] = {0.1, 0.2, 0.3, 0.4, NAN, 0.6};
    const double *rb[2] = {r1, rbad};
    const size_t nb[2] = {P, 2};
    rc = gpu.ops->values(w, 2, rb, nb, v);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "workspace 1") &&
              strstr(mcf_last_error(), "finite"),
          "NaN position: rc %d, %s", rc, mcf_last_error());
    printf("    %s\n", mcf_last_error());
    double *vnull[2] = {B1.v, NULL};
    rc = gpu.ops->values(w, 2, r, np, vnull);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "NULL"), "NULL phi: rc %d, %s", rc,
          mcf_last_error());
    printf("    %s\n", mcf_last_error());
    gpu.ops->destroy(w[0]);
    gpu.ops->destroy(w[1]);
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
    if (!cpu.ops || !gpu.ops || !pw.ops)
        return check_exit();
    heg *s1 = heg_make(2), *s2 = heg_make(5);
    const size_t P = 400;
    mcf_rng rng;
    mcf_rng_init(&rng, 2024, 0);
    double *r1 = malloc(3 * P * sizeof *r1), *r2 = malloc(3 * P * sizeof *r2);
    random_points(&rng, s1->o.cell[0], P, r1);
    random_points(&rng, s2->o.cell[0], P, r2);
    vgl d1 = vgl_alloc(P, s1->o.n_orbitals), d2 = vgl_alloc(P, s2->o.n_orbitals);
    test_accuracy(s1, "24", r1, P, &d1);
    test_accuracy(s2, "24", r2, P, &d2);
    test_accuracy(s2, "0", r2, P, NULL);
    test_plugin(s1, s2, r1, r2, P, &d1, &d2);
    test_out_of_memory();
    vgl_free(&d1);
    vgl_free(&d2);
    free(r1);
    free(r2);
    heg_free(s1);
    heg_free(s2);
    mcf_plugin_close(cpu.pl);
    mcf_plugin_close(gpu.pl);
    mcf_plugin_close(pw.pl);
    return check_exit();
}
