# pairs.sh — two Chebyshev steps a launch (kpm_cuda_pair.cuh): the test, then the block step's
# benchmark with one step and with two steps a launch, alternating (docs/benchmarks.md)
#   CMAKE_EXTRA="-DMCF_MPI=OFF" TARGETS="test_kpm_cuda_march kpm_gpu mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/pairs.sh
build/tests/test_kpm_cuda_march > $OUT/test_march.txt 2>&1; echo "test_kpm_cuda_march rc $?"
grep -E "FAIL|pairs" $OUT/test_march.txt | head -12
for P in ${PAIRS_ORDER:--1 1 -1 1}; do
  KPM_GPU_BENCH_PAIRS=$P KPM_GPU_BENCH_DOS_L="${DOS_L:-128 256}" \
    KPM_GPU_BENCH_BLOCKS="${BLOCKS:-8 16 32 64}" KPM_GPU_BENCH_GFMC_L="" KPM_GPU_BENCH_CPU=0 \
    build/tests/bench/kpm_gpu > $OUT/bench_pairs_$P.$(date +%s).txt 2>&1
  echo "pairs $P:"; grep -E "copy|^\| 1|^\| 2" $(ls -t $OUT/bench_pairs_*.txt | head -1) | head -24
done
