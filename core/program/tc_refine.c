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
    size_t S = 0; /* the sizes analysed (not left out) */
    for (size_t k = 0; k < t->n_found; k++)
        S += !t->found[k].left_out;
    if (!isfinite(tc) || !(tc > 0) || S < 2) {
        snprintf(why, len, "no T_c from the %s crossings to refine around (see tc.tsv): widen "
                 "[tc] temperatures or measure longer", which ? "xi/L" : "Binder");
        return -1;
    }
    if (max_points < 3 || max_points > sizeof p->T / sizeof p->T[0])
        max_points = max_points < 3 ? 3 : sizeof p->T / sizeof p->T[0];
    /* the sizes: of those analysed the two largest and those whose worst neighbours were
     * more than TC_REFINE_APART apart, and every size left out (its histograms did not
     * overlap); and the spacing that puts the worst of them one standard deviation apart
     * (a size's energy spread taken as the same across the window) */
    double spacing = INFINITY;
    size_t worst = SIZE_MAX, a = 0; /* the refined size that sets the spacing; analysed seen */
    for (size_t k = 0; k < t->n_found && p->n_sizes < TC_MAX_SIZES; k++) {
        const tc_size_found *f = &t->found[k];
        const int largest = !f->left_out && a++ + 2 >= S;
        if (!f->left_out && !largest && !(f->apart > TC_REFINE_APART))
            continue;
        p->L[p->n_sizes++] = f->L;
        const double one_sd = f->apart > 0 && f->apart_dT > 0 ? f->apart_dT / f->apart
                                                              : INFINITY;
        if (one_sd < spacing) {
            spacing = one_sd;
            worst = k;
        }
    }
    for (size_t i = 1; i < p->n_sizes; i++) /* ascending */
        for (size_t b = i; b > 0 && p->L[b - 1] > p->L[b]; b--) {
            const long tmp = p->L[b];
            p->L[b] = p->L[b - 1];
            p->L[b - 1] = tmp;
        }
    /* the half-width: the crossings of refined pairs about T_c, and three of its errors */
    double half = isfinite(err) ? 3.0 * err : 0.0;
    long below = 0; /* the analysed size before, whose pair with this one is pair_tx[a - 1] */
    a = 0;
    for (size_t k = 0; k < t->n_found; k++) {
        const tc_size_found *f = &t->found[k];
        if (f->left_out)
            continue;
        const double x = a ? t->pair_tx[which][a - 1] : NAN;
        if (isfinite(x) && planned(p, below) && planned(p, f->L))
            half = fmax(half, fabs(x - tc));
        below = f->L;
        a++;
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
    const tc_size_found *w = worst == SIZE_MAX ? NULL : &t->found[worst];
    p->apart = w ? w->apart * step / w->apart_dT : NAN;
    p->apart_L = w ? w->L : 0;
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
