/* stats.c — online blocking analysis and jackknife (see stats.h).
 *
 * Blocking.  Level 0 holds the values themselves, level k the means of consecutive pairs
 * of level k-1 blocks (blocks of 2^k values).  For each level with n_k >= 2 blocks
 *     var_k   = sumsq_k / n_k - (sum_k / n_k)^2         (biased variance of block means)
 *     sigma_k = sqrt(var_k / (n_k - 1))                  (standard error of the mean)
 *     delta_k = sigma_k / sqrt(2 (n_k - 1))              (its own standard error)
 * The sums are of (x - shift), shift = the first value, so that var_k does not suffer from
 * cancellation when the mean is large compared to the spread.
 *
 * Choice of level.  Only levels with n_k >= 32 blocks are used ("usable").  sigma_k rises
 * with k until the block length B = 2^k exceeds the correlation time and then stays flat
 * within delta_k.  A rule that merely asks later levels to be consistent with sigma_k
 * within their errors accepts levels whose systematic deficit (for an exponential
 * autocorrelation sigma_B^2 / sigma_inf^2 = 1 - O(tau / B)) is several delta_k, because
 * the later levels have large errors; the error would come out too small.  We therefore
 * take, as automated blocking does in practice (Lee, Needs & Towler, Phys. Rev. B 83,
 * 245119 (2011), also used by pyblock), the smallest usable level with
 *     B^3 > 2 N (sigma_k / sigma_0)^4 ,     N = number of values,
 * i.e. B^3 > 8 N tau^2: there the O(tau/B) bias is well below the statistical error
 * delta_k ~ sigma sqrt(B / 2N).  We then check that it really is a plateau: no later usable
 * level j may lie significantly above it,
 *     sigma_j <= sigma_k + 3 sqrt(delta_j^2 + delta_k^2)      for all usable j > k
 * (one-sided: only a rise signals a correlation time longer than the block; falling values
 * at the last levels are the usual chi-square scatter of few blocks).  Three combined
 * standard errors keep false alarms on converged series rare (~0.1 % per level).
 * If both hold, converged = 1 at level k.  Otherwise converged = 0 at the longest usable
 * level (the one whose blocks are longest, 32..63 of them).  With no usable level at all
 * (fewer than 32 values) the naive level-0 error is reported with converged = 0.
 *
 * Finite blocks.  sigma_k of blocks that are not much longer than the correlation time
 * falls short of the error: for a stationary series with autocorrelation rho^|t| (AR(1),
 * tau = (1 + rho) / (2 (1 - rho))) the mean of B consecutive values has
 *     B Var(mean_B) / Var(x) = h(B) = (1 + rho)/(1 - rho) - 2 rho (1 - rho^B) / (B (1 - rho)^2)
 * and, n blocks covering N_k = n B of the N values (the sample variance of correlated
 * block means also loses the variance of their common mean),
 *     E sigma_k^2 = Var(x) (n h(B) - h(N_k)) / (N_k (n - 1)),
 *     E sigma_0^2 = Var(x) (N - h(N)) / (N (N - 1)),      Var(mean) = Var(x) h(N) / N,
 * a deficit of about tau / B (exactly 1 - 1/F below).  The error reported is sigma_k times
 * sqrt(F), F = Var(mean) / E sigma_k^2 = h(N) N_k (n - 1) / (N (n h(B) - h(N_k))), with rho
 * the AR(1) coefficient that reproduces the observed sigma_k^2 / sigma_0^2 (bisection; rho
 * = 0 and F = N_k / N when the ratio is at or below that of uncorrelated data).  At the
 * plateau of a long run F - 1 is a few per cent; for a run of a few hundred tau, whose
 * longest usable blocks hold only 3..15 tau, it is 5..40 %, which the bare sigma_k missed
 * (tests/physics/test_error_calibration.c: z-scores of short Ising runs near Tc against
 * exact averages).  For a reversible Markov chain the autocorrelation is a positive
 * mixture of decaying exponentials, whose deficit sum_t t rho(t) / (tau B) is at least the
 * single exponential's tau / B: the correction is then, if anything, too small.  The fit
 * stops at tau = B (level_factor): blocks shorter than tau cannot tell tau, and the error
 * is then a lower bound (lower_bound = 1; runs shorter than ~60 tau).  The error never
 * exceeds sqrt(N) sigma_0, the spread of the values themselves.
 *
 * Jackknife with bins of unequal size: the weighted delete-one jackknife of Busing, Meijer
 * & van der Leeden (Stat. Comput. 9, 3 (1999)), with h_i = W / w_i (W = sum of weights):
 *     estimate  = n f(all) - sum_i (1 - w_i / W) f_(i)
 *     pseudo_i  = h_i f(all) - (h_i - 1) f_(i)
 *     error^2   = (1/n) sum_i (pseudo_i - estimate)^2 / (h_i - 1)
 * where f_(i) is f of the weighted means of all bins but i.  With equal weights this is
 * exactly the standard n f(all) - (n-1) mean(f_(i)) and (n-1)/n sum (f_(i) - mean)^2; for
 * a linear f it gives the weighted mean and the error sqrt(sum w_i (m_i - M)^2 /
 * (n (W - w_i))), the standard error of the bin means for equal weights.
 * bin_weights == NULL is accepted and means equal weights. */
