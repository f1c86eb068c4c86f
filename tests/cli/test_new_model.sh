#!/usr/bin/env bash
# test_new_model.sh MCF SCRATCH — `mcf new-model` (core/program/new_model.c): the skeletons it
# writes build, run, and are right.
#
#  1. the refusals: names that are no plugin name, a folder that exists and is not empty, a
#     file in the way, an unknown option: exit status 2, a message naming the problem, and
#     nothing written; an empty folder is taken;
#  2. the classical skeleton (default folder ./NAME): its files, no placeholder left, NAME.c
#     at most 150 lines with identifiers and a checkpoint tag of NAME's; built by hand against
#     the build tree's SDK with the build's warnings and -Werror; its NAME.ini runs as it is
#     (one results.tsv row per temperature); on a periodic chain of 16 sites its energy and
#     m^2 are within 4 error bars of the exact values, at 3 temperatures, while a run with J
#     5 % off is caught (the comparison can fail);
#  3. the --fermion skeleton: the same, at most 200 lines, NAME.ini (evaluator ed) as it is;
#     on a periodic chain of 4 sites energy, |m|, m^2, density and the specific heat within
#     4 error bars of the exact enumeration of its 16 spin configurations;
#  4. stopped and resumed: a second build of each skeleton stops itself (SIGTERM) mid-run
#     (new_model_stop.h); `mcf resume` ends with the results.tsv of a run that never stopped
#     (the fermion one with kpm, whose random vectors come from the checkpointed measurement
#     stream); a finished run resumed rewrites its checkpoint byte for byte;
#  5. the guide's first page (docs/plugin-guide.md) shows exactly what `mcf new-model
#     my-model` and `mcf new-model my-fermions --fermion` write (its listings are marked
#     "<!-- listing: FILE ... -->"), so the page cannot drift from the skeletons.
#
# Environment (tests/cli/CMakeLists.txt): MCF_TEST_CC (the build's C compiler),
# MCF_TEST_C_FLAGS (its CMAKE_C_FLAGS: a sanitizer build's), MCF_TEST_WARNINGS (its warning
# flags), MCF_TEST_SDK_INCLUDE (the SDK's include folders, ':'-separated), MCF_TEST_LIBMCF
# (libmcf).  The fermion evaluators (ed, kpm) are found beside libmcf.
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
dir=$2/new_model
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0 passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
unset MCF_PLUGIN_PATH

cc=${MCF_TEST_CC:-cc}
read -r -a cflags <<<"${MCF_TEST_C_FLAGS:-}"
read -r -a warnings <<<"${MCF_TEST_WARNINGS:--Wall -Wextra}"
incs=()
IFS=: read -r -a inc_dirs <<<"${MCF_TEST_SDK_INCLUDE:?MCF_TEST_SDK_INCLUDE is not set}"
for d in "${inc_dirs[@]}"; do [ -n "$d" ] && incs+=(-I"$d"); done
libmcf=${MCF_TEST_LIBMCF:?MCF_TEST_LIBMCF is not set}

# build SRC OUT.so [extra flags]: a plugin, as tests/abi builds one against a header folder
build() {
  local src=$1 out=$2
  shift 2
  mkdir -p "$(dirname "$out")"
  "$cc" "${cflags[@]}" -std=c11 -O2 "${warnings[@]}" -Wall -Wextra -Werror -fPIC -shared \
    -fvisibility=hidden "${incs[@]}" "$@" "$src" -o "$out" "$libmcf" -lm >"$out.log" 2>&1
}

# rows FILE: data rows of a results.tsv (comments and the header left out)
rows() { awk '/^#/ || /^[ \t]*$/ { next } { n++ } END { print (n > 0 ? n - 1 : 0) }' "$1"; }

# temperatures INI: how many temperatures its [schedule] lists (a list or first:last:count)
temperatures() {
  awk -F= '/^[ \t]*temperatures[ \t]*=/ { v = $2; gsub(/[ \t]/, "", v)
    if (split(v, p, ":") == 3) print p[3]; else print split(v, q, ","); exit }' "$1"
}

