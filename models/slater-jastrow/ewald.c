/* ewald.c — Ewald summation with a neutralizing background; formulas in ewald.h.
 * This file is longer than 600 lines: the cutoff choice, the row-ordered k-space sums (vectorized) and
 * the real-space images share one private struct and its layout; splitting them would
 * put that layout in a header for three files that no one else reads. */
#include "ewald.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EW_PI 3.14159265358979323846
#define EW_MAX_KVECTORS 10000000.0 /* refuse cutoffs needing more k vectors (half space) */
#define EW_MAX_IMAGES 1000000.0    /* ... or more real-space images per pair */
#define EW_MIN_XY 2.0              /* alpha r_c and k_c / (2 alpha) are at least this */
#define EW_TB 4                    /* |m_z| values per block of the structure factor */
#define EW_TRIG_EXACT 8            /* phase tables: cos, sin from libm at every 8th m */

/* Two doubles that the compiler keeps in one SIMD register (SSE2 on x86-64, NEON on
 * AArch64) and operates on element by element with the usual IEEE rounding: a GNU C
 * extension (GCC, Clang).  The build uses -O2 without -march, where GCC does not
 * vectorize the loops below by itself. */
typedef double ew_v2 __attribute__((vector_size(2 * sizeof(double))));
_Static_assert(EW_TB == 4, "recompute_rho holds a block of t in two ew_v2 per sum");

static inline ew_v2 v2_load(const double *p)
{
    ew_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void v2_store(double *p, ew_v2 v) { memcpy(p, &v, sizeof v); }

/* The k vectors of the half space fall into rows of equal (m_x, m_y) whose m_z run over
 * lo..hi without gaps (k^2 <= k_c^2 is symmetric and monotonic in |m_z|): lo = -hi,
 * except the row m_x = m_y = 0, which has lo = 1 (the half space keeps m_z > 0 there).
 * The structure factor of a row is kept for m_z = +t and m_z = -t, t = 0..nt - 1, at
 * offset p0 of the padded arrays (nt = hi + 1 rounded up to a multiple of EW_TB).  The
 * weights wt[p0 + t] are w_k for t <= hi, w_k / 2 for t = 0 (+0 and -0 are one k vector,
 * counted on both sides), 0 for the padding and for t = 0 of the row (0, 0); the row
 * (0, 0) has no -t side (neg = 0). */
typedef struct ew_row {
    int mx, my, hi, neg;
    size_t p0, nt;
} ew_row;

struct mcf_ewald {
    size_t n;
    double L[3], V, Lmin;
    double *q;            /* n charges (owned) */
    double *r;            /* 3 n positions (owned) */
    double Q, Q1, Q2;     /* sum q, sum |q|, sum q^2 */
    double alpha, rcut, rcut2, kcut, accuracy;
    int img[3];           /* real-space image range per axis */
    int mmax[3];          /* largest |m_a| of the k vectors */
    size_t nk;            /* k vectors in the half space */
    int *km;              /* 3 nk integer triplets (owned) */
    double *w;            /* nk weights w_k (owned) */
    size_t nrow, npad;    /* rows of the k vectors, entries of the padded arrays (ew_row) */
    ew_row *rows;         /* nrow rows (owned) */
    double *wt;           /* npad weights by row and t (owned) */
    double *rho[4];       /* the cached structure factor, npad each: Re and Im of the +t
                             side, Re and Im of the -t side (owned) */
    double *rhn[4];       /* the same after the pending move (owned) */
    int rho_stale;        /* rho does not belong to the positions r: recompute when needed */
    size_t nq;            /* charges that are not zero */
    size_t *iq;           /* their nq indices (owned) */
    size_t mz;            /* EW_TB-padded length of the z tables: >= mmax[2] + 1 */
    double *ztab;         /* per nonzero charge u: cos(t t_z), then sin(t t_z),
                             t = 0..mz - 1, at u 2 mz (owned) */
    double *xtab;         /* q_u exp(i m t_x): Re at m nq + u, then Im at (mmax[0] + 1 + m)
                             nq + u, m = 0..mmax[0] (owned) */
    double *ytab;         /* exp(i m t_y), m = -mmax[1]..mmax[1]: Re at (m + mmax[1]) nq + u,
                             then Im at (3 mmax[1] + 1 + m) nq + u (owned) */
    double *ab;           /* 2 nq: a_u, b_u of one row (see recompute_rho) (owned) */
    double *scratch;      /* phase tables of one position: 3 axes x 2 x (largest m + 1),
                             twice (propose: old and new) (owned) */
    size_t nscr;          /* doubles in one of the two scratch tables */
    double psi0, vM;
    int pending;
    size_t pend_i;
    double pend_r[3];
};

/* ---- parameter choice ----------------------------------------------------------------- */

/* Estimates of the truncation errors (ewald.h, "Cutoffs and their errors"). */
typedef struct tail_ctx {
    double V, h, hk, Q1, alpha, rcut; /* h, hk: half diagonals of the cell and of the
                                         reciprocal cell */
    int alpha_fixed;                  /* real space: 1 = alpha fixed, x sets r_c */
} tail_ctx;

/* images of one point that can lie in the layer [r, r + h): all lattice points whose
 * cells meet the spherical shell [r - h, r + 2h) */
static double layer_count(double r, double h, double cellvol)
{
    const double lo = fmax(r - h, 0.0), hi = r + 2.0 * h;
    return 4.0 * EW_PI / 3.0 * (hi * hi * hi - lo * lo * lo) / cellvol;
}

static double tail_real(const tail_ctx *c, double x)
{
    const double alpha = c->alpha_fixed ? c->alpha : x / c->rcut;
    const double rc = c->alpha_fixed ? x / c->alpha : c->rcut;
    const double layer = layer_count(rc, c->h, c->V) * erfc(x) / rc;
    const double beyond = 4.0 * EW_PI / c->V * erfc(x) / (2.0 * alpha * alpha);
    return 0.5 * c->Q1 * c->Q1 * (layer + beyond);
}

static double tail_recip(const tail_ctx *c, double y)
{
    const double kc = 2.0 * c->alpha * y;
    const double kvol = 8.0 * EW_PI * EW_PI * EW_PI / c->V;
    const double layer = layer_count(kc, c->hk, kvol) * 2.0 * EW_PI / c->V * exp(-y * y) /
                         (kc * kc);
    const double beyond = c->alpha * erfc(y) / sqrt(EW_PI);
    return c->Q1 * c->Q1 * (layer + beyond);
}

/* Smallest x in [EW_MIN_XY, 40] with f(x) <= target (bisection; f decreases there). */
static double solve_tail(double (*f)(const tail_ctx *, double), const tail_ctx *c,
                         double target)
{
    double lo = EW_MIN_XY, hi = 40.0;
    if (f(c, lo) <= target) return lo;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        const double mid = 0.5 * (lo + hi);
        if (f(c, mid) <= target) hi = mid; else lo = mid;
    }
    return hi;
}

