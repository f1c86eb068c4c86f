#!/usr/bin/env bash
# The program's commands and its behaviour on bad input: every error stops before any
# work (no output folder appears), exits non-zero, and says where and what.
# usage: test_cli.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/cli
# the release as mcf/version.h writes it (MAJOR, MINOR, PATCH in that order)
version=$(awk '/^#define MCF_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 }
               END { print v }' "$(dirname "$0")/../../core/sdk/include/mcf/version.h")
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
has() { # description, command output file, pattern...
  local what=$1 file=$2; shift 2
  for p in "$@"; do grep -q -- "$p" "$file" || { bad "$what: lacks '$p':"; cat "$file"; return; }; done
  ok "$what"
}

"$mcf" --version >v.txt && has "--version" v.txt "mcf $version (" "ABI"
"$mcf" --help >h.txt && has "--help" h.txt "mcf run CONFIG" "mcf resume DIR" "mcf plugins" "mcf describe NAME" "mcf plot DIR"
"$mcf" plugins >p.txt 2>/dev/null && has "plugins lists ising and heisenberg" p.txt "^ising *model" "^heisenberg *model"
"$mcf" describe ising >d.txt && has "describe ising" d.txt "L *= 16" "boundary" "abs_m" "energy"
"$mcf" describe ising >dpt.txt && has "describe ising: tempering" dpt.txt "exchange_every): supported"
"$mcf" rnu x.ini 2>u.txt; [ $? -eq 2 ] && has "misspelled command" u.txt "did you mean 'run'" || bad "exit status for unknown command"

cat > bad.ini <<'INI'
[run]
model = ising
output = should_not_exist
[schedule]
sweeps = 1000
temperatures = 2.0
[model]
L = 8
Lx = 4
INI
"$mcf" run bad.ini 2>b.txt; rc=$?
[ $rc -eq 2 ] && ok "bad config exits with 2" || bad "bad config exit status $rc"
has "unknown key message" b.txt "bad.ini:9:" "\[model\]" "'Lx'" "did you mean 'L'"
[ -e should_not_exist ] && bad "an output folder was created for a refused config" || ok "nothing created"

"$mcf" run bad.ini --set model.L=1 --set model.Lx=2 2>c.txt
has "--set errors" c.txt "'Lx'"
sed -i '/^Lx/d' bad.ini
"$mcf" run bad.ini --set model.L=1 2>c.txt
has "range error from --set" c.txt "command line (--set)" "\[model\] L" "1 is out of range" "must be integer in \[2, 46340\]"

# a model that needs a temperature, run without one: refused before anything is written
sed 's/^temperatures.*//' bad.ini > notemp.ini
"$mcf" run notemp.ini 2>t.txt; rc=$?
[ $rc -ne 0 ] && has "missing temperatures" t.txt "needs a temperature" "\[schedule\] temperatures" \
  || bad "run without temperatures succeeded"
[ -e should_not_exist ] && bad "an output folder was created for a refused run" || ok "nothing created without temperatures"

"$mcf" resume nowhere 2>r.txt; [ $? -ne 0 ] && has "resume of a missing folder" r.txt "nowhere/config.ini" || bad "resume nowhere succeeded"
"$mcf" plot nowhere 2>q.txt; [ $? -ne 0 ] && has "plot of a missing folder" q.txt "nowhere/results.tsv" || bad "plot nowhere succeeded"

# a good small run: files written, no temporary files left behind
"$mcf" run bad.ini --no-progress 2>g.txt && ok "small run" || { bad "small run"; cat g.txt; }
for f in results.tsv config.ini log checkpoint plot-energy.svg plot-binder.svg; do
  [ -s should_not_exist/$f ] && ok "wrote $f" || bad "missing $f"
done
ls should_not_exist | grep -q tmp && bad "temporary files left" || ok "no temporary files left"
# --no-plots: the same results, no plot files, the log and the last line say so
"$mcf" run bad.ini --no-progress --no-plots --set run.output=noplots.out 2>np.txt ||
  { bad "run --no-plots"; cat np.txt; }
if cmp -s noplots.out/results.tsv should_not_exist/results.tsv &&
   ! ls noplots.out | grep -q '^plot-'; then ok "--no-plots: the same results.tsv, no plots"
else bad "--no-plots: results differ or plots drawn: $(ls noplots.out | tr '\n' ' ')"; fi
has "--no-plots is said" np.txt "no plots (--no-plots)"
grep -q "plots: not drawn (--no-plots" noplots.out/log && ok "--no-plots in the log" ||
  bad "--no-plots: the log does not say so"
grep -q "^L = 8" should_not_exist/config.ini && grep -q "^thermalize = 1000" should_not_exist/config.ini \
  && ok "config.ini as used has defaults filled in" || bad "config.ini: $(cat should_not_exist/config.ini)"
head -20 should_not_exist/results.tsv | grep -q "^T	energy	energy_err	tau_energy" && ok "results header" \
  || bad "results header: $(grep -v '^#' should_not_exist/results.tsv | head -1)"

# curve observables: the test model's histogram of its one spin against the exact
# Boltzmann weights P(s) = exp(h s / T) / (2 cosh(h / T)), within 4 error bars
cat > curve.ini <<'INI'
[run]
model = tgood
seed = 9
output = curve.out
[schedule]
thermalize = 100
sweeps = 200000
temperatures = 0.7, 2.0
INI
if "$mcf" run curve.ini --no-progress 2>curve.err; then
  awk -F'\t' '/^#/ || /^T/ { next }
    { T = $1; s = $2; p = $3; e = $4; h = 1
      exact = exp(h * s / T) / (exp(h / T) + exp(-h / T))
      d = p - exact; if (d < 0) d = -d
      if (!(e > 0) || d > 4 * e) { printf "T=%s s=%s: %s +- %s vs exact %.6f\n", T, s, p, e, exact; bad = 1 }
      n++ }
    END { exit (bad || n != 4) }' curve.out/histogram.tsv \
    && ok "curve observable histogram.tsv matches the exact Boltzmann weights" \
    || { bad "curve histogram.tsv"; cat curve.out/histogram.tsv; }
  grep -v "^#" curve.out/histogram.tsv | head -1 | grep -q "^T	s	histogram	histogram_err" && ok "curve header" \
    || bad "curve header: $(cat curve.out/histogram.tsv | head -3)"
  grep -q "^# curves: histogram" curve.out/results.tsv && ok "results.tsv names the curves" || bad "no # curves: line"
else
  bad "curve run failed"; cat curve.err
fi

# evaluator = auto: the log names the choice and the skipped test candidate tautogpu
# (priority 90, unusable without MCF_TEST_AUTO_GPU=1); config.ini keeps auto, results.tsv
# names the plugin chosen (kpm, or kpm-cuda where one is built and a device is present);
# resume re-resolves; auto for a model without an evaluator is refused naming the key
cat > auto.ini <<'INI'
[run]
model = anderson
evaluator = auto
output = auto.out
[schedule]
thermalize = 0
sweeps = 32
[model]
lattice = square
L = 4
typical_sites = 4
[evaluator]
moments = 64
INI
if MCF_TEST_AUTO_GPU=0 "$mcf" run auto.ini --no-progress 2>auto.err; then
  # then kpm-cuda, where built: skipped without a device (or taken with one)
  has "auto: log line" auto.out/log "evaluator = auto: tautogpu skipped (MCF_TEST_AUTO_GPU is not 1); \(kpm-cuda skipped ([^;]*); \)\?using kpm"
  grep -q "^evaluator = auto$" auto.out/config.ini && ok "auto: config.ini keeps auto" \
    || bad "auto: config.ini: $(cat auto.out/config.ini)"
  grep -Eq "^# evaluator: kpm(-cuda)? .* \(auto\)$" auto.out/results.tsv && ok "auto: results header" \
    || bad "auto: results header: $(grep '^# evaluator' auto.out/results.tsv)"
  MCF_TEST_AUTO_GPU=0 "$mcf" resume auto.out --no-progress 2>auto-resume.err && ok "auto: resume" \
    || { bad "auto: resume"; cat auto-resume.err; }
else
  bad "auto run failed"; cat auto.err
fi
printf '[run]\nmodel = ising\nevaluator = auto\noutput = auto-ising.out\n[schedule]\nsweeps = 100\ntemperatures = 2\n' >auto-ising.ini
"$mcf" run auto-ising.ini 2>ai.txt; rc=$?
[ $rc -eq 2 ] && has "auto for ising refused" ai.txt "auto-ising.ini:3" "\[run\] evaluator = auto" "takes no evaluator" \
  || bad "auto for ising: exit status $rc"
"$mcf" describe kpm >dk.txt && has "describe kpm shows the auto priority" dk.txt "evaluator = auto: priority 10"

# a GPU plugin named explicitly on a machine without a usable device: the run is refused
# before any work, naming the plugin, the reason and the CPU alternative (where the plugin
# is built and a device is present, this path cannot be reached and is skipped)
for pair in "kpm-cuda:kpm:anderson" "blip-cuda:blip:slater-jastrow"; do
  gpu=${pair%%:*}; rest=${pair#*:}; cpu=${rest%%:*}; model=${rest#*:}
  if ! "$mcf" describe "$gpu" >dg.txt 2>/dev/null; then
    echo "skip: $gpu is not built (no nvcc)"
    continue
  fi
  if ! grep -q "not usable here" dg.txt; then
    echo "skip: $gpu has a usable device here"
    continue
  fi
  if [ "$model" = anderson ]; then
    printf '[run]\nmodel = anderson\nevaluator = %s\noutput = nodev.out\n[schedule]\nthermalize = 0\nsweeps = 32\n[model]\nlattice = square\nL = 4\ntypical_sites = 4\n' "$gpu" >nodev.ini
  else
    printf '[run]\nmodel = slater-jastrow\nevaluator = %s\noutput = nodev.out\n[schedule]\nthermalize = 0\nsweeps = 32\n[model]\nsystem = heg\nelectrons = 14\nrs = 1\n' "$gpu" >nodev.ini
  fi
  rm -rf nodev.out
  if "$mcf" run nodev.ini --no-progress >nodev.txt 2>&1; then
    bad "$gpu without a device: the run did not fail"
  else
    has "$gpu without a device is refused" nodev.txt "$gpu: " "use evaluator = $cpu (CPU) or auto"
    [ ! -e nodev.out/results.tsv ] && ok "$gpu without a device: no results written" \
      || bad "$gpu without a device: results were written"
  fi
done

# without gnuplot a finished run has no plots: a warning in its log, not a failed run (the
# plot module says so with a flag, not a message main.c compares); `mcf plot` fails, exit 1
printf '[run]\nmodel = ising\noutput = noplot.out\n[schedule]\nthermalize = 10\nsweeps = 64\ntemperatures = 2\n[model]\nL = 4\n' >noplot.ini
PATH=/nonexistent-mcf-test "$mcf" run noplot.ini --no-progress >/dev/null 2>noplot.txt; rc=$?
if [ $rc -eq 0 ]; then
  has "no gnuplot: a warning in the log" noplot.out/log "no plots drawn: gnuplot not found"
  ls noplot.out/plot-*.svg >/dev/null 2>&1 && bad "no gnuplot, yet plots" || ok "no gnuplot: no plots"
else bad "no gnuplot: the run failed (exit $rc)"; cat noplot.txt; fi
PATH=/nonexistent-mcf-test "$mcf" plot noplot.out >/dev/null 2>noplot.txt; rc=$?
[ $rc -eq 1 ] && has "no gnuplot: mcf plot fails" noplot.txt "gnuplot not found" "gnuplot-nox" \
  || bad "no gnuplot: mcf plot exit status $rc"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
