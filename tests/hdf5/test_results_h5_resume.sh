#!/usr/bin/env bash
# results.h5 has the same bytes (cmp) for the same configuration and seed: on 1 and 2
# threads, after a SIGTERM or SIGKILL and `mcf resume`, and when a finished run is resumed.
# Every run writes to a folder named `out` in a working folder of its own, because
# results.h5 holds config.ini, which names the output folder (OMP_NUM_THREADS, not
# [run] threads, changes the threads for the same reason).
# usage: test_results_h5_resume.sh MCF SCRATCH hdf5|no-hdf5
set -u
mcf=$1
dir=$2/results_h5_resume
[ "${3:-}" = hdf5 ] || { echo "skipped: built without HDF5"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# MCF_TEST_SWEEPS shortens the run (the sanitizer tree of .ci/run)
sweeps=${MCF_TEST_SWEEPS:-4000}
cat > scan.ini <<INI
[run]
model = ising
seed = 20261124
output = out
walkers = 2
[schedule]
thermalize = 50
sweeps = $sweeps
checkpoint_every = 250
temperatures = 2.0, 2.3, 2.6
[model]
L = 12
INI

# a fresh working folder $1 with the configuration
fresh() { rm -rf "$1" && mkdir "$1" && cp scan.ini "$1/"; }

fresh ref
(cd ref && OMP_NUM_THREADS=2 "$mcf" run scan.ini --no-progress >/dev/null 2>run.err) \
  || { cat ref/run.err; echo "reference run failed"; exit 1; }
[ -s ref/out/results.h5 ] || { echo "the reference run wrote no results.h5"; exit 1; }
ok "reference run: results.h5 of $(stat -c %s ref/out/results.h5) bytes"

fresh one
(cd one && OMP_NUM_THREADS=1 "$mcf" run scan.ini --no-progress >/dev/null 2>&1) \
  && cmp ref/out/results.h5 one/out/results.h5 && ok "1 thread = 2 threads, byte for byte" \
  || bad "results.h5 depends on the thread count"

# A run stopped by a signal once its first checkpoint is there (sweep 250: measuring, so the
# checkpoint carries the bins and blocking sums), then resumed on 1 thread.
for sig in TERM KILL; do
  landed=0
  for try in 1 2 3; do
    fresh "$sig"
    (cd "$sig" && exec "$mcf" run scan.ini --no-progress >/dev/null 2>run.err) &
    pid=$!
    for _ in $(seq 1 400); do [ -e "$sig/out/checkpoint" ] && break; sleep 0.025; done
    kill -s "$sig" "$pid" 2>/dev/null
    { wait "$pid"; } 2>/dev/null; rc=$?   # (without the shell's "Killed" line)
    if [ "$rc" -eq 0 ] || [ -e "$sig/out/results.tsv" ]; then
      echo "note: SIG$sig came after the run had finished; again"; continue
    fi
    [ -e "$sig/out/checkpoint" ] || { echo "note: SIG$sig came before the first checkpoint; again"; continue; }
    [ -e "$sig/out/results.h5" ] && bad "a stopped run left a results.h5"
    (cd "$sig" && OMP_NUM_THREADS=1 "$mcf" resume out --no-progress >/dev/null 2>resume.err) \
      || { bad "resume after SIG$sig failed: $(cat "$sig/resume.err")"; landed=1; break; }
    at=$(grep -o 'resumed from the checkpoint at sweep [0-9]*' "$sig/out/log" | awk '{ print $7 }')
    [ -n "$at" ] && [ "$at" -gt 50 ] && [ "$at" -lt $((50 + sweeps)) ] \
      || { echo "note: SIG$sig: no resume mid-measurement ('$at'); again"; continue; }
    landed=1
    cmp ref/out/results.h5 "$sig/out/results.h5" \
      && ok "SIG$sig (exit $rc), resumed from sweep $at on 1 thread: results.h5 identical" \
      || bad "SIG$sig, resumed from sweep $at: results.h5 differs"
    break
  done
  [ "$landed" -eq 1 ] || bad "SIG$sig: in 3 tries no signal landed between the first checkpoint and the end"
done

# a finished run resumed writes its results again: the same bytes
cp ref/out/results.h5 ref.h5
(cd ref && "$mcf" resume out --no-progress >/dev/null 2>&1) && cmp ref.h5 ref/out/results.h5 \
  && ok "resuming a finished run rewrites the same results.h5" || bad "resume of a finished run"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
