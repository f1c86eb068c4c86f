#!/usr/bin/env bash
# The checks of a finished run (core/engine/equilibration.c, issue 18): each finding is one
# "# warning:" line in results.tsv and the log, and the terminal gets one line per kind.
#  - start = hot_cold at T = 1 on a 32x32 Ising lattice: the random start is far from its
#    ordered equilibrium after 650 sweeps, the ordered start is not: the walkers disagree
#    (at T = 1, not at T = 3.5);
#  - a single chain from a random start at T = 1.5 on 64x64 with no thermalization: |m|
#    drifts from the first fifth of the measurements to the last half;
#  - no false alarm: hot and cold starts at T = 3.5 and 4.5 with 20000 sweeps give no
#    warning at all;
#  - a plateau that is not reached is one line on the terminal for the whole run, with the
#    sweeps the estimate asks for, and a line per chain in the log.
# usage: test_equilibration_checks.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/equilibration
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

ising() { # NAME SEED L WALKERS THERMALIZE SWEEPS START TEMPERATURES
  printf '[run]\nmodel = ising\nseed = %s\nwalkers = %s\noutput = %s.out\n' "$2" "$4" "$1"
  printf '[schedule]\nthermalize = %s\nsweeps = %s\nstart = %s\ntemperatures = %s\n' \
    "$5" "$6" "$7" "$8"
  printf '[model]\nL = %s\n' "$3"
}
run() { "$mcf" run "$1.ini" --no-progress >"$1.stdout" 2>"$1.err" || { bad "$1: run failed"; cat "$1.err"; }; }

ising cold 3 32 2 10 640 hot_cold "1.0, 3.5" >cold.ini
run cold
if grep -q '^warning: not in equilibrium: the walkers disagree on .*abs_m.* (T=1.0)' cold.err &&
   ! grep -q 'disagree.*T=3.5' cold.err; then ok "hot and cold starts disagree at T=1, not at T=3.5"
else bad "hot_cold at T=1:"; cat cold.err; fi
if grep -q '^# warning: T=1.0: the 2 walkers disagree on abs_m: .*(random start), 0.99.*(ordered start)' \
     cold.out/results.tsv && grep -q 'warning: T=1.0: the 2 walkers disagree on abs_m' cold.out/log
then ok "the detail names the walkers' starts, in results.tsv and the log"
else bad "details of the disagreement"; grep warning cold.out/results.tsv; fi
n=$(grep -c 'not in equilibrium' cold.err)
[ "$n" -eq 1 ] && ok "one line on the terminal for the disagreement" || bad "$n lines on the terminal"

ising drift 5 64 1 0 640 model "1.5" >drift.ini
run drift
if grep -q '^warning: not in equilibrium: a drift of abs_m.* in 1 chain (T=1.5)' drift.err &&
   grep -q '^# warning: chain 0 (T=1.5): abs_m drifts' drift.out/results.tsv
then ok "a chain still ordering drifts: $(grep -o 'abs_m drifts.*last half' drift.out/results.tsv)"
else bad "no drift found in an unthermalized chain"; cat drift.err; fi

ising hot 7 16 2 1000 20000 hot_cold "3.5, 4.5" >hot.ini
run hot
if ! grep -q warning hot.err && ! grep -q warning hot.out/results.tsv; then
  ok "hot and cold starts at T = 3.5 and 4.5, 20000 sweeps: no warning"
else bad "a false alarm:"; cat hot.err; fi

# the plateau: 3 of the 4 chains of `cold` (640 measurements) have no plateau
n=$(grep -c 'did not reach a plateau' cold.err)
d=$(grep -c 'warning: chain [0-9]* .*did not reach a plateau' cold.out/log)
if [ "$n" -eq 1 ] && [ "$d" -ge 2 ] &&
   grep -q '^warning: the errors of .* in [0-9] of 4 chains (.*) did not reach a plateau: about [0-9]* measured sweeps are needed, this run has 640' cold.err
then ok "plateau: one terminal line, $d lines in the log: $(grep -o 'about [0-9]* measured' cold.err)"
else bad "plateau lines: $n on the terminal, $d in the log"; cat cold.err; fi

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
