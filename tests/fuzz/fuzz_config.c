/* fuzz_config.c — libFuzzer target: a configuration file as `mcf run` reads it.  The bytes
 * become an INI file; the reader (inih, file:line per key) and, when it accepts the file,
 * the whole check of mcfe_setup_create (core keys, plugin loading, every section against
 * the plugins' specs, scan axes, config.ini as used) must either accept or refuse with a
 * message — never crash, hang, read out of bounds or overflow (ASan + UBSan).  Plugins come
 * from MCF_PLUGIN_PATH (the test plugins and the build's, set by the CMake target), each
 * kept loaded (fuzz_util.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fuzz_util.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *path;
    if (!path) {
        path = fuzz_scratch_path("mcf-fuzz-config");
        setenv("MCF_PLUGIN_PATH", MCF_FUZZ_PLUGIN_PATH, 0);
        fuzz_keep_plugins_loaded(getenv("MCF_PLUGIN_PATH"));
    }
    if (!fuzz_write_file(path, data, size))
        return 0;
    mcf_config *c = NULL;
    if (mcfe_config_read(path, &c) == MCF_OK) {
        mcf_setup *s = NULL;
        if (mcfe_setup_create(c, &s) == MCF_OK)
            mcfe_setup_free(s);
    }
    mcfe_config_free(c);
    return 0;
}
