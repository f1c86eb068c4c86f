/* kpm_contour_impl.h — private to kpm_contour.c and kpm_contour_finish.c: the contour
 * workspace and the preparation of the nodes that both halves of GFMC on a contour use. */
#ifndef MCF_KPM_CONTOUR_IMPL_H
#define MCF_KPM_CONTOUR_IMPL_H

#include "kpm_core.h"

#include <complex.h>
#ifndef CMPLX /* clang before 15 with glibc's complex.h has no CMPLX */
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

#include <gsl/gsl_fft_complex.h>

struct kpm_contour {
    size_t dim, M, N, L;   /* moments, half-contour intervals (even), FFT length 2 N */
    double margin;
    double *v0, *v1;       /* 2 blocks of MCF_CHANGE_RANK complex vectors (rank >= 3) */
    kpm_engine *eng;       /* rank <= 2: the diagonal moments of 1 or 4 combinations */
    double *dmu;           /* 4 M of them */
    double *mu;            /* 2 K^2 M: the moment matrix */
    double *chi;           /* KC_PAIRS x 2 L: the transforms of the pairs a <= b */
    gsl_fft_complex_wavetable *wt;
    gsl_fft_complex_workspace *fw;
    /* what depends on (T, mu, a, b) only */
    int cached;
    double c_T, c_mu, c_a, c_b;
    double gamma, gamma_p, tau; /* the ellipse, the nearest pole, the quadrature strip */
    double rate;           /* the error falls as e^(-M rate) */
    size_t poles;          /* Fermi poles inside the ellipse (upper half; 0 normally) */
    size_t poles_cap;
    double complex *pole_t;/* t_n = z~_n - sqrt(z~_n^2 - 1) of each enclosed pole (|t| < 1) */
    double *damp;          /* M: 1/2, e^-gamma, e^-2 gamma, ... */
    double complex *fz;    /* N + 1: the Fermi function at z_j */
    double complex *wfac;  /* N + 1: -2i / (a sin(theta_j - i gamma)) */
    double complex *msphi; /* N + 1: -a sin(theta_j - i gamma) */
    double *afz;           /* N + 1: |f(z_j)| */
    /* the last plan (kpm_contour_plan_for) and what it was made for */
    int planned;
    double p_T, p_mu, p_a, p_b;
    kpm_contour_plan plan;
};

/* The ellipse for (T, mu, a, b) and what depends on it alone (damping, the Fermi function
 * and weights at the nodes), cached; kpm_contour.c. */
int kc_prepare(kpm_contour *g, double a, double b, double T, double mu);

#endif
