#!/usr/bin/env bash
# Products of noisy estimates (mcf/model.h, MCF_OBS_NOISE; issue 42, part 1): the core never
# forms a derived quantity from two observables that share one draw of noise, whose product's
# mean would carry that noise's covariance.  tests/plugins/test_noisy_model.c: one spin in a
# field h at temperature T whose energy is measured as e + sigma xi (xi a normal deviate),
# exact C = (h/T)^2 / cosh^2(h/T).
#  - tnoisyshared (weight exp(-S), e and s_T = -e/T^2 from the same deviate): C would be
#    sigma^2/T^2 too high; it is left out, with a warning on the terminal, in the log and
#    in results.tsv that names both observables;
#  - tnoisyboltz (Boltzmann weight, noisy e): <e^2> would be sigma^2 too high; left out;
#  - tnoisyindep (s_T from an independent deviate): C is written and agrees with the exact
#    value within 3.5 standard errors at T = 1 and 2 (8 x 10^4 sweeps; fixed seed), and
#    differs from the biased value C + sigma^2/T^2 by more than 10 of them, so the check
#    can tell the two apart.
# usage: test_noise_products.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/noise_products
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

for m in tnoisyshared tnoisyboltz tnoisyindep; do
  printf '[run]\nmodel = %s\nseed = 11\noutput = %s.out\n' $m $m >$m.ini
  printf '[schedule]\nthermalize = 1000\nsweeps = 80000\ntemperatures = 1.0, 2.0\n' >>$m.ini
  printf '[model]\nh = 1\nsigma = 1\n' >>$m.ini
  "$mcf" run $m.ini --no-progress >$m.stdout 2>$m.err || { bad "$m: the run failed"; cat $m.err; }
done

# column INDEX of NAME in the header of results.tsv FILE (0 when absent)
col() { grep -v '^#' "$2" | head -1 | tr '\t' '\n' | grep -n -x -- "$1" | cut -d: -f1 | head -1; }

for m in tnoisyshared tnoisyboltz; do
  tsv=$m.out/results.tsv
  [ -f "$tsv" ] || { bad "$m: no results.tsv"; continue; }
  if [ -z "$(col specific_heat "$tsv")" ]; then ok "$m: no specific_heat column"
  else bad "$m: a specific_heat column from a product of estimates that share noise"; fi
  case $m in
    tnoisyshared) want='the product of energy and action_dT, which share one draw of noise' ;;
    *) want='the square of energy, a stochastic estimate' ;;
  esac
  for f in $m.err $m.out/log $tsv; do
    if grep -q "warning: specific_heat is left out: it needs $want" "$f"; then
      ok "$m: $f says why"
    else bad "$m: $f lacks the warning '$want'"; grep -i warning "$f"; fi
  done
done

tsv=tnoisyindep.out/results.tsv
c=$(col specific_heat "$tsv")
if [ -z "$c" ]; then bad "tnoisyindep: no specific_heat column"
else
  grep -v '^#' "$tsv" | tail -n +2 | while IFS=$'\t' read -r -a f; do
    awk -v T="${f[0]}" -v C="${f[$((c - 1))]}" -v E="${f[$c]}" 'BEGIN {
      x = 1 / T; ch = (exp(x) + exp(-x)) / 2; exact = x * x / (ch * ch)
      biased = exact + 1 / (T * T)
      z = (C - exact) / E; zb = (C - biased) / E
      printf "%s T = %s: C = %.5f +- %.5f, exact %.5f (z = %.2f), shared-noise value %.5f " \
        "(z = %.1f)\n", (z * z <= 3.5 * 3.5 && zb * zb > 100) ? "good" : "BAD", T, C, E,
        exact, z, biased, zb }'
  done >indep.txt
  cat indep.txt
  if [ "$(grep -c '^good' indep.txt)" -eq 2 ]; then
    ok "tnoisyindep: C agrees with the exact value and not with the biased one"
  else bad "tnoisyindep: C against the exact value"; fi
  if grep -q 'specific_heat is left out' tnoisyindep.err; then
    bad "tnoisyindep: a warning although its noise is independent"
  else ok "tnoisyindep: no warning"; fi
fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
