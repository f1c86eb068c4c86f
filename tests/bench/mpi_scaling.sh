#!/usr/bin/env bash
# mpi_scaling.sh — strong and weak scaling of a double-exchange scan over MPI ranks on one
# host (issue 8), CPU evaluator kpm, one thread per rank.
#
#   tests/bench/mpi_scaling.sh [MCF_BINARY]     (an MPI build: cmake -DMCF_MPI=ON; default
#                                                build-mpi/bin/mcf; builds nothing)
#
# The scan is examples/de-scan.ini made the open 4^3 cube at mu = 0 (its main job until
# 2026-11; the numbers in docs/benchmarks.md are of it), measured every sweep, no tempering
# (GFMC on the contour with M = 256 moments)
# with SWEEPS sweeps after THERM thermalization sweeps and no checkpoint but the final one;
# wall time of the whole `mpirun ... mcf run` (start-up, gathers and files included).  One
# thread per rank (OMP_NUM_THREADS=1: the kpm evaluator's own OpenMP loops stay serial), and
# the single-process reference with OMP_NUM_THREADS = P, so both use P cores.
#   strong: 16 temperatures x 2 walkers = 32 chains, P = 1, 2, 4, 8, 16 ranks;
#           speedup T(1) / T(P), efficiency T(1) / (P T(P)).  For reference the same job as
#           one process with P OpenMP threads, and whether its results.tsv is the same bytes.
#   weak:   PER_RANK temperatures per rank (P PER_RANK chains); efficiency T(1) / T(P).
# Environment: SWEEPS (40), THERM (10), PER_RANK (2), PLIST ("1 2 4 8 16"),
# MPIRUN ("mpirun --oversubscribe").
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcf=${1:-build-mpi/bin/mcf}
[ -x "$mcf" ] || mcf="$root/$mcf"
[ -x "$mcf" ] || { echo "mpi_scaling.sh: no mcf binary at ${1:-build-mpi/bin/mcf}" >&2; exit 1; }
sweeps=${SWEEPS:-40}
therm=${THERM:-10}
walkers=2
plist=${PLIST:-1 2 4 8 16}
mpirun=${MPIRUN:-mpirun --oversubscribe}
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi_scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

common="--set schedule.sweeps=$sweeps --set schedule.thermalize=$therm
        --set schedule.checkpoint_every=0 --force --set model.L=4 --set model.mu=0
        --set schedule.measure_every=1 --set schedule.exchange_every=0"
now() { date +%s.%N; }
elapsed() { awk -v end="$1" -v start="$2" 'BEGIN { printf "%.2f", end - start }'; }  # END START

echo "mcf: $mcf; host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "job: examples/de-scan.ini, $sweeps sweeps after $therm, kpm (CPU), one thread per rank"
echo
echo "strong scaling: 16 temperatures x $walkers walkers = $((16 * walkers)) chains"
echo "| ranks P | wall s | speedup | efficiency | OpenMP threads = P instead: wall s | same bytes |"
echo "|---|---|---|---|---|---|"
t1=""
for p in $plist; do
    out="$tmp/s$p"
    a=$(now)
    $mpirun -np "$p" -x OMP_NUM_THREADS=1 "$mcf" run "$root/examples/de-scan.ini" $common \
        --set run.threads=1 --set run.walkers="$walkers" --set schedule.temperatures=0.08:0.30:16 --set run.output="$out" > "$out.txt" 2>&1 ||
        { echo "mpi_scaling.sh: the run with P = $p failed:" >&2; tail -5 "$out.txt" >&2; exit 1; }
    b=$(now)
    t=$(elapsed "$b" "$a")
    a=$(now)
    OMP_NUM_THREADS=$p "$mcf" run "$root/examples/de-scan.ini" $common --set run.threads="$p" \
        --set run.walkers="$walkers" --set schedule.temperatures=0.08:0.30:16 --set run.output="$out-omp" > "$out-omp.txt" 2>&1
    b=$(now)
    to=$(elapsed "$b" "$a")
    same=$(cmp -s "$out/results.tsv" "$out-omp/results.tsv" && echo yes || echo NO)
    [ -n "$t1" ] || t1=$t
    awk -v p="$p" -v t="$t" -v t1="$t1" -v to="$to" -v s="$same" 'BEGIN {
        printf "| %d | %.2f | %.2f | %.0f%% | %.2f | %s |\n", p, t, t1 / t, 100 * t1 / (p * t), to, s }'
done

echo
per=${PER_RANK:-2}
echo "weak scaling: $per temperatures (chains) per rank"
echo "| ranks P | chains | wall s | efficiency |"
echo "|---|---|---|---|"
w1=""
for p in $plist; do
    n=$(( p * per ))
    out="$tmp/w$p"
    a=$(now)
    $mpirun -np "$p" -x OMP_NUM_THREADS=1 "$mcf" run "$root/examples/de-scan.ini" $common \
        --set run.threads=1 --set schedule.temperatures="0.08:0.30:$n" --set run.output="$out" > "$out.txt" 2>&1 ||
        { echo "mpi_scaling.sh: the weak run with P = $p failed:" >&2; tail -5 "$out.txt" >&2; exit 1; }
    b=$(now)
    t=$(elapsed "$b" "$a")
    [ -n "$w1" ] || w1=$t
    awk -v p="$p" -v n="$n" -v t="$t" -v w1="$w1" 'BEGIN {
        printf "| %d | %d | %.2f | %.0f%% |\n", p, n, t, 100 * w1 / t }'
done
