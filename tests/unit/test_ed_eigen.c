/* test_ed_eigen.c — the ed evaluator's complex Hermitian eigensolver (plugins/ed/ed_eigen.c:
 * Householder to a real tridiagonal, implicit QL) against GSL's gsl_eigen_hermv and against
 * what a backward-stable method guarantees, on matrices of order 1 .. 40, 64 and 150:
 *
 *   random complex Hermitian, random real symmetric (the complex path with zero imaginary
 *   parts), a tridiagonal one with complex off-diagonals (already reduced: no reflection),
 *   a unitary rotation of diag(1, 1, 2, 2, 2, 3, ...) (degenerate levels, any basis in them),
 *   the identity times 3 (everything degenerate), and a matrix whose entries span 1e-8 .. 1.
 *
 * Bounds, with u = DBL_EPSILON and ||A||_F the Frobenius norm, for a computed pair (Z, L):
 *   the residual max |A Z - Z L| <= 20 n u ||A||_F, orthonormality max |Z^dagger Z - 1| <=
 *   20 n u (Householder and Givens are backward stable with constants of order n: Golub and
 *   Van Loan 8.3), and every eigenvalue within 20 n u ||A||_F of GSL's (Weyl: two backward-
 *   stable solutions of the same matrix differ by at most the sum of their backward errors).
 *   The factor 20 covers the constants of the bounds; a wrong rotation or reflection is off by
 *   O(||A||), ~10^13 times more.  Eigenvalues ascending; the eigenvalues-only call (z = NULL)
 *   gives the same eigenvalues to the same bound.
 * It also prints the time of both solvers at orders 16, 64 and 150 (ed_eigen.c's reason to
 * exist), which no check holds. */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#include "check.h"
#include "ed_internal.h"

static unsigned long long lcg = 88172645463325252ULL;

static double uniform(void) /* in (-0.5, 0.5) */
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0 - 0.5;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { RANDOM, REAL, TRIDIAGONAL, DEGENERATE, IDENTITY, GRADED, KINDS };
static const char *kind_name[KINDS] = {"random", "real", "tridiagonal", "degenerate",
                                       "identity", "graded"};

/* a unitary U (n x n) from Gram-Schmidt of random complex columns */
static void random_unitary(double complex *U, size_t n)
{
    for (size_t q = 0; q < n * n; q++)
        U[q] = uniform() + I * uniform();
    for (size_t k = 0; k < n; k++) {
        for (size_t l = 0; l < k; l++) {
            double complex s = 0.0;
            for (size_t r = 0; r < n; r++)
                s += conj(U[r * n + l]) * U[r * n + k];
            for (size_t r = 0; r < n; r++)
                U[r * n + k] -= s * U[r * n + l];
        }
        double s = 0.0;
        for (size_t r = 0; r < n; r++)
            s += creal(U[r * n + k] * conj(U[r * n + k]));
        for (size_t r = 0; r < n; r++)
            U[r * n + k] /= sqrt(s);
    }
}

static void fill(double complex *A, size_t n, int kind)
{
    memset(A, 0, n * n * sizeof *A);
    if (kind == DEGENERATE) { /* U diag(1, 1, 2, 2, 2, 3, 3, 3, 3, ...) U^dagger */
        double complex *U = malloc(n * n * sizeof *U);
        random_unitary(U, n);
        double *lam = malloc(n * sizeof *lam);
        for (size_t k = 0, level = 1, left = 2; k < n; k++) {
            lam[k] = (double)level;
            if (--left == 0)
                left = ++level + 1;
        }
        for (size_t r = 0; r < n; r++)
            for (size_t c = 0; c < n; c++)
                for (size_t k = 0; k < n; k++)
                    A[r * n + c] += U[r * n + k] * lam[k] * conj(U[c * n + k]);
        for (size_t r = 0; r < n; r++) /* exactly Hermitian */
            for (size_t c = 0; c < r; c++)
                A[c * n + r] = conj(A[r * n + c]);
        for (size_t r = 0; r < n; r++)
            A[r * n + r] = creal(A[r * n + r]);
        free(U);
        free(lam);
        return;
    }
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c <= r; c++) {
            double complex v = uniform() + (c < r ? I * uniform() : 0.0);
            if (kind == REAL)
                v = creal(v);
            if (kind == TRIDIAGONAL && r - c > 1)
                v = 0.0;
            if (kind == IDENTITY)
                v = r == c ? 3.0 : 0.0;
            if (kind == GRADED) /* entries from 1 down to ~1e-8 */
                v *= pow(10.0, -8.0 * (double)(r + c) / (double)(2 * n));
            A[r * n + c] = v;
            A[c * n + r] = conj(v);
        }
}

