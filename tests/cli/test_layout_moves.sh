#!/usr/bin/env bash
# Proposals per sweep that are not the units (mcf_layout.moves, mcf 0.8; a model of bond
# variables with observables per site).  tests/plugins/test_moves_model.c counts the
# proposals each chain receives between measurements (measure_every = 1; the first
# measurement also counts the 5 thermalization sweeps, so the mean over 64 measurements is
# the proposals per sweep times 69/64): a scan over moves = 0 (the units, n = 4), 3 and 10
# must give exactly 4, 3 and 10 per sweep, with the acceptance 1 (every move accepted: the
# core counted as many proposals as it made).
# usage: test_layout_moves.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/layout_moves
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
printf '[run]\nmodel = tmoves\nseed = 3\noutput = m.out\n[schedule]\nthermalize = 5\n' >m.ini
printf 'sweeps = 64\ntemperatures = 1\n[model]\nn = 4\nmoves = 0, 3, 10\n' >>m.ini
"$mcf" run m.ini --no-progress >m.stdout 2>m.err || { bad "the run failed"; cat m.err; }
tsv=m.out/results.tsv
col() { grep -v '^#' "$tsv" | head -1 | tr '\t' '\n' | grep -n -x -- "$1" | cut -d: -f1; }
cm=$(col moves) cp=$(col proposals) ca=$(col acceptance)
if [ -z "$cm" ] || [ -z "$cp" ] || [ -z "$ca" ]; then
  bad "results.tsv lacks moves, proposals or acceptance"; head -3 "$tsv"
else
  grep -v '^#' "$tsv" | tail -n +2 | awk -F'\t' -v cm="$cm" -v cp="$cp" -v ca="$ca" '
    { want = ($cm == 0 ? 4 : $cm) * 69 / 64
      printf "%s %s %s %s\n", $cm, $cp, $ca, ($cp == want && $ca == 1) ? "ok" : "bad" }' >rows
  cat rows
  if [ "$(grep -c ' ok$' rows)" = 3 ]; then
    ok "moves = 0, 3, 10 with n = 4: 4, 3 and 10 proposals per sweep, acceptance 1"
  else bad "proposals per sweep differ from mcf_layout.moves (rows above)"; fi
fi
echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
