/* results_h5_seal.c — the 512-byte user block in front of results.h5 (results_h5.h): its
 * magic, the length of the HDF5 image after it and that image's FNV-1a 64 digest, written
 * when mcf writes the file (mcfi_results_h5_seal) and checked when `mcf dos` reads it
 * (mcfi_results_h5_check, mcfe_results_h5_load) before HDF5 parses a byte: libhdf5 crashes
 * and hangs on damaged files, so a file that is not whole as mcf wrote it never reaches it.
 * No HDF5 call here (moved out of results_h5.c, which builds the image). */
#define _POSIX_C_SOURCE 200809L
#include "results_h5.h"

#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* ---- the digest: no HDF5 call here --------------------------------------------------- */

static uint64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++, v >>= 8)
        p[k] = (unsigned char)(v & 0xff);
}

/* FNV-1a, 64 bits, from its standard offset basis (not MCF_FNV_OFFSET: a reader in another
 * language finds this one in every description of FNV-1a) */
static uint64_t digest(const unsigned char *image, size_t size)
{
    return mcfi_fnv1a64(image + MCFI_H5_BLOCK, size - MCFI_H5_BLOCK, 14695981039346656037ull);
}

void mcfi_results_h5_seal(unsigned char *image, size_t size)
{
    memset(image, 0, MCFI_H5_BLOCK);
    memcpy(image, MCFI_H5_MAGIC, sizeof MCFI_H5_MAGIC);
    put_le64(image + 16, (uint64_t)size);
    put_le64(image + 24, digest(image, size));
}

int mcfi_results_h5_check(const unsigned char *image, size_t size, uint64_t *written)
{
    if (written)
        *written = 0;
    if (size < 32 || memcmp(image, MCFI_H5_MAGIC, sizeof MCFI_H5_MAGIC))
        return MCFI_H5_UNSEALED;
    const uint64_t length = get_le64(image + 16);
    if (written)
        *written = length;
    if (length != (uint64_t)size || size < MCFI_H5_BLOCK)
        return MCFI_H5_LENGTH;
    for (size_t k = 32; k < MCFI_H5_BLOCK; k++)
        if (image[k])
            return MCFI_H5_DAMAGED;
    return get_le64(image + 24) == digest(image, size) ? MCFI_H5_SEALED : MCFI_H5_DAMAGED;
}

/* what to do about a results.h5 that cannot be read: write it again */
#define WRITE_AGAIN "`mcf resume` of its output folder writes it again (a finished run's " \
                    "results too)"

int mcfe_results_h5_load(const char *path, unsigned char **image, size_t *size)
{
    struct stat st;
    unsigned char *data = NULL;
    size_t len = 0;
    *image = NULL;
    *size = 0;
    switch (mcfi_read_file(path, O_RDONLY | O_NOFOLLOW, mcfi_memory_bytes(), &data, &len,
                           &st)) {
    case MCFI_FILE_OK:
        break;
    case MCFI_FILE_CANNOT_OPEN:
        if (errno == ENOENT)
            return mcf_fail(MCF_EINVAL, "%s: no such file (a run writes it when mcf is built "
                            "with HDF5; a run of an mcf without HDF5 has none)", path);
        if (errno == ELOOP)
            return mcf_fail(MCF_EIO, "%s: is a symbolic link; mcf reads results.h5 only as "
                            "the regular file a run wrote (copy the file itself there)", path);
        return mcf_fail(MCF_EIO, "%s: cannot read (%s)", path, strerror(errno));
    case MCFI_FILE_NOT_REGULAR:
        return mcf_fail(MCF_EIO, "%s: not a regular file but %s; results.h5 is a file that "
                        "mcf writes: remove it; " WRITE_AGAIN, path, mcfi_file_kind(st.st_mode));
    default:
        return mcf_fail(MCF_EFORMAT, "%s: %llu bytes, more than this machine's memory; not a "
                        "results.h5 that mcf can read", path, (unsigned long long)st.st_size);
    }
    uint64_t written;
    int seal = mcfi_results_h5_check(data, len, &written);
    if (seal == MCFI_H5_SEALED) {
        *image = data;
        *size = len;
        return MCF_OK;
    }
    free(data);
    if (seal == MCFI_H5_UNSEALED)
        return mcf_fail(MCF_EFORMAT, "%s: does not start with the digest that mcf records in "
                        "every results.h5 it writes: a file of another program, or of an mcf "
                        "older than the digest, which mcf does not parse; "
                        WRITE_AGAIN, path);
    if (seal == MCFI_H5_LENGTH)
        return mcf_fail(MCF_EFORMAT, "%s: %zu bytes, but mcf wrote %llu: the file was cut "
                        "short or extended (damaged); " WRITE_AGAIN, path, len,
                        (unsigned long long)written);
    return mcf_fail(MCF_EFORMAT, "%s: its bytes do not match the digest mcf recorded when it "
                    "wrote it: the file is damaged (or was changed by another program), and "
                    "mcf does not parse it; " WRITE_AGAIN, path);
}