# compare EXACT RESULTS COLUMNS: each column of RESULTS (rows by T) against EXACT's value
# of the same T; prints one line per comparison; exit 1 when one is off by more than 4
# error bars or missing
compare() {
  awk -F'\t' -v cols="$3" '
    FNR == 1 { header = 0; ex = (FILENAME == ARGV[1]) }
    /^#/ || /^[ \t]*$/ { next }
    !header { header = 1; for (i = 1; i <= NF; i++) col[ex, $i] = i; next }
    ex { rows++; for (i = 1; i <= NF; i++) exact[rows, i] = $i; next }
    {
      T = $col[0, "T"]; k = 0
      for (r = 1; r <= rows; r++)
        if (exact[r, col[1, "T"]] - T < 1e-9 && T - exact[r, col[1, "T"]] < 1e-9) k = r
      if (!k) { printf "   no exact row for T = %s\n", T; bad = 1; next }
      n = split(cols, c, " ")
      for (j = 1; j <= n; j++) {
        if (!((0, c[j]) in col) || !((0, c[j] "_err") in col) || !((1, c[j]) in col)) {
          printf "   column %s missing\n", c[j]; bad = 1; continue
        }
        x = $col[0, c[j]]; e = $col[0, c[j] "_err"]; xe = exact[k, col[1, c[j]]]
        z = e > 0 ? (x - xe) / e : 1e9
        printf "   T = %-4s %-14s %11.6f +- %9.6f  exact %11.6f  %6.2f error bars\n", T, c[j],
               x, e, xe, z
        if (!(z <= 4 && z >= -4)) bad = 1
        compared++
      }
    }
    END { exit (bad || !compared) ? 1 : 0 }' "$1" "$2"
}

# stop_resume NAME SO STOP_SO INI AFTER [--set ...]: the run stopped by STOP_SO's SIGTERM at
# proposal AFTER (one thread: the same sweep every time; the core stops at the end of its
# chunk of sweeps, which checkpoint_every bounds), resumed with SO, against SO's
# uninterrupted run
stop_resume() {
  local name=$1 so=$2 stop_so=$3 ini=$4 after=$5
  shift 5
  MCF_PLUGIN_PATH=$so "$mcf" run "$ini" --no-progress --set run.output=whole.out \
    --set run.threads=1 "$@" >whole.txt 2>&1 ||
    { bad "$name: the uninterrupted run"; tail whole.txt; }
  MCF_TEST_STOP_AFTER=$after MCF_PLUGIN_PATH=$stop_so "$mcf" run "$ini" --no-progress \
    --set run.output=stopped.out --set run.threads=1 "$@" >stopped.txt 2>&1
  local rc=$?
  if [ $rc -ne 143 ] || [ -f stopped.out/results.tsv ]; then
    bad "$name: the run was not stopped mid-way by SIGTERM (exit $rc)"; tail -3 stopped.txt
    return
  fi
  local at
  at=$(grep -o 'stopped by signal 15 at sweep [0-9]* of [0-9]*' stopped.txt |
    awk '$7 < $9 { print $7 }')
  [ -n "$at" ] || { bad "$name: no stop before the last sweep"; tail -3 stopped.txt; return; }
  MCF_PLUGIN_PATH=$so "$mcf" resume stopped.out --no-progress >resume.txt 2>&1 ||
    { bad "$name: mcf resume failed"; tail -5 resume.txt; return; }
  grep -q "resumed from the checkpoint at sweep ${at:-?}" stopped.out/log ||
    bad "$name: the resume did not start from the sweep the run stopped at (${at:-none})"
  if cmp -s whole.out/results.tsv stopped.out/results.tsv; then
    ok "$name: stopped at sweep $at, resumed: the results.tsv of the run that never stopped"
  else
    bad "$name: the resumed run's results.tsv differs from the uninterrupted run's"
    diff whole.out/results.tsv stopped.out/results.tsv | head -6
  fi
  cp whole.out/checkpoint whole.checkpoint
  MCF_PLUGIN_PATH=$so "$mcf" resume whole.out --no-progress >/dev/null 2>&1 &&
    cmp -s whole.checkpoint whole.out/checkpoint &&
    ok "$name: a finished run resumed rewrites its checkpoint byte for byte" ||
    bad "$name: the checkpoint of a finished run does not round-trip"
}

# ---- 1. refusals ----------------------------------------------------------------------
"$mcf" --help >help.txt 2>&1 && grep -q "mcf new-model NAME \[--fermion\] \[--dir DIR\]" help.txt &&
  ok "mcf --help lists new-model" || bad "mcf --help does not list new-model"
"$mcf" new-model --help >nm-help.txt 2>&1 && grep -q "usage: mcf new-model" nm-help.txt &&
  ok "mcf new-model --help" || bad "mcf new-model --help"
