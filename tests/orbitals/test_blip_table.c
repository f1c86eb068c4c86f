/* test_blip_table.c — the blip table shared by a run's walkers (plugins/blip/blip_core.h:
 * blip_table_get / blip_table_put; issue 46: 1024 walkers of N = 514 built one table 1024
 * times and held 1024 copies).  Linked with mcf_blip_core itself (label unit, so the
 * sanitizer tree runs it: a table freed while held, or never freed, is an ASan report):
 *   (a) two gets of the same orbitals share one table (the same pointer), whose bits are a
 *       fresh build's (blip_build_table into the test's own buffer);
 *   (b) orbitals that differ in one coefficient by 1e-12, in the cell, or in the grid get a
 *       table of their own, equal to their own fresh build;
 *   (c) a table replaced in the registry stays valid for its holders until their puts, and
 *       the first orbitals got again are rebuilt with the first bits;
 *   (d) 8 threads getting the same orbitals at once all get its bits. */
#include "check.h"

#include "blip_core.h"
#include "mcf/mcf.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { L = 6, NG = 7 };
static int32_t g[3 * NG];
static double a[L * NG], b[L * NG], a2[L * NG];
static const size_t grid[3] = {8, 8, 10};

static void orbitals(mcf_pw_orbitals *o, const double *cos_coef, double side)
{
    o->cell[0] = o->cell[1] = side;
    o->cell[2] = 1.25 * side;
    o->n_orbitals = L;
    o->n_g = NG;
    o->g = g;
    o->cos_coef = cos_coef;
    o->sin_coef = b;
}

/* a fresh build of o on n, malloc'ed */
static double *fresh(const mcf_pw_orbitals *o, const size_t n[3])
{
    double *c = malloc(n[0] * n[1] * n[2] * L * sizeof *c);
    CHECK(c && blip_build_table("test", o, n, c) == MCF_OK, "a fresh build: %s",
          mcf_last_error());
    return c;
}

static int same_bits(const double *x, const double *y, const size_t n[3])
{
    return !memcmp(x, y, n[0] * n[1] * n[2] * L * sizeof *x);
}

static mcf_pw_orbitals shared_o;
static const double *thread_ref;

static void *getter(void *unused)
{
    (void)unused;
    blip_table *t = NULL;
    const double *c = NULL;
    int ok = blip_table_get("test", &shared_o, grid, &t, &c) == MCF_OK &&
             same_bits(c, thread_ref, grid);
    if (t)
        blip_table_put(t);
    return ok ? (void *)1 : NULL;
}

int main(void)
{
    const int32_t ns[NG][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1},
                               {1, 1, 0}, {-1, 2, 1}, {2, -1, -1}};
    memcpy(g, ns, sizeof g);
    for (int k = 0; k < L * NG; k++) {
        a[k] = 0.3 * ((k * 37) % 11) / 11.0 - 0.1;
        b[k] = 0.2 * ((k * 53) % 13) / 13.0 - 0.1;
    }
    memcpy(a2, a, sizeof a);
    a2[17] += 1e-12;
    mcf_pw_orbitals oa, ob, oc;
    orbitals(&oa, a, 3.0);
    orbitals(&ob, a2, 3.0);
    orbitals(&oc, a, 3.5);
    const size_t grid2[3] = {10, 8, 10};

    /* (a) */
    double *ref_a = fresh(&oa, grid);
    const unsigned long before = blip_table_shared();
    blip_table *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL, *t5 = NULL, *t6 = NULL;
    const double *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL, *c5 = NULL, *c6 = NULL;
    CHECK(blip_table_get("test", &oa, grid, &t1, &c1) == MCF_OK, "(a) get: %s",
          mcf_last_error());
    CHECK(blip_table_get("test", &oa, grid, &t2, &c2) == MCF_OK, "(a) get again");
    CHECK(t1 == t2 && c1 == c2 && blip_table_shared() == before + 1,
          "(a) two gets of the same orbitals share one table");
    CHECK(same_bits(c1, ref_a, grid), "(a) the shared table has a fresh build's bits");

    /* (b) */
    const mcf_pw_orbitals *other[3] = {&ob, &oc, &oa};
    const size_t *grids[3] = {grid, grid, grid2};
    blip_table **ts[3] = {&t3, &t4, &t5};
    const double **cs[3] = {&c3, &c4, &c5};
    for (int k = 0; k < 3; k++) {
        double *ref = fresh(other[k], grids[k]);
        CHECK(blip_table_get("test", other[k], grids[k], ts[k], cs[k]) == MCF_OK, "(b) get %d",
              k);
        CHECK(*ts[k] != t1 && same_bits(*cs[k], ref, grids[k]),
              "(b) case %d (coefficient, cell, grid): a table of its own, its fresh bits", k);
        if (k == 0) /* (the cell scales positions, not the coefficients: case 1's bits are
                       the first's, in a table of its own) */
            CHECK(!same_bits(*cs[k], ref_a, grid), "(b) the changed coefficient's table "
                  "differs from the first");
        free(ref);
    }

    /* (c): the first table was replaced in the registry; its holders still read it */
    CHECK(same_bits(c1, ref_a, grid), "(c) a replaced table stays valid for its holders");
    blip_table_put(t1);
    blip_table_put(t2);
    const unsigned long mid = blip_table_shared();
    CHECK(blip_table_get("test", &oa, grid, &t6, &c6) == MCF_OK && same_bits(c6, ref_a, grid) &&
          blip_table_shared() == mid, "(c) the first orbitals again: rebuilt, the same bits");

    /* (d) */
    shared_o = oa;
    thread_ref = ref_a;
    pthread_t th[8];
    for (int k = 0; k < 8; k++)
        pthread_create(&th[k], NULL, getter, NULL);
    int ok = 0;
    for (int k = 0; k < 8; k++) {
        void *r = NULL;
        pthread_join(th[k], &r);
        ok += r != NULL;
    }
    CHECK(ok == 8, "(d) %d of 8 threads got the table's bits", ok);
    blip_table_put(t3);
    blip_table_put(t4);
    blip_table_put(t5);
    blip_table_put(t6);
    free(ref_a);
    return check_exit();
}
