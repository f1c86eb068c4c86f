/* orbital_hostdet.h — what the two files of the host test evaluator `hostdet` share
 * (orbital_hostdet.c: the orbitals, the determinants and the tables; orbital_hostdet_drift.c:
 * ABI 2's walker_drift_sweep).  Private to those test plugins: the functions are hidden by
 * the modules' default visibility. */
#ifndef MCF_TEST_ORBITAL_HOSTDET_H
#define MCF_TEST_ORBITAL_HOSTDET_H

#include <stddef.h>

#include "mcf/mcf.h"

typedef struct hd_ws hd_ws;

/* One Slater determinant of m electrons in the first m orbitals of its workspace. */
typedef struct hd_det {
    const hd_ws *ws;
    size_t m;
    double *r, *A, *Ainv; /* m x 3; A[i * m + l] = phi_l(r_i); Ainv[l * m + i] */
    double *rt, *vt;      /* the trial positions and the rows there */
    size_t last;          /* the electron of the last det_ratio (m: none) */
    double last_R;
} hd_det;

/* A workspace: L orbitals phi_l(r) = sum_q [a_lq cos(G_q . r) + b_lq sin(G_q . r)]. */
struct hd_ws {
    size_t L, ng;
    double *G, *a, *b; /* ng x 3 wave vectors; L x ng coefficients */
    hd_det *det[2];    /* ABI 2: the walker's determinants (NULL: none of that spin) */
};

/* The first `count` orbitals at r into phi, and when grad is not NULL their gradients
 * (grad[3 l + d]) and Laplacians (lap[l]), each plane wave summed directly. */
void hd_point(const hd_ws *w, const double *r, size_t count, double *phi, double *grad,
              double *lap);

/* The nearest-image separation x - y in the orthorhombic cell into d (NULL: not wanted);
 * returns its length. */
double hd_image(const double *x, const double *y, const double cell[3], double *d);

/* Row e of A becomes v (its ratio R = sum_l v_l Ainv[l][e] != 0) and the electron moves to
 * r_new: Sherman-Morrison, w_j = sum_l v_l Ainv[l][j],
 *     Ainv[:, j] -= Ainv[:, e] w_j / R  (j != e),   Ainv[:, e] /= R. */
void hd_replace_row(hd_det *d, size_t e, const double *v, double R, const double *r_new);

/* ABI 2's walker_drift_sweep (mcf/orbital.h; orbital_hostdet_drift.c). */
int hd2_walker_drift_sweep(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                           const mcf_pair_function u[2], const double cell[3]);

#endif