#include "stats.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BLOCKS 32

/* h(B) above: B Var(mean of B values) / Var(x) for AR(1) with coefficient rho in [0, 1).
 * Written as 1 + (2 rho / q) (1 - (1 - rho^B) / (B q)), q = 1 - rho, with the bracket's
 * Taylor series (B - 1) q / 2 - (B - 1)(B - 2) q^2 / 6 + ... where B q is small and the
 * closed form would cancel. */
static double ar1_h(double rho, double B)
{
    if (!(rho > 0.0) || B <= 1.0)
        return 1.0;
    const double q = 1.0 - rho;
    double bracket;
    if (B * q < 1e-3)
        bracket = (B - 1.0) * q / 2.0 * (1.0 - (B - 2.0) * q / 3.0 +
                                          (B - 2.0) * (B - 3.0) * q * q / 12.0);
    else
        bracket = 1.0 + expm1(B * log1p(-q)) / (B * q); /* 1 - (1 - rho^B) / (B q) */
    return 1.0 + 2.0 * rho / q * bracket;
}

/* E sigma_k^2 / E sigma_0^2 for AR(1): n blocks of B values (N_k = n B) of N values */
static double ar1_level_ratio(double rho, double B, double n, double N)
{
    const double Nk = n * B, hN = ar1_h(rho, N);
    return (n * ar1_h(rho, B) - ar1_h(rho, Nk)) * N * (N - 1.0) / (Nk * (n - 1.0) * (N - hN));
}

/* F = Var(mean of N) / E sigma_k^2 for AR(1) */
static double ar1_level_factor(double rho, double B, double n, double N)
{
    const double Nk = n * B;
    return ar1_h(rho, N) * Nk * (n - 1.0) / (N * (n * ar1_h(rho, B) - ar1_h(rho, Nk)));
}

/* F of level k whose sigma_k^2 / sigma_0^2 is r: the rho that reproduces r, found by
 * bisection (the ratio grows with rho).  As tau passes B the ratio saturates (at ~B: blocks
 * shorter than tau all look alike) and the inversion amplifies the noise of r without
 * bound, so rho stops at tau = B (F ~ 2.7); *capped = 1 then: the error is a lower bound. */
static double level_factor(double r, double B, double n, double N, int *capped)
{
    *capped = 0;
    if (!(r > ar1_level_ratio(0.0, B, n, N)))
        return ar1_level_factor(0.0, B, n, N);
    const double rho_max = (2.0 * B - 1.0) / (2.0 * B + 1.0); /* tau = B */
    if (!(r < ar1_level_ratio(rho_max, B, n, N))) {
        *capped = 1;
        return ar1_level_factor(rho_max, B, n, N);
    }
    double lo = 0.0, hi = rho_max;
    for (int it = 0; it < 64 && hi - lo > 1e-15; it++) {
        const double mid = 0.5 * (lo + hi);
        const double rm = ar1_level_ratio(mid, B, n, N);
        if (rm < r && isfinite(rm))
            lo = mid;
        else
            hi = mid;
    }
    return ar1_level_factor(0.5 * (lo + hi), B, n, N);
}

double mcfi_block_factor(double tau, double block, double n_blocks)
{
    if (!(tau > 0.5) || !(block >= 1.0) || !(n_blocks >= 2.0))
        return 1.0;
    if (!isfinite(tau))
        return INFINITY;
    const double rho = (2.0 * tau - 1.0) / (2.0 * tau + 1.0);
    return ar1_level_factor(rho, block, n_blocks, block * n_blocks);
}