/* ---- helpers -------------------------------------------------------------------------- */

/* cos(m t) and sin(m t) for m = 0..M - 1 into c, s: from libm at every EW_TRIG_EXACT-th m
 * (and m = 1), in between by the angle addition with t, which adds about an ulp per step
 * (measured: < 1e-15 after 7 steps), less than the error that cos(t * m) has anyway from
 * the rounding of its argument t * m. */
static void trig_table(double t, size_t M, double *c, double *s)
{
    const double c1 = cos(t), s1 = sin(t);
    for (size_t m = 0; m < M; m++) {
        if (m % EW_TRIG_EXACT == 0 || m == 1) {
            c[m] = m == 0 ? 1.0 : m == 1 ? c1 : cos(t * (double)m);
            s[m] = m == 0 ? 0.0 : m == 1 ? s1 : sin(t * (double)m);
        } else {
            c[m] = c[m - 1] * c1 - s[m - 1] * s1;
            s[m] = s[m - 1] * c1 + c[m - 1] * s1;
        }
    }
}

/* Phase tables of one position r in tab (ew->nscr doubles): for axis a, at a 2 P
 * (P = ew->nscr / 6), cos(m t_a) for m = 0..P - 1, then sin(m t_a), t_a = 2 pi r_a / L_a;
 * P >= mmax[0] + 1, mmax[1] + 1, ew->mz. */
static void phase_tables(const mcf_ewald *ew, const double r[3], double *tab)
{
    const size_t P = ew->nscr / 6;
    for (int a = 0; a < 3; a++) {
        const size_t M = a == 2 ? ew->mz : (size_t)ew->mmax[a] + 1;
        double *c = tab + 2 * P * (size_t)a;
        trig_table(2.0 * EW_PI * r[a] / ew->L[a], M, c, c + P);
    }
}

/* psi(d) = sum_R erfc(alpha |d + R|) / |d + R| over |d + R| < r_c, d reduced to the
 * minimum image first. */
