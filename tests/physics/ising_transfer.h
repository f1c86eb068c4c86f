/* ising_transfer.h — exact thermal averages of the 2D Ising model (J = 1, h = 0) on an
 * L x L torus by a row transfer matrix that keeps the magnetization, for the error-bar
 * calibration test; and the brute-force enumeration that checks it on 4 x 4.
 *
 * Rows.  A row is an L-bit state s (bit i set: spin +1), with its own energy
 * E_row(s) = -sum_i s_i s_{i+1 mod L} and u(s) = popcount(s) up spins; two neighbouring
 * rows add E_int(s, s') = -sum_i s_i s'_i.  The configuration (s_0 .. s_{L-1}) has energy
 * E = sum_r [E_row(s_r) + E_int(s_r, s_{r+1 mod L})] and M = 2 sum_r u(s_r) - N.
 *
 * Transfer with the magnetization.  The first row s_0 is fixed; after rows 0..r the
 * array W_r[s][U] holds the summed Boltzmann weight of the partial configurations (rows
 * 0..r, bonds among them) whose row r is s and which have U up spins, and A_r[s] =
 * (sum w, sum w E, sum w E^2) over the same partial configurations (U summed: the energy
 * moments need no M).  Adding row s' with
 * eps = E_int(s, s') + E_row(s') multiplies each weight by t = exp(-beta (eps + 2L)) and
 * moves U to U + u(s'); energies add, so the moments propagate as
 *     w' = t w,   (wE)' = t (wE + eps w),   (wE^2)' = t (wE^2 + 2 eps wE + eps^2 w).
 * The last row closes the torus onto s_0 with eps = E_int(s_{L-1}, s_0) (factor
 * exp(-beta (eps + L))); the first row starts with exp(-beta (E_row(s_0) + L)).  Every
 * factor is <= 1 (the shifts are the ground-state energies), so nothing overflows, and
 * Z = Z_scaled exp(2 beta N) (the shifts add to L + 2L (L - 1) + L = 2N).
 *
 * Symmetry.  Rotating every row by the same number of sites, reflecting every row, and
 * flipping every spin leave E and |M| unchanged and map the configurations with first
 * row s_0 one to one onto those with first row g(s_0).  So the sum over s_0 is a sum over
 * orbit representatives, each counted orbit-size times (18 representatives for L = 8
 * instead of 256).  Only even moments of M are formed (P(M) of one representative is not
 * symmetric; the flip partner's is its mirror image).
 *
 * Cost: per representative sum_{r=1}^{L-1} 4^L (rL + 1) multiply-adds, 1.5e7 for L = 8
 * (0.15 s in all). */
#ifndef MCF_ISING_TRANSFER_H
#define MCF_ISING_TRANSFER_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The averages the mcf ising model reports, per site (e = E/N, m = M/N), and
 *     C = N (<e^2> - <e>^2) / T^2,   chi = N (<m^2> - <|m|>^2) / T,
 *     binder = 1 - <m^4> / (3 <m^2>^2),   log_z = ln Z. */
typedef struct ising_exact {
    double e, abs_m, m2, m4, c, chi, binder, log_z;
} ising_exact;

/* The averages from the accumulated sums: z = sum w, se = sum w E, se2 = sum w E^2, and
 * the weight of each magnetization M = 2U - N (pu[U], U = 0..N); scale = ln of the factor
 * the weights were divided by. */
