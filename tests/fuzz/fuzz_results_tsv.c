/* fuzz_results_tsv.c — libFuzzer target: a results table as `mcf plot DIR` reads it
 * (core/program/plot_tsv.c: header, rows of numbers, the `#` lines).  Any bytes must be
 * read or refused with path:line — never a crash, an out-of-bounds read or an overflow. */
#define _POSIX_C_SOURCE 200809L
#include "plot_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/mcf-fuzz-results-%ld.tsv", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    const int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok)
        return 0;
    tsv_table t;
    memset(&t, 0, sizeof t);
    t.path = path;
    tsv_read(&t, path);
    tsv_free(&t);
    return 0;
}
