/* ed_pf.c — pseudofermion of the ed evaluator (mcf/fermion.h, mcf 1.1), exactly: with the
 * eigenpairs (eps_nu, psi_nu) of H and F(E) = [2 cosh((E - mu)/2T)]^{-1/n},
 *
 *   draw      phi_f = V F(eps)^{-1/2} V^+ chi_f,
 *   action    S = sum_f phi_f^+ V F(eps) V^+ phi_f + Tr(H - mu)/(2T),
 *   gradient  (Daleckii-Krein) dS/dH_rc = sum_{nu mu} conj(a_nu psi_nu(r)) F1_{nu mu} a_mu
 *             psi_mu(c) summed over flavours, a = V^+ phi_f, F1 the divided differences
 *             (F(eps_nu) - F(eps_mu)) / (eps_nu - eps_mu) (F'(eps) on the diagonal and for
 *             levels closer than 1e-9 of the scale), stored conjugated like the density matrix,
 *             plus 1/(2T) on the diagonal.
 * Cost per workspace: one diagonalization with eigenvectors and O(n dim^2 + nnz n dim); the
 * flavours n = mcf_pseudofermion_flavours of the fixed bounds, as kpm takes them. */
#include "ed_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double log2cosh(double y)
{
    const double u = fabs(y);
    return u + log1p(exp(-2.0 * u));
}

/* F = exp(power log 2cosh((E - mu)/2T)) and its derivative */
static double pf_F(double E, double mu, double T, double power)
{
    return exp(power * log2cosh((E - mu) / (2.0 * T)));
}

static double pf_dF(double E, double mu, double T, double power)
{
    return pf_F(E, mu, T, power) * power * tanh((E - mu) / (2.0 * T)) / (2.0 * T);
}

static int pf_one(ed_ws *w, mcf_rng *rng, double T, double mu, size_t n,
              const mcf_pseudofermion *p, size_t k)
{
    const mcf_hamiltonian *h = w->h;
    const size_t N = h->dim;
    if (p->mode == MCF_PSEUDOFERMION_DRAW && !rng)
        return mcf_fail(MCF_EINVAL, "ed: pseudofermion: the draw's random stream is NULL");
    if (!p->phi_re[k] || !p->phi_im[k])
        return mcf_fail(MCF_EINVAL, "ed: pseudofermion: the pseudofermion arrays are NULL");
    double *vec = malloc(2 * N * N * sizeof *vec), *eval = malloc(N * sizeof *eval);
    double *a = malloc(2 * N * sizeof *a), *t = malloc(2 * N * sizeof *t);
    double *F1 = p->grad ? malloc(N * N * sizeof *F1) : NULL;
    double *wv = p->grad ? malloc(2 * N * N * sizeof *wv) : NULL;
    int rc = (!vec || !eval || !a || !t || (p->grad && (!F1 || !wv)))
                 ? mcf_fail(MCF_ENOMEM, "ed: pseudofermion: out of memory (dimension %zu)", N)
                 : ed_eigenpairs(h, w->gsl_complex, vec, eval);
    const double inv_n = 1.0 / (double)n;
    double *re = p->phi_re[k], *im = p->phi_im[k], form = 0.0;
    const mcf_density_matrix *g = p->mode == MCF_PSEUDOFERMION_ACTION ? p->grad : NULL;
    if (!rc && g) {
        memset(g->diag[k], 0, N * sizeof(double));
        memset(g->bond_re[k], 0, (size_t)h->width * N * sizeof(double));
        memset(g->bond_im[k], 0, (size_t)h->width * N * sizeof(double));
        const double scale = fmax(fabs(eval[0]), fabs(eval[N - 1])) + 1.0;
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++) {
                const double d = eval[i] - eval[j];
                F1[i * N + j] = fabs(d) > 1e-9 * scale
                                    ? (pf_F(eval[i], mu, T, -inv_n) - pf_F(eval[j], mu, T, -inv_n)) / d
                                    : pf_dF(0.5 * (eval[i] + eval[j]), mu, T, -inv_n);
            }
    }
    for (size_t f = 0; !rc && f < n; f++) {
        double *pr = re + f * N, *pi = im + f * N;
        if (p->mode == MCF_PSEUDOFERMION_DRAW) {
            const double s = sqrt(0.5);
            for (size_t r = 0; r < N; r++) {
                t[2 * r] = s * mcf_rng_normal(rng);
                t[2 * r + 1] = s * mcf_rng_normal(rng);
            }
        } else {
            for (size_t r = 0; r < N; r++) {
                t[2 * r] = pr[r];
                t[2 * r + 1] = pi[r];
            }
        }
        /* a_nu = <psi_nu|t> */
        for (size_t nu = 0; nu < N; nu++) {
            double sr = 0.0, si = 0.0;
            for (size_t r = 0; r < N; r++) {
                const double vr = vec[2 * (r * N + nu)], vi = vec[2 * (r * N + nu) + 1];
                sr += vr * t[2 * r] + vi * t[2 * r + 1];
                si += vr * t[2 * r + 1] - vi * t[2 * r];
            }
            a[2 * nu] = sr;
            a[2 * nu + 1] = si;
        }
        if (p->mode == MCF_PSEUDOFERMION_DRAW) {
            for (size_t r = 0; r < N; r++) {
                double sr = 0.0, si = 0.0;
                for (size_t nu = 0; nu < N; nu++) {
                    const double q = pf_F(eval[nu], mu, T, 0.5 * inv_n);
                    const double vr = vec[2 * (r * N + nu)], vi = vec[2 * (r * N + nu) + 1];
                    sr += q * (vr * a[2 * nu] - vi * a[2 * nu + 1]);
                    si += q * (vr * a[2 * nu + 1] + vi * a[2 * nu]);
                }
                pr[r] = sr;
                pi[r] = si;
            }
            continue;
        }
        for (size_t nu = 0; nu < N; nu++)
            form += pf_F(eval[nu], mu, T, -inv_n) *
                    (a[2 * nu] * a[2 * nu] + a[2 * nu + 1] * a[2 * nu + 1]);
        if (!g)
            continue;
        /* wv[nu][c] = sum_mu F1_{nu mu} a_mu psi_mu(c) */
        for (size_t nu = 0; nu < N; nu++)
            for (size_t c = 0; c < N; c++) {
                double sr = 0.0, si = 0.0;
                for (size_t m = 0; m < N; m++) {
                    const double vr = vec[2 * (c * N + m)], vi = vec[2 * (c * N + m) + 1];
                    const double ar = a[2 * m], ai = a[2 * m + 1], f1 = F1[nu * N + m];
                    sr += f1 * (ar * vr - ai * vi);
                    si += f1 * (ar * vi + ai * vr);
                }
                wv[2 * (nu * N + c)] = sr;
                wv[2 * (nu * N + c) + 1] = si;
            }
        /* D_rc = sum_nu conj(a_nu psi_nu(r)) wv[nu][c] */
        for (size_t r = 0; r < N; r++)
            for (size_t q = 0; q <= (size_t)h->width; q++) {
                const int32_t c = q == 0 ? (int32_t)r : h->col[(q - 1) * N + r];
                if (c < 0)
                    continue;
                double sr = 0.0, si = 0.0;
                for (size_t nu = 0; nu < N; nu++) {
                    const double vr = vec[2 * (r * N + nu)], vi = vec[2 * (r * N + nu) + 1];
                    const double ur = a[2 * nu] * vr - a[2 * nu + 1] * vi;
                    const double ui = a[2 * nu] * vi + a[2 * nu + 1] * vr;
                    const double xr = wv[2 * (nu * N + (size_t)c)];
                    const double xi = wv[2 * (nu * N + (size_t)c) + 1];
                    sr += ur * xr + ui * xi;
                    si += ur * xi - ui * xr;
                }
                if (q == 0) {
                    g->diag[k][r] += sr;
                } else {
                    g->bond_re[k][(q - 1) * N + r] += sr;
                    g->bond_im[k][(q - 1) * N + r] -= si; /* stored conjugated */
                }
            }
    }
    if (!rc && p->mode == MCF_PSEUDOFERMION_ACTION) {
        double tr = 0.0;
        for (size_t r = 0; r < N; r++)
            tr += h->onsite[r] - mu;
        p->action[k] = form + tr / (2.0 * T);
        for (size_t r = 0; g && r < N; r++)
            g->diag[k][r] += 1.0 / (2.0 * T);
    }
    if (!rc && p->bound)
        p->bound[k] = 0.0;
    free(vec);
    free(eval);
    free(a);
    free(t);
    free(F1);
    free(wv);
    return rc;
}

