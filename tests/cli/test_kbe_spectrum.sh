#!/usr/bin/env bash
# `mcf kbe-spectrum DIR --at T` (core/program/kbe_spectrum.c; issue 45): the spectral function
# of a kbe run from its two-time Green's functions.
#  (a) the two-band model at U = 0 without a pulse (every level held still, the valence band
#      filled): per k and band, A(w) and A^<(w) at T = 5 (relative times to 10, sigma = 2)
#      against the closed form sigma / sqrt(2 pi) exp(-(w - eps)^2 sigma^2 / 2) with
#      eps_v,c(k) = -+gap/2 - 2 t_v,c cos(2 pi j / nk), and 0 for the empty band's A^<: within
#      1e-5 (the window's tail beyond S, <= e^-12.5 sigma^2 / (pi S) ~ 5e-7, and 12 printed
#      digits; aliasing at 2 pi / (2 dt) = 63 from the levels is below that);
#  (b) the sum rules on the default grid (the Nyquist range of the relative-time step):
#      int A dw = 1 and int A^< dw = n(T) per band, to the printed 8 digits;
#  (c) refusals: --at too near the end (fewer than 8 relative times), past the last step, no
#      --at, a run kept without checkpoint rows;
#  (d) with gnuplot: the run's plot-kbe.svg and the spectrum's plot-spectrum-t5.svg, whole.
# usage: test_kbe_spectrum.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/kadanoff-baym-spectrum
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
cat > s.ini <<INI
[run]
model = two-band
evaluator = kbe
output = s.out
[kbe]
nk = 8
dt = 0.05
steps = 200
selfenergy = none
[output]
every = 10
[model]
gap = 3
t_v = -0.25
t_c = 0.5
INI
"$mcf" kbe s.ini > run.txt 2>&1 || { bad "mcf kbe failed"; cat run.txt; }

# (a) the closed form
"$mcf" kbe-spectrum s.out --at 5 --omega -3:3 --points 601 > a.txt 2>&1; rc=$?
err=$(grep -v '^#' s.out/spectrum-t5.tsv | awk -F'\t' 'NR > 1 && $1 != "local" {
  pi = 3.14159265358979; k = 2 * pi * $1 / 8; s = 2
  ev = -1.5 + 0.5 * cos(k); ec = 1.5 - 1.0 * cos(k)
  gv = s / sqrt(2 * pi) * exp(-($2 - ev)^2 * s * s / 2); gc = s / sqrt(2 * pi) * exp(-($2 - ec)^2 * s * s / 2)
  d[1] = $3 - gv; d[2] = $4 - gc; d[3] = $5 - gv; d[4] = $6
  for (i = 1; i <= 4; i++) { x = d[i] < 0 ? -d[i] : d[i]; if (x > m) m = x }; n++ }
  END { if (n != 8 * 601) print "rows " n; else printf "%.3g\n", m }')
if [ $rc = 0 ] && awk -v e="$err" 'BEGIN { exit !(e + 0 == e && e <= 1e-5) }'; then
  ok "(a) A and A^< of still levels: the closed form within $err (8 k x 601 omega)"
else bad "(a) exit $rc, max deviation $err"; cat a.txt; fi

# (b) sum rules on the default grid
"$mcf" kbe-spectrum s.out --at 5 > b.txt 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^# sum rule v: int A dw = 1.00000000 (1), int A< dw = 1.00000000 (n = 1.00000000)' s.out/spectrum-t5.tsv &&
   grep -q '^# sum rule c: int A dw = 1.00000000 (1), int A< dw = 0.00000000 (n = 0.00000000)' s.out/spectrum-t5.tsv
then ok "(b) sum rules: $(grep -c '^# sum rule' s.out/spectrum-t5.tsv) bands, int A = 1, int A^< = n"
else bad "(b) exit $rc"; grep '^#' s.out/spectrum-t5.tsv; cat b.txt; fi

# (d) the plots of the run and of the spectrum (gnuplot: CI installs gnuplot-nox)
if command -v gnuplot > /dev/null 2>&1; then
  if tail -c 200 s.out/plot-kbe.svg 2>/dev/null | grep -q '</svg>' &&
     tail -c 200 s.out/plot-spectrum-t5.svg 2>/dev/null | grep -q '</svg>'
  then ok "(d) plot-kbe.svg and plot-spectrum-t5.svg written whole"
  else bad "(d) plots missing or cut: $(ls s.out)"; fi
else echo "skipped: (d) the plots (no gnuplot)"; fi

# (c) refusals
refused() { # NAME NEEDLE ARGS...
  local name=$1 needle=$2; shift 2
  "$mcf" kbe-spectrum "$@" > r.txt 2>&1; local rc=$?
  if [ $rc = 2 ] && grep -q -- "$needle" r.txt; then ok "(c) refused: $name"
  else bad "(c) $name: exit $rc, expected 2 with '$needle'"; cat r.txt; fi
}
refused "--at near the last step" "choose a time farther" s.out --at 9.8
refused "--at past the last step" "past the last step" s.out --at 11
refused "no --at" "usage" s.out
sed 's/^output = s.out/output = n.out/; s/^every = 10/every = 10\ncheckpoint = no/' s.ini > n.ini
"$mcf" kbe n.ini > /dev/null 2>&1
refused "a run without rows" "kept no checkpoint" n.out --at 5
echo "$passed passed, $fail failed"
[ $fail = 0 ]
