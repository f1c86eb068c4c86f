#!/usr/bin/env bash
# Bad configurations and input files (issue 17 items 4, 5, 6, 10): each is refused before any
# work, exits non-zero, says where (file, line and key where there is one) and what, and
# leaves the run already in the output folder as it was (results, checkpoint, config.ini):
# the bad runs name that folder with --force.  Nothing hangs: every run has a time limit.
# usage: test_bad_config.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/bad_config
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

head_ini() { # the [run] and [schedule] of a small valid ising run into base
  printf '[run]\nmodel = ising\nseed = 5\noutput = base\n[schedule]\nthermalize = 10\n'
  printf 'sweeps = 64\ntemperatures = 2.0, 3.0\n'
}
{ head_ini; printf '[model]\nL = 4\n'; } >base.ini
"$mcf" run base.ini --no-progress 2>/dev/null || { echo "the base run failed"; exit 1; }
( cd base && md5sum results.tsv checkpoint config.ini ) >base.md5

# refused NAME PATTERN... -- ARGS...: `mcf run ARGS` fails (not by the time limit), its
# message has every pattern, and base is unchanged
refused() {
  local name=$1; shift
  local pats=()
  while [ "$1" != "--" ]; do pats+=("$1"); shift; done
  shift
  timeout 60 "$mcf" run "$@" --no-progress >"$name.out" 2>"$name.err"
  local rc=$?
  if [ $rc -eq 0 ]; then bad "$name: accepted (exit 0)"; return; fi
  if [ $rc -eq 124 ]; then bad "$name: still running after 60 s"; return; fi
  for p in "${pats[@]}"; do
    grep -q -- "$p" "$name.err" || { bad "$name: message lacks '$p':"; cat "$name.err"; return; }
  done
  ( cd base && md5sum -c --quiet ../base.md5 ) >/dev/null 2>&1 ||
    { bad "$name: the run in base changed"; return; }
  ok "$name (exit $rc): $(head -c 220 "$name.err")"
}

# ---- 4: nothing cut short ---------------------------------------------------------------
# a --set value longer than the 4095 bytes it used to be cut at: the whole value is read,
# and refused because config.ini could not hold it on one line for `mcf resume`
long=$(seq -f '2.%g' -s ', ' 1 1200)
refused set_long "command line (--set)" "\[schedule\] temperatures" "config.ini" -- \
  base.ini --force --set "schedule.temperatures=$long"
# a file line that fits (199 characters) but whose config.ini line ("key = value") would not
{ head_ini | grep -v '^temperatures'
  printf 'temperatures=%s\n' "$(printf '2,%.0s' {1..91})2.25"; } >roundtrip.ini
refused roundtrip "roundtrip.ini:8:" "\[schedule\] temperatures" "line of 201" -- \
  roundtrip.ini --force
# a 200-character line is too long, a 199-character one is not ("longer than 199" was said
# of a 199-character line)
{ head_ini; printf ';%0199d\n' 0; } >line200.ini
refused line200 "line200.ini:9:" "longer than 199 characters" -- line200.ini --force
{ head_ini | sed 's/^output = base/output = line199.out/'; printf ';%0198d\n' 0; } >line199.ini
if "$mcf" run line199.ini --no-progress 2>line199.err; then ok "a 199-character line is read"
else bad "a 199-character line refused:"; cat line199.err; fi
# a line break in a --set value would write a line of its own into config.ini
refused set_newline "\-\-set model.h" "line break" -- \
  base.ini --force --set "model.h=1
[run]"

# ---- 5: counts that overflow --------------------------------------------------------------
head_ini | sed 's/^temperatures = .*/temperatures = 1, 2, 3, 4/;
                s/^seed = 5/seed = 5\nwalkers = 4611686018427387904/' >walkers.ini
