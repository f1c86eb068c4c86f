/* test_kpm_cuda_pf_fused.c — kpm-cuda's pseudofermion gradient in one cooperative kernel
 * (kpm_cuda_pf_fused.cu) against the same gradient by launches per order (kpm_cuda_pf.cu,
 * which test_pseudofermion_cuda holds to the CPU), label gpu.  Without a usable CUDA device
 * it prints "skipped: no device" and returns 77, which ctest counts as skipped.
 *
 * On the same Hamiltonian, series and vectors, kcu_pf_gradient with kcu_pf_fused_mode 1 and
 * -1: the series y = P(H~) phi and every entry of the gradient (diagonal, re and im of every
 * slot) agree to 1e-12 of the largest |entry| (the same products and sums in the same
 * order, only fused multiply-adds could differ: on the H200 they were bitwise equal; a wrong
 * order, weight, slot or flavour is O(1)).  Cases: the factorized double-exchange form (rank
 * 2, computed spinor hoppings) and the same table read as a table on 6^3 and 16^3 (4096 rows:
 * 128 blocks of 32 rows, the grid-wide barrier across SMs), a square 20^2 table; nb = 5
 * and 8 flavours (the kernel's most), a random series of 60 terms; the plugin's rule (mode
 * 0) equal to one of them; and the kernel in blocks of 512 threads (mode 2) equal to blocks
 * of 128 bit for bit (a row's arithmetic does not depend on its block), alone and in a
 * batch.
 *
 * Several chains in one launch (kcu_pf_batch), gradients and the series alone, against each
 * chain alone by the launches (1e-12 of the largest entry) and by the fused kernel alone
 * (0.0: a chain's arithmetic does not depend on its neighbours in the launch): 6^3, 8^3,
 * 20^2 and 4^3 of 30-90 terms (blocks and orders of every length); factorized and table
 * chains in one call (a launch per form); 18 chains (launches of 16 and 2); a lone table
 * after 16 factorized chains, left to the one-by-one path (done = 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_test_util.h"

typedef struct out {
    double *y, *gd, *gre, *gim;
} out;

static int gradient(kcu_pf *s, int mode, const kcu_ham *d, const mcf_hamiltonian *h, double a,
                    double b, const double *c, size_t M, size_t nb, const double *x, out *o)
{
    const size_t slots = (size_t)h->width * h->dim;
    memset(o->gd, 0, h->dim * sizeof *o->gd);
    memset(o->gre, 0, slots * sizeof *o->gre);
    memset(o->gim, 0, slots * sizeof *o->gim);
    kcu_pf_fused_mode(s, mode);
    return kcu_pf_gradient(s, d, h, a, b, c, M, nb, x, o->y, o->gd, o->gre, o->gim);
}

static double worst(const double *p, const double *q, size_t n, double *scale)
{
    double w = 0.0;
    for (size_t i = 0; i < n; i++) {
        w = fmax(w, fabs(p[i] - q[i]));
        *scale = fmax(*scale, fabs(p[i]));
    }
    return w;
}

static void one_case(const char *name, mcf_lattice_kind kind, long L, int table, size_t nb,
                     mcf_rng *rng)
{
    mcf_lattice *lat = NULL;
    mcf_lattice_create(kind, L, MCF_BOUNDARY_PERIODIC, &lat);
    const int z = lat->coordination;
    mcf_hamiltonian *h = NULL, *p = NULL;
    mcf_hamiltonian_create(lat->sites, 1, z, &h);
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 2) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < lat->sites; i++) {
        double f[4], n2 = 0.0;
        for (int q = 0; q < 4; q++) {
            f[q] = 2.0 * mcf_rng_uniform(rng) - 1.0;
            n2 += f[q] * f[q];
        }
        for (int q = 0; q < 4; q++)
            f[q] /= sqrt(n2); /* a unit spinor, as double exchange's */
        mcf_hamiltonian_set_field(h, i, f);
        mcf_hamiltonian_set_onsite(h, i, 0.2 * (mcf_rng_uniform(rng) - 0.5));
    }
    double lo, hi, a, b;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    mcf_hamiltonian_fix_bounds(h, lo - 0.1, hi + 0.1);
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    mcf_hamiltonian_create(lat->sites, 1, z, &p); /* the same table, no factors */
    kt_copy_table(h, p);
    const size_t slots = (size_t)z * h->dim;
    const mcf_hamiltonian *u = table ? p : h;
    kcu_ham *d = NULL;
    kcu_pf *s = NULL;
    CHECK(kcu_ham_create(u, &d) == MCF_OK && kcu_pf_create(u->dim, u->width, nb, &s) == MCF_OK,
          "%s", mcf_last_error());
    const size_t M = 60, n = 2 * nb * u->dim;
    double c[60], *x = malloc(n * sizeof *x);
    for (size_t m = 0; m < M; m++)
        c[m] = (2.0 * mcf_rng_uniform(rng) - 1.0) * exp(-0.05 * (double)m);
    for (size_t i = 0; i < n; i++)
        x[i] = mcf_rng_normal(rng);
    out o[4];
    for (int k = 0; k < 4; k++) {
        o[k].y = malloc(n * sizeof(double));
        o[k].gd = malloc(u->dim * sizeof(double));
        o[k].gre = malloc(slots * sizeof(double));
        o[k].gim = malloc(slots * sizeof(double));
    }
    CHECK(gradient(s, -1, d, u, a, b, c, M, nb, x, &o[0]) == MCF_OK &&
              gradient(s, 1, d, u, a, b, c, M, nb, x, &o[1]) == MCF_OK &&
              gradient(s, 0, d, u, a, b, c, M, nb, x, &o[2]) == MCF_OK &&
              gradient(s, 2, d, u, a, b, c, M, nb, x, &o[3]) == MCF_OK,
          "%s", mcf_last_error());
    double sy = 0.0, sg = 0.0, sg2 = 0.0;
    const double dy = worst(o[0].y, o[1].y, n, &sy);
    const double dg = fmax(worst(o[0].gd, o[1].gd, u->dim, &sg),
                           fmax(worst(o[0].gre, o[1].gre, slots, &sg),
                                worst(o[0].gim, o[1].gim, slots, &sg)));
    const double rule = fmax(fmin(worst(o[2].gre, o[0].gre, slots, &sg2),
                                  worst(o[2].gre, o[1].gre, slots, &sg2)),
                             fmin(worst(o[2].y, o[0].y, n, &sg2), worst(o[2].y, o[1].y, n, &sg2)));
    CHECK(dy <= 1e-12 * sy && dg <= 1e-12 * sg && sg > 0.0,
          "%s (%s, %zu flavours): fused vs launches: series %.2e of %.2e, gradient %.2e of %.2e",
          name, table ? "table" : "factorized", nb, dy, sy, dg, sg);
    CHECK(rule == 0.0, "%s: the rule's path is neither (%.2e)", name, rule);
    /* the wide blocks (mode 2): each row's arithmetic is the narrow blocks', bit for bit */
    double s3 = 0.0;
    const double wide = fmax(fmax(worst(o[3].y, o[1].y, n, &s3), worst(o[3].gd, o[1].gd,
                                                                          u->dim, &s3)),
                             fmax(worst(o[3].gre, o[1].gre, slots, &s3),
                                  worst(o[3].gim, o[1].gim, slots, &s3)));
    CHECK(wide == 0.0, "%s: blocks of 512 against 128: %.2e", name, wide);
    printf("%-8s %-10s %zu flavours: fused vs launches: series %.1e of %.1e, gradient %.1e of "
           "%.1e\n", name, table ? "table" : "factorized", nb, dy, sy, dg, sg);
    for (int k = 0; k < 4; k++) {
        free(o[k].y);
        free(o[k].gd);
        free(o[k].gre);
        free(o[k].gim);
    }
    free(x);
    kcu_pf_destroy(s);
    kcu_ham_destroy(d);
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_destroy(p);
    mcf_lattice_destroy(lat);
}

