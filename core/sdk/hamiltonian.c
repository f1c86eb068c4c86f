/* hamiltonian.c — the tight-binding Hamiltonian of mcf/hamiltonian.h.
 *
 * Layout (the header is the contract): a real diagonal `onsite[dim]` and an ELL table of
 * `width` slots per row, structure-of-arrays and slot-major, entry k of row r at index
 * k * dim + r of col, hop_re and hop_im.  An empty slot has col = -1 and amplitude 0.
 *
 * Choices made here, beyond the header:
 *   - A new Hamiltonian has version 0; every successful set(), set_onsite() and
 *     fix_bounds() adds 1 (also when the value written equals the old one: the version
 *     says "something was written", and comparing values would cost more than it saves).
 *     A refused call changes nothing, the version included.
 *   - set() with a zero amplitude keeps the pair's slots (col stays set, amplitude 0):
 *     there is no removal, so free slots are always the last ones of a row, and a bond that
 *     is switched off and on again does not move.
 *   - set() updates the entry of each of the two rows where it exists and takes the first
 *     free slot where it does not; when a row has no free slot, nothing is written.
 *   - scaling() with degenerate bounds (emax == emin, e.g. H = c 1): a = sqrt(DBL_EPSILON)
 *     max(|b|, 1) > 0, so (H - b) / a is finite (0 for H = b 1) and a grid E = a x + b
 *     still has distinct points; nothing divides by zero.
 *   - apply() follows BLAS: with beta == 0 the old y is not read (NaN in y does not
 *     propagate).
 *   - dense() adds up entries of one row that share a column, the same sum apply() forms;
 *     check() refuses such rows.
 *   - The journal is a ring of MCF_HAMILTONIAN_JOURNAL (version, row) records, written in
 *     version order, with two watermarks: `lost`, the version of the newest record
 *     overwritten, and `floor`, the version of the last touch_all() (0 at creation).  A
 *     query for `since` is answerable exactly when since >= lost and since >= floor: then
 *     every record with a version above `since` is still in the ring, and it is the
 *     ring's newest records, so the query walks back from the newest and stops at the
 *     first record with version <= since.  A refused set() records nothing; a set() of
 *     an existing value records its rows (as it bumps the version).  Rows are stored as
 *     uint32_t (dim fits 32 bits, see create()). */
#include "mcf/hamiltonian.h"
#include "mcf/error.h"
#include "mcf/lattice.h"

#include "hamiltonian_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mcf_hamiltonian_journal {
    uint64_t version[MCF_HAMILTONIAN_JOURNAL];
    uint32_t row[MCF_HAMILTONIAN_JOURNAL];
    uint64_t written; /* records ever written; the newest is at (written - 1) % capacity */
    uint64_t lost;    /* version of the newest overwritten record (0: none) */
    uint64_t floor;   /* version of the last touch_all() (0: none) */
};

static void journal_record(mcf_hamiltonian *h, size_t row)
{
    struct mcf_hamiltonian_journal *j = h->journal;
    if (!j)
        return;
    const size_t at = (size_t)(j->written % MCF_HAMILTONIAN_JOURNAL);
    if (j->written >= MCF_HAMILTONIAN_JOURNAL)
        j->lost = j->version[at];
    j->version[at] = h->version;
    j->row[at] = (uint32_t)row;
    j->written++;
}

