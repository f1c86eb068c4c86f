/* test_local_change.c — the low-rank Hamiltonian change of mcf/fermion.h and its two core
 * helpers (core/sdk/local_change.c):
 *
 *   (a) mcf_local_change_check accepts valid changes (rank 1 and 2, 1 and 16 entries, the
 *       last row, complex Hermitian C, C Hermitian within its 1e-12 tolerance) and refuses
 *       each malformed one with MCF_EINVAL and a message naming the problem: rank 0 and 3,
 *       0 and 17 entries, a duplicate row, row = dim and a negative row, NaN and infinite
 *       amplitudes, non-finite C, non-Hermitian C (real and imaginary part), NULL;
 *   (b) mcf_local_change_add_dense adds Delta_ij = sum_ab u_a(i) C_ab conj(u_b(j)) to a
 *       dense matrix: against a loop of this file in complex arithmetic, to the rounding
 *       bound of the sums, the result is Hermitian to the same bound, and every entry
 *       outside the change's rows and columns keeps its bits;
 *   (c) the hopping change |o><v| + |v><o| (u = {|o>, |v>}, C = [[0, 1], [1, 0]]) gives
 *       exactly Delta_jo = v_j, Delta_oj = conj(v_j) and zero elsewhere, and the spin-block
 *       change (u = {|o up>, |o down>}) gives exactly C in that block. */
#include <complex.h>
#ifndef CMPLX /* clang before 15 with glibc's complex.h has no CMPLX */
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mcf/error.h"
#include "mcf/fermion.h"
#include "mcf/rng.h"

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* A valid rank-2 change of dimension dim >= 20: vector 0 on rows 2, 5, 11, vector 1 on
 * rows 5, 19 (shared row 5), complex amplitudes, complex Hermitian C. */
static mcf_local_change sample(void)
{
    mcf_local_change c;
    memset(&c, 0, sizeof c);
    c.rank = 2;
    c.entries[0] = 3;
    c.entries[1] = 2;
    const int64_t r0[3] = {2, 5, 11}, r1[2] = {5, 19};
    for (int e = 0; e < 3; e++) {
        c.row[0][e] = r0[e];
        c.re[0][e] = 0.5 + 0.25 * e;
        c.im[0][e] = -0.3 + 0.2 * e;
    }
    for (int e = 0; e < 2; e++) {
        c.row[1][e] = r1[e];
        c.re[1][e] = -1.0 + e;
        c.im[1][e] = 0.7;
    }
    c.c_re[0][0] = 0.4;
    c.c_re[1][1] = -1.1;
    c.c_re[0][1] = c.c_re[1][0] = 0.6;
    c.c_im[0][1] = 0.8;
    c.c_im[1][0] = -0.8;
    return c;
}

static void refuse(const mcf_local_change *c, size_t dim, const char *word, const char *what)
{
    const int rc = mcf_local_change_check(c, dim);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), word),
          "%s: rc %d, message \"%s\" (expected one containing \"%s\")", what, rc,
          mcf_last_error(), word);
    printf("%-26s refused: %s\n", what, mcf_last_error());
}

