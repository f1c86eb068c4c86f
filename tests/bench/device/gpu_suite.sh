#!/bin/bash
# gpu_suite.sh — on the lent GPU machine (after dev.sh's build of everything): the GPU tests
# all at once (`ctest -L gpu -j8`: tests sharing one GPU find races a lone test hides), the
# summary printed and the whole log in $OUT/gpu-suite.log.
#   bash tests/bench/device/dev.sh tests/bench/device/gpu_suite.sh
export OMP_WAIT_POLICY=passive # 8 processes share 16 cores: waiting threads sleep
t0=$(date +%s)
(cd build && ctest -L gpu -j${JOBS:-8} --output-on-failure > $OUT/gpu-suite.log 2>&1)
echo "ctest -L gpu -j${JOBS:-8}: rc $? in $(( $(date +%s) - t0 )) s"
grep -E "tests passed|\*\*\*|Failed|Not Run|skipped" $OUT/gpu-suite.log | head -40
