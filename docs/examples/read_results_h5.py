#!/usr/bin/env python3
"""Read an mcf run's results.h5 and redo the susceptibility from the stored bins, or the
DOS from the stored Chebyshev moments of a KPM run.

usage: python3 read_results_h5.py DIR        (DIR: an output folder of `mcf run`)

The susceptibility chi = N (<m^2> - <|m|>^2) / T is a function of two means, so its error
comes from the jackknife over the bins of the measurements.  results.h5 keeps, per chain,
the mean of every observable in each bin and the number of measurements in the bin; this
script forms the jackknife bins of every scan point (the bins of all its walkers), redoes
the weighted delete-one jackknife, scales its error for bins that are not much longer than
the autocorrelation time (block_factor), and asserts that value and error are the susceptibility
and susceptibility_err columns of results.tsv, digit for digit.  Any other function of the
means (a ratio, a Binder cumulant of your own) works the same way.

A KPM run whose model stores Chebyshev moments (anderson: dos_moments, moment_scale) gets
its DOS reconstructed here instead: per scan point the bins' moments averaged with their
weights, the Jackson kernel (the run's default) and the Chebyshev sum at the energies of
the dos curve, asserted against the dos column of results.h5 (/curves/dos) to 1e-12 of its
largest value.  `mcf dos DIR` does the same with any kernel and grid, and error bands.

Needs h5py and numpy (Debian: apt-get install python3-h5py python3-numpy).  The layout of
results.h5 is docs/results-h5.md.
"""
import math
import sys

import h5py
import numpy as np


def jackknife(means, weights, f):
    """Weighted delete-one jackknife of f(means) over bins: means[bin, variable] (the mean
    of each variable in the bin), weights[bin] (measurements in the bin).  Returns the
    bias-corrected estimate and its error.  The same arithmetic in the same order as mcf's
    core/engine/stats.c, so that the printed digits agree exactly."""
    n, nvars = means.shape
    W = 0.0
    for w in weights:
        W += w
    ref = means[0]
    mean_all = np.empty(nvars)
    for v in range(nvars):
        s = 0.0
        for i in range(n):
            s += weights[i] * (means[i, v] - ref[v])
        mean_all[v] = ref[v] + s / W
    f_all = f(mean_all)
    g = np.empty(n)  # f(all but bin i) - f(all)
    G = 0.0
    for i in range(n):
        w = weights[i]
        leave_one_out = mean_all + w * (mean_all - means[i]) / (W - w)
        g[i] = f(leave_one_out) - f_all
        G += (1.0 - w / W) * g[i]
    var = 0.0
    for i in range(n):
        h = W / weights[i]
        d = G - (h - 1.0) * g[i]
        var += d * d / (h - 1.0)
    var /= n
    return f_all - G, np.sqrt(var)


def ar1_h(rho, B):
    """B Var(mean of B values) / Var(x) for a series with autocorrelation rho^t (AR(1))."""
    if not rho > 0.0 or B <= 1.0:
        return 1.0
    q = 1.0 - rho
    if B * q < 1e-3:  # the series of the bracket below, where the closed form would cancel
        bracket = (B - 1.0) * q / 2.0 * (1.0 - (B - 2.0) * q / 3.0 +
                                         (B - 2.0) * (B - 3.0) * q * q / 12.0)
    else:
        bracket = 1.0 + math.expm1(B * math.log1p(-q)) / (B * q)
    return 1.0 + 2.0 * rho / q * bracket


def block_factor(tau, block, n_blocks):
    """F = Var(mean) / E[the variance of the mean from n_blocks consecutive blocks of `block`
    values], for an exponential autocorrelation of integrated time tau (in values): the
    factor by which the jackknife's variance falls short when its bins are not much longer
    than tau (docs/methods.md, "Calibration of the error bars").  mcf scales the jackknife
    error of every derived column by sqrt(F), tau being the largest of the walkers' mean
    tau of the observables involved; the same arithmetic as core/engine/stats.c."""
    if not tau > 0.5 or not block >= 1.0 or not n_blocks >= 2.0:
        return 1.0
    if not math.isfinite(tau):
        return math.inf
    rho = (2.0 * tau - 1.0) / (2.0 * tau + 1.0)
    n, N = n_blocks, block * n_blocks
    Nk = n * block
    return ar1_h(rho, N) * Nk * (n - 1.0) / (N * (n * ar1_h(rho, block) - ar1_h(rho, Nk)))


def read_tsv(path):
    """results.tsv as {column: [texts]}: the '#' lines skipped, then a header and rows."""
    with open(path) as tsv:
        lines = [line.rstrip("\n").split("\t") for line in tsv if not line.startswith("#")]
    header, rows = lines[0], lines[1:]
    return {name: [row[c] for row in rows] for c, name in enumerate(header)}


def jackson(M):
    """The Jackson kernel g_n, n < M (docs/methods.md)."""
    n = np.arange(M)
    q = np.pi / (M + 1)
    return ((M - n + 1) * np.cos(q * n) + np.sin(q * n) / np.tan(q)) / (M + 1)


