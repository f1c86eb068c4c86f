/* plot_layout.c — how the rows of a results table are laid out in its plots: the x column
 * (the last scan column that takes more than one value; the row number without scan
 * columns; the index of the distinct word for a column of words), the curves (one per
 * combination of the other varying scan columns, in order of first appearance) and the
 * title's one-valued scan columns, named by their symbols and units ("L = 16", "T / t")
 * where the table has a "# labels:" line.  The same layout serves every plot of one
 * table. */
#define _POSIX_C_SOURCE 200809L

#include "plot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

void plot_layout_free(plot_layout *l)
{
    free(l->xlabel);
    free(l->group_row);
    free(l->x);
    free(l->cat_row);
    free(l->gcol);
    free(l->group);
    if (l->group_title)
        for (size_t g = 0; g < l->ngroup; g++)
            free(l->group_title[g]);
    free(l->group_title);
    free(l->fixed);
    memset(l, 0, sizeof *l);
}

/* 1 when column col holds more than one distinct value (compared as text). */
static int column_varies(const tsv_table *t, size_t col)
{
    for (size_t r = 1; r < t->nrow; r++)
        if (strcmp(t->cells[r * t->ncol + col], t->cells[col]) != 0)
            return 1;
    return 0;
}

/* "L = 16, T = 2.3 J" for the n columns cols of row r.  Owned by the caller. */
static char *assignments(const tsv_table *t, const size_t *cols, size_t n, size_t r)
{
    size_t len = 1;
    char **parts = calloc(n + 1, sizeof *parts);
    if (!parts)
        return NULL;
    int oom = 0;
    for (size_t i = 0; i < n && !oom; i++) {
        parts[i] = plot_value_text(t, t->names[cols[i]], t->cells[r * t->ncol + cols[i]]);
        oom = !parts[i];
        if (parts[i])
            len += strlen(parts[i]) + 2;
    }
    char *s = oom ? NULL : malloc(len);
    if (s) {
        s[0] = '\0';
        for (size_t i = 0; i < n; i++) {
            if (i)
                strcat(s, ", ");
            strcat(s, parts[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(parts[i]);
    free(parts);
    return s;
}

static int same_group(const tsv_table *t, const plot_layout *l, size_t r1, size_t r2)
{
    for (size_t i = 0; i < l->ngcol; i++) {
        size_t c = l->gcol[i];
        if (strcmp(t->cells[r1 * t->ncol + c], t->cells[r2 * t->ncol + c]) != 0)
            return 0;
    }
    return 1;
}

int plot_layout_build(const tsv_table *t, plot_layout *l, int scalar)
{
    memset(l, 0, sizeof *l);
    l->scalar = scalar;
    l->xcol = -1;
    l->x = malloc(t->nrow * sizeof *l->x);
    l->group = malloc(t->nrow * sizeof *l->group);
    size_t *first = malloc(t->nrow * sizeof *first); /* first row of each group */
    l->cat_row = malloc(t->nrow * sizeof *l->cat_row);
    l->gcol = malloc((t->nscan + 1) * sizeof *l->gcol);
    size_t *fixed = malloc((t->nscan + 1) * sizeof *fixed);
    size_t nfixed = 0;
    if (!l->x || !l->group || !first || !l->cat_row || !l->gcol || !fixed) {
        free(first);
        free(fixed);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }

    if (t->nscan == 0) {
        l->xlabel = plot_axis_text(t, "row");
        for (size_t r = 0; r < t->nrow; r++)
            l->x[r] = (double)(r + 1);
    } else {
        /* x: the last scan column with more than one value, so that a scan of a model
         * parameter at one temperature is drawn against that parameter */
        size_t xi = t->nscan - 1;
        for (size_t i = t->nscan; i-- > 0;)
            if (column_varies(t, t->scan[i])) {
                xi = i;
                break;
            }
        size_t xc = t->scan[xi];
        l->xcol = (long)xc;
        for (size_t i = 0; i < t->nscan; i++) {
            if (i == xi)
                continue;
            if (column_varies(t, t->scan[i]))
                l->gcol[l->ngcol++] = t->scan[i];
            else
                fixed[nfixed++] = t->scan[i];
        }
        l->xlabel = plot_axis_text(t, t->names[xc]);
        for (size_t r = 0; r < t->nrow; r++)
            if (!t->numeric[r * t->ncol + xc])
                l->x_categorical = 1;
        for (size_t r = 0; r < t->nrow; r++) {
            if (!l->x_categorical) {
                l->x[r] = t->values[r * t->ncol + xc];
                continue;
            }
            const char *word = t->cells[r * t->ncol + xc];
            size_t k = 0;
            while (k < l->ncat && strcmp(t->cells[l->cat_row[k] * t->ncol + xc], word) != 0)
                k++;
            if (k == l->ncat)
                l->cat_row[l->ncat++] = r;
            l->x[r] = (double)k;
        }
    }
    l->fixed = assignments(t, fixed, nfixed, 0);
    free(fixed);
    if (!l->fixed || !l->xlabel) {
        free(first);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }

    for (size_t r = 0; r < t->nrow; r++) {
        size_t g = 0;
        while (g < l->ngroup && !same_group(t, l, first[g], r))
            g++;
        if (g == l->ngroup)
            first[l->ngroup++] = r;
        l->group[r] = g;
    }
    l->group_title = calloc(l->ngroup, sizeof *l->group_title);
    l->group_row = malloc((l->ngroup + 1) * sizeof *l->group_row);
    if (!l->group_title || !l->group_row) {
        free(first);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }
    for (size_t g = 0; g < l->ngroup; g++) {
        l->group_row[g] = first[g];
        l->group_title[g] = assignments(t, l->gcol, l->ngcol, first[g]);
        if (!l->group_title[g]) {
            free(first);
            return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
        }
    }
    free(first);
    return MCF_OK;
}
