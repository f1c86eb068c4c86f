/* kbe_slab.c — k over ranks (kbe_spec.gather; docs/architecture.md, "MPI over k"): each rank
 * keeps a contiguous slab of the k grid in the two-time storage and every step works on its
 * slab; what needs every k is gathered through the caller's service (mcf/dynamics.h, no MPI
 * here).  Second Born's self-energy row at t_m needs G(t_m, t_s) at every k: the row is
 * gathered into a ring of the last rows at every k (one row at order 2; the strip's p rows
 * and the new one at order p > 2), each rank forms the whole FFT over the ring (the same
 * bits everywhere) and keeps its slab of Sigma.  Sums over k (the local density, the
 * energies) and maxima are formed from gathered per-k values in k order, as one process forms
 * them, so any number of ranks gives the single process's bits. */
#include "kbe_internal.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kbe_slab(size_t nk, unsigned r, unsigned size, size_t *k0, size_t *n)
{
    const size_t base = nk / size, rem = nk % size;
    *n = base + (r < rem ? 1 : 0);
    *k0 = (size_t)r * base + (r < rem ? r : rem);
}

/* the most blocks a row's record holds (kbe_rows.c): G^< and G^> of row `steps`, I^<, and at
 * order p > 2 the start block's rows 1 .. K - 1 and their I^< (bounded above) */
static size_t record_blocks(const kbe *w)
{
    const size_t K = w->order > 2 ? w->kstart : 0;
    return 2 * (w->spec.steps + 1) + 1 + (K + 1) * (K + 2) + K;
}

int kbe_slab_init(kbe *w)
{
    const mcf_dynamics_gather *g = w->spec.gather;
    const size_t P = g->size, nk = w->nk_all, rec = record_blocks(w);
    w->slab_k0 = malloc(P * sizeof *w->slab_k0);
    w->slab_n = malloc(P * sizeof *w->slab_n);
    w->bytes = malloc(P * sizeof *w->bytes);
    w->eps_all = malloc(2 * nk * sizeof *w->eps_all);
    w->pack = malloc(rec * 4 * w->spec.nk * sizeof *w->pack);
    w->recv = malloc(rec * 4 * nk * sizeof *w->recv);
    w->whole = malloc(2 * 4 * nk * sizeof *w->whole);
    if (!w->slab_k0 || !w->slab_n || !w->bytes || !w->eps_all || !w->pack || !w->recv ||
        !w->whole)
        return MCF_ENOMEM;
    for (unsigned r = 0; r < g->size; r++)
        kbe_slab(nk, r, g->size, &w->slab_k0[r], &w->slab_n[r]);
    if (!kbe_collisions(w))
        return MCF_OK;
    w->ring = w->order > 2 ? (size_t)w->order + 1 : 1;
    w->ring_row = malloc(w->ring * sizeof *w->ring_row);
    w->rows = malloc(w->ring * 2 * (w->spec.steps + 1) * 4 * nk * sizeof *w->rows);
    w->sfull = malloc((size_t)w->nthreads * 2 * 4 * nk * sizeof *w->sfull);
    if (!w->ring_row || !w->rows || !w->sfull)
        return MCF_ENOMEM;
    for (size_t q = 0; q < w->ring; q++)
        w->ring_row[q] = SIZE_MAX;
    return MCF_OK;
}

void kbe_slab_free(kbe *w)
{
    free(w->slab_k0);
    free(w->slab_n);
    free(w->bytes);
    free(w->eps_all);
    free(w->pack);
    free(w->recv);
    free(w->whole);
    free(w->ring_row);
    free(w->rows);
    free(w->sfull);
}

void kbe_slab_gather(const kbe *w, const double complex *src, size_t nblk, void *full,
                     int to_all)
{
    const mcf_dynamics_gather *g = w->spec.gather;
    const size_t nk = w->nk_all;
    for (unsigned r = 0; r < g->size; r++)
        w->bytes[r] = (uint64_t)(nblk * 4 * w->slab_n[r] * sizeof(double complex));
    if (to_all)
        (void)g->allgather(g->ctx, src, w->bytes, w->recv);
    else
        (void)g->gather(g->ctx, src, w->bytes, w->recv);
    if (!to_all && g->rank != 0)
        return;
    const double complex *in = w->recv;
    unsigned char *out = full; /* a record's blocks need no alignment */
    const size_t z = sizeof *in;
    for (unsigned r = 0; r < g->size; r++) { /* rank r's blocks, then the next rank's */
        const size_t n = w->slab_n[r], k0 = w->slab_k0[r];
        for (size_t b = 0; b < nblk; b++)
            for (int ab = 0; ab < 4; ab++) {
                memcpy(out + (b * 4 * nk + (size_t)ab * nk + k0) * z, in, n * z);
                in += n;
            }
    }
}

void kbe_slab_take(const kbe *w, const double complex *full, size_t nblk, double complex *dst)
{
    const size_t nk = w->nk_all, n = w->spec.nk;
    for (size_t b = 0; b < nblk; b++)
        for (int ab = 0; ab < 4; ab++)
            memcpy(dst + b * 4 * n + (size_t)ab * n, full + b * 4 * nk + (size_t)ab * nk + w->k0,
                   n * sizeof *dst);
}

static double complex *ring_slot(const kbe *w, size_t m)
{
    return w->rows + (m % w->ring) * 2 * (w->spec.steps + 1) * 4 * w->nk_all;
}

void kbe_slab_sync_row(kbe *w, size_t m)
{
    double complex *slot = ring_slot(w, m);
    kbe_slab_gather(w, kbe_block(w, 1, m, 0), m + 1, slot, 1);
    kbe_slab_gather(w, kbe_block(w, 0, m, 0), m + 1, slot + (w->spec.steps + 1) * 4 * w->nk_all,
                    1);
    w->ring_row[m % w->ring] = m;
}

const double complex *kbe_slab_block(const kbe *w, int lesser, size_t m, size_t s)
{
    const size_t bs = 4 * w->nk_all;
    return ring_slot(w, m) + (lesser ? 0 : (w->spec.steps + 1) * bs) + s * bs;
}

double kbe_slab_max(const kbe *w, double x)
{
    const mcf_dynamics_gather *g = w->spec.gather;
    for (unsigned r = 0; r < g->size; r++)
        w->bytes[r] = sizeof x;
    double *all = (double *)w->recv; /* size doubles: recv holds a row's record, far more */
    (void)g->allgather(g->ctx, &x, w->bytes, all);
    double m = all[0];
    for (unsigned r = 1; r < g->size; r++)
        m = fmax(m, all[r]);
    return m;
}
