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

# MCF_TEST_SWEEPS shortens the runs (the sanitizer tree of .ci/run: 10-20x slower there);
# checkpoints stay every 700 sweeps, so a kill still lands between checkpoints
sweeps=${MCF_TEST_SWEEPS:-30000}
cat > scan.ini <<INI
[run]
model = ising
seed = 20261122
[schedule]
thermalize = 1000
sweeps = $sweeps
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

# The sweep at which the last `mcf resume` of run folder $1 started, from its log line
# "resumed from the checkpoint at sweep N of M": prints "N M", nothing if there is none
# (a resume without a checkpoint logs "no checkpoint ...: starting from the first sweep").
resumed_at() {
  grep -o 'resumed from the checkpoint at sweep [0-9]* of [0-9]*' "$1/log" 2>/dev/null \
    | tail -n 1 | awk '{ print $7, $9 }'
}

# Each signal at a random moment between 5% and 70% of the reference run's duration.  A
# kill that lands after the run had finished (exit 0, results.tsv written, or a checkpoint
# at the last sweep) or before its first checkpoint tests no resume: it is retried, at most
# $tries times in all, in a window moved earlier (later) from the moment that missed.
tries=5
earlier() { read -r lo hi <<<"$(awk -v f="$frac" -v lo="$lo" 'BEGIN { hi = 0.7 * f; if (lo > hi / 2) lo = hi / 2; print lo, hi }')"; }
later()   { read -r lo hi <<<"$(awk -v f="$frac" -v hi="$hi" 'BEGIN { lo = 2 * f; if (lo < 0.01) lo = 0.01; if (hi < 2 * lo) hi = 2 * lo; print lo, hi }')"; }
for sig in TERM KILL INT KILL; do
  lo=0.05 hi=0.70 landed=0
  for try in $(seq 1 $tries); do
    out=run_${sig}_$RANDOM
    frac=$(awk -v r=$RANDOM -v lo="$lo" -v hi="$hi" 'BEGIN { printf "%.4f", lo + (hi - lo) * r / 32767 }')
    delay=$(awk -v f="$frac" -v d="$duration" 'BEGIN { printf "%.3f", d * f }')
    "$mcf" run scan.ini --set run.output="$out" --no-progress 2>"$out.err" &
    pid=$!
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"; rc=$?
    case $sig in TERM) want=143 ;; INT) want=130 ;; KILL) want=137 ;; esac
    if [ "$rc" -ne "$want" ] && [ "$rc" -ne 0 ]; then
      bad "SIG$sig after ${delay}s: exit status $rc, expected $want (or 0 if it had finished)"
      cat "$out.err"
    fi
    if grep -q "stopped by signal" "$out.err" && [ -f "$out/results.tsv" ]; then
      bad "a stopped run left a results.tsv"
    fi
    if [ "$rc" -eq 0 ] || [ -f "$out/results.tsv" ]; then
      echo "note: SIG$sig after ${delay}s came after the run had finished (exit $rc); retrying earlier"
      earlier; continue
    fi
    if [ ! -f "$out/checkpoint" ]; then
      echo "note: SIG$sig after ${delay}s came before the first checkpoint; retrying later"
      later; continue
    fi
    OMP_NUM_THREADS=1 "$mcf" resume "$out" --no-progress 2>"$out.resume.err" \
      || { bad "resume after SIG$sig at ${delay}s failed"; cat "$out.resume.err"; landed=1; break; }
    read -r at total <<<"$(resumed_at "$out")"
    if [ -z "${at:-}" ]; then
      bad "SIG$sig after ${delay}s: the log does not say the resume started from a checkpoint"
      cat "$out/log"; landed=1; break
    fi
    if [ "$at" -ge "$total" ]; then   # killed after the last checkpoint, before results.tsv
      echo "note: SIG$sig after ${delay}s came after the last sweep (checkpoint at $at of $total); retrying earlier"
      earlier; continue
    fi
    landed=1
    # a signal caught during the sweeps says how to resume and leaves no results (one
    # before or after the sweeps, dealt with above, ends the process without a word)
    if [ "$sig" != KILL ]; then
      grep -q "mcf resume" "$out.err" || bad "SIG$sig message does not say how to resume"
    fi
    [ "$at" -gt 0 ] && ok "SIG$sig after ${delay}s: resumed from the checkpoint at sweep $at of $total" \
      || bad "SIG$sig after ${delay}s: resumed at sweep $at, not from a checkpoint"
    # TERM and INT write a checkpoint where they stop; KILL leaves the last periodic one
    if [ "$sig" = KILL ]; then
      [ $((at % 700)) -eq 0 ] || bad "SIG$sig: resumed at sweep $at, not a multiple of checkpoint_every = 700"
    else
      stopped=$(grep -o 'stopped by signal [0-9]* at sweep [0-9]*' "$out/log" | awk '{ print $7 }' | sort -u)
      [ "$stopped" = "$at" ] || bad "SIG$sig: stopped at sweep '$stopped' but resumed at $at"
    fi
    if cmp -s ref/results.tsv "$out/results.tsv"; then
      ok "SIG$sig after ${delay}s (exit $rc), resumed on 1 thread: results.tsv identical"
    else
      bad "SIG$sig after ${delay}s: resumed results differ"; diff ref/results.tsv "$out/results.tsv" | head
    fi
    break
  done
  [ "$landed" -eq 1 ] || bad "SIG$sig: in $tries tries no signal landed between the first checkpoint and the end of the sweeps"
done

# checkpoint round trip: loading a checkpoint and saving it again gives the same bytes,
# and a second resume of a finished run changes nothing
cp ref/checkpoint ref.checkpoint.before
"$mcf" resume ref --no-progress 2>/dev/null && cmp -s ref/results.tsv one/results.tsv \
  && ok "resuming a finished run rewrites the same results" || bad "resume of a finished run"
total=$((1000 + sweeps)) # thermalize + sweeps
[ "$(resumed_at ref)" = "$total $total" ] && ok "the finished run resumed from its last checkpoint" \
  || bad "resume of the finished run: log says '$(resumed_at ref)', expected '$total $total'"
cmp -s ref.checkpoint.before ref/checkpoint && ok "checkpoint round trip is byte-exact" \
  || bad "checkpoint changed in a load/save round trip"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
