/* test_kpm_factors.c — the KPM step over factorized hoppings (plugins/kpm/kpm_step.c)
 * against the same step over the table.
 *
 * For each lattice (periodic chain, square and cubic with L >= 3, whose neighbours the step
 * computes from the row; open square, periodic bcc and periodic L = 4 cubic, where it
 * reads the lattice's table or computes them at even L), each rank 0, 1, 2 with random
 * fields and on-site energies, a Hamiltonian with factorized hoppings and a plain copy of
 * its table (no factors: the table path) give
 *   (a) the same stochastic DOS moments bit for bit, for blocks 1, 4, 5 and 8 (the scalar
 *       and the 4-wide vector steps; blocks below 4 take the table either way) on 1 and 2
 *       threads;
 *   (b) the same general moments <w|T_n(H~)|v> bit for bit (the GENERAL step);
 * (c) the moments of the factorized H equal the exact ones from the eigenvalues of its
 * dense matrix (1e-10 of mu_0, the reference's rounding), so the two paths do not merely
 * agree in a shared mistake; and (d) with the table's amplitudes scrambled the factorized
 * H gives the same bits (its step reads the field, not the table).  (a)-(d) take the field
 * wherever a field step exists (kpm_step_set_form(KPM_FORM_FIELD)); (e) checks where the
 * default takes it: rank 0 from 4096 rows with 4 or more vectors, nowhere else. */
#include <stdio.h>

#include "kpm_core.h"
#include "kpm_step.h"
#include "kpm_test_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* A Hamiltonian on `lat` with factorized hoppings of `rank` (random fields, random on-site
 * energies in [-1, 1]) into *fac, and a plain copy of its table into *tab. */
static void make_pair(const mcf_lattice *lat, int rank, mcf_rng *rng, mcf_hamiltonian **fac,
                      mcf_hamiltonian **tab)
{
    mcf_hamiltonian *h = NULL, *p = NULL;
    const int z = lat->coordination;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, z, &h) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_factorize(h, lat, -0.8, rank) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < lat->sites; i++) {
        mcf_hamiltonian_set_onsite(h, i, 2.0 * mcf_rng_uniform(rng) - 1.0);
        if (rank) {
            double a[2 * MCF_FACTORS_RANK_MAX];
            for (int c = 0; c < 2 * rank; c++)
                a[c] = 2.0 * mcf_rng_uniform(rng) - 1.0;
            mcf_hamiltonian_set_field(h, i, a);
        }
    }
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "%s", mcf_last_error());
    mcf_hamiltonian_create(lat->sites, 1, z, &p);
    const size_t slots = (size_t)z * h->dim;
    memcpy(p->col, h->col, slots * sizeof *p->col);
    memcpy(p->hop_re, h->hop_re, slots * sizeof *p->hop_re);
    memcpy(p->hop_im, h->hop_im, slots * sizeof *p->hop_im);
    memcpy(p->onsite, h->onsite, h->dim * sizeof *p->onsite);
    mcf_hamiltonian_touch_all(p);
    /* the same bounds, so the same scaling */
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    mcf_hamiltonian_fix_bounds(h, lo, hi);
    mcf_hamiltonian_fix_bounds(p, lo, hi);
    *fac = h;
    *tab = p;
}

static void stochastic(const mcf_hamiltonian *h, size_t B, size_t R, size_t M, double *mu)
{
    kpm_engine *eng = NULL;
    CHECK(kpm_engine_create(h->dim, B, &eng) == MCF_OK, "%s", mcf_last_error());
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    mcf_rng rng;
    mcf_rng_init(&rng, 17, 4);
    CHECK(kpm_stochastic_moments(eng, h, a, b, &rng, KPM_RANDOM_PHASE, R, M, mu) == MCF_OK,
          "%s", mcf_last_error());
    kpm_engine_destroy(eng);
}

