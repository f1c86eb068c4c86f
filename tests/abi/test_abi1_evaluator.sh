#!/usr/bin/env bash
# test_abi1_evaluator.sh --mcf MCF --scratch DIR --tree SRC [--compile-dir DIR] [--ninja NINJA]
#                        --frozen SO SOURCES HEADERS OBJDIR --today SO
#                        --run INI "FILE..."  (one or more times)
#                        [--today-added KEY]  (zero or more times)
#
# A computing ABI-1 fermion evaluator under today's models (tests/abi/README.md, abi_ed_abi1).
# --frozen: the plugin file SO (mcf-ed.so, alone in its folder) built from the frozen
# sources SOURCES/*.c (ed-0.6.0/: plugins/ed as it was at ABI 1) with the frozen SDK headers
# HEADERS/mcf/*.h only; OBJDIR is its CMake object folder, where the compiler's dependency
# files (*.o.d) lie (relative paths in them are relative to --compile-dir, the compiler's
# working folder; Ninja keeps none: with --ninja, `NINJA -t deps` in --compile-dir, the
# build folder, gives the same lists).  SRC is the source tree.  --today: today's ed (ABI
# 2), found by MCF without MCF_PLUGIN_PATH.  With today's program MCF:
#
#   1. the frozen build was compiled from every SOURCES/*.c, and every file of the source
#      tree SRC it read lies in SOURCES or HEADERS (so every mcf/*.h is HEADERS/mcf's, and
#      no file of plugins/ed or core/sdk/include was read); HEADERS say ABI 1
#   2. `mcf describe ed` loads --today without MCF_PLUGIN_PATH and the frozen SO with
#      MCF_PLUGIN_PATH=its folder, where `mcf plugins` lists ed and the models; both have the
#      same parameters and defaults
#   3. each INI runs twice, in DIR/NAME/abi2 with today's ed and in DIR/NAME/abi1 with the
#      frozen ed first in MCF_PLUGIN_PATH, the output given relatively (run.output=out); each
#      run wrote the FILEs and a checkpoint (with exchange_every > 0: and tempered)
#   4. the two runs of each INI wrote the same *.tsv and checkpoint files, byte for byte
#
# --today-added KEY: an [evaluator] key that today's ed added after the frozen one, at a
# default that keeps the frozen ed's numbers; step 2 leaves it out of the comparison of the
# parameters (abi_ed_abi1: eigensolver, default gsl, the complex solver the frozen ed calls)
#
# Each step says what it checks; a failure names the step (and the file) and exits 1.
set -u

