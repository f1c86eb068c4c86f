/* test_hamiltonian.c — the tight-binding Hamiltonian of mcf/hamiltonian.h.
 *
 * Random sets and updates against a dense reference matrix kept alongside (structure,
 * Hermiticity, slot use, version); apply() against the dense matrix-vector product;
 * Gershgorin bounds against the exact eigenvalues (GSL gsl_eigen_herm) of random
 * Hamiltonians; the KPM scaling onto [-1 + m/2, 1 - m/2]; fixed bounds; a full row and bad
 * input refused with messages that say where; check() catching a corrupted table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "check.h"
#include "mcf/mcf.h"

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* Random Hamiltonian: `sets` random pair sets (repeats update), random on-site energies;
 * ref (2 dim^2, interleaved, row-major) and pairs (dim^2 flags) follow every successful
 * change.  Returns the number of successful changes. */
static unsigned long fill_random(mcf_hamiltonian *h, mcf_rng *rng, int sets, double *ref,
                                 int *pairs, unsigned long *refused)
{
    const size_t n = h->dim;
    unsigned long changes = 0;
    *refused = 0;
    for (size_t r = 0; r < n; r++) {
        const double e = 4.0 * mcf_rng_uniform(rng) - 2.0;
        if (mcf_hamiltonian_set_onsite(h, r, e) == MCF_OK) {
            ref[2 * (r * n + r)] = e;
            changes++;
        }
    }
    for (int s = 0; s < sets; s++) {
        const size_t i = (size_t)mcf_rng_below(rng, n);
        size_t j = (size_t)mcf_rng_below(rng, n - 1);
        if (j >= i)
            j++;
        const double re = 2.0 * mcf_rng_uniform(rng) - 1.0;
        const double im = mcf_rng_uniform(rng) < 0.3 ? 0.0 : 2.0 * mcf_rng_uniform(rng) - 1.0;
        const uint64_t v = h->version;
        const int rc = mcf_hamiltonian_set(h, i, j, re, im);
        if (rc == MCF_OK) {
            ref[2 * (i * n + j)] = re;
            ref[2 * (i * n + j) + 1] = im;
            ref[2 * (j * n + i)] = re;
            ref[2 * (j * n + i) + 1] = -im;
            pairs[i * n + j] = pairs[j * n + i] = 1;
            changes++;
            CHECK(h->version == v + 1, "set: version %llu after %llu",
                  (unsigned long long)h->version, (unsigned long long)v);
        } else {
            (*refused)++;
            CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "is full"),
                  "refused set (%zu, %zu): rc %d, %s", i, j, rc, mcf_last_error());
            CHECK(h->version == v, "a refused set changed the version");
        }
    }
    return changes;
}

/* Structure of the ELL table against the reference: every pair set so far in exactly one
 * slot of each of its rows with the reference value, used slots first (a new entry takes
 * the first free slot), empty slots col -1 with zero amplitude. */
static void check_structure(const mcf_hamiltonian *h, const double *ref, const int *pairs)
{
    const size_t n = h->dim;
    int bad = 0;
    for (size_t r = 0; r < n && !bad; r++) {
        size_t used = 0, expect = 0;
        int seen_free = 0;
        for (size_t c = 0; c < n; c++)
            expect += pairs[r * n + c] != 0;
        for (int k = 0; k < h->width; k++) {
            const size_t s = (size_t)k * n + r;
            const int32_t c = h->col[s];
            if (c < 0) {
                seen_free = 1;
                if (c != -1 || h->hop_re[s] != 0.0 || h->hop_im[s] != 0.0)
                    bad = 1;
                continue;
            }
            if (seen_free) /* "first free slot": no gaps before used slots */
                bad = 1;
            used++;
            if (!pairs[r * n + (size_t)c] || h->hop_re[s] != ref[2 * (r * n + (size_t)c)] ||
                h->hop_im[s] != ref[2 * (r * n + (size_t)c) + 1])
                bad = 1;
        }
        if (used != expect)
            bad = 1;
        CHECK(!bad, "row %zu: slots do not match the reference (%zu used, %zu expected)", r,
              used, expect);
    }
}

