/* fuzz_results_h5.c — libFuzzer target: results.h5 as `mcf dos DIR` reads it (dos_h5.c, then
 * dos.c's reconstruction with the kpm evaluator), for the fixed configuration
 * tests/fuzz/results_h5/kpm.ini (an Anderson model with KPM moments, 2 points x 2 walkers,
 * 12 bins).  An input is a selector byte and the rest:
 *
 *   selector bit 0 clear: the rest is the file, byte for byte.  mcf reads it through the
 *     bounded opener and checks its user block (magic, length, digest) before any HDF5 call,
 *     so this half fuzzes that check: a fuzzed file never reaches libhdf5, whose own parser
 *     (1.10) crashes and hangs on damaged files — that is the point of the digest.
 *   selector bit 0 set: the rest describes a results.h5 — its shape attributes, chain
 *     columns, bin weights, and a few observables with their marks (chebyshev_moments,
 *     moment_scale, geometric_mean), rows per chain and bin means — that HDF5's own writer
 *     builds in memory from valid API calls, which mcf then seals with its digest.  libhdf5
 *     so only ever parses files it wrote itself, while every value and extent behind the
 *     digest that mcf's reader and the reconstruction depend on is the fuzzer's.
 *
 * Selector bit 1 set: `mcf dos DIR` on the run's grid, else `--points 32`; bit 2 set: the
 * described file's groups and datasets made as mcf's writer makes them (links in creation
 * order, no times), else HDF5's defaults (old-style groups, which mcf's reader lists by name).
 *
 * Either way `mcf dos` must refuse the file with a message or write its table — never
 * crash, hang, overflow or read out of bounds (ASan + UBSan).  MCF_FUZZ_VERBOSE=1 prints
 * what each input came to.  What does not depend on the input is done once, not per input:
 * the configuration read and set up (the whole command runs once at the start), HDF5's
 * property lists; HDF5 keeps its freed blocks. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "dos.h"
#include "fileio.h"
#include "fuzz_util.h"
#include "internal.h"
#include "results_h5.h"

#include "mcf/error.h"

#include <fcntl.h>
#include <glob.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[300], h5path[400];
static mcf_config *config;
static mcf_setup *setup;
/* the description's file, in memory with mcf's user block: [0] HDF5's default objects (old
 * groups: mcf's reader lists them by name), [1] as mcf writes them (groups that track their
 * links' creation order, no times) */
static hid_t fcpl[2], gcpl[2], dcpl[2], fapl;