int mcfe_error_decimals(double error)
{
    if (!(error > 0) || !isfinite(error))
        return -1;
    int digits = 1 - (int)floor(log10(error));
    return digits < 0 ? 0 : digits > 15 ? 15 : digits;
}

void mcfi_blocking_init(mcf_blocking *b)
{
    memset(b, 0, sizeof *b);
}

void mcfi_blocking_add(mcf_blocking *b, double x)
{
    if (b->count == 0)
        b->shift = x;
    b->count++;
    double v = x - b->shift;
    for (int k = 0; k < MCF_BLOCK_LEVELS; k++) {
        b->n[k]++;
        b->sum[k] += v;
        b->sumsq[k] += v * v;
        if (!b->has_pending[k]) {
            b->pending[k] = v;
            b->has_pending[k] = 1;
            return;
        }
        v = 0.5 * (b->pending[k] + v);
        b->pending[k] = 0.0;
        b->has_pending[k] = 0;
    }
}

int mcfi_blocking_consistent(const mcf_blocking *b)
{
    /* each value reaches level k once per 2^k values, and toggles its pending flag */
    for (int k = 0; k < MCF_BLOCK_LEVELS; k++) {
        uint64_t n = b->count >> k;
        if (b->n[k] != n || b->has_pending[k] != (uint8_t)(n & 1u))
            return 0;
    }
    return 1;
}

/* sigma_k and delta_k of a level with n_k >= 2. */
static void level_error(const mcf_blocking *b, int k, double *sigma, double *delta)
{
    const double n = (double)b->n[k];
    const double m = b->sum[k] / n;
    double var = b->sumsq[k] / n - m * m;
    if (var < 0.0) /* rounding when all block means are (nearly) equal */
        var = 0.0;
    *sigma = sqrt(var / (n - 1.0));
    *delta = *sigma / sqrt(2.0 * (n - 1.0));
}

void mcfi_blocking_estimate(const mcf_blocking *b, mcf_estimate *e)
{
    memset(e, 0, sizeof *e);
    e->count = b->count;
    e->error = NAN;
    e->naive_error = NAN;
    e->tau = NAN;
    e->level = 0;
    e->converged = 0;
    if (b->count == 0) {
        e->mean = NAN;
        return;
    }
    e->mean = b->shift + b->sum[0] / (double)b->n[0];
    if (!isfinite(e->mean))
        e->mean = NAN;
    if (b->count < 2)
        return;

    double sigma[MCF_BLOCK_LEVELS], delta[MCF_BLOCK_LEVELS];
    int usable = 0; /* levels 0 .. usable-1 have n_k >= MIN_BLOCKS */
    for (int k = 0; k < MCF_BLOCK_LEVELS && b->n[k] >= 2; k++) {
        level_error(b, k, &sigma[k], &delta[k]);
        if (b->n[k] >= MIN_BLOCKS)
            usable = k + 1;
    }
    const double s0 = sigma[0];
    e->naive_error = s0;
    if (!isfinite(s0) || !isfinite(e->mean)) {
        e->mean = NAN;
        return;
    }
    if (s0 == 0.0) { /* all values equal: exact mean, no correlation to speak of */
        e->error = 0.0;
        e->tau = 0.5;
        e->converged = 1;
        return;
    }
    if (usable == 0) {
        e->error = s0;
        e->tau = 0.5;
        return;
    }

    const double N = (double)b->count;
    int chosen = -1;
    for (int k = 0; k < usable; k++) {
        const double B = ldexp(1.0, k);
        const double r = sigma[k] / s0;
        if (B * B * B > 2.0 * N * (r * r) * (r * r)) {
            chosen = k;
            break;
        }
    }
    if (chosen >= 0) {
        for (int j = chosen + 1; j < usable; j++) {
            const double tol =
                3.0 * sqrt(delta[j] * delta[j] + delta[chosen] * delta[chosen]);
            if (sigma[j] > sigma[chosen] + tol) {
                chosen = -1;
                break;
            }
        }
    }
    if (chosen >= 0)
        e->converged = 1;
    else
        chosen = usable - 1;
    e->level = chosen;
    const double B = ldexp(1.0, chosen), nk = (double)b->n[chosen];
    const double ratio = sigma[chosen] * sigma[chosen] / (s0 * s0);
    e->error = sigma[chosen] * sqrt(level_factor(ratio, B, nk, N, &e->lower_bound));
    if (e->lower_bound)
        e->converged = 0;
    if (!(e->error <= sqrt(N) * s0))
        e->error = sqrt(N) * s0;
    e->tau = e->error * e->error / (2.0 * s0 * s0);
}

