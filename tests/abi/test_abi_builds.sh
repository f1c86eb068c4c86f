#!/usr/bin/env bash
# test_abi_builds.sh --mcf MCF --scratch DIR --model NAME --ini FILE --rows N
#                    [--compile-dir DIR] [--ninja NINJA]
#                    [--exact PROGRAM [--exact-arg ARG]... --exact-columns "COL..."]
#                    --build LABEL SO SOURCE HEADERS OBJDIR  (two or more times)
#
# ABI compatibility of builds of one model (tests/abi/README.md).  Each --build is one
# plugin file SO (named mcf-NAME.so, alone in its folder) compiled from SOURCE with the
# SDK headers HEADERS/mcf/*.h only (a frozen snapshot, or today's SDK folder); OBJDIR is
# its CMake object folder, where the compiler's dependency file (*.o.d) lies (relative paths
# in it are relative to --compile-dir, the compiler's working folder: with ccache's
# CCACHE_BASEDIR they are; default the current folder).  Ninja keeps no dependency files:
# with --ninja, `NINJA -t deps` in --compile-dir (the build folder) gives the same list.
# The FIRST
# build is the reference.  With today's program MCF:
#
#   1. every build was compiled from its SOURCE against its HEADERS only (the dependency
#      file: every mcf/*.h it read lies in HEADERS/mcf)
#   2. `mcf plugins` lists NAME and `mcf describe NAME` loads the build's own file; builds
#      of the same SOURCE describe themselves identically (beyond the path), and every
#      build has the reference's parameters (with defaults) and observables
#   3. the same short run (INI, output set per build) succeeds with each build; results.tsv
#      has N data rows
#   4. every build wrote the same files as the reference, byte for byte: results.tsv, the
#      curve files (every other *.tsv) and the checkpoint (the chains' final state)
#   5. with --exact: PROGRAM ARG... prints exact values (a results.tsv-like table, a column
#      T); each column of --exact-columns in the reference's results.tsv lies within 4 of
#      its error bars of the exact value at every T (by 4., every build's does)
#
# Each step says what it checks; a failure names the step and exits 1.
set -u

