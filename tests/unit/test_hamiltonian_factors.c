/* test_hamiltonian_factors.c — factorized hoppings (mcf/hamiltonian_factors.h).
 *
 *   (a) factorize() writes slot k of row i = neighbour k with the amplitude, for chain,
 *       square, cubic and bcc, periodic and open; check() passes;
 *   (b) set_field() on random sites with random fields: every entry equals amplitude
 *       conj(a_i) . a_j computed here in long double (1e-15 relative), and the dense matrix
 *       is Hermitian bit for bit; the change journal names the site and its neighbours;
 *   (c) a spin-1/2 field: the entries are -t <chi_i|chi_j> by the cosine formula
 *       (cos(th_i/2) cos(th_j/2) + sin sin e^{-i(ph_i - ph_j)}) to 1e-15;
 *   (d) refusals with messages: two orbitals, rank 3, width below the coordination, a
 *       hopping already written, periodic L = 2, set() of a factorized Hamiltonian,
 *       set_field() with rank 0 or a NaN; check() catching an entry changed behind the
 *       field's back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mcf/mcf.h"

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

static const mcf_lattice_kind kinds[4] = {MCF_LATTICE_CHAIN, MCF_LATTICE_SQUARE,
                                          MCF_LATTICE_CUBIC, MCF_LATTICE_BCC};

/* (a) */
static void test_layout(void)
{
    for (int q = 0; q < 8; q++) {
        const mcf_boundary bd = q % 2 ? MCF_BOUNDARY_OPEN : MCF_BOUNDARY_PERIODIC;
        mcf_lattice *lat = NULL;
        CHECK(mcf_lattice_create(kinds[q / 2], 3, bd, &lat) == MCF_OK, "%s", mcf_last_error());
        mcf_hamiltonian *h = NULL;
        CHECK(mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h) == MCF_OK, "%s",
              mcf_last_error());
        CHECK(mcf_hamiltonian_factorize(h, lat, -0.75, q % 3) == MCF_OK, "%s",
              mcf_last_error());
        int bad = 0;
        const int z = lat->coordination;
        for (size_t i = 0; i < lat->sites; i++)
            for (int k = 0; k < z; k++) {
                const size_t s = (size_t)k * h->dim + i;
                const int32_t j = lat->neighbours[i * (size_t)z + (size_t)k];
                bad += h->col[s] != j;
                if (j >= 0)
                    bad += h->hop_re[s] != -0.75 || h->hop_im[s] != 0.0;
            }
        CHECK(bad == 0, "%s %s: %d slots differ from the lattice's table",
              mcf_lattice_kind_name(kinds[q / 2]), mcf_boundary_name(bd), bad);
        CHECK(mcf_hamiltonian_check(h) == MCF_OK, "%s", mcf_last_error());
        CHECK(h->factors && h->factors->rank == q % 3 && h->factors->coordination == z,
              "the form as declared");
        mcf_hamiltonian_destroy(h);
        mcf_lattice_destroy(lat);
    }
}

