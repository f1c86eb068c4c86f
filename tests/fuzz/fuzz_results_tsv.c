/* fuzz_results_tsv.c — libFuzzer target: a results table as `mcf plot DIR` reads it
 * (core/program/plot_tsv.c: header, rows of numbers, the `#` lines).  Any bytes must be
 * read or refused with path:line — never a crash, an out-of-bounds read or an overflow. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fuzz_util.h"
#include "plot_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *path;
    if (!path)
        path = fuzz_scratch_path("mcf-fuzz-results");
    if (!fuzz_write_file(path, data, size))
        return 0;
    tsv_table t;
    memset(&t, 0, sizeof t);
    t.path = path;
    tsv_read(&t, path);
    tsv_free(&t);
    return 0;
}
