/* kbe_internal.h — the propagator's state and the helpers its files share (kbe_core.c:
 * storage, checks, accessors; kbe_step.c: the step; kbe_collision.c: second Born's rows).
 * Not for the tests or the plugin. */
#ifndef MCF_KBE_INTERNAL_H
#define MCF_KBE_INTERNAL_H

#include "kbe_core.h"

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
/* the collision integrals I^lg(t_m, t_j), j = 0 .. m, from w->sl, w->sg (the row at t_m)
 * and G on the rows <= m, into il, ig ((m + 1) blocks of 4 nk) */
void kbe_collision_row(kbe *w, size_t m, double complex *il, double complex *ig);

#endif
