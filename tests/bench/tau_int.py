#!/usr/bin/env python3
"""tau_int.py OUTPUT_DIR [COLUMN ...] -- integrated autocorrelation times of a run's series.

Reads OUTPUT_DIR/series (or .series-partial while a run goes: index.tsv and one float64 file
per chain) and prints, per chain and column, the mean, tau_int = 1/2 + sum_t rho(t) summed up
to Sokal's automatic window (the first W with W >= c tau_int(W), c = 6), its error
tau sqrt(2 (2W + 1) / N) (Madras and Sokal 1988), and the number of measurements N.  tau is in
units of measurements (sweeps or trajectories times measure_every).  A window that never
closes (N too short for the correlation) prints tau as a lower bound ('>=').
"""
import os
import sys

import numpy as np


def tau_int(x, c=6.0):
    n = len(x)
    y = x - x.mean()
    f = np.fft.rfft(y, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n]
    if acf[0] <= 0:
        return 0.5, 0.0, True
    rho = acf / acf[0]
    tau = 0.5
    for w in range(1, n):
        tau += rho[w]
        if w >= c * tau:
            return tau, tau * np.sqrt(2.0 * (2 * w + 1) / n), True
    return tau, float('nan'), False


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    d = os.path.join(top, 'series')
    if not os.path.isdir(d):
        d = os.path.join(top, '.series-partial')
    cols, rows, head = [], [], []
    for line in open(os.path.join(d, 'index.tsv')):
        if line.startswith('# record:'):
            cols = line.split(':', 1)[1].split()
        elif line.startswith('chain'):
            head = line.split()  # chain, file, the scan's axes (L, T, ...), walker, units
        elif not line.startswith('#'):
            rows.append(line.split('\t'))
    axes = [k for k in range(2, len(head)) if head[k] not in ('walker', 'units')]
    want = sys.argv[2:] or cols
    for r in rows:
        data = np.fromfile(os.path.join(d, r[1]), dtype='<f8')
        data = data[:len(data) // len(cols) * len(cols)].reshape(-1, len(cols))
        for name in want:
            x = data[:, cols.index(name)]
            t, e, closed = tau_int(x)
            where = ' '.join('%s=%s' % (head[k], r[k].strip()) for k in axes)
            print('chain %s %s %-10s N=%6d mean %.6g  tau_int %s%.3g +- %.2g' %
                  (r[0], where, name, len(x), x.mean(), '' if closed else '>= ', t, e))


if __name__ == '__main__':
    main()