/* (b) */
static void test_fields(void)
{
    mcf_lattice *lat = NULL;
    mcf_lattice_create(MCF_LATTICE_CUBIC, 4, MCF_BOUNDARY_PERIODIC, &lat);
    mcf_rng rng;
    mcf_rng_init(&rng, 5, 1);
    for (int rank = 1; rank <= MCF_FACTORS_RANK_MAX; rank++) {
        mcf_hamiltonian *h = NULL;
        mcf_hamiltonian_create(lat->sites, 1, 6, &h);
        const double amp = -1.3;
        CHECK(mcf_hamiltonian_factorize(h, lat, amp, rank) == MCF_OK, "%s", mcf_last_error());
        for (size_t i = 0; i < lat->sites; i++) {
            double a[2 * MCF_FACTORS_RANK_MAX];
            for (int c = 0; c < 2 * rank; c++)
                a[c] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
            CHECK(mcf_hamiltonian_set_field(h, i, a) == MCF_OK, "%s", mcf_last_error());
        }
        /* one more change: the journal names the site and its six neighbours */
        const uint64_t v = h->version;
        const size_t o = 37;
        double a[2 * MCF_FACTORS_RANK_MAX] = {0.3, -0.4, 0.1, 0.2};
        mcf_hamiltonian_set_field(h, o, a);
        size_t rows[16];
        const long n = mcf_hamiltonian_changed_rows(h, v, rows, 16);
        int named = n == 7;
        for (long q = 0; q < n && named; q++) {
            int found = rows[q] == o;
            for (int k = 0; k < 6; k++)
                found |= rows[q] == (size_t)lat->neighbours[6 * o + (size_t)k];
            named &= found;
        }
        CHECK(named, "rank %d: the journal names %ld rows, not the site and its 6 neighbours",
              rank, n);
        double worst = 0.0;
        for (size_t i = 0; i < lat->sites; i++)
            for (int k = 0; k < 6; k++) {
                const size_t s = (size_t)k * h->dim + i, j = (size_t)h->col[s];
                const double *ai = h->factors->field + 2 * rank * i;
                const double *aj = h->factors->field + 2 * rank * j;
                long double re = 0.0L, im = 0.0L;
                for (int c = 0; c < rank; c++) {
                    re += (long double)ai[2 * c] * aj[2 * c] +
                          (long double)ai[2 * c + 1] * aj[2 * c + 1];
                    im += (long double)ai[2 * c] * aj[2 * c + 1] -
                          (long double)ai[2 * c + 1] * aj[2 * c];
                }
                re *= amp;
                im *= amp;
                worst = fmax(worst, (double)fabsl(re - h->hop_re[s]));
                worst = fmax(worst, (double)fabsl(im - h->hop_im[s]));
            }
        CHECK(worst < 1e-15 * 2 * rank * 1.3, "rank %d: entries differ from amplitude "
              "conj(a_i) . a_j by %.2e", rank, worst);
        const size_t d = h->dim;
        double *m = malloc(2 * d * d * sizeof *m);
        mcf_hamiltonian_dense(h, m);
        int herm = 1;
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++)
                herm &= m[2 * (i * d + j)] == m[2 * (j * d + i)] &&
                        m[2 * (i * d + j) + 1] == -m[2 * (j * d + i) + 1];
        CHECK(herm, "rank %d: the dense matrix is not Hermitian bit for bit", rank);
        CHECK(mcf_hamiltonian_check(h) == MCF_OK, "%s", mcf_last_error());
        free(m);
        mcf_hamiltonian_destroy(h);
    }
    mcf_lattice_destroy(lat);
}