mkdir refusals && cd refusals || exit 1
k=0
for name in My-Model 1model my_model "my model" "" "-x" mcf mcf-ising; do
  k=$((k + 1))
  mkdir "n$k" && cd "n$k" || exit 1
  "$mcf" new-model "$name" >../out.txt 2>../err.txt
  rc=$? left=$(ls -A)
  cd .. || exit 1
  case $name in
    "") want="the plugin name is empty" ;;
    -x) want="unknown option '-x'" ;;
    mcf*) want="'$name' is not a valid plugin name here" ;;
    *) want="'$name' is not a valid plugin name" ;;
  esac
  if [ $rc -eq 2 ] && grep -qF "$want" err.txt && [ -z "$left" ]; then
    ok "name '$name' refused with exit 2, nothing written: $(head -1 err.txt | cut -c1-80)..."
  else
    bad "name '$name': exit $rc, written: '$left', message: $(cat err.txt)"
  fi
done
mkdir occupied && echo keep >occupied/notes.txt
"$mcf" new-model taken --dir occupied >out.txt 2>err.txt
rc=$?
if [ $rc -eq 2 ] &&
  grep -q "the folder occupied exists and is not empty (it holds notes.txt)" err.txt &&
  [ "$(ls -A occupied)" = notes.txt ] && [ "$(cat occupied/notes.txt)" = keep ]; then
  ok "a folder that is not empty refused with exit 2, naming it and what it holds; untouched"
else bad "a folder that is not empty: exit $rc, $(cat err.txt); holds $(ls -A occupied)"; fi
"$mcf" new-model taken --dir occupied/notes.txt >out.txt 2>err.txt
rc=$?
[ $rc -eq 2 ] && grep -q "occupied/notes.txt exists and is not a folder" err.txt &&
  ok "a file in the way refused with exit 2" || bad "a file in the way: exit $rc, $(cat err.txt)"
"$mcf" new-model taken --fermion --typo >out.txt 2>err.txt
[ $? -eq 2 ] && grep -q "unknown option '--typo'" err.txt && ok "an unknown option: exit 2" ||
  bad "an unknown option: $(cat err.txt)"
mkdir empty
"$mcf" new-model taken --dir empty/ >out.txt 2>err.txt && [ -f empty/taken.c ] &&
  ok "an empty folder is taken" || bad "an empty folder: $(cat err.txt)"
"$mcf" new-model nested --dir a/b/c >out.txt 2>err.txt && [ -f a/b/c/nested.ini ] &&
  ok "--dir a/b/c: the folders are made" || bad "--dir a/b/c: $(cat err.txt)"
cd "$dir" || exit 1