/* ---- several chains in one launch (kcu_pf_batch) ------------------------------------- */

typedef struct chain {
    mcf_lattice *lat;
    mcf_hamiltonian *h, *t; /* factorized, and its table */
    kcu_ham *d;
    kcu_pf *s;
    kcu_series *ser;
    double a, b, c[90], *x;
    size_t M;
    out o[3]; /* alone, in the batch, spare */
} chain;

static void chain_make(chain *q, mcf_lattice_kind kind, long L, int table, size_t M, size_t nb,
                       mcf_rng *rng)
{
    memset(q, 0, sizeof *q);
    mcf_lattice_create(kind, L, MCF_BOUNDARY_PERIODIC, &q->lat);
    const int z = q->lat->coordination;
    mcf_hamiltonian_create(q->lat->sites, 1, z, &q->h);
    CHECK(mcf_hamiltonian_factorize(q->h, q->lat, -1.0, 2) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < q->lat->sites; i++) {
        double f[4], n2 = 0.0;
        for (int k = 0; k < 4; k++) {
            f[k] = 2.0 * mcf_rng_uniform(rng) - 1.0;
            n2 += f[k] * f[k];
        }
        for (int k = 0; k < 4; k++)
            f[k] /= sqrt(n2);
        mcf_hamiltonian_set_field(q->h, i, f);
        mcf_hamiltonian_set_onsite(q->h, i, 0.2 * (mcf_rng_uniform(rng) - 0.5));
    }
    double lo, hi;
    mcf_hamiltonian_bounds(q->h, &lo, &hi);
    mcf_hamiltonian_fix_bounds(q->h, lo - 0.1, hi + 0.1);
    mcf_hamiltonian_scaling(q->h, 0.01, &q->a, &q->b);
    mcf_hamiltonian_create(q->lat->sites, 1, z, &q->t);
    kt_copy_table(q->h, q->t);
    const mcf_hamiltonian *u = table ? q->t : q->h;
    CHECK(kcu_ham_create(u, &q->d) == MCF_OK && kcu_pf_create(u->dim, u->width, nb, &q->s) ==
              MCF_OK && kcu_series_create(u->dim, nb, &q->ser) == MCF_OK,
          "%s", mcf_last_error());
    q->M = M;
    for (size_t m = 0; m < M; m++)
        q->c[m] = (2.0 * mcf_rng_uniform(rng) - 1.0) * exp(-0.05 * (double)m);
    const size_t n = 2 * nb * u->dim, slots = (size_t)z * u->dim;
    q->x = malloc(n * sizeof *q->x);
    for (size_t i = 0; i < n; i++)
        q->x[i] = mcf_rng_normal(rng);
    for (int k = 0; k < 3; k++) {
        q->o[k].y = malloc(n * sizeof(double));
        q->o[k].gd = calloc(u->dim, sizeof(double));
        q->o[k].gre = calloc(slots, sizeof(double));
        q->o[k].gim = calloc(slots, sizeof(double));
    }
}