/* (c) */
static void test_spinors(void)
{
    mcf_lattice *lat = NULL;
    mcf_lattice_create(MCF_LATTICE_SQUARE, 5, MCF_BOUNDARY_OPEN, &lat);
    mcf_hamiltonian *h = NULL;
    mcf_hamiltonian_create(lat->sites, 1, 4, &h);
    const double t = 0.9;
    mcf_hamiltonian_factorize(h, lat, -t, 2);
    mcf_rng rng;
    mcf_rng_init(&rng, 8, 2);
    double *th = malloc(lat->sites * sizeof *th), *ph = malloc(lat->sites * sizeof *ph);
    for (size_t i = 0; i < lat->sites; i++) {
        th[i] = acos(2.0 * mcf_rng_uniform(&rng) - 1.0);
        ph[i] = 6.283185307179586 * mcf_rng_uniform(&rng);
        const double a[4] = {cos(th[i] / 2), 0.0, sin(th[i] / 2) * cos(ph[i]),
                             sin(th[i] / 2) * sin(ph[i])};
        mcf_hamiltonian_set_field(h, i, a);
    }
    double worst = 0.0;
    for (size_t i = 0; i < lat->sites; i++)
        for (int k = 0; k < 4; k++) {
            const size_t s = (size_t)k * h->dim + i;
            if (h->col[s] < 0)
                continue;
            const size_t j = (size_t)h->col[s];
            const double c = cos(th[i] / 2) * cos(th[j] / 2), g = sin(th[i] / 2) *
                             sin(th[j] / 2), d = ph[i] - ph[j];
            worst = fmax(worst, fabs(-t * (c + g * cos(d)) - h->hop_re[s]));
            worst = fmax(worst, fabs(-t * (-g * sin(d)) - h->hop_im[s]));
        }
    CHECK(worst < 1e-15, "spinor hoppings differ from -t <chi_i|chi_j> by %.2e", worst);
    free(th);
    free(ph);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* (d) */
static void test_refusals(void)
{
    mcf_lattice *lat = NULL, *two = NULL;
    mcf_lattice_create(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_PERIODIC, &lat);
    mcf_lattice_create(MCF_LATTICE_SQUARE, 2, MCF_BOUNDARY_PERIODIC, &two);
    mcf_hamiltonian *h = NULL;
    mcf_hamiltonian_create(lat->sites, 2, 4, &h);
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 0) == MCF_EINVAL &&
              contains(mcf_last_error(), "2 orbitals"), "%s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_create(lat->sites, 1, 3, &h);
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 0) == MCF_EINVAL &&
              contains(mcf_last_error(), "width >= 4"), "%s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_create(lat->sites, 1, 4, &h);
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 3) == MCF_EINVAL &&
              contains(mcf_last_error(), "rank 3"), "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_factorize(h, lat, NAN, 1) == MCF_EINVAL &&
              contains(mcf_last_error(), "not finite"), "%s", mcf_last_error());
    mcf_hamiltonian_set(h, 0, 1, -1.0, 0.0);
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 1) == MCF_EINVAL &&
              contains(mcf_last_error(), "already holds a hopping"), "%s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_create(two->sites, 1, 4, &h);
    CHECK(mcf_hamiltonian_factorize(h, two, -1.0, 1) == MCF_EINVAL &&
              contains(mcf_last_error(), "L = 2"), "%s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_create(lat->sites, 1, 4, &h);
    mcf_hamiltonian_factorize(h, lat, -1.0, 0);
    const double a[4] = {1.0, 0.0, 0.0, 0.0};
    CHECK(mcf_hamiltonian_set_field(h, 0, a) == MCF_EINVAL &&
              contains(mcf_last_error(), "rank 0"), "%s", mcf_last_error());
    const uint64_t v = h->version;
    CHECK(mcf_hamiltonian_set(h, 0, 1, -2.0, 0.0) == MCF_EINVAL &&
              contains(mcf_last_error(), "set_field") && h->version == v, "%s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_set_onsite(h, 3, 0.5) == MCF_OK, "on-site terms stay free: %s",
          mcf_last_error());
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_create(lat->sites, 1, 4, &h);
    mcf_hamiltonian_factorize(h, lat, -1.0, 1);
    const double bad[2] = {1.0, NAN};
    CHECK(mcf_hamiltonian_set_field(h, 2, bad) == MCF_EINVAL &&
              contains(mcf_last_error(), "site 2") && h->factors->field[4] == 1.0, "%s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_set_field(h, 16, a) == MCF_EINVAL &&
              contains(mcf_last_error(), "site 16"), "%s", mcf_last_error());
    /* bond 5 - 9 (slot 2: +y, and 3: -y) changed behind the field's back, Hermitian still */
    h->hop_re[2 * h->dim + 5] = -1.5;
    h->hop_re[3 * h->dim + 9] = -1.5;
    mcf_hamiltonian_touch_all(h);
    CHECK(mcf_hamiltonian_check(h) == MCF_EINVAL && contains(mcf_last_error(), "row 5") &&
              contains(mcf_last_error(), "the field gives"), "%s", mcf_last_error());
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
    mcf_lattice_destroy(two);
}

int main(void)
{
    test_layout();
    test_fields();
    test_spinors();
    test_refusals();
    return check_exit();
}
