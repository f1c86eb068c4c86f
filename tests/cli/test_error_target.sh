#!/usr/bin/env bash
# [schedule] error_target (core/engine/error_target.c, issue 18): measure until the errors are
# small enough, doubling the measured sweeps up to max_sweeps.
#  - it stops at the first doubling that meets the targets: every point meets them there
#    (results.tsv), and a plain run of half as many sweeps misses one;
#  - doubling merges the jackknife bins pairwise: with Ising on 8x8 every sum is exact (the
#    values are multiples of 1/64), so the run's results.tsv must equal, byte for byte but
#    its "# error target" line, a plain run of the final length — also with parallel
#    tempering, whose exchange round at the end of a phase the doubling must not skip;
#  - stopped again and again (the test model's own SIGTERM), at sweeps of every phase and
#    at the phase ends where the decision falls, and resumed: results.tsv as the run that
#    never stopped (kills from outside, with the checkpoint and results.h5 compared too:
#    tests/hdf5/test_results_h5_resume.sh);
#  - a target out of reach ends at max_sweeps with one warning (results.tsv, terminal),
#    exit status 0.
# usage: test_error_target.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/error_target
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

ising() { # NAME SWEEPS EXTRA-SCHEDULE-LINES
  printf '[run]\nmodel = ising\nseed = 11\nthreads = 2\noutput = %s.out\n' "$1"
  printf '[schedule]\nthermalize = 100\nsweeps = %s\ntemperatures = 2.6, 2.1, 2.35\n%s' "$2" "$3"
  printf '[model]\nL = 8\n'
}
col() { # FILE NAME: the column NAME of results.tsv, one value per line
  grep -v '^#' "$1" | awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }'
}
sweeps_of() { grep -o '^# schedule: thermalize [0-9]*, sweeps [0-9]*' "$1" | awk '{ print $NF }'; }
run() { "$mcf" run "$1.ini" --no-progress >"$1.txt" 2>"$1.err" || { bad "$1: run failed"; cat "$1.err"; }; }

# ---- stops at the first doubling that meets the targets; the bins merge exactly ----------
# (tempering gives smaller errors: a tighter target for it, so that it doubles too)
for pt in "" "exchange_every = 3
"; do
  tag=${pt:+pt}; tag=${tag:-plain}
  a=0.03; [ -n "$pt" ] && a=0.02
  ising "t$tag" 128 "error_target = abs_m:$a susceptibility:25%
max_sweeps = 8192
$pt" >"t$tag.ini"
  run "t$tag"
  got=$(sweeps_of "t$tag.out/results.tsv")
  if grep -q "error target missed after 128 measured sweeps" "t$tag.out/log" && [ "${got:-0}" -gt 128 ]; then
    ok "$tag: missed at 128 sweeps, measured $got"
  else bad "$tag: expected a doubling from 128 sweeps, results.tsv has ${got:-none}"; fi
  paste <(col "t$tag.out/results.tsv" abs_m_err) <(col "t$tag.out/results.tsv" susceptibility) \
        <(col "t$tag.out/results.tsv" susceptibility_err) >met.txt
  if awk -v a=$a '{ if (!($1 <= a && $3 <= 0.25 * ($2 < 0 ? -$2 : $2))) exit 1 }' met.txt; then
    ok "$tag: every point meets abs_m_err <= $a and susceptibility_err <= 25% at $got sweeps"
  else bad "$tag: results.tsv misses a target at $got sweeps:"; cat met.txt; fi
  grep -q "^# error target met after $got measured sweeps" "t$tag.out/results.tsv" &&
    grep -q "^error target met after $got" "t$tag.txt" &&
    ok "$tag: results.tsv and the summary say it was met" ||
    bad "$tag: no 'error target met' line in results.tsv or the summary"
  # plain runs of got/2 and got sweeps
  ising "h$tag" $((got / 2)) "$pt" >"h$tag.ini"; run "h$tag"
  ising "f$tag" "$got" "$pt" >"f$tag.ini"; run "f$tag"
  paste <(col "h$tag.out/results.tsv" abs_m_err) <(col "h$tag.out/results.tsv" susceptibility) \
        <(col "h$tag.out/results.tsv" susceptibility_err) >half.txt
  # a target counts as met only where the errors behind it reached a plateau (else they are
  # lower bounds): the half-length run misses a number, or has an error without a plateau
  if ! awk -v a=$a '{ if (!($1 <= a && $3 <= 0.25 * ($2 < 0 ? -$2 : $2))) exit 1 }' half.txt; then
    ok "$tag: a plain run of $((got / 2)) sweeps misses a target (so the doubling stopped at the first that meets them)"
  elif grep -q "did not reach a plateau" "h$tag.out/log"; then
    ok "$tag: a plain run of $((got / 2)) sweeps meets the numbers, but an error behind them has no plateau there (a lower bound), so the doubling went on"
  else bad "$tag: a plain run of $((got / 2)) sweeps meets the targets already"; fi
  if cmp -s <(grep -v '^# error target' "t$tag.out/results.tsv") "f$tag.out/results.tsv"; then
    ok "$tag: results.tsv equals a plain run of $got sweeps (bins merged exactly)"
  else bad "$tag: results.tsv differs from a plain run of $got sweeps:"
    diff <(grep -v '^# error target' "t$tag.out/results.tsv") "f$tag.out/results.tsv" | head -6; fi