int mcf_hamiltonian_create(size_t sites, int orbitals, int width, mcf_hamiltonian **out)
{
    if (!out)
        return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_create: out is NULL");
    *out = NULL;
    if (sites < 1 || orbitals < 1 || width < 1)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_create: sites = %zu, orbitals = %d, width = %d; "
                        "each must be >= 1",
                        sites, orbitals, width);
    /* col holds 32-bit row indices, so dim must fit; width x dim must fit size_t */
    if (sites > (size_t)INT32_MAX / (size_t)orbitals)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_create: sites x orbitals = %zu x %d exceeds %ld, the "
                        "largest dimension 32-bit column indices can address",
                        sites, orbitals, (long)INT32_MAX);
    const size_t dim = sites * (size_t)orbitals;
    if ((size_t)width > SIZE_MAX / sizeof(double) / dim)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_create: an ELL table of width %d for dimension %zu "
                        "does not fit in memory",
                        width, dim);
    const size_t slots = (size_t)width * dim;
    mcf_hamiltonian *h = calloc(1, sizeof *h);
    if (!h)
        return mcf_fail(MCF_ENOMEM, "mcf_hamiltonian_create: out of memory");
    h->sites = sites;
    h->orbitals = orbitals;
    h->dim = dim;
    h->width = width;
    h->col = malloc(slots * sizeof *h->col);
    h->hop_re = calloc(slots, sizeof *h->hop_re);
    h->hop_im = calloc(slots, sizeof *h->hop_im);
    h->onsite = calloc(dim, sizeof *h->onsite);
    h->journal = calloc(1, sizeof *h->journal);
    if (!h->col || !h->hop_re || !h->hop_im || !h->onsite || !h->journal) {
        mcf_hamiltonian_destroy(h);
        return mcf_fail(MCF_ENOMEM,
                        "mcf_hamiltonian_create: out of memory for dimension %zu with %d "
                        "slots per row (%zu bytes)",
                        dim, width,
                        slots * (sizeof(int32_t) + 2 * sizeof(double)) +
                            dim * sizeof(double) + sizeof(struct mcf_hamiltonian_journal));
    }
    for (size_t s = 0; s < slots; s++)
        h->col[s] = -1;
    h->fixed_bounds = 0;
    h->emin = h->emax = 0.0;
    h->version = 0;
    *out = h;
    return MCF_OK;
}

/* frees h->factors (NULL is ignored) */
static void factors_free(const struct mcf_hamiltonian_factors *f)
{
    if (!f)
        return;
    free((void *)f->neighbours);
    free((void *)f->field);
    free((void *)f);
}

/* mcf_hamiltonian_check's part for factorized hoppings: every slot holds the lattice's
 * neighbour and the field's entry, bit for bit (MCF_OK without factors) */
static int factors_check(const mcf_hamiltonian *h)
{
    const struct mcf_hamiltonian_factors *f = h->factors;
    if (!f)
        return MCF_OK;
    const int z = f->coordination, rank = f->rank;
    for (size_t i = 0; i < h->sites; i++)
        for (int k = 0; k < h->width; k++) {
            const size_t s = (size_t)k * h->dim + i;
            const int32_t want = k < z ? f->neighbours[i * (size_t)z + (size_t)k] : -1;
            if (h->col[s] != want)
                return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_check: row %zu: slot %d holds "
                                "column %ld, but the factorized hoppings put neighbour %ld "
                                "there (was the table written with set()?)", i, k,
                                (long)h->col[s], (long)want);
            if (want < 0)
                continue;
            double re, im;
            mcf_factors_hop(rank, f->amplitude, rank ? f->field + 2 * (size_t)rank * i : NULL,
                            rank ? f->field + 2 * (size_t)rank * (size_t)want : NULL, &re,
                            &im);
            if (h->hop_re[s] != re || h->hop_im[s] != im)
                return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_check: row %zu: entry (%zu, %ld) "
                                "= %.17g + %.17gi, but the field gives %.17g + %.17gi", i, i,
                                (long)want, h->hop_re[s], h->hop_im[s], re, im);
        }
    return MCF_OK;
}

void mcf_hamiltonian_destroy(mcf_hamiltonian *h)
{
    if (!h)
        return;
    free(h->col);
    free(h->hop_re);
    free(h->hop_im);
    free(h->onsite);
    free(h->journal);
    factors_free(h->factors);
    free(h);
}

/* The slot of row r that holds column c, or -1. */
static int find_slot(const mcf_hamiltonian *h, size_t r, int32_t c)
{
    for (int k = 0; k < h->width; k++)
        if (h->col[(size_t)k * h->dim + r] == c)
            return k;
    return -1;
}

int mcf_hamiltonian_set(mcf_hamiltonian *h, size_t i, size_t j, double re, double im)
{
    if (h && h->factors)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set: entry (%zu, %zu): this Hamiltonian's hoppings "
                        "are factorized (mcf_hamiltonian_factorize); change them through "
                        "the field, with mcf_hamiltonian_set_field()",
                        i, j);
    return mcfi_hamiltonian_put(h, i, j, re, im);
}

