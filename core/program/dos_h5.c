/* dos_h5.c — what `mcf dos` reads of DIR/results.h5 (dos.h): the chains' scan points and
 * bin weights, the scan columns, the curves marked chebyshev_moments and moment_scale,
 * the density curves beside them and the names of the geometric-mean curves.
 *
 * HDF5 parses no byte that mcf did not write: the file is read whole through the bounded
 * opener (a regular file, no link; a FIFO cannot block) and its digest checked
 * (mcfe_results_h5_load, in dos_sandbox.c), and HDF5 opens that image in memory, in a child
 * process (dos_sandbox.c), so the file checked is the file parsed and a file crafted to
 * match its digest cannot crash or hang mcf.  Every extent is checked before anything is
 * allocated for it: the
 * chains, walkers and bins against the run's configuration, every other count against
 * what the file's bytes can hold, with overflow-checked products; every value that later
 * arithmetic relies on (bin weights, the moment scale) is checked too.  A failure names
 * the file and the object.  Without HDF5 in the build mcfi_dos_parse says so. */
#define _POSIX_C_SOURCE 200809L
#include "dos.h"

#include "mcf/error.h"

#include <stdlib.h>
#include <string.h>

void mcfi_dos_input_free(mcfi_dos_input *in)
{
    if (!in)
        return;
    free(in->evaluator);
    free(in->point);
    free(in->weights);
    for (size_t j = 0; j < in->n_scan; j++)
        free(in->scan_names[j]);
    for (size_t j = 0; in->scan_values && j < in->n_scan * in->points; j++)
        free(in->scan_values[j]);
    free(in->scan_names);
    free(in->scan_values);
    mcfi_dos_curve *all[5] = {in->moments, in->density, &in->scale, in->response, in->spectral};
    size_t counts[5] = {in->n_moments, in->n_moments, 1, in->n_response, in->n_spectral};
    for (int q = 0; q < 5; q++)
        for (size_t k = 0; all[q] && k < counts[q]; k++) {
            free(all[q][k].name);
            free(all[q][k].chain);
            free(all[q][k].bins);
        }
    free(in->moments);
    free(in->density);
    free(in->response);
    free(in->spectral);
    for (size_t j = 0; j < in->n_geometric; j++)
        free(in->geometric[j]);
    free(in->geometric);
    memset(in, 0, sizeof *in);
}

#ifndef MCF_HAVE_HDF5

int mcfi_dos_parse(const char *path, const unsigned char *image, size_t size,
                   const mcfi_dos_shape *want, mcfi_dos_input *in)
{
    (void)image;
    (void)size;
    (void)want;
    memset(in, 0, sizeof *in);
    return mcf_fail(MCF_EIO, "%s: this mcf was built without HDF5, so it cannot read "
                    "results.h5; rebuild it with libhdf5-dev installed (cmake -DMCF_HDF5=ON)",
                    path);
}

#else

#include <hdf5.h>
#include <math.h>
#include <stdio.h>

/* the reader's state: the file, its name for messages, its size, the first failure */
typedef struct rd {
    hid_t f;
    const char *path;
    size_t bytes;
    int rc;
} rd;

static int bad(rd *r, const char *object, const char *what)
{
    if (!r->rc)
        r->rc = mcf_fail(MCF_EFORMAT, "%s: %s: %s (a damaged file, or not mcf's results.h5)",
                         r->path, object, what);
    return r->rc;
}

/* Whether n values of `size` bytes (n = a x b, overflow-checked) fit in the file: mcf
 * stores every dataset whole and uncompressed, so a count beyond the file's bytes is a
 * damaged or crafted extent, refused before anything is allocated for it. */
static int fits(rd *r, const char *object, uint64_t a, uint64_t b, size_t size)
{
    if (a && (b > UINT64_MAX / a || a * b > (uint64_t)(r->bytes / size))) {
        char what[200];
        snprintf(what, sizeof what, "%llu x %llu values of %zu bytes, more than the file's %zu "
                 "bytes hold", (unsigned long long)a, (unsigned long long)b, size, r->bytes);
        bad(r, object, what);
        return 0;
    }
    return 1;
}

