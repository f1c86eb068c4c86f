/* kbe_internal.h — the propagator's state and the helpers its files share (kbe_core.c:
 * storage, checks, accessors; kbe_step.c: the step; kbe_collision.c: second Born's rows).
 * Not for the tests or the plugin. */
#ifndef MCF_KBE_INTERNAL_H
#define MCF_KBE_INTERNAL_H

#include "kbe_core.h"

#include <stdint.h>

struct kbe {
    kbe_spec spec;       /* eps and rho0 point to the copies below */
    double *eps;         /* nk x 2 */
    double complex *rho0; /* nk x 4 */
    double *E, *U;       /* the drive at t_0 .. t_steps */
    size_t n;            /* steps taken */
    double corrector_residual; /* max |change| of rho(t_n) by the last step's last corrector
                                * pass (0 before a step or without passes) */
    /* G^< and G^> on the triangle i >= j: block kbe_pair(i, j), 4 nk values (ab major, k
     * innermost) */
    double complex *gl, *gg;
    double complex *scratch; /* 5 blocks of 4 nk: a step's V, h(t_n), h(t_{n+1}), their
                              * mean and a temporary (kbe_step.c) */
    /* second Born (NULL otherwise): the self-energy's row at one time (steps + 1 blocks of
     * 4 nk, lesser and greater); the collision integrals' row at t_n (j = 0 .. n) and the one
     * at t_{n+1} being formed; I^<(t_n, t_n) of every step */
    double complex *sl, *sg, *sr; /* sr: Sigma^> - Sigma^<, the collision integrals' scratch */
    double complex *il, *ig, *jl, *jg;
    double complex *idiag;
    /* per OpenMP thread of kbe_sigma_row (nthreads, fixed at creation): FFT tables and
     * scratch, and a block for G^gl(t_s, t_m) */
    int nthreads;
    kbe_sigma_work **sw;
    double complex *bbuf;
    /* kbe_row_read: the row it takes next (0 after kbe_create; kbe_rows.c) */
    size_t row_next;
    /* second Born after kbe_row_read: il, ig (the integrals' row at t_n) are not formed yet;
     * kbe_step forms them first (a run rebuilt only to read G pays nothing for them) */
    int collision_stale;
    /* order p > 2 (kbe_bdf.c, kbe_start.c): the BDF weights a_0 .. a_p; Gregory's weights of
     * int_0^{t_n} for n = 0 .. 2p + 1 (rows of 2p + 2, the larger n from the last row); h of
     * the start block's times 0 .. K (nk x 4 each); with collisions the start block's
     * self-energy Sigma^lg(t_m, t_s), m, s = 0 .. K (both triangles); per thread three
     * blocks of scratch (the rows' integrals) */
    int order;
    size_t kstart; /* the start block's last row K = 2p - 2 (kbe_start.c says why) */
    double bdf[KBE_GREGORY_MAX_ORDER + 1];
    double *greg;
    double complex *hblk, *sblk, *kbuf;
    int kthreads;
    /* the self-energy Sigma^lg(t_j, t_s), s = 0 .. n + 1, of one time t_j of the strip
     * (collisions only; steps + 1 blocks each) */
    double complex *tl, *tg;
    /* k over ranks (kbe_slab.c; spec.gather NULL: nk_all = spec.nk, k0 = 0, nothing
     * below allocated).  spec.nk is this rank's slab, every block above is of the slab. */
    size_t nk_all, k0;
    double *eps_all;           /* nk_all x 2 (the energies) */
    size_t *slab_k0, *slab_n;  /* per rank */
    uint64_t *bytes;           /* per rank, the service's counts */
    double complex *pack;      /* a row's record blocks of the slab, packed */
    double complex *recv;      /* the same gathered: every rank's, in rank order */
    double complex *whole;     /* 2 blocks of nk_all k (a density, a Green's function) */
    /* second Born: the last `ring` rows of G^< and G^> at every k (row m in slot m % ring,
     * its G^< blocks then its G^> blocks, steps + 1 each), ring_row[slot] the row held or
     * SIZE_MAX; per thread 2 blocks of nk_all for Sigma before the slab is kept */
    size_t ring, *ring_row;
    double complex *rows, *sfull;
};

/* whether the step carries collision integrals (second Born or a given self-energy) */
static inline int kbe_collisions(const kbe *w)
{
    return w->spec.selfenergy == KBE_SELFENERGY_2B || w->spec.selfenergy == KBE_SELFENERGY_GIVEN;
}

/* the block of the time pair (i, j), i >= j */
static inline size_t kbe_pair(size_t i, size_t j) { return i * (i + 1) / 2 + j; }

/* pointer to block (i, j), i >= j, of G^< (lesser) or G^> */
static inline double complex *kbe_block(const kbe *w, int lesser, size_t i, size_t j)
{
    return (lesser ? w->gl : w->gg) + kbe_pair(i, j) * 4 * w->spec.nk;
}

/* h_k at drive (E, U) and local density rho_loc (4 values) for every k into h (nk x 4) */
void kbe_fill_h(const kbe *w, double E, double U, const double complex *rho_loc,
                double complex *h);
/* (1/Nk) sum_k rho_k(t_n) into rho_loc (4 values) */
void kbe_local_density(const kbe *w, size_t n, double complex *rho_loc);
/* second Born's row at t_m: Sigma^lg(t_m, t_s) for s = 0 .. m into w->sl, w->sg
 * (kbe_collision.c) */
void kbe_sigma_row(kbe *w, size_t m);
/* Sigma^lg(t_m, t_s), m >= s, into sl, sg (4 nk each) with thread t's scratch (second Born)
 * or by the caller's function (given: call from one thread) */
