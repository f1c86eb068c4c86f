"""The jackknife and the block factor of mcf's core (core/engine/stats.c), in the same
arithmetic and the same order, so that a derived quantity formed here from results.h5's
bins has the bits of the column the core wrote (docs/methods.md, "Derived quantities:
jackknife" and "Calibration of the error bars").

Plain Python loops on purpose: numpy's sums add in another order (pairwise), which changes
the last bits.
"""
import math

__all__ = ["jackknife", "block_factor", "jackknife_scale"]


def jackknife(means, weights, f):
    """The weighted delete-one jackknife of f over bins, as mcfi_jackknife.

    means: a sequence of bins, each a sequence of the variables' means in that bin;
    weights: the measurements in each bin (all > 0); f: a function of one list of the
    variables' means.  Returns (estimate, error): the bias-corrected estimate
    f(all) - G and the error sqrt(sum_i d_i^2 / (h_i - 1) / n) of Busing et al.'s weighted
    jackknife.  Raises ValueError for no bins or a weight that is not > 0; with one bin
    the error is NaN (the core refuses to give one)."""
    n = len(means)
    if n == 0:
        raise ValueError("jackknife: no bins")
    for i, w in enumerate(weights):
        if not (w > 0.0) or not math.isfinite(w):
            raise ValueError(f"jackknife: bin {i} has weight {w:g}; weights must be > 0")
    nvars = len(means[0])
    W = 0.0
    for w in weights:
        W += w
    mean_all = [0.0] * nvars
    for v in range(nvars):
        ref = means[0][v]
        s = 0.0
        for i in range(n):
            s += weights[i] * (means[i][v] - ref)
        mean_all[v] = ref + s / W
    f_all = f(list(mean_all))
    if n < 2:
        return f_all, math.nan
    f_loo = [0.0] * n
    for i in range(n):
        w = weights[i]
        loo = [mean_all[v] + w * (mean_all[v] - means[i][v]) / (W - w) for v in range(nvars)]
        f_loo[i] = f(loo)
    G = 0.0
    for i in range(n):
        G += (1.0 - weights[i] / W) * (f_loo[i] - f_all)
    var = 0.0
    for i in range(n):
        h = W / weights[i]
        d = G - (h - 1.0) * (f_loo[i] - f_all)
        var += d * d / (h - 1.0)
    return f_all - G, math.sqrt(var / float(n))


def _ar1_h(rho, B):
    """B Var(mean of B values) / Var(x) for AR(1) with coefficient rho (stats.c: ar1_h)."""
    if not (rho > 0.0) or B <= 1.0:
        return 1.0
    q = 1.0 - rho
    if B * q < 1e-3:
        bracket = (B - 1.0) * q / 2.0 * (1.0 - (B - 2.0) * q / 3.0 +
                                         (B - 2.0) * (B - 3.0) * q * q / 12.0)
    else:
        bracket = 1.0 + math.expm1(B * math.log1p(-q)) / (B * q)
    return 1.0 + 2.0 * rho / q * bracket


def block_factor(tau, block, n_blocks):
    """F = Var(mean) / E[the variance of the mean from n_blocks blocks of `block` values]
    for an exponential autocorrelation of integrated time tau (in measurements):
    mcfi_block_factor.  1 where it does not apply (tau <= 1/2, fewer than 2 blocks)."""
    if not (tau > 0.5) or not (block >= 1.0) or not (n_blocks >= 2.0):
        return 1.0
    if not math.isfinite(tau):
        return math.inf
    rho = (2.0 * tau - 1.0) / (2.0 * tau + 1.0)
    n, N = n_blocks, block * n_blocks
    Nk = n * block
    return _ar1_h(rho, N) * Nk * (n - 1.0) / (N * (n * _ar1_h(rho, block) - _ar1_h(rho, Nk)))


def jackknife_scale(tau, bin_weights):
    """The factor sqrt(F) by which the core scales a derived quantity's jackknife error
    (results_table.c: jackknife_scale): tau the largest walkers' mean tau (measurements) of
    the observables involved, the bins those of walker 0 (their weights; empty ones 0)."""
    n_meas, n_bins = 0.0, 0.0
    for w in bin_weights:
        if w > 0:
            n_meas += w
            n_bins += 1.0
    if not (n_bins >= 2.0):
        return 1.0
    F = block_factor(tau, n_meas / n_bins, n_bins)
    return math.sqrt(F) if math.isfinite(F) and F > 1.0 else 1.0
