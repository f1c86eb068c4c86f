#!/usr/bin/env bash
# Parallel tempering reproducible from the seed: the same run with 1 and 2 threads, and one
# run killed at >= 20 random instants (SIGKILL, SIGTERM, SIGINT; kill_lineage.sh) and
# resumed after each kill, write files byte-identical to the uninterrupted run's
# (results.tsv with its exchange rounds, slots, per-pair counters and round trips; the
# checkpoint; the plots).  The scan has a second axis, 2 walkers, temperatures not in
# order, and exchange and checkpoint intervals that cut each other's chunks; runs without
# exchange_every keep config.ini without the key.  With [run] series = yes the measurement
# series (series/, one file per chain) must be the same bytes too: they are cut back to the
# checkpoint on every resume.
# usage: test_tempering_resume.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
dir=$2/tempering_resume
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
. "$here/kill_lineage.sh"

# MCF_TEST_SWEEPS shortens the runs (the sanitizer tree of .ci/run: 10-20x slower there);
# checkpoint_every follows (700 of 30000 sweeps), so that kills land between checkpoints
sweeps=${MCF_TEST_SWEEPS:-30000}
every=$(((sweeps * 7 + 299) / 300))
total=$((500 + sweeps)) # thermalize + sweeps
cat > pt.ini <<INI
[run]
model = ising
seed = 20261123
walkers = 2
series = yes
extra_observables = m2_kmin
[schedule]
thermalize = 500
sweeps = $sweeps
checkpoint_every = $every
exchange_every = 9
temperatures = 2.6, 2.0, 2.3, 2.45
[model]
L = 10, 14
INI

# the reference (2 threads), 1 thread = 2 threads, and the finished run resumed
kl_reference pt.ini "$total"
n_ex=$(grep -c '^# exchange: ' ref/run/results.tsv)
n_rt=$(grep -c '^# round trips: ' ref/run/results.tsv)
[ "$n_ex" -eq 12 ] && [ "$n_rt" -eq 16 ] \
  && ok "results.tsv: 12 exchange lines (2 L x 2 walkers x 3 pairs), 16 round-trip lines" \
  || bad "results.tsv has $n_ex exchange and $n_rt round-trip lines, expected 12 and 16"
grep -q '^tempering L=10, walker 0: exchange acceptance' ref/run.out \
  && ok "the summary reports the exchange acceptance" || bad "no tempering summary"
grep -q 'round trips' ref/run/log && ok "the log reports the round trips" \
  || bad "the log does not report the round trips"

kill_lineage pt.ini ref/run "$total" "$every" "$kl_dur" "$kl_up" "$kl_fin"

# the series are the measurements the run averaged: one record of 5 float64 per measured
# sweep, and per scan point the mean of its walkers' energies is results.tsv's energy (the
# walkers measure alike, so the mean of the means is the mean of all records)
python3 - ref/run "$sweeps" <<'PY' && ok "series/: $sweeps records per chain, means = results.tsv" \
  || bad "series/ does not hold the run's measurements"
import os, struct, sys
d, sweeps = sys.argv[1], int(sys.argv[2])
idx = [l.rstrip('\n').split('\t') for l in open(d + '/series/index.tsv') if not l.startswith('#')]
head, rows = idx[0], idx[1:]
assert head[:2] == ['chain', 'file'] and len(rows) == 16, head
lines = [l.rstrip('\n').split('\t') for l in open(d + '/results.tsv') if not l.startswith('#')]
cols, table = lines[0], lines[1:]
sums = {}
for r in rows:
    raw = open(d + '/series/' + r[1], 'rb').read()
    assert len(raw) == sweeps * 5 * 8, (r[1], len(raw))
    e = struct.unpack('<%dd' % (sweeps * 5), raw)[0::5]
    key = (float(r[2]), float(r[3]))
    sums.setdefault(key, []).append(sum(e) / len(e))
for t in table:
    key = (float(t[cols.index('L')]), float(t[cols.index('T')]))
    got, want = sum(sums[key]) / len(sums[key]), float(t[cols.index('energy')])
    assert abs(got - want) <= 1e-9 * abs(want), (key, got, want)
PY

# a damaged tempering record is refused (the checksum is fixed up, so the check that
# reads the record is the one that must refuse it): slot of replica 0 set to 7
python3 - ref/run/checkpoint bad.checkpoint <<'PY' || bad "could not make a damaged checkpoint"
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
mkdir -p damaged && cp -r ref/run damaged/ && cp bad.checkpoint damaged/run/checkpoint
if (cd damaged && "$mcf" resume run --no-progress >/dev/null 2>../bad.err); then
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
