#!/usr/bin/env bash
# `[model] KEY = optimized` (core/engine/variational_file.c, core/program/optimize_first.c):
# one configuration that optimizes the variational parameters first (DIR/optimize) and then
# runs with them.  The model is tests/plugins/test_vmc_model.c (tvmc, ABI 2): a Gaussian
# trial function in the harmonic well whose optimum is the exact ground state, E_L = 1/2 for
# every x, from a start whose energy is 0.59; so a run that did not take the optimized
# parameters cannot pass the energy check.
#  - `mcf run` makes both stages: DIR/optimize is the optimization `mcf optimize` makes of
#    the same configuration without the key, with [optimize] walkers as its walkers (its
#    config.ini says so), and the run's energy is 1/2 within 1e-5 (0.59 without them);
#  - the two stages equal the two commands by hand (`mcf optimize`, then `mcf run` with
#    p_file = its parameters.txt, which the model reads itself): the same parameters.txt
#    and the same results.tsv rows, byte for byte;
#  - stopped by SIGINT in the optimization and resumed with `mcf resume DIR`: optimize.tsv
#    and results.tsv are the uninterrupted run's;
#  - stopped in the run (after its first checkpoint) and resumed: the same results.tsv rows
#    (the checkpoint's chains get the parameters again before they are loaded);
#  - a fresh `mcf run` over the folder is refused (exit 2) naming `mcf resume`, --force
#    starts both stages again and gives the same rows;
#  - DIR/optimize from another configuration is refused on resume, not used.
# usage: test_optimize_first.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/optimize_first
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# config NAME SWEEPS SAMPLES [KEY_LINE]: 4 walkers in the run, 2 in the optimization
config() {
  printf '[run]\nmodel = tvmc\nseed = 5\noutput = %s.out\nwalkers = 4\nthreads = 2\n' "$1" \
    >"$1.ini"
  printf '[schedule]\nthermalize = 200\nsweeps = %s\ncheckpoint_every = 500\n' "$2" >>"$1.ini"
  printf '[model]\n%s\n' "${4:-p_file = optimized}" >>"$1.ini"
  printf '[optimize]\niterations = 6\nsamples = %s\nthermalize = 50\nwalkers = 2\n' "$3" \
    >>"$1.ini"
}
rows() { grep -v '^#' "$1"; }
energy_is_half() { # results.tsv: the energy column within 1e-5 of 1/2 on every row
  awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == "energy") c = i; h = 1
                                 next }
              { d = $c - 0.5; if (d < 0) d = -d; found = 1; if (d > 1e-5) bad = 1 }
              END { exit !(c && found && !bad) }' "$1"
}

config staged 2000 2000
if "$mcf" run staged.ini --no-progress >staged.stdout 2>staged.err; then
  ok "mcf run with p_file = optimized ran both stages"
else
  bad "mcf run failed"; cat staged.err
fi
s=staged.out/optimize
if [ "$(($(wc -l <$s/optimize.tsv) - 1))" -eq 6 ] && grep -qx "walkers = 2" $s/config.ini &&
   grep -qx "p_file = none" $s/config.ini && grep -qx "output = $s" $s/config.ini &&
   grep -qx "walkers = 4" staged.out/config.ini &&
   grep -qx "p_file = optimized" staged.out/config.ini; then
  ok "DIR/optimize: 6 iterations of 2 walkers from p_file's default; DIR/config.ini keeps optimized"
else
  bad "the stage's folder:"; cat $s/config.ini $s/optimize.tsv
fi
if energy_is_half staged.out/results.tsv &&
   grep -q "p_file = optimized: the parameters of staged.out/optimize/parameters.txt" \
     staged.out/log; then
  ok "the run took the optimized parameters: E = 1/2 (the start's is 0.59)"
else
  bad "the run's energy:"; cat staged.out/results.tsv
fi

# by hand: the same configuration without the key, then p_file = its answer
config hand 2000 2000 "p_file = none"
"$mcf" optimize hand.ini --no-progress >hand.stdout 2>hand.err || { bad "optimize"; cat hand.err; }
"$mcf" run hand.ini --no-progress --set "model.p_file=$PWD/hand.out/parameters.txt" \
  --set run.output=handrun.out >handrun.stdout 2>handrun.err || { bad "run"; cat handrun.err; }
