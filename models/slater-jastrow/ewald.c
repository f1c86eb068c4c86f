/* ewald.c — Ewald summation with a neutralizing background; formulas in ewald.h. */
#include "ewald.h"

#include "mcf/error.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EW_PI 3.14159265358979323846
#define EW_MAX_KVECTORS 10000000.0 /* refuse cutoffs needing more k vectors (half space) */
#define EW_MAX_IMAGES 1000000.0    /* ... or more real-space images per pair */
#define EW_MIN_XY 2.0              /* alpha r_c and k_c / (2 alpha) are at least this */

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
    double complex *rho;  /* nk cached structure factor (owned) */
    double complex *rho_new; /* nk structure factor after the pending move (owned) */
    double complex *tab_old; /* phase tables, sum_a (2 mmax[a] + 1) entries each (owned) */
    double complex *tab_new;
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

/* Phase table of one position: tab[off_a + m + mmax[a]] = exp(i 2 pi m r_a / L_a). */
static void phase_table(const mcf_ewald *ew, const double r[3], double complex *tab)
{
    size_t off = 0;
    for (int a = 0; a < 3; a++) {
        const int M = ew->mmax[a];
        const double t = 2.0 * EW_PI * r[a] / ew->L[a];
        tab[off + (size_t)M] = 1.0;
        for (int m = 1; m <= M; m++) {
            const double complex e = cos(t * m) + I * sin(t * m);
            tab[off + (size_t)(M + m)] = e;
            tab[off + (size_t)(M - m)] = conj(e);
        }
        off += (size_t)(2 * M + 1);
    }
}

static inline double complex phase_k(const mcf_ewald *ew, const double complex *tab,
                                     const int *m)
{
    const size_t ox = 0, oy = (size_t)(2 * ew->mmax[0] + 1);
    const size_t oz = oy + (size_t)(2 * ew->mmax[1] + 1);
    return tab[ox + (size_t)(m[0] + ew->mmax[0])] * tab[oy + (size_t)(m[1] + ew->mmax[1])] *
           tab[oz + (size_t)(m[2] + ew->mmax[2])];
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

static void recompute_rho(mcf_ewald *ew)
{
    memset(ew->rho, 0, ew->nk * sizeof *ew->rho);
    for (size_t j = 0; j < ew->n; j++) {
        if (ew->q[j] == 0.0) continue;
        phase_table(ew, ew->r + 3 * j, ew->tab_old);
        for (size_t k = 0; k < ew->nk; k++)
            ew->rho[k] += ew->q[j] * phase_k(ew, ew->tab_old, ew->km + 3 * k);
    }
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
    const size_t ntab = (size_t)(2 * mmax[0] + 2 * mmax[1] + 2 * mmax[2] + 3);
    ew->tab_old = malloc(ntab * sizeof *ew->tab_old);
    ew->tab_new = malloc(ntab * sizeof *ew->tab_new);
    const size_t cap = (size_t)nbox;
    ew->km = malloc(3 * (cap ? cap : 1) * sizeof *ew->km);
    ew->w = malloc((cap ? cap : 1) * sizeof *ew->w);
    if (!ew->q || !ew->r || !ew->tab_old || !ew->tab_new || !ew->km || !ew->w) {
        mcf_ewald_destroy(ew);
        return mcf_fail(MCF_ENOMEM, "ewald: out of memory");
    }
    memcpy(ew->q, charges, n * sizeof *ew->q);
    memcpy(ew->r, positions, 3 * n * sizeof *ew->r);

    /* k vectors of the half space with 0 < |k| <= kcut, and w_k */
    const double kc2 = kcut * kcut;
    double wsum = 0.0;
    size_t nk = 0;
    for (int mx = 0; mx <= mmax[0]; mx++)
        for (int my = -mmax[1]; my <= mmax[1]; my++)
            for (int mz = -mmax[2]; mz <= mmax[2]; mz++) {
                if (mx == 0 && (my < 0 || (my == 0 && mz <= 0))) continue;
                const double kx = 2.0 * EW_PI * mx / cell[0];
                const double ky = 2.0 * EW_PI * my / cell[1];
                const double kz = 2.0 * EW_PI * mz / cell[2];
                const double k2 = kx * kx + ky * ky + kz * kz;
                if (k2 > kc2) continue;
                ew->km[3 * nk] = mx;
                ew->km[3 * nk + 1] = my;
                ew->km[3 * nk + 2] = mz;
                ew->w[nk] = 4.0 * EW_PI / V * exp(-k2 / (4.0 * alpha * alpha)) / k2;
                wsum += ew->w[nk];
                nk++;
            }
    ew->nk = nk;
    ew->rho = malloc((nk ? nk : 1) * sizeof *ew->rho);
    ew->rho_new = malloc((nk ? nk : 1) * sizeof *ew->rho_new);
    if (!ew->rho || !ew->rho_new) {
        mcf_ewald_destroy(ew);
        return mcf_fail(MCF_ENOMEM, "ewald: out of memory");
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

    recompute_rho(ew);
    *out = ew;
    return MCF_OK;
}

void mcf_ewald_destroy(mcf_ewald *ew)
{
    if (!ew) return;
    free(ew->q);
    free(ew->r);
    free(ew->km);
    free(ew->w);
    free(ew->rho);
    free(ew->rho_new);
    free(ew->tab_old);
    free(ew->tab_new);
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
    recompute_rho(ew);
    return MCF_OK;
}

double mcf_ewald_energy(mcf_ewald *ew, mcf_ewald_parts *parts)
{
    recompute_rho(ew);
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
    double ek = 0.0;
    for (size_t k = 0; k < ew->nk; k++) {
        const double complex p = ew->rho[k];
        ek += ew->w[k] * (creal(p) * creal(p) + cimag(p) * cimag(p));
    }
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
    double drec = 0.0;
    if (qi != 0.0) {
        phase_table(ew, ro, ew->tab_old);
        phase_table(ew, r_new, ew->tab_new);
        for (size_t k = 0; k < ew->nk; k++) {
            const int *m = ew->km + 3 * k;
            const double complex d =
                qi * (phase_k(ew, ew->tab_new, m) - phase_k(ew, ew->tab_old, m));
            const double complex p = ew->rho[k];
            drec += ew->w[k] * (2.0 * (creal(p) * creal(d) + cimag(p) * cimag(d)) +
                                creal(d) * creal(d) + cimag(d) * cimag(d));
            ew->rho_new[k] = p + d;
        }
    } else {
        memcpy(ew->rho_new, ew->rho, ew->nk * sizeof *ew->rho);
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
    double complex *t = ew->rho;
    ew->rho = ew->rho_new;
    ew->rho_new = t;
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