static inline ising_exact ising_exact_from_sums(int L, double T, double z, double se,
                                                double se2, const double *pu, double scale)
{
    const int n = L * L;
    double zm = 0, sam = 0, sm2 = 0, sm4 = 0;
    for (int u = 0; u <= n; u++) {
        const double m = (2.0 * u - n) / n;
        zm += pu[u];
        sam += pu[u] * fabs(m);
        sm2 += pu[u] * m * m;
        sm4 += pu[u] * m * m * m * m;
    }
    ising_exact r;
    const double eav = se / z;
    r.e = eav / n;
    r.c = (se2 / z - eav * eav) / ((double)n * T * T); /* N (<e^2>-<e>^2) = Var(E) / N */
    r.abs_m = sam / zm;
    r.m2 = sm2 / zm;
    r.m4 = sm4 / zm;
    r.chi = n * (r.m2 - r.abs_m * r.abs_m) / T;
    r.binder = 1.0 - r.m4 / (3.0 * r.m2 * r.m2);
    r.log_z = log(z) + scale;
    return r;
}

static inline int ising_row_bond(unsigned s, int L)
{
    int b = 0;
    for (int i = 0; i < L; i++)
        b += (((s >> i) ^ (s >> ((i + 1) % L))) & 1u) ? -1 : 1;
    return b;
}

static inline int ising_popcount(unsigned s)
{
    int c = 0;
    for (; s; s &= s - 1)
        c++;
    return c;
}

/* The smallest state in the orbit of s under rotations, reflection and spin flip. */
static inline unsigned ising_row_canonical(unsigned s, int L)
{
    const unsigned mask = (1u << L) - 1u;
    unsigned best = s;
    for (int f = 0; f < 2; f++) {
        unsigned x = f ? (~s & mask) : s;
        for (int refl = 0; refl < 2; refl++) {
            unsigned y = x;
            if (refl) {
                y = 0;
                for (int i = 0; i < L; i++)
                    y |= ((x >> i) & 1u) << (L - 1 - i);
            }
            for (int k = 0; k < L; k++) {
                const unsigned rot = ((y << k) | (y >> (L - k))) & mask;
                if (rot < best)
                    best = rot;
            }
        }
    }
    return best;
}

/* Exact averages of the L x L torus (3 <= L <= 10) at temperature T into *out; 0 on
 * success, -1 when out of memory or L out of range. */