static int64_t attr_int(rd *r, hid_t obj, const char *object, const char *name)
{
    int64_t v = 0;
    hid_t a = H5Aexists(obj, name) > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : H5I_INVALID_HID;
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &v) < 0) {
        char what[128];
        snprintf(what, sizeof what, "the integer attribute %s is missing or unreadable", name);
        bad(r, object, what);
    }
    if (a >= 0)
        H5Aclose(a);
    return v;
}

/* an optional integer attribute: 0 when absent */
static int64_t attr_flag(rd *r, hid_t obj, const char *object, const char *name)
{
    return H5Aexists(obj, name) > 0 ? attr_int(r, obj, object, name) : 0;
}

/* text attribute (scalar or 1-d array of variable-length strings): n strings, owned */
static char **attr_texts(rd *r, hid_t obj, const char *object, const char *name, size_t *n)
{
    *n = 0;
    char **out = NULL;
    hid_t a = H5Aexists(obj, name) > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t sp = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hssize_t m = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (m > 0 && !fits(r, object, (uint64_t)m, 1, 2 * sizeof(char *)))
        m = -1;
    char **raw = m > 0 ? calloc((size_t)m, sizeof *raw) : NULL;
    if (r->rc) {
        /* refused above */
    } else if (!raw || H5Aread(a, t, raw) < 0) {
        char what[128];
        snprintf(what, sizeof what, "the text attribute %s is missing or unreadable", name);
        bad(r, object, what);
    } else if ((out = calloc((size_t)m, sizeof *out))) {
        *n = (size_t)m;
        for (size_t j = 0; j < *n; j++)
            out[j] = strdup(raw[j] ? raw[j] : "");
        H5Dvlen_reclaim(t, sp, H5P_DEFAULT, raw);
    }
    free(raw);
    H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    return out;
}

/* a dataset of `rows` x `cols` values (cols 0: one-dimensional) of memory type mt into a
 * new array; the shape must be exactly that */
static void *read_data(rd *r, hid_t at, const char *object, const char *name, hid_t mt,
                       size_t size, size_t rows, size_t cols)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", object, name);
    hid_t d = H5Lexists(at, name, H5P_DEFAULT) > 0 ? H5Dopen2(at, name, H5P_DEFAULT)
                                                    : H5I_INVALID_HID;
    if (d < 0) {
        bad(r, full, "missing");
        return NULL;
    }
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    const int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (rank >= 1 && rank <= 2)
        H5Sget_simple_extent_dims(sp, dims, NULL);
    void *x = NULL;
    if (rank != (cols ? 2 : 1) || dims[0] != rows || (cols && dims[1] != cols)) {
        char what[160];
        snprintf(what, sizeof what, "shape %llu x %llu (rank %d), expected %zu x %zu",
                 (unsigned long long)dims[0], (unsigned long long)dims[1], rank, rows,
                 cols ? cols : 1);
        bad(r, full, what);
    } else if (!fits(r, full, rows, cols ? cols : 1, size)) {
        /* refused */
    } else if (!(x = malloc((rows * (cols ? cols : 1) + 1) * size))) {
        r->rc = mcf_fail(MCF_ENOMEM, "%s: %s: out of memory for %zu x %zu values", r->path,
                         full, rows, cols ? cols : 1);
    } else if (rows && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0) {
        bad(r, full, "unreadable");
        free(x);
        x = NULL;
    }
    if (sp >= 0)
        H5Sclose(sp);
    H5Dclose(d);
    return x;
}

/* the number of rows of a one-dimensional dataset (-1 with a message when missing) */
static long long data_rows(rd *r, hid_t at, const char *object, const char *name)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", object, name);
    hid_t d = H5Lexists(at, name, H5P_DEFAULT) > 0 ? H5Dopen2(at, name, H5P_DEFAULT)
                                                    : H5I_INVALID_HID;
    if (d < 0) {
        bad(r, full, "missing");
        return -1;
    }
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    long long n = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
                          H5Sget_simple_extent_dims(sp, dims, NULL) == 1
                      ? (long long)dims[0]
                      : -1;
    if (n < 0)
        bad(r, full, "not one-dimensional");
    else if (!fits(r, full, (uint64_t)n, 1, sizeof(int64_t)))
        n = -1;
    if (sp >= 0)
        H5Sclose(sp);
    H5Dclose(d);
    return n;
}