/* GSL's eigenvalues (ascending) of A */
static void gsl_values(const double complex *A, size_t n, double *ev, double *secs)
{
    gsl_matrix_complex *G = gsl_matrix_complex_alloc(n, n), *Z = gsl_matrix_complex_alloc(n, n);
    gsl_vector_view v = gsl_vector_view_array(ev, n);
    gsl_eigen_hermv_workspace *w = gsl_eigen_hermv_alloc(n);
    memcpy(G->data, A, n * n * sizeof *A);
    const double t0 = now();
    gsl_eigen_hermv(G, &v.vector, Z, w);
    *secs = now() - t0;
    gsl_eigen_hermv_sort(&v.vector, Z, GSL_EIGEN_SORT_VAL_ASC);
    gsl_eigen_hermv_free(w);
    gsl_matrix_complex_free(G);
    gsl_matrix_complex_free(Z);
}

static void one(size_t n, int kind, int print)
{
    double complex *A = malloc(n * n * sizeof *A), *B = malloc(n * n * sizeof *B);
    double complex *Z = malloc(n * n * sizeof *Z);
    double *ev = malloc(n * sizeof *ev), *ev0 = malloc(n * sizeof *ev0);
    double *ev1 = malloc(n * sizeof *ev1);
    fill(A, n, kind);
    double fro = 0.0;
    for (size_t q = 0; q < n * n; q++)
        fro += creal(A[q] * conj(A[q]));
    fro = sqrt(fro);
    const double tol = 20.0 * (double)n * DBL_EPSILON * fro, tol_orth = 20.0 * n * DBL_EPSILON;
    memcpy(B, A, n * n * sizeof *A);
    const double t0 = now();
    const int rc = ed_eigen_hermitian((double *)B, (double *)Z, n, ev);
    const double t_ours = now() - t0;
    CHECK(rc == 0, "n = %zu, %s: the solver returned %d", n, kind_name[kind], rc);
    memcpy(B, A, n * n * sizeof *A);
    CHECK(ed_eigen_hermitian((double *)B, NULL, n, ev1) == 0, "n = %zu: values only", n);
    double t_gsl = 0.0;
    gsl_values(A, n, ev0, &t_gsl);
    double res = 0.0, orth = 0.0, dval = 0.0, dval1 = 0.0;
    int sorted = 1;
    for (size_t k = 0; k < n; k++) {
        dval = fmax(dval, fabs(ev[k] - ev0[k]));
        dval1 = fmax(dval1, fabs(ev1[k] - ev0[k]));
        sorted = sorted && (k == 0 || ev[k - 1] <= ev[k]);
        for (size_t r = 0; r < n; r++) {
            double complex s = 0.0, o = 0.0;
            for (size_t c = 0; c < n; c++) {
                s += A[r * n + c] * Z[c * n + k];
                o += conj(Z[c * n + r]) * Z[c * n + k];
            }
            res = fmax(res, cabs(s - ev[k] * Z[r * n + k]));
            orth = fmax(orth, cabs(o - (r == k ? 1.0 : 0.0)));
        }
    }
    CHECK(sorted, "n = %zu, %s: eigenvalues not ascending", n, kind_name[kind]);
    CHECK(res <= tol, "n = %zu, %s: residual %.2e > %.2e", n, kind_name[kind], res, tol);
    CHECK(orth <= tol_orth, "n = %zu, %s: orthonormality %.2e > %.2e", n, kind_name[kind],
          orth, tol_orth);
    CHECK(dval <= tol, "n = %zu, %s: eigenvalues %.2e from GSL's (> %.2e)", n,
          kind_name[kind], dval, tol);
    CHECK(dval1 <= tol, "n = %zu, %s: values-only eigenvalues %.2e from GSL's (> %.2e)", n,
          kind_name[kind], dval1, tol);
    if (print)
        printf("n = %3zu %-11s residual %.1e, orthonormality %.1e, |eval - GSL| %.1e (bound "
               "%.1e); %.3g ms against GSL's hermv %.3g ms\n", n, kind_name[kind], res, orth,
               dval, tol, 1e3 * t_ours, 1e3 * t_gsl);
    free(A);
    free(B);
    free(Z);
    free(ev);
    free(ev0);
    free(ev1);
}

int main(void)
{
    for (size_t n = 1; n <= 40; n++)
        for (int kind = 0; kind < KINDS; kind++)
            one(n, kind, 0);
    const size_t big[] = {16, 64, 150};
    for (size_t i = 0; i < 3; i++)
        for (int kind = 0; kind < KINDS; kind++)
            one(big[i], kind, 1);
    return check_exit();
}