refused walkers "walkers.ini:4:" "\[run\] walkers = 4611686018427387904" "4 scan points" -- \
  walkers.ini --force
{ head_ini; printf '[model]\nL = 4\nJ = 0:1:1000000\nh = 0:1:5000\n'; } >grid.ini
refused grid "grid.ini:12:" "\[model\] h" "scan grid" -- grid.ini --force
{ head_ini | sed 's/^sweeps = .*/sweeps = 9223372036854775807/'; } >sweeps.ini
refused sweeps "sweeps.ini:7:" "\[schedule\] sweeps" "measurements" -- sweeps.ini --force
# float-to-integer conversions of a linspace: a point beyond long, a point that is inf
{ head_ini; printf '[model]\nL = 2:1e300:3\n'; } >lin_int.ini
refused lin_int "lin_int.ini:10:" "\[model\] L" "outside the integers" -- lin_int.ini --force
{ head_ini; printf '[model]\nJ = -1e308:1e308:3\n'; } >lin_inf.ini
refused lin_inf "lin_inf.ini:10:" "\[model\] J" "not a finite number" -- lin_inf.ini --force
# thermalize = LONG_MAX: the progress line's ETA is large, not negative
{ head_ini | sed 's/^thermalize = .*/thermalize = 9223372036854775807/;
                 s/^output = base/output = eta.out/'; } >eta.ini
"$mcf" run eta.ini --no-progress 2>/dev/null &
pid=$!
for _ in $(seq 100); do grep -q "ETA" eta.out/log 2>/dev/null && break; sleep 0.1; done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
if grep -q "ETA >1000000h" eta.out/log 2>/dev/null && ! grep -q "ETA -" eta.out/log; then
  ok "thermalize = LONG_MAX: $(grep -o 'ETA .*' eta.out/log | head -1)"
else bad "thermalize = LONG_MAX: ETA"; grep ETA eta.out/log; fi

# ---- 6: no endless reads ------------------------------------------------------------------
refused dev_zero "/dev/zero" "not a regular file" -- /dev/zero --force --set run.output=base
mkfifo pipe.ini
refused fifo "pipe.ini" "not a regular file" -- pipe.ini --force --set run.output=base
{ head_ini; for _ in $(seq 11000); do printf ';%099d\n' 0; done; } >huge.ini
refused huge "huge.ini" "bytes" -- huge.ini --force
de() { # the sections of a double-exchange run with [model] spins = $1
  printf '[run]\nmodel = double-exchange\nevaluator = ed\noutput = de.out\n[schedule]\n'
  printf 'thermalize = 0\nsweeps = 32\ntemperatures = 0.1\n[model]\nlattice = square\n'
  printf 'L = 3\nspins = %s\n' "$1"
}
de /dev/zero >spins_zero.ini
refused spins_zero "spins = /dev/zero" "spins_zero.ini" "not a regular file" -- spins_zero.ini
mkfifo fifo.spins
de fifo.spins >spins_fifo.ini
refused spins_fifo "spins = fifo.spins" "not a regular file" -- spins_fifo.ini
printf '0 0 1\n0 0 1\0 garbage\n0 0 1\n0 0 1\n' >nul.spins
de nul.spins >spins_nul.ini
refused spins_nul "nul.spins:2:" "\[model\] spins" "NUL" -- spins_nul.ini
[ -e de.out ] && bad "a refused spins file left de.out" || ok "no de.out"

# ---- 10: silently accepted, misleading messages ------------------------------------------
{ head_ini | sed 's/^temperatures = .*/temperatures = 2.0, inf/'; } >tinf.ini
refused temperature_inf "tinf.ini:8:" "\[schedule\] temperatures" "not finite" -- tinf.ini --force
{ head_ini | sed 's/^seed = 5/seed = 5\x00L = 8/'; } >nul.ini
refused nul_byte "nul.ini:3:" "NUL byte" -- nul.ini --force
{ head_ini | sed 's/^model = ising/model = ising\nevaluator = ed/'; } >ed.ini
refused evaluator_ed "ed.ini:3:" "\[run\] evaluator = ed" "model 'ising' takes no evaluator" -- \
  ed.ini --force
mkdir -p cfgdir
refused directory "cfgdir" "is a directory" -- cfgdir --force --set run.output=base
{ head_ini | sed 's/^seed = 5/  seed = 5/'; } >indent.ini
refused indented "indent.ini:3:" "indented" "\[run\] model (line 2)" -- indent.ini --force
{ head_ini | sed 's/^\[schedule\]/[schedule/'; } >unclosed.ini
refused unclosed "unclosed.ini:5:" "no closing ']'" -- unclosed.ini --force
mkdir -p garbage && head -c 4096 /dev/urandom >garbage/mcf-garbage.so
{ head_ini | sed 's/^model = ising/model = garbage/'; } >garbage.ini
saved=${MCF_PLUGIN_PATH:-}
export MCF_PLUGIN_PATH="$PWD/garbage${saved:+:$saved}"
refused garbage_plugin "garbage.ini:2:" "mcf-garbage.so" "not a loadable plugin" \
  "ELF\|too short" -- garbage.ini --force
export MCF_PLUGIN_PATH="$saved"

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
