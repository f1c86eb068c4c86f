/* kbe_collision.c — second Born's self-energy row and the collision integrals of one time:
 *
 *   Sigma^lg(t_m, t_s), s = 0 .. m, by kbe_sigma_2b from G^lg(t_m, t_s) and
 *   G^gl(t_s, t_m) = -G^gl(t_m, t_s)^dagger (per k);
 *   I^lg(t_m, t_j) = int_0^{t_m} [Sigma^> - Sigma^<](t_m, s) G^lg(s, t_j) ds
 *                  - int_0^{t_j} Sigma^lg(t_m, s) [G^> - G^<](s, t_j) ds,  j = 0 .. m,
 *   both by the trapezoid rule on the grid (second order; a length-zero interval gives 0),
 *   G(s, t_j) for s < j from G(t_j, s) by G(t, t') = -G(t', t)^dagger.
 *
 * Each s of the self-energy and each j of the integrals is one task of the OpenMP threads,
 * its sums in a fixed order: the same bits on any number of threads. */
#include "kbe_internal.h"

#include <omp.h>

void kbe_sigma_pair(kbe *w, size_t m, size_t s, double complex *sl, double complex *sg, int t)
{
    const size_t nk = w->nk_all;
    if (w->spec.selfenergy == KBE_SELFENERGY_GIVEN) {
        w->spec.sigma(w->spec.sigma_ctx, m, s, sl, sg);
        return;
    }
    double complex *B = w->bbuf + (size_t)t * 4 * nk;
    const double uu = w->U[m] * w->U[s];
    /* over ranks: G at every k from the ring, Sigma at every k, then this rank's slab */
    const int ranks = w->spec.gather != NULL;
    double complex *whole = ranks ? w->sfull + (size_t)t * 8 * nk : NULL;
    for (int lesser = 0; lesser < 2; lesser++) {
        /* A = G^lg(t_m, t_s) as stored, B = G^gl(t_s, t_m) = -G^gl(t_m, t_s)^dagger */
        const double complex *o = ranks ? kbe_slab_block(w, !lesser, m, s)
                                        : kbe_block(w, !lesser, m, s);
        for (size_t k = 0; k < nk; k++) {
            B[k] = -conj(o[k]);
            B[nk + k] = -conj(o[2 * nk + k]);
            B[2 * nk + k] = -conj(o[nk + k]);
            B[3 * nk + k] = -conj(o[3 * nk + k]);
        }
        const double complex *A = ranks ? kbe_slab_block(w, lesser, m, s)
                                        : kbe_block(w, lesser, m, s);
        double complex *S = ranks ? whole + (lesser ? 0 : 4 * nk) : lesser ? sl : sg;
        kbe_sigma_2b(w->spec.sigma_method, uu, A, B, S, w->sw[t]);
        if (ranks)
            kbe_slab_take(w, S, 1, lesser ? sl : sg);
    }
}

void kbe_sigma_row(kbe *w, size_t m)
{
    const size_t nk = w->spec.nk;
    if (w->spec.selfenergy == KBE_SELFENERGY_GIVEN) { /* the caller's, in order */
        for (size_t s = 0; s <= m; s++)
            w->spec.sigma(w->spec.sigma_ctx, m, s, w->sl + s * 4 * nk, w->sg + s * 4 * nk);
        return;
    }
    if (w->spec.gather) /* the new row at every k, on every rank */
        kbe_slab_sync_row(w, m);
#pragma omp parallel for schedule(dynamic) num_threads(w->nthreads)
    for (size_t s = 0; s <= m; s++)
        kbe_sigma_pair(w, m, s, w->sl + s * 4 * nk, w->sg + s * 4 * nk, omp_get_thread_num());
}

void kbe_collision_row(kbe *w, size_t m, double complex *il, double complex *ig)
{
    const size_t nk = w->spec.nk, bs = 4 * nk;
    const double dt = w->spec.dt;
    double complex *sr = w->sr; /* Sigma^R(t_m, t_s) = Sigma^> - Sigma^< */
    for (size_t q = 0; q < (m + 1) * bs; q++)
        sr[q] = w->sg[q] - w->sl[q];
#pragma omp parallel for schedule(dynamic)
    for (size_t j = 0; j <= m; j++) {
        double complex *ol = il + j * bs, *og = ig + j * bs;
        for (size_t q = 0; q < bs; q++)
            ol[q] = og[q] = 0.0;
        for (size_t s = 0; s <= m && m > 0; s++) { /* int_0^{t_m} Sigma^R G^lg */
            const double wt = dt * (s == 0 || s == m ? 0.5 : 1.0);
            const int adj = s < j;
            const size_t r = adj ? j : s, c = adj ? s : j;
            block_madd(nk, wt, sr + s * bs, kbe_block(w, 1, r, c), adj, ol);
            block_madd(nk, wt, sr + s * bs, kbe_block(w, 0, r, c), adj, og);
        }
        for (size_t s = 0; s <= j && j > 0; s++) { /* - int_0^{t_j} Sigma^lg [G^> - G^<] */
            const double wt = dt * (s == 0 || s == j ? 0.5 : 1.0);
            /* G(t_s, t_j), s <= j: from (t_j, t_s) by the adjoint */
            const double complex *gg = kbe_block(w, 0, j, s), *gl = kbe_block(w, 1, j, s);
            block_madd(nk, -wt, w->sl + s * bs, gg, s < j, ol);
            block_madd(nk, wt, w->sl + s * bs, gl, s < j, ol);
            block_madd(nk, -wt, w->sg + s * bs, gg, s < j, og);
            block_madd(nk, wt, w->sg + s * bs, gl, s < j, og);
        }
    }
}
