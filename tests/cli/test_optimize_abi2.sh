#!/usr/bin/env bash
# `mcf optimize` of a model of ABI 2 (docs/sdk-1.md: `variational` folded into state(),
# `variational_local` into measure()): tests/plugins/test_vmc_model.c, a Gaussian trial
# function exp(-a x^2 - c x) in the harmonic well, whose optimum a = 1/2, c = 0 is the
# ground state (E_L = 1/2 for every x: zero variance), so the checks can be tight.
#  - from a = 0.3, c = 0.2: the last iteration's energy is 1/2 within 1e-6 and its variance
#    below 1e-6 (the first is 0.56 + 0.05: the start's E(a, c) = a/2 + 1/(8a) + c^2/(8a^2)),
#    every iteration accepted;
#  - parameters.txt is the file state() describes, written by the core: the head's two
#    lines, then "width" and "shift" with their values in %.17g, and a run with
#    p_file = that file reads back what it says (E_L = 1/2 within 1e-6);
#  - the same optimization with 1 and 2 threads: the same bytes;
#  - stopped by SIGINT after the row of iteration 0 and resumed (`mcf resume DIR`, which
#    loads each chain's record and sets the parameters from optimize.state): optimize.tsv
#    and every parameters file are the uninterrupted run's, byte for byte;
#  - trial = none (state() gives no parameters and says why): refused, exit status 2, with
#    the model's reason.
# usage: test_optimize_abi2.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/optimize_abi2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# config NAME SAMPLES [THREADS]
config() {
  printf '[run]\nmodel = tvmc\nseed = 5\noutput = %s.out\nwalkers = 4\nthreads = %s\n' \
    "$1" "${3:-2}" >"$1.ini"
  printf '[schedule]\nthermalize = 200\nsweeps = 1000\n' >>"$1.ini"
  printf '[optimize]\niterations = 6\nsamples = %s\nthermalize = 50\n' "$2" >>"$1.ini"
}

config opt 2000
if "$mcf" optimize opt.ini --no-progress >opt.stdout 2>opt.err; then
  ok "optimize of an ABI-2 model ran"
else
  bad "optimize failed"; cat opt.err
fi
tsv=opt.out/optimize.tsv
if [ -f "$tsv" ] && awk -F'\t' 'NR == 1 { next } { n++; last = $0; e = $2; v = $4; s = $9
      if (s != "accepted") bad = 1 }
    NR == 2 && !($2 > 0.55 && $2 < 0.65) { bad = 1 }
    END { d = e - 0.5; if (d < 0) d = -d
          exit !(n == 6 && !bad && d < 1e-6 && v < 1e-6) }' "$tsv"; then
  ok "6 accepted iterations, from 0.59 down to E = 1/2 with zero variance"
else
  bad "optimize.tsv:"; cat "$tsv"
fi

# the file: exactly the head, then a line per group, each value in %.17g
p=opt.out/parameters.txt
if [ -f "$p" ] && [ "$(sed -n 1p "$p")" = "# tvmc trial function exp(-a x^2 - c x)" ] &&
   [ "$(sed -n 2p "$p")" = "# read with [model] p_file" ] && [ "$(wc -l <"$p")" -eq 4 ] &&
   awk 'NR == 3 { w = ($1 == "width" && NF == 2 && $2 > 0.499 && $2 < 0.501) }
        NR == 4 { s = ($1 == "shift" && NF == 2 && $2 > -1e-3 && $2 < 1e-3) }
        END { exit !(w && s) }' "$p"; then
  ok "parameters.txt: head, width ~ 1/2, shift ~ 0"
else
  bad "parameters.txt:"; cat "$p"
fi
# %.17g: the last file's values printed back at 17 digits are the same text
last=opt.out/parameters-005.txt
if [ -f "$last" ] && awk 'NR > 2 { if (sprintf("%.17g", $2 + 0) != $2) exit 1 }' "$last"; then
  ok "values written with 17 significant digits"
else
  bad "values not in %.17g:"; cat "$last"
fi
# read back by the model: E_L = 1/2 within 1e-6 at the optimized parameters
printf '[run]\nmodel = tvmc\nseed = 9\noutput = check.out\n[schedule]\nthermalize = 100\n' \
  >check.ini
printf 'sweeps = 2000\n' >>check.ini
if "$mcf" run check.ini --no-progress --set "model.p_file=$PWD/$last" >check.stdout \
     2>check.err &&
   awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == "energy") c = i; h = 1
                                  next }
               { d = $c - 0.5; if (d < 0) d = -d; found = 1; if (d > 1e-6) bad = 1 }
               END { exit !(c && found && !bad) }' check.out/results.tsv; then
  ok "a run with p_file = parameters-005.txt: E = 1/2"
else
  bad "the parameter file read back:"; cat check.err check.out/results.tsv 2>/dev/null
fi

# threads do not change a byte
config one 2000 1
"$mcf" optimize one.ini --no-progress >/dev/null 2>one.err || { bad "1 thread failed"; cat one.err; }
same=1
for f in optimize.tsv parameters.txt parameters-000.txt parameters-005.txt; do
  cmp -s "opt.out/$f" "one.out/$f" || same=0
done
[ $same = 1 ] && ok "1 and 2 threads: the same files" || bad "1 and 2 threads differ"

# stop after iteration 0's row, resume: the uninterrupted run's bytes
config full 100000
"$mcf" optimize full.ini --no-progress >/dev/null 2>full.err || { bad "full run"; cat full.err; }
config stop 100000
"$mcf" optimize stop.ini --no-progress >stop.stdout 2>stop.err &
pid=$!
for _ in $(seq 1 600); do
  [ -f stop.out/optimize.tsv ] && [ "$(wc -l <stop.out/optimize.tsv)" -ge 2 ] && break
  sleep 0.02
done
kill -INT $pid 2>/dev/null
wait $pid
st=$?
rows=$(($(wc -l <stop.out/optimize.tsv) - 1))
if [ $st -eq 130 ] && [ $rows -lt 6 ]; then
  ok "stopped by SIGINT after $rows rows"
else
  bad "the stop: exit status $st, $rows rows"; cat stop.err
fi
"$mcf" resume stop.out --no-progress >resume.stdout 2>resume.err || { bad "resume"; cat resume.err; }
same=1
for f in optimize.tsv parameters.txt parameters-000.txt parameters-003.txt parameters-005.txt; do
  cmp -s "full.out/$f" "stop.out/$f" || { same=0; echo "differs: $f"; }
done
[ $same = 1 ] && ok "stopped and resumed: the uninterrupted run's files" ||
  bad "the resumed optimization differs"

# no parameters: the model's reason
config none 2000
printf '[model]\ntrial = none\n' >>none.ini
"$mcf" optimize none.ini --no-progress >none.stdout 2>none.err
st=$?
if [ $st -eq 2 ] && grep -q "model tvmc has no variational parameters in this configuration" \
     none.err && grep -q "trial = none has no parameters to optimize; set \[model\] trial = gauss" \
     none.err; then
  ok "trial = none: refused with the model's reason"
else
  bad "trial = none: exit status $st"; cat none.err
fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
