/* plot_binder.c — where the Binder cumulants of two lattice sizes cross: the curves of
 * consecutive sizes compared at their common x values (temperatures), the crossing
 * interpolated linearly where their difference changes sign, with a rough error
 * propagated from the error bars.  Drawing the marks is plot_script.c's. */
#define _POSIX_C_SOURCE 200809L

#include "plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"
#include "mcf_engine.h"

typedef struct xy {
    double x, y, e;
} xy;

static int xy_cmp(const void *a, const void *b)
{
    const xy *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* the finite points of curve g, sorted by x, into p; their number */
static size_t curve(const tsv_table *t, const plot_layout *l, size_t g, size_t ycol, long ecol,
                    xy *p)
{
    size_t n = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        double y = t->values[r * t->ncol + ycol];
        double e = ecol >= 0 ? t->values[r * t->ncol + (size_t)ecol] : 0.0;
        if (l->group[r] != g || !isfinite(l->x[r]) || !isfinite(y))
            continue;
        p[n++] = (xy){l->x[r], y, isfinite(e) ? e : 0.0};
    }
    qsort(p, n, sizeof *p, xy_cmp);
    return n;
}

/* x = x1 + h d1 / (d1 - d2) between (x1, d1) and (x2, d2), h = x2 - x1; its error from
 * those of d1 and d2 (first order): h sqrt(d2² s1² + d1² s2²) / (d1 - d2)² */
static void interpolate(const xy *a, size_t i, const double *d, const double *s,
                        plot_crossing *c)
{
    double h = a[i + 1].x - a[i].x, dd = d[i] - d[i + 1];
    double f = d[i] / dd;
    c->x = a[i].x + h * f;
    c->xerr = h * sqrt(d[i + 1] * d[i + 1] * s[i] * s[i] + d[i] * d[i] * s[i + 1] * s[i + 1]) /
              (dd * dd);
    c->y = a[i].y + f * (a[i + 1].y - a[i].y);
}

/* The crossings of curves g1 and g2 (their common x values), appended to *out. */
static int pair(const tsv_table *t, const plot_layout *l, size_t ycol, long ecol, size_t g1,
                size_t g2, xy *p, xy *q, plot_crossing **out, size_t *n, size_t *cap)
{
    size_t n1 = curve(t, l, g1, ycol, ecol, p), n2 = curve(t, l, g2, ycol, ecol, q);
    /* the common x values: a[k] from curve 1, b[k] from curve 2 (sorted, so a merge) */
    size_t k = 0;
    for (size_t i = 0, j = 0; i < n1 && j < n2;) {
        if (p[i].x < q[j].x) {
            i++;
        } else if (q[j].x < p[i].x) {
            j++;
        } else {
            p[k] = p[i++];
            q[k++] = q[j++];
        }
    }
    double *d = malloc((k + 1) * sizeof *d), *s = malloc((k + 1) * sizeof *s);
    if (!d || !s) {
        free(d);
        free(s);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }
    for (size_t i = 0; i < k; i++) {
        d[i] = p[i].y - q[i].y;
        s[i] = sqrt(p[i].e * p[i].e + q[i].e * q[i].e);
    }
    /* a sign change of the difference between neighbours i, i + 1 counts when one of
       them is significant (the difference beyond its error); between two significant
       points of opposite signs with only insignificant ones between, the first sign
       change counts.  The first zero after a nonzero d is a d[i + 1]: interpolating on
       [i, i + 1] gives exactly that x. */
    int *sig = malloc((k + 1) * sizeof *sig);
    if (!sig) {
        free(d);
        free(s);
        return mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
    }
    for (size_t i = 0; i < k; i++)
        sig[i] = d[i] > s[i] ? 1 : d[i] < -s[i] ? -1 : 0;
    long last = -1; /* the last significant point */
    int rc = MCF_OK;
    for (size_t i = 0; i + 1 < k && !rc; i++) {
        if (sig[i])
            last = (long)i;
        int change = d[i] != 0 && (d[i + 1] == 0 || d[i] * d[i + 1] < 0);
        if (!change)
            continue;
        int counts = sig[i] || sig[i + 1];
        if (!counts && last >= 0) {
            /* within a stretch of insignificant points: the first change after the last
               significant point, when the next significant one has the other sign */
            size_t j = i + 1;
            while (j < k && !sig[j])
                j++;
            int first = 1;
            for (size_t m = (size_t)last; m < i && first; m++)
                first = !(d[m] != 0 && (d[m + 1] == 0 || d[m] * d[m + 1] < 0));
            counts = j < k && sig[j] != sig[last] && first;
        }
        if (!counts)
            continue;
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 8;
            plot_crossing *grown = realloc(*out, nc * sizeof *grown);
            if (!grown) {
                rc = mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path);
                break;
            }
            *out = grown;
            *cap = nc;
        }
        plot_crossing *c = &(*out)[(*n)++];
        c->g1 = g1;
        c->g2 = g2;
        interpolate(p, i, d, s, c);
    }
    free(sig);
    free(d);
    free(s);
    return rc;
}

