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
step() { # name evaluator determinants steps
  [ $(date +%s) -lt ${DEADLINE:-9999999999} ] || { echo "past the deadline"; return; }
  local t0=$(date +%s.%N)
  $MCF run tests/bench/device/dmc514.ini --set run.evaluator=$2 --set model.determinants=$3 \
    --set schedule.sweeps=$4 --set run.output=$OUT/$1-$4 --no-plots > $OUT/$1-$4.txt 2>&1 \
    || { echo "$1 $4: failed"; tail -5 $OUT/$1-$4.txt; }
  awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN { print b - a }'
}
A=${STEPS_A:-1}; B=${STEPS_B:-4}
for dev in gpu cpu; do
  if [ $dev = gpu ]; then ev=blip-cuda; dets=evaluator; else ev=blip; dets=model; fi
  ta=$(step $dev $ev $dets $A); tb=$(step $dev $ev $dets $B)
  echo "N=514 1024 walkers $dev: $A steps ${ta} s, $B steps ${tb} s: $(awk -v a=$ta -v b=$tb -v n=$((B - A)) 'BEGIN { print (b - a) / n }') s a step"
done