usage() {
    sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

mcf="" scratch="" tree="" compile_dir=. ninja="" so="" srcdir="" hdrs="" objdir="" today=""
inis=() wants=() added=" "
while [ $# -gt 0 ]; do
    case $1 in
        --mcf) [ $# -ge 2 ] || usage; mcf=$2; shift 2 ;;
        --scratch) [ $# -ge 2 ] || usage; scratch=$2; shift 2 ;;
        --tree) [ $# -ge 2 ] || usage; tree=$2; shift 2 ;;
        --compile-dir) [ $# -ge 2 ] || usage; compile_dir=$2; shift 2 ;;
        --ninja) [ $# -ge 2 ] || usage; ninja=$2; shift 2 ;;
        --frozen)
            [ $# -ge 5 ] || usage
            so=$2 srcdir=$3 hdrs=$4 objdir=$5
            shift 5 ;;
        --today) [ $# -ge 2 ] || usage; today=$2; shift 2 ;;
        --run) [ $# -ge 3 ] || usage; inis+=("$2"); wants+=("$3"); shift 3 ;;
        --today-added) [ $# -ge 2 ] || usage; added="$added$2 "; shift 2 ;;
        *) echo "unknown argument '$1'" >&2; usage ;;
    esac
done
if [ -z "$mcf" ] || [ -z "$scratch" ] || [ -z "$tree" ] || [ -z "$so" ] || [ -z "$today" ] ||
    [ ${#inis[@]} = 0 ]; then
    usage
fi
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

# real FILE — FILE's absolute path with its folders' links resolved
real() {
    echo "$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")"
}

# data_rows FILE — number of data rows (lines after the header that are not comments).
data_rows() {
    awk '/^#/ || /^[ \t]*$/ { next } { n++ } END { print (n > 0 ? n - 1 : 0) }' "$1"
}

# loaded LOG — the plugin file that `mcf describe` names in its first line:
# "ed 1.0 (fermion-evaluator plugin, /path/mcf-ed.so)"
loaded() {
    head -n 1 "$1" | sed -n 's/^.* plugin, \(.*\))$/\1/p'
}

# The caller's plugin path must not leak into the checks.
unset MCF_PLUGIN_PATH

step "prepare a fresh scratch folder $scratch"
case $scratch in
    "" | "/") fail "refusing to use '$scratch' as the scratch folder" ;;
esac
rm -rf "$scratch" || fail "cannot remove the old $scratch"
mkdir -p "$scratch" || fail "cannot create $scratch"
scratch=$(cd "$scratch" && pwd)
[ -x "$mcf" ] || fail "no mcf program at $mcf (build the target mcf-program)"
[ -d "$compile_dir" ] || fail "no compile folder $compile_dir"
[ -d "$tree" ] || fail "no source tree $tree"
[ -f "$so" ] || fail "no frozen plugin file $so (build the target mcf-abi-ed-0.6.0)"
[ -f "$today" ] || fail "no plugin file of today's ed $today (build the target mcf-ed)"
[ "$(basename "$so")" = mcf-ed.so ] || fail "$so is not named mcf-ed.so"
[ -f "$hdrs/mcf/mcf.h" ] || fail "no SDK headers at $hdrs/mcf/"
frozen_dir=$(cd "$(dirname "$so")" && pwd -P)
others=$(cd "$frozen_dir" && ls mcf-*.so | grep -vx mcf-ed.so)
[ -z "$others" ] || fail "$frozen_dir holds other plugins than mcf-ed.so: $others"
[ "$(real "$so")" != "$(real "$today")" ] || fail "the frozen and today's ed are one file $so"
for ini in "${inis[@]}"; do
    [ -f "$ini" ] || fail "no run configuration $ini"
done
srcdir=$(cd "$srcdir" && pwd -P) || fail "no frozen source folder"
hdrs=$(cd "$hdrs" && pwd -P)
tree=$(cd "$tree" && pwd -P)
echo "   frozen: $so"
echo "   today:  $today; mcf: $mcf"

# ---------------------------------------------------------------------------------------
step "1. the frozen ed was compiled from $srcdir against $hdrs only"
abi=$(awk '$1 == "#define" && $2 == "MCF_ABI_VERSION" { print $3 + 0 }' "$hdrs/mcf/version.h")
[ "$abi" = 1 ] || fail "$hdrs/mcf/version.h says MCF_ABI_VERSION ${abi:-(none)}, not 1"
grep -q '\.abi_version = MCF_ABI_VERSION,' "$srcdir/ed.c" ||
    fail "$srcdir/ed.c does not declare .abi_version = MCF_ABI_VERSION (the headers' ABI 1)"
# one list of dependencies per object: the dependency files, or ninja's record
depfiles=$(find "$objdir" -name '*.o.d' -print 2>/dev/null | sort)
lists=()
names=()
if [ -n "$depfiles" ]; then
    for d in $depfiles; do
        lists+=("$(tr -s '[:space:]' '\n' <"$d" | grep -vx '[\\]')")
        names+=("$d")
    done
elif [ -n "$ninja" ]; then
    objs=$(find "$objdir" -name '*.o' -print 2>/dev/null | sort)
    [ -n "$objs" ] || fail "no object files under $objdir"
    for obj in $objs; do
        rel=${obj#"$(cd "$compile_dir" && pwd)"/}
        words=$(cd "$compile_dir" && "$ninja" -t deps "$rel" | tr -s '[:space:]' '\n') ||
            fail "'$ninja -t deps $rel' in $compile_dir failed"
        lists+=("$words")
        names+=("ninja's record of $rel")
    done
else
    fail "no dependency files under $objdir, and no --ninja: cannot say what the build read"
fi
compiled=""
nsdk=0
for ((i = 0; i < ${#lists[@]}; i++)); do
    words=${lists[i]} what=${names[i]} srcs="" sdk=0
    # all of its files resolved by one realpath (one subshell a file took ~20 s of the test)
    resolved=$(echo "$words" | grep -E '\.[ch]$' |
        (cd "$compile_dir" && xargs -r -d '\n' realpath -e --) 2>/dev/null) ||
        fail "$what: cannot resolve every file it names"
    while IFS= read -r p; do
        case $p in
            "$srcdir"/*.c) srcs="$srcs ${p##*/}" ;;
            "$hdrs"/mcf/*.h) sdk=$((sdk + 1)) ;;
            "$srcdir"/*.h) ;;
            */mcf/*.h) fail "$what: the build read the SDK header $p, outside $hdrs/mcf" ;;
            "$tree"/*)
                fail "$what: the build read $p of the source tree, outside $srcdir and $hdrs" ;;
        esac
    done <<<"$resolved"
    set -- $srcs
    [ $# = 1 ] || fail "$what names not one source of $srcdir but:${srcs:- none}"
    [ "$sdk" -gt 0 ] || fail "$what names no header of $hdrs/mcf at all"
    compiled="$compiled $1"
    nsdk=$((sdk > nsdk ? sdk : nsdk))
done
for c in "$srcdir"/*.c; do
    echo "$compiled " | grep -q " ${c##*/} " ||
        fail "no dependency record of an object compiled from $c under $objdir"
done
echo "   compiled:$compiled (${#lists[@]} objects), up to $nsdk SDK headers each," \
     "all from $hdrs/mcf (ABI $abi)"

# ---------------------------------------------------------------------------------------
step "2. mcf describe ed loads today's ed by default and the frozen one from MCF_PLUGIN_PATH"
# structure FILE — the parameters (name = default) of a describe text
structure() {
    awk '/^parameters/ { p = 1; next } /^[^ ]/ { p = 0 }
         p && /^  [A-Za-z_][A-Za-z0-9_]* +=/ { print $1, $3 }' "$1"
}
run "$scratch/describe-abi2.log" "$mcf" describe ed
got=$(loaded "$scratch/describe-abi2.log")
[ -n "$got" ] && [ "$(real "$got")" = "$(real "$today")" ] ||
    fail "'mcf describe ed' without MCF_PLUGIN_PATH loaded '$got', not today's ed $today"
MCF_PLUGIN_PATH=$frozen_dir run "$scratch/describe-abi1.log" "$mcf" describe ed
got=$(loaded "$scratch/describe-abi1.log")
[ -n "$got" ] && [ "$(real "$got")" = "$frozen_dir/mcf-ed.so" ] ||
    fail "'mcf describe ed' with MCF_PLUGIN_PATH=$frozen_dir loaded '$got'," \
         "not $frozen_dir/mcf-ed.so"
MCF_PLUGIN_PATH=$frozen_dir run "$scratch/plugins-abi1.log" "$mcf" plugins
models=$(for ini in "${inis[@]}"; do
             awk -F'=' '$1 ~ /^[ \t]*model[ \t]*$/ { gsub(/[ \t]/, "", $2); print $2 }' "$ini"
         done | sort -u)
for name in ed $models; do
    awk -v m="$name" '$1 == m { found = 1 } END { exit found ? 0 : 1 }' \
        "$scratch/plugins-abi1.log" ||
        fail "'mcf plugins' with MCF_PLUGIN_PATH=$frozen_dir does not list $name"
done
structure "$scratch/describe-abi2.log" | awk -v added="$added" 'index(added, " " $1 " ") == 0' \
    >"$scratch/structure-abi2.txt"
structure "$scratch/describe-abi1.log" >"$scratch/structure-abi1.txt"
[ -s "$scratch/structure-abi2.txt" ] || fail "'mcf describe ed' shows no parameters"
if ! cmp -s "$scratch/structure-abi2.txt" "$scratch/structure-abi1.txt"; then
    diff "$scratch/structure-abi2.txt" "$scratch/structure-abi1.txt" >&2
    fail "the frozen ed has other [evaluator] parameters or defaults than today's"
fi
echo "   default: $(head -n 1 "$scratch/describe-abi2.log")"
echo "   MCF_PLUGIN_PATH=$frozen_dir: $(head -n 1 "$scratch/describe-abi1.log")"
echo "   both: $(tr '\n' ' ' <"$scratch/structure-abi1.txt")"

# ---------------------------------------------------------------------------------------
# the compared files of a run's output: *.tsv, then the checkpoint(s)
listing() {
    (cd "$1" && ls -1 | grep -E '\.tsv$' | sort)
    (cd "$1" && ls -1 | grep -E '^checkpoint' | sort)
}
names=()
for ini in "${inis[@]}"; do
    name=$(basename "$ini" .ini)
    for o in "${names[@]}"; do
        [ "$o" != "$name" ] || fail "two configurations named $name"
    done
    names+=("$name")
done

step "3. each configuration runs with today's ed (abi2) and with the frozen ed (abi1)"
for ((i = 0; i < ${#inis[@]}; i++)); do
    ini=${inis[i]} name=${names[i]}
    for v in abi2 abi1; do
        dir=$scratch/$name/$v
        mkdir -p "$dir" || fail "cannot create $dir"
        if [ $v = abi1 ]; then
            (cd "$dir" && MCF_PLUGIN_PATH=$frozen_dir run run.log "$mcf" run "$ini" \
                --set run.output=out --no-progress) || exit 1
        else
            (cd "$dir" && run run.log "$mcf" run "$ini" --set run.output=out --no-progress) ||
                exit 1
        fi
        out=$dir/out
        for f in ${wants[i]} checkpoint; do
            [ -s "$out/$f" ] || fail "$name: the run with the $v ed wrote no $out/$f"
        done
        n=$(data_rows "$out/results.tsv")
        [ "$n" -gt 0 ] || fail "$name: $out/results.tsv ($v) has no data rows"
        if grep -Eq '^[ \t]*exchange_every[ \t]*=[ \t]*[1-9]' "$ini"; then
            grep -q 'tempering exchange acceptance' "$out/log" ||
                fail "$name: $out/log ($v) reports no tempering exchanges"
        fi
        echo "   $name, $v: $(listing "$out" | tr '\n' ' ')($n rows)"
    done
done

# ---------------------------------------------------------------------------------------
step "4. the frozen ed's results, curves and checkpoint are today's, byte for byte"
for ((i = 0; i < ${#inis[@]}; i++)); do
    name=${names[i]}
    ref=$scratch/$name/abi2/out out=$scratch/$name/abi1/out
    files=$(listing "$ref")
    theirs=$(listing "$out")
    [ "$files" = "$theirs" ] ||
        fail "$name: the frozen ed's run wrote ${theirs//$'\n'/ }, today's ${files//$'\n'/ }"
    for f in $files; do
        if ! cmp "$ref/$f" "$out/$f"; then
            case $f in
                *.tsv) echo "---- diff abi2 abi1 of $name/$f:" >&2
                       diff "$ref/$f" "$out/$f" | head -n 40 >&2 ;;
            esac
            fail "$name: $f of the frozen ed's run ($out/$f) differs from today's ed's ($ref/$f)"
        fi
    done
    echo "   $name: identical $(for f in $files; do printf '%s (%s bytes) ' "$f" \
        "$(wc -c <"$ref/$f")"; done)"
done

echo "== all steps passed"
exit 0
