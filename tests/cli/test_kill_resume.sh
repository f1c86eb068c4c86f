#!/usr/bin/env bash
# Kill-and-resume identity of a plain scan: the thread count does not change a byte of a
# run's files, a finished run resumed rewrites the same bytes, and one run killed at >= 20
# random instants (SIGKILL, SIGTERM, SIGINT; kill_lineage.sh) and resumed after each kill
# ends byte-identical to the uninterrupted run: results.tsv, checkpoint, plots, config.ini.
# usage: test_kill_resume.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
dir=$2/kill_resume
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
. "$here/kill_lineage.sh"

# MCF_TEST_SWEEPS shortens the runs (the sanitizer tree of .ci/run: 10-20x slower there);
# checkpoint_every follows (700 of 30000 sweeps), so that kills land between checkpoints
sweeps=${MCF_TEST_SWEEPS:-30000}
every=$(((sweeps * 7 + 299) / 300))
total=$((1000 + sweeps)) # thermalize + sweeps
cat > scan.ini <<INI
[run]
model = ising
seed = 20261122
[schedule]
thermalize = 1000
sweeps = $sweeps
checkpoint_every = $every
temperatures = 2.0, 2.3, 2.6
[model]
L = 32
INI

kl_reference scan.ini "$total"
kill_lineage scan.ini ref/run "$total" "$every" "$kl_dur" "$kl_up" "$kl_fin"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