/* How often each (row, column) occurs in the ELL table. */
static void mark_present(const mcf_hamiltonian *h, int *present)
{
    const size_t n = h->dim;
    memset(present, 0, n * n * sizeof *present);
    for (int k = 0; k < h->width; k++)
        for (size_t r = 0; r < n; r++) {
            const int32_t c = h->col[(size_t)k * n + r];
            if (c >= 0)
                present[r * n + (size_t)c]++;
        }
}

static void eigenvalues(const mcf_hamiltonian *h, double *eval)
{
    const size_t n = h->dim;
    double *a = malloc(2 * n * n * sizeof *a);
    mcf_hamiltonian_dense(h, a);
    gsl_matrix_complex_view A = gsl_matrix_complex_view_array(a, n, n);
    gsl_vector_view ev = gsl_vector_view_array(eval, n);
    gsl_eigen_herm_workspace *w = gsl_eigen_herm_alloc(n);
    gsl_eigen_herm(&A.matrix, &ev.vector, w);
    gsl_eigen_herm_free(w);
    free(a);
}

static void test_random(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 12345, 7);
    unsigned long total_refused = 0;
    for (int trial = 0; trial < 20; trial++) {
        const size_t sites = 3 + (size_t)mcf_rng_below(&rng, 14);
        const int orbitals = 1 + (int)mcf_rng_below(&rng, 3);
        const int width = 1 + (int)mcf_rng_below(&rng, 6);
        mcf_hamiltonian *h = NULL;
        int rc = mcf_hamiltonian_create(sites, orbitals, width, &h);
        CHECK(rc == MCF_OK && h, "create(%zu, %d, %d): %s", sites, orbitals, width,
              mcf_last_error());
        if (rc)
            continue;
        const size_t n = h->dim;
        CHECK(n == sites * (size_t)orbitals && h->width == width && h->version == 0 &&
                  !h->fixed_bounds,
              "fresh Hamiltonian fields");
        double *ref = calloc(2 * n * n, sizeof *ref);
        double *dense = malloc(2 * n * n * sizeof *dense);
        int *present = malloc(n * n * sizeof *present);
        int *pairs = calloc(n * n, sizeof *pairs);
        unsigned long refused;
        const int sets = (int)(n * (size_t)width);
        const unsigned long changes = fill_random(h, &rng, sets, ref, pairs, &refused);
        total_refused += refused;
        CHECK(h->version == changes, "version %llu after %lu changes",
              (unsigned long long)h->version, changes);
        CHECK(mcf_hamiltonian_check(h) == MCF_OK, "check after random sets: %s",
              mcf_last_error());
        mcf_hamiltonian_dense(h, dense);
        int same = 1; /* by value: -0.0 == 0.0 */
        for (size_t q = 0; q < 2 * n * n; q++)
            same &= dense[q] == ref[q];
        CHECK(same, "dense() differs from the reference (trial %d)", trial);
        mark_present(h, present);
        int herm = 1, dup = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                herm &= dense[2 * (i * n + j)] == dense[2 * (j * n + i)] &&
                        dense[2 * (i * n + j) + 1] == -dense[2 * (j * n + i) + 1];
                dup |= present[i * n + j] > 1 || present[i * n + j] != present[j * n + i];
            }
        CHECK(herm, "dense matrix not Hermitian (trial %d)", trial);
        CHECK(!dup, "duplicate or unpartnered entries (trial %d)", trial);
        check_structure(h, ref, pairs);

        /* apply() against the dense product, beta != 0 and beta == 0 (NaN in y ignored) */
        double *xr = malloc(n * sizeof *xr), *xi = malloc(n * sizeof *xi);
        double *yr = malloc(n * sizeof *yr), *yi = malloc(n * sizeof *yi);
        double *y0r = malloc(n * sizeof *y0r), *y0i = malloc(n * sizeof *y0i);
        for (size_t r = 0; r < n; r++) {
            xr[r] = mcf_rng_normal(&rng);
            xi[r] = mcf_rng_normal(&rng);
            y0r[r] = yr[r] = mcf_rng_normal(&rng);
            y0i[r] = yi[r] = mcf_rng_normal(&rng);
        }
        const double alpha = 0.7, beta = -1.3;
        mcf_hamiltonian_apply(h, xr, xi, alpha, beta, yr, yi);
        double err = 0.0;
        for (size_t r = 0; r < n; r++) {
            double sr = 0.0, si = 0.0;
            for (size_t c = 0; c < n; c++) {
                const double ar = dense[2 * (r * n + c)], ai = dense[2 * (r * n + c) + 1];
                sr += ar * xr[c] - ai * xi[c];
                si += ar * xi[c] + ai * xr[c];
            }
            err = fmax(err, fabs(alpha * sr + beta * y0r[r] - yr[r]));
            err = fmax(err, fabs(alpha * si + beta * y0i[r] - yi[r]));
        }
        CHECK(err < 1e-12, "apply vs dense: max error %.3g (trial %d)", err, trial);
        for (size_t r = 0; r < n; r++)
            yr[r] = yi[r] = NAN;
        mcf_hamiltonian_apply(h, xr, xi, 1.0, 0.0, yr, yi);
        err = 0.0;
        for (size_t r = 0; r < n; r++) {
            double sr = 0.0, si = 0.0;
            for (size_t c = 0; c < n; c++) {
                const double ar = dense[2 * (r * n + c)], ai = dense[2 * (r * n + c) + 1];
                sr += ar * xr[c] - ai * xi[c];
                si += ar * xi[c] + ai * xr[c];
            }
            err = fmax(err, fabs(sr - yr[r]) + fabs(si - yi[r]));
        }
        CHECK(err < 1e-12, "apply with beta = 0: error %.3g (NaN leaked?)", err);

        /* Gershgorin bounds contain the spectrum; the scaling maps them onto
         * [-1 + m/2, 1 - m/2] and the spectrum inside */
        double *eval = malloc(n * sizeof *eval);
        eigenvalues(h, eval);
        double emin, emax, lo = INFINITY, hi = -INFINITY;
        mcf_hamiltonian_bounds(h, &emin, &emax);
        for (size_t k = 0; k < n; k++) {
            lo = fmin(lo, eval[k]);
            hi = fmax(hi, eval[k]);
        }
        const double tol = 1e-12 * fmax(1.0, fmax(fabs(emin), fabs(emax)));
        CHECK(emin <= lo + tol && hi <= emax + tol,
              "Gershgorin [%.15g, %.15g] does not contain the spectrum [%.15g, %.15g]", emin,
              emax, lo, hi);
        const double margins[] = {0.0, 0.01, 0.5};
        for (int m = 0; m < 3; m++) {
            double a, b;
            mcf_hamiltonian_scaling(h, margins[m], &a, &b);
            const double edge = 1.0 - margins[m] / 2;
            CHECK(a > 0 && fabs((emin - b) / a + edge) < 1e-13 &&
                      fabs((emax - b) / a - edge) < 1e-13,
                  "scaling margin %g: a %g b %g maps [%g, %g] to [%.15g, %.15g]", margins[m],
                  a, b, emin, emax, (emin - b) / a, (emax - b) / a);
            CHECK((lo - b) / a >= -edge - 1e-12 && (hi - b) / a <= edge + 1e-12,
                  "scaled spectrum [%g, %g] outside +-%g", (lo - b) / a, (hi - b) / a, edge);
        }
        free(eval);
        free(xr);
        free(xi);
        free(yr);
        free(yi);
        free(y0r);
        free(y0i);
        free(ref);
        free(dense);
        free(present);
        free(pairs);
        mcf_hamiltonian_destroy(h);
    }
    /* the random widths are small enough that some rows filled up */
    CHECK(total_refused > 0, "no set was refused for a full row: the test lost its point");
}