/* (a) */
static void test_check(void)
{
    const size_t dim = 20;
    mcf_local_change c = sample();
    CHECK(mcf_local_change_check(&c, dim) == MCF_OK, "the sample: %s", mcf_last_error());

    /* rank 1, a single entry in the last row */
    mcf_local_change one;
    memset(&one, 0, sizeof one);
    one.rank = 1;
    one.entries[0] = 1;
    one.row[0][0] = (int64_t)dim - 1;
    one.re[0][0] = 1.0;
    one.c_re[0][0] = -2.5;
    CHECK(mcf_local_change_check(&one, dim) == MCF_OK, "rank 1, row dim-1: %s",
          mcf_last_error());
    /* 16 entries in both vectors */
    mcf_local_change full = sample();
    for (int a = 0; a < 2; a++) {
        full.entries[a] = MCF_CHANGE_MAX_ENTRIES;
        for (int e = 0; e < MCF_CHANGE_MAX_ENTRIES; e++) {
            full.row[a][e] = (e * 7 + a) % (int64_t)dim; /* 7 and 20 coprime: distinct */
            full.re[a][e] = 1.0 / (1 + e);
            full.im[a][e] = a ? 0.1 * e : 0.0;
        }
    }
    CHECK(mcf_local_change_check(&full, dim) == MCF_OK, "16 entries: %s", mcf_last_error());
    /* C Hermitian within the tolerance 1e-12 of its largest entry (|C| max 1.1 here) */
    c = sample();
    c.c_re[1][0] += 1e-13;
    c.c_im[1][0] -= 1e-13;
    CHECK(mcf_local_change_check(&c, dim) == MCF_OK, "C off by 1e-13: %s", mcf_last_error());

    c = sample();
    c.rank = 0;
    refuse(&c, dim, "rank 0", "rank 0");
    c.rank = 3;
    refuse(&c, dim, "rank 3", "rank 3");
    c = sample();
    c.entries[1] = 0;
    refuse(&c, dim, "vector 1 has 0 entries", "0 entries");
    c = sample();
    c.entries[0] = MCF_CHANGE_MAX_ENTRIES + 1;
    refuse(&c, dim, "vector 0 has 17 entries", "17 entries");
    c = sample();
    c.row[0][2] = 2;
    refuse(&c, dim, "lists row 2 twice", "duplicate row");
    c = sample();
    c.row[1][1] = (int64_t)dim;
    refuse(&c, dim, "row 20 outside", "row = dim");
    c = sample();
    c.row[0][0] = -1;
    refuse(&c, dim, "row -1 outside", "negative row");
    c = sample();
    c.re[0][1] = NAN;
    refuse(&c, dim, "not finite", "NaN amplitude");
    c = sample();
    c.im[1][0] = INFINITY;
    refuse(&c, dim, "not finite", "infinite amplitude");
    c = sample();
    c.c_im[1][1] = NAN;
    refuse(&c, dim, "C[1][1] is not finite", "NaN in C");
    c = sample();
    c.c_re[1][0] = 0.5; /* C_01 = 0.6 + 0.8i, C_10 = 0.5 - 0.8i */
    refuse(&c, dim, "not Hermitian", "non-Hermitian C (real)");
    c = sample();
    c.c_im[1][0] = 0.8; /* C_10 = 0.6 + 0.8i = C_01: symmetric, not Hermitian */
    refuse(&c, dim, "not Hermitian", "non-Hermitian C (imag)");
    c = sample();
    c.c_im[0][0] = 1e-3; /* a diagonal entry with an imaginary part */
    refuse(&c, dim, "not Hermitian", "complex diagonal of C");
    c = sample();
    c.c_re[1][0] += 1e-9; /* beyond 1e-12 |C| */
    refuse(&c, dim, "not Hermitian", "C off by 1e-9");
    refuse(NULL, dim, "NULL", "NULL change");
    /* a change valid for dim 20 is refused for dim 19 (row 19) */
    refuse(&one, dim - 1, "outside [0, 19)", "row dim-1 of a smaller H");
}

/* Delta in complex arithmetic: out[i * n + j] += u_a(i) C_ab conj(u_b(j)), and mag the
 * sum of the magnitudes of the terms (for the rounding bound). */
static void own_delta(const mcf_local_change *c, size_t n, double complex *out, double *mag)
{
    for (int a = 0; a < c->rank; a++)
        for (int b = 0; b < c->rank; b++)
            for (int e = 0; e < c->entries[a]; e++)
                for (int f = 0; f < c->entries[b]; f++) {
                    const double complex ua = CMPLX(c->re[a][e], c->im[a][e]);
                    const double complex ub = CMPLX(c->re[b][f], c->im[b][f]);
                    const double complex C = CMPLX(c->c_re[a][b], c->c_im[a][b]);
                    const size_t q = (size_t)c->row[a][e] * n + (size_t)c->row[b][f];
                    out[q] += ua * C * conj(ub);
                    mag[q] += cabs(ua) * cabs(C) * cabs(ub);
                }
}

static void random_change(mcf_rng *rng, size_t dim, int rank, mcf_local_change *c)
{
    memset(c, 0, sizeof *c);
    c->rank = rank;
    for (int a = 0; a < rank; a++) {
        c->entries[a] = 1 + (int)mcf_rng_below(rng, MCF_CHANGE_MAX_ENTRIES);
        for (int e = 0; e < c->entries[a]; e++) {
            int fresh;
            do {
                c->row[a][e] = (int64_t)mcf_rng_below(rng, dim);
                fresh = 1;
                for (int f = 0; f < e; f++)
                    fresh &= c->row[a][f] != c->row[a][e];
            } while (!fresh);
            c->re[a][e] = mcf_rng_normal(rng);
            c->im[a][e] = mcf_rng_normal(rng);
        }
        c->c_re[a][a] = mcf_rng_normal(rng);
        for (int b = 0; b < a; b++) {
            c->c_re[a][b] = c->c_re[b][a] = mcf_rng_normal(rng);
            c->c_im[a][b] = mcf_rng_normal(rng);
            c->c_im[b][a] = -c->c_im[a][b];
        }
    }
}