static void chain_free(chain *q)
{
    for (int k = 0; k < 3; k++) {
        free(q->o[k].y);
        free(q->o[k].gd);
        free(q->o[k].gre);
        free(q->o[k].gim);
    }
    free(q->x);
    kcu_series_destroy(q->ser);
    kcu_pf_destroy(q->s);
    kcu_ham_destroy(q->d);
    mcf_hamiltonian_destroy(q->h);
    mcf_hamiltonian_destroy(q->t);
    mcf_lattice_destroy(q->lat);
}

/* The chains' jobs in one kcu_pf_batch (grad: gradients, else the series alone), those it
 * leaves one by one as the plugin does; against each chain alone by the launches (1e-12 of
 * the largest entry) and, gradients, by the fused kernel alone (0: the same arithmetic). */
static void batch_case(const char *name, chain *q, size_t n, const int *table, size_t nb,
                       int grad, size_t want_done, int mode)
{
    kcu_pf_job *jobs = calloc(n, sizeof *jobs);
    for (size_t k = 0; k < n; k++) {
        const mcf_hamiltonian *u = table[k] ? q[k].t : q[k].h;
        const size_t slots = (size_t)u->width * u->dim;
        memset(q[k].o[1].gd, 0, u->dim * sizeof(double));
        memset(q[k].o[1].gre, 0, slots * sizeof(double));
        memset(q[k].o[1].gim, 0, slots * sizeof(double));
        kcu_pf_fused_mode(q[k].s, mode);
        jobs[k] = (kcu_pf_job){.s = q[k].s, .d = q[k].d, .h = u, .a = q[k].a, .b = q[k].b,
                               .c = q[k].c, .M = q[k].M, .x = q[k].x, .y = q[k].o[1].y};
        if (grad) {
            jobs[k].gd = q[k].o[1].gd;
            jobs[k].gre = q[k].o[1].gre;
            jobs[k].gim = q[k].o[1].gim;
        }
    }
    CHECK(kcu_pf_batch(jobs, n, nb) == MCF_OK, "%s: %s", name, mcf_last_error());
    size_t done = 0;
    double dy = 0.0, sy = 0.0, dg = 0.0, sg = 0.0, dfused = 0.0;
    for (size_t k = 0; k < n; k++) {
        const mcf_hamiltonian *u = jobs[k].h;
        const size_t dim = u->dim, slots = (size_t)u->width * dim, nv = 2 * nb * dim;
        done += (size_t)jobs[k].done;
        int rc = MCF_OK;
        if (!jobs[k].done) /* the plugin's one-by-one path */
            rc = grad ? gradient(q[k].s, 0, q[k].d, u, q[k].a, q[k].b, q[k].c, q[k].M, nb,
                                 q[k].x, &q[k].o[1])
                      : kcu_series_apply(q[k].ser, q[k].d, q[k].a, q[k].b, q[k].c, q[k].M, nb,
                                         q[k].x, q[k].o[1].y);
        CHECK(rc == MCF_OK, "%s: %s", name, mcf_last_error());
        if (grad) {
            CHECK(gradient(q[k].s, -1, q[k].d, u, q[k].a, q[k].b, q[k].c, q[k].M, nb, q[k].x,
                           &q[k].o[0]) == MCF_OK &&
                      gradient(q[k].s, 1, q[k].d, u, q[k].a, q[k].b, q[k].c, q[k].M, nb,
                               q[k].x, &q[k].o[2]) == MCF_OK,
                  "%s: %s", name, mcf_last_error());
            double s2 = 0.0;
            dg = fmax(dg, fmax(worst(q[k].o[0].gd, q[k].o[1].gd, dim, &sg),
                               fmax(worst(q[k].o[0].gre, q[k].o[1].gre, slots, &sg),
                                    worst(q[k].o[0].gim, q[k].o[1].gim, slots, &sg))));
            if (jobs[k].done) /* the one-by-one path took the launches (1e-12 above) */
                dfused = fmax(dfused, fmax(worst(q[k].o[2].gre, q[k].o[1].gre, slots, &s2),
                                       fmax(worst(q[k].o[2].gim, q[k].o[1].gim, slots, &s2),
                                            worst(q[k].o[2].y, q[k].o[1].y, nv, &s2))));
        } else {
            CHECK(kcu_series_apply(q[k].ser, q[k].d, q[k].a, q[k].b, q[k].c, q[k].M, nb,
                                   q[k].x, q[k].o[0].y) == MCF_OK,
                  "%s: %s", name, mcf_last_error());
        }
        dy = fmax(dy, worst(q[k].o[0].y, q[k].o[1].y, nv, &sy));
    }
    CHECK(done == want_done, "%s: the batch took %zu of %zu chains, expected %zu", name, done, n,
          want_done);
    CHECK(dy <= 1e-12 * sy && (!grad || (dg <= 1e-12 * sg && sg > 0.0)),
          "%s: batch vs each alone by launches: series %.2e of %.2e, gradient %.2e of %.2e",
          name, dy, sy, dg, sg);
    CHECK(dfused == 0.0, "%s: batch vs each alone in the fused kernel: %.2e", name, dfused);
    printf("%-34s %s, %zu of %zu chains batched: vs launches series %.1e of %.1e, gradient "
           "%.1e of %.1e; vs fused alone %.1e\n", name, grad ? "gradient" : "series  ", done,
           n, dy, sy, dg, sg, dfused);
    free(jobs);
}