/* A periodic chain: Gershgorin gives exactly [-2|t|, 2|t|], which is also the spectrum's
 * extent when N is even (k = 0 and k = N/2). */
static void test_chain_bounds(void)
{
    const size_t N = 8;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(N, 1, 2, &h) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < N; i++)
        CHECK(mcf_hamiltonian_set(h, i, (i + 1) % N, -1.5, 0.0) == MCF_OK, "%s",
              mcf_last_error());
    double emin, emax, a, b;
    mcf_hamiltonian_bounds(h, &emin, &emax);
    CHECK(emin == -3.0 && emax == 3.0, "chain bounds [%g, %g]", emin, emax);
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    CHECK(b == 0.0 && fabs(a - 6.0 / 1.99) < 1e-15, "chain scaling a %g b %g", a, b);
    /* setting an existing pair again updates it in place: no new slot */
    CHECK(mcf_hamiltonian_set(h, 1, 0, -1.0, 0.5) == MCF_OK, "%s", mcf_last_error());
    CHECK(h->col[0 * N + 0] == 1 && h->hop_re[0] == -1.0 && h->hop_im[0] == -0.5,
          "update of (0,1) through (1,0): col %d, %g %+gi", h->col[0], h->hop_re[0],
          h->hop_im[0]);
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "%s", mcf_last_error());

    /* fixed bounds win over Gershgorin, and are checked */
    const uint64_t v = h->version;
    CHECK(mcf_hamiltonian_fix_bounds(h, -10.0, 6.0) == MCF_OK && h->version == v + 1,
          "fix_bounds: %s", mcf_last_error());
    mcf_hamiltonian_bounds(h, &emin, &emax);
    CHECK(emin == -10.0 && emax == 6.0, "fixed bounds [%g, %g]", emin, emax);
    mcf_hamiltonian_scaling(h, 0.0, &a, &b);
    CHECK(a == 8.0 && b == -2.0, "fixed-bounds scaling a %g b %g", a, b);
    CHECK(mcf_hamiltonian_fix_bounds(h, 1.0, 1.0) == MCF_EINVAL, "emin == emax accepted");
    CHECK(mcf_hamiltonian_fix_bounds(h, 2.0, 1.0) == MCF_EINVAL, "emin > emax accepted");
    CHECK(mcf_hamiltonian_fix_bounds(h, NAN, 1.0) == MCF_EINVAL, "NaN bound accepted");
    CHECK(mcf_hamiltonian_fix_bounds(h, -INFINITY, 1.0) == MCF_EINVAL, "inf bound accepted");
    CHECK(h->version == v + 1 && h->emin == -10.0, "refused fix_bounds changed h");
    mcf_hamiltonian_destroy(h);

    /* degenerate spectrum (H = c 1): a tiny positive a, nothing infinite */
    CHECK(mcf_hamiltonian_create(4, 1, 1, &h) == MCF_OK, "%s", mcf_last_error());
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    CHECK(a > 0 && a < 1e-6 && b == 0.0 && isfinite(1.0 / a), "zero H: a %g b %g", a, b);
    for (size_t r = 0; r < 4; r++)
        mcf_hamiltonian_set_onsite(h, r, 5.0);
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    CHECK(a > 0 && a < 1e-6 && b == 5.0 && 5.0 + a > 5.0, "H = 5: a %g b %g", a, b);
    mcf_hamiltonian_destroy(h);
}

