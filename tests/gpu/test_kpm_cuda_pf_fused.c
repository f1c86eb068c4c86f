/* test_kpm_cuda_pf_fused.c — kpm-cuda's pseudofermion gradient in one cooperative kernel
 * (kpm_cuda_pf_fused.cu) against the same gradient by launches per order (kpm_cuda_pf.cu,
 * which test_pseudofermion_cuda holds to the CPU), label gpu.  Without a usable CUDA device
 * it prints "skipped: no device" and returns 77, which ctest counts as skipped.
 *
 * On the same Hamiltonian, series and vectors, kcu_pf_gradient with kcu_pf_fused_mode 1 and
 * -1: the series y = P(H~) phi and every entry of the gradient (diagonal, re and im of every
 * slot) agree to 1e-12 of the largest |entry| (the same products and sums in the same
 * order, only fused multiply-adds could differ: on the H200 they were bitwise equal; a wrong
 * order, weight, slot or flavour is O(1)).  Cases: the factorized double-exchange form (rank 2, computed spinor
 * hoppings) and the same table read as a table on 6^3 and 16^3 (4096 rows: 32 blocks, the
 * grid-wide barrier across SMs), a square 20^2 table; nb = 5 and 8 flavours (the kernel's
 * most), a random series of 60 terms; and the plugin's rule (mode 0) equal to one of them. */
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
    out o[3];
    for (int k = 0; k < 3; k++) {
        o[k].y = malloc(n * sizeof(double));
        o[k].gd = malloc(u->dim * sizeof(double));
        o[k].gre = malloc(slots * sizeof(double));
        o[k].gim = malloc(slots * sizeof(double));
    }
    CHECK(gradient(s, -1, d, u, a, b, c, M, nb, x, &o[0]) == MCF_OK &&
              gradient(s, 1, d, u, a, b, c, M, nb, x, &o[1]) == MCF_OK &&
              gradient(s, 0, d, u, a, b, c, M, nb, x, &o[2]) == MCF_OK,
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
    printf("%-8s %-10s %zu flavours: fused vs launches: series %.1e of %.1e, gradient %.1e of "
           "%.1e\n", name, table ? "table" : "factorized", nb, dy, sy, dg, sg);
    for (int k = 0; k < 3; k++) {
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
    return check_exit();
}