usage() {
    sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

mcf="" scratch="" model="" ini="" rows="" exact="" exact_cols="" compile_dir=. ninja=""
exact_args=() labels=() sos=() srcs=() hdrs=() objdirs=()
while [ $# -gt 0 ]; do
    case $1 in
        --mcf) [ $# -ge 2 ] || usage; mcf=$2; shift 2 ;;
        --scratch) [ $# -ge 2 ] || usage; scratch=$2; shift 2 ;;
        --model) [ $# -ge 2 ] || usage; model=$2; shift 2 ;;
        --ini) [ $# -ge 2 ] || usage; ini=$2; shift 2 ;;
        --rows) [ $# -ge 2 ] || usage; rows=$2; shift 2 ;;
        --compile-dir) [ $# -ge 2 ] || usage; compile_dir=$2; shift 2 ;;
        --ninja) [ $# -ge 2 ] || usage; ninja=$2; shift 2 ;;
        --exact) [ $# -ge 2 ] || usage; exact=$2; shift 2 ;;
        --exact-arg) [ $# -ge 2 ] || usage; exact_args+=("$2"); shift 2 ;;
        --exact-columns) [ $# -ge 2 ] || usage; exact_cols=$2; shift 2 ;;
        --build)
            [ $# -ge 6 ] || usage
            labels+=("$2"); sos+=("$3"); srcs+=("$4"); hdrs+=("$5"); objdirs+=("$6")
            shift 6 ;;
        *) echo "unknown argument '$1'" >&2; usage ;;
    esac
done
if [ -z "$mcf" ] || [ -z "$scratch" ] || [ -z "$model" ] || [ -z "$ini" ] || [ -z "$rows" ]; then
    usage
fi
nb=${#labels[@]}
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

# in_compile_dir PATH — PATH of a dependency file, absolute and resolved
in_compile_dir() {
    case $1 in
        /*) real "$1" ;;
        *) (cd "$compile_dir" && real "$1") ;;
    esac
}

# data_rows FILE — number of data rows (lines after the header that are not comments).
data_rows() {
    awk '/^#/ || /^[ \t]*$/ { next } { n++ } END { print (n > 0 ? n - 1 : 0) }' "$1"
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
[ -f "$ini" ] || fail "no run configuration $ini"
[ -d "$compile_dir" ] || fail "no compile folder $compile_dir"
[ "$nb" -ge 2 ] || fail "$nb builds given; the comparison needs two or more"
if [ -n "$exact" ]; then
    [ -x "$exact" ] || fail "no exact program at $exact"
    [ -n "$exact_cols" ] || fail "--exact without --exact-columns"
fi
dirs=()
for ((b = 0; b < nb; b++)); do
    label=${labels[b]} so=${sos[b]}
    case $label in
        "" | *[!A-Za-z0-9._-]*) fail "build label '$label': use letters, digits, '.', '_', '-'" ;;
    esac
    for ((o = 0; o < b; o++)); do
        [ "${labels[o]}" != "$label" ] || fail "two builds are labelled $label"
    done
    [ -f "$so" ] || fail "build $label: no plugin file $so"
    [ "$(basename "$so")" = "mcf-$model.so" ] ||
        fail "build $label: $so is not named mcf-$model.so (the core finds model $model by that name)"
    [ -f "${srcs[b]}" ] || fail "build $label: no source ${srcs[b]}"
    [ -f "${hdrs[b]}/mcf/mcf.h" ] || fail "build $label: no SDK headers at ${hdrs[b]}/mcf/"
    dirs+=("$(cd "$(dirname "$so")" && pwd)")
    for ((o = 0; o < b; o++)); do
        [ "${dirs[o]}" != "${dirs[b]}" ] ||
            fail "builds ${labels[o]} and $label are in the same folder ${dirs[b]}"
    done
    ver=$(awk '$1 == "#define" && $2 ~ /^MCF_(VERSION_(MAJOR|MINOR|PATCH)|ABI_VERSION)$/ {
               v[$2] = $3 } END { printf "SDK %s.%s.%s, ABI %s", v["MCF_VERSION_MAJOR"],
               v["MCF_VERSION_MINOR"], v["MCF_VERSION_PATCH"], v["MCF_ABI_VERSION"] + 0 }' \
          "${hdrs[b]}/mcf/version.h")
    printf '   %-3s %-12s %s\n' "$((b + 1))." "$label" "$(basename "${srcs[b]}") with $ver (${hdrs[b]})"
done
echo "   reference: ${labels[0]}; mcf: $mcf"

# ---------------------------------------------------------------------------------------
step "1. every build was compiled from its source against its SDK headers only"
for ((b = 0; b < nb; b++)); do
    label=${labels[b]}
    depfiles=$(find "${objdirs[b]}" -name '*.o.d' -print 2>/dev/null)
    if [ -n "$depfiles" ]; then
        [ "$(echo "$depfiles" | wc -l)" = 1 ] ||
            fail "build $label: more than one dependency file under ${objdirs[b]}: $depfiles"
        words=$(tr -s '[:space:]' '\n' <"$depfiles" | grep -vx '[\\]')
    elif [ -n "$ninja" ]; then
        obj=$(find "${objdirs[b]}" -name '*.o' -print 2>/dev/null)
        if [ -z "$obj" ] || [ "$(echo "$obj" | wc -l)" != 1 ]; then
            fail "build $label: not one object file under ${objdirs[b]}: ${obj:-none}"
        fi
        rel=${obj#"$(cd "$compile_dir" && pwd)"/}
        words=$(cd "$compile_dir" && "$ninja" -t deps "$rel" | tr -s '[:space:]' '\n') ||
            fail "build $label: '$ninja -t deps $rel' in $compile_dir failed"
        depfiles="ninja's record of $rel"
    else
        echo "   $label: not checked, no dependency file under ${objdirs[b]}"
        continue
    fi
    src_real=$(real "${srcs[b]}") found_src=0
    while IFS= read -r f; do
        [ "$(in_compile_dir "$f" 2>/dev/null)" = "$src_real" ] && found_src=1
    done < <(echo "$words" | grep -E '\.c$')
    [ $found_src = 1 ] || fail "build $label: $depfiles does not name its source ${srcs[b]}"
    # every SDK header (a path ending in mcf/<name>.h) the compiler read
    sdk=$(echo "$words" | grep -E '/mcf/[A-Za-z0-9_]+\.h$' | sort -u)
    [ -n "$sdk" ] || fail "build $label: $depfiles names no mcf/*.h header at all"
    hdr_real=$(cd "${hdrs[b]}" && pwd -P)
    foreign=""
    for h in $sdk; do
        case $(in_compile_dir "$h" 2>/dev/null) in
            "$hdr_real"/mcf/*) ;;
            *) foreign="$foreign $h" ;;
        esac
    done
    [ -z "$foreign" ] ||
        fail "build $label read SDK headers outside ${hdrs[b]}:$foreign (its include path must be that folder only)"
    echo "   $label: $(basename "${srcs[b]}"), $(echo "$sdk" | wc -l) SDK headers, all from ${hdrs[b]}/mcf"
done

# ---------------------------------------------------------------------------------------
step "2. mcf plugins / mcf describe $model load each build's own file"
# structure FILE — the parameters (name = default) and observables of a describe text
structure() {
    awk '/^  [A-Za-z_][A-Za-z0-9_]*( |$)/ { print $1, ($2 == "=" ? $3 : "") }' "$1"
}
for ((b = 0; b < nb; b++)); do
    label=${labels[b]} dir=${dirs[b]}
    MCF_PLUGIN_PATH=$dir run "$scratch/plugins-$label.log" "$mcf" plugins
    awk -v m="$model" '$1 == m { found = 1 } END { exit found ? 0 : 1 }' "$scratch/plugins-$label.log" ||
        { cat "$scratch/plugins-$label.log" >&2; fail "'mcf plugins' with MCF_PLUGIN_PATH=$dir does not list $model"; }
    MCF_PLUGIN_PATH=$dir run "$scratch/describe-$label.log" "$mcf" describe "$model"
    grep -qF " $dir/mcf-$model.so)" "$scratch/describe-$label.log" ||
        { head -n 3 "$scratch/describe-$label.log" >&2; fail "'mcf describe $model' with MCF_PLUGIN_PATH=$dir did not load $dir/mcf-$model.so"; }
    sed "s|$dir/mcf-$model.so|PLUGIN|g; s|$dir|PLUGIN_DIR|g" "$scratch/describe-$label.log" \
        >"$scratch/describe-$label.txt"
    structure "$scratch/describe-$label.txt" >"$scratch/structure-$label.txt"
    [ -s "$scratch/structure-$label.txt" ] ||
        fail "'mcf describe $model' of $label shows no parameters or observables"
    if ! cmp -s "$scratch/structure-${labels[0]}.txt" "$scratch/structure-$label.txt"; then
        diff "$scratch/structure-${labels[0]}.txt" "$scratch/structure-$label.txt" >&2
        fail "build $label has other parameters, defaults or observables than ${labels[0]}"
    fi
    same=""
    for ((o = 0; o < b; o++)); do
        if [ "$(real "${srcs[o]}")" = "$(real "${srcs[b]}")" ]; then
            if ! cmp -s "$scratch/describe-${labels[o]}.txt" "$scratch/describe-$label.txt"; then
                diff "$scratch/describe-${labels[o]}.txt" "$scratch/describe-$label.txt" >&2
                fail "'mcf describe $model' differs between $label and ${labels[o]}, builds of one source (beyond the path)"
            fi
            same=", described as ${labels[o]}"
            break
        fi
    done
    echo "   $label: $(head -n 1 "$scratch/describe-$label.log")$same"
done

# ---------------------------------------------------------------------------------------
step "3. the same run ($(basename "$ini")) with each build"
# Each run's output is the folder 'out' of its own folder, given relatively: config.ini
# and the checkpoint record the output path, so they too are the same bytes.
for ((b = 0; b < nb; b++)); do
    label=${labels[b]} dir=${dirs[b]}
    mkdir -p "$scratch/$label" || fail "cannot create $scratch/$label"
    (cd "$scratch/$label" && MCF_PLUGIN_PATH=$dir run run.log "$mcf" run "$ini" \
        --set run.output=out) || exit 1
    out=$scratch/$label/out
    [ -s "$out/results.tsv" ] || fail "the run with $label wrote no $out/results.tsv"
    [ -s "$out/checkpoint" ] || fail "the run with $label wrote no $out/checkpoint"
    n=$(data_rows "$out/results.tsv")
    [ "$n" = "$rows" ] || { cat "$out/results.tsv" >&2; fail "$out/results.tsv ($label) has $n data rows; expected $rows"; }
    echo "   $label: $out/results.tsv, $n rows"
done

# ---------------------------------------------------------------------------------------
step "4. every build wrote the reference's (${labels[0]}) results, curves and checkpoint, byte for byte"
ref=$scratch/${labels[0]}/out
# results.tsv first, then the curves, the checkpoint last: the first difference is the telling one
listing() {
    echo results.tsv
    for f in "$1"/*.tsv; do
        [ "${f##*/}" = results.tsv ] || echo "${f##*/}"
    done
    echo checkpoint
}
files=$(listing "$ref")
for ((b = 1; b < nb; b++)); do
    label=${labels[b]} out=$scratch/${labels[b]}/out
    theirs=$(listing "$out")
    [ "$files" = "$theirs" ] ||
        fail "$label wrote the files ${theirs//$'\n'/ }, the reference ${labels[0]} ${files//$'\n'/ }"
    for f in $files; do
        if ! cmp "$ref/$f" "$out/$f"; then
            case $f in
                *.tsv) echo "---- diff ${labels[0]} $label:" >&2
                       diff "$ref/$f" "$out/$f" | head -n 40 >&2 ;;
            esac
            fail "$f of build $label differs from that of the reference ${labels[0]}"
        fi
    done
    echo "   $label = ${labels[0]}: ${files//$'\n'/ }"
done
echo "   identical: $(for f in $files; do printf '%s %s bytes; ' "$f" "$(wc -c <"$ref/$f")"; done)"

# ---------------------------------------------------------------------------------------
if [ -n "$exact" ]; then
    step "5. the reference's results against the exact values ($(basename "$exact") ${exact_args[*]})"
    run "$scratch/exact.tsv" "$exact" "${exact_args[@]}"
    # z = (mcf - exact) / (mcf's error): all within 4 (Student's t with ~31 degrees of
    # freedom from ~32-64 blocks or 32 jackknife bins: P(|z| > 4) ~ 4e-4 each), while a
    # wrong model or formula is many error bars off.
    awk -F'\t' -v cols="$exact_cols" -v rows="$rows" '
        FNR == 1 { header = 0; ex = (FILENAME == ARGV[1]) }
        /^#/ || /^[ \t]*$/ { next }
        !header { header = 1; for (i = 1; i <= NF; i++) col[ex, $i] = i; next }
        ex { n_ex++; for (i = 1; i <= NF; i++) exact[n_ex, i] = $i; next }
        {
            T = $col[0, "T"]; k = 0
            for (r = 1; r <= n_ex; r++)
                if (exact[r, col[1, "T"]] - T < 1e-9 && T - exact[r, col[1, "T"]] < 1e-9) k = r
            if (!k) { printf "   no exact row for T = %s\n", T; bad = 1; next }
            n = split(cols, c, " ")
            for (j = 1; j <= n; j++) {
                if (!((0, c[j]) in col) || !((0, c[j] "_err") in col) || !((1, c[j]) in col)) {
                    printf "   column %s missing\n", c[j]; bad = 1; continue
                }
                x = $col[0, c[j]]; e = $col[0, c[j] "_err"]; xe = exact[k, col[1, c[j]]]
                z = e > 0 ? (x - xe) / e : 1e9
                printf "   T = %-5s %-15s mcf %11.6f +- %9.6f  exact %11.6f  %6.2f error bars\n",
                    T, c[j], x, e, xe, z
                if (!(z <= 4 && z >= -4)) bad = 1
                compared++
            }
        }
        END {
            want = split(cols, c, " ") * rows
            if (compared != want) printf "   %d comparisons; expected %d\n", compared, want
            exit (bad || compared != want) ? 1 : 0
        }' "$scratch/exact.tsv" "$ref/results.tsv" ||
        fail "${labels[0]}: more than 4 error bars from the exact values, or a column or row missing"
fi

echo "== all steps passed"
exit 0
