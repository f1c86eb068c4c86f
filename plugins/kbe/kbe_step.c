/* kbe_step.c — one step of the two-time propagation (kbe_core.h says the scheme): per k the
 * propagator V_n = exp(-i dt h_mid) of the mean of h(t_n) and h(t_{n+1}) in closed form (a
 * Hermitian 2 x 2); the new row V G(t_n, t_j) of G^< and G^> and the new diagonal
 * V G^< V^dagger, with second Born's collision integrals by the trapezoid rule; h(t_{n+1})
 * (Hartree-Fock) and the integrals at t_{n+1} formed again from the new row for `correctors`
 * passes.  The integrals themselves: kbe_collision.c. */
#include "kbe_internal.h"

#include "mcf/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* V = exp(-i tau H) of a Hermitian 2 x 2 H (row-major): with H = m + z sigma_z + (H_01
 * sigma_+ + H_10 sigma_-) and r = |H - m| the half-splitting, V = e^{-i tau m} (cos(tau r) -
 * i sin(tau r) (H - m) / r), sin(tau r) / r -> tau as r -> 0. */
static void expm_herm2(const double complex *H, double tau, double complex *V)
{
    const double a = creal(H[0]), d = creal(H[3]);
    const double m = 0.5 * (a + d), z = 0.5 * (a - d);
    const double r = hypot(z, cabs(H[1]));
    const double c = cos(tau * r), s = r > 0.0 ? sin(tau * r) / r : tau;
    const double complex ph = cexp(-I * tau * m);
    V[0] = ph * (c - I * s * z);
    V[1] = ph * (-I * s * H[1]);
    V[2] = ph * (-I * s * H[2]);
    V[3] = ph * (c + I * s * z);
}

/* y_k = x_k V_k^dagger (y may be x) */
static void apply_right_dagger(const double complex *V, size_t nk, const double complex *x,
                               double complex *y)
{
    for (size_t k = 0; k < nk; k++) {
        const double complex *v = V + 4 * k;
        const double complex x0 = x[k], x1 = x[nk + k], x2 = x[2 * nk + k],
                             x3 = x[3 * nk + k];
        y[k] = x0 * conj(v[0]) + x1 * conj(v[1]);
        y[nk + k] = x0 * conj(v[2]) + x1 * conj(v[3]);
        y[2 * nk + k] = x2 * conj(v[0]) + x3 * conj(v[1]);
        y[3 * nk + k] = x2 * conj(v[2]) + x3 * conj(v[3]);
    }
}

/* y += c x over a block of 4 nk values */
static void axpy(size_t nk, double complex c, const double complex *x, double complex *y)
{
    for (size_t q = 0; q < 4 * nk; q++)
        y[q] += c * x[q];
}

/* x + x^dagger per k, of the block x, into y */
static void herm_sum(size_t nk, const double complex *x, double complex *y)
{
    for (size_t k = 0; k < nk; k++) {
        y[k] = 2.0 * creal(x[k]);
        y[3 * nk + k] = 2.0 * creal(x[3 * nk + k]);
        y[nk + k] = x[nk + k] + conj(x[2 * nk + k]);
        y[2 * nk + k] = x[2 * nk + k] + conj(x[nk + k]);
    }
}

/* The new row with the collision integrals I (row t_n, from the last step) and J (row
 * t_{n+1}, the current estimate): G(t_{n+1}, t_j) = V G(t_n, t_j) - i dt/2 [V I(t_n, t_j) +
 * J(t_{n+1}, t_j)], j <= n, and the diagonal G^<(t_{n+1}, t_{n+1}) = V G^<(t_n, t_n) V^dagger -
 * i dt/2 [V (I + I^dagger) V^dagger + (J + J^dagger)] of I^<(t_n, t_n), J^<(t_{n+1}, t_{n+1}):
 * the exponential integrator with the trapezoid rule for the integrals.  rows = 0: the diagonal
 * only. */
static void advance(kbe *w, const double complex *V, double complex *tmp, int rows)
{
    const size_t nk = w->spec.nk, n = w->n, n1 = n + 1;
    const double complex c = -0.5 * I * w->spec.dt;
    const int corr = kbe_collisions(w);
    for (int lesser = 0; lesser < 2 && rows; lesser++)
        for (size_t j = 0; j <= n; j++) {
            double complex *y = kbe_block(w, lesser, n1, j);
            kbe_apply_left(V, nk, kbe_block(w, lesser, n, j), y);
            if (!corr)
                continue;
            const double complex *i0 = (lesser ? w->il : w->ig) + j * 4 * nk;
            const double complex *j1 = (lesser ? w->jl : w->jg) + j * 4 * nk;
            kbe_apply_left(V, nk, i0, tmp);
            axpy(nk, c, tmp, y);
            axpy(nk, c, j1, y);
        }
    double complex *dl = kbe_block(w, 1, n1, n1);
    kbe_apply_left(V, nk, kbe_block(w, 1, n, n), dl);
    apply_right_dagger(V, nk, dl, dl);
    if (corr) {
        herm_sum(nk, w->il + n * 4 * nk, tmp);
        kbe_apply_left(V, nk, tmp, tmp);
        apply_right_dagger(V, nk, tmp, tmp);
        axpy(nk, c, tmp, dl);
        herm_sum(nk, w->jl + n1 * 4 * nk, tmp);
        axpy(nk, c, tmp, dl);
    }
    double complex *dg = kbe_block(w, 0, n1, n1);
    for (int ab = 0; ab < 4; ab++)
        for (size_t k = 0; k < nk; k++)
            dg[ab * nk + k] = dl[ab * nk + k] - (ab == 0 || ab == 3 ? I : 0.0);
}