int mcfi_hamiltonian_put(mcf_hamiltonian *h, size_t i, size_t j, double re, double im)
{
    if (!h)
        return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_set: the Hamiltonian is NULL");
    if (i >= h->dim || j >= h->dim)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set: entry (%zu, %zu) is out of range; rows and "
                        "columns run from 0 to %zu (dimension %zu)",
                        i, j, h->dim - 1, h->dim);
    if (i == j)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set: entry (%zu, %zu) is on the diagonal; set "
                        "diagonal entries with mcf_hamiltonian_set_onsite()",
                        i, j);
    if (!isfinite(re) || !isfinite(im))
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set: entry (%zu, %zu) = %g + %gi is not finite", i, j,
                        re, im);
    int ki = find_slot(h, i, (int32_t)j);
    int kj = find_slot(h, j, (int32_t)i);
    if (ki < 0)
        ki = find_slot(h, i, -1);
    if (ki < 0)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set: row %zu is full: all %d slots of the ELL table "
                        "are taken, so entry (%zu, %zu) cannot be added; create the "
                        "Hamiltonian with a larger width",
                        i, h->width, i, j);
    if (kj < 0)
        kj = find_slot(h, j, -1);
    if (kj < 0)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set: row %zu is full: all %d slots of the ELL table "
                        "are taken, so entry (%zu, %zu) cannot be added; create the "
                        "Hamiltonian with a larger width",
                        j, h->width, j, i);
    const size_t si = (size_t)ki * h->dim + i, sj = (size_t)kj * h->dim + j;
    h->col[si] = (int32_t)j;
    h->hop_re[si] = re;
    h->hop_im[si] = im;
    h->col[sj] = (int32_t)i;
    h->hop_re[sj] = re;
    h->hop_im[sj] = -im;
    h->version++;
    journal_record(h, i);
    journal_record(h, j);
    return MCF_OK;
}

int mcf_hamiltonian_set_hopping(mcf_hamiltonian *h, const mcf_lattice *lat, double t)
{
    if (!h || !lat || lat->sites != h->sites)
        return mcf_fail(MCF_EINVAL, "hamiltonian: set_hopping needs a lattice of the "
                        "Hamiltonian's %zu sites", h ? h->sites : (size_t)0);
    const size_t z = (size_t)lat->coordination;
    const size_t orb = (size_t)h->orbitals;
    for (size_t i = 0; i < lat->sites; i++)
        for (size_t s = 0; s < z; s += 2) { /* even slots: every bond once */
            const int32_t j = lat->neighbours[i * z + s];
            if (j < 0)
                continue;
            if (lat->boundary == MCF_BOUNDARY_PERIODIC && lat->L < 3 &&
                lat->kind != MCF_LATTICE_BCC)
                return mcf_fail(MCF_EINVAL, "hamiltonian: set_hopping on a periodic L = %ld "
                                "lattice, whose table lists a neighbour twice; use L >= 3 "
                                "or open boundaries", lat->L);
            for (size_t o = 0; o < orb; o++) {
                int rc = mcf_hamiltonian_set(h, i * orb + o, (size_t)j * orb + o, -t, 0.0);
                if (rc)
                    return rc;
            }
        }
    return MCF_OK;
}

int mcf_hamiltonian_set_onsite(mcf_hamiltonian *h, size_t r, double e)
{
    if (!h)
        return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_set_onsite: the Hamiltonian is NULL");
    if (r >= h->dim)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set_onsite: row %zu is out of range; rows run from 0 "
                        "to %zu (dimension %zu)",
                        r, h->dim - 1, h->dim);
    if (!isfinite(e))
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_set_onsite: on-site energy %g of row %zu is not "
                        "finite",
                        e, r);
    h->onsite[r] = e;
    h->version++;
    journal_record(h, r);
    return MCF_OK;
}

int mcf_hamiltonian_fix_bounds(mcf_hamiltonian *h, double emin, double emax)
{
    if (!h)
        return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_fix_bounds: the Hamiltonian is NULL");
    if (!isfinite(emin) || !isfinite(emax) || !(emin < emax))
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_fix_bounds: bounds [%g, %g] are invalid; both must be "
                        "finite with emin < emax",
                        emin, emax);
    h->fixed_bounds = 1;
    h->emin = emin;
    h->emax = emax;
    h->version++;
    return MCF_OK;
}

