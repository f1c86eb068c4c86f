#!/usr/bin/env bash
# mcf tc DIR1 DIR2 ... and --window (core/program/tc.c, tc_sources.c; docs/methods.md,
# "Finite-size scaling"): the series of several runs of one model reweighted together, and
# the refusal of neighbouring temperatures whose energy histograms do not overlap.
#  (a) a run and its twin (the same configuration and seed in another folder: the same
#      series) reweighted together give the run's own T_c lines to the printed digit: every
#      measurement counted twice changes no reweighted mean and no jackknife sample;
#  (b) a second run at other temperatures (another seed) joins the first: 5 chains per size,
#      tc.tsv names the second folder;
#  (c) a run of other physics ([model] J) is refused, naming the key, both values and files;
#  (d) 2D Ising L = 8, 12 at T = 2.0, 2.3, 2.6 and 10^6: the 2.6/10^6 gap is ~6 (L = 8) and
#      ~9 (L = 12) standard deviations of energy wide, no measurement bridges it: refused,
#      naming the pair and the temperatures to add; --window 1.9:2.7 leaves those two chains
#      out and the rest is analysed;
#  (e) --sizes: all sizes named gives the same T_c; a size the series lack, or one size, refused;
#  (f) --nu: 2D Ising L = 4..10 with nu = 1 (exact): the printed T_c and chi2 of each quantity
#      are the weighted line through tc.tsv's crossings in L^-(1/nu + omega) = L^-2, recomputed
#      here from the table (its errors printed to 4 digits, so each weight is known to 1e-3:
#      T_c to 1e-3 of the crossings' spread, chi2 to 2%); --nu 0 refused.
# usage: test_tc_merge.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/tc_merge
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
# NAME SEED OUTPUT SIZES TEMPERATURES SWEEPS
mk() {
  printf '[run]\nmodel = ising\nseed = %s\noutput = %s\nseries = yes\nextra_observables = m2_kmin\nthreads = 1\n[model]\nL = %s\n[schedule]\ntemperatures = %s\nthermalize = 500\nsweeps = %s\n' \
    "$2" "$3" "$4" "$5" "$6" > "$1.ini"
  "$mcf" run "$1.ini" --no-plots > "$1.txt" 2>&1 || { bad "$1: mcf run failed"; tail -3 "$1.txt"; }
}
mk a 11 a.out "4, 6" "2.0, 2.3, 2.6" 8000
mk a2 11 a2.out "4, 6" "2.0, 2.3, 2.6" 8000
mk b 12 b.out "4, 6" "2.15, 2.45" 8000

# ---- (a) the twin -------------------------------------------------------------------------
"$mcf" tc a.out > one.txt 2>&1; r1=$?
"$mcf" tc a.out a2.out > twin.txt 2>&1; r2=$?
l1=$(grep '^T_c' one.txt); l2=$(grep '^T_c' twin.txt)
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -n "$l1" ] && [ "$l1" = "$l2" ] &&
    grep -q 'L = 4: 6 chains' twin.txt; then
  ok "(a) a run and its twin: the run's T_c lines ($(echo "$l1" | head -1))"
else bad "(a) twin: exit $r1/$r2"; echo "$l1"; echo "$l2"; grep 'chains' twin.txt; fi

# ---- (b) other temperatures -----------------------------------------------------------------
"$mcf" tc a.out b.out > ab.txt 2>&1; r=$?
if [ $r -eq 0 ] && grep -q 'L = 6: 5 chains' ab.txt && grep -q 'of 2 runs reweighted' ab.txt &&
    grep -q '^# also reweighted: the series of b.out' a.out/tc.tsv; then
  ok "(b) two runs at 3 + 2 temperatures: $(grep -m1 '^T_c' ab.txt)"
else bad "(b) a.out b.out: exit $r"; tail -3 ab.txt; fi

# ---- (c) other physics ----------------------------------------------------------------------
rm -rf c.out && cp -r b.out c.out && sed -i 's/^J = 1$/J = 1.5/' c.out/config.ini
"$mcf" tc a.out c.out > c.txt 2>&1; r=$?
if [ $r -eq 2 ] && grep -q 'c.out/config.ini:[0-9]*: \[model\] J = 1.5, but a.out/config.ini:[0-9]* has J = 1' c.txt; then
  ok "(c) refused: $(tail -1 c.txt | cut -c1-120)"
else bad "(c) J = 1.5 beside J = 1: exit $r"; cat c.txt; fi