if cmp -s hand.out/parameters.txt $s/parameters.txt &&
   [ "$(rows hand.out/optimize.tsv)" = "$(rows $s/optimize.tsv)" ] &&
   [ -n "$(rows handrun.out/results.tsv)" ] &&
   [ "$(rows handrun.out/results.tsv)" = "$(rows staged.out/results.tsv)" ]; then
  ok "the two stages equal mcf optimize + mcf run --set model.p_file=...: same bytes"
else
  bad "the stages differ from the commands by hand"
  diff hand.out/parameters.txt $s/parameters.txt
  diff <(rows handrun.out/results.tsv) <(rows staged.out/results.tsv)
fi

# stopped in the optimization (after iteration 0's row), resumed
config full 2000 60000
"$mcf" run full.ini --no-progress >/dev/null 2>full.err || { bad "full"; cat full.err; }
config stop 2000 60000
"$mcf" run stop.ini --no-progress >stop.stdout 2>stop.err &
pid=$!
for _ in $(seq 1 1000); do
  [ -f stop.out/optimize/optimize.tsv ] && [ "$(wc -l <stop.out/optimize/optimize.tsv)" -ge 2 ] &&
    break
  sleep 0.02
done
kill -INT $pid 2>/dev/null
wait $pid
st=$?
r=$(($(wc -l <stop.out/optimize/optimize.tsv) - 1))
if [ $st -eq 130 ] && [ $r -lt 6 ] && [ ! -f stop.out/results.tsv ] &&
   grep -q "mcf resume stop.out" stop.err; then
  ok "stopped in the optimization after $r rows; the message names mcf resume stop.out"
else
  bad "the stop in the optimization: exit status $st, $r rows"; cat stop.err
fi
"$mcf" resume stop.out --no-progress >resume.stdout 2>resume.err || { bad "resume"; cat resume.err; }
if cmp -s full.out/optimize/optimize.tsv stop.out/optimize/optimize.tsv &&
   [ "$(rows full.out/results.tsv)" = "$(rows stop.out/results.tsv)" ]; then
  ok "resumed: the uninterrupted run's optimize.tsv and results"
else
  bad "the resumed run differs"; diff full.out/optimize/optimize.tsv stop.out/optimize/optimize.tsv
fi

# stopped in the run after its first checkpoint, resumed
config long 1000000 2000
"$mcf" run long.ini --no-progress >/dev/null 2>long.err || { bad "long"; cat long.err; }
config cut 1000000 2000
"$mcf" run cut.ini --no-progress >cut.stdout 2>cut.err &
pid=$!
for _ in $(seq 1 1500); do [ -f cut.out/checkpoint ] && break; sleep 0.02; done
kill -INT $pid 2>/dev/null
wait $pid
st=$?
"$mcf" resume cut.out --no-progress >cutr.stdout 2>cutr.err || { bad "resume"; cat cutr.err; }
if [ $st -eq 130 ] && grep -q "resumed from the checkpoint" cut.out/log &&
   energy_is_half cut.out/results.tsv &&
   [ "$(rows long.out/results.tsv)" = "$(rows cut.out/results.tsv)" ]; then
  ok "stopped in the run and resumed: the uninterrupted run's rows"
else
  bad "the stop in the run: exit status $st"; cat cut.err cutr.err
fi

# a fresh run over the folder: refused; --force: both stages again, the same rows
"$mcf" run staged.ini --no-progress >again.stdout 2>again.err
st=$?
if [ $st -eq 2 ] && grep -q "mcf resume staged.out" again.err; then
  ok "a fresh run over DIR refused, naming mcf resume"
else
  bad "a fresh run over DIR: exit status $st"; cat again.err
fi
cp staged.out/results.tsv first.tsv
if "$mcf" run staged.ini --no-progress --force >force.stdout 2>force.err &&
   [ "$(rows first.tsv)" = "$(rows staged.out/results.tsv)" ]; then
  ok "--force: both stages again, the same rows"
else
  bad "--force"; cat force.err
fi

# DIR/optimize of another configuration: refused on resume
sed -i 's/^samples = 2000$/samples = 3000/' staged.out/optimize/config.ini
"$mcf" resume staged.out --no-progress >other.stdout 2>other.err
st=$?
if [ $st -eq 2 ] && grep -q "holds an optimization of another configuration" other.err; then
  ok "an optimization of another configuration in DIR/optimize: refused"
else
  bad "another configuration's optimization: exit status $st"; cat other.err
fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
