#!/bin/bash
# profile514.sh — where the time of dmc514.ini's DMC steps goes on the GPU (issue 46): a run of
# W walkers (default 128) for 2 measured steps, its log with timestamps in $OUT/p514.log, and
# under Nsight Systems when it is there (the kernels' and the CUDA API's summaries).
#   TARGETS="mcf-program mcf-slater-jastrow mcf-blip-cuda" bash tests/bench/device/dev.sh \
#     tests/bench/device/profile514.sh
W=${W:-128}
args="run tests/bench/device/dmc514.ini --set run.walkers=$W --set schedule.sweeps=${STEPS:-2} \
  --set run.output=/tmp/p514 --no-plots"
NSYS=$(command -v nsys ||
  ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
t0=$(date +%s.%N)
if [ -n "$NSYS" ] && [ -z "$NO_NSYS" ]; then
  $NSYS profile -o /tmp/p514 --force-overwrite true build/bin/mcf $args > /tmp/p514.txt 2>&1
  echo "nsys: rc $? ($NSYS)"
  $NSYS stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv /tmp/p514.nsys-rep \
    2>/dev/null | cut -c1-220 | head -60
else
  echo "no nsys"; build/bin/mcf $args > /tmp/p514.txt 2>&1; echo "mcf: rc $?"
fi
echo "W=$W: $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{print b - a}') s"
cp /tmp/p514/log $OUT/p514.log 2>/dev/null; tail -3 /tmp/p514.txt
