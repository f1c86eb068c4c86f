#!/usr/bin/env bash
# mcf tc CONFIG with [tc] refine (core/program/tc_refine.c, tc_driver.c; docs/methods.md,
# "Refinement"), on the 2D Ising model, L = 8, 16, a coarse first scan (2.0 ... 2.6, 4 points):
#  (a) the refinement scan covers both sizes (the two largest) on a grid about the first scan's
#      T_c, and at L = 16 its neighbouring temperatures, analysed alone, are at most
#      TC_REFINE_APART = 1.5 standard deviations of energy apart (the first scan's: 1.9);
#  (b) the final T_c, both scans reweighted together, meets Onsager's 2.269185 within 3
#      errors plus the 8/16 crossing's finite-size shift (0.005, as test_tc_driver); its error
#      against the first scan's alone is printed, not compared: the refinement adds 3 of 7
#      chains (an error ~25% smaller expected) and a 16-block jackknife error is itself
#      uncertain by ~18%, so "smaller" would fail by chance too often to be a test;
#  (c) `mcf tc DIR` alone joins DIR/refine-1: the same T_c line;
#  (d) a stop by SIGINT inside the refinement and `mcf resume DIR` give the uninterrupted run's
#      series and results byte for byte, and its T_c;
#  (e) --force with another seed: the earlier refinement (planned from the other first scan)
#      is kept aside as refine-1.earlier-1 and planned again;
#  (f) error_target = tc:X with refine: only the last scan doubles its sweeps (the first
#      scan's log has no decision), [schedule] max_sweeps held back for it in DIR/tc.ini;
#  (g) refusals: refine = 99, refine_points = 2, max_sweeps without an error target (before
#      any work);
#  (h) a first grid too coarse for the largest size (L = 64, 0.2 apart: no measurement bridges
#      its neighbours): the plan leaves it out of the analysis it plans from and refines it,
#      and the final analysis takes it (its outer coarse temperatures left out where they do
#      not reach the refined grid: tc_keep_bridged, tests/unit/test_tc_sources.c) and gives
#      T_c.
# Tiers (docs/reliability.md, "The time of .ci/run"): by default the runs are those the
# sanitizer tree ran (below: 4000 sweeps a scan, (f) doubling to 8000, L = 64 for 1000 after
# 300), ~6 s in all: (a), (c)-(h) held, (b)'s distance from Onsager's T_c printed, not held
# (its bound needs the full length); test_tc_refine_long (PART long, label long: skipped, 77,
# unless MCF_TEST_LONG=1) runs (a)-(c) on the 40000 sweeps and holds (b).
# usage: test_tc_refine.sh MCF SCRATCH [long]
set -u
part=${3:-}
if [ "$part" = long ] && [ -z "${MCF_TEST_LONG:-}" ]; then
  echo "skipped: test_tc_refine's long part ((b) at 40000 sweeps) runs with MCF_TEST_LONG=1"
  exit 77
fi
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/tc_refine${part:+_$part}
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
tcline() { grep '^mcf tc: T_c' "$1" | sed 's/ (xi\/L.*//'; }
# the sanitizer tree (MCF_TEST_SWEEPS; instrumented sweeps ~15x slower) runs a tenth of the
# sweeps, a scan still long enough to be stopped inside (checkpoints every 500 sweeps), and
# L = 64 for half as long (and thermalized 300 sweeps: (h) asks for the mechanism, not T_c),
# and (f) doubles to 8000 only: (b)'s bound is 3 of the run's own errors, whatever its length
# (the default tier runs the same: (a) and (c)-(h) are the driver's logic, not statistics)
sweeps=40000 wsweeps=2000 wtherm=1000 tmax=16000
[ -n "${MCF_TEST_SWEEPS:-}" ] || [ -z "$part" ] && sweeps=4000 wsweeps=1000 wtherm=300 tmax=8000
mkini() { # NAME SEED EXTRA-TC-LINES
  printf '[run]\nmodel = ising\nseed = %s\nthreads = 2\noutput = %s.out\n[schedule]\nthermalize = 1000\nsweeps = '$sweeps'\ncheckpoint_every = 500\n[tc]\nsizes = 8, 16\ntemperatures = 2.0:2.6:4\nrefine = 1\n%s' \
    "$2" "$1" "$3" > "$1.ini"
}

