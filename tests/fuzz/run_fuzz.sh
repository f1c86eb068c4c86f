#!/bin/bash
# run_fuzz.sh BUILD SECONDS [TARGET...] — runs each libFuzzer target of BUILD/tests/fuzz for
# SECONDS on a scratch copy of its seed corpus (tests/fuzz/corpus/<name>); exits non-zero
# on the first crash, leak, sanitizer report or timeout, leaving the reproducer in the
# scratch folder it names.  Prints executions per target (the campaign's figures).
set -u
build=${1:?usage: run_fuzz.sh BUILD SECONDS [TARGET...]}
seconds=${2:?usage: run_fuzz.sh BUILD SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=${*:-config results_tsv}
scratch=$(mktemp -d /tmp/mcf-fuzz.XXXXXX)
status=0
for t in $targets; do
    corpus=$here/corpus/${t%_tsv}
    [ "$t" = results_tsv ] && corpus=$here/corpus/results
    mkdir -p "$scratch/$t"
    cp "$corpus"/* "$scratch/$t/"
    echo "fuzz_$t: ${seconds} s, seeds from $corpus"
    if ! (cd "$scratch" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
            -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 "$scratch/$t" \
            > "$scratch/$t.log" 2>&1); then
        echo "FAIL: fuzz_$t (log and reproducer in $scratch)"
        tail -40 "$scratch/$t.log"
        status=1
        continue
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$scratch/$t.log" | sed 's/^/    /'
done
[ "$status" -eq 0 ] && rm -rf "$scratch"
exit "$status"
