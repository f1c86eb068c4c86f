/* fileio.c — file and hash utilities: folders, atomic writes, whole-file reads, FNV-1a. */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include "mcf/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t mcfi_fnv1a64(const void *data, size_t size, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < size; k++) {
        h ^= p[k];
        h *= 1099511628211ull;
    }
    return h;
}

int mcfi_mkdir_p(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return mcf_fail(MCF_EIO, "%s: path too long", path);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return mcf_fail(MCF_EIO, "%s: cannot create folder (%s)", buf, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return mcf_fail(MCF_EIO, "%s: exists and is not a folder", path);
    return MCF_OK;
}

int mcfi_write_atomic(const char *path, const void *data, size_t size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return mcf_fail(MCF_EIO, "%s: cannot write (%s)", tmp, strerror(errno));
    const unsigned char *p = data;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return mcf_fail(MCF_EIO, "%s: write failed (%s)", tmp, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return mcf_fail(MCF_EIO, "%s: could not be flushed to disk (%s)", tmp, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return mcf_fail(MCF_EIO, "%s: cannot rename into place (%s)", path, strerror(e));
    }
    return MCF_OK;
}

int mcfi_read_file(const char *path, unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcf_fail(MCF_EIO, "%s: cannot open (%s)", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (len < cap)
            break;
        unsigned char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory reading", path);
    if (err) {
        free(buf);
        return mcf_fail(MCF_EIO, "%s: read error", path);
    }
    *data = buf;
    *size = len;
    return MCF_OK;
}