static inline int ising_transfer_exact(int L, double T, ising_exact *out)
{
    if (L < 3 || L > 10)
        return -1;
    const int n = L * L, ns = 1 << L, nu = n + 1;
    const double beta = 1.0 / T;
    double *t = malloc((size_t)ns * ns * sizeof *t);     /* t[s * ns + s'], row s' added */
    double *tc = malloc((size_t)ns * ns * sizeof *tc);   /* closing bond s -> s_0 */
    double *w = malloc(2 * (size_t)ns * nu * sizeof *w); /* W[s][U], two generations */
    double *a = malloc(2 * (size_t)ns * 3 * sizeof *a);  /* A[s][3], two generations */
    double *pu = calloc((size_t)nu, sizeof *pu);
    int *orbit = calloc((size_t)ns, sizeof *orbit), *up = malloc((size_t)ns * sizeof *up);
    int *erow = malloc((size_t)ns * sizeof *erow);
    int *eint = malloc((size_t)ns * ns * sizeof *eint);
    if (!t || !tc || !w || !a || !pu || !orbit || !up || !erow || !eint) {
        free(t), free(tc), free(w), free(a), free(pu), free(orbit), free(up), free(erow);
        free(eint);
        return -1;
    }
    for (int s = 0; s < ns; s++) {
        up[s] = ising_popcount((unsigned)s);
        erow[s] = -ising_row_bond((unsigned)s, L);
        orbit[ising_row_canonical((unsigned)s, L)]++;
    }
    for (int s = 0; s < ns; s++)
        for (int s2 = 0; s2 < ns; s2++) {
            /* equal bits +1, different -1: sum = L - 2 popcount(s ^ s2) */
            eint[s * ns + s2] = -(L - 2 * ising_popcount((unsigned)(s ^ s2)));
            t[s * ns + s2] = exp(-beta * (eint[s * ns + s2] + erow[s2] + 2 * L));
            tc[s * ns + s2] = exp(-beta * (eint[s * ns + s2] + L));
        }
    double z = 0, se = 0, se2 = 0;
    for (int s0 = 0; s0 < ns; s0++) {
        if (!orbit[s0])
            continue;
        const double g = orbit[s0];
        double *wc = w, *wn = w + (size_t)ns * nu, *ac = a, *an = a + (size_t)ns * 3;
        memset(wc, 0, (size_t)ns * nu * sizeof *wc);
        memset(ac, 0, (size_t)ns * 3 * sizeof *ac);
        const double w0 = exp(-beta * (erow[s0] + L));
        wc[(size_t)s0 * nu + up[s0]] = w0;
        ac[s0 * 3 + 0] = w0;
        ac[s0 * 3 + 1] = w0 * erow[s0];
        ac[s0 * 3 + 2] = w0 * erow[s0] * erow[s0];
        for (int r = 1; r < L; r++) {
            const int umax = r * L; /* U <= r L before row r is added */
            memset(wn, 0, (size_t)ns * nu * sizeof *wn);
            memset(an, 0, (size_t)ns * 3 * sizeof *an);
            for (int s = 0; s < ns; s++) {
                const double *ws = wc + (size_t)s * nu;
                const double *as = ac + s * 3;
                if (as[0] == 0.0)
                    continue; /* no partial configuration ends in s (r = 1) */
                for (int s2 = 0; s2 < ns; s2++) {
                    const double f = t[s * ns + s2];
                    const double eps = eint[s * ns + s2] + erow[s2];
                    double *w2 = wn + (size_t)s2 * nu + up[s2];
                    for (int u = 0; u <= umax; u++)
                        w2[u] += f * ws[u];
                    double *a2 = an + s2 * 3;
                    a2[0] += f * as[0];
                    a2[1] += f * (as[1] + eps * as[0]);
                    a2[2] += f * (as[2] + 2 * eps * as[1] + eps * eps * as[0]);
                }
            }
            double *x = wc;
            wc = wn, wn = x;
            x = ac;
            ac = an, an = x;
        }
        for (int s = 0; s < ns; s++) {
            const double f = tc[s * ns + s0];
            const double eps = eint[s * ns + s0];
            const double *as = ac + s * 3;
            z += g * f * as[0];
            se += g * f * (as[1] + eps * as[0]);
            se2 += g * f * (as[2] + 2 * eps * as[1] + eps * eps * as[0]);
            for (int u = 0; u <= n; u++)
                pu[u] += g * f * wc[(size_t)s * nu + u];
        }
    }
    *out = ising_exact_from_sums(L, T, z, se, se2, pu, 2.0 * beta * n);
    free(t), free(tc), free(w), free(a), free(pu), free(orbit), free(up), free(erow);
    free(eint);
    return 0;
}

/* The same averages for L = 4 by visiting all 2^16 configurations, site by site with the
 * right and upper neighbours (independent of the row bookkeeping above). */
static inline ising_exact ising_enumerate4(double T)
{
    enum { L4 = 4, N4 = 16 };
    const double beta = 1.0 / T;
    double z = 0, se = 0, se2 = 0, pu[N4 + 1] = {0};
    for (unsigned c = 0; c < (1u << N4); c++) {
        int bonds = 0, u = 0;
        for (int y = 0; y < L4; y++)
            for (int x = 0; x < L4; x++) {
                const int i = x + L4 * y;
                const int s = (c >> i) & 1u ? 1 : -1;
                const int sr = (c >> ((x + 1) % L4 + L4 * y)) & 1u ? 1 : -1;
                const int su = (c >> (x + L4 * ((y + 1) % L4))) & 1u ? 1 : -1;
                bonds += s * (sr + su);
                u += s > 0;
            }
        const double e = -bonds, wgt = exp(-beta * (e + 2 * N4));
        z += wgt;
        se += wgt * e;
        se2 += wgt * e * e;
        pu[u] += wgt;
    }
    return ising_exact_from_sums(L4, T, z, se, se2, pu, 2.0 * beta * N4);
}

#endif