/* (b) random changes added to a random Hermitian dense matrix.  Each entry of Delta is a
 * sum of at most rank^2 = 4 terms (rows are distinct within a vector, so (e, f) -> (i, j)
 * hits each (i, j) at most once per (a, b)), each the product of three complex numbers:
 * two complex multiplications, each off by at most sqrt(2) gamma_2 ~ 2 sqrt(2) u
 * (u = 2^-53) relative to the product of the magnitudes; the up to 4 additions into the
 * base entry add at most sqrt(2) u (|base| + sum |terms|) each.  So each computation is
 * within 8 sqrt(2) u (|base| + sum |terms|) < 12 u (...) of the exact entry, the two
 * differ by less than 24 u (...), and since the exact result is Hermitian (C and the base
 * are exactly Hermitian here, and the terms of (i, j) and (j, i) have equal magnitudes),
 * Delta_ij and conj(Delta_ji) differ by less than 24 u (...) too. */
static void test_add_dense(void)
{
    const size_t n = 37;
    mcf_rng rng;
    mcf_rng_init(&rng, 4242, 3);
    const double u = DBL_EPSILON / 2;
    double *m = malloc(2 * n * n * sizeof *m), *base = malloc(2 * n * n * sizeof *base);
    double complex *ref = malloc(n * n * sizeof *ref);
    double *mag = malloc(n * n * sizeof *mag);
    double worst = 0.0, worst_herm = 0.0;
    int untouched_ok = 1;
    for (int t = 0; t < 40; t++) {
        mcf_local_change c;
        random_change(&rng, n, 1 + t % 2, &c);
        CHECK(mcf_local_change_check(&c, n) == MCF_OK, "random change %d: %s", t,
              mcf_last_error());
        /* a Hermitian base, so that the sum stays Hermitian */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j <= i; j++) {
                const double re = mcf_rng_normal(&rng), im = i == j ? 0.0 : mcf_rng_normal(&rng);
                base[2 * (i * n + j)] = base[2 * (j * n + i)] = re;
                base[2 * (i * n + j) + 1] = im;
                base[2 * (j * n + i) + 1] = -im;
            }
        memcpy(m, base, 2 * n * n * sizeof *m);
        mcf_local_change_add_dense(&c, n, m);
        for (size_t q = 0; q < n * n; q++) {
            ref[q] = CMPLX(base[2 * q], base[2 * q + 1]);
            mag[q] = 0.0;
        }
        own_delta(&c, n, ref, mag);
        /* rows and columns the change touches */
        int in_rows[64] = {0};
        for (int a = 0; a < c.rank; a++)
            for (int e = 0; e < c.entries[a]; e++)
                in_rows[c.row[a][e]] = 1;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                const size_t q = i * n + j, p = j * n + i;
                const double size = hypot(base[2 * q], base[2 * q + 1]) + mag[q];
                const double bound = 24.0 * u * size;
                const double err = cabs(CMPLX(m[2 * q], m[2 * q + 1]) - ref[q]);
                const double herm = cabs(CMPLX(m[2 * q] - m[2 * p], m[2 * q + 1] + m[2 * p + 1]));
                CHECK(err <= bound, "change %d, entry (%zu, %zu): %.17g%+.17gi, own loop "
                      "%.17g%+.17gi (error %.3g > bound %.3g)", t, i, j, m[2 * q],
                      m[2 * q + 1], creal(ref[q]), cimag(ref[q]), err, bound);
                CHECK(herm <= bound, "change %d: (%zu, %zu) and (%zu, %zu) not conjugate "
                      "(%.3g > %.3g)", t, i, j, j, i, herm, bound);
                if (mag[q] > 0) {
                    worst = fmax(worst, err / (u * size));
                    worst_herm = fmax(worst_herm, herm / (u * size));
                }
                if (!in_rows[i] || !in_rows[j])
                    untouched_ok &= m[2 * q] == base[2 * q] && m[2 * q + 1] == base[2 * q + 1];
            }
    }
    CHECK(untouched_ok, "an entry outside the change's rows and columns changed");
    printf("add_dense, 40 random rank-1/2 changes (dim %zu): max error %.3g u, max "
           "non-Hermiticity %.3g u (bound 24 u; u = 2^-53 times |base| + sum |terms|)\n", n,
           worst, worst_herm);
    free(m);
    free(base);
    free(ref);
    free(mag);
}