static void test_refusals(void)
{
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(0, 1, 1, &h) == MCF_EINVAL && !h &&
              contains(mcf_last_error(), "sites = 0"),
          "sites 0: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_create(4, 0, 1, &h) == MCF_EINVAL && !h, "orbitals 0");
    CHECK(mcf_hamiltonian_create(4, 1, 0, &h) == MCF_EINVAL && !h, "width 0");
    CHECK(mcf_hamiltonian_create((size_t)1 << 31, 2, 1, &h) == MCF_EINVAL && !h &&
              contains(mcf_last_error(), "32-bit"),
          "too large: %s", mcf_last_error());

    CHECK(mcf_hamiltonian_create(3, 2, 2, &h) == MCF_OK, "%s", mcf_last_error());
    const size_t n = h->dim; /* 6 */
    double *before = malloc(2 * n * n * sizeof *before);
    double *after = malloc(2 * n * n * sizeof *after);
    CHECK(mcf_hamiltonian_set(h, 0, 1, 1.0, 0.5) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set(h, 0, 2, 1.0, 0.0) == MCF_OK, "%s", mcf_last_error());
    mcf_hamiltonian_dense(h, before);
    uint64_t v = h->version;

    /* full row i: the message names the row and the width */
    int rc = mcf_hamiltonian_set(h, 0, 3, 1.0, 0.0);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 0 is full") &&
              contains(mcf_last_error(), "all 2 slots"),
          "full row 0: rc %d, %s", rc, mcf_last_error());
    /* full partner row j while row i has room: nothing written to row i either */
    CHECK(mcf_hamiltonian_set(h, 1, 5, 2.0, 0.0) == MCF_OK, "%s", mcf_last_error());
    v = h->version;
    mcf_hamiltonian_dense(h, before);
    rc = mcf_hamiltonian_set(h, 4, 1, 1.0, 0.0);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 1 is full") &&
              contains(mcf_last_error(), "all 2 slots"),
          "full row 1: rc %d, %s", rc, mcf_last_error());
    mcf_hamiltonian_dense(h, after);
    CHECK(h->version == v && memcmp(before, after, 2 * n * n * sizeof *after) == 0 &&
              h->col[4] == -1,
          "a refused set changed the Hamiltonian");
    /* but an update of a present pair in a full row works */
    CHECK(mcf_hamiltonian_set(h, 1, 0, -3.0, 1.0) == MCF_OK && h->version == v + 1, "%s",
          mcf_last_error());
    v = h->version;

    rc = mcf_hamiltonian_set(h, 2, 2, 1.0, 0.0);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "diagonal"), "i == j: %s",
          mcf_last_error());
    rc = mcf_hamiltonian_set(h, 2, 6, 1.0, 0.0);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "(2, 6)") &&
              contains(mcf_last_error(), "out of range"),
          "j out of range: %s", mcf_last_error());
    rc = mcf_hamiltonian_set(h, 7, 2, 1.0, 0.0);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "out of range"), "i out of range");
    CHECK(mcf_hamiltonian_set(h, 2, 3, NAN, 0.0) == MCF_EINVAL &&
              contains(mcf_last_error(), "not finite"),
          "NaN: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_set(h, 2, 3, 0.0, INFINITY) == MCF_EINVAL, "inf accepted");
    CHECK(mcf_hamiltonian_set_onsite(h, 6, 1.0) == MCF_EINVAL &&
              contains(mcf_last_error(), "row 6"),
          "onsite out of range: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_set_onsite(h, 1, NAN) == MCF_EINVAL &&
              contains(mcf_last_error(), "row 1"),
          "onsite NaN: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_set(NULL, 0, 1, 1.0, 0.0) == MCF_EINVAL, "NULL h accepted");
    CHECK(h->version == v, "refused calls changed the version");
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "%s", mcf_last_error());

    /* check() catches what set() can never produce */
    const double keep = h->hop_im[0];
    h->hop_im[0] = keep + 1.0; /* (0,1) no longer the conjugate of (1,0) */
    rc = mcf_hamiltonian_check(h);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 0") &&
              contains(mcf_last_error(), "Hermitian"),
          "broken conjugate: %s", mcf_last_error());
    h->hop_im[0] = keep;
    const int32_t keepc = h->col[n + 0]; /* slot 1 of row 0: column 2 */
    h->col[n + 0] = h->col[0];           /* duplicate column */
    rc = mcf_hamiltonian_check(h);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 0") &&
              contains(mcf_last_error(), "appears in slots"),
          "duplicate column: %s", mcf_last_error());
    h->col[n + 0] = keepc;
    h->hop_re[n + 3] = 1.0; /* amplitude in an empty slot of row 3 */
    rc = mcf_hamiltonian_check(h);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 3") &&
              contains(mcf_last_error(), "empty"),
          "amplitude in empty slot: %s", mcf_last_error());
    h->hop_re[n + 3] = 0.0;
    h->onsite[4] = NAN;
    rc = mcf_hamiltonian_check(h);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 4"), "NaN onsite: %s",
          mcf_last_error());
    h->onsite[4] = 0.0;
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "restored: %s", mcf_last_error());
    free(before);
    free(after);
    mcf_hamiltonian_destroy(h);
}