# ---- (a), (b), (c): one run ---------------------------------------------------------------
mkini ref 7 ""
"$mcf" tc ref.ini --no-plots > ref.txt 2>&1 || { bad "mcf tc ref.ini failed"; tail -5 ref.txt; }
plan=$(grep '^mcf tc: refinement 1 of 1' ref.txt); echo "$plan"
first=$(grep -m1 '^T_c (xi_over_l)' ref.txt | awk '{ print $4, $6 }')
final=$(tcline ref.txt); echo "first scan: T_c = $first; $final"
cfgL=$(grep '^L = ' ref.out/refine-1/config.ini)
temps=$(grep '^temperatures = ' ref.out/refine-1/config.ini | sed 's/temperatures = //')
set -- $first
if [ "$cfgL" = "L = 8, 16" ] && awk -v t="$temps" -v c="$1" -v e="$2" 'BEGIN {
     n = split(t, T, ", "); for (i = 1; i <= n; i++) { d = T[i] - c; if (d < 0) d = -d
       if (d > 3 * e + 1e-6 && d > 0.3) exit 1 }; exit !(n >= 3) }'; then
  ok "(a) refine-1: $cfgL, T = $temps about the first scan's $1 +- $2"
else bad "(a) refine-1: $cfgL, T = $temps (first scan $first)"; fi

"$mcf" tc ref.out/refine-1 > alone.txt 2>&1
apart=$(grep '^mcf tc: L = 16:' alone.txt | sed 's/.*: \([0-9.]*\) standard deviations.*/\1/')
coarse=$(grep -m1 '^mcf tc: L = 16:' ref.txt | sed 's/.*: \([0-9.]*\) standard deviations.*/\1/')
if awk -v a="$apart" 'BEGIN { exit !(a != "" && a <= 1.5) }'; then
  ok "(a) L = 16 on the refined grid: $apart standard deviations apart (first scan: $coarse)"
else bad "(a) L = 16 on the refined grid: '$apart' standard deviations apart (> 1.5)"; fi
tcf=$(echo "$final" | awk '{ print $5, $7 }')
set -- $first $tcf
echo "not compared: (b) error $2 (first scan alone) -> $4 (both scans)"
if [ -z "$part" ]; then echo "not compared: (b) T_c = $3 +- $4 (a short run; Onsager's 2.269185)"
elif awk -v x="$3" -v e="$4" 'BEGIN { d = x - 2.269185; if (d < 0) d = -d
       exit !(d <= 3 * e + 0.005) }'
then ok "(b) T_c = $3 +- $4 meets Onsager's 2.269185"
else bad "(b) T_c = $3 +- $4 misses 2.269185 (3 errors + 0.005)"; fi
"$mcf" tc ref.out > again.txt 2>&1
if grep -q 'refine-1, a refinement scan of ref.out, joins it' again.txt &&
   [ "$(grep '^T_c (xi_over_l)' again.txt | tail -1 | awk '{ print $4, $6 }')" = "$tcf" ]; then
  ok "(c) mcf tc ref.out joins ref.out/refine-1: T_c = $tcf"
else bad "(c) mcf tc ref.out: $(grep -E 'joins|^T_c \(xi' again.txt | head -3)"; fi
[ "$part" = long ] && { echo "$passed passed, $fail failed"; [ $fail -eq 0 ]; exit; }

# ---- (d): a stop inside the refinement, then mcf resume -----------------------------------
mkdir -p stop && cd stop && mkini ref 7 ""
"$mcf" tc ref.ini --no-plots > run1.txt 2>&1 &
pid=$!
for i in $(seq 600); do [ -f ref.out/refine-1/checkpoint ] && break; sleep 0.05; done
kill -INT $pid; wait $pid; rc=$?
"$mcf" resume ref.out --no-plots > run2.txt 2>&1 || { bad "(d) resume failed"; tail -3 run2.txt; }
same=1
for f in series/index.tsv results.tsv; do
  cmp -s ../ref.out/refine-1/$f ref.out/refine-1/$f || same=0
done
for c in ../ref.out/refine-1/series/chain-*.f64; do cmp -s "$c" ref.out/refine-1/series/$(basename "$c") || same=0; done
if [ $rc -ne 0 ] && grep -q 'refinement 1 of 1 stopped' run1.txt && [ $same = 1 ] &&
   [ "$(tcline run2.txt)" = "$final" ]; then
  ok "(d) stopped in the refinement (exit $rc), resumed: the same bytes and T_c"
else bad "(d) stop (exit $rc) and resume: same bytes $same, $(tcline run2.txt)"; fi
cd ..

