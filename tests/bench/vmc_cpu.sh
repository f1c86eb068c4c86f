#!/usr/bin/env bash
# vmc_cpu.sh — time per VMC sweep of the Slater-Jastrow model and its breakdown (issue 5).
#
#   tests/bench/vmc_cpu.sh [MCF_BINARY]        (default build/bin/mcf; builds nothing)
#
# Short runs (SWEEPS sweeps after THERM thermalization sweeps, one measurement per sweep,
# jastrow = rpa, r_s = 1, seed 5) for the unpolarized closed shells N = 54, 114, 246 with
# [run] evaluator = planewave and blip, with MCF_TIMING=1 so that the model logs its timing
# line (see models/slater-jastrow/sj_timing.c); prints one table row per run, parsed
# from the output folder's log.  Outputs go to a temporary directory (removed at exit unless
# KEEP=1).  Environment: SWEEPS (200), THERM (50), SIZES ("54 114 246"),
# EVALUATORS ("planewave blip"; NAME:DETS sets [model] determinants = DETS, e.g.
# blip-cuda:model keeps the Slater matrices on the host, blip-cuda:auto on the device),
# THREADS ([run] threads, default 0 = all cores), WALKERS ([run] walkers, default 1: with W
# walkers the per-sweep columns are per walker, the chain's share of the batched calls),
# MEASURE_EVERY ([schedule] measure_every, default 1), DELAY ([model] delay), and a third
# field of an evaluator sets [model] sweep (blip-cuda:evaluator:core moves through the
# core's loop, one decision at a time on the host; blip-cuda:evaluator alone takes sweep =
# auto, the whole sweep on the device).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcf=${1:-build/bin/mcf}
[ -x "$mcf" ] || mcf="$root/$mcf"
[ -x "$mcf" ] || { echo "vmc_cpu.sh: no mcf binary at ${1:-build/bin/mcf}" >&2; exit 1; }
sweeps=${SWEEPS:-200}
therm=${THERM:-50}
sizes=${SIZES:-54 114 246}
evaluators=${EVALUATORS:-planewave blip}
threads=${THREADS:-0}
walkers=${WALKERS:-1}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmc_cpu.XXXXXX")
[ "${KEEP:-0}" = 1 ] && echo "outputs kept in $tmp" || trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/vmc.ini" <<INI
[run]
model = slater-jastrow
evaluator = planewave
seed = 5
threads = $threads
walkers = $walkers
output = $tmp/out

[schedule]
thermalize = $therm
sweeps = $sweeps
measure_every = ${MEASURE_EVERY:-1}

[model]
system = heg
electrons = 54
rs = 1
jastrow = rpa
move = pbp
INI

echo "mcf: $mcf"
echo "runs: $sweeps sweeps after $therm thermalization, one measurement per sweep, jastrow = rpa, r_s = 1, MCF_TIMING=1"
echo
printf '| N | evaluator | threads | ms/sweep | orbitals | det. ratios | updates | Jastrow | Ewald | ms/measurement | vgl | det. (meas.) | Jastrow (meas.) | Ewald (meas.) |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for n in $sizes; do
    for spec in $evaluators; do
        ev=${spec%%:*}
        dets=auto
        by=auto
        [ "$spec" = "$ev" ] || dets=${spec#*:}
        case $dets in *:*) by=${dets#*:}; dets=${dets%%:*} ;; esac
        out="$tmp/n$n-$ev-$dets-$by"
        if ! MCF_TIMING=1 "$mcf" run "$tmp/vmc.ini" --set "model.electrons=$n" \
            --set "run.evaluator=$ev" --set "model.determinants=$dets" \
            --set "model.sweep=$by" ${DELAY:+--set "model.delay=$DELAY"} \
            --set "run.output=$out" > "$out.stdout" 2> "$out.stderr"; then
            echo "vmc_cpu.sh: the run N = $n, evaluator = $ev failed:" >&2
            tail -5 "$out.stderr" >&2
            exit 1
        fi
        used=$(sed -n 's/.*chains, seed [0-9]*, \([0-9]*\) threads.*/\1/p' "$out/log" | head -1)
        line=$(grep 'slater-jastrow timing chain 0:' "$out/log" | head -1)
        [ -n "$line" ] || { echo "vmc_cpu.sh: no timing line in $out/log" >&2; exit 1; }
        # per sweep X ms (orbitals a ms, determinant ratios b, updates c, Jastrow d, Ewald e);
        # per measurement f ms (vgl g, determinant h, Jastrow i, Ewald j)
        echo "$line" | sed 's/.*per sweep //' | tr -c '0-9.\n' ' ' | awk -v n="$n" -v ev="$spec" -v t="${used:-?}" '{
            printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
                n, ev, t, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }'
    done
done
