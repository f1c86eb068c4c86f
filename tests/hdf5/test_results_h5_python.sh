#!/usr/bin/env bash
# docs/examples/read_results_h5.py (h5py + numpy) on a small Ising scan: it redoes the
# susceptibility's jackknife from the bins in results.h5 and asserts every row of
# results.tsv's susceptibility and susceptibility_err.  Skipped (77) without HDF5 in the
# build or without a python3 that imports h5py and numpy.
# Then the same script on an Anderson run with kpm rebuilds the DOS from the stored
# Chebyshev moments (dos_moments) and asserts the run's dos curve.
# usage: test_results_h5_python.sh MCF SCRATCH hdf5|no-hdf5 EXAMPLE
set -u
. "$(dirname "${BASH_SOURCE[0]}")/h5py_python.sh"
mcf=$1
dir=$2/results_h5_python
example=$4
[ "$3" = hdf5 ] || { echo "skipped: built without HDF5"; exit 77; }
py=$(h5py_python)
[ -n "$py" ] || { echo "skipped: python3-h5py not installed (apt-get install python3-h5py python3-numpy)"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
cat > scan.ini <<'INI'
[run]
model = ising
seed = 99
output = scan.out
walkers = 2
threads = 1
[schedule]
thermalize = 200
sweeps = 2000
temperatures = 1.8, 2.27, 2.8
[model]
L = 8
INI
"$mcf" run scan.ini --no-progress >/dev/null 2>run.err || { cat run.err; echo "mcf run failed"; exit 1; }
"$py" "$example" scan.out
st=$?
[ $st -eq 0 ] || exit $st
# a KPM run with Chebyshev moments: the example rebuilds its DOS from the bins' moments
cat > dos.ini <<'INI'
[run]
model = anderson
evaluator = kpm
seed = 7
output = dos.out
walkers = 2
threads = 1
[schedule]
thermalize = 0
sweeps = 32
bins = 8
[model]
L = 4
W = 1, 3
typical_sites = 2
[evaluator]
moments = 32
vectors = 2
INI
"$mcf" run dos.ini --no-progress >/dev/null 2>dos.err || { cat dos.err; echo "mcf run (anderson) failed"; exit 1; }
"$py" "$example" dos.out
