#!/bin/bash
# dmc_sizes.sh — issue 46's sizes: the unpolarized electron gas of N = 38 and 54 electrons at
# r_s = 1, 2, 5, each optimized first (mcf's own B-spline Jastrow, 5 parameters per spin pair,
# the linear method of examples/dmc-optimized.ini) and then fixed-node DMC with it, at a time
# step tau = 0.005 r_s^2 hartree^-1 (QMCPACK's 0.125 at r_s = 5, scaled with the kinetic
# energy's r_s^-2 so that the time-step error is alike in every case).  One line per case:
#   N r_s tau walkers steps, E_VMC per cell (the optimization's last iteration), E_DMC per
#   electron, the population-corrected E_DMC per cell, seconds
# Usage: bash tests/bench/dmc_sizes.sh [MCF] [OUT] [CASES]  (CASES "38:5 38:2 ..."; the
# defaults run all six: 7-17 minutes each on 2 cores (2026-12-02: docs/methods.md's table);
# on a GPU set EVALUATOR=blip-cuda DETS=evaluator for the device's drift sweeps).
MCF=${1:-build/bin/mcf}; OUT=${2:-dmc-sizes}; CASES=${3:-"38:5 38:2 38:1 54:5 54:2 54:1"}
WALKERS=${WALKERS:-400}; STEPS=${STEPS:-3000}; THERM=${THERM:-500}
EVALUATOR=${EVALUATOR:-planewave}; DETS=${DETS:-auto}
mkdir -p "$OUT"
for c in $CASES; do
  n=${c%%:*}; rs=${c##*:}
  tau=$(awk -v r=$rs 'BEGIN { printf "%.6g", 0.005 * r * r }')
  dir=$OUT/n$n-rs$rs
  t0=$(date +%s)
  "$MCF" run examples/dmc-optimized.ini --set model.electrons=$n --set model.rs=$rs \
    --set run.timestep=$tau --set run.walkers=$WALKERS --set schedule.sweeps=$STEPS \
    --set schedule.thermalize=$THERM --set run.evaluator=$EVALUATOR \
    --set model.determinants=$DETS --set run.output=$dir --set run.seed=$((1000 * n + rs)) \
    --no-plots > $dir.txt 2>&1 || { echo "N=$n r_s=$rs: failed"; tail -3 $dir.txt; continue; }
  vmc=$(awk '!/^#/ && !/^iteration/ && NF { last = $2 " +- " $3 } END { print last }' \
        $dir/optimize/optimize.tsv)
  dmc=$(awk '/^point/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
             !/^#/ && NF { print $col["energy"], $col["energy_err"] }' $dir/results.tsv)
  corr=$(grep -o "corrected for the population.* in total" $dir/log | tail -1)
  echo "N=$n r_s=$rs tau=$tau walkers=$WALKERS steps=$STEPS:" \
       "VMC per cell (the optimization's last iteration) $vmc;" \
       "DMC per electron $dmc; $corr; $(( $(date +%s) - t0 )) s"
done
