#!/usr/bin/env bash
# Parallel tempering reproducible from the seed: the same run with 1 and 2 threads, and
# runs stopped by SIGTERM and SIGKILL after a checkpoint and finished with `mcf resume`,
# write a results.tsv byte-identical to the uninterrupted run's (exchange rounds, slots,
# per-pair counters and round trips included).  The scan has a second axis, 2 walkers,
# temperatures not in order, and exchange and checkpoint intervals that cut each other's
# chunks; runs without exchange_every keep config.ini without the key.
# usage: test_tempering_resume.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/tempering_resume
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

# MCF_TEST_SWEEPS shortens the runs (the sanitizer tree of .ci/run: 10-20x slower there);
# checkpoints stay every 700 sweeps, so a kill still lands between checkpoints
sweeps=${MCF_TEST_SWEEPS:-30000}
cat > pt.ini <<INI
[run]
model = ising
seed = 20261123
walkers = 2
[schedule]
thermalize = 500
sweeps = $sweeps
checkpoint_every = 700
exchange_every = 9
temperatures = 2.6, 2.0, 2.3, 2.45
[model]
L = 10, 14
INI

t0=$(date +%s.%N)
"$mcf" run pt.ini --set run.output=ref --set run.threads=2 --no-progress >ref.out 2>ref.err \
  || { cat ref.err; echo "reference run failed"; exit 1; }
duration=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
ok "reference run with tempering (${duration}s)"
n_ex=$(grep -c '^# exchange: ' ref/results.tsv)
n_rt=$(grep -c '^# round trips: ' ref/results.tsv)
[ "$n_ex" -eq 12 ] && [ "$n_rt" -eq 16 ] \
  && ok "results.tsv: 12 exchange lines (2 L x 2 walkers x 3 pairs), 16 round-trip lines" \
  || bad "results.tsv has $n_ex exchange and $n_rt round-trip lines, expected 12 and 16"
grep -q '^tempering L=10, walker 0: exchange acceptance' ref.out \
  && ok "the summary reports the exchange acceptance" || bad "no tempering summary"
grep -q 'round trips' ref/log && ok "the log reports the round trips" \
  || bad "the log does not report the round trips"

"$mcf" run pt.ini --set run.output=one --set run.threads=1 --no-progress >/dev/null 2>&1 \
  && cmp -s ref/results.tsv one/results.tsv && ok "1 thread = 2 threads, byte for byte" \
  || bad "tempering results depend on the thread count"

# a signal after the first checkpoint (it appears at sweep 700 of 30500); a signal that
# came after the run had finished tests nothing and is retried sooner
for sig in TERM KILL; do
  landed=0
  for try in 1 2 3 4; do
    out=run_${sig}_$try
    "$mcf" run pt.ini --set run.output="$out" --set run.threads=2 --no-progress \
      >/dev/null 2>"$out.err" &
    pid=$!
    wait_for "$out/checkpoint"
    sleep "0.$((RANDOM % 4))"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"; rc=$?
    if [ "$rc" -eq 0 ] || [ -f "$out/results.tsv" ]; then
      echo "note: SIG$sig came after the run had finished; retrying"; continue
    fi
    landed=1
    case $sig in TERM) want=143 ;; KILL) want=137 ;; esac
    [ "$rc" -eq "$want" ] || bad "SIG$sig: exit status $rc, expected $want"
    "$mcf" resume "$out" --no-progress >/dev/null 2>"$out.resume.err" \
      || { bad "resume after SIG$sig failed"; cat "$out.resume.err"; break; }
    at=$(grep -o 'resumed from the checkpoint at sweep [0-9]*' "$out/log" | awk '{ print $7 }')
    if cmp -s ref/results.tsv "$out/results.tsv"; then
      ok "SIG$sig, resumed from sweep $at: results.tsv identical"
    else
      bad "SIG$sig, resumed from sweep $at: results differ"
      diff ref/results.tsv "$out/results.tsv" | head
    fi
    break
  done
  [ "$landed" -eq 1 ] || bad "SIG$sig: no signal landed during the sweeps"
done

# a finished run resumed again rewrites the same files (the tempering record round-trips)
cp ref/checkpoint ref.checkpoint.before
"$mcf" resume ref --no-progress >/dev/null 2>&1 && cmp -s ref.checkpoint.before ref/checkpoint \
  && cmp -s one/results.tsv ref/results.tsv \
  && ok "checkpoint with tempering: load and save give the same bytes" \
  || bad "the checkpoint changed in a load/save round trip"

# a damaged tempering record is refused (the checksum is fixed up, so the check that
# reads the record is the one that must refuse it): slot of replica 0 set to 7
python3 - ref/checkpoint bad.checkpoint <<'PY' || bad "could not make a damaged checkpoint"
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
at = data.rfind(b'MCF-PT01') + 8 + 4 * 8
struct.pack_into('<Q', data, at, 7)
h = 1469598103934665603
for b in data[:-8]:
    h = ((h ^ b) * 1099511628211) & 0xffffffffffffffff
struct.pack_into('<Q', data, len(data) - 8, h)
open(sys.argv[2], 'wb').write(data)
PY
# the same folder name (config.ini names it, and the checkpoint carries its hash)
mkdir -p damaged && cp -r ref damaged/ && cp bad.checkpoint damaged/ref/checkpoint
if (cd damaged && "$mcf" resume ref --no-progress >/dev/null 2>../bad.err); then
  bad "a checkpoint with an impossible slot was accepted"
else
  grep -q 'parallel tempering' bad.err && grep -q 'impossible slot' bad.err \
    && ok "an impossible slot in the tempering record is refused: $(grep error bad.err)" \
    || { bad "the refusal does not name the tempering record"; cat bad.err; }
fi

# without exchange_every, config.ini has no such key (old checkpoints stay valid)
sed '/exchange_every/d' pt.ini > plain.ini
"$mcf" run plain.ini --set run.output=plain --set schedule.sweeps=100 --no-progress \
  >/dev/null 2>&1 && ! grep -q exchange_every plain/config.ini \
  && ! grep -q '^# tempering' plain/results.tsv \
  && ok "exchange_every = 0 leaves config.ini and results.tsv as before" \
  || bad "a run without tempering mentions exchange_every"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