int mcfi_jackknife(const double *bin_means, const double *bin_weights, size_t nbins,
                   size_t nvars, mcf_jackknife_fn f, void *ctx, double *value,
                   double *error)
{
    *value = NAN;
    *error = NAN;
    if (!f || (nvars > 0 && !bin_means))
        return mcf_fail(MCF_EINVAL, "jackknife: no function or no bin means given");
    if (nbins == 0)
        return mcf_fail(MCF_EINVAL, "jackknife: no bins");
    for (size_t i = 0; bin_weights && i < nbins; i++)
        if (!(bin_weights[i] > 0.0) || !isfinite(bin_weights[i]))
            return mcf_fail(MCF_EINVAL,
                            "jackknife: bin %zu has weight %g; weights must be > 0", i,
                            bin_weights[i]);

    double *all = malloc((2 * nvars + nbins) * sizeof *all);
    if (!all)
        return mcf_fail(MCF_ENOMEM, "jackknife: out of memory for %zu bins", nbins);
    double *loo = all + nvars;
    double *fi = loo + nvars;

    /* Weighted means of all bins, accumulated relative to the first bin. */
    double W = 0.0;
    for (size_t i = 0; i < nbins; i++)
        W += bin_weights ? bin_weights[i] : 1.0;
    for (size_t v = 0; v < nvars; v++) {
        const double ref = bin_means[v];
        double s = 0.0;
        for (size_t i = 0; i < nbins; i++)
            s += (bin_weights ? bin_weights[i] : 1.0) * (bin_means[i * nvars + v] - ref);
        all[v] = ref + s / W;
    }
    const double f_all = f(all, ctx);
    if (nbins < 2) {
        free(all);
        *value = f_all;
        return mcf_fail(MCF_EINVAL, "jackknife: 1 bin; at least 2 are needed for an error");
    }

    /* Leave-one-out means, written as M + w_i (M - m_i) / (W - w_i) to avoid the
     * cancellation of (W M - w_i m_i) / (W - w_i). */
    for (size_t i = 0; i < nbins; i++) {
        const double w = bin_weights ? bin_weights[i] : 1.0;
        for (size_t v = 0; v < nvars; v++)
            loo[v] = all[v] + w * (all[v] - bin_means[i * nvars + v]) / (W - w);
        fi[i] = f(loo, ctx);
    }
    mcfe_jackknife_combine(f_all, fi, 1, bin_weights, nbins, value, error);
    free(all);
    return MCF_OK;
}

size_t mcfe_jackknife_combine(double f_all, const double *f_loo, size_t stride,
                              const double *weights, size_t nbins, double *value,
                              double *error)
{
    /* g_i = f_(i) - f(all); with h_i = W / w_i and G = sum_i (1 - w_i / W) g_i the
     * weighted jackknife (Busing et al.) reads
     *     estimate = f(all) - G,    pseudo_i - estimate = G - (h_i - 1) g_i,
     *     error^2 = 1/n sum_i (pseudo_i - estimate)^2 / (h_i - 1),
     * which involve only the small differences, not n f(all).  Equal weights give the
     * textbook (n - 1)/n sum_i (f_(i) - mean f_(.))^2. */
    double W = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < nbins; i++) {
        const double w = weights ? weights[i] : 1.0;
        if (w > 0.0) {
            W += w;
            n++;
        }
    }
    *value = f_all;
    *error = NAN;
    if (n < 2)
        return n;
    double G = 0.0;
    for (size_t i = 0; i < nbins; i++) {
        const double w = weights ? weights[i] : 1.0;
        if (w > 0.0)
            G += (1.0 - w / W) * (f_loo[i * stride] - f_all);
    }
    double var = 0.0;
    for (size_t i = 0; i < nbins; i++) {
        const double w = weights ? weights[i] : 1.0;
        if (!(w > 0.0))
            continue;
        const double h = W / w;
        const double d = G - (h - 1.0) * (f_loo[i * stride] - f_all);
        var += d * d / (h - 1.0);
    }
    *value = f_all - G;
    *error = sqrt(var / (double)n);
    return n;
}
