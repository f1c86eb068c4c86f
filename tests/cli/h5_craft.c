/* h5_craft.c — damages a results.h5 the way a crafted or corrupted file would, for the
 * bad-input catalogue (test_bad_inputs.sh, "issue 42: files from elsewhere"), then seals it
 * again with mcf's own digest (mcfi_results_h5_seal), so that mcf's reader meets the damage
 * behind the digest, not only the digest.  A file without the digest's block (an older
 * mcf's) is crafted and left unsealed.
 *
 *   h5_craft seal FILE                 the digest of FILE as it is (no HDF5 call)
 *   h5_craft rows FILE DATASET N       DATASET (int64, one-dimensional) replaced by one of N
 *                                      rows, chunked and never written (no storage)
 *   h5_craft set FILE DATASET K X      the K-th value (row-major) of the float dataset := X
 *   h5_craft attr FILE OBJECT NAME V   the integer attribute NAME of OBJECT := V (created
 *                                      when missing)
 *
 * Every command but seal needs HDF5; each ends by sealing FILE.  Exit status 0, or 1 with a
 * message. */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"
#include "results_h5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MCF_HAVE_HDF5
#include <hdf5.h>
#endif

static int die(const char *what, const char *file)
{
    fprintf(stderr, "h5_craft: %s: %s\n", file, what);
    return 1;
}

static int seal(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return die("cannot open", file);
    unsigned char *data = NULL;
    size_t size = 0, cap = 0, got;
    do {
        if (size == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            unsigned char *d = realloc(data, cap);
            if (!d) {
                free(data);
                fclose(f);
                return die("out of memory", file);
            }
            data = d;
        }
        got = fread(data + size, 1, cap - size, f);
        size += got;
    } while (got);
    fclose(f);
    /* a file without the block (of an mcf before the digest) stays as it is: checking the
       refusals against such an mcf needs its files crafted, not overwritten at the start */
    if (size < MCFI_H5_BLOCK || memcmp(data, MCFI_H5_MAGIC, sizeof MCFI_H5_MAGIC)) {
        free(data);
        fprintf(stderr, "h5_craft: %s: no digest to renew (left unsealed)\n", file);
        return 0;
    }
    mcfi_results_h5_seal(data, size);
    f = fopen(file, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f))
        ok = 0;
    free(data);
    return ok ? 0 : die("cannot write", file);
}

#ifdef MCF_HAVE_HDF5
static int rows(hid_t f, const char *name, unsigned long long n)
{
    hsize_t dims[1] = {n}, chunk[1] = {1024};
    if (H5Ldelete(f, name, H5P_DEFAULT) < 0)
        return -1;
    hid_t sp = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = sp < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, chunk) < 0
                  ? -1
                  : H5Dcreate2(f, name, H5T_STD_I64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d < 0 ? -1 : 0;
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return rc;
}

static int set(hid_t f, const char *name, unsigned long long k, double x)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t sp = d < 0 ? -1 : H5Dget_space(d);
    hssize_t n = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    double *v = n > 0 && k < (unsigned long long)n ? malloc((size_t)n * sizeof *v) : NULL;
    int rc = v && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 ? 0 : -1;
    if (!rc) {
        v[k] = x;
        rc = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 ? -1 : 0;
    }
    free(v);
    if (sp >= 0)
        H5Sclose(sp);
    if (d >= 0)
        H5Dclose(d);
    return rc;
}

static int attr(hid_t f, const char *object, const char *name, long long value)
{
    hid_t o = H5Oopen(f, object, H5P_DEFAULT);
    if (o < 0)
        return -1;
    int64_t v = value;
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Aexists(o, name) > 0
                  ? H5Aopen(o, name, H5P_DEFAULT)
                  : H5Acreate2(o, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, H5T_NATIVE_INT64, &v) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Oclose(o);
    return rc;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: h5_craft seal|rows|set|attr FILE ...\n");
        return 2;
    }
    const char *cmd = argv[1], *file = argv[2];
    if (!strcmp(cmd, "seal"))
        return seal(file);
#ifdef MCF_HAVE_HDF5
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return die("HDF5 cannot open it", file);
    int rc = -1;
    if (!strcmp(cmd, "rows") && argc == 5)
        rc = rows(f, argv[3], strtoull(argv[4], NULL, 0));
    else if (!strcmp(cmd, "set") && argc == 6)
        rc = set(f, argv[3], strtoull(argv[4], NULL, 0), strtod(argv[5], NULL));
    else if (!strcmp(cmd, "attr") && argc == 6)
        rc = attr(f, argv[3], argv[4], strtoll(argv[5], NULL, 0));
    if (H5Fclose(f) < 0 || rc)
        return die("the change failed (or a usage error)", file);
    return seal(file);
#else
    return die("built without HDF5", file);
#endif
}
