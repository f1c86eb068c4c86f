/* ed_thermodynamics.c — the grand-canonical sums of the ed evaluator over the cached
 * spectrum (ed_diagonalize.c) for one workspace: the occupation (density and energy), the
 * action S_eff and the action difference dS of a change (ed.c lists the sums).
 *
 * Occupation (occupation).  Density and energy use no broadening at all: f is the Fermi
 * function 1 / (1 + exp((E - mu) / T)), evaluated as exp(-x) / (1 + exp(-x)) for x > 0
 * (no overflow for any |E - mu| / T), and at T = 0 the step 1 (E < mu), 1/2 (E = mu),
 * 0 (E > mu).  Their temperature derivatives (occupation_dT) take density and energy from
 * the occupation (the same bits) and add, per level, df/dT = (E - mu) / T^2 f (1 - f) =
 * G(y) / T, y = (E - mu) / T, with G(y) = y f (1 - f) = y / (4 cosh^2(y / 2)) (no f - f^2
 * cancellation; 0 for |y| > 1400, where it is below 1e-600 and cosh^2 would overflow),
 * summed over the levels as G and E G and divided by T dim at the end.  T > 0 (checked by
 * the caller).
 *
 * Action (action).  From the cached eigenvalues (the cache of dos/change_action: no new
 * diagonalization for a known h->version), for m points (T, mu) per workspace:
 * S = -sum_k softplus(y_k), y_k = (mu - eps_k) / T, softplus(y) = log(1 + e^y) evaluated as
 * max(y, 0) + log1p(exp(-|y|)) (no overflow for any T > 0), added with Neumaier's
 * compensated summation in level order; err (when not NULL) is 0: the only error is the
 * eigensolver's (see below: ~3e-15 ||H|| per level, times the occupied levels / T) and
 * rounding.  T, mu and the arrays are checked before any work, naming workspace and point.
 *
 * Action differences (change_action).  The action is a sum over every level, not per state.
 * The eigenvalues of H come from the cache (ed_diagonalize.c); those of H' = H + Delta are
 * computed (eigenvalues only) from the dense H (mcf_hamiltonian_dense) plus the dense change
 * (mcf_change_add_dense; change_action takes any finite-rank change of mcf/change.h, whose
 * err is 0), with the real symmetric solver when the strict lower
 * triangle of H' (the part GSL's solvers read) is real.  The diagonal of H' is made
 * exactly real first: its imaginary part can only be rounding of u_a C_ab u_b^*, or the
 * anti-Hermitian part of C below mcf_local_change_check's 1e-12 tolerance.  With both
 * spectra ascending, dS = sum_k [L(x_k) - L(x'_k)], L(x) = log(1 + exp(-x)),
 * x_k = (eps_k - mu) / T, pairs the k-th levels of H and H' (for a change of rank r the
 * k-th level moves at most to the place of the (k -+ r)-th, so far from the change the
 * terms nearly cancel one by one).  L is split into max(-x, 0) + log1p(exp(-|x|)): the
 * linear parts of a pair are subtracted as energies before dividing by T,
 * (max(mu - eps_k, 0) - max(mu - eps'_k, 0)) / T, bounded by |eps'_k - eps_k| / T: no
 * term overflows for any T > 0 unless a level's shift divided by T does (then the sum is
 * not finite: MCF_EINVAL), and T -> 0 gives dS -> (Omega'_0 - Omega_0) / T, the change of
 * the ground state's E - mu N, without inf - inf; exp(-|x|) underflows harmlessly.
 * The terms are added with Neumaier's compensated summation: besides the rounding of each
 * L (u |x_k|, u = 1.1e-16), the sum adds ~u |dS|; against a long-double sum of the same
 * eigenvalues the two differ by ~1e-13 at dim 1728, T = 0.05.  What limits dS is the
 * eigensolvers' error: GSL's eigenvalues of H and of H' are each off by ~3e-15 ||H|| rms
 * (up to ~3e-14 ||H||; measured as the difference of the real and complex solvers),
 * independently, so dS is off by ~3e-15 ||H|| sqrt(2 N_occ) / T (N_occ: levels below
 * mu + a few T).  The scale of dS is ||Delta|| / T (|L'| <= 1 and Lidskii:
 * |dS| <= sum_k |eps'_k - eps_k| / T <= sqrt(rank) ||Delta||_F / T); relative to it the
 * error is ~1e-12 for dim up to a few thousand when ||Delta|| >~ ||H|| / 10.  Measured on
 * a 3D Anderson lattice (W = 12, ||H|| ~ 12, T = 0.05, a hopping change |o><v| + |v><o|,
 * ||Delta||_F ~ 1) against an independent computation (complex solver, H' built
 * separately, long-double sums): 8e-13 of ||Delta||_F / T at dim 1000, 3e-12 at dim 1728
 * (both computations' noise); at dim 20..60 test_ed finds ~2e-15.  Relative to |dS|
 * itself the error is larger where dS is small by cancellation, and a change far below
 * ~1e-14 ||H|| sqrt(dim) is lost in the noise of any double-precision diagonalization.
 * Time: one eigenvalue solve per call (H'), two when H's version is new; dim 1728 real:
 * 2.3 s per call on one core of the development machine. */