static double psi(const mcf_ewald *ew, const double d_in[3])
{
    double d[3];
    for (int a = 0; a < 3; a++) d[a] = d_in[a] - ew->L[a] * nearbyint(d_in[a] / ew->L[a]);
    double s = 0.0;
    for (int nx = -ew->img[0]; nx <= ew->img[0]; nx++) {
        const double x = d[0] + nx * ew->L[0];
        for (int ny = -ew->img[1]; ny <= ew->img[1]; ny++) {
            const double y = d[1] + ny * ew->L[1];
            const double xy2 = x * x + y * y;
            if (xy2 >= ew->rcut2) continue;
            for (int nz = -ew->img[2]; nz <= ew->img[2]; nz++) {
                const double z = d[2] + nz * ew->L[2];
                const double r2 = xy2 + z * z;
                if (r2 >= ew->rcut2) continue;
                const double rr = sqrt(r2);
                s += erfc(ew->alpha * rr) / rr;
            }
        }
    }
    return s;
}

/* rho(k) from the positions, row by row.  With a_u + i b_u = q_u exp(i (k_x x_u + k_y y_u))
 * for the row (m_x, m_y) and c_u = cos(t t_z,u), s_u = sin(t t_z,u), the four sums over
 * the charges
 *   S1 = sum a c,  S2 = sum b s,  S3 = sum a s,  S4 = sum b c
 * give both signs of m_z = +-t at once (exp(-i t t_z) = conj(exp(i t t_z))):
 *   rho(+t) = (S1 - S2) + i (S3 + S4),   rho(-t) = (S1 + S2) + i (S4 - S3),
 * two multiplications and two additions per k vector and charge.  The sums run over the
 * charges innermost for EW_TB values of t at a time, held in registers (two per ew_v2).
 * Stores ew->rho and returns E_recip = sum_k w_k |rho(k)|^2. */
static double recompute_rho(mcf_ewald *ew)
{
    const size_t nq = ew->nq, mz = ew->mz, P = ew->nscr / 6;
    const size_t mx1 = (size_t)ew->mmax[0] + 1, M1 = (size_t)ew->mmax[1];
    double *tab = ew->scratch;
    for (size_t u = 0; u < nq; u++) {
        const size_t j = ew->iq[u];
        const double qj = ew->q[j];
        phase_tables(ew, ew->r + 3 * j, tab);
        const double *xc = tab, *xs = tab + P, *yc = tab + 2 * P, *ys = yc + P;
        for (size_t m = 0; m < mx1; m++) {
            ew->xtab[m * nq + u] = qj * xc[m];
            ew->xtab[(mx1 + m) * nq + u] = qj * xs[m];
        }
        for (size_t m = 0; m <= M1; m++) { /* m_y = -m, then +m (for m = 0: sin = +0) */
            ew->ytab[(M1 - m) * nq + u] = yc[m];
            ew->ytab[(3 * M1 + 1 - m) * nq + u] = -ys[m];
            ew->ytab[(M1 + m) * nq + u] = yc[m];
            ew->ytab[(3 * M1 + 1 + m) * nq + u] = ys[m];
        }
        memcpy(ew->ztab + 2 * mz * u, tab + 4 * P, mz * sizeof *tab);
        memcpy(ew->ztab + 2 * mz * u + mz, tab + 5 * P, mz * sizeof *tab);
    }
    double *restrict a = ew->ab, *restrict b = a + nq;
    double ek = 0.0;
    for (size_t rw = 0; rw < ew->nrow; rw++) {
        const ew_row *row = ew->rows + rw;
        const double *xr = ew->xtab + (size_t)row->mx * nq, *xi = xr + mx1 * nq;
        const double *yr = ew->ytab + (size_t)(row->my + (int)M1) * nq;
        const double *yi = yr + (2 * M1 + 1) * nq;
        for (size_t u = 0; u < nq; u++) {
            a[u] = xr[u] * yr[u] - xi[u] * yi[u];
            b[u] = xr[u] * yi[u] + xi[u] * yr[u];
        }
        ew_v2 e = {0.0, 0.0};
        for (size_t t0 = 0; t0 < row->nt; t0 += EW_TB) {
            ew_v2 s1a = {0, 0}, s1b = {0, 0}, s2a = {0, 0}, s2b = {0, 0};
            ew_v2 s3a = {0, 0}, s3b = {0, 0}, s4a = {0, 0}, s4b = {0, 0};
            const double *z = ew->ztab + t0;
            for (size_t u = 0; u < nq; u++, z += 2 * mz) {
                const ew_v2 ca = v2_load(z), cb = v2_load(z + 2);
                const ew_v2 sa = v2_load(z + mz), sb = v2_load(z + mz + 2);
                const ew_v2 av = {a[u], a[u]}, bv = {b[u], b[u]};
                s1a += av * ca;
                s1b += av * cb;
                s2a += bv * sa;
                s2b += bv * sb;
                s3a += av * sa;
                s3b += av * sb;
                s4a += bv * ca;
                s4b += bv * cb;
            }
            const size_t p = row->p0 + t0;
            const ew_v2 pra = s1a - s2a, prb = s1b - s2b, pia = s3a + s4a, pib = s3b + s4b;
            const ew_v2 wa = v2_load(ew->wt + p), wb = v2_load(ew->wt + p + 2);
            v2_store(ew->rho[0] + p, pra);
            v2_store(ew->rho[0] + p + 2, prb);
            v2_store(ew->rho[1] + p, pia);
            v2_store(ew->rho[1] + p + 2, pib);
            e += wa * (pra * pra + pia * pia) + wb * (prb * prb + pib * pib);
            if (row->neg) {
                const ew_v2 mra = s1a + s2a, mrb = s1b + s2b, mia = s4a - s3a, mib = s4b - s3b;
                v2_store(ew->rho[2] + p, mra);
                v2_store(ew->rho[2] + p + 2, mrb);
                v2_store(ew->rho[3] + p, mia);
                v2_store(ew->rho[3] + p + 2, mib);
                e += wa * (mra * mra + mia * mia) + wb * (mrb * mrb + mib * mib);
            }
        }
        ek += e[0] + e[1];
    }
    ew->rho_stale = 0;
    return ek;
}