int ed_pseudofermion(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                     const double *T, const double *mu, mcf_pseudofermion *p)
{
    (void)b;
    if (!n)
        return MCF_OK;
    if (!ws || !T || !mu || !p ||
        (p->mode != MCF_PSEUDOFERMION_DRAW && p->mode != MCF_PSEUDOFERMION_ACTION))
        return mcf_fail(MCF_EINVAL, "ed: pseudofermion: %s",
                        !ws || !T || !mu ? "a NULL array" : "no request (mode)");
    size_t nf = 0;
    for (size_t k = 0; k < n; k++) {
        const ed_ws *w = ws[k];
        if (!w)
            return mcf_fail(MCF_EINVAL, "ed: pseudofermion: workspace %zu of %zu is NULL", k, n);
        if (!w->h->fixed_bounds)
            return mcf_fail(MCF_EINVAL, "ed: pseudofermion: workspace %zu of %zu: the "
                            "Hamiltonian's spectral bounds are not fixed (the model should call "
                            "mcf_hamiltonian_fix_bounds)", k, n);
        if (!(T[k] > 0.0) || !isfinite(T[k]) || !isfinite(mu[k]))
            return mcf_fail(MCF_EINVAL, "ed: pseudofermion: workspace %zu of %zu: T = %g must "
                            "be finite and > 0 and mu = %g finite", k, n, T[k], mu[k]);
        const size_t f = mcf_pseudofermion_flavours(T[k], mu[k], w->h->emin, w->h->emax);
        if (k && f != nf)
            return mcf_fail(MCF_EINVAL, "ed: pseudofermion: workspaces %zu and 0 need %zu and "
                            "%zu flavours (one call takes one size)", k, f, nf);
        nf = f;
    }
    p->flavours = nf;
    if (!p->phi_re)
        return MCF_OK;
    if (!p->phi_im || (p->mode == MCF_PSEUDOFERMION_ACTION && !p->action) ||
        (p->mode == MCF_PSEUDOFERMION_DRAW && !rngs))
        return mcf_fail(MCF_EINVAL, "ed: pseudofermion: a NULL array");
    for (size_t k = 0; k < n; k++) {
        int rc = pf_one(ws[k], rngs ? rngs[k] : NULL, T[k], mu[k], nf, p, k);
        if (rc)
            return n > 1 ? mcf_fail_prefix(rc, "workspace %zu of %zu", k, n) : rc;
    }
    return MCF_OK;
}