/* every bin mean of curve c in a bin that holds measurements must be finite (mcf writes NaN
 * only for an empty bin) */
static void check_curve_bins(rd *r, const mcfi_dos_input *in, const mcfi_dos_curve *c)
{
    for (size_t j = 0; c->bins && j < c->rows && !r->rc; j++)
        for (size_t b = 0; b < in->bins && !r->rc; b++) {
            const double w = in->weights[(size_t)c->chain[j] * in->bins + b];
            const double x = c->bins[j * in->bins + b];
            if (w > 0 && !isfinite(x)) {
                char object[320], what[200];
                snprintf(object, sizeof object, "/observables/%s/bin_means", c->name);
                snprintf(what, sizeof what, "row %zu (chain %lld), bin %zu is %g in a bin of %g "
                         "measurements", j, (long long)c->chain[j], b, x, w);
                bad(r, object, what);
            }
        }
}

/* a curve's chain column (and its bins when want_bins); chains in range, rows grouped
 * by chain in order */
static void read_curve(rd *r, hid_t og, const char *name, int want_bins, const mcfi_dos_input *in,
                       mcfi_dos_curve *c)
{
    char object[300];
    snprintf(object, sizeof object, "/observables/%s", name);
    hid_t g = H5Gopen2(og, name, H5P_DEFAULT);
    if (g < 0) {
        bad(r, object, "not a group");
        return;
    }
    c->name = strdup(name);
    char chain_column[320];
    snprintf(chain_column, sizeof chain_column, "%s/chain", object);
    long long rows = data_rows(r, g, object, "chain");
    if (rows >= 0) {
        c->rows = (size_t)rows;
        c->chain = read_data(r, g, object, "chain", H5T_NATIVE_INT64, sizeof(int64_t),
                             c->rows, 0);
        if (want_bins)
            c->bins = read_data(r, g, object, "bin_means", H5T_NATIVE_DOUBLE, sizeof(double),
                                c->rows, in->bins);
    }
    for (size_t j = 0; c->chain && j < c->rows && !r->rc; j++)
        if (c->chain[j] < 0 || (uint64_t)c->chain[j] >= in->chains ||
            (j && c->chain[j] < c->chain[j - 1]))
            bad(r, chain_column, "not in chain order within 0 .. chains - 1");
    if (!r->rc && c->chain)
        check_curve_bins(r, in, c);
    if (!c->name)
        r->rc = mcf_fail(MCF_ENOMEM, "out of memory");
    H5Gclose(g);
}

/* the scan columns' values at every point, as text */
static void read_scan(rd *r, const char *const *names, size_t n, mcfi_dos_input *in)
{
    in->scan_names = calloc(n + 1, sizeof *in->scan_names);
    in->scan_values = calloc(n * in->points + 1, sizeof *in->scan_values);
    if (!in->scan_names || !in->scan_values) {
        r->rc = mcf_fail(MCF_ENOMEM, "out of memory");
        return;
    }
    in->n_scan = n;
    hid_t g = H5Gopen2(r->f, "results", H5P_DEFAULT);
    if (g < 0) {
        bad(r, "/results", "missing");
        return;
    }
    for (size_t j = 0; j < n && !r->rc; j++) {
        in->scan_names[j] = strdup(names[j]);
        hid_t d = H5Lexists(g, names[j], H5P_DEFAULT) > 0 ? H5Dopen2(g, names[j], H5P_DEFAULT)
                                                          : H5I_INVALID_HID;
        hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
        const H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
        if (t >= 0)
            H5Tclose(t);
        if (d >= 0)
            H5Dclose(d);
        char **v = in->scan_values + j * in->points;
        if (cls == H5T_STRING) {
            hid_t s = H5Tcopy(H5T_C_S1);
            H5Tset_size(s, H5T_VARIABLE);
            H5Tset_cset(s, H5T_CSET_UTF8);
            char **raw = read_data(r, g, "/results", names[j], s, sizeof(char *), in->points, 0);
            for (size_t p = 0; raw && p < in->points; p++) {
                v[p] = strdup(raw[p] ? raw[p] : "");
                free(raw[p]);
            }
            free(raw);
            H5Tclose(s);
        } else {
            double *x = read_data(r, g, "/results", names[j], H5T_NATIVE_DOUBLE, sizeof(double),
                                  in->points, 0);
            for (size_t p = 0; x && p < in->points; p++) {
                char buf[64];
                snprintf(buf, sizeof buf, "%.15g", x[p]);
                v[p] = strdup(buf);
            }
            free(x);
        }
        for (size_t p = 0; !r->rc && p < in->points; p++)
            if (!v[p])
                r->rc = mcf_fail(MCF_ENOMEM, "out of memory");
    }
    H5Gclose(g);
}

