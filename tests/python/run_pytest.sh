#!/usr/bin/env bash
# run_pytest.sh MCF SCRATCH hdf5|no-hdf5 SOURCE TESTS... — the Python package's tests
# (python/tests, pytest) against the mcf program MCF and the package in SOURCE/python.
# Skipped (77) without a python3 that imports pytest, numpy, h5py and matplotlib (Debian:
# python3-pytest python3-numpy python3-h5py python3-matplotlib).
set -u
mcf=$1 scratch=$2 hdf5=$3 src=$4
shift 4
py=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null &&
     "$candidate" -c "import pytest, numpy, h5py, matplotlib" 2>/dev/null; then
    py=$candidate; break
  fi
done
[ -n "$py" ] || { echo "skipped: no python3 with pytest, numpy, h5py and matplotlib (apt-get install python3-pytest python3-numpy python3-h5py python3-matplotlib)"; exit 77; }
export MCF_PROGRAM=$mcf MCF_TEST_TMP=$scratch MCF_HDF5=$([ "$hdf5" = hdf5 ] && echo 1 || echo 0)
export PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1
mkdir -p "$scratch"
cd "$scratch" || exit 1
args=()
for t in "$@"; do args+=("$src/python/tests/$t"); done
exec "$py" -m pytest -q -p no:cacheprovider -rs "${args[@]}"
