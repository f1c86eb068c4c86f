#!/usr/bin/env bash
# mpi_gpu_scaling.sh — chains over several GPUs of one host, one MPI rank per GPU (issue 23):
# strong and weak scaling of the double-exchange scan (kpm-cuda) and of VMC (blip-cuda),
# results against one rank, and a stopped run resumed on another number of GPUs.
#
#   tests/bench/mpi_gpu_scaling.sh [MCF_BINARY]   (an MPI + CUDA build: cmake -DMCF_MPI=ON;
#                                                  default build-mpi/bin/mcf; builds nothing)
#
# scale:  examples/de-scan-large.ini (6^3 and 8^3, 8 temperatures) with evaluator =
#         kpm-cuda, THERM + SWEEPS sweeps, no checkpoint but the final one; strong: 4
#         walkers (64 chains) on P = 1 and each P of PLIST, speedup T(1) / T(P); weak: 4 P
#         walkers, efficiency T(1) / T(P).  results.tsv of the strong runs against P = 1.
# vmc:    examples/vmc-heg.ini with blip-cuda, 100 + VSWEEPS sweeps, 16 walkers (strong)
#         and 16 P (weak).
# resume: examples/de-scan.ini with kpm-cuda, 100 + 3000 sweeps, a checkpoint every 100:
#         stopped (SIGTERM to one rank) on the largest P and resumed on 1 rank, and the
#         reverse; results.tsv and the checkpoint against the uninterrupted 1-rank run.
# During every run `nvidia-smi --query-compute-apps` is sampled every 2 s: the GPUs (bus ids)
# the ranks used.  Wall time of the whole `mpirun ... mcf run` (start-up included).
# Environment: PLIST ("2": the GPU counts besides 1), STEPS ("scale vmc resume"), SWEEPS
# (100), THERM (20), VSWEEPS (20000), THREADS (16: OpenMP threads a rank of the scan, the
# same for every P), MPIRUN ("mpirun --bind-to none"), KPM (kpm-cuda) and BLIP
# (blip-cuda): kpm and blip run the same steps on the CPU (a check of the script).
# docs/benchmarks.md ("On two GPUs", "On four GPUs") has the results: 2 and 4 H200.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcf=${1:-build-mpi/bin/mcf}
[ -x "$mcf" ] || mcf="$root/$mcf"
[ -x "$mcf" ] || { echo "mpi_gpu_scaling.sh: no mcf binary at ${1:-build-mpi/bin/mcf}" >&2; exit 1; }
plist=${PLIST:-2}
steps=" ${STEPS:-scale vmc resume} "
mpirun=${MPIRUN:-mpirun --bind-to none}
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
command -v nvidia-smi > /dev/null || { echo "skipped: no device (nvidia-smi not found)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi_gpu_scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
elapsed() { awk -v end="$1" -v start="$2" 'BEGIN { printf "%.2f", end - start }'; }  # END START
# monitor FILE: samples the processes on the GPUs into FILE until killed; prints its pid
monitor() {
    (while sleep 2; do
        nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv,noheader >> "$1"
    done) > /dev/null 2>&1 &
    echo $!
}
gpus_seen() { cut -d, -f2 "$1" 2> /dev/null | sort -u | tr -d ' ' | tr '\n' ' '; }
# timed P NAME CONFIG ARGS...: one mpirun of `mcf run`; prints "seconds|gpus"
timed() {
    local p=$1 name=$2 ini=$3
    shift 3
    local out="$tmp/$name" a b pid
    : > "$out.gpus"
    pid=$(monitor "$out.gpus")
    a=$(now)
    $mpirun -np "$p" "$mcf" run "$root/examples/$ini" --no-progress "$@" \
        --set run.output="$out" > "$out.txt" 2>&1
    local rc=$?
    b=$(now)
    kill "$pid" 2> /dev/null
    [ $rc = 0 ] || { echo "mpi_gpu_scaling.sh: $name failed:" >&2; tail -5 "$out.txt" >&2; exit 1; }
    echo "$(elapsed "$b" "$a")|$(gpus_seen "$out.gpus")"
}

echo "mcf: $mcf; host: $(nproc) cores; $(nvidia-smi -L | wc -l) GPU(s): $(nvidia-smi -L | head -1)"
if [[ $steps == *" scale "* ]]; then
    sc="--set run.evaluator=${KPM:-kpm-cuda} --set schedule.thermalize=${THERM:-20}
        --set schedule.sweeps=${SWEEPS:-100} --set schedule.checkpoint_every=0
        --set run.threads=${THREADS:-16}"
    echo
    echo "de-scan-large, ${KPM:-kpm-cuda}: | ranks P | walkers | chains | wall s | speedup or efficiency | GPUs seen | results.tsv = P 1 |"
    echo "|---|---|---|---|---|---|---|"
    r=$(timed 1 s1 de-scan-large.ini $sc --set run.walkers=4) || exit 1
    t1=${r%%|*}
    echo "| 1 | 4 | 64 | $t1 | | ${r#*|} | |"
    for p in $plist; do
        r=$(timed "$p" "s$p" de-scan-large.ini $sc --set run.walkers=4) || exit 1
        t=${r%%|*}
        same=$(cmp -s "$tmp/s1/results.tsv" "$tmp/s$p/results.tsv" && echo yes || echo NO)
        awk -v p="$p" -v t="$t" -v t1="$t1" -v g="${r#*|}" -v s="$same" 'BEGIN {
            printf "| %d | 4 | 64 | %.2f | strong %.2fx, %.0f%% | %s | %s |\n", p, t, t1 / t,
                   100 * t1 / (p * t), g, s }'
        r=$(timed "$p" "w$p" de-scan-large.ini $sc --set run.walkers=$((4 * p))) || exit 1
        t=${r%%|*}
        awk -v p="$p" -v t="$t" -v t1="$t1" -v g="${r#*|}" 'BEGIN {
            printf "| %d | %d | %d | %.2f | weak %.0f%% | %s | |\n", p, 4 * p, 64 * p, t,
                   100 * t1 / t, g }'
    done