typedef struct walk {
    rd *r;
    mcfi_dos_input *in;
} walk;

static herr_t observable(hid_t og, const char *name, const H5L_info_t *info, void *ctx)
{
    (void)info;
    walk *w = ctx;
    rd *r = w->r;
    mcfi_dos_input *in = w->in;
    char object[300];
    snprintf(object, sizeof object, "/observables/%s", name);
    hid_t g = H5Gopen2(og, name, H5P_DEFAULT);
    if (g < 0)
        return bad(r, object, "not a group") ? -1 : 0;
    const int64_t mom = attr_flag(r, g, object, "chebyshev_moments");
    const int64_t scale = attr_flag(r, g, object, "moment_scale");
    const int64_t geo = attr_flag(r, g, object, "geometric_mean");
    const int64_t resp = attr_flag(r, g, object, "response_moments");
    const int64_t spec = attr_flag(r, g, object, "spectral_moments");
    H5Gclose(g);
    if (r->rc)
        return -1;
    if (geo && (mom || scale))
        return bad(r, object, "marked geometric_mean and also chebyshev_moments or "
                   "moment_scale (mcf marks a curve with one of them)") ? -1 : 0;
    if (geo) {
        char **grown = realloc(in->geometric, (in->n_geometric + 1) * sizeof *grown);
        if (!grown || !(grown[in->n_geometric] = strdup(name))) {
            in->geometric = grown ? grown : in->geometric;
            r->rc = mcf_fail(MCF_ENOMEM, "out of memory");
            return -1;
        }
        in->geometric = grown;
        in->n_geometric++;
    }
    if ((resp || spec) && !mom && !scale && !geo && !(resp && spec)) {
        mcfi_dos_curve **list = resp ? &in->response : &in->spectral;
        size_t *count = resp ? &in->n_response : &in->n_spectral;
        const size_t k = *count;
        mcfi_dos_curve *m = realloc(*list, (k + 1) * sizeof *m);
        if (!m) {
            r->rc = mcf_fail(MCF_ENOMEM, "out of memory");
            return -1;
        }
        *list = m;
        memset(&m[k], 0, sizeof m[k]);
        (*count)++;
        read_curve(r, og, name, 1, in, &m[k]);
        if (!r->rc && m[k].rows == 0) { /* measured by no chain */
            free(m[k].name);
            free(m[k].chain);
            free(m[k].bins);
            (*count)--;
        }
    } else if (resp || spec) {
        return bad(r, object, "marked response_moments or spectral_moments together with "
                   "another kind (chebyshev_moments, moment_scale, geometric_mean or the "
                   "other)") ? -1 : 0;
    }
    if (scale) {
        if (in->scale.name)
            return bad(r, object, "a second curve marked moment_scale") ? -1 : 0;
        read_curve(r, og, name, 1, in, &in->scale);
    }
    if (mom) {
        const size_t k = in->n_moments;
        mcfi_dos_curve *m = realloc(in->moments, (k + 1) * sizeof *m);
        if (m)
            in->moments = m;
        mcfi_dos_curve *d = realloc(in->density, (k + 1) * sizeof *d);
        if (d)
            in->density = d;
        if (!m || !d) {
            r->rc = mcf_fail(MCF_ENOMEM, "out of memory");
            return -1;
        }
        memset(&in->moments[k], 0, sizeof in->moments[k]);
        memset(&in->density[k], 0, sizeof in->density[k]);
        in->n_moments++;
        read_curve(r, og, name, 1, in, &in->moments[k]);
        /* the density NAME beside NAME_moments, for its grid's size */
        const size_t len = strlen(name);
        if (!r->rc && len > 8 && !strcmp(name + len - 8, "_moments")) {
            char dname[300];
            snprintf(dname, sizeof dname, "%.*s", (int)(len - 8), name);
            if (H5Lexists(og, dname, H5P_DEFAULT) > 0)
                read_curve(r, og, dname, 0, in, &in->density[k]);
        }
        /* no chain measured it (an evaluator without moments): as if it were not there */
        if (!r->rc && in->moments[k].rows == 0) {
            free(in->moments[k].name);
            free(in->moments[k].chain);
            free(in->moments[k].bins);
            free(in->density[k].name);
            free(in->density[k].chain);
            free(in->density[k].bins);
            in->n_moments--;
        }
    }
    return r->rc ? -1 : 0;
}

