/* test_kpm_cuda_march.c — kpm-cuda's marching Chebyshev step (kpm_cuda_step.cuh: blocks of 8
 * or more vectors on square and cubic grids, walked tile by tile and plane by plane) against
 * the grid-stride step it replaces (label gpu).  Without a usable CUDA device it prints
 * "skipped: no device" and returns 77, which ctest counts as skipped.
 *
 * Every (row, vector) of a step is computed by one thread in the same order in both kernels,
 * so the vectors are the same; only the block sums of <y|x> and <y|y> add in another order.
 * For random-vector moments (kcu_random_moments) of a factorized (rank 2, the double-exchange
 * form) and a plain table on periodic cubic lattices whose side the 8 x 8 tile divides (16,
 * 8) and does not (12, 7) and a 40 x 40 square lattice, in blocks of 8, 12 (a group of 8 and a
 * partial one), 16 and 64 vectors, the marching step (the plugin's rule, and forced with 3
 * planes a block: kcu_engine_march 3) must give the grid-stride step's moments
 * (kcu_engine_march -1) to 1e-13 mu_0 per vector (mu_0 = 1): sums of dim terms of size
 * <= 1 reordered, dim <= 4096, so their rounding differs by < dim eps ~ 1e-12 at worst and by
 * ~sqrt(dim) eps ~ 1e-14 in practice; a wrong row, vector, group or plane changes a moment by
 * O(1/dim) >= 2e-4.  And the march with each row's slots shared by its 8 lanes
 * (kcu_engine_march_share 1, kcu_march_row) must give the march without (0) exactly for
 * factorized rows (the same arithmetic in the same order) and to 1e-13 from a table (nvcc
 * fuses its multiply-adds in another order: the last bit of an entry, ~1e-16 measured).
 * Two steps a launch (kcu_engine_pairs 1, kpm_cuda_pair.cuh: factorized rows on cubic L = 8
 * and 16, whose tiles wrap onto themselves at 8; the other lattices and the table fall back
 * to one step a launch) form every (row, vector) in the one-step order too: held to the
 * grid-stride step's moments to the same 1e-13, with the last step alone (M = 40) and with
 * pairs only after the first (M = 38).  The march with each thread's column of x in registers
 * (kcu_engine_march_share 2, kpm_cuda_zmarch.cuh: factorized rows on cubic lattices; the
 * table and the square lattice fall back to share 0) forms every (row, vector) in the same
 * order from the same numbers (its 8 x 4 tiles add the sums in another order): held to the
 * march without shared slots (3 planes a block) and to the grid-stride step (the default
 * plan) to the same 1e-13, factorized and in the fallbacks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_test_util.h"

static int moments(int march, int share, int pairs, kcu_ham *d, size_t dim, size_t B, double a,
                   double b, size_t R, size_t M, double *mu)
{
    kcu_engine *e = NULL;
    int rc = kcu_engine_create(dim, B, &e);
    if (!rc) {
        kcu_engine_march(e, march);
        kcu_engine_march_share(e, share);
        kcu_engine_pairs(e, pairs);
        rc = kcu_random_moments(e, d, a, b, 0, 99, R, M, mu);
    }
    kcu_engine_destroy(e);
    return rc;
}

int main(void)
{
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    const struct {
        mcf_lattice_kind kind;
        long L;
    } cases[] = {{MCF_LATTICE_CUBIC, 16}, {MCF_LATTICE_CUBIC, 8}, {MCF_LATTICE_CUBIC, 12},
                 {MCF_LATTICE_CUBIC, 7}, {MCF_LATTICE_SQUARE, 40}};
    const size_t blocks[] = {8, 12, 16, 64}, M = 40;
    mcf_rng rng;
    mcf_rng_init(&rng, 31, 2);
    for (int q = 0; q < 5; q++)
        for (int form = 0; form < 2; form++) {
            mcf_lattice *lat = NULL;
            mcf_lattice_create(cases[q].kind, cases[q].L, MCF_BOUNDARY_PERIODIC, &lat);
            const int z = lat->coordination;
            mcf_hamiltonian *h = NULL;
            mcf_hamiltonian_create(lat->sites, 1, z, &h);
            CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 2) == MCF_OK, "%s",
                  mcf_last_error());
            for (size_t i = 0; i < lat->sites; i++) {
                double f[4];
                for (int c = 0; c < 4; c++)
                    f[c] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
                mcf_hamiltonian_set_field(h, i, f);
                mcf_hamiltonian_set_onsite(h, i, mcf_rng_uniform(&rng) - 0.5);
            }
            double lo, hi, a, b;
            mcf_hamiltonian_bounds(h, &lo, &hi);
            mcf_hamiltonian_fix_bounds(h, lo - 0.1, hi + 0.1);
            mcf_hamiltonian_scaling(h, 0.01, &a, &b);
            mcf_hamiltonian *p = NULL; /* the same table, read as a table */
            mcf_hamiltonian_create(lat->sites, 1, z, &p);
            kt_copy_table(h, p);
            kcu_ham *d = NULL;
            CHECK(kcu_ham_create(form ? p : h, &d) == MCF_OK, "%s", mcf_last_error());
            for (int bi = 0; bi < 4; bi++) {
                const size_t B = blocks[bi], R = B;
                double *m0 = malloc(R * M * sizeof *m0), *m1 = malloc(R * M * sizeof *m1),
                       *m2 = malloc(R * M * sizeof *m2), *m3 = malloc(R * M * sizeof *m3),
                       *m4 = malloc(R * M * sizeof *m4), *m5 = malloc(R * M * sizeof *m5),
                       *m6 = malloc(R * M * sizeof *m6), *m7 = malloc(R * M * sizeof *m7);
                CHECK(moments(-1, -1, -1, d, h->dim, B, a, b, R, M, m0) == MCF_OK &&
                          moments(0, -1, -1, d, h->dim, B, a, b, R, M, m1) == MCF_OK &&
                          moments(3, 1, -1, d, h->dim, B, a, b, R, M, m2) == MCF_OK &&
                          moments(3, 0, -1, d, h->dim, B, a, b, R, M, m3) == MCF_OK &&
                          moments(0, -1, 1, d, h->dim, B, a, b, R, M, m4) == MCF_OK &&
                          moments(-1, -1, 1, d, h->dim, B, a, b, R, M - 2, m5) == MCF_OK &&
                          moments(3, 2, -1, d, h->dim, B, a, b, R, M, m6) == MCF_OK &&
                          moments(0, 2, -1, d, h->dim, B, a, b, R, M, m7) == MCF_OK,
                      "%s", mcf_last_error());
                /* the row's slots shared by its lanes or loaded by each: the same arithmetic
                 * in the same order, so the same bits factorized; from a table nvcc fuses
                 * the multiply-adds in another order (the last bit of an entry), held to
                 * the reordered sums' 1e-13 like the grid-stride step */
                const double d3 = kt_max_abs_diff(m2, m3, R * M);
                CHECK(form ? d3 < 1e-13 : d3 == 0.0, "%s L = %ld %s B = %zu: the march with "
                      "shared slots and without differ by %.2e",
                      mcf_lattice_kind_name(cases[q].kind), cases[q].L,
                      form ? "table" : "factorized", B, d3);
                /* the columns in registers: the march's arithmetic in its order */
                const double d6 = kt_max_abs_diff(m3, m6, R * M),
                             d7 = kt_max_abs_diff(m0, m7, R * M);
                CHECK(d6 < 1e-13 && d7 < 1e-13, "%s L = %ld %s B = %zu: the march with the "
                      "columns in registers vs without differs by %.2e (3 planes), vs "
                      "grid-stride by %.2e (default plan)",
                      mcf_lattice_kind_name(cases[q].kind), cases[q].L,
                      form ? "table" : "factorized", B, d6, d7);
                const double d1 = kt_max_abs_diff(m0, m1, R * M),
                             d2 = kt_max_abs_diff(m0, m2, R * M);
                CHECK(d1 < 1e-13 && d2 < 1e-13, "%s L = %ld %s B = %zu: marching vs "
                      "grid-stride moments differ by %.2e (default plan), %.2e (3 planes)",
                      mcf_lattice_kind_name(cases[q].kind), cases[q].L,
                      form ? "table" : "factorized", B, d1, d2);
                /* two steps a launch (kpm_cuda_pair.cuh; factorized cubic L = 8, 16: the
                 * others fall back to one step a launch) after the march's or the
                 * grid-stride's first step and with M = 40 (19 steps after the first: the
                 * last one alone) and M - 2 (18: pairs only) */
                double d4 = kt_max_abs_diff(m0, m4, R * M), d5 = 0.0;
                for (size_t r = 0; r < R; r++)
                    for (size_t n = 0; n < M - 2; n++) {
                        const double dn = fabs(m0[r * M + n] - m5[r * (M - 2) + n]);
                        d5 = dn > d5 ? dn : d5;
                    }
                CHECK(d4 < 1e-13 && d5 < 1e-13, "%s L = %ld %s B = %zu: two steps a launch "
                      "vs grid-stride moments differ by %.2e (M = %zu), %.2e (M = %zu)",
                      mcf_lattice_kind_name(cases[q].kind), cases[q].L,
                      form ? "table" : "factorized", B, d4, M, d5, M - 2);
                printf("%-6s L = %2ld %-10s B = %2zu: marching vs grid-stride %.1e, "
                       "3 planes %.1e, shared slots vs not %.1e, pairs %.1e %.1e, columns %.1e "
                       "%.1e\n",
                       mcf_lattice_kind_name(cases[q].kind), cases[q].L,
                       form ? "table" : "factorized", B, d1, d2, d3, d4, d5, d6, d7);
                free(m0);
                free(m1);
                free(m2);
                free(m3);
                free(m4);
                free(m5);
                free(m6);
                free(m7);
            }
            kcu_ham_destroy(d);
            mcf_hamiltonian_destroy(h);
            mcf_hamiltonian_destroy(p);
            mcf_lattice_destroy(lat);
        }
    return check_exit();
}
