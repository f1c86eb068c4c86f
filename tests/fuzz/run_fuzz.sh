#!/bin/bash
# run_fuzz.sh BUILD SECONDS [TARGET...] — runs each libFuzzer target of BUILD/tests/fuzz for
# SECONDS on a scratch copy of its seed corpus (tests/fuzz/corpus/<name>); exits non-zero
# on the first crash, leak, sanitizer report or timeout, leaving the reproducer in the
# scratch folder it names.  Prints executions per target (the campaign's figures).
# fuzz_checkpoint's seeds are written here, by BUILD/bin/mcf running the configurations of
# tests/fuzz/checkpoint (a checkpoint holds its configuration's hash: stored files would go
# stale); an input is a selector byte (which configuration) and the checkpoint.
# fuzz_results_h5's raw seed likewise: the results.h5 that BUILD/bin/mcf writes for
# tests/fuzz/results_h5/kpm.ini (its digest is the build's); its description seeds are stored
# (tests/fuzz/corpus/results_h5).  A build without HDF5 has no fuzz_results_h5: skipped.
# JOBS (environment, default 1): parallel fuzzing processes per target (libFuzzer -jobs).
# KEEP_CORPUS=DIR (environment): each target's corpus at the end is copied to DIR/<target>.
set -u
build=${1:?usage: run_fuzz.sh BUILD SECONDS [TARGET...]}
seconds=${2:?usage: run_fuzz.sh BUILD SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=${*:-config checkpoint results_tsv results_h5}
jobs=${JOBS:-1}
parallel=()
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
scratch=$(mktemp -d /tmp/mcf-fuzz.XXXXXX)
status=0

# checkpoint_seeds DIR: one seed per configuration (selector byte k, then its checkpoint)
checkpoint_seeds() {
    local k=0 name
    mkdir -p "$scratch/seeds"
    for name in stopped tempering fermions; do
        # the `stopped` run ends by its own SIGTERM (exit 143), mid-way, with a checkpoint
        (cd "$scratch/seeds" && MCF_PLUGIN_PATH="$build/tests/plugins:$build/lib/mcf" \
            "$build/bin/mcf" run "$here/checkpoint/$name.ini" --no-progress >/dev/null 2>&1)
        if [ ! -s "$scratch/seeds/fuzz-$name/checkpoint" ]; then
            echo "FAIL: no checkpoint from $here/checkpoint/$name.ini"
            return 1
        fi
        { printf "\\$(printf %o $k)"; cat "$scratch/seeds/fuzz-$name/checkpoint"; } >"$1/$name"
        k=$((k + 1))
    done
    # each seed must resume in the target (else it would fuzz only the refusal of a checkpoint
    # of another configuration, and say nothing)
    local resumed
    resumed=$("$build/tests/fuzz/fuzz_checkpoint" "$1"/* 2>&1 | grep -c "resumed from the checkpoint")
    if [ "$resumed" -lt 3 ]; then
        echo "FAIL: fuzz_checkpoint resumed $resumed of its 3 seeds"
        return 1
    fi
}

# results_h5_seeds DIR: selector 0 and the results.h5 of kpm.ini (mcf dos must read it whole)
results_h5_seeds() {
    mkdir -p "$scratch/seeds"
    (cd "$scratch/seeds" && MCF_PLUGIN_PATH="$build/tests/plugins:$build/lib/mcf" \
        "$build/bin/mcf" run "$here/results_h5/kpm.ini" --no-progress >/dev/null 2>&1)
    local h5=$scratch/seeds/fuzz-results-h5/results.h5
    if [ ! -s "$h5" ]; then
        echo "FAIL: no results.h5 from $here/results_h5/kpm.ini"
        return 1
    fi
    { printf '\0'; cat "$h5"; } >"$1/raw"
    cp "$here"/corpus/results_h5/* "$1/"
}

for t in $targets; do
    mkdir -p "$scratch/$t"
    max_len=8192
    if [ "$t" = results_h5 ] && [ ! -x "$build/tests/fuzz/fuzz_results_h5" ]; then
        echo "fuzz_results_h5: skipped (built without HDF5)"
        continue
    fi
    case $t in
        results_h5) results_h5_seeds "$scratch/$t" || { status=1; continue; }
                    corpus="the results.h5 of $here/results_h5/kpm.ini, $here/corpus/results_h5"
                    max_len=131072 ;;
        checkpoint) checkpoint_seeds "$scratch/$t" || { status=1; continue; }
                    corpus="checkpoints of tests/fuzz/checkpoint/*.ini"; max_len=65536 ;;
        results_tsv) corpus=$here/corpus/results; cp "$corpus"/* "$scratch/$t/" ;;
        *) corpus=$here/corpus/$t; cp "$corpus"/* "$scratch/$t/" ;;
    esac
    echo "fuzz_$t: ${seconds} s, $jobs job(s), seeds from $corpus"
    # -close_fd_mask=3: the target's own output (a resumed run's summary and warnings) is
    # not wanted; libFuzzer's and the sanitizers' reports still come
    if ! (cd "$scratch" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
            -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1 -close_fd_mask=3 \
            "${parallel[@]}" "$scratch/$t" > "$scratch/$t.log" 2>&1); then
        echo "FAIL: fuzz_$t (log and reproducer in $scratch)"
        tail -40 "$scratch/$t.log"
        [ "$jobs" -gt 1 ] && tail -40 "$scratch"/fuzz-*.log
        status=1
        continue
    fi
    if [ "$jobs" -gt 1 ]; then
        # each job prints its own figures, in fuzz-<job>.log
        cat "$scratch"/fuzz-*.log >>"$scratch/$t.log"
        rm -f "$scratch"/fuzz-*.log
    fi
    if [ -n "${KEEP_CORPUS:-}" ]; then
        mkdir -p "$KEEP_CORPUS/$t" && cp "$scratch/$t"/* "$KEEP_CORPUS/$t/"
    fi
    awk '/stat::number_of_executed_units/ { n += $2 } /stat::peak_rss_mb/ { if ($2 > r) r = $2 }
         END { printf "    fuzz_%s: executions: %d, peak RSS %d MB\n", t, n, r }' t="$t" "$scratch/$t.log"
done
[ "$status" -eq 0 ] && rm -rf "$scratch"
exit "$status"