static int check_finite(const double *v, size_t count, const char *what)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(v[i]))
            return mcf_fail(MCF_EINVAL, "ewald: %s[%zu] = %g is not finite", what, i, v[i]);
    return MCF_OK;
}

/* ---- create / destroy ----------------------------------------------------------------- */

int mcf_ewald_create(const double cell[3], size_t n, const double *charges,
                     const double *positions, const mcf_ewald_options *opt, mcf_ewald **out)
{
    if (!out) return mcf_fail(MCF_EINVAL, "ewald: out is NULL");
    *out = NULL;
    if (!cell || !charges || !positions)
        return mcf_fail(MCF_EINVAL, "ewald: cell, charges and positions must not be NULL");
    for (int a = 0; a < 3; a++)
        if (!isfinite(cell[a]) || cell[a] <= 0.0)
            return mcf_fail(MCF_EINVAL,
                            "ewald: cell side %c = %g must be a finite positive length (bohr)",
                            "xyz"[a], cell[a]);
    if (n == 0) return mcf_fail(MCF_EINVAL, "ewald: need at least one charge (n = 0)");
    int rc = check_finite(charges, n, "charges");
    if (rc) return rc;
    rc = check_finite(positions, 3 * n, "positions");
    if (rc) return rc;
    mcf_ewald_options o = {0.0, 0.0, 0.0};
    if (opt) o = *opt;
    if (o.accuracy == 0.0) o.accuracy = 1e-12;
    if (!(o.accuracy >= 1e-15 && o.accuracy <= 1e-2))
        return mcf_fail(MCF_EINVAL,
                        "ewald: accuracy = %g must lie in [1e-15, 1e-2] (0 for the default "
                        "1e-12)", o.accuracy);
    if (!isfinite(o.alpha) || o.alpha < 0.0)
        return mcf_fail(MCF_EINVAL, "ewald: alpha = %g must be >= 0 (0: automatic)", o.alpha);
    if (!isfinite(o.rcut) || o.rcut < 0.0)
        return mcf_fail(MCF_EINVAL, "ewald: rcut = %g must be >= 0 (0: the shortest side)",
                        o.rcut);

    double Q = 0.0, Q1 = 0.0, Q2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        Q += charges[i];
        Q1 += fabs(charges[i]);
        Q2 += charges[i] * charges[i];
    }
    if (Q1 == 0.0) return mcf_fail(MCF_EINVAL, "ewald: all %zu charges are zero", n);

    const double V = cell[0] * cell[1] * cell[2];
    const double Lmin = fmin(cell[0], fmin(cell[1], cell[2]));
    const double eps_abs = o.accuracy * fmax(Q2, 1.0) / Lmin;
    tail_ctx tc;
    tc.V = V;
    tc.h = 0.5 * sqrt(cell[0] * cell[0] + cell[1] * cell[1] + cell[2] * cell[2]);
    tc.hk = EW_PI * sqrt(1.0 / (cell[0] * cell[0]) + 1.0 / (cell[1] * cell[1]) +
                         1.0 / (cell[2] * cell[2]));
    tc.Q1 = Q1;
    double alpha, rcut;
    if (o.alpha > 0.0) {
        tc.alpha_fixed = 1;
        tc.alpha = alpha = o.alpha;
        tc.rcut = 0.0;
        rcut = solve_tail(tail_real, &tc, 0.5 * eps_abs) / alpha;
    } else {
        tc.alpha_fixed = 0;
        tc.alpha = 0.0;
        tc.rcut = rcut = o.rcut > 0.0 ? o.rcut : Lmin;
        alpha = solve_tail(tail_real, &tc, 0.5 * eps_abs) / rcut;
    }
    tc.alpha = alpha;
    const double y = solve_tail(tail_recip, &tc, 0.5 * eps_abs);
    const double kcut = 2.0 * alpha * y;

    int img[3], mmax[3];
    double nimg = 1.0, nbox = 1.0;
    for (int a = 0; a < 3; a++) {
        /* a minimum-image separation has |d_a| <= L_a / 2, so |d_a + n L_a| < r_c needs
         * |n| < r_c / L_a + 1/2 */
        const double ia = ceil(rcut / cell[a] + 0.5) - 1.0;
        const double ma = floor(kcut * cell[a] / (2.0 * EW_PI));
        nimg *= 2.0 * ia + 1.0;
        nbox *= (a == 0 ? ma + 1.0 : 2.0 * ma + 1.0);
        if (nimg > EW_MAX_IMAGES)
            return mcf_fail(MCF_EINVAL,
                            "ewald: the real-space cutoff %g bohr (alpha = %g) needs more than "
                            "%.0f images per pair; use a larger alpha or the default",
                            rcut, alpha, EW_MAX_IMAGES);
        if (nbox > EW_MAX_KVECTORS)
            return mcf_fail(MCF_EINVAL,
                            "ewald: the reciprocal cutoff %g 1/bohr (alpha = %g) needs more "
                            "than %.0f k vectors; use a smaller alpha or a larger rcut",
                            kcut, alpha, EW_MAX_KVECTORS);
        img[a] = (int)ia;
        mmax[a] = (int)ma;
    }

    mcf_ewald *ew = calloc(1, sizeof *ew);
    if (!ew) return mcf_fail(MCF_ENOMEM, "ewald: out of memory");
    ew->n = n;
    memcpy(ew->L, cell, sizeof ew->L);
    ew->V = V;
    ew->Lmin = Lmin;
    ew->Q = Q;
    ew->Q1 = Q1;
    ew->Q2 = Q2;
    ew->alpha = alpha;
    ew->rcut = rcut;
    ew->rcut2 = rcut * rcut;
    ew->kcut = kcut;
    ew->accuracy = o.accuracy;
    memcpy(ew->img, img, sizeof img);
    memcpy(ew->mmax, mmax, sizeof mmax);
    ew->q = malloc(n * sizeof *ew->q);
    ew->r = malloc(3 * n * sizeof *ew->r);
    const size_t cap = (size_t)nbox;
    const size_t rowcap = (size_t)(mmax[0] + 1) * (size_t)(2 * mmax[1] + 1);
    ew->km = malloc(3 * (cap ? cap : 1) * sizeof *ew->km);
    ew->w = malloc((cap ? cap : 1) * sizeof *ew->w);
    ew->rows = malloc(rowcap * sizeof *ew->rows);
    ew->iq = malloc(n * sizeof *ew->iq);
    if (!ew->q || !ew->r || !ew->km || !ew->w || !ew->rows || !ew->iq) {
        mcf_ewald_destroy(ew);
        return mcf_fail(MCF_ENOMEM, "ewald: out of memory");
    }
    memcpy(ew->q, charges, n * sizeof *ew->q);
    memcpy(ew->r, positions, 3 * n * sizeof *ew->r);
    for (size_t i = 0; i < n; i++)
        if (charges[i] != 0.0) ew->iq[ew->nq++] = i;

    /* k vectors of the half space with 0 < |k| <= kcut, and w_k; their rows */
    const double kc2 = kcut * kcut;
    double wsum = 0.0;
    size_t nk = 0, nrow = 0;
    int lo = 0;
    for (int mx = 0; mx <= mmax[0]; mx++)
        for (int my = -mmax[1]; my <= mmax[1]; my++)
            for (int mz = -mmax[2]; mz <= mmax[2]; mz++) {
                if (mx == 0 && (my < 0 || (my == 0 && mz <= 0))) continue;
                const double kx = 2.0 * EW_PI * mx / cell[0];
                const double ky = 2.0 * EW_PI * my / cell[1];
                const double kz = 2.0 * EW_PI * mz / cell[2];
                const double k2 = kx * kx + ky * ky + kz * kz;
                if (k2 > kc2) continue;
                ew_row *row = nrow ? ew->rows + nrow - 1 : NULL;
                if (row && row->mx == mx && row->my == my) {
                    /* cannot fail: k^2 grows with |m_z| */
                    if (mz != row->hi + 1) goto bad_row;
                    row->hi = mz;
                } else {
                    if (row && lo != (row->neg ? -row->hi : 1)) goto bad_row;
                    row = ew->rows + nrow++;
                    row->mx = mx;
                    row->my = my;
                    row->hi = lo = mz;
                    row->neg = !(mx == 0 && my == 0);
                }
                ew->km[3 * nk] = mx;
                ew->km[3 * nk + 1] = my;
                ew->km[3 * nk + 2] = mz;
                ew->w[nk] = 4.0 * EW_PI / V * exp(-k2 / (4.0 * alpha * alpha)) / k2;
                wsum += ew->w[nk];
                nk++;
            }
    /* cannot fail: k^2 is even in m_z, so each row is symmetric */
    if (nrow && lo != (ew->rows[nrow - 1].neg ? -ew->rows[nrow - 1].hi : 1)) goto bad_row;
    ew->nk = nk;
    ew->nrow = nrow;
    size_t npad = 0;
    for (size_t rw = 0; rw < nrow; rw++) {
        ew_row *row = ew->rows + rw;
        row->p0 = npad;
        row->nt = ((size_t)row->hi + EW_TB) / EW_TB * EW_TB;
        npad += row->nt;
    }
    ew->npad = npad;
    ew->mz = ((size_t)mmax[2] + EW_TB) / EW_TB * EW_TB;
    size_t P = ew->mz;
    if ((size_t)mmax[0] + 1 > P) P = (size_t)mmax[0] + 1;
    if ((size_t)mmax[1] + 1 > P) P = (size_t)mmax[1] + 1;
    ew->nscr = 6 * P;
    const size_t nq = ew->nq, np = npad ? npad : 1;
    ew->wt = calloc(np, sizeof *ew->wt);
    for (int c = 0; c < 4; c++) {
        ew->rho[c] = calloc(np, sizeof *ew->rho[c]);
        ew->rhn[c] = calloc(np, sizeof *ew->rhn[c]);
    }
    ew->ztab = malloc(2 * ew->mz * nq * sizeof *ew->ztab);
    ew->xtab = malloc(2 * (size_t)(mmax[0] + 1) * nq * sizeof *ew->xtab);
    ew->ytab = malloc(2 * (size_t)(2 * mmax[1] + 1) * nq * sizeof *ew->ytab);
    ew->ab = malloc(2 * nq * sizeof *ew->ab);
    ew->scratch = malloc(2 * ew->nscr * sizeof *ew->scratch);
    int ok = ew->wt && ew->ztab && ew->xtab && ew->ytab && ew->ab && ew->scratch;
    for (int c = 0; c < 4; c++) ok = ok && ew->rho[c] && ew->rhn[c];
    if (!ok) {
        mcf_ewald_destroy(ew);
        return mcf_fail(MCF_ENOMEM, "ewald: out of memory");
    }
    /* the weights by row and t: nk walks the k vectors in the same order again */
    nk = 0;
    for (size_t rw = 0; rw < nrow; rw++) {
        const ew_row *row = ew->rows + rw;
        for (int mz = row->neg ? -row->hi : 1; mz <= row->hi; mz++, nk++)
            if (mz >= 0) ew->wt[row->p0 + (size_t)mz] = mz == 0 ? 0.5 * ew->w[nk] : ew->w[nk];
    }

    /* psi_0: a charge and its own images (R != 0, |R| < r_c) */
    double p0 = 0.0;
    for (int nx = -img[0]; nx <= img[0]; nx++)
        for (int ny = -img[1]; ny <= img[1]; ny++)
            for (int nz = -img[2]; nz <= img[2]; nz++) {
                if (nx == 0 && ny == 0 && nz == 0) continue;
                const double x = nx * cell[0], yy = ny * cell[1], z = nz * cell[2];
                const double r2 = x * x + yy * yy + z * z;
                if (r2 >= ew->rcut2) continue;
                const double rr = sqrt(r2);
                p0 += erfc(alpha * rr) / rr;
            }
    ew->psi0 = p0;
    ew->vM = p0 + 2.0 * wsum - EW_PI / (V * alpha * alpha) - 2.0 * alpha / sqrt(EW_PI);

    ew->rho_stale = 1; /* computed when first needed */
    *out = ew;
    return MCF_OK;

