/* results_h5.c — DIR/results.h5 beside results.tsv, for analysis in other programs: the
 * table of results.tsv with full-precision numbers, per chain the jackknife bins and the
 * blocking estimates of every observable (so any derived quantity can be jackknifed), the
 * curves, config.ini as used and the run's description.  Layout: docs/results-h5.md.
 *
 * The file is built in memory (HDF5's core driver, no backing store) and its image goes to
 * disk through mcfe_write_atomic: a temporary name, fsync, rename, never through a link,
 * a failure naming the file, like every other output.  Object times are not recorded, so
 * a run and its resumed twin write the same bytes.  In front of HDF5's image goes a 512-byte
 * user block with its length and FNV-1a 64 digest (results_h5.h), which `mcf dos` checks
 * before HDF5 parses a byte (results_h5_seal.c: mcfi_results_h5_seal, _check, _load).  Every
 * HDF5 call is checked; the first failure names the object and HDF5's own words. */
#define _POSIX_C_SOURCE 200809L
#include "results_h5.h"

#include "fileio.h"

#include <stdlib.h>
#include <string.h>

#ifndef MCF_HAVE_HDF5

int mcfi_results_h5_write(const mcf_run *r)
{
    (void)r;
    return MCF_OK;
}

#else

#include "labels.h"
#include "dmc.h"
#include "results_table.h"
#include "timestep_fit.h"

#include <hdf5.h>
#include <math.h>

typedef struct h5w {
    const mcfi_labels *labels; /* symbols and units (labels.c) */
    hid_t str;    /* variable-length UTF-8 strings */
    hid_t gcpl;   /* groups: no times, links listed in creation order */
    hid_t dcpl;   /* datasets: no times */
    int failed;
    char why[1024];
} h5w;

static herr_t innermost(unsigned n, const H5E_error2_t *e, void *ctx)
{
    if (n == 0 && e->desc)
        snprintf(ctx, 256, "%s", e->desc);
    return 0;
}

/* Records the first failure: "cannot WHAT /path/NAME (HDF5: ...)".  Called right after
 * the failed call, before the next one clears HDF5's error stack. */
static void failed(h5w *w, hid_t where, const char *name, const char *what)
{
    if (w->failed)
        return;
    char hdf[256] = "", path[512] = "", object[800] = "";
    /* HDF5's words, if it has any (a failed walk leaves them out) */
    if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, hdf) < 0)
        hdf[0] = '\0';
    if (where >= 0 && H5Iget_name(where, path, sizeof path) < 0)
        path[0] = '\0';
    if (name)
        snprintf(object, sizeof object, " %s/%s", strcmp(path, "/") ? path : "", name);
    w->failed = 1;
    snprintf(w->why, sizeof w->why, "cannot %s%s%s%s%s", what, object,
             hdf[0] ? " (HDF5: " : "", hdf, hdf[0] ? ")" : "");
}

static void close_id(h5w *w, hid_t id, herr_t (*close)(hid_t), const char *what)
{
    if (id >= 0 && close(id) < 0)
        failed(w, -1, NULL, what);
}

/* name as a link name: no '/' and not "." or empty; " (2)", " (3)", ... when taken (a
 * model's observable named like a derived column).  A name it returned is not taken, so
 * it returns it unchanged. */
static void link_name(h5w *w, hid_t parent, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", name[0] && strcmp(name, ".") ? name : "_");
    for (char *p = out; *p; p++)
        if (*p == '/')
            *p = '_';
    size_t len = strlen(out);
    for (int k = 2; k < 1000 && !w->failed; k++) {
        htri_t e = H5Lexists(parent, out, H5P_DEFAULT);
        if (e < 0)
            failed(w, parent, out, "look up");
        if (e <= 0)
            return;
        snprintf(out + len, n - len, " (%d)", k);
    }
}

static hid_t group(h5w *w, hid_t parent, const char *name)
{
    if (w->failed)
        return -1;
    char ln[512];
    link_name(w, parent, name, ln, sizeof ln);
    hid_t g = w->failed ? -1 : H5Gcreate2(parent, ln, H5P_DEFAULT, w->gcpl, H5P_DEFAULT);
    if (g < 0)
        failed(w, parent, ln, "create group");
    return g;
}