#include "ed_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

static double ed_fermi(double e, double mu, double T)
{
    if (T == 0.0)
        return e < mu ? 1.0 : e > mu ? 0.0 : 0.5;
    const double x = (e - mu) / T;
    if (x > 0) {
        const double q = exp(-x);
        return q / (1.0 + q);
    }
    return 1.0 / (1.0 + exp(x));
}

int ed_occupation_one(ed_ws *w, double mu, double T, double *density, double *energy)
{
    int rc = ed_diagonalize(w, 0);
    if (rc)
        return rc;
    double sn = 0.0, se = 0.0;
    for (size_t k = 0; k < w->dim; k++) {
        const double f = ed_fermi(w->eval[k], mu, T);
        sn += f;
        se += w->eval[k] * f;
    }
    *density = sn / (double)w->dim;
    *energy = se / (double)w->dim;
    return MCF_OK;
}

/* G(y) = y f (1 - f), f = 1 / (1 + e^y) (see the top of this file) */
static double ed_fermi_dT_y(double y)
{
    if (!(fabs(y) <= 1400.0))
        return 0.0;
    const double c = cosh(0.5 * y);
    return y / (4.0 * c * c);
}

int ed_occupation_dT_one(ed_ws *w, double mu, double T, double *density, double *energy,
                         double *ddensity, double *denergy)
{
    int rc = ed_occupation_one(w, mu, T, density, energy);
    if (rc)
        return rc;
    double sn = 0.0, se = 0.0;
    for (size_t k = 0; k < w->dim; k++) {
        const double g = ed_fermi_dT_y((w->eval[k] - mu) / T);
        sn += g;
        se += w->eval[k] * g;
    }
    *ddensity = sn / (T * (double)w->dim);
    *denergy = se / (T * (double)w->dim);
    if (!isfinite(*ddensity) || !isfinite(*denergy))
        return mcf_fail(MCF_EINVAL, "ed: occupation_dT: the temperature derivative overflows "
                        "at T = %g (a level within ~T of mu = %g): use a larger T", T, mu);
    return MCF_OK;
}

/* log1p(exp(-y)) for y >= 0 (the bounded part of L(x) = log(1 + exp(-x)) =
 * max(-x, 0) + log1p(exp(-|x|))): exp(-y) <= 1 never overflows, and underflows only where
 * the term is below every double anyway. */
static double ed_log1p_exp_neg(double y)
{
    return log1p(exp(-y));
}