static int compare_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n) and removes duplicates; returns the distinct count. */
static size_t sort_unique(size_t *v, size_t n)
{
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, compare_size);
    size_t m = 1;
    for (size_t k = 1; k < n; k++)
        if (v[k] != v[m - 1])
            v[m++] = v[k];
    return m;
}

long mcf_hamiltonian_changed_rows(const mcf_hamiltonian *h, uint64_t since, size_t *rows,
                                  size_t max_rows)
{
    if (!h || !h->journal)
        return -1;
    if (since == h->version)
        return 0;
    const struct mcf_hamiltonian_journal *j = h->journal;
    if (since > h->version || since < j->floor || since < j->lost)
        return -1;
    /* the records above `since` are the newest n of the ring */
    const uint64_t kept = j->written < MCF_HAMILTONIAN_JOURNAL ? j->written
                                                                : MCF_HAMILTONIAN_JOURNAL;
    size_t n = 0;
    while (n < kept &&
           j->version[(size_t)((j->written - 1 - n) % MCF_HAMILTONIAN_JOURNAL)] > since)
        n++;
    if (n == 0)
        return 0; /* only fix_bounds() since */
    size_t *buf = n <= max_rows ? rows : malloc(n * sizeof *buf);
    if (!buf)
        return -1;
    for (size_t k = 0; k < n; k++)
        buf[k] = j->row[(size_t)((j->written - 1 - k) % MCF_HAMILTONIAN_JOURNAL)];
    const size_t m = sort_unique(buf, n);
    long result = -1;
    if (m <= max_rows) {
        if (buf != rows)
            memcpy(rows, buf, m * sizeof *rows);
        result = (long)m;
    }
    if (buf != rows)
        free(buf);
    return result;
}

void mcf_hamiltonian_touch_all(mcf_hamiltonian *h)
{
    if (!h)
        return;
    h->version++;
    if (h->journal)
        h->journal->floor = h->version;
}

void mcf_hamiltonian_bounds(const mcf_hamiltonian *h, double *emin, double *emax)
{
    if (h->fixed_bounds) {
        *emin = h->emin;
        *emax = h->emax;
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t r = 0; r < h->dim; r++) {
        double radius = 0.0;
        for (int k = 0; k < h->width; k++) {
            const size_t s = (size_t)k * h->dim + r;
            if (h->col[s] >= 0)
                radius += hypot(h->hop_re[s], h->hop_im[s]);
        }
        const double e = h->onsite[r];
        if (e - radius < lo)
            lo = e - radius;
        if (e + radius > hi)
            hi = e + radius;
    }
    *emin = lo;
    *emax = hi;
}

void mcf_hamiltonian_scaling(const mcf_hamiltonian *h, double margin, double *a, double *b)
{
    double emin, emax;
    mcf_hamiltonian_bounds(h, &emin, &emax);
    const double mid = 0.5 * (emax + emin);
    double half = (emax - emin) / (2.0 - margin);
    if (!(half > 0.0)) /* degenerate spectrum: see the top of this file */
        half = sqrt(DBL_EPSILON) * fmax(fabs(mid), 1.0);
    *a = half;
    *b = mid;
}

void mcf_hamiltonian_apply(const mcf_hamiltonian *h, const double *x_re, const double *x_im,
                           double alpha, double beta, double *y_re, double *y_im)
{
    const size_t dim = h->dim;
    for (size_t r = 0; r < dim; r++) {
        double sr = h->onsite[r] * x_re[r];
        double si = h->onsite[r] * x_im[r];
        for (int k = 0; k < h->width; k++) {
            const size_t s = (size_t)k * dim + r;
            const int32_t c = h->col[s];
            if (c < 0)
                continue;
            const double hr = h->hop_re[s], hi = h->hop_im[s];
            sr += hr * x_re[c] - hi * x_im[c];
            si += hr * x_im[c] + hi * x_re[c];
        }
        if (beta == 0.0) {
            y_re[r] = alpha * sr;
            y_im[r] = alpha * si;
        } else {
            y_re[r] = alpha * sr + beta * y_re[r];
            y_im[r] = alpha * si + beta * y_im[r];
        }
    }
}