/* A dataset of rank 0 (dims NULL), 1 or 2 written from data (mtype in memory). */
static void dataset(h5w *w, hid_t parent, const char *name, hid_t ftype, hid_t mtype, int rank,
                    const hsize_t *dims, const void *data)
{
    if (w->failed)
        return;
    char ln[512];
    link_name(w, parent, name, ln, sizeof ln);
    hid_t sp = w->failed ? -1 : rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t d = sp < 0 ? -1 : H5Dcreate2(parent, ln, ftype, sp, H5P_DEFAULT, w->dcpl, H5P_DEFAULT);
    if (d < 0)
        failed(w, parent, ln, "create dataset");
    else if (H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        failed(w, parent, ln, "write dataset");
    close_id(w, d, H5Dclose, "close a dataset");
    close_id(w, sp, H5Sclose, "close a dataspace");
}

static void doubles(h5w *w, hid_t parent, const char *name, size_t rows, size_t cols,
                    const double *x)
{
    hsize_t dims[2] = {rows, cols};
    dataset(w, parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, cols ? 2 : 1, dims, x);
}

static void int64s(h5w *w, hid_t parent, const char *name, size_t n, const int64_t *x)
{
    hsize_t dims[1] = {n};
    dataset(w, parent, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 1, dims, x);
}

static void texts(h5w *w, hid_t parent, const char *name, size_t n, const char **s)
{
    hsize_t dims[1] = {n};
    dataset(w, parent, name, w->str, w->str, 1, dims, s);
}

/* An attribute: a scalar (n = 0) or n values. */
static void attribute(h5w *w, hid_t obj, const char *name, hid_t ftype, hid_t mtype, size_t n,
                      const void *data)
{
    if (w->failed)
        return;
    hsize_t dims[1] = {n};
    hid_t sp = n ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = sp < 0 ? -1 : H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        failed(w, obj, name, "create attribute");
    else if (H5Awrite(a, mtype, data) < 0)
        failed(w, obj, name, "write attribute");
    close_id(w, a, H5Aclose, "close an attribute");
    close_id(w, sp, H5Sclose, "close a dataspace");
}

static void attr_text(h5w *w, hid_t obj, const char *name, const char *text)
{
    const char *t = text ? text : "";
    attribute(w, obj, name, w->str, w->str, 0, &t);
}

static void attr_int(h5w *w, hid_t obj, const char *name, int64_t v)
{
    attribute(w, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &v);
}

/* Attributes symbol and unit of the object at name (in parent) when the column or
 * observable `label` is labelled. */
static void label_attrs(h5w *w, hid_t parent, const char *name, const char *label)
{
    const mcfi_label *l = mcfi_labels_find(w->labels, label);
    if (!l || w->failed)
        return;
    hid_t o = H5Oopen(parent, name, H5P_DEFAULT);
    if (o < 0) {
        failed(w, parent, name, "open");
        return;
    }
    attr_text(w, o, "symbol", l->symbol);
    attr_text(w, o, "unit", l->unit);
    close_id(w, o, H5Oclose, "close an object");
}

/* the columns of a table, in order, with their symbols and units, and the attribute
 * "columns" listing their names as stored */
static void table(h5w *w, hid_t g, const mcfi_table *t)
{
    enum { LEN = 512 };
    const char **names = calloc(t->n_cols + 1, sizeof *names);
    char *stored = malloc(t->n_cols * LEN + 1);
    if (!names || !stored) {
        free(names);
        free(stored);
        snprintf(w->why, sizeof w->why, "out of memory");
        w->failed = 1;
        return;
    }
    for (size_t c = 0; c < t->n_cols && !w->failed; c++) {
        names[c] = stored + c * LEN;
        link_name(w, g, t->cols[c].name, stored + c * LEN, LEN);
        if (t->cols[c].x)
            doubles(w, g, names[c], t->n_rows, 0, t->cols[c].x);
        else
            texts(w, g, names[c], t->n_rows, t->cols[c].text);
        label_attrs(w, g, names[c], t->cols[c].name);
    }
    if (t->n_cols)
        attribute(w, g, "columns", w->str, w->str, t->n_cols, names);
    free(names);
    free(stored);
}

/* Group /name holding table t, when t has columns; t freed. */
static void table_group(h5w *w, hid_t f, const char *name, mcfi_table *t)
{
    if (t->n_cols && !w->failed) {
        char what[64];
        snprintf(what, sizeof what, "close group /%s", name);
        hid_t g = group(w, f, name);
        table(w, g, t);
        close_id(w, g, H5Gclose, what);
    }
    mcfi_table_free(t);
}

/* The root's attributes: what results.tsv says in its # lines. */
static void describe_run(h5w *w, hid_t f, const mcf_run *r)
{
    const mcf_setup *s = r->setup;
    attr_int(w, f, "format", MCF_RESULTS_H5_FORMAT);
    attr_text(w, f, "mcf_version", MCF_VERSION_STRING);
    attr_text(w, f, "model", s->model_name);
    attr_text(w, f, "model_version", s->model->info->version);
    attr_text(w, f, "evaluator", s->evaluator_name);
    attr_text(w, f, "evaluator_version", s->evaluator ? s->evaluator->info->version : "");
    attr_int(w, f, "evaluator_auto", s->evaluator_auto);
    attribute(w, f, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &s->seed);
    attr_int(w, f, "thermalize", s->thermalize);
    attr_int(w, f, "sweeps", (long)r->sweeps); /* doubled by error_target */
    attr_int(w, f, "measure_every", s->measure_every);
    attribute(w, f, "measurements", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &r->n_meas);
    attr_int(w, f, "bins", s->bins);
    attr_int(w, f, "walkers", s->walkers);
    /* the scan columns of /results: the axes, or "point" for a run without any */
    const char **scan = malloc((s->n_axes + 1) * sizeof *scan);
    for (size_t a = 0; scan && a < s->n_axes; a++)
        scan[a] = s->axes[a].name;
    if (scan && !s->n_axes)
        scan[0] = "point";
    if (scan)
        attribute(w, f, "scan", w->str, w->str, s->n_axes ? s->n_axes : 1, scan);
    else if (!w->failed) {
        snprintf(w->why, sizeof w->why, "out of memory");
        w->failed = 1;
    }
    free(scan);
    const char *cfg = s->canonical;
    dataset(w, f, "config.ini", w->str, w->str, 0, NULL, &cfg);
}

/* /chains: which scan point, walker and temperature each chain is; its N, move counts and
 * the measurements in each jackknife bin. */
static int chains_group(h5w *w, hid_t f, const mcf_run *r)
{
    size_t n = r->n_chains, nb = (size_t)r->setup->bins, R = (size_t)r->setup->walkers;
    int64_t *iv = malloc((n + 1) * sizeof *iv);
    double *x = malloc((n * nb + 1) * sizeof *x);
    if (!iv || !x) {
        free(iv);
        free(x);
        return -1;
    }
    hid_t g = group(w, f, "chains");
    for (size_t k = 0; k < n; k++)
        iv[k] = (int64_t)(k / R);
    int64s(w, g, "point", n, iv);
    for (size_t k = 0; k < n; k++)
        iv[k] = (int64_t)(k % R);
    int64s(w, g, "walker", n, iv);
    for (size_t k = 0; k < n; k++)
        x[k] = r->setup->has_temperature ? r->chains[k].model_params->temperature : NAN;
    doubles(w, g, "T", n, 0, x);
    for (size_t k = 0; k < n; k++)
        iv[k] = (int64_t)r->chains[k].units;
    int64s(w, g, "units", n, iv);
    for (size_t k = 0; k < n; k++)
        iv[k] = (int64_t)r->chains[k].accepted;
    int64s(w, g, "accepted", n, iv);
    for (size_t k = 0; k < n; k++)
        iv[k] = (int64_t)r->chains[k].proposed;
    int64s(w, g, "proposed", n, iv);
    for (size_t k = 0; k < n; k++)
        memcpy(x + k * nb, r->chains[k].bin_count, nb * sizeof *x);
    doubles(w, g, "bin_weights", n, nb, x);
    /* the model's integer L where it has one: the size xi_over_l divides by (results_table.c) */
    int has_L = mcfi_model_has_L(r->setup);
    for (size_t k = 0; k < n && has_L; k++) {
        long L = 0;
        has_L = mcf_params_int(r->chains[k].model_params, "L", &L) == MCF_OK;
        iv[k] = (int64_t)L;
    }
    if (has_L && n > 0)
        int64s(w, g, "L", n, iv);
    close_id(w, g, H5Gclose, "close group /chains");
    free(iv);
    free(x);
    return 0;
}

/* x[k * nb + b]: the mean of variable v in bin b of chain k; NaN for an empty bin */
static void bin_means(const mcf_run *r, size_t v, double *x)
{
    size_t nb = (size_t)r->setup->bins;
    for (size_t k = 0; k < r->n_chains; k++)
        for (size_t b = 0; b < nb; b++) {
            const mcf_chain *c = &r->chains[k];
            x[k * nb + b] = c->bin_count[b] > 0 ? c->bin_sum[b * r->nvars + v] / c->bin_count[b]
                                                : NAN;
        }
}

/* /observables/NAME for a scalar: per chain the bin means and the blocking estimate */
static void scalar_data(h5w *w, hid_t g, const mcf_run *r, size_t o, double *x, int64_t *iv)
{
    size_t n = r->n_chains, nb = (size_t)r->setup->bins;
    bin_means(r, o, x);
    doubles(w, g, "bin_means", n, nb, x);
    if ((int)o == r->role[MCF_ROLE_ENERGY]) {
        bin_means(r, r->n_obs, x); /* <e^2>: the specific heat's second variable */
        doubles(w, g, "bin_means_squared", n, nb, x);
        if (r->var_es >= 0) { /* <e s_T>: the general weight's specific heat */
            bin_means(r, (size_t)r->var_es, x);
            doubles(w, g, "bin_means_times_action_dT", n, nb, x);
        }
    }
    /* tau in sweeps, and in measurements as the derived columns' error scale takes it (tau
     * / measure_every need not give those bits back) */
    static const char *const what[4] = {"mean", "error", "tau", "tau_measurements"};
    for (int q = 0; q < 4; q++) {
        for (size_t k = 0; k < n; k++) {
            mcf_estimate est;
            mcfi_blocking_estimate(&r->chains[k].blocking[o], &est);
            x[k] = q == 0 ? est.mean : q == 1 ? est.error : q == 3 ? est.tau
                                              : est.tau * (double)r->setup->measure_every;
            iv[k] = est.converged;
        }
        doubles(w, g, what[q], n, 0, x);
    }
    int64s(w, g, "converged", n, iv);
}

/* /observables/NAME for a curve: a row per chain and curve point, in chain order */
static int curve_data(h5w *w, hid_t g, const mcf_run *r, size_t k)
{
    size_t o = r->curve[k], nb = (size_t)r->setup->bins, rows = 0;
    for (size_t c = 0; c < r->n_chains; c++)
        rows += r->chains[c].points[o];
    int64_t *chain = malloc((rows + 1) * sizeof *chain);
    double *axis = malloc((rows + 1) * sizeof *axis);
    double *x = malloc((rows * nb + 1) * sizeof *x);
    if (!chain || !axis || !x) {
        free(chain);
        free(axis);
        free(x);
        return -1;
    }
    for (size_t c = 0, j = 0; c < r->n_chains; c++) {
        const mcf_chain *ch = &r->chains[c];
        size_t at = 0;
        for (size_t q = 0; q < k; q++)
            at += ch->points[r->curve[q]];
        for (size_t i = 0; i < ch->points[o]; i++, j++) {
            chain[j] = (int64_t)c;
            axis[j] = ch->axis[at + i];
            for (size_t b = 0; b < nb; b++)
                x[j * nb + b] = ch->bin_count[b] > 0
                                    ? ch->curve_bin_sum[b * ch->curve_values + at + i] /
                                          ch->bin_count[b]
                                    : NAN;
        }
    }
    int64s(w, g, "chain", rows, chain);
    doubles(w, g, "axis_values", rows, 0, axis);
    doubles(w, g, "bin_means", rows, nb, x);
    free(chain);
    free(axis);
    free(x);
    return 0;
}

static const char *role_name(int role)
{
    static const char *const names[MCF_ROLE_COUNT] = {
        "", "energy", "order", "order2", "order4", "energy_dT", "action_dT", "order_kmin"};
    return role >= 0 && role < MCF_ROLE_COUNT ? names[role] : "";
}

/* /observables: every declared observable, in declaration order */
static int observables_group(h5w *w, hid_t f, const mcf_run *r)
{
    const mcf_observable *obs = r->model->observables;
    size_t n = r->n_chains, nb = (size_t)r->setup->bins;
    double *x = malloc((n * nb + 1) * sizeof *x);
    int64_t *iv = malloc((n + 1) * sizeof *iv);
    int rc = !x || !iv ? -1 : 0;
    hid_t g = rc ? -1 : group(w, f, "observables");
    for (size_t d = 0; d < r->n_declared && !w->failed && !rc; d++) {
        hid_t og = group(w, g, obs[d].name);
        attr_text(w, og, "description", obs[d].doc);
        attr_text(w, og, "role", obs[d].axis ? "" : role_name((int)obs[d].role));
        attr_text(w, og, "kind", obs[d].axis ? "curve" : "scalar");
        attr_text(w, og, "axis", obs[d].axis ? obs[d].axis : "");
        attr_int(w, og, "geometric_mean", (obs[d].flags & MCF_OBS_GEOMETRIC_MEAN) != 0);
        /* only where set: the files of runs without moments keep their bytes */
        if (obs[d].flags & MCF_OBS_MOMENTS)
            attr_int(w, og, "chebyshev_moments", 1);
        if (obs[d].flags & MCF_OBS_MOMENT_SCALE)
            attr_int(w, og, "moment_scale", 1);
        if (obs[d].flags & MCF_OBS_RESPONSE_MOMENTS)
            attr_int(w, og, "response_moments", 1);
        if (obs[d].flags & MCF_OBS_SPECTRAL_MOMENTS)
            attr_int(w, og, "spectral_moments", 1);
        const mcfi_label *l = mcfi_labels_find(w->labels, obs[d].name);
        if (l) {
            attr_text(w, og, "symbol", l->symbol);
            attr_text(w, og, "unit", l->unit);
        }
        for (size_t o = 0; o < r->n_obs; o++)
            if (r->scalar[o] == d)
                scalar_data(w, og, r, o, x, iv);
        for (size_t k = 0; k < r->n_curves && !rc; k++)
            if (r->curve[k] == d)
                rc = curve_data(w, og, r, k);
        close_id(w, og, H5Gclose, "close an observable's group");
    }
    close_id(w, g, H5Gclose, "close group /observables");
    free(x);
    free(iv);
    return rc;
}

/* /results and /curves/NAME: the tables of results.tsv and the curve files */
static int tables(h5w *w, hid_t f, const mcf_run *r)
{
    mcfi_table t;
    if (mcfi_results_table(r, &t))
        return -1;
    hid_t g = group(w, f, "results");
    table(w, g, &t);
    close_id(w, g, H5Gclose, "close group /results");
    mcfi_table ft; /* DMC over time steps: timestep.tsv's fits (timestep_fit.h) */
    const int frc = mcfi_timestep_table(r, &t, &ft, NULL, NULL);
    mcfi_table_free(&t);
    if (frc)
        return -1;
    table_group(w, f, "timestep", &ft);
    if (mcfi_dmc_table(r, &ft)) /* DMC: the population's history (dmc.h) */
        return -1;
    table_group(w, f, "dmc", &ft);
    hid_t cg = -1;
    for (size_t k = 0; k < r->n_curves && !w->failed; k++) {
        if (mcfi_curve_table(r, k, &t)) {
            close_id(w, cg, H5Gclose, "close group /curves");
            return -1;
        }
        if (t.n_rows) { /* like the curve files: none for a curve no chain measures */
            if (cg < 0)
                cg = group(w, f, "curves");
            hid_t one = group(w, cg, r->model->observables[r->curve[k]].name);
            table(w, one, &t);
            close_id(w, one, H5Gclose, "close a curve's group");
        }
        mcfi_table_free(&t);
    }
    close_id(w, cg, H5Gclose, "close group /curves");
    return 0;
}

/* The whole file in memory; *image (malloc'd) and *size on success. */
static int build(const mcf_run *r, h5w *w, void **image, size_t *size)
{
    int oom = 0;
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;
    unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    w->gcpl = H5Pcreate(H5P_GROUP_CREATE);
    w->dcpl = H5Pcreate(H5P_DATASET_CREATE);
    w->str = H5Tcopy(H5T_C_S1);
    if (fcpl < 0 || fapl < 0 || w->gcpl < 0 || w->dcpl < 0 || w->str < 0 ||
        H5Pset_obj_track_times(fcpl, 0) < 0 || H5Pset_userblock(fcpl, MCFI_H5_BLOCK) < 0 ||
        H5Pset_obj_track_times(w->gcpl, 0) < 0 ||
        H5Pset_obj_track_times(w->dcpl, 0) < 0 || H5Pset_link_creation_order(w->gcpl, order) < 0 ||
        H5Pset_fapl_core(fapl, 1 << 20, 0) < 0 || H5Tset_size(w->str, H5T_VARIABLE) < 0 ||
        H5Tset_cset(w->str, H5T_CSET_UTF8) < 0)
        failed(w, -1, NULL, "set up the HDF5 properties");
    /* in memory only: nothing under this name is opened on disk */
    if (!w->failed && (f = H5Fcreate("results.h5", H5F_ACC_TRUNC, fcpl, fapl)) < 0)
        failed(w, -1, NULL, "create the file in memory");
    if (!w->failed) {
        describe_run(w, f, r);
        oom = tables(w, f, r) || chains_group(w, f, r) || observables_group(w, f, r);
    }
    ssize_t n = -1;
    if (!w->failed && !oom && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
        failed(w, -1, NULL, "flush the file in memory");
    if (!w->failed && !oom && (n = H5Fget_file_image(f, NULL, 0)) <= 0)
        failed(w, -1, NULL, "get the file's image");
    /* the image is HDF5's from its superblock on (whose base address is the user block's
       size); the user block, with the digest, goes in front of it */
    unsigned char *file = n > 0 ? malloc(MCFI_H5_BLOCK + (size_t)n) : NULL;
    if (n > 0 && !file)
        oom = 1;
    if (file && H5Fget_file_image(f, file + MCFI_H5_BLOCK, (size_t)n) != n)
        failed(w, -1, NULL, "copy the file's image");
    if (file && !w->failed)
        mcfi_results_h5_seal(file, MCFI_H5_BLOCK + (size_t)n);
    *image = file;
    *size = file ? MCFI_H5_BLOCK + (size_t)n : 0;
    close_id(w, f, H5Fclose, "close the file");
    close_id(w, fcpl, H5Pclose, "close a property list");
    close_id(w, fapl, H5Pclose, "close a property list");
    close_id(w, w->gcpl, H5Pclose, "close a property list");
    close_id(w, w->dcpl, H5Pclose, "close a property list");
    close_id(w, w->str, H5Tclose, "close a type");
    if (oom && !w->failed)
        return MCF_ENOMEM;
    return w->failed ? MCF_EIO : MCF_OK;
}

int mcfi_results_h5_write(const mcf_run *r)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/results.h5", r->dir);
    H5E_auto2_t print = NULL;
    void *print_data = NULL;
    h5w w = {.str = -1, .gcpl = -1, .dcpl = -1};
    void *image = NULL;
    size_t size = 0;
    mcfi_labels labels;
    int lrc = mcfi_labels_build(r, &labels);
    if (lrc)
        return mcf_fail_prefix(lrc, "%s: not written", path);
    w.labels = &labels;
    /* HDF5 would print its error stack on stderr: the message below says it instead */
    int quiet = H5Eget_auto2(H5E_DEFAULT, &print, &print_data) >= 0 &&
                H5Eset_auto2(H5E_DEFAULT, NULL, NULL) >= 0;
    int rc = build(r, &w, &image, &size);
    /* (a printer not restored would only leave later HDF5 errors unprinted: no failure) */
    if (quiet && H5Eset_auto2(H5E_DEFAULT, print, print_data) < 0)
        mcf_log(MCF_LOG_DEBUG, "HDF5's error printing could not be restored");
    if (rc == MCF_ENOMEM)
        rc = mcf_fail(MCF_ENOMEM, "%s: not written: out of memory", path);
    else if (rc)
        rc = mcf_fail(MCF_EIO, "%s: not written: %s", path, w.why);
    else
        rc = mcfe_write_atomic(path, image, size);
    free(image);
    mcfi_labels_free(&labels);
    return rc;
}

#endif