/* Compares rows[0..n) with the n values of want (ascending). */
static int rows_are(const size_t *rows, long n, const size_t *want, long n_want)
{
    if (n != n_want)
        return 0;
    for (long k = 0; k < n; k++)
        if (rows[k] != want[k])
            return 0;
    return 1;
}

/* The change journal: rows after set/set_onsite, distinct and ascending, since ==
 * version, fix_bounds, ring overflow, max_rows, touch_all, since > version. */
static void test_journal(void)
{
    mcf_hamiltonian *h;
    const size_t N = 64;
    CHECK(mcf_hamiltonian_create(N, 1, 4, &h) == MCF_OK, "%s", mcf_last_error());
    if (!h)
        return;
    size_t rows[64];
    CHECK(h->journal != NULL, "create() left the journal NULL");
    CHECK(mcf_hamiltonian_changed_rows(h, 0, rows, 64) == 0, "fresh: since == version");

    uint64_t v0 = h->version;
    CHECK(mcf_hamiltonian_set(h, 9, 3, -1.0, 0.5) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set_onsite(h, 40, 2.0) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set(h, 3, 9, -2.0, 0.0) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set_onsite(h, 9, 1.0) == MCF_OK, "%s", mcf_last_error());
    {
        const size_t want[] = {3, 9, 40};
        long n = mcf_hamiltonian_changed_rows(h, v0, rows, 64);
        CHECK(rows_are(rows, n, want, 3), "rows since %llu: n = %ld (want 3, 9, 40)",
              (unsigned long long)v0, n);
    }
    {
        const size_t want[] = {3, 9}; /* the last two changes only */
        long n = mcf_hamiltonian_changed_rows(h, h->version - 2, rows, 64);
        CHECK(rows_are(rows, n, want, 2), "rows of the last two changes: n = %ld", n);
    }
    CHECK(mcf_hamiltonian_changed_rows(h, h->version, rows, 64) == 0, "since == version");
    CHECK(mcf_hamiltonian_changed_rows(h, h->version, NULL, 0) == 0,
          "since == version with no buffer");
    CHECK(mcf_hamiltonian_changed_rows(h, v0, rows, 2) == -1, "3 rows into max_rows 2");
    CHECK(mcf_hamiltonian_changed_rows(h, v0, rows, 3) == 3, "3 rows into max_rows 3");
    CHECK(mcf_hamiltonian_changed_rows(h, h->version + 1, rows, 64) == -1, "since > version");
    CHECK(mcf_hamiltonian_changed_rows(NULL, 0, rows, 64) == -1, "NULL Hamiltonian");

    /* a refused set records nothing; fix_bounds changes no row */
    uint64_t v1 = h->version;
    CHECK(mcf_hamiltonian_set(h, 5, 5, 1.0, 0.0) == MCF_EINVAL, "diagonal set accepted");
    CHECK(mcf_hamiltonian_fix_bounds(h, -10.0, 10.0) == MCF_OK, "%s", mcf_last_error());
    CHECK(h->version == v1 + 1, "fix_bounds no longer bumps the version: update the header");
    CHECK(mcf_hamiltonian_changed_rows(h, v1, rows, 64) == 0, "fix_bounds changed rows");
    CHECK(mcf_hamiltonian_set_onsite(h, 7, 0.5) == MCF_OK, "%s", mcf_last_error());
    {
        const size_t want[] = {7};
        long n = mcf_hamiltonian_changed_rows(h, v1, rows, 64);
        CHECK(rows_are(rows, n, want, 1), "rows across fix_bounds: n = %ld", n);
    }

    /* many records, few distinct rows: more records than max_rows is fine */
    uint64_t v2 = h->version;
    for (int k = 0; k < 1000; k++)
        CHECK(mcf_hamiltonian_set_onsite(h, (size_t)(k % 5) * 10, k) == MCF_OK, "%s",
              mcf_last_error());
    {
        const size_t want[] = {0, 10, 20, 30, 40};
        long n = mcf_hamiltonian_changed_rows(h, v2, rows, 5);
        CHECK(rows_are(rows, n, want, 5), "1000 changes of 5 rows: n = %ld", n);
    }

    /* ring overflow: a range whose oldest records were overwritten */
    uint64_t v3 = h->version;
    for (int k = 0; k < MCF_HAMILTONIAN_JOURNAL; k++) /* 2 records each */
        CHECK(mcf_hamiltonian_set(h, 1, 2, -1.0 - k, 0.0) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_changed_rows(h, v3, rows, 64) == -1, "overwritten records: not -1");
    CHECK(mcf_hamiltonian_changed_rows(h, v2, rows, 64) == -1, "older range: not -1");
    {
        const size_t want[] = {1, 2};
        uint64_t recent = h->version - MCF_HAMILTONIAN_JOURNAL / 2;
        long n = mcf_hamiltonian_changed_rows(h, recent, rows, 64);
        CHECK(rows_are(rows, n, want, 2), "the last %d changes (a full ring): n = %ld",
              MCF_HAMILTONIAN_JOURNAL / 2, n);
        n = mcf_hamiltonian_changed_rows(h, recent - 1, rows, 64);
        CHECK(n == -1, "one change beyond a full ring: n = %ld", n);
    }

    /* touch_all: everything before it answers -1; later changes tracked from it */
    uint64_t v4 = h->version;
    for (size_t r = 0; r < N; r++)
        h->onsite[r] = 0.25; /* a direct write */
    mcf_hamiltonian_touch_all(h);
    CHECK(h->version == v4 + 1, "touch_all: version %llu after %llu",
          (unsigned long long)h->version, (unsigned long long)v4);
    CHECK(mcf_hamiltonian_changed_rows(h, v4, rows, 64) == -1, "since before touch_all");
    CHECK(mcf_hamiltonian_changed_rows(h, h->version, rows, 64) == 0, "since == touch_all");
    uint64_t v5 = h->version;
    CHECK(mcf_hamiltonian_set(h, 60, 61, 0.5, 0.0) == MCF_OK, "%s", mcf_last_error());
    {
        const size_t want[] = {60, 61};
        long n = mcf_hamiltonian_changed_rows(h, v5, rows, 64);
        CHECK(rows_are(rows, n, want, 2), "after touch_all: n = %ld", n);
    }
    CHECK(mcf_hamiltonian_changed_rows(h, v5 - 1, rows, 64) == -1, "range over touch_all");
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_touch_all(NULL); /* harmless */
}

int main(void)
{
    test_random();
    test_chain_bounds();
    test_refusals();
    test_journal();
    return check_exit();
}
