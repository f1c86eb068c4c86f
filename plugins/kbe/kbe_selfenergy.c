/* kbe_selfenergy.c — the second-Born self-energy of the local interaction U(t) n_v n_c on a
 * ring of Nk sites, for one time pair (kbe_core.h, kbe_sigma_2b), two ways:
 *
 *   direct (the seed's loops, Fig. 3 of arXiv 2505.19467; the test oracle): per k and band pair,
 *     Sigma_ab(k) = U U' / Nk^2 sum_{k1, k3} [A_ab(k1) A_a'b'(k3) B_b'a'(k1 + k3 - k)
 *                                           - A_ab'(k1) B_b'a'(k1 + k3 - k) A_a'b(k3)],
 *     O(Nk^3) per time pair (a' the other band than a);
 *   real space (the default): the same sums are products at each lattice vector R,
 *     Sigma_ab(R) = U U' [A_ab(R) A_a'b'(R) B_b'a'(-R) - A_ab'(R) B_b'a'(-R) A_a'b(R)],
 *     with A(R) = (1/Nk) sum_k e^{ikR} A(k) and Sigma(k) = sum_R e^{-ikR} Sigma(R): O(Nk^2)
 *     here by a plain transform with a table of phases (an FFT makes it O(Nk log Nk): next).
 *
 * For Sigma^<(t, s): A = G^<(t, s), B = G^>(s, t); for Sigma^>: A = G^>(t, s), B = G^<(s, t).
 * The first term is the direct (bubble) diagram, the second the second-order exchange; in
 * the convention G^< = i<c^dag c> both enter with these signs and no factor of i (the
 * diagonal -i Sigma^<(t, t) and i Sigma^>(t, t) are then >= 0, like -i G^< and i G^>). */
#include "kbe_internal.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int kbe_phases_create(size_t nk, double complex **out)
{
    *out = malloc(nk * nk * sizeof **out);
    if (!*out)
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory for the phases of %zu k points", nk);
    const double two_pi = 6.28318530717958647692;
    for (size_t m = 0; m < nk; m++)
        for (size_t r = 0; r < nk; r++) /* e^{i k_m R_r}, k_m R_r = 2 pi (m r mod Nk) / Nk */
            (*out)[m * nk + r] = cexp(I * two_pi * (double)((m * r) % nk) / (double)nk);
    return MCF_OK;
}

/* x(R) = (1/Nk) sum_k e^{ikR} y(k) for the 4 band pairs of a block ([ab][k] -> [ab][R]) */
static void to_real(size_t nk, const double complex *ph, const double complex *y,
                    double complex *x)
{
    for (int ab = 0; ab < 4; ab++)
        for (size_t r = 0; r < nk; r++) {
            double complex s = 0.0;
            for (size_t m = 0; m < nk; m++)
                s += ph[m * nk + r] * y[ab * nk + m];
            x[ab * nk + r] = s / (double)nk;
        }
}

/* the other band */
static inline int ob(int a) { return 1 - a; }

static void sigma_real(size_t nk, const double complex *ph, double uu, const double complex *A,
                       const double complex *B, double complex *S, double complex *tmp)
{
    double complex *a = tmp, *b = tmp + 4 * nk, *s = tmp + 8 * nk;
    to_real(nk, ph, A, a);
    to_real(nk, ph, B, b);
    for (size_t r = 0; r < nk; r++) {
        const size_t mr = (nk - r) % nk; /* -R */
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                const int pq = 2 * p + q, pqq = 2 * p + ob(q), ppq = 2 * ob(p) + q;
                const int ppqq = 2 * ob(p) + ob(q), qqpp = 2 * ob(q) + ob(p);
                const double complex br = b[qqpp * nk + mr];
                s[pq * nk + r] = uu * (a[pq * nk + r] * a[ppqq * nk + r] * br -
                                       a[pqq * nk + r] * br * a[ppq * nk + r]);
            }
    }
    for (int ab = 0; ab < 4; ab++) /* Sigma(k) = sum_R e^{-ikR} Sigma(R) */
        for (size_t m = 0; m < nk; m++) {
            double complex v = 0.0;
            for (size_t r = 0; r < nk; r++)
                v += conj(ph[m * nk + r]) * s[ab * nk + r];
            S[ab * nk + m] = v;
        }
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

void kbe_sigma_2b(size_t nk, kbe_sigma_method method, const double complex *phases, double uu,
                  const double complex *A, const double complex *B, double complex *S,
                  double complex *scratch)
{
    if (method == KBE_SIGMA_DIRECT)
        sigma_direct(nk, uu, A, B, S);
    else
        sigma_real(nk, phases, uu, A, B, S, scratch);
}
