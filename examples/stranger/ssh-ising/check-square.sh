#!/bin/sh
# check-square.sh — the square lattice's bond bookkeeping: at delta = 0 the fermions decouple
# from sigma, and the bonds form 2L periodic Ising rings of L bonds (coupling K), so the
# energy per bond is E_f/(2 L^2) (free fermions on the L x L torus) plus the ring's
# -K (u + u^(L-1)) / (1 + u^L), u = tanh(K/T).  Within 4 error bars at 3 temperatures.
cd "$(dirname "$0")" || exit 1
export MCF_PLUGIN_PATH=$PWD/build
mcf run check.ini --force --set model.lattice=square --set model.L=4 --set model.delta=0 \
    --set model.K=0.5 --set model.mu=0 --set schedule.sweeps=20000 --set run.output=square.out \
    > /dev/null 2>&1 || { echo "mcf run failed"; exit 1; }
python3 - <<'PY'
import math, sys
L, K, bad = 4, 0.5, 0
for line in open('square.out/results.tsv'):
    f = line.rstrip('\n').split('\t')
    if line.startswith('#'): continue
    if f[0] == 'T': col = {n: i for i, n in enumerate(f)}; continue
    T = float(f[0])
    eps = [-2 * (math.cos(2 * math.pi * a / L) + math.cos(2 * math.pi * b / L))
           for a in range(L) for b in range(L)]
    u = math.tanh(K / T)
    ex = sum(e / (1 + math.exp(e / T)) for e in eps) / (2 * L * L) - K * (u + u ** (L - 1)) / (1 + u ** L)
    v, s = float(f[col['energy']]), float(f[col['energy_err']])
    z = (v - ex) / s; bad += abs(z) > 4
    print("  T=%-4g energy mc %.5f +- %.5f  exact %.5f  %+.2f sigma" % (T, v, s, ex, z))
print("  PASS: all within 4 sigma" if not bad else "  FAIL"); sys.exit(bad > 0)
PY
