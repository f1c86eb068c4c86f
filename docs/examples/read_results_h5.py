#!/usr/bin/env python3
"""Read an mcf run's results.h5 and redo the susceptibility from the stored bins, or the
DOS from the stored Chebyshev moments of a KPM run.

usage: python3 read_results_h5.py DIR        (DIR: an output folder of `mcf run`)

The susceptibility chi = N (<m^2> - <|m|>^2) / T is a function of two means, so its error
comes from the jackknife over the bins of the measurements.  results.h5 keeps, per chain,
the mean of every observable in each bin and the number of measurements in the bin; the
package mcf (python/, docs/python.md) forms the jackknife bins of every scan point (the bins
of all its walkers), redoes the weighted delete-one jackknife, scales its error for bins
that are not much longer than the autocorrelation time, and this script asserts that value
and error are the susceptibility and susceptibility_err columns of results.tsv, digit for
digit.  Any other function of the means (a ratio, a Binder cumulant of your own) works the
same way: run.jackknife(f, "abs_m", "m2").

A KPM run whose model stores Chebyshev moments (anderson: dos_moments, moment_scale) gets
its DOS reconstructed here instead: per scan point the bins' moments averaged with their
weights, the Jackson kernel (the run's default) and the Chebyshev sum at the energies of
the dos curve, asserted against the dos column of results.h5 (/curves/dos) to 1e-12 of its
largest value.  `mcf dos DIR` does the same with any kernel and grid, and error bands.

Needs h5py and numpy (Debian: apt-get install python3-h5py python3-numpy).  The layout of
results.h5 is docs/results-h5.md.
"""
import sys

import os

import h5py
import numpy as np

try:
    import mcf
except ImportError:  # run from the repository: the package is in python/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    import mcf


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
    # the weighted delete-one jackknife over every scan point's bins (the non-empty bins of
    # its walkers), its error scaled for bins not much longer than tau: the package mcf
    # (python/, docs/python.md) repeats core/engine/stats.c's arithmetic in its order
    run = mcf.load(folder)
    chi, err = run.jackknife(lambda m, m2, p: p.N * (m2 - m * m) / p.T,
                             role["order"], role["order2"])
    table = h5["results"]
    tsv = read_tsv(f"{folder}/results.tsv")
    scan = list(h5.attrs["scan"])
    for k in range(len(table["susceptibility"])):
        where = ", ".join(f"{a} = {tsv[a][k]}" for a in scan)
        print(f"{where}: susceptibility {chi[k]:.10g} +- {err[k]:.10g}")
        # the full-precision table, and the digits of results.tsv
        assert chi[k] == table["susceptibility"][k] and err[k] == table["susceptibility_err"][k]
        assert f"{chi[k]:.10g}" == tsv["susceptibility"][k], (chi[k], tsv["susceptibility"][k])
        assert f"{err[k]:.10g}" == tsv["susceptibility_err"][k]
    print("the susceptibility and its error of every row of results.tsv, reproduced")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