fi
if [[ $steps == *" vmc "* ]]; then
    vc="--set run.evaluator=${BLIP:-blip-cuda} --set schedule.thermalize=100
        --set schedule.sweeps=${VSWEEPS:-20000} --set schedule.checkpoint_every=0 --set run.threads=16"
    echo
    echo "vmc-heg, ${BLIP:-blip-cuda}: | ranks P | walkers | wall s | speedup or efficiency | GPUs seen | results.tsv = P 1 |"
    echo "|---|---|---|---|---|---|"
    r=$(timed 1 v1 vmc-heg.ini $vc --set run.walkers=16) || exit 1
    t1=${r%%|*}
    echo "| 1 | 16 | $t1 | | ${r#*|} | |"
    for p in $plist; do
        r=$(timed "$p" "v$p" vmc-heg.ini $vc --set run.walkers=16) || exit 1
        t=${r%%|*}
        same=$(cmp -s "$tmp/v1/results.tsv" "$tmp/v$p/results.tsv" && echo yes || echo NO)
        awk -v p="$p" -v t="$t" -v t1="$t1" -v g="${r#*|}" -v s="$same" 'BEGIN {
            printf "| %d | 16 | %.2f | strong %.2fx, %.0f%% | %s | %s |\n", p, t, t1 / t,
                   100 * t1 / (p * t), g, s }'
        r=$(timed "$p" "vw$p" vmc-heg.ini $vc --set run.walkers=$((16 * p))) || exit 1
        t=${r%%|*}
        awk -v p="$p" -v t="$t" -v t1="$t1" -v g="${r#*|}" 'BEGIN {
            printf "| %d | %d | %.2f | weak %.0f%% | %s | |\n", p, 16 * p, t, 100 * t1 / t, g }'
    done
fi
if [[ $steps == *" resume "* ]]; then
    rc_="--set run.evaluator=${KPM:-kpm-cuda} --set schedule.thermalize=100 --set schedule.sweeps=3000
         --set schedule.checkpoint_every=100 --set run.threads=8"
    pmax=1
    for p in $plist; do [ "$p" -gt "$pmax" ] && pmax=$p; done
    echo
    timed 1 r0 de-scan.ini $rc_ > /dev/null || exit 1
    for pair in "$pmax 1 ra" "1 $pmax rb"; do
        set -- $pair
        d="$tmp/$3"
        $mpirun -np "$1" "$mcf" run "$root/examples/de-scan.ini" --no-progress $rc_ \
            --set run.output="$d" > "$d.txt" 2>&1 &
        job=$!
        for _ in $(seq 300); do [ -e "$d/checkpoint" ] && break; sleep 0.2; done
        sleep 2
        pkill -TERM -o -f "^$mcf run $root/examples/de-scan.ini" # one rank: the job stops
        wait $job
        stop=$(grep -o 'stopped by signal [0-9]* at sweep [0-9]*' "$d/log" | head -1)
        $mpirun -np "$2" "$mcf" resume "$d" --no-progress > "$d.resume.txt" 2>&1 ||
            { echo "mpi_gpu_scaling.sh: resume on $2 failed" >&2; tail -5 "$d.resume.txt" >&2; exit 1; }
        same=$(cmp -s "$tmp/r0/results.tsv" "$d/results.tsv" && echo yes || echo NO)
        echo "run on $1 GPU(s) ${stop:-(not stopped: it finished first)}; resumed on $2:" \
             "results.tsv = the uninterrupted 1-rank run's: $same"
    done
fi