static void init(void)
{
    setenv("MCF_PLUGIN_PATH", MCF_FUZZ_PLUGIN_PATH, 0);
    fuzz_keep_plugins_loaded(getenv("MCF_PLUGIN_PATH"));
    snprintf(dir, sizeof dir, "%s", fuzz_scratch_path("mcf-fuzz-results-h5"));
    mkdir(dir, 0700);
    char cfg[4200], path[400];
    snprintf(cfg, sizeof cfg, "%s/kpm.ini", MCF_FUZZ_RESULTS_H5_CONFIG);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    unsigned char *text;
    size_t n;
    struct stat st;
    if (mcfi_read_file(cfg, O_RDONLY, 1 << 20, &text, &n, &st) != MCFI_FILE_OK ||
        !fuzz_write_file(path, text, n)) {
        fprintf(stderr, "fuzz_results_h5: cannot copy %s to %s\n", cfg, path);
        abort();
    }
    free(text);
    snprintf(h5path, sizeof h5path, "%s/results.h5", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* parsed in this process, not in a child (a fork per input): HDF5 only ever parses a
       file it wrote itself here; the child's refusals are the catalogue's (crafted files) */
    mcfi_dos_parse_in_child(0);
    /* HDF5 keeps the blocks it frees for the next file (its metadata cache, ~0.5 MB a file,
     * would otherwise be mapped and faulted in twice an input) */
    H5set_free_list_limits(-1, -1, -1, -1, -1, -1);
    for (int k = 0; k < 2; k++) {
        fcpl[k] = H5Pcreate(H5P_FILE_CREATE);
        H5Pset_userblock(fcpl[k], MCFI_H5_BLOCK);
        gcpl[k] = H5Pcreate(H5P_GROUP_CREATE);
        dcpl[k] = H5Pcreate(H5P_DATASET_CREATE);
    }
    H5Pset_obj_track_times(fcpl[1], 0);
    H5Pset_obj_track_times(gcpl[1], 0);
    H5Pset_obj_track_times(dcpl[1], 0);
    H5Pset_link_creation_order(gcpl[1], H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    /* the configuration is the same for every input: the whole command once (the lock, the
     * configuration read and set up, results.h5 missing), then the setup is kept */
    char *argv[] = {dir, NULL};
    if (mcfi_dos_command(1, argv) != MCF_EINVAL || mcfe_config_read(path, &config) ||
        mcfe_setup_create(config, &setup)) {
        fprintf(stderr, "fuzz_results_h5: cannot set %s up: %s\n", path, mcf_last_error());
        abort();
    }
}

/* ---- the description: bytes taken one at a time, zeros when they run out --------------- */

typedef struct src {
    const uint8_t *p;
    size_t n;
} src;

static unsigned byte(src *s)
{
    if (!s->n)
        return 0;
    s->n--;
    return *s->p++;
}

/* mostly `usual`; now and then another value */
static long often(src *s, long usual, long other_range)
{
    const unsigned b = byte(s);
    return b < 224 ? usual : (long)(b % (unsigned)other_range);
}

/* a double: small integers and fractions mostly, the awkward ones sometimes */
static double value(src *s)
{
    const unsigned b = byte(s);
    switch (b) {
    case 255: return NAN;
    case 254: return INFINITY;
    case 253: return -1.0;
    case 252: return 1e300;
    case 251: return 5e-324;
    case 250: return 0.0;
    default: return (double)((int)b - 100) / 16.0;
    }
}

static void attr_i64(hid_t o, const char *name, int64_t v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(o, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

static void attr_texts(hid_t o, const char *name, size_t n, const char **v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hsize_t dims[1] = {n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(o, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, v);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

static int as_mcf; /* the properties of the file being built: 0 or 1 */

static void data(hid_t at, const char *name, hid_t ft, hid_t mt, size_t rows, size_t cols,
                 const void *x)
{
    hsize_t dims[2] = {rows, cols};
    hid_t sp = H5Screate_simple(cols ? 2 : 1, dims, NULL);
    hid_t d = H5Dcreate2(at, name, ft, sp, H5P_DEFAULT, dcpl[as_mcf], H5P_DEFAULT);
    if (rows)
        H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
    H5Dclose(d);
    H5Sclose(sp);
}

#define MAX_ROWS 512

/* the results.h5 the description gives, sealed, into h5path: 1 when written */
static int build(src *s)
{
    const size_t points = (size_t)often(s, 2, 4), walkers = (size_t)often(s, 2, 4);
    const size_t bins = (size_t)often(s, 12, 16), chains = points * walkers;
    hid_t f = H5Fcreate("fuzz.h5", H5F_ACC_TRUNC, fcpl[as_mcf], fapl);
    if (f < 0)
        return 0;
    attr_i64(f, "format", often(s, 1, 3));
    attr_i64(f, "bins", (int64_t)bins);
    attr_i64(f, "walkers", (int64_t)walkers);
    const char *ev = "kpm", *scan = "W";
    attr_texts(f, "evaluator", 1, &ev);
    attr_texts(f, "scan", 1, &scan);
    hid_t g = H5Gcreate2(f, "results", H5P_DEFAULT, gcpl[as_mcf], H5P_DEFAULT);
    double x[MAX_ROWS * 16];
    int64_t iv[MAX_ROWS];
    for (size_t p = 0; p < points; p++)
        x[p] = value(s);
    data(g, "W", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, points, 0, x);
    H5Gclose(g);
    g = H5Gcreate2(f, "chains", H5P_DEFAULT, gcpl[as_mcf], H5P_DEFAULT);
    for (size_t c = 0; c < chains; c++)
        iv[c] = often(s, (long)(c / walkers), 8);
    data(g, "point", H5T_STD_I64LE, H5T_NATIVE_INT64, chains, 0, iv);
    for (size_t k = 0; k < chains * bins; k++) {
        const unsigned b = byte(s);
        x[k] = b < 200 ? (double)(b % 4) : b < 250 ? (double)b : value(s);
    }
    data(g, "bin_weights", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, chains, bins, x);
    H5Gclose(g);
    hid_t og = H5Gcreate2(f, "observables", H5P_DEFAULT, gcpl[as_mcf], H5P_DEFAULT);
    static const char *const names[] = {"dos_moments", "moment_scale", "dos", "ldos_moments",
                                        "typical_dos", "x"};
    const unsigned n_obs = 1 + byte(s) % 6;
    for (unsigned o = 0; o < n_obs; o++) {
        const char *name = names[(o + byte(s)) % 6];
        if (H5Lexists(og, name, H5P_DEFAULT) > 0)
            continue;
        hid_t q = H5Gcreate2(og, name, H5P_DEFAULT, gcpl[as_mcf], H5P_DEFAULT);
        const unsigned marks = byte(s);
        const int scale = !strcmp(name, "moment_scale"), moments = strstr(name, "_moments") != 0;
        attr_i64(q, "geometric_mean", (marks & 0xe0) == 0xe0);
        if ((marks & 1) ^ moments)
            attr_i64(q, "chebyshev_moments", 1);
        if ((marks & 2) ^ scale)
            attr_i64(q, "moment_scale", 1);
        /* rows per chain: the usual 2 for the scale, 8 moments, 16 energies */
        const size_t per = (size_t)often(s, scale ? 2 : moments ? 8 : 16, 20);
        size_t rows = 0;
        for (size_t c = 0; c < chains && rows + per <= MAX_ROWS; c++)
            for (size_t k = 0; k < per; k++)
                iv[rows++] = often(s, (long)c, 8);
        data(q, "chain", H5T_STD_I64LE, H5T_NATIVE_INT64, rows, 0, iv);
        size_t brows = (size_t)often(s, (long)rows, MAX_ROWS);
        for (size_t k = 0; k < brows * bins; k++) {
            /* a scale a > 0 in its first row of each chain, mostly */
            const double v = value(s);
            x[k] = scale && (k / bins) % 2 == 0 && v <= 0 ? 1.5 - v : v;
        }
        data(q, "bin_means", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, brows, bins, x);
        H5Gclose(q);
    }
    H5Gclose(og);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    ssize_t n = H5Fget_file_image(f, NULL, 0);
    unsigned char *image = n > 0 ? malloc(MCFI_H5_BLOCK + (size_t)n) : NULL;
    int ok = image && H5Fget_file_image(f, image + MCFI_H5_BLOCK, (size_t)n) == n;
    H5Fclose(f);
    if (ok) {
        mcfi_results_h5_seal(image, MCFI_H5_BLOCK + (size_t)n);
        ok = fuzz_write_file(h5path, image, MCFI_H5_BLOCK + (size_t)n);
    }
    free(image);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    if (!dir[0])
        init();
    if (size < 1)
        return 0;
    src s = {bytes + 1, size - 1};
    /* the description's x[] holds MAX_ROWS x 16 values: bins < 16 and rows <= MAX_ROWS */
    as_mcf = (bytes[0] & 4) != 0;
    if (!((bytes[0] & 1) ? build(&s) : fuzz_write_file(h5path, bytes + 1, size - 1)))
        return 0;
    static char points_opt[] = "--points", points[] = "32";
    char *argv[] = {dir, points_opt, points, NULL};
    const int rc = mcfi_dos_command_set_up(setup, (bytes[0] & 2) ? 1 : 3, argv);
    /* MCF_FUZZ_VERBOSE=1: what each input came to (how far the seeds and a corpus reach) */
    if (getenv("MCF_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz_results_h5: %s\n", rc ? mcf_last_error() : "table written");
    /* the table, when one was written */
    glob_t g;
    char pattern[400];
    snprintf(pattern, sizeof pattern, "%s/dos-*.tsv", dir);
    if (rc == 0 && glob(pattern, 0, NULL, &g) == 0) {
        for (size_t k = 0; k < g.gl_pathc; k++)
            unlink(g.gl_pathv[k]);
        globfree(&g);
    }
    return 0;
}