static void batches(mcf_rng *rng)
{
    /* 6^3, 8^3, 20^2, 4^3 factorized, of 60, 45, 90 and 30 terms: mixed blocks and orders */
    chain q[18];
    int fac[18] = {0}, mixed[4] = {0, 0, 1, 1};
    chain_make(&q[0], MCF_LATTICE_CUBIC, 6, 0, 60, 5, rng);
    chain_make(&q[1], MCF_LATTICE_CUBIC, 8, 0, 45, 5, rng);
    chain_make(&q[2], MCF_LATTICE_SQUARE, 20, 0, 90, 5, rng);
    chain_make(&q[3], MCF_LATTICE_CUBIC, 4, 0, 30, 5, rng);
    batch_case("4 factorized (6^3 8^3 20^2 4^3)", q, 4, fac, 5, 1, 4, 0);
    batch_case("4 factorized (6^3 8^3 20^2 4^3)", q, 4, fac, 5, 0, 4, 0);
    batch_case("the same, blocks of 512 threads", q, 4, fac, 5, 1, 4, 2);
    for (int k = 0; k < 4; k++)
        chain_free(&q[k]);
    /* two forms: a launch per form (the kernel is one field rank) */
    for (int k = 0; k < 4; k++)
        chain_make(&q[k], MCF_LATTICE_CUBIC, 4 + k, mixed[k], 40 + 10 * (size_t)k, 8, rng);
    batch_case("2 factorized + 2 tables, 8 flavours", q, 4, mixed, 8, 1, 4, 0);
    for (int k = 0; k < 4; k++)
        chain_free(&q[k]);
    /* 18 chains: launches of 16 (the most) and 2 */
    for (int k = 0; k < 18; k++)
        chain_make(&q[k], MCF_LATTICE_CUBIC, 4, 0, 20 + (size_t)k, 3, rng);
    batch_case("18 chains of 4^3", q, 18, fac, 3, 1, 18, 0);
    /* a table after 16 factorized: left alone to the one-by-one path */
    chain_free(&q[16]);
    chain_make(&q[16], MCF_LATTICE_CUBIC, 4, 1, 33, 3, rng);
    fac[16] = 1;
    batch_case("16 factorized + 1 table", q, 17, fac, 3, 1, 16, 0);
    for (int k = 0; k < 18; k++)
        chain_free(&q[k]);
}

int main(void)
{
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    mcf_rng rng;
    mcf_rng_init(&rng, 44, 5);
    for (int table = 0; table < 2; table++) {
        one_case("cubic 6", MCF_LATTICE_CUBIC, 6, table, 5, &rng);
        one_case("cubic 16", MCF_LATTICE_CUBIC, 16, table, 5, &rng);
        one_case("cubic 6", MCF_LATTICE_CUBIC, 6, table, 8, &rng);
    }
    one_case("square 20", MCF_LATTICE_SQUARE, 20, 1, 5, &rng);
    batches(&rng);
    return check_exit();
}