# ---- (e): --force with another first scan -------------------------------------------------
sed -i -e 's/^seed = 7$/seed = 8/' -e 's/^sweeps = '$sweeps'$/sweeps = 4000/' stop/ref.ini
(cd stop && "$mcf" tc ref.ini --force --no-plots > force.txt 2>&1) || bad "(e) --force run failed"
if [ -d stop/ref.out/refine-1.earlier-1 ] && grep -q 'kept as ref.out/refine-1.earlier-1' stop/force.txt &&
   ! cmp -s stop/ref.out/refine-1/planned_from stop/ref.out/refine-1.earlier-1/planned_from; then
  ok "(e) --force: the earlier refinement kept aside, a new one planned"
else bad "(e) --force: $(grep 'refine-1' stop/force.txt | head -2)"; fi

# ---- (f): error_target with refine --------------------------------------------------------
mkini tgt 9 "error_target = tc:0.4%
"
sed -i 's/^sweeps = '$sweeps'$/sweeps = 2000\nmax_sweeps = '$tmax'/' tgt.ini
"$mcf" tc tgt.ini --no-plots > tgt.txt 2>&1 || { bad "(f) mcf tc tgt.ini failed"; tail -3 tgt.txt; }
d0=$(grep -c 'error target' tgt.out/log); d1=$(grep -c 'error target' tgt.out/refine-1/log)
if [ "$d0" = 0 ] && [ "$d1" -ge 1 ] && grep -q "^max_sweeps = $tmax\$" tgt.out/tc.ini &&
   grep -q "^max_sweeps = $tmax\$" tgt.out/refine-1/config.ini; then
  ok "(f) the error target in the last scan only ($d1 decisions), max_sweeps held for it"
else bad "(f) decisions: first $d0, refinement $d1; $(grep max_sweeps tgt.out/tc.ini)"; fi

# ---- (g): refusals ------------------------------------------------------------------------
mkini r99 1 ""; sed -i 's/^refine = 1$/refine = 99/' r99.ini
"$mcf" tc r99.ini > r99.txt 2>&1; rc=$?
if [ $rc = 2 ] && grep -q 'r99.ini:13: \[tc\] refine = 99: give 0 to' r99.txt; then ok "(g) $(tail -1 r99.txt)"
else bad "(g) refine = 99: exit $rc, $(tail -1 r99.txt)"; fi
mkini rp 1 "refine_points = 2
"
"$mcf" tc rp.ini > rp.txt 2>&1; rc=$?
if [ $rc = 2 ] && grep -q '\[tc\] refine_points = 2: give 3 to 64' rp.txt; then ok "(g) $(tail -1 rp.txt)"
else bad "(g) refine_points = 2: exit $rc, $(tail -1 rp.txt)"; fi

# ---- (h): the largest size unbridged by the first grid -----------------------------------
mkini wide 5 ""
sed -i -e 's/^sizes = 8, 16$/sizes = 8, 16, 64/' -e 's/^sweeps = '$sweeps'$/sweeps = '$wsweeps'/' \
  -e 's/^thermalize = 1000$/thermalize = '$wtherm'/' wide.ini
"$mcf" tc wide.ini --no-plots > wide.txt 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^mcf tc: L = 64 left out of this analysis' wide.txt &&
   grep -q '^mcf tc: refinement 1 of 1: L = .*64 at' wide.txt &&
   grep -q '^mcf tc: L = 64: 1[0-2] chains' wide.txt && grep -q '^mcf tc: T_c' wide.txt; then
  ok "(h) L = 64 planned though unbridged, analysed with its refinement: $(tcline wide.txt | cut -c1-40)"
else bad "(h) exit $rc: $(grep -E 'L = 64|^mcf: error' wide.txt | cut -c1-160 | head -4)"; fi
# max_sweeps with no error target: refused before any work, as without refine (not after the
# first scan, when the last one would be set up)
mkini cap 1 ""; sed -i 's/^sweeps = '$sweeps'$/sweeps = 500\nmax_sweeps = 4000/' cap.ini
"$mcf" tc cap.ini > cap.txt 2>&1; rc=$?
if [ $rc = 2 ] && grep -q 'max_sweeps = 4000 caps the doubling of error_target' cap.txt &&
   [ ! -e cap.out ]; then ok "(g) max_sweeps without a target refused before any work"
else bad "(g) max_sweeps without a target: exit $rc, $(tail -1 cap.txt)"; fi
echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
