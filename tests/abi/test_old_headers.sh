#!/usr/bin/env bash
# test_old_headers.sh MCF OLD_SO NEW_SO SCRATCH_DIR OLD_HEADERS [OLD_DEPFILE]
#
# ABI compatibility: OLD_SO is the XY plugin (tests/abi/xy-9bc1cb7.c) built against the frozen
# previous SDK headers OLD_HEADERS (tests/abi/sdk-9bc1cb7-headers, from commit 9bc1cb7); NEW_SO
# is the same source built against today's headers.  With today's program MCF:
#
#   1. the old plugin was compiled against the snapshot only (OLD_DEPFILE, the compiler's
#      dependency file of its object, when given and present)
#   2. `mcf plugins` / `mcf describe xy` with MCF_PLUGIN_PATH=<old dir> load the OLD file,
#      with <new dir> the new one, and both describe the same parameters and observables
#   3. the same short XY temperature scan runs to the end with each plugin
#   4. the two results.tsv are identical byte for byte (every line of results.tsv is
#      deterministic: no timings, paths or dates; the same seed gives the same bytes)
#
# Each step says what it checks; a failure names the step and exits 1.
set -u

if [ $# -lt 5 ] || [ $# -gt 6 ]; then
    echo "usage: $0 MCF OLD_SO NEW_SO SCRATCH_DIR OLD_HEADERS [OLD_DEPFILE]" >&2
    exit 2
fi
mcf=$1
old_so=$2
new_so=$3
scratch=$4
old_headers=$5
depfile=${6:-}
step_name="setup"

step() {
    step_name=$1
    echo "== $step_name"
}

fail() {
    echo "FAILED at step '$step_name': $*" >&2
    exit 1
}

# run LOG cmd args... — runs the command with its output in LOG; on failure shows the
# command and the last 40 lines of LOG and fails the step.
run() {
    local log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "---- command: $*" >&2
        echo "---- last lines of $log:" >&2
        tail -n 40 "$log" >&2
        fail "the command above failed (full output in $log)"
    fi
}

# The caller's plugin path must not leak into the checks.
unset MCF_PLUGIN_PATH

step "prepare a fresh scratch folder $scratch"
case $scratch in
    "" | "/") fail "refusing to use '$scratch' as the scratch folder" ;;
esac
rm -rf "$scratch" || fail "cannot remove the old $scratch"
mkdir -p "$scratch" || fail "cannot create $scratch"
[ -x "$mcf" ] || fail "no mcf program at $mcf (build the target mcf-program)"
[ -f "$old_so" ] || fail "no old plugin at $old_so (build the target mcf-abi-xy-old)"
[ -f "$new_so" ] || fail "no new plugin at $new_so (build the target mcf-abi-xy-new)"
[ -f "$old_headers/mcf/mcf.h" ] || fail "no frozen SDK headers at $old_headers/mcf/"
old_dir=$(cd "$(dirname "$old_so")" && pwd)
new_dir=$(cd "$(dirname "$new_so")" && pwd)
[ "$old_dir" != "$new_dir" ] || fail "the old and new plugins are in the same folder $old_dir"
echo "   mcf: $mcf"
echo "   old plugin (previous SDK headers): $old_so"
echo "   new plugin (today's SDK headers):  $new_so"

