#!/bin/bash
# dmc.sh — issue 46 on the lent GPU machine (after dev.sh's build): the drift sweep's GPU
# tests, examples/dmc-heg.ini with its moves on the device, and a DMC step of 1024 walkers of
# N = 514 electrons on the GPU against the host's 16 cores (dmc514.ini; the step's time is
# the difference of two runs of STEPS_A and STEPS_B steps over their difference, so that the
# walkers' creation cancels).
#   TARGETS="mcf-program mcf-slater-jastrow mcf-blip mcf-blip-cuda test_dmc_cuda_run \
#     test_sj_sweep_cuda test_blip_cuda test_blip_cuda_run" bash tests/bench/device/dev.sh \
#     tests/bench/device/dmc.sh
MCF=build/bin/mcf
if [ -z "$SKIP_TESTS" ]; then
  (cd build && ctest -R "${TESTS:-test_dmc_cuda_run|test_sj_sweep_cuda|test_blip_cuda$|test_blip_cuda_run}" \
    --output-on-failure -j4 > $OUT/gpu-tests.log 2>&1)
  grep -E "tests passed|Passed|Failed|acceptance|relative|FAIL|skipped" $OUT/gpu-tests.log | head -40
fi
if [ -z "$SKIP_EXAMPLE" ]; then
  t0=$(date +%s.%N)
  $MCF run examples/dmc-heg.ini --set run.evaluator=blip-cuda --set model.determinants=evaluator \
    --set run.output=$OUT/dmc-heg-gpu --no-plots > $OUT/dmc-heg-gpu.txt 2>&1
  echo "dmc-heg on the GPU: rc $? in $(awk -v a=$t0 -v b=$(date +%s.%N) "BEGIN{print b - a}") s"
  grep -iE "energy|corrected|drift|population" $OUT/dmc-heg-gpu/log | tail -8
  tail -2 $OUT/dmc-heg-gpu/results.tsv
fi
# the step of N = 514: GPU (determinants on the device) and CPU (blip, 16 threads)
# (a step's time: the second run's minus the first's over the steps between; 2 steps at least:
# the 2 jackknife bins; extra --set arguments after the fourth)
step() { # name evaluator determinants steps [--set key=value ...]
  [ $(date +%s) -lt ${DEADLINE:-9999999999} ] || { echo "past-the-deadline"; return; }
  local t0=$(date +%s.%N) name=$1 ev=$2 dets=$3 n=$4; shift 4
  $MCF run tests/bench/device/dmc514.ini --set run.evaluator=$ev --set model.determinants=$dets \
    --set schedule.sweeps=$n --set run.output=$OUT/$name-$n "$@" --no-plots \
    > $OUT/$name-$n.txt 2>&1 || { echo "failed"; tail -5 $OUT/$name-$n.txt >&2; return; }
  awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN { print b - a }'
}
per_step() { # label name evaluator determinants [--set ...]: the time of a step
  local label=$1 name=$2 ev=$3 dets=$4; shift 4
  local ta tb; ta=$(step $name $ev $dets $A "$@"); tb=$(step $name $ev $dets $B "$@")
  echo "$label: $A steps ${ta} s, $B steps ${tb} s: $(awk -v a=$ta -v b=$tb -v n=$((B - A)) \
    'BEGIN { print (b - a) / n }') s a step"
}
A=${STEPS_A:-2}; B=${STEPS_B:-6}
per_step "N=514 1024 walkers DMC gpu" gpu blip-cuda evaluator
[ -n "$SKIP_CPU" ] || per_step "N=514 1024 walkers DMC cpu (16 threads)" cpu blip model
# walkers per GPU: DMC steps and VMC sweeps (the default single-electron moves) at WLIST walkers
for w in ${WLIST:-}; do
  per_step "N=514 $w walkers DMC gpu" gpu-w$w blip-cuda evaluator --set run.walkers=$w
  per_step "N=514 $w walkers VMC gpu" vmc-w$w blip-cuda evaluator --set run.walkers=$w \
    --set run.method=sample
done