# ---- (d) histograms that do not overlap, and --window -------------------------------------
mk d 13 d.out "8, 12" "2.0, 2.3, 2.6, 1e6" 2000
"$mcf" tc d.out > d.txt 2>&1; r=$?
if [ $r -eq 2 ] && grep -q 'L = [0-9]*: the energy histograms of T = 2.6 and 1e+06 hardly overlap' d.txt &&
    grep -q 'add T = ' d.txt; then
  ok "(d) refused: $(tail -1 d.txt | cut -c1-140)"
else bad "(d) 2.6 beside 10^6: exit $r"; cat d.txt; fi
"$mcf" tc d.out --window 1.9:2.7 > dw.txt 2>&1; r=$?
if [ $r -eq 0 ] && grep -q 'leaves out 2 chains' dw.txt && ! grep -q 'hardly overlap' dw.txt &&
    grep -q '^# window: 1.9 to 2.7$' d.out/tc.tsv; then
  ok "(d) --window 1.9:2.7: $(grep -m1 '^T_c' dw.txt)"
else bad "(d) --window: exit $r"; tail -3 dw.txt; fi
"$mcf" tc d.out --window 2.7:1.9 > dx.txt 2>&1; r=$?
if [ $r -eq 2 ] && grep -q 'give LO:HI' dx.txt; then ok "(d) --window 2.7:1.9 refused"
else bad "(d) --window 2.7:1.9: exit $r"; cat dx.txt; fi
# ---- (e) --sizes ---------------------------------------------------------------------------
"$mcf" tc a.out b.out --sizes 4,6 > s.txt 2>&1; r=$?
if [ $r -eq 0 ] && [ "$(grep '^T_c' s.txt)" = "$(grep '^T_c' ab.txt)" ]; then
  ok "(e) --sizes 4,6 (all of them): the same T_c lines"
else bad "(e) --sizes 4,6: exit $r"; tail -3 s.txt; fi
"$mcf" tc d.out --window 1.9:2.7 --sizes 8,16 > s2.txt 2>&1; r=$?
if [ $r -eq 2 ] && grep -q 'names L = 16, which the series do not have' s2.txt; then
  ok "(e) --sizes 8,16 without L = 16 refused"
else bad "(e) --sizes 8,16: exit $r"; cat s2.txt; fi
"$mcf" tc d.out --sizes 8 > s3.txt 2>&1; r=$?
if [ $r -eq 2 ] && grep -q 'two or more lattice sizes' s3.txt; then ok "(e) --sizes 8 refused"
else bad "(e) --sizes 8: exit $r"; cat s3.txt; fi
# ---- (f) --nu ------------------------------------------------------------------------------
mk e 14 e.out "4, 6, 8, 10" "2.1, 2.2, 2.3, 2.4, 2.5" 4000
"$mcf" tc e.out --nu 1 > e.txt 2>&1; r=$?
for q in binder xi_over_l; do
  want=$(awk -F'\t' -v q=$q '$1 == q { u = $2 ^ -2; w = 1 / ($5 * $5); n++; U[n] = u; T[n] = $4;
      W[n] = w; lo = n == 1 || $4 < lo ? $4 : lo; hi = n == 1 || $4 > hi ? $4 : hi; S += w; Su += w * u; Suu += w * u * u; St += w * $4; Sut += w * u * $4 }
    END { d = S * Suu - Su * Su; tc = (Suu * St - Su * Sut) / d; a = (S * Sut - Su * St) / d;
      for (i = 1; i <= n; i++) c += W[i] * (T[i] - tc - a * U[i]) ^ 2; printf "%.10g %.6g %.6g", tc, c, 1e-3 * (hi - lo) }' e.out/tc.tsv)
  got=$(sed -n "s/^# T_c ($q) = \([0-9.]*\) .*(nu given); chi2\/dof = \([0-9.e+-]*\)\/1;.*/\1 \2/p" e.out/tc.tsv)
  if [ $r -eq 0 ] && [ -n "$got" ] && awk -v w="$want" -v g="$got" 'BEGIN { split(w, a, " ");
      split(g, b, " "); d = a[1] - b[1]; c = a[2] - b[2]; exit !(d * d <= a[3] * a[3] &&
      c * c <= (0.02 * a[2] + 0.005) ^ 2) }'; then
    ok "(f) --nu 1, $q: T_c and chi2 $got (recomputed: $want)"
  else bad "(f) --nu 1, $q: exit $r, printed '$got', recomputed '$want'"; grep "^# T_c" e.out/tc.tsv; fi
done
"$mcf" tc e.out --nu 0 > e0.txt 2>&1; r=$?
if [ $r -eq 2 ] && grep -q -- '--nu 0: give a number > 0' e0.txt; then ok "(f) --nu 0 refused"
else bad "(f) --nu 0: exit $r"; cat e0.txt; fi
echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