void mcf_hamiltonian_dense(const mcf_hamiltonian *h, double *out)
{
    const size_t dim = h->dim;
    memset(out, 0, 2 * dim * dim * sizeof *out);
    for (size_t r = 0; r < dim; r++) {
        out[2 * (r * dim + r)] = h->onsite[r];
        for (int k = 0; k < h->width; k++) {
            const size_t s = (size_t)k * dim + r;
            const int32_t c = h->col[s];
            if (c < 0)
                continue;
            out[2 * (r * dim + (size_t)c)] += h->hop_re[s];
            out[2 * (r * dim + (size_t)c) + 1] += h->hop_im[s];
        }
    }
}

int mcf_hamiltonian_check(const mcf_hamiltonian *h)
{
    if (!h)
        return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_check: the Hamiltonian is NULL");
    if (h->sites < 1 || h->orbitals < 1 || h->width < 1 || h->dim != h->sites * (size_t)h->orbitals)
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_check: inconsistent shape: sites %zu x orbitals %d "
                        "!= dim %zu, or width %d < 1",
                        h->sites, h->orbitals, h->dim, h->width);
    if (!h->col || !h->hop_re || !h->hop_im || !h->onsite)
        return mcf_fail(MCF_EINVAL, "mcf_hamiltonian_check: a table of the Hamiltonian is NULL");
    if (h->fixed_bounds && (!isfinite(h->emin) || !isfinite(h->emax) || !(h->emin < h->emax)))
        return mcf_fail(MCF_EINVAL,
                        "mcf_hamiltonian_check: fixed bounds [%g, %g] are invalid (need "
                        "finite emin < emax)",
                        h->emin, h->emax);
    const size_t dim = h->dim;
    for (size_t r = 0; r < dim; r++) {
        if (!isfinite(h->onsite[r]))
            return mcf_fail(MCF_EINVAL,
                            "mcf_hamiltonian_check: row %zu: on-site energy %g is not finite",
                            r, h->onsite[r]);
        for (int k = 0; k < h->width; k++) {
            const size_t s = (size_t)k * dim + r;
            const int32_t c = h->col[s];
            const double re = h->hop_re[s], im = h->hop_im[s];
            if (c == -1) {
                if (re != 0.0 || im != 0.0)
                    return mcf_fail(MCF_EINVAL,
                                    "mcf_hamiltonian_check: row %zu: slot %d is empty (col "
                                    "-1) but holds amplitude %g + %gi",
                                    r, k, re, im);
                continue;
            }
            if (c < -1 || (size_t)c >= dim)
                return mcf_fail(MCF_EINVAL,
                                "mcf_hamiltonian_check: row %zu: slot %d has column %ld, "
                                "outside 0..%zu",
                                r, k, (long)c, dim - 1);
            if ((size_t)c == r)
                return mcf_fail(MCF_EINVAL,
                                "mcf_hamiltonian_check: row %zu: slot %d is on the diagonal; "
                                "diagonal entries belong in onsite",
                                r, k);
            if (!isfinite(re) || !isfinite(im))
                return mcf_fail(MCF_EINVAL,
                                "mcf_hamiltonian_check: row %zu: entry (%zu, %ld) = %g + %gi "
                                "is not finite",
                                r, r, (long)c, re, im);
            for (int q = 0; q < k; q++)
                if (h->col[(size_t)q * dim + r] == c)
                    return mcf_fail(MCF_EINVAL,
                                    "mcf_hamiltonian_check: row %zu: column %ld appears in "
                                    "slots %d and %d",
                                    r, (long)c, q, k);
            const int p = find_slot(h, (size_t)c, (int32_t)r);
            if (p < 0)
                return mcf_fail(MCF_EINVAL,
                                "mcf_hamiltonian_check: row %zu: entry (%zu, %ld) has no "
                                "partner (%ld, %zu): H is not Hermitian",
                                r, r, (long)c, (long)c, r);
            const size_t ps = (size_t)p * dim + (size_t)c;
            if (h->hop_re[ps] != re || h->hop_im[ps] != -im)
                return mcf_fail(MCF_EINVAL,
                                "mcf_hamiltonian_check: row %zu: entry (%zu, %ld) = %g + %gi "
                                "but its partner (%ld, %zu) = %g + %gi is not its conjugate: "
                                "H is not Hermitian",
                                r, r, (long)c, re, im, (long)c, r, h->hop_re[ps],
                                h->hop_im[ps]);
        }
    }
    return factors_check(h);
}