# ---------------------------------------------------------------------------------------
step "1. the old plugin was compiled against the frozen headers only"
if [ -n "$depfile" ] && [ -f "$depfile" ]; then
    # every SDK header (a path ending in mcf/<name>.h) the compiler read
    sdk=$(tr -s '[:space:]' '\n' <"$depfile" | grep -E '/mcf/[A-Za-z0-9_]+\.h$' | sort -u)
    [ -n "$sdk" ] || fail "$depfile names no mcf/*.h header at all"
    real_old=$(cd "$old_headers" && pwd -P)
    foreign=""
    for h in $sdk; do
        real_h=$(cd "$(dirname "$h")" && pwd -P)/$(basename "$h")
        case $real_h in
            "$real_old"/mcf/*) ;;
            *) foreign="$foreign $h" ;;
        esac
    done
    [ -z "$foreign" ] ||
        fail "the old plugin read SDK headers outside $old_headers:$foreign (its include path must be the snapshot only, not core/sdk/include)"
    echo "   $(echo "$sdk" | wc -l) SDK headers, all from $old_headers/mcf"
else
    echo "   not checked: no dependency file ${depfile:-(none given)}"
fi

# ---------------------------------------------------------------------------------------
step "2. mcf plugins / mcf describe xy load the old file from $old_dir and the new one from $new_dir"
for which in old new; do
    if [ $which = old ]; then dir=$old_dir; else dir=$new_dir; fi
    MCF_PLUGIN_PATH=$dir run "$scratch/plugins-$which.log" "$mcf" plugins
    awk '$1 == "xy" { found = 1 } END { exit found ? 0 : 1 }' "$scratch/plugins-$which.log" ||
        { cat "$scratch/plugins-$which.log" >&2; fail "'mcf plugins' with MCF_PLUGIN_PATH=$dir does not list xy"; }
    MCF_PLUGIN_PATH=$dir run "$scratch/describe-$which.log" "$mcf" describe xy
    grep -qF "$dir/mcf-xy.so" "$scratch/describe-$which.log" ||
        { cat "$scratch/describe-$which.log" >&2; fail "'mcf describe xy' with MCF_PLUGIN_PATH=$dir did not load $dir/mcf-xy.so"; }
    # the same text with the file's path taken out, for the comparison below
    sed "s|$dir/mcf-xy.so|PLUGIN|g" "$scratch/describe-$which.log" >"$scratch/describe-$which.txt"
    echo "   $which: $(head -n 1 "$scratch/describe-$which.log")"
done
if ! cmp -s "$scratch/describe-old.txt" "$scratch/describe-new.txt"; then
    diff "$scratch/describe-old.txt" "$scratch/describe-new.txt" >&2
    fail "'mcf describe xy' differs between the old and the new plugin (beyond the file path)"
fi
echo "   mcf describe xy: the same parameters and observables from both"

# ---------------------------------------------------------------------------------------
step "3. the same short XY scan (L=8, 4 temperatures, seed 11, 2 threads) with each plugin"
for which in old new; do
    if [ $which = old ]; then dir=$old_dir; else dir=$new_dir; fi
    out=$scratch/xy-$which.out
    cat >"$scratch/xy-$which.ini" <<EOF
[run]
model = xy
seed = 11
output = $out
threads = 2
[schedule]
thermalize = 100
sweeps = 300
measure_every = 1
checkpoint_every = 100
temperatures = 0.6:1.2:4
[model]
L = 8
EOF
    MCF_PLUGIN_PATH=$dir run "$scratch/xy-$which-run.log" "$mcf" run "$scratch/xy-$which.ini"
    [ -s "$out/results.tsv" ] || fail "the run with the $which plugin wrote no $out/results.tsv"
    rows=$(awk '/^#/ || /^[ \t]*$/ { next } { n++ } END { print (n > 0 ? n - 1 : 0) }' "$out/results.tsv")
    [ "$rows" = 4 ] || { cat "$out/results.tsv" >&2; fail "$out/results.tsv ($which plugin) has $rows data rows; expected 4, one per temperature"; }
    echo "   $which: $out/results.tsv, $rows rows"
done

# ---------------------------------------------------------------------------------------
step "4. results.tsv of the old plugin = results.tsv of the new plugin, byte for byte"
old_tsv=$scratch/xy-old.out/results.tsv
new_tsv=$scratch/xy-new.out/results.tsv
if ! cmp "$old_tsv" "$new_tsv"; then
    echo "---- diff old new:" >&2
    diff "$old_tsv" "$new_tsv" | head -n 40 >&2
    fail "the plugin built against the previous SDK headers gives other results than the same source built against today's"
fi
echo "   identical: $(wc -c <"$old_tsv") bytes, $(wc -l <"$old_tsv") lines"

echo "== all steps passed"
exit 0
