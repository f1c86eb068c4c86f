/* fuzz_util.h — what the libFuzzer targets of tests/fuzz share (static inline: each target
 * is one translation unit). */
#ifndef MCF_FUZZ_UTIL_H
#define MCF_FUZZ_UTIL_H

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Every mcf-*.so on the colon-separated path, opened once and never closed: a setup loads
 * and unloads plugins on every input, and libFuzzer keeps reading the coverage counters of a
 * module that dlclose() removed. */
static inline void fuzz_keep_plugins_loaded(const char *path)
{
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path);
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char pattern[4200];
        snprintf(pattern, sizeof pattern, "%s/mcf-*.so", d);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc; k++)
                (void)dlopen(g.gl_pathv[k], RTLD_NOW | RTLD_NODELETE);
        globfree(&g);
    }
}

static inline int fuzz_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    (void)remove(path);
    return 0;
}

/* The fuzzer's bytes into the file at path: 1 when all are written (write(2), not stdio:
 * a buffer less to allocate an input). */
static inline int fuzz_write_file(const char *path, const void *data, size_t size)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 0;
    const char *p = data;
    size_t left = size;
    while (left) {
        const ssize_t w = write(fd, p, left);
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    return close(fd) == 0 && !left;
}

/* The file or folder tree that a target writes to, removed when the process exits. */
static char fuzz_scratch[256];

static inline void fuzz_remove_scratch(void)
{
    (void)nftw(fuzz_scratch, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A scratch path for this process: /dev/shm/NAME-PID where there is a tmpfs (a resumed run
 * fsyncs its checkpoint), else /tmp/NAME-PID; removed at exit. */
static inline const char *fuzz_scratch_path(const char *name)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_scratch, sizeof fuzz_scratch, "%s/%s-%ld", base, name, (long)getpid());
    atexit(fuzz_remove_scratch);
    return fuzz_scratch;
}

#endif