static void general(const mcf_hamiltonian *h, size_t B, size_t M, double *mu)
{
    kpm_engine *eng = NULL;
    kpm_engine_create(h->dim, B, &eng);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    double *left = malloc(2 * B * h->dim * sizeof *left);
    double *v = kpm_engine_start(eng);
    mcf_rng rng;
    mcf_rng_init(&rng, 23, 1);
    for (size_t q = 0; q < 2 * B * h->dim; q++) {
        left[q] = mcf_rng_uniform(&rng) - 0.5;
        v[q] = mcf_rng_uniform(&rng) - 0.5;
    }
    CHECK(kpm_moments_general(eng, h, a, b, B, left, M, mu) == MCF_OK, "%s",
          mcf_last_error());
    free(left);
    kpm_engine_destroy(eng);
}

int main(void)
{
    const struct {
        mcf_lattice_kind kind;
        long L;
        mcf_boundary bd;
    } cases[] = {{MCF_LATTICE_CHAIN, 301, MCF_BOUNDARY_PERIODIC},
                 {MCF_LATTICE_SQUARE, 13, MCF_BOUNDARY_PERIODIC},
                 {MCF_LATTICE_CUBIC, 5, MCF_BOUNDARY_PERIODIC},
                 {MCF_LATTICE_CUBIC, 4, MCF_BOUNDARY_PERIODIC},
                 {MCF_LATTICE_SQUARE, 12, MCF_BOUNDARY_OPEN},
                 {MCF_LATTICE_BCC, 3, MCF_BOUNDARY_PERIODIC}};
    const size_t ncase = sizeof cases / sizeof cases[0];
    const size_t blocks[4] = {1, 4, 5, 8};
    const size_t R = 8, M = 40;
    mcf_rng rng;
    mcf_rng_init(&rng, 3, 9);
    /* (e) the default's choice (before the field is forced below) */
    const struct {
        long L;
        int rank;
        size_t B;
        int field;
    } rule[] = {{16, 0, 4, 1}, {16, 0, 8, 1}, {16, 0, 1, 0}, {16, 0, 2, 0}, {15, 0, 8, 0},
                {8, 0, 8, 0},  {16, 1, 8, 0}, {16, 2, 8, 0}, {3, 2, 4, 0}};
    for (size_t q = 0; q < sizeof rule / sizeof rule[0]; q++) {
        mcf_lattice *lat = NULL;
        mcf_lattice_create(MCF_LATTICE_CUBIC, rule[q].L, MCF_BOUNDARY_PERIODIC, &lat);
        mcf_hamiltonian *fac = NULL, *tab = NULL;
        make_pair(lat, rule[q].rank, &rng, &fac, &tab);
        const int got = kpm_step_reads_field(fac, rule[q].B);
        CHECK(got == rule[q].field && !kpm_step_reads_field(tab, rule[q].B),
              "cubic L = %ld rank %d, %zu vectors: the step reads the %s (expected the %s)",
              rule[q].L, rule[q].rank, rule[q].B, got ? "field" : "table",
              rule[q].field ? "field" : "table");
        mcf_hamiltonian_destroy(fac);
        mcf_hamiltonian_destroy(tab);
        mcf_lattice_destroy(lat);
    }
    kpm_step_set_form(KPM_FORM_FIELD);
    for (size_t q = 0; q < ncase; q++)
        for (int rank = 0; rank <= MCF_FACTORS_RANK_MAX; rank++) {
            mcf_lattice *lat = NULL;
            mcf_lattice_create(cases[q].kind, cases[q].L, cases[q].bd, &lat);
            mcf_hamiltonian *fac = NULL, *tab = NULL;
            make_pair(lat, rank, &rng, &fac, &tab);
            const char *name = mcf_lattice_kind_name(cases[q].kind);
            double *m1 = malloc(2 * R * M * sizeof *m1), *m2 = malloc(2 * R * M * sizeof *m2);
            /* (a) */
            int same = 1;
            for (int b = 0; b < 4; b++)
                for (int th = 1; th <= 2; th++) {
#ifdef _OPENMP
                    omp_set_num_threads(th);
#endif
                    stochastic(fac, blocks[b], R, M, m1);
                    stochastic(tab, blocks[b], R, M, m2);
                    same &= !memcmp(m1, m2, R * M * sizeof *m1);
                }
            CHECK(same, "%s L = %ld %s rank %d: factorized and table DOS moments differ",
                  name, cases[q].L, mcf_boundary_name(cases[q].bd), rank);
            /* (b) */
            int gsame = 1;
            for (int b = 0; b < 4; b++) {
                general(fac, blocks[b], M, m1);
                general(tab, blocks[b], M, m2);
                gsame &= !memcmp(m1, m2, 2 * blocks[b] * M * sizeof *m1);
            }
            CHECK(gsame, "%s L = %ld rank %d: factorized and table general moments differ",
                  name, cases[q].L, rank);
            /* (c) the first unit vector's moments against the eigen-decomposition */
            double worst = -1.0;
            if (fac->dim <= 400) {
                kt_eigen e = kt_diagonalize(fac);
                double a, b;
                mcf_hamiltonian_scaling(fac, 0.01, &a, &b);
                kpm_engine *eng = NULL;
                kpm_engine_create(fac->dim, 1, &eng);
                double *v = kpm_engine_start(eng);
                memset(v, 0, 2 * fac->dim * sizeof *v);
                v[0] = 1.0;
                kpm_moments_diag(eng, fac, a, b, 1, M, m1);
                kpm_engine_destroy(eng);
                double *ur = calloc(fac->dim, sizeof *ur), *ui = calloc(fac->dim, sizeof *ui);
                double *ov = malloc(2 * fac->dim * sizeof *ov), *x = malloc(fac->dim * sizeof *x);
                ur[0] = 1.0;
                kt_overlaps(&e, ur, ui, ov);
                for (size_t k = 0; k < fac->dim; k++) {
                    x[k] = (e.eval[k] - b) / a;
                    ov[k] = ov[2 * k] * ov[2 * k] + ov[2 * k + 1] * ov[2 * k + 1];
                }
                kt_moments(fac->dim, x, ov, NULL, M, m2, NULL);
                worst = kt_max_abs_diff(m1, m2, M);
                CHECK(worst < 1e-10, "%s rank %d: moments differ from ED by %.2e", name, rank,
                      worst);
                kt_eigen_free(&e);
                free(ur);
                free(ui);
                free(ov);
                free(x);
            }
            /* (d) the factorized step reads no amplitude from the table: scrambled, the
             * moments stay the same bits (the test of (a) is not the table twice); block
             * 4 and 8 (the vector step; R = 8 vectors, so no remainder below 4) */
            stochastic(fac, 4, R, M, m1);
            stochastic(fac, 8, R, M, m1 + R * M);
            for (size_t k = 0; k < (size_t)fac->width * fac->dim; k++)
                fac->hop_re[k] = fac->hop_im[k] = 1e3;
            stochastic(fac, 4, R, M, m2);
            stochastic(fac, 8, R, M, m2 + R * M);
            const int untouched = !memcmp(m1, m2, 2 * R * M * sizeof *m1);
            CHECK(untouched, "%s rank %d: the factorized step read the table", name, rank);
            printf("%-6s L = %3ld %-8s rank %d: DOS moments bitwise %s, general bitwise %s, "
                   "vs ED %.1e, table unread %s\n", name, cases[q].L,
                   mcf_boundary_name(cases[q].bd), rank, same ? "yes" : "NO",
                   gsame ? "yes" : "NO", worst, untouched ? "yes" : "NO");
            free(m1);
            free(m2);
            mcf_hamiltonian_destroy(fac);
            mcf_hamiltonian_destroy(tab);
            mcf_lattice_destroy(lat);
        }
    return check_exit();
}
