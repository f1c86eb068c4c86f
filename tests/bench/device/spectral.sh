#!/bin/bash
# spectral.sh — on the lent GPU machine (after dev.sh's build): the response and vector
# moments of kpm-cuda against ed and kpm (test_response_cuda, test_spectral kpm-cuda).
#   TARGETS="test_response_cuda test_spectral mcf-ed mcf-kpm mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/spectral.sh
export MCF_TEST_TMP=$PWD/build/tests/tmp; mkdir -p $MCF_TEST_TMP
build/tests/test_response_cuda 2>&1 | tail -3
build/tests/test_spectral kpm-cuda 2>&1 | tail -6
