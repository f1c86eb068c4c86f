#!/usr/bin/env bash
# [schedule] start = anneal (core/engine/anneal.c, issue 18): each chain begins from the
# configuration that the next higher temperature reached after its part of thermalization.
#  - the hand-over happens: the test model with h = 0 flips its one spin at every sweep, so
#    with measure_every = 2 a chain measures m = +1 or -1 for ever, fixed by its start; with
#    anneal every temperature measures what the highest temperature's walkers do, without it
#    the temperatures differ (8 walkers each);
#  - a run stopped again and again (the test model's own SIGTERM, during thermalization and
#    after) and resumed writes the results.tsv of a run that never stopped.
# usage: test_anneal.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/anneal
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

spin() { # NAME MODEL START EXTRA: 8 walkers of the one-spin test model at 3 temperatures
  printf '[run]\nmodel = %s\nseed = 4\nwalkers = 8\noutput = %s.out\n' "$2" "$1"
  printf '[schedule]\nthermalize = 9\nsweeps = 64\nmeasure_every = 2\nbins = 4\n'
  printf 'start = %s\ntemperatures = 1.0, 3.0, 2.0\n[model]\nh = 0\n%s' "$3" "$4"
}
m_column() { # the m column of results.tsv, one line
  grep -v '^#' "$1/results.tsv" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "m") c = i; next } { printf "%s ", $c }'
}
for st in model anneal; do
  spin "$st" tgood "$st" "" >"$st.ini"
  "$mcf" run "$st.ini" --no-progress >/dev/null 2>"$st.err" || { bad "$st run"; cat "$st.err"; }
done
read -r a b c <<<"$(m_column anneal.out)"
read -r x y z <<<"$(m_column model.out)"
if [ "$a" = "$b" ] && [ "$b" = "$c" ] && [ "$b" = "$y" ]; then
  ok "anneal: every temperature measures m = $b, the highest temperature's (without: $x $y $z)"
else bad "anneal: m = $a $b $c (T = 1, 3, 2), without anneal $x $y $z"; fi
if [ "$x" != "$y" ] || [ "$y" != "$z" ]; then ok "without anneal the temperatures differ"
else bad "the test cannot tell: without anneal m = $x $y $z too"; fi

# stopped and resumed: tfail sends itself SIGTERM at proposal 5 of chain 0 of every command
spin stopped tfail anneal "signal_after = 5
" >stopped.ini
spin whole tfail anneal "" >whole.ini
"$mcf" run whole.ini --no-progress >/dev/null 2>whole.err || { bad "whole run"; cat whole.err; }
"$mcf" run stopped.ini --no-progress >/dev/null 2>stopped.err
rc=$? stops=0
while [ $rc -eq 143 ] && [ $stops -lt 100 ]; do
  stops=$((stops + 1))
  "$mcf" resume stopped.out --no-progress >/dev/null 2>>stopped.err
  rc=$?
done
first=$(grep 'checkpoint written' stopped.out/log | grep -o 'stopped by signal 15 at sweep [0-9]*' | head -3 | awk '{ print $NF }' | tr '\n' ' ')
if [ $rc -eq 0 ] && [ $stops -ge 3 ] && cmp -s whole.out/results.tsv stopped.out/results.tsv; then
  ok "stopped $stops times (at sweeps $first...), resumed: results.tsv as the run that never stopped"
else bad "stopped $stops times, last exit $rc; results.tsv $(cmp whole.out/results.tsv stopped.out/results.tsv 2>&1)"; tail -3 stopped.err; fi

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
