/* heg_pair.h — the exact ground-state energy of two electrons of opposite spin in the
 * periodic cube of the electron gas (N = 2, the Ewald interaction with its neutralizing
 * background, total momentum 0), for tests of diffusion Monte Carlo: the ground state of two
 * electrons of opposite spin has no node, so fixed-node DMC is exact for it (up to its time
 * step and population).
 *
 * With r = r_1 - r_2 the problem is one particle of reduced mass 1/2 (hbar = m = 1, hartree):
 *     H = -nabla_r^2 + phi(r) + v_M,
 * phi the periodic Coulomb potential of zero average (4 pi / V) sum_{G != 0} e^{iGr} / G^2
 * and v_M = -2.837297479480620 / L the Madelung term of the two electrons (N v_M / 2, the
 * convention of heg.h: its Hartree-Fock energy of N = 2 is v_M / 2 per electron).  In plane
 * waves e^{iGr}, G = (2 pi / L) n with |n| <= nmax: <G|H|G'> = G^2 delta + 4 pi / (V |G - G'|^2)
 * (G != G').  The ground state is even and invariant under the 48 operations of the cube,
 * so the basis is the stars S of n under them, |S> = |S|^{-1/2} sum_{n in S} |n>, and
 * <S|V|S'> = (|S| / |S'|)^{1/2} sum_{n' in S'} V(n_0 - n') for one n_0 of S.  The lowest
 * eigenvalue of that matrix (GSL's symmetric eigensolver) plus v_M, over 2, is the energy per
 * electron; it falls monotonically with nmax (a variational basis), converging as the
 * Coulomb cusp allows: rs = 1, nmax = 14, 20, 28: -0.70823929, -0.70824006, -0.70824031. */
#ifndef MCF_HEG_PAIR_H
#define MCF_HEG_PAIR_H

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>

/* The star of n (a >= b >= c >= 0) under the cube's operations into out (at most 48), its
 * size returned. */
static inline size_t heg_pair_star(int a, int b, int c, int (*out)[3])
{
    const int v[3] = {a, b, c};
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    size_t m = 0;
    for (int p = 0; p < 6; p++)
        for (int s = 0; s < 8; s++) {
            int x[3];
            for (int i = 0; i < 3; i++)
                x[i] = (s >> i & 1 ? -1 : 1) * v[perm[p][i]];
            int seen = 0;
            for (size_t q = 0; q < m && !seen; q++)
                seen = out[q][0] == x[0] && out[q][1] == x[1] && out[q][2] == x[2];
            if (!seen) {
                out[m][0] = x[0], out[m][1] = x[1], out[m][2] = x[2];
                m++;
            }
        }
    return m;
}

/* The energy per electron (hartree) of the ground state of N = 2 at r_s with the plane
 * waves |n| <= nmax; NAN when out of memory or the eigensolver fails. */
static inline double heg_pair_exact(double rs, int nmax)
{
    const double pi = 3.14159265358979323846;
    const double L = cbrt(4.0 / 3.0 * pi * 2.0) * rs, V = L * L * L, g = 2.0 * pi / L;
    size_t ns = 0, nt = 0;
    for (int a = 0; a <= nmax; a++)
        for (int b = 0; b <= a; b++)
            for (int c = 0; c <= b; c++)
                ns += a * a + b * b + c * c <= nmax * nmax;
    int(*rep)[3] = malloc(ns * sizeof *rep), (*all)[3] = malloc(48 * ns * sizeof *all);
    size_t *size = malloc(ns * sizeof *size), *owner = malloc(48 * ns * sizeof *owner);
    gsl_matrix *H = gsl_matrix_calloc(ns, ns);
    gsl_vector *eval = gsl_vector_alloc(ns);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(ns);
    double e = NAN;
    if (!rep || !all || !size || !owner || !H || !eval || !ws)
        goto out;
    ns = 0;
    for (int a = 0; a <= nmax; a++)
        for (int b = 0; b <= a; b++)
            for (int c = 0; c <= b; c++)
                if (a * a + b * b + c * c <= nmax * nmax) {
                    rep[ns][0] = a, rep[ns][1] = b, rep[ns][2] = c;
                    size[ns] = heg_pair_star(a, b, c, all + nt);
                    for (size_t q = 0; q < size[ns]; q++)
                        owner[nt + q] = ns;
                    nt += size[ns++];
                }
    for (size_t i = 0; i < ns; i++) {
        for (size_t q = 0; q < nt; q++) {
            const double dx = rep[i][0] - all[q][0], dy = rep[i][1] - all[q][1];
            const double dz = rep[i][2] - all[q][2], d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > 0.0) {
                const size_t j = owner[q];
                const double v = 4.0 * pi / (V * g * g * d2);
                *gsl_matrix_ptr(H, i, j) += v * sqrt((double)size[i] / (double)size[j]);
            }
        }
        const double n2 = rep[i][0] * rep[i][0] + rep[i][1] * rep[i][1] + rep[i][2] * rep[i][2];
        *gsl_matrix_ptr(H, i, i) += g * g * n2;
    }
    if (gsl_eigen_symm(H, eval, ws) == 0)
        e = 0.5 * (gsl_vector_min(eval) - 2.837297479480620 / L);
out:
    free(rep), free(all), free(size), free(owner);
    if (H)
        gsl_matrix_free(H);
    if (eval)
        gsl_vector_free(eval);
    if (ws)
        gsl_eigen_symm_free(ws);
    return e;
}

#endif