typedef struct order {
    double v;
    size_t g;
} order;

static int order_cmp(const void *a, const void *b)
{
    const order *p = a, *q = b;
    return (p->v > q->v) - (p->v < q->v);
}

int plot_binder_crossings(const tsv_table *t, const plot_layout *l, size_t ycol, long ecol,
                          plot_crossing **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (l->ngcol != 1 || l->ngroup < 2 || l->xcol < 0 || l->x_categorical)
        return MCF_OK;
    size_t sc = l->gcol[0];
    for (size_t g = 0; g < l->ngroup; g++)
        if (!t->numeric[l->group_row[g] * t->ncol + sc])
            return MCF_OK; /* sizes are numbers */
    order *o = malloc(l->ngroup * sizeof *o);
    xy *p = malloc((t->nrow + 1) * sizeof *p), *q = malloc((t->nrow + 1) * sizeof *q);
    size_t cap = 0;
    int rc = !o || !p || !q ? mcf_fail(MCF_ENOMEM, "out of memory plotting %s", t->path) : 0;
    for (size_t g = 0; g < l->ngroup && !rc; g++)
        o[g] = (order){t->values[l->group_row[g] * t->ncol + sc], g};
    if (!rc)
        qsort(o, l->ngroup, sizeof *o, order_cmp);
    for (size_t g = 0; g + 1 < l->ngroup && !rc; g++)
        rc = pair(t, l, ycol, ecol, o[g].g, o[g + 1].g, p, q, out, n, &cap);
    free(o);
    free(p);
    free(q);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

char *plot_crossing_text(const tsv_table *t, const plot_layout *l, const plot_crossing *c,
                         int markup)
{
    const char *xname = l->xcol >= 0 ? t->names[l->xcol] : "row";
    const size_t gc = l->gcol[0];
    char *size = markup ? plot_markup_symbol(t, t->names[gc])
                        : strdup(tsv_symbol(t, t->names[gc]));
    char *sym = markup ? plot_markup_symbol(t, xname) : strdup(tsv_symbol(t, xname));
    char *unit = markup ? plot_markup_unit(t, xname) : strdup(tsv_unit(t, xname));
    char number[128];
    int dec = mcfe_error_decimals(c->xerr);
    if (dec >= 0)
        snprintf(number, sizeof number, "%.*f ± %.*f", dec, c->x, dec, c->xerr);
    else
        snprintf(number, sizeof number, "%.6g", c->x);
    char *text = NULL;
    if (size && sym && unit) {
        const char *s1 = t->cells[l->group_row[c->g1] * t->ncol + gc];
        const char *s2 = t->cells[l->group_row[c->g2] * t->ncol + gc];
        size_t n = strlen(size) + 4 * strlen(s1) + 4 * strlen(s2) + strlen(sym) + strlen(unit) +
                   strlen(number) + 32;
        char *v1 = markup ? plot_markup_plain(s1) : strdup(s1);
        char *v2 = markup ? plot_markup_plain(s2) : strdup(s2);
        text = v1 && v2 ? malloc(n) : NULL;
        if (text)
            snprintf(text, n, "%s = %s/%s at %s = %s%s%s", size, v1, v2, sym, number,
                     unit[0] ? " " : "", unit);
        free(v1);
        free(v2);
    }
    free(size);
    free(sym);
    free(unit);
    return text;
}
