/* fuzz_config.c — libFuzzer target: a configuration file as `mcf run` reads it.  The bytes
 * become an INI file; the reader (inih, file:line per key) and, when it accepts the file,
 * the whole check of mcfi_setup_create (core keys, plugin loading, every section against
 * the plugins' specs, scan axes, config.ini as used) must either accept or refuse with a
 * message — never crash, hang, read out of bounds or overflow (ASan + UBSan).  Plugins come
 * from MCF_PLUGIN_PATH (the test plugins and the build's, set by the CMake target).  Each is
 * also opened once here and never closed: the setup loads and unloads plugins on every input,
 * and libFuzzer keeps reading the coverage counters of a module that dlclose() removed. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* every mcf-*.so on the colon-separated path, opened and kept */
static void keep_plugins_loaded(const char *path)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/mcf-fuzz-config-%ld.ini", (long)getpid());
        setenv("MCF_PLUGIN_PATH", MCF_FUZZ_PLUGIN_PATH, 0);
        keep_plugins_loaded(getenv("MCF_PLUGIN_PATH"));
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    const int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok)
        return 0;
    mcf_config *c = NULL;
    if (mcfi_config_read(path, &c) == MCF_OK) {
        mcf_setup *s = NULL;
        if (mcfi_setup_create(c, &s) == MCF_OK)
            mcfi_setup_free(s);
    }
    mcfi_config_free(c);
    return 0;
}