/* (c) the two changes of a lattice model's single-site move: every product has a factor
 * 1 and at most one nonzero term per entry, so the entries are exact */
static void test_structure(void)
{
    const size_t n = 24, o = 9;
    const int64_t nb[5] = {8, 10, 3, 15, 23};
    const double vr[5] = {-1.0, 0.25, 3.5, -0.125, 0.7}, vi[5] = {0.0, -0.5, 1e-3, 2.0, -0.3};
    mcf_local_change c;
    memset(&c, 0, sizeof c);
    c.rank = 2;
    c.entries[0] = 1;
    c.row[0][0] = (int64_t)o;
    c.re[0][0] = 1.0;
    c.entries[1] = 5;
    for (int e = 0; e < 5; e++) {
        c.row[1][e] = nb[e];
        c.re[1][e] = vr[e];
        c.im[1][e] = vi[e];
    }
    c.c_re[0][1] = c.c_re[1][0] = 1.0;
    CHECK(mcf_local_change_check(&c, n) == MCF_OK, "hopping change: %s", mcf_last_error());
    double *m = calloc(2 * n * n, sizeof *m);
    mcf_local_change_add_dense(&c, n, m);
    int exact = 1, zero_elsewhere = 1;
    for (int e = 0; e < 5; e++) {
        const size_t j = (size_t)nb[e];
        exact &= m[2 * (j * n + o)] == vr[e] && m[2 * (j * n + o) + 1] == vi[e];
        exact &= m[2 * (o * n + j)] == vr[e] && m[2 * (o * n + j) + 1] == -vi[e];
        CHECK(m[2 * (j * n + o)] == vr[e] && m[2 * (j * n + o) + 1] == vi[e] &&
                  m[2 * (o * n + j)] == vr[e] && m[2 * (o * n + j) + 1] == -vi[e],
              "j = %zu: Delta_jo = %.17g%+.17gi (v_j = %g%+gi), Delta_oj = %.17g%+.17gi", j,
              m[2 * (j * n + o)], m[2 * (j * n + o) + 1], vr[e], vi[e], m[2 * (o * n + j)],
              m[2 * (o * n + j) + 1]);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int listed = 0;
            for (int e = 0; e < 5; e++)
                listed |= (i == o && j == (size_t)nb[e]) || (j == o && i == (size_t)nb[e]);
            if (!listed)
                zero_elsewhere &= m[2 * (i * n + j)] == 0.0 && m[2 * (i * n + j) + 1] == 0.0;
        }
    CHECK(zero_elsewhere, "the hopping change has entries outside row and column %zu's "
          "listed pairs (Delta_oo must be 0: C_00 = 0)", o);
    printf("hopping change |o><v| + |v><o|: Delta_jo = v_j, Delta_oj = conj(v_j) exactly: %s; "
           "zero elsewhere: %s\n", exact ? "yes" : "no", zero_elsewhere ? "yes" : "no");

    /* spin block of site 4: rows 8 (up) and 9 (down), C = that block's change */
    memset(&c, 0, sizeof c);
    c.rank = 2;
    c.entries[0] = c.entries[1] = 1;
    c.row[0][0] = 8;
    c.row[1][0] = 9;
    c.re[0][0] = c.re[1][0] = 1.0;
    c.c_re[0][0] = 0.3;
    c.c_re[1][1] = -0.45;
    c.c_re[0][1] = c.c_re[1][0] = -0.2;
    c.c_im[0][1] = 0.65;
    c.c_im[1][0] = -0.65;
    CHECK(mcf_local_change_check(&c, n) == MCF_OK, "spin block: %s", mcf_last_error());
    memset(m, 0, 2 * n * n * sizeof *m);
    mcf_local_change_add_dense(&c, n, m);
    int block = 1, nonzero = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            const size_t q = (size_t)(8 + a) * n + (size_t)(8 + b);
            block &= m[2 * q] == c.c_re[a][b] && m[2 * q + 1] == c.c_im[a][b];
        }
    for (size_t q = 0; q < n * n; q++)
        nonzero += m[2 * q] != 0.0 || m[2 * q + 1] != 0.0;
    CHECK(block && nonzero == 4, "spin block: the 2 x 2 block is C exactly (%d), %d nonzero "
          "entries (expected 4)", block, nonzero);
    free(m);
}

int main(void)
{
    test_check();
    test_add_dense();
    test_structure();
    return check_exit();
}