# skeleton NAME FOLDER MAX_LINES [--fermion]: `mcf new-model` into FOLDER (none: ./NAME):
# its four files and nothing else, no placeholder left, NAME.c at most MAX_LINES lines, built
# as so/mcf-NAME.so and (with new_model_stop.h) stop/mcf-NAME.so, and NAME.ini run in FOLDER
# as written: one results.tsv row per temperature
skeleton() {
  local name=$1 folder=$2 max=$3 f
  shift 3
  local args=("$@")
  [ "$folder" != "$name" ] && args+=(--dir "$folder")
  "$mcf" new-model "$name" "${args[@]}" >"new-$name.txt" 2>&1 ||
    { bad "mcf new-model $name $*"; cat "new-$name.txt"; }
  for f in "$name.c" CMakeLists.txt "$name.ini" README.md; do
    [ -s "$folder/$f" ] || bad "$folder/$f was not written"
  done
  [ "$(ls -A "$folder" | wc -l)" = 4 ] && ok "mcf new-model $name $*: $folder/ with 4 files" ||
    bad "$folder/ holds $(ls -A "$folder" | tr '\n' ' ')"
  grep -nE '@[A-Z_]+@' "$folder"/* && bad "placeholders left in $folder/"
  src=$folder/$name.c
  local lines
  lines=$(wc -l <"$src")
  [ "$lines" -le "$max" ] && ok "$src: $lines lines (at most $max)" ||
    bad "$src has $lines lines (more than $max)"
  if build "$src" "so/mcf-$name.so" &&
    build "$src" "stop/mcf-$name.so" -include "$here/new_model_stop.h"; then
    ok "$src builds against the build tree's SDK with the build's warnings and -Werror"
  else
    bad "$src does not build:"; cat "so/mcf-$name.so.log" "stop/mcf-$name.so.log" | head -20
  fi
  (cd "$folder" && MCF_PLUGIN_PATH=$dir/so "$mcf" run "$name.ini" --no-progress >run.txt 2>&1) ||
    { bad "mcf run $name.ini"; tail -5 "$folder/run.txt"; }
  local want results=$folder/$name.out/results.tsv
  want=$(temperatures "$folder/$name.ini")
  if [ -f "$results" ] && [ "$(rows "$results")" = "$want" ]; then
    ok "mcf run $name.ini as written: results.tsv with $want rows"
  else bad "mcf run $name.ini: no results.tsv with $want rows"; fi
}

# ---- 2. the classical skeleton ----------------------------------------------------------
name=my-model
skeleton "$name" "$name" 150
grep -q "^static int my_model_propose(" "$src" && grep -q "{'M', 'Y', 'M', '1'}" "$src" &&
  grep -q 'MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "my-model"' "$src" &&
  grep -q "mcf_add_plugin(my-model my-model.c)" "$name/CMakeLists.txt" &&
  ok "identifiers my_model_*, state tag MYM1, plugin my-model" || bad "the names in $src"

# the periodic chain of L sites, h = 0: <s_0 s_r> = (t^r + t^(L-r)) / (1 + t^L), t = tanh(J/T)
# (seed 2: over 28 seeds the z of T = 1, the slowest, had mean -0.17 and mean square 0.66)
chain=(--set model.lattice=chain --set model.L=16 --set model.h=0 --set schedule.sweeps=50000
       --set "schedule.temperatures=0.5, 1, 2" --set run.seed=2)
awk -v L=16 -v J=1 'BEGIN { print "T\tenergy\tm2"; split("0.5 1 2", Ts, " ")
  for (k = 1; k <= 3; k++) { T = Ts[k]; t = (exp(2 * J / T) - 1) / (exp(2 * J / T) + 1)
    m2 = 0; for (r = 0; r < L; r++) m2 += (t ^ r + t ^ (L - r)) / (1 + t ^ L)
    printf "%s\t%.10f\t%.10f\n", T, -J * (t + t ^ (L - 1)) / (1 + t ^ L), m2 / L } }' >chain.exact
for J in 1 1.05; do
  MCF_PLUGIN_PATH=$dir/so "$mcf" run "$name/$name.ini" --no-progress \
    --set "run.output=chain-$J.out" "${chain[@]}" --set "model.J=$J" >/dev/null 2>&1 ||
    bad "the chain run with J = $J"
done
if compare chain.exact chain-1.out/results.tsv "energy m2"; then
  ok "$name on a periodic chain of 16 sites: energy and m2 within 4 error bars of the exact values"
else bad "$name on a periodic chain: off the exact values"; fi
if compare chain.exact chain-1.05.out/results.tsv "energy m2" >/dev/null; then
  bad "a run with J = 1.05 passes the comparison with J = 1's exact values: it cannot fail"
else ok "a run with J = 1.05 is caught by the same comparison"; fi
mkdir -p resume-classical && cd resume-classical || exit 1
stop_resume "$name" "$dir/so" "$dir/stop" "$dir/$name/$name.ini" 80000 "${chain[@]}" \
  --set schedule.checkpoint_every=1000
cd "$dir" || exit 1

# ---- 3. the fermion skeleton ------------------------------------------------------------
name=spin-fermion
skeleton "$name" fermion 200 --fermion
! grep -q "MCF_WANT_ABI" "$src" && grep -q "{'S', 'P', 'I', '1'}" "$src" &&
  grep -q "^static int spin_fermion_measure(" "$src" && grep -q "^evaluator = ed" "${src%.c}.ini" &&
  ok "no MCF_WANT_ABI (ABI 2 is the default), identifiers spin_fermion_*, state tag SPI1," \
     "evaluator = ed" ||
  bad "the names in $src, or its evaluator"

# exact enumeration, periodic chain of 4 sites: for every s, the levels of H_f(s) (Jacobi),
# weight exp(h sum s / T) prod (1 + exp(-(eps - mu) / T)); the specific heat d<e>/dT at
# fixed mu by a central difference
fpar=(t=1 g=1.5 h=0.2 mu=0.3)
awk -v n=4 -v "${fpar[0]}" -v "${fpar[1]}" -v "${fpar[2]}" -v "${fpar[3]}" '
  function jacobi(   p, q, k, it, off, th, tt, c, s, x, y) {
    for (it = 0; it < 60; it++) {
      off = 0
      for (p = 0; p < n; p++) for (q = p + 1; q < n; q++) off += A[p, q] ^ 2
      if (off < 1e-28) return
      for (p = 0; p < n; p++) for (q = p + 1; q < n; q++) {
        if (A[p, q] ^ 2 < 1e-40) continue
        th = (A[q, q] - A[p, p]) / (2 * A[p, q])
        tt = (th >= 0 ? 1 : -1) / ((th >= 0 ? th : -th) + sqrt(th * th + 1))
        c = 1 / sqrt(tt * tt + 1); s = tt * c
        for (k = 0; k < n; k++) {
          x = A[k, p]; y = A[k, q]; A[k, p] = c * x - s * y; A[k, q] = s * x + c * y
        }
        for (k = 0; k < n; k++) {
          x = A[p, k]; y = A[q, k]; A[p, k] = c * x - s * y; A[q, k] = s * x + c * y
        }
      }
    }
  }
  function averages(T,   cfg, i, j, sum, lw, w, ef, nf, f, m, Z) {
    Z = 0; for (j in AV) delete AV[j]
    for (cfg = 0; cfg < 2 ^ n; cfg++) {
      lw = 0; ef = 0; nf = 0; m = 0
      for (i = 0; i < n; i++) m += S[cfg, i]
      lw = h * m / T
      for (i = 0; i < n; i++) {
        eps = EV[cfg, i]; lw += log(1 + exp(-(eps - mu) / T))
        f = 1 / (exp((eps - mu) / T) + 1); ef += eps * f; nf += f
      }
      w = exp(lw); Z += w; m /= n
      AV["energy"] += w * (ef - h * m * n) / n; AV["density"] += w * nf / n
      AV["abs_m"] += w * (m < 0 ? -m : m); AV["m2"] += w * m * m
    }
    for (j in AV) AV[j] /= Z
  }
  BEGIN {
    for (cfg = 0; cfg < 2 ^ n; cfg++) {
      for (i = 0; i < n; i++) for (j = 0; j < n; j++) A[i, j] = 0
      for (i = 0; i < n; i++) {
        S[cfg, i] = int(cfg / 2 ^ i) % 2 ? 1 : -1; A[i, i] = g * S[cfg, i]
        A[i, (i + 1) % n] = -t; A[(i + 1) % n, i] = -t
      }
      jacobi()
      for (i = 0; i < n; i++) EV[cfg, i] = A[i, i]
    }
    print "T\tenergy\tabs_m\tm2\tdensity\tspecific_heat"
    split("0.3 1", Ts, " ")
    for (k = 1; k <= 2; k++) {
      T = Ts[k]; d = 1e-4 * T
      averages(T + d); up = AV["energy"]; averages(T - d); down = AV["energy"]
      averages(T)
      printf "%s\t%.10f\t%.10f\t%.10f\t%.10f\t%.10f\n", T, AV["energy"], AV["abs_m"], AV["m2"],
             AV["density"], (up - down) / (2 * d)
    }
  }' >fermion.exact
fset=(--set model.lattice=chain --set model.L=4 --set schedule.thermalize=1000
      --set schedule.sweeps=20000 --set "schedule.temperatures=0.3, 1")
for p in "${fpar[@]}"; do fset+=(--set "model.$p"); done
MCF_PLUGIN_PATH=$dir/so "$mcf" run "fermion/$name.ini" --no-progress --set run.output=fexact.out \
  "${fset[@]}" >/dev/null 2>&1 || bad "the fermion run on the 4-site chain"
if compare fermion.exact fexact.out/results.tsv "energy abs_m m2 density specific_heat"; then
  ok "$name with ed on a periodic 4-site chain: within 4 error bars of the exact enumeration"
else bad "$name on the 4-site chain: off the exact enumeration"; fi
mkdir -p resume-fermion && cd resume-fermion || exit 1
stop_resume "$name (kpm)" "$dir/so" "$dir/stop" "$dir/fermion/$name.ini" 9000 \
  --set run.evaluator=kpm --set evaluator.moments=64 --set schedule.thermalize=100 \
  --set schedule.sweeps=600 --set "schedule.temperatures=0.5, 1" --set schedule.checkpoint_every=100
cd "$dir" || exit 1

# 5. the guide's listings
guide=$here/../../docs/plugin-guide.md
"$mcf" new-model my-model --dir guide/my-model >/dev/null 2>&1 &&
  "$mcf" new-model my-fermions --fermion --dir guide/my-fermions >/dev/null 2>&1 ||
  bad "new-model for the guide's listings"
for f in my-model my-fermions; do
  awk -v want="$f.c" '/^<!-- listing: / { on = ($3 == want); fence = 0; next }
    on && /^```/ { if (fence++) exit; next } on && fence == 1 { print }' "$guide" >"guide/$f.listing"
  if [ -s "guide/$f.listing" ] && cmp -s "guide/$f.listing" "guide/$f/$f.c"; then
    ok "docs/plugin-guide.md shows $f.c as mcf new-model writes it"
  else
    bad "docs/plugin-guide.md's listing of $f.c differs from mcf new-model's (diff below)"
    diff "guide/$f.listing" "guide/$f/$f.c" | head -20
  fi
done

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
