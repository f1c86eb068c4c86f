#!/bin/bash
# dmc_steps.sh — issue 46 on the lent GPU machine (after dev.sh's build): the time of a DMC
# step of N = 514 (dmc514.ini) read from one run's progress lines (the time between the first
# and the last measured step's lines over the steps between), so the walkers' creation and
# the final checkpoint stay out of it and one run is enough.  RUNS lists name:evaluator:
# determinants:walkers:steps; a run starts only before DEADLINE.
#   RUNS="gpu:blip-cuda:evaluator:1024:6 cpu:blip:model:128:3" bash tests/bench/device/dev.sh \
#     tests/bench/device/dmc_steps.sh
MCF=build/bin/mcf
for r in ${RUNS:-gpu:blip-cuda:evaluator:1024:6 cpu:blip:model:128:3}; do
  IFS=: read -r name ev dets w n <<< "$r"
  [ $(date +%s) -lt ${DEADLINE:-9999999999} ] || { echo "$name: past the deadline"; continue; }
  t0=$(date +%s.%N)
  $MCF run tests/bench/device/dmc514.ini --set run.evaluator=$ev --set model.determinants=$dets \
    --set run.walkers=$w --set schedule.sweeps=$n --set run.output=$OUT/$name \
    --no-plots > $OUT/$name.txt 2>&1 || { echo "$name failed"; tail -5 $OUT/$name.txt; }
  echo "$name ($w walkers, $n steps): $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{print b - a}') s in all"
  grep -E "measuring" $OUT/$name/log | awk '{ split($2, t, ":"); s = t[1]*3600 + t[2]*60 + t[3];
    if (!n++) { s0 = s; k0 = $4 } ; s1 = s; k1 = $4 } END { split(k0, a, "/"); split(k1, b, "/");
    if (b[1] > a[1]) printf "  %d steps in %d s: %.2f s a step\n", b[1] - a[1], s1 - s0,
      (s1 - s0) / (b[1] - a[1]) }'
  grep -iE "acceptance|population|energy" $OUT/$name/log | tail -3
done
