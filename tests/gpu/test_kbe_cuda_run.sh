#!/usr/bin/env bash
# `mcf kbe` with evaluator = kbe-cuda (issue 45; label gpu): a second-Born run of the
# two-band model (nk 16, 200 steps, a pulse and a ramp of U) on the GPU against the same run
# on the CPU's kbe, and stopped and resumed on the GPU:
#  (a) kbe.tsv: every value of every step within 1e-12 of the CPU's (absolute, or relative
#      where a value exceeds 1: the library's test holds every G to 1e-12, and the table's
#      columns are sums over k of G's elements divided by Nk, times O(1) energies); the
#      columns printed with 4 digits (balance, anticommutator, corrector: %.3e) within one
#      unit of their last digit;
#  (b) SIGINT at step ~60, `mcf resume`: kbe.tsv, nk.tsv, kbe-rows.bin and the checkpoint
#      byte for byte the unbroken GPU run's (the device's sums have a fixed order, and the
#      resumed run forms the integrals' row at t_n as a step's end does);
#  (c) order 4 (the CPU's start block inside kbe-cuda, the device's BDF steps past it): kbe.tsv
#      against the CPU's order-4 run as in (a), 100 steps (the CPU's step of order p costs
#      more).
# Without a device: "skipped: no device" and 77.
# usage: test_kbe_cuda_run.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/kbe-cuda-run
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
mk() { # NAME EVALUATOR [EXTRA [kbe] LINES]
  cat > "$1.ini" <<INI
[run]
model = two-band
evaluator = $2
output = $1.out
[kbe]
nk = 16
dt = 0.05
steps = 200
selfenergy = 2b
U = 0.5
ramp = 2
${3:-}
[pulse]
amplitude = 0.2
frequency = 2
center = 3
width = 1
[output]
every = 1
nk_times = 1, 4
checkpoint_every = 5
INI
}
rows() { grep -vc '^#' "$1/kbe.tsv" 2>/dev/null || echo 0; }

mk gpu kbe-cuda
"$mcf" kbe gpu.ini > gpu.txt 2>&1; rc=$?
if [ $rc != 0 ] && grep -q 'kbe-cuda: no CUDA device\|no usable\|CUDA driver' gpu.txt; then
  echo "skipped: no device ($(grep -o 'kbe-cuda: .*' gpu.txt | head -1))"
  exit 77
fi
[ $rc = 0 ] || { bad "the GPU run failed (exit $rc)"; cat gpu.txt; }
mk cpu kbe
"$mcf" kbe cpu.ini > cpu.txt 2>&1 || { bad "the CPU run failed"; cat cpu.txt; }

# (a) the tables, value by value
table() { grep -v '^#' "$1" | tail -n +2; } # the values, not the comments and the names
worst() { paste <(table "$1") <(table "$2") | awk -F'\t' '
  { h = NF / 2; for (i = 1; i <= h; i++) { a = $i; b = $(i + h); d = a - b; if (d < 0) d = -d
      s = a < 0 ? -a : a
      if ($i ~ /^-?[0-9][.][0-9][0-9][0-9]e/) e = d / (1e-3 * s + 1e-12) * 1e-12
      else { if (s < 1) s = 1; e = d / s }
      if (e > w) w = e } ; n++ }
  END { printf "%.3g %d", w, n }'; }
set -- $(worst cpu.out/kbe.tsv gpu.out/kbe.tsv)
if [ "${2:-0}" = 201 ] && awk -v w="$1" 'BEGIN { exit !(w <= 1e-12) }'; then
  ok "(a) kbe.tsv of kbe-cuda within $1 of kbe's, 201 steps"
else bad "(a) kbe-cuda against kbe: largest difference $1 over ${2:-0} rows (want 201, <= 1e-12)"; fi

# (b) SIGINT and resume on the GPU
mk int kbe-cuda
"$mcf" kbe int.ini > int.txt 2>&1 & pid=$!
i=0; while kill -0 $pid 2>/dev/null && [ "$(rows int.out)" -lt 60 ] && [ $i -lt 1200 ]; do
  sleep 0.05; i=$((i + 1)); done
kill -INT $pid 2>/dev/null; wait $pid; r1=$?
"$mcf" resume int.out > int2.txt 2>&1; r2=$?
same=1
for f in kbe.tsv nk.tsv kbe-rows.bin checkpoint; do cmp -s gpu.out/$f int.out/$f || same=0; done
if [ $r1 = 130 ] && [ $r2 = 0 ] && [ $same = 1 ]; then
  ok "(b) SIGINT ($(grep -o 'at step [0-9]*' int2.txt | head -1)), resumed: the GPU run's four files"
else bad "(b) stop and resume: exits $r1 $r2, same files $same"; tail -3 int.txt int2.txt; fi

# (c) order 4 on both
mk o4 kbe-cuda "order = 4"
sed -i 's/^steps = 200$/steps = 100/' o4.ini
"$mcf" kbe o4.ini > o4.txt 2>&1 || { bad "(c) the GPU run of order 4 failed"; cat o4.txt; }
mk o4c kbe "order = 4"
sed -i 's/^steps = 200$/steps = 100/' o4c.ini
"$mcf" kbe o4c.ini > o4c.txt 2>&1 || { bad "(c) the CPU run of order 4 failed"; cat o4c.txt; }
set -- $(worst o4c.out/kbe.tsv o4.out/kbe.tsv)
if [ "${2:-0}" = 101 ] && awk -v w="$1" 'BEGIN { exit !(w <= 1e-12) }'; then
  ok "(c) order 4: kbe.tsv of kbe-cuda within $1 of kbe's, 101 steps"
else bad "(c) order 4, kbe-cuda against kbe: largest difference $1 over ${2:-0} rows (want 101)"; fi

echo "$passed passed, $fail failed"
[ $fail = 0 ]
