#!/bin/bash
# response.sh — on the lent GPU machine (after dev.sh's build): issue 47's device path of the
# two-dimensional moments: its test against ed and kpm, kpm's own response test, then the
# benchmark (tests/bench/response_gpu.c) with the CPU comparison at 64^3.
#   TARGETS="test_response_cuda test_response response_gpu mcf-ed mcf-kpm mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/response.sh
export MCF_TEST_TMP=$PWD/build/tests/tmp; mkdir -p $MCF_TEST_TMP
t0=$(date +%s)
build/tests/test_response_cuda 2>&1 | tail -${TAIL:-14}
build/tests/test_response 2>&1 | tail -1
echo "tests: $(( $(date +%s) - t0 )) s"
RESPONSE_BENCH_BASTIN=${BASTIN_L:-256} build/tests/bench/response_gpu ${BENCH_ARGS:-64:256 128:1024 256:1024} 2>&1
echo "total: $(( $(date +%s) - t0 )) s"
