/* fuzz_results_tsv.c — libFuzzer target: a results table as `mcf plot DIR` reads it
 * (core/program/plot_tsv.c: header, rows of numbers, the `#` lines with "# labels:"), and
 * what the plot makes of it without gnuplot: the layout and axis texts (plot_layout.c) and
 * the Binder crossings (plot_binder.c).  Any bytes must be read or refused with path:line —
 * never a crash, an out-of-bounds read or an overflow. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fuzz_util.h"
#include "plot_internal.h"
#include "mcf/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    plot_layout l;
    memset(&l, 0, sizeof l);
    if (tsv_read(&t, path) == MCF_OK && plot_layout_build(&t, &l, 1) == MCF_OK) {
        for (size_t c = 0; c < t.ncol; c++) {
            free(plot_axis_text(&t, t.names[c]));
            free(plot_value_text(&t, t.names[c], t.cells[c]));
            free(plot_markup_plain(t.cells[c]));
            plot_crossing *cross = NULL;
            size_t n = 0;
            if (plot_binder_crossings(&t, &l, c, c + 1 < t.ncol ? (long)c + 1 : -1, &cross,
                                      &n) == MCF_OK)
                for (size_t k = 0; k < 2 * n; k++)
                    free(plot_crossing_text(&t, &l, &cross[k / 2], (int)(k % 2)));
            free(cross);
        }
    }
    plot_layout_free(&l);
    tsv_free(&t);
    return 0;
}
