#!/usr/bin/env bash
# Kill-and-resume identity: a run stopped by a real SIGTERM or SIGKILL at a random moment
# and finished with `mcf resume` writes a results.tsv byte-identical to an uninterrupted
# run with the same seed.  Also: the thread count does not change the results.
# usage: test_kill_resume.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/kill_resume
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

cat > scan.ini <<'INI'
[run]
model = ising
seed = 20261122
[schedule]
thermalize = 1000
sweeps = 30000
checkpoint_every = 700
temperatures = 2.0, 2.3, 2.6
[model]
L = 32
INI

t0=$(date +%s.%N)
"$mcf" run scan.ini --set run.output=ref --set run.threads=2 --no-progress 2>ref.err \
  || { cat ref.err; echo "reference run failed"; exit 1; }
duration=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
ok "reference run (${duration}s)"

"$mcf" run scan.ini --set run.output=one --set run.threads=1 --no-progress 2>/dev/null \
  && cmp -s ref/results.tsv one/results.tsv && ok "1 thread = 2 threads, byte for byte" \
  || bad "results depend on the thread count"

# a random moment between 5% and 70% of the reference run's duration
for sig in TERM KILL INT KILL; do
  out=run_${sig}_$RANDOM
  "$mcf" run scan.ini --set run.output="$out" --no-progress 2>"$out.err" &
  pid=$!
  delay=$(awk -v r=$RANDOM -v d="$duration" 'BEGIN { printf "%.3f", d * (0.05 + 0.65 * r / 32767) }')
  sleep "$delay"
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  case $sig in TERM) want=143 ;; INT) want=130 ;; KILL) want=137 ;; esac
  if [ "$rc" -ne "$want" ] && [ "$rc" -ne 0 ]; then
    bad "SIG$sig after ${delay}s: exit status $rc, expected $want (or 0 if it had finished)"
    cat "$out.err"
  fi
  # a signal caught during the sweeps says how to resume and leaves no results; one that
  # lands after the results were written (while plotting) just ends the process
  if [ "$sig" != KILL ] && [ "$rc" -eq "$want" ] && [ ! -f "$out/results.tsv" ]; then
    grep -q "mcf resume" "$out.err" || bad "SIG$sig message does not say how to resume"
  fi
  if grep -q "stopped by signal" "$out.err" && [ -f "$out/results.tsv" ]; then
    bad "a stopped run left a results.tsv"
  fi
  OMP_NUM_THREADS=1 "$mcf" resume "$out" --no-progress 2>"$out.resume.err" \
    || { bad "resume after SIG$sig at ${delay}s failed"; cat "$out.resume.err"; continue; }
  if cmp -s ref/results.tsv "$out/results.tsv"; then
    ok "SIG$sig after ${delay}s (exit $rc), resumed on 1 thread: results.tsv identical"
  else
    bad "SIG$sig after ${delay}s: resumed results differ"; diff ref/results.tsv "$out/results.tsv" | head
  fi
done

# checkpoint round trip: loading a checkpoint and saving it again gives the same bytes,
# and a second resume of a finished run changes nothing
cp ref/checkpoint ref.checkpoint.before
"$mcf" resume ref --no-progress 2>/dev/null && cmp -s ref/results.tsv one/results.tsv \
  && ok "resuming a finished run rewrites the same results" || bad "resume of a finished run"
cmp -s ref.checkpoint.before ref/checkpoint && ok "checkpoint round trip is byte-exact" \
  || bad "checkpoint changed in a load/save round trip"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