void kbe_sigma_pair(kbe *w, size_t m, size_t s, double complex *sl, double complex *sg, int t);
/* the collision integrals I^lg(t_m, t_j), j = 0 .. m, from w->sl, w->sg (the row at t_m)
 * and G on the rows <= m, into il, ig ((m + 1) blocks of 4 nk) */
void kbe_collision_row(kbe *w, size_t m, double complex *il, double complex *ig);

/* y_k = V_k x_k per k for the blocks x, y (4 nk values each, [ab][k]; V: nk 2 x 2 matrices,
 * row-major); y may be x */
static inline void kbe_apply_left(const double complex *V, size_t nk, const double complex *x,
                                  double complex *y)
{
    for (size_t k = 0; k < nk; k++) {
        const double complex *v = V + 4 * k;
        const double complex x0 = x[k], x1 = x[nk + k], x2 = x[2 * nk + k],
                             x3 = x[3 * nk + k];
        y[k] = v[0] * x0 + v[1] * x2;
        y[nk + k] = v[0] * x1 + v[1] * x3;
        y[2 * nk + k] = v[2] * x0 + v[3] * x2;
        y[3 * nk + k] = v[2] * x1 + v[3] * x3;
    }
}

/* acc[q][k] += wt (a b)_q per k, for blocks a, b of 4 nk values ([ab][k]); b_adj: b holds
 * G(t_j, t_s) and the product takes -b^dagger (G(t_s, t_j) for s < j) */
static inline void block_madd(size_t nk, double wt, const double complex *restrict a,
                              const double complex *restrict b, int b_adj,
                              double complex *restrict acc)
{
    const double complex *a0 = a, *a1 = a + nk, *a2 = a + 2 * nk, *a3 = a + 3 * nk;
    if (!b_adj) {
        const double complex *b0 = b, *b1 = b + nk, *b2 = b + 2 * nk, *b3 = b + 3 * nk;
        for (size_t k = 0; k < nk; k++) {
            acc[k] += wt * (a0[k] * b0[k] + a1[k] * b2[k]);
            acc[nk + k] += wt * (a0[k] * b1[k] + a1[k] * b3[k]);
            acc[2 * nk + k] += wt * (a2[k] * b0[k] + a3[k] * b2[k]);
            acc[3 * nk + k] += wt * (a2[k] * b1[k] + a3[k] * b3[k]);
        }
    } else { /* (-b^dagger)_{pq} = -conj(b_{qp}) */
        const double complex *b0 = b, *b1 = b + 2 * nk, *b2 = b + nk, *b3 = b + 3 * nk;
        for (size_t k = 0; k < nk; k++) {
            acc[k] -= wt * (a0[k] * conj(b0[k]) + a1[k] * conj(b2[k]));
            acc[nk + k] -= wt * (a0[k] * conj(b1[k]) + a1[k] * conj(b3[k]));
            acc[2 * nk + k] -= wt * (a2[k] * conj(b0[k]) + a3[k] * conj(b2[k]));
            acc[3 * nk + k] -= wt * (a2[k] * conj(b1[k]) + a3[k] * conj(b3[k]));
        }
    }
}

/* ---- k over ranks (kbe_slab.c) ---- */
/* the slab's tables (spec.gather set: after w->spec, nk_all, k0 and the rows' sizes are
 * known): MCF_ENOMEM */
int kbe_slab_init(kbe *w);
void kbe_slab_free(kbe *w);
/* nblk blocks of the slab (4 spec.nk each, contiguous) as every k's (4 nk_all each) into
 * full (any alignment; not w->recv, the transfer's), on every rank (to_all = 0: on rank 0
 * only, the others' full untouched) */
void kbe_slab_gather(const kbe *w, const double complex *src, size_t nblk, void *full,
                     int to_all);
/* the slab of nblk whole blocks (4 nk_all each) into dst (4 spec.nk each) */
void kbe_slab_take(const kbe *w, const double complex *full, size_t nblk, double complex *dst);
/* row m of G^< and G^> at every k into the ring (collective) */
void kbe_slab_sync_row(kbe *w, size_t m);
/* block (m, s), m >= s, of G^< (lesser) or G^> at every k: the ring's row m */
const double complex *kbe_slab_block(const kbe *w, int lesser, size_t m, size_t s);
/* the largest x over the ranks (collective) */
double kbe_slab_max(const kbe *w, double x);

/* ---- order p > 2 (kbe_bdf.c, kbe_start.c) ---- */
/* Gregory's weight of t_s in int_0^{t_n} (s <= max(n, p - 1)) */
double kbe_greg(const kbe *w, size_t n, size_t s);
/* G^lg(t_i, t_j) of k point k for any i, j <= the rows formed, into g[4] (row-major) */
void kbe_g2(const kbe *w, int lesser, size_t i, size_t j, size_t k, double complex *g);
/* x = A^{-1} b for the n x n matrix A (row-major, destroyed) and nrhs right-hand sides b
 * (n x nrhs, row-major): Gaussian elimination with partial pivoting */
void kbe_solve(int n, double complex *A, double complex *b, int nrhs);
/* the step t_n -> t_{n+1} of order p past the start block (n + 1 > p) */
int kbe_step_bdf(kbe *w, double E_next, double U_next);
/* the start block: rows 1 .. K again, all together, once the drive up to t_K is known */
#define KBE_START_MAX (2 * KBE_GREGORY_MAX_ORDER - 2)
void kbe_start_block(kbe *w);

#endif
