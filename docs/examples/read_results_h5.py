#!/usr/bin/env python3
"""Read an mcf run's results.h5 and redo the susceptibility from the stored bins.

usage: python3 read_results_h5.py DIR        (DIR: an output folder of `mcf run`)

The susceptibility chi = N (<m^2> - <|m|>^2) / T is a function of two means, so its error
comes from the jackknife over the bins of the measurements.  results.h5 keeps, per chain,
the mean of every observable in each bin and the number of measurements in the bin; this
script forms the jackknife bins of every scan point (the bins of all its walkers), redoes
the weighted delete-one jackknife, and asserts that value and error are the susceptibility
and susceptibility_err columns of results.tsv, digit for digit.  Any other function of the
means (a ratio, a Binder cumulant of your own) works the same way.

Needs h5py and numpy (Debian: apt-get install python3-h5py python3-numpy).  The layout of
results.h5 is docs/results-h5.md.
"""
import sys

import h5py
import numpy as np


def jackknife(means, weights, f):
    """Weighted delete-one jackknife of f(means) over bins: means[bin, variable] (the mean
    of each variable in the bin), weights[bin] (measurements in the bin).  Returns the
    bias-corrected estimate and its error.  The same arithmetic in the same order as mcf's
    core/src/stats.c, so that the printed digits agree exactly."""
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


def read_tsv(path):
    """results.tsv as {column: [texts]}: the '#' lines skipped, then a header and rows."""
    with open(path) as tsv:
        lines = [line.rstrip("\n").split("\t") for line in tsv if not line.startswith("#")]
    header, rows = lines[0], lines[1:]
    return {name: [row[c] for row in rows] for c, name in enumerate(header)}


def main(folder):
    h5 = h5py.File(f"{folder}/results.h5", "r")
    assert h5.attrs["format"] == 1, "a results.h5 of another layout"
    print(f"mcf {h5.attrs['mcf_version']}, model {h5.attrs['model']}, seed {h5.attrs['seed']}, "
          f"{h5.attrs['walkers']} walker(s) per scan point, {h5.attrs['bins']} bins")

    # which observables play the roles |m| and m^2
    role = {g.attrs["role"]: name for name, g in h5["observables"].items() if g.attrs["role"]}
    if "order" not in role or "order2" not in role:
        sys.exit(f"model {h5.attrs['model']} declares no order parameter: no susceptibility")
    abs_m = h5["observables"][role["order"]]["bin_means"][()]   # [chain, bin]
    m2 = h5["observables"][role["order2"]]["bin_means"][()]
    weights = h5["chains/bin_weights"][()]                       # [chain, bin]
    point = h5["chains/point"][()]                               # the row of /results
    N = h5["chains/units"][()]
    T = h5["chains/T"][()]

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