def dos_from_moments(h5):
    """The DOS of every scan point from the bins of dos_moments, against /curves/dos."""
    obs = h5["observables"]
    scale = [n for n, g in obs.items() if g.attrs.get("moment_scale", 0)][0]
    weights = h5["chains/bin_weights"][()]
    point = h5["chains/point"][()]
    mom, sc = obs["dos_moments"], obs[scale]
    curve = h5["curves/dos"]
    run = curve["dos"][()]
    worst = 0.0
    for k in range(len(h5["results/acceptance"])):
        chains = np.flatnonzero(point == k)
        S, W = 0.0, 0.0
        for c in chains:
            rows = np.flatnonzero(mom["chain"][()] == c)       # this chain's n = 0 .. M-1
            w = weights[c]
            ok = w > 0
            S = S + mom["bin_means"][rows][:, ok] @ w[ok]      # sum over bins of mean x weight
            W += w[ok].sum()
            a, b = sc["bin_means"][np.flatnonzero(sc["chain"][()] == c)][:, np.argmax(ok)]
        mu = S / W
        g = jackson(len(mu))
        # the energies of point k's rows of the dos curve (its rows are in scan-point order)
        n_e = len(run) // len(h5["results/acceptance"])
        E = curve["E"][k * n_e:(k + 1) * n_e]
        x = (E - b) / a
        T = np.cos(np.outer(np.arange(len(mu)), np.arccos(x)))  # T_n(x)
        rho = (g[0] * mu[0] + 2 * (g[1:] * mu[1:]) @ T[1:]) / (np.pi * a * np.sqrt(1 - x * x))
        diff = np.max(np.abs(rho - run[k * n_e:(k + 1) * n_e])) / np.max(np.abs(run))
        worst = max(worst, diff)
        print(f"scan point {k}: DOS from {len(mu)} moments, a = {a:.6g}, b = {b:.6g}: "
              f"largest difference from the run's dos {diff:.1e} of its maximum")
    assert worst <= 1e-12, worst
    print("the DOS of every scan point, reconstructed from the stored moments")


def main(folder):
    h5 = h5py.File(f"{folder}/results.h5", "r")
    assert h5.attrs["format"] == 1, "a results.h5 of another layout"
    print(f"mcf {h5.attrs['mcf_version']}, model {h5.attrs['model']}, seed {h5.attrs['seed']}, "
          f"{h5.attrs['walkers']} walker(s) per scan point, {h5.attrs['bins']} bins")

    # which observables play the roles |m| and m^2
    role = {g.attrs["role"]: name for name, g in h5["observables"].items() if g.attrs["role"]}
    if "dos_moments" in h5["observables"] and "dos" in h5.get("curves", {}):
        if b"kernel = jackson" not in h5["config.ini"][()] and \
                b"kernel =" in h5["config.ini"][()]:
            sys.exit("the run's kernel is not Jackson: use mcf dos DIR --kernel ...")
        dos_from_moments(h5)
        return
    if "order" not in role or "order2" not in role:
        sys.exit(f"model {h5.attrs['model']} declares no order parameter: no susceptibility")
    abs_m = h5["observables"][role["order"]]["bin_means"][()]   # [chain, bin]
    m2 = h5["observables"][role["order2"]]["bin_means"][()]
    weights = h5["chains/bin_weights"][()]                       # [chain, bin]
    point = h5["chains/point"][()]                               # the row of /results
    N = h5["chains/units"][()]
    T = h5["chains/T"][()]
    # each chain's tau (in sweeps) of |m| and m^2; the jackknife error is scaled with it
    tau = [h5["observables"][role[r]]["tau"][()] / h5.attrs["measure_every"]
           for r in ("order", "order2")]

    table = h5["results"]
    tsv = read_tsv(f"{folder}/results.tsv")
    scan = list(h5.attrs["scan"])
    for k in range(len(table["susceptibility"])):
        chains = np.flatnonzero(point == k)        # the walkers of scan point k, in order
        means, w = [], []
        for c in chains:
            for b in range(weights.shape[1]):
                if weights[c, b] > 0:               # an empty bin has no mean
                    means.append([abs_m[c, b], m2[c, b]])
                    w.append(weights[c, b])
        means = np.array(means)
        n_units, temperature = N[chains[0]], T[chains[0]]
        chi, err = jackknife(means, np.array(w),
                             lambda m: n_units * (m[1] - m[0] * m[0]) / temperature)
        # the bins are consecutive stretches of each walker's chain: scale for the part of
        # the variance that bins not much longer than tau miss (walker 0's bins; all alike)
        worst = 0.0
        for t in tau:
            s = 0.0
            for c in chains:
                s += t[c]
            worst = max(worst, s / len(chains))
        used = [x for x in weights[chains[0]] if x > 0]
        n_meas = 0.0
        for x in used:
            n_meas += x
        err *= math.sqrt(block_factor(worst, n_meas / len(used), float(len(used))))
        where = ", ".join(f"{a} = {tsv[a][k]}" for a in scan)
        print(f"{where}: susceptibility {chi:.10g} +- {err:.10g} from {len(w)} bins")
        # the full-precision table, and the digits of results.tsv
        assert chi == table["susceptibility"][k] and err == table["susceptibility_err"][k]
        assert f"{chi:.10g}" == tsv["susceptibility"][k], (chi, tsv["susceptibility"][k])
        assert f"{err:.10g}" == tsv["susceptibility_err"][k], (err, tsv["susceptibility_err"][k])
    print("the susceptibility and its error of every row of results.tsv, reproduced")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
