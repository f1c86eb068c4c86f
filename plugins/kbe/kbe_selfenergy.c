/* kbe_selfenergy.c — the second-Born self-energy of the local interaction U(t) n_v n_c on a
 * ring of Nk sites, for one time pair (kbe_core.h, kbe_sigma_2b), two ways:
 *
 *   direct (the seed's loops, Fig. 3 of arXiv 2505.19467; the test oracle): per k and band pair,
 *     Sigma_ab(k) = U U' / Nk^2 sum_{k1, k3} [A_ab(k1) A_a'b'(k3) B_b'a'(k1 + k3 - k)
 *                                           - A_ab'(k1) B_b'a'(k1 + k3 - k) A_a'b(k3)],
 *     O(Nk^3) per time pair (a' the other band than a);
 *   fft (the default): the same sums are products at each lattice vector R,
 *     Sigma_ab(R) = U U' [A_ab(R) A_a'b'(R) B_b'a'(-R) - A_ab'(R) B_b'a'(-R) A_a'b(R)],
 *     with A(R) = (1/Nk) sum_k e^{ikR} A(k) (GSL's backward transform over Nk) and
 *     Sigma(k) = sum_R e^{-ikR} Sigma(R) (its forward one): O(Nk log Nk) per time pair, any
 *     Nk (mixed radix).
 *
 * For Sigma^<(t, s): A = G^<(t, s), B = G^>(s, t); for Sigma^>: A = G^>(t, s), B = G^<(s, t).
 * The first term is the direct (bubble) diagram, the second the second-order exchange; in
 * the convention G^< = i<c^dag c> both enter with these signs and no factor of i (the
 * diagonal -i Sigma^<(t, t) and i Sigma^>(t, t) are then >= 0, like -i G^< and i G^>). */
#include "kbe_internal.h"

#include "mcf/error.h"

#include <gsl/gsl_fft_complex.h>
#include <stdlib.h>

struct kbe_sigma_work {
    size_t nk;
    gsl_fft_complex_wavetable *wt;
    gsl_fft_complex_workspace *ws;
    double complex *a, *b; /* 4 nk each: A(R), B(R) */
};

int kbe_sigma_work_create(size_t nk, kbe_sigma_work **out)
{
    kbe_sigma_work *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory");
    w->nk = nk;
    w->wt = gsl_fft_complex_wavetable_alloc(nk);
    w->ws = gsl_fft_complex_workspace_alloc(nk);
    w->a = malloc(8 * nk * sizeof *w->a);
    if (!w->wt || !w->ws || !w->a) {
        kbe_sigma_work_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory for the FFT of %zu k points", nk);
    }
    w->b = w->a + 4 * nk;
    *out = w;
    return MCF_OK;
}

void kbe_sigma_work_destroy(kbe_sigma_work *w)
{
    if (!w)
        return;
    if (w->wt)
        gsl_fft_complex_wavetable_free(w->wt);
    if (w->ws)
        gsl_fft_complex_workspace_free(w->ws);
    free(w->a);
    free(w);
}

/* x(R) = (1/Nk) sum_k e^{ikR} y(k) for the 4 band pairs of a block ([ab][k] -> [ab][R]) */
static void to_real(kbe_sigma_work *w, const double complex *y, double complex *x)
{
    const size_t nk = w->nk;
    for (size_t q = 0; q < 4 * nk; q++)
        x[q] = y[q] / (double)nk;
    for (int ab = 0; ab < 4; ab++)
        gsl_fft_complex_backward((double *)(x + ab * nk), 1, nk, w->wt, w->ws);
}

/* the other band */
static inline int ob(int a) { return 1 - a; }

static void sigma_fft(kbe_sigma_work *w, double uu, const double complex *A,
                      const double complex *B, double complex *S)
{
    const size_t nk = w->nk;
    double complex *a = w->a, *b = w->b;
    to_real(w, A, a);
    to_real(w, B, b);
    for (size_t r = 0; r < nk; r++) {
        const size_t mr = (nk - r) % nk; /* -R */
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                const int pq = 2 * p + q, pqq = 2 * p + ob(q), ppq = 2 * ob(p) + q;
                const int ppqq = 2 * ob(p) + ob(q), qqpp = 2 * ob(q) + ob(p);
                const double complex br = b[qqpp * nk + mr];
                S[pq * nk + r] = uu * (a[pq * nk + r] * a[ppqq * nk + r] * br -
                                       a[pqq * nk + r] * br * a[ppq * nk + r]);
            }
    }
    for (int ab = 0; ab < 4; ab++) /* Sigma(k) = sum_R e^{-ikR} Sigma(R), in place */
        gsl_fft_complex_forward((double *)(S + ab * nk), 1, nk, w->wt, w->ws);
}

static void sigma_direct(size_t nk, double uu, const double complex *A, const double complex *B,
                         double complex *S)
{
    const double norm = uu / ((double)nk * (double)nk);
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++) {
            const int pq = 2 * p + q, pqq = 2 * p + ob(q), ppq = 2 * ob(p) + q;
            const int ppqq = 2 * ob(p) + ob(q), qqpp = 2 * ob(q) + ob(p);
            for (size_t k = 0; k < nk; k++) {
                double complex v = 0.0;
                for (size_t k1 = 0; k1 < nk; k1++)
                    for (size_t k3 = 0; k3 < nk; k3++) {
                        const size_t kb = (k1 + k3 + nk - k) % nk;
                        v += A[pq * nk + k1] * A[ppqq * nk + k3] * B[qqpp * nk + kb] -
                             A[pqq * nk + k1] * B[qqpp * nk + kb] * A[ppq * nk + k3];
                    }
                S[pq * nk + k] = norm * v;
            }
        }
}

void kbe_sigma_2b(kbe_sigma_method method, double uu, const double complex *A,
                  const double complex *B, double complex *S, kbe_sigma_work *w)
{
    if (method == KBE_SIGMA_DIRECT)
        sigma_direct(w->nk, uu, A, B, S);
    else
        sigma_fft(w, uu, A, B, S);
}