bad_row:
    mcf_ewald_destroy(ew);
    return mcf_fail(MCF_EINTERNAL, "ewald: the k vectors of a row (m_x, m_y) do not form one "
                                   "symmetric run of m_z");
}

void mcf_ewald_destroy(mcf_ewald *ew)
{
    if (!ew) return;
    free(ew->q);
    free(ew->r);
    free(ew->km);
    free(ew->w);
    free(ew->rows);
    free(ew->iq);
    free(ew->wt);
    for (int c = 0; c < 4; c++) {
        free(ew->rho[c]);
        free(ew->rhn[c]);
    }
    free(ew->ztab);
    free(ew->xtab);
    free(ew->ytab);
    free(ew->ab);
    free(ew->scratch);
    free(ew);
}

/* ---- queries -------------------------------------------------------------------------- */

size_t mcf_ewald_size(const mcf_ewald *ew) { return ew->n; }

void mcf_ewald_get_info(const mcf_ewald *ew, mcf_ewald_info *info)
{
    info->alpha = ew->alpha;
    info->rcut = ew->rcut;
    info->kcut = ew->kcut;
    info->accuracy = ew->accuracy;
    info->n_kvectors = ew->nk;
    memcpy(info->images, ew->img, sizeof info->images);
}

const double *mcf_ewald_positions(const mcf_ewald *ew) { return ew->r; }

