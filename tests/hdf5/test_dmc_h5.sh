#!/usr/bin/env bash
# results.h5's /dmc (core/engine/dmc_history.c): the population's history of a DMC run, one
# row per measure_every sweeps and scan point, read with h5py.  Skipped (77) without HDF5 in
# the build or without a python3 that imports h5py and numpy.
#  - the free gas (interaction = none, jastrow = none: every walker's local energy is the
#    exact energy of the cell, so every weight is 1): rows at sweeps 3, 6, .., 30 for each of
#    the two time steps, the effective population exactly the 8 walkers and the log weight 0
#    (to rounding, 1e-12; log_product, their sum over T / tau = 10 or 20 steps, 1e-10), the
#    energy and the trial energy the exact energy of the log's
#    line, 0 < timestep_effective <= timestep;
#  - the interacting pair (r_s = 1, rpa Jastrow): weights that differ (effective population
#    below the walkers), and the mean of the measured rows' energies over the electrons is
#    results.tsv's energy (the same steps; results.h5's /results at full precision, 1e-12
#    relative);
#  - stopped by SIGINT after a checkpoint and resumed: the same /dmc, value for value, as
#    the uninterrupted run's (the history is part of the checkpoint).
# usage: test_dmc_h5.sh MCF SCRATCH hdf5|no-hdf5
set -u
. "$(dirname "${BASH_SOURCE[0]}")/h5py_python.sh"
mcf=$1
dir=$2/dmc_h5
[ "$3" = hdf5 ] || { echo "skipped: built without HDF5"; exit 77; }
py=$(h5py_python)
[ -n "$py" ] || { echo "skipped: python3-h5py not installed (apt-get install python3-h5py python3-numpy)"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# config NAME SWEEPS MODEL_LINES...
config() {
  local name=$1 sweeps=$2; shift 2
  printf '[run]\nmodel = slater-jastrow\nevaluator = planewave\nseed = 12\noutput = %s.out\n' \
    "$name" >"$name.ini"
  printf 'walkers = 8\nthreads = 1\nmethod = dmc\ntimestep = 0.1, 0.05\n' >>"$name.ini"
  printf '[schedule]\nthermalize = 10\nsweeps = %s\nmeasure_every = 3\nbins = 4\n' "$sweeps" \
    >>"$name.ini"
  printf 'checkpoint_every = 300\n[model]\n' >>"$name.ini"
  for line in "$@"; do printf '%s\n' "$line" >>"$name.ini"; done
}

config free 20 "electrons = 14" "rs = 1" "interaction = none" "jastrow = none"
"$mcf" run free.ini --no-progress >/dev/null 2>free.err || { bad "free gas run"; cat free.err; }
exact=$(sed -n 's/.*exact free-gas (interaction = none) energy of this cell.* per electron, \([-0-9.e]*\) per cell.*/\1/p' free.out/log | head -1)
if "$py" - free.out/results.h5 "$exact" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); exact = float(sys.argv[2]); g = f["/dmc"]
cols = [c.decode() if isinstance(c, bytes) else c for c in g.attrs["columns"]]
assert cols == ["timestep", "sweep", "energy", "log_weight", "effective_population",
                "trial_energy", "timestep_effective", "log_product"], cols
tau, sweep = g["timestep"][()], g["sweep"][()]
assert len(sweep) == 20, len(sweep)
for k, t in enumerate((0.1, 0.05)):
    rows = slice(10 * k, 10 * k + 10)
    assert np.all(tau[rows] == t), tau
    assert np.array_equal(sweep[rows], 1.0 + 3.0 * np.arange(10)), sweep
assert np.max(np.abs(g["effective_population"][()] - 8)) < 1e-12
assert np.max(np.abs(g["log_weight"][()])) < 1e-12
assert np.max(np.abs(g["log_product"][()])) < 1e-10 # 10 and 20 steps of ~1e-15
for c in ("energy", "trial_energy"):
    assert exact > 0 and np.max(np.abs(g[c][()] - exact)) <= 1e-10 * abs(exact), (c, exact)
te = g["timestep_effective"][()]
assert np.all(te > 0) and np.all(te <= tau * (1 + 1e-15)), te
print("free gas: 20 rows, N_eff = 8, log w = 0, E = E_T = %.10f (exact)" % exact)
PY
then ok "the free gas's history: every weight 1, the exact energy"; else bad "the free gas's /dmc"; fi

config pair 600 "electrons = 2" "rs = 1" "jastrow = rpa"
"$mcf" run pair.ini --no-progress >/dev/null 2>pair.err || { bad "pair run"; cat pair.err; }
if "$py" - pair.out/results.h5 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g, results = f["/dmc"], f["/results/energy"][()] # results.tsv's column, full precision
assert len(results) == 2
tau, sweep, e = g["timestep"][()], g["sweep"][()], g["energy"][()]
neff = g["effective_population"][()]
assert np.all(neff < 8) and np.all(neff > 1), neff
for k, t in enumerate((0.1, 0.05)):
    sel = (tau == t) & (sweep > 10)
    assert sel.sum() == 200, sel.sum()
    mean = e[sel].mean() / 2
    want = results[k]
    assert abs(mean - want) <= 1e-12 * abs(want), (mean, want)
    print("tau %g: mean of the history's measured energies / N %.12f, results.tsv %.12f"
          % (t, mean, want))
PY
then ok "the pair: weights spread, the history's energies average to results.tsv's"
else bad "the pair's /dmc"; fi

config full 6000 "electrons = 2" "rs = 1" "jastrow = rpa"
"$mcf" run full.ini --no-progress >/dev/null 2>full.err || { bad "full run"; cat full.err; }
config cut 6000 "electrons = 2" "rs = 1" "jastrow = rpa"
"$mcf" run cut.ini --no-progress >cut.stdout 2>cut.err &
pid=$!
for _ in $(seq 1 1500); do [ -f cut.out/checkpoint ] && break; sleep 0.02; done
kill -INT $pid 2>/dev/null
wait $pid
st=$?
"$mcf" resume cut.out --no-progress >/dev/null 2>cutr.err || { bad "resume"; cat cutr.err; }
if [ $st -eq 130 ] && grep -q "resumed from the checkpoint" cut.out/log &&
   "$py" - full.out/results.h5 cut.out/results.h5 <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r")["/dmc"], h5py.File(sys.argv[2], "r")["/dmc"]
for c in a.attrs["columns"]:
    c = c.decode() if isinstance(c, bytes) else c
    assert np.array_equal(a[c][()], b[c][()]), c
print("%d rows equal" % len(a["sweep"][()]))
PY
then ok "stopped and resumed: the uninterrupted run's /dmc"
else bad "the resumed /dmc differs (exit status $st)"; cat cut.err; fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