static int step_one(kbe *w, double E_next, double U_next)
{
    const size_t nk = w->spec.nk, n = w->n, n1 = n + 1;
    if (n >= w->spec.steps)
        return mcf_fail(MCF_EINVAL, "kbe: step %zu is past the %zu steps the storage holds", n1,
                        w->spec.steps);
    if (!isfinite(E_next) || !isfinite(U_next))
        return mcf_fail(MCF_EINVAL, "kbe: the drive at step %zu is not finite (E %g, U %g)", n1,
                        E_next, U_next);
    if (w->order > 2 && n1 > w->kstart) /* past the start: order p (kbe_bdf.c) */
        return kbe_step_bdf(w, E_next, U_next);
    if (w->collision_stale) { /* rebuilt from rows: the integrals' row at t_n (kbe_rows.c) */
        kbe_sigma_row(w, n);
        kbe_collision_row(w, n, w->il, w->ig);
        w->collision_stale = 0;
    }
    double complex *V = w->scratch, *hn = V + 4 * nk, *h1 = hn + 4 * nk, *hm = h1 + 4 * nk,
                   *tmp = hm + 4 * nk;
    double complex rho_loc[4];
    kbe_local_density(w, n, rho_loc);
    kbe_fill_h(w, w->E[n], w->U[n], rho_loc, hn);
    w->E[n1] = E_next;
    w->U[n1] = U_next;
    const int b2 = kbe_collisions(w);
    const int passes = w->spec.selfenergy == KBE_SELFENERGY_NONE ? 1 : 1 + w->spec.correctors;
    double residual = 0.0;
    if (b2) { /* the predictor: J(t_{n+1}, t_j) = I(t_n, t_j), the diagonal's I(t_n, t_n) */
        for (size_t q = 0; q < (n + 1) * 4 * nk; q++) {
            w->jl[q] = w->il[q];
            w->jg[q] = w->ig[q];
        }
        for (size_t q = 0; q < 4 * nk; q++) {
            w->jl[n1 * 4 * nk + q] = w->il[n * 4 * nk + q];
            w->jg[n1 * 4 * nk + q] = w->ig[n * 4 * nk + q];
        }
    }
    for (int pass = 0; pass < passes; pass++) {
        /* pass 0: h(t_{n+1}) from the density at t_n; then from the last pass's */
        kbe_fill_h(w, E_next, U_next, rho_loc, h1);
        for (size_t q = 0; q < 4 * nk; q++)
            hm[q] = 0.5 * (hn[q] + h1[q]);
        for (size_t k = 0; k < nk; k++)
            expm_herm2(hm + 4 * k, w->spec.dt, V + 4 * k);
        /* the last corrector pass keeps the last pass's diagonal in hm (free once V is
         * formed) to measure its change */
        double complex *dl = kbe_block(w, 1, n1, n1);
        const int last = pass > 0 && pass == passes - 1;
        for (size_t q = 0; last && q < 4 * nk; q++)
            hm[q] = dl[q];
        /* the row feeds the next pass only through second Born's integrals: without them
         * only the last pass forms it */
        advance(w, V, tmp, b2 || pass == passes - 1);
        if (last) {
            double r = 0.0;
            for (size_t q = 0; q < 4 * nk; q++)
                r = fmax(r, cabs(dl[q] - hm[q]));
            residual = r;
        }
        kbe_local_density(w, n1, rho_loc);
        if (b2) { /* J from the new row (also after the last pass: the next step's I) */
            kbe_sigma_row(w, n1);
            kbe_collision_row(w, n1, w->jl, w->jg);
        }
    }
    if (b2) { /* J becomes I */
        double complex *t = w->il;
        w->il = w->jl;
        w->jl = t;
        t = w->ig;
        w->ig = w->jg;
        w->jg = t;
        for (size_t q = 0; q < 4 * nk; q++)
            w->idiag[n1 * 4 * nk + q] = w->il[n1 * 4 * nk + q];
    }
    w->n = n1;
    w->corrector_residual = residual;
    if (w->order > 2 && n1 == w->kstart) /* the drive to t_K known: the start block */
        kbe_start_block(w);
    return MCF_OK;
}

/* Over ranks the step is step_one on the slab; around it the ring of rows at every k that
 * second Born's strip reads at order p > 2 (rows n - p + 2 .. n, kbe_bdf.c's sigma_line) is
 * made whole where a row changed since it was gathered (the last step's row after its last
 * self-energy, the start block's rows, rows read back), and the residual is the largest of
 * the ranks' (kbe_slab.c). */
int kbe_step(kbe *w, double E_next, double U_next)
{
    if (!w->spec.gather)
        return step_one(w, E_next, U_next);
    const size_t n = w->n, p = (size_t)w->order;
    const int strip = kbe_collisions(w) && w->order > 2;
    for (size_t m = n + 2 > p ? n + 2 - p : 0; strip && n + 1 > w->kstart && m <= n; m++)
        if (w->ring_row[m % w->ring] != m)
            kbe_slab_sync_row(w, m);
    const int rc = step_one(w, E_next, U_next);
    if (rc)
        return rc;
    w->corrector_residual = kbe_slab_max(w, w->corrector_residual);
    if (strip && w->n == w->kstart) /* the start block made rows 1 .. K again */
        for (size_t q = 0; q < w->ring; q++)
            w->ring_row[q] = SIZE_MAX;
    else if (strip && w->n > w->kstart) /* the new row changed after its self-energy */
        w->ring_row[w->n % w->ring] = SIZE_MAX;
    return MCF_OK;
}

double kbe_corrector_residual(const kbe *w) { return w->corrector_residual; }
