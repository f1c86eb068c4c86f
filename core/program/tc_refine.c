/* tc_refine.c — [tc] refine = N of `mcf tc CONFIG`: after the scan of [tc] sizes and
 * temperatures, N more scans, each planned from the analysis of the scans before it: an even
 * grid of temperatures about their T_c, at the sizes whose energy histograms they bridged
 * worst (docs/methods.md, "Refinement").  The plan uses the analysis's numbers only (T_c, its
 * error, the pairs' crossings, each size's worst neighbours): no physics. */
#include "tc.h"

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* whether size L is in the plan */
static int planned(const tc_plan *p, long L)
{
    for (size_t k = 0; k < p->n_sizes; k++)
        if (p->L[k] == L)
            return 1;
    return 0;
}

int tc_refine_plan(const tc_run *t, int which, size_t max_points, tc_plan *p, char *why,
                   size_t len)
{
    memset(p, 0, sizeof *p);
    const double tc = t->tc[which], err = t->tc_err[which];
    const size_t S = t->n_found;
    if (!isfinite(tc) || !(tc > 0) || S < 2) {
        snprintf(why, len, "no T_c from the %s crossings to refine around (see tc.tsv): widen "
                 "[tc] temperatures or measure longer", which ? "xi/L" : "Binder");
        return -1;
    }
    if (max_points < 3 || max_points > sizeof p->T / sizeof p->T[0])
        max_points = max_points < 3 ? 3 : sizeof p->T / sizeof p->T[0];
    /* the sizes, and the spacing that puts the worst of them one standard deviation apart
     * (a size's energy spread taken as the same across the window) */
    double spacing = INFINITY;
    size_t worst = SIZE_MAX; /* the refined size that sets the spacing: k < S found, S + k dropped */
    for (size_t k = 0; k < S; k++) {
        if (k + 2 < S && !(t->apart[k] > TC_REFINE_APART))
            continue;
        p->L[p->n_sizes++] = t->found_L[k];
        const double one_sd = t->apart[k] > 0 && t->apart_dT[k] > 0
                                  ? t->apart_dT[k] / t->apart[k] : INFINITY;
        if (one_sd < spacing) {
            spacing = one_sd;
            worst = k;
        }
    }
    /* the sizes the analysis left out (their histograms did not overlap): refined too */
    for (size_t k = 0; k < t->n_dropped && p->n_sizes < TC_MAX_SIZES; k++) {
        p->L[p->n_sizes++] = t->dropped_L[k];
        const double one_sd = t->dropped_apart[k] > 0 && t->dropped_dT[k] > 0
                                  ? t->dropped_dT[k] / t->dropped_apart[k] : INFINITY;
        if (one_sd < spacing) {
            spacing = one_sd;
            worst = S + k;
        }
    }
    for (size_t a = 1; a < p->n_sizes; a++) /* ascending */
        for (size_t b = a; b > 0 && p->L[b - 1] > p->L[b]; b--) {
            const long tmp = p->L[b];
            p->L[b] = p->L[b - 1];
            p->L[b - 1] = tmp;
        }
    /* the half-width: the crossings of refined pairs about T_c, and three of its errors */
    double half = isfinite(err) ? 3.0 * err : 0.0;
    for (size_t k = 0; k + 1 < S; k++) {
        const double x = t->pair_tx[which][k];
        if (isfinite(x) && planned(p, t->found_L[k]) && planned(p, t->found_L[k + 1]))
            half = fmax(half, fabs(x - tc));
    }
    if (!isfinite(spacing)) /* no size's neighbours measured apart: five points */
        spacing = half > 0 ? half / 2.0 : 0.02 * tc;
    half = fmax(half, spacing);
    half = fmin(half, 0.5 * tc); /* temperatures stay positive */
    size_t n = (size_t)ceil(2.0 * half / spacing - 1e-9) + 1;
    n = n < 3 ? 3 : n > max_points ? max_points : n;
    p->n_temps = n;
    p->centre = tc;
    p->half = half;
    for (size_t i = 0; i < n; i++)
        p->T[i] = tc - half + 2.0 * half * (double)i / (double)(n - 1);
    const double step = 2.0 * half / (double)(n - 1);
    if (worst < S) {
        p->apart = t->apart[worst] * step / t->apart_dT[worst];
        p->apart_L = t->found_L[worst];
    } else if (worst != SIZE_MAX) {
        p->apart = t->dropped_apart[worst - S] * step / t->dropped_dT[worst - S];
        p->apart_L = t->dropped_L[worst - S];
    } else {
        p->apart = NAN;
    }
    return 0;
}

uint64_t tc_refine_stamp(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */
    for (int c; (c = fgetc(f)) != EOF;)
        h = (h ^ (uint64_t)(unsigned char)c) * 0x100000001b3ull;
    fclose(f);
    return h;
}