/* the moment scale (a, b) of every bin with measurements: a > 0 and b finite */
static void check_scale(rd *r, const mcfi_dos_input *in)
{
    const mcfi_dos_curve *c = &in->scale;
    for (size_t j = 0; c->bins && j < c->rows && !r->rc; j++) {
        const size_t ch = (size_t)c->chain[j];
        const int is_a = j == 0 || (size_t)c->chain[j - 1] != ch;
        for (size_t b = 0; b < in->bins && !r->rc; b++) {
            const double x = c->bins[j * in->bins + b];
            if (in->weights[ch * in->bins + b] > 0 && (is_a ? !(x > 0) : !isfinite(x))) {
                char object[320], what[200];
                snprintf(object, sizeof object, "/observables/%s/bin_means", c->name);
                snprintf(what, sizeof what, "chain %zu, bin %zu: %s = %g is not a moment "
                         "scale (a > 0, b finite)", ch, b, is_a ? "a" : "b", x);
                bad(r, object, what);
            }
        }
    }
}

/* HDF5's handle of the checked image (a copy of it in HDF5's core driver; no file on disk
 * is opened: the name only names it) */
static hid_t open_image(const unsigned char *image, size_t size)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = H5I_INVALID_HID;
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 &&
        H5Pset_file_image(fapl, (void *)image, size) >= 0)
        f = H5Fopen("results.h5 (image in memory)", H5F_ACC_RDONLY, fapl);
    if (fapl >= 0)
        H5Pclose(fapl);
    return f;
}