double mcf_ewald_madelung(const mcf_ewald *ew) { return ew->vM; }

double mcf_ewald_pair_potential(const mcf_ewald *ew, const double r[3])
{
    double s = psi(ew, r);
    double rec = 0.0;
    for (size_t k = 0; k < ew->nk; k++) {
        const int *m = ew->km + 3 * k;
        const double kr = 2.0 * EW_PI * (m[0] * r[0] / ew->L[0] + m[1] * r[1] / ew->L[1] +
                                          m[2] * r[2] / ew->L[2]);
        rec += ew->w[k] * cos(kr);
    }
    return s + 2.0 * rec - EW_PI / (ew->V * ew->alpha * ew->alpha);
}

/* ---- energies ------------------------------------------------------------------------- */

int mcf_ewald_set_positions(mcf_ewald *ew, const double *positions)
{
    if (!positions) return mcf_fail(MCF_EINVAL, "ewald: positions must not be NULL");
    const int rc = check_finite(positions, 3 * ew->n, "positions");
    if (rc) return rc;
    memcpy(ew->r, positions, 3 * ew->n * sizeof *ew->r);
    ew->pending = 0;
    ew->rho_stale = 1; /* recomputed by the next energy or propose */
    return MCF_OK;
}

double mcf_ewald_energy(mcf_ewald *ew, mcf_ewald_parts *parts)
{
    const double ek = recompute_rho(ew);
    double er = 0.0;
    for (size_t i = 0; i < ew->n; i++) {
        if (ew->q[i] == 0.0) continue;
        double si = 0.0;
        for (size_t j = i + 1; j < ew->n; j++) {
            if (ew->q[j] == 0.0) continue;
            const double d[3] = {ew->r[3 * i] - ew->r[3 * j], ew->r[3 * i + 1] - ew->r[3 * j + 1],
                                 ew->r[3 * i + 2] - ew->r[3 * j + 2]};
            si += ew->q[j] * psi(ew, d);
        }
        er += ew->q[i] * si;
    }
    er += 0.5 * ew->Q2 * ew->psi0;
    const double es = -ew->alpha / sqrt(EW_PI) * ew->Q2;
    const double eb = -EW_PI * ew->Q * ew->Q / (2.0 * ew->V * ew->alpha * ew->alpha);
    const double total = er + ek + es + eb;
    if (parts) {
        parts->real = er;
        parts->recip = ek;
        parts->self = es;
        parts->background = eb;
        parts->total = total;
    }
    return total;
}