done

# ---- stopped and resumed ----------------------------------------------------------------
spin() { # NAME EXTRA-MODEL-LINES: the one-spin test model, 4 walkers, doubling 3 times
  printf '[run]\nmodel = tfail\nseed = 3\nwalkers = 4\noutput = %s.out\n' "$1"
  printf '[schedule]\nthermalize = 10\nsweeps = 64\nbins = 8\ncheckpoint_every = 50\n'
  printf 'temperatures = 1.5, 3.0\nerror_target = m:0.001\nmax_sweeps = 512\n[model]\nh = 0.3\n%s' "$2"
}
spin whole "" >whole.ini
run whole
grep -q "error target missed at max_sweeps = 512" whole.out/results.tsv &&
  [ "$(sweeps_of whole.out/results.tsv)" = 512 ] &&
  grep -q "^warning: error target missed at max_sweeps = 512" whole.txt &&
  ok "out of reach: 512 sweeps, one warning in results.tsv and the summary, exit 0" ||
  { bad "out of reach: no warning or not 512 sweeps"; cat whole.txt; }
stops_at=""
for after in 7 23 61 74; do
  spin "s$after" "signal_after = $after
" >"s$after.ini"
  "$mcf" run "s$after.ini" --no-progress >/dev/null 2>"s$after.err"
  rc=$? stops=0
  while [ $rc -eq 143 ] && [ $stops -lt 200 ]; do
    stops=$((stops + 1))
    "$mcf" resume "s$after.out" --no-progress >/dev/null 2>>"s$after.err"
    rc=$?
  done
  stops_at="$stops_at $(grep -o 'stopped by signal 15 at sweep [0-9]*' "s$after.out/log" | awk '{ print $NF }' | tr '\n' ' ')"
  # (config.ini has signal_after, and with it the checkpoint's hash and results.h5: only
  # results.tsv can be the same bytes)
  if [ $rc -eq 0 ] && [ $stops -ge 3 ] && cmp -s whole.out/results.tsv "s$after.out/results.tsv"; then
    ok "signal_after = $after: stopped $stops times, resumed: results.tsv of the run that never stopped"
  else bad "signal_after = $after: stopped $stops times, last exit $rc; $(cmp whole.out/results.tsv "s$after.out/results.tsv" 2>&1)"; tail -3 "s$after.err"; fi
done
# the phase ends (thermalize 10 + 64, 128, 256, 512): where the decision falls
at_end=0
for p in 74 138 266; do
  case " $stops_at " in *" $p "*) at_end=$((at_end + 1)) ;; esac
done
if [ $at_end -ge 1 ]; then ok "$at_end of the stops fell on a phase end (sweeps 74, 138, 266)"
else bad "no stop fell on a phase end (stops at:$stops_at)"; fi

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