int mcfi_dos_parse(const char *path, const unsigned char *image, size_t size,
                   const mcfi_dos_shape *want, mcfi_dos_input *in)
{
    memset(in, 0, sizeof *in);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    rd r = {.path = path, .bytes = size};
    r.f = open_image(image, size);
    if (r.f < 0)
        return mcf_fail(MCF_EFORMAT, "%s: HDF5 cannot open it although its digest is mcf's "
                        "(written by an mcf whose HDF5 this one cannot read?)", path);
    const int64_t format = attr_int(&r, r.f, "/", "format");
    const int64_t bins = attr_int(&r, r.f, "/", "bins");
    const int64_t walkers = attr_int(&r, r.f, "/", "walkers");
    size_t n_ev = 0, n_scan = 0;
    char **ev = attr_texts(&r, r.f, "/", "evaluator", &n_ev);
    char **scan = attr_texts(&r, r.f, "/", "scan", &n_scan);
    if (!r.rc && format != 1)
        bad(&r, "/", "format is not 1 (a file from another version of mcf)");
    if (!r.rc && (bins < 1 || walkers < 1 || n_ev != 1 || n_scan < 1))
        bad(&r, "/", "bins, walkers, evaluator or scan out of range");
    if (!r.rc && ((uint64_t)bins != want->bins || (uint64_t)walkers != want->walkers))
        r.rc = mcf_fail(MCF_EFORMAT, "%s: bins = %lld and walkers = %lld, but the run's "
                        "configuration has %zu and %zu: results.h5 of another run", path,
                        (long long)bins, (long long)walkers, want->bins, want->walkers);
    if (!r.rc) {
        in->evaluator = strdup(ev[0]);
        in->bins = (size_t)bins;
        in->walkers = (size_t)walkers;
    }
    hid_t cg = r.rc ? H5I_INVALID_HID : H5Gopen2(r.f, "chains", H5P_DEFAULT);
    if (!r.rc && cg < 0)
        bad(&r, "/chains", "missing");
    long long chains = r.rc ? -1 : data_rows(&r, cg, "/chains", "point");
    if (chains >= 0 && (want->points > SIZE_MAX / want->walkers ||
                        (uint64_t)chains != want->points * want->walkers)) {
        r.rc = mcf_fail(MCF_EFORMAT, "%s: /chains/point: %lld chains, but the run's "
                        "configuration has %zu scan points of %zu walkers: results.h5 of "
                        "another run", path, chains, want->points, want->walkers);
        chains = -1;
    }
    if (chains >= 0) {
        in->chains = (size_t)chains;
        in->point = read_data(&r, cg, "/chains", "point", H5T_NATIVE_INT64, sizeof(int64_t),
                              in->chains, 0);
        in->weights = read_data(&r, cg, "/chains", "bin_weights", H5T_NATIVE_DOUBLE,
                                sizeof(double), in->chains, in->bins);
    }
    if (cg >= 0)
        H5Gclose(cg);
    /* counts of measurements: what the jackknife divides by */
    for (size_t k = 0; !r.rc && in->weights && k < in->chains * in->bins; k++) {
        const double w = in->weights[k];
        if (!(w >= 0 && w <= 9007199254740992.0 && w == floor(w))) {
            char what[160];
            snprintf(what, sizeof what, "chain %zu, bin %zu holds %g, not a count of "
                     "measurements", k / in->bins, k % in->bins, w);
            bad(&r, "/chains/bin_weights", what);
        }
    }
    if (!r.rc && (in->chains == 0 || in->chains % in->walkers))
        bad(&r, "/chains/point", "the number of chains is not a multiple of walkers");
    if (!r.rc) {
        in->points = in->chains / in->walkers;
        for (size_t c = 0; c < in->chains && !r.rc; c++)
            if (in->point[c] != (int64_t)(c / in->walkers))
                bad(&r, "/chains/point", "chain c is not at point c / walkers");
    }
    if (!r.rc)
        read_scan(&r, (const char *const *)scan, n_scan, in);
    hid_t og = r.rc ? H5I_INVALID_HID : H5Gopen2(r.f, "observables", H5P_DEFAULT);
    if (!r.rc && og < 0)
        bad(&r, "/observables", "missing");
    if (og >= 0) {
        walk w = {&r, in};
        hsize_t idx = 0;
        /* declaration order where the file tracks it (mcf's do), else by name */
        if (H5Literate(og, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, observable, &w) < 0 &&
            !r.rc) {
            idx = 0;
            if (H5Literate(og, H5_INDEX_NAME, H5_ITER_INC, &idx, observable, &w) < 0 && !r.rc)
                bad(&r, "/observables", "cannot be listed");
        }
        H5Gclose(og);
    }
    if (!r.rc && in->scale.name)
        check_scale(&r, in);
    for (size_t j = 0; j < n_ev; j++)
        free(ev[j]);
    for (size_t j = 0; j < n_scan; j++)
        free(scan[j]);
    free(ev);
    free(scan);
    H5Fclose(r.f);
    if (!r.rc && !in->evaluator)
        r.rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (r.rc)
        mcfi_dos_input_free(in);
    return r.rc;
}

#endif