int mcf_ewald_propose(mcf_ewald *ew, size_t i, const double r_new[3], double *delta)
{
    if (i >= ew->n)
        return mcf_fail(MCF_EINVAL, "ewald: particle %zu out of range (n = %zu)", i, ew->n);
    if (!r_new || !delta) return mcf_fail(MCF_EINVAL, "ewald: r_new and delta must not be NULL");
    int rc = check_finite(r_new, 3, "r_new");
    if (rc) return rc;
    const double qi = ew->q[i];
    const double *ro = ew->r + 3 * i;
    double dreal = 0.0;
    if (qi != 0.0) {
        for (size_t j = 0; j < ew->n; j++) {
            if (j == i || ew->q[j] == 0.0) continue;
            const double *rj = ew->r + 3 * j;
            const double dn[3] = {r_new[0] - rj[0], r_new[1] - rj[1], r_new[2] - rj[2]};
            const double dold[3] = {ro[0] - rj[0], ro[1] - rj[1], ro[2] - rj[2]};
            dreal += ew->q[j] * (psi(ew, dn) - psi(ew, dold));
        }
        dreal *= qi;
    }
    if (ew->rho_stale) recompute_rho(ew);
    double drec = 0.0;
    if (qi != 0.0) {
        /* d(k) = q_i (exp(i k.r') - exp(i k.r_i)) by rows as in recompute_rho: with
         * c = q_i exp(i (k_x x + k_y y)) and z = exp(i t t_z) at r_i (o) and r' (n),
         * d(+t) = c_n z_n - c_o z_o and d(-t) = c_n conj(z_n) - c_o conj(z_o) */
        const size_t P = ew->nscr / 6;
        double *to = ew->scratch, *tn = ew->scratch + ew->nscr;
        phase_tables(ew, ro, to);
        phase_tables(ew, r_new, tn);
        const double *ozc = to + 4 * P, *ozs = ozc + P, *nzc = tn + 4 * P, *nzs = nzc + P;
        for (size_t rw = 0; rw < ew->nrow; rw++) {
            const ew_row *row = ew->rows + rw;
            const size_t ax = (size_t)row->mx, ay = (size_t)(row->my < 0 ? -row->my : row->my);
            const double sy = row->my < 0 ? -1.0 : 1.0;
            double ao, bo, an, bn;
            {
                const double xc = qi * to[ax], xs = qi * to[P + ax];
                const double yc = to[2 * P + ay], ys = sy * to[3 * P + ay];
                ao = xc * yc - xs * ys;
                bo = xc * ys + xs * yc;
            }
            {
                const double xc = qi * tn[ax], xs = qi * tn[P + ax];
                const double yc = tn[2 * P + ay], ys = sy * tn[3 * P + ay];
                an = xc * yc - xs * ys;
                bn = xc * ys + xs * yc;
            }
            const double *w = ew->wt + row->p0;
            const double *pr = ew->rho[0] + row->p0, *pi = ew->rho[1] + row->p0;
            const double *mr = ew->rho[2] + row->p0, *mi = ew->rho[3] + row->p0;
            double *qr = ew->rhn[0] + row->p0, *qim = ew->rhn[1] + row->p0;
            double *nr = ew->rhn[2] + row->p0, *ni = ew->rhn[3] + row->p0;
            for (size_t t = 0; t < row->nt; t++) {
                const double s1 = an * nzc[t] - ao * ozc[t], s2 = bn * nzs[t] - bo * ozs[t];
                const double s3 = an * nzs[t] - ao * ozs[t], s4 = bn * nzc[t] - bo * ozc[t];
                const double dpr = s1 - s2, dpi = s3 + s4;
                drec += w[t] * (2.0 * (pr[t] * dpr + pi[t] * dpi) + dpr * dpr + dpi * dpi);
                qr[t] = pr[t] + dpr;
                qim[t] = pi[t] + dpi;
                if (row->neg) {
                    const double dmr = s1 + s2, dmi = s4 - s3;
                    drec += w[t] * (2.0 * (mr[t] * dmr + mi[t] * dmi) + dmr * dmr + dmi * dmi);
                    nr[t] = mr[t] + dmr;
                    ni[t] = mi[t] + dmi;
                }
            }
        }
    } else {
        for (int c = 0; c < 4; c++) memcpy(ew->rhn[c], ew->rho[c], ew->npad * sizeof *ew->rho[c]);
    }
    ew->pending = 1;
    ew->pend_i = i;
    memcpy(ew->pend_r, r_new, sizeof ew->pend_r);
    *delta = dreal + drec;
    return MCF_OK;
}

int mcf_ewald_accept(mcf_ewald *ew)
{
    if (!ew->pending)
        return mcf_fail(MCF_EINVAL, "ewald: accept without a pending move (call "
                                    "mcf_ewald_propose first)");
    for (int c = 0; c < 4; c++) {
        double *t = ew->rho[c];
        ew->rho[c] = ew->rhn[c];
        ew->rhn[c] = t;
    }
    memcpy(ew->r + 3 * ew->pend_i, ew->pend_r, sizeof ew->pend_r);
    ew->pending = 0;
    return MCF_OK;
}

int mcf_ewald_madelung_cell(const double cell[3], double accuracy, double *v_M)
{
    if (!v_M) return mcf_fail(MCF_EINVAL, "ewald: v_M must not be NULL");
    const double q = 1.0, r[3] = {0.0, 0.0, 0.0};
    const mcf_ewald_options o = {accuracy, 0.0, 0.0};
    mcf_ewald *ew = NULL;
    const int rc = mcf_ewald_create(cell, 1, &q, r, &o, &ew);
    if (rc) return rc;
    *v_M = ew->vM;
    mcf_ewald_destroy(ew);
    return MCF_OK;
}