/* The kept scratch of change_action: dense H', its eigenvalues, GSL's workspaces. */
static int ed_delta_scratch(ed_ws *w)
{
    if (w->dense)
        return MCF_OK;
    const size_t n = w->dim;
    double *dense = malloc(2 * n * n * sizeof *dense);
    w->eval2 = w->eval2 ? w->eval2 : malloc(n * sizeof *w->eval2);
    if (!w->symm_ws)
        w->symm_ws = gsl_eigen_symm_alloc(n);
    if (!dense || !w->eval2 || !w->symm_ws) {
        free(dense);
        return mcf_fail(MCF_ENOMEM, "ed: change_action: out of memory for the dense %zu x %zu "
                        "matrix H + Delta (%zu MiB per workspace)", n, n,
                        (2 * n * n * sizeof *dense) >> 20);
    }
    w->dense = dense;
    return MCF_OK;
}

int ed_delta_one(ed_ws *w, const mcf_change *c, double T, double mu, double *dS)
{
    int rc = ed_delta_scratch(w);
    if (rc || (rc = ed_diagonalize(w, 0))) /* H: cached by version */
        return rc;
    const size_t n = w->dim;
    double *m = w->dense;
    mcf_hamiltonian_dense(w->h, m);
    mcf_change_add_dense(c, n, m);
    /* H' is Hermitian: its diagonal is real (see the top of this file); the solvers read
     * the lower triangle, so that decides whether the real one applies */
    int real = 1;
    for (size_t i = 0; i < n; i++) {
        m[2 * (i * n + i) + 1] = 0.0;
        for (size_t j = 0; j < i && real; j++)
            real = m[2 * (i * n + j) + 1] == 0.0;
    }
    const int status = real ? ed_eigen_real(m, NULL, n, w->eval2, NULL, w->symm_ws)
                            : ed_eigen_complex(m, NULL, n, w->eval2, NULL, w->gsl_complex);
    if (status)
        return mcf_fail(MCF_EINTERNAL, "ed: change_action: the GSL eigensolver failed for H + "
                        "Delta of dimension %zu: %s", n, gsl_strerror(status));
    for (size_t k = 0; k < n; k++)
        if (!isfinite(w->eval2[k]))
            return mcf_fail(MCF_EINVAL, "ed: change_action: eigenvalue %zu of H + Delta is not "
                            "finite (%g): the change's amplitudes are too large", k,
                            w->eval2[k]);
    /* sum_k [L(x_k) - L(x'_k)], both spectra ascending, compensated (Neumaier) */
    double sum = 0.0, comp = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double a = mu - w->eval[k], b = mu - w->eval2[k];
        const double term = (fmax(a, 0.0) - fmax(b, 0.0)) / T +
                            (ed_log1p_exp_neg(fabs(a) / T) - ed_log1p_exp_neg(fabs(b) / T));
        const double t = sum + term;
        comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    *dS = sum + comp;
    if (!isfinite(*dS)) {
        double shift = 0.0;
        for (size_t k = 0; k < n; k++)
            shift = fmax(shift, fabs(w->eval2[k] - w->eval[k]));
        return mcf_fail(MCF_EINVAL, "ed: change_action: the action difference overflows: the "
                        "change moves a level by up to %g, and that divided by T = %g exceeds "
                        "the double range; use a larger T", shift, T);
    }
    return MCF_OK;
}

/* S_eff of the cached spectrum at m points (T, mu checked by the caller) */
int ed_action_one(ed_ws *w, size_t m, const double *T, const double *mu, double *S,
                  double *err)
{
    int rc = ed_diagonalize(w, 0);
    if (rc)
        return rc;
    for (size_t p = 0; p < m; p++) {
        double sum = 0.0, comp = 0.0;
        for (size_t k = 0; k < w->dim; k++) {
            const double y = (mu[p] - w->eval[k]) / T[p];
            const double term = -(fmax(y, 0.0) + ed_log1p_exp_neg(fabs(y)));
            const double t = sum + term;
            comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
            sum = t;
        }
        S[p] = sum + comp;
        if (err)
            err[p] = 0.0;
        if (!isfinite(S[p]))
            return mcf_fail(MCF_EINVAL, "ed: action: point %zu: the action is not finite "
                            "(T = %g, mu = %g, levels from %g to %g): use a larger T", p,
                            T[p], mu[p], w->eval[0], w->eval[w->dim - 1]);
    }
    return MCF_OK;
}
