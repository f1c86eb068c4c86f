# zmarch.sh — the march with each thread's column of x in registers (kpm_cuda_zmarch.cuh):
# the test, the block step's benchmark with the march as it was (share 0) and with the columns
# in registers (share 2), alternating, one step a launch; then the GPU suite at -j8
# (docs/benchmarks.md).
#   CMAKE_EXTRA="-DMCF_MPI=OFF" bash tests/bench/device/dev.sh tests/bench/device/zmarch.sh
build/tests/test_kpm_cuda_march > $OUT/test_march.txt 2>&1; echo "test_kpm_cuda_march rc $?"
grep -E "FAIL|factorized" $OUT/test_march.txt | head -12
for S in ${SHARE_ORDER:-0 2 0 2}; do
  KPM_GPU_BENCH_SHARE=$S KPM_GPU_BENCH_PAIRS=-1 KPM_GPU_BENCH_DOS_L="${DOS_L:-128 256}" \
    KPM_GPU_BENCH_BLOCKS="${BLOCKS:-8 16 32 64}" KPM_GPU_BENCH_GFMC_L="" KPM_GPU_BENCH_CPU=0 \
    build/tests/bench/kpm_gpu > $OUT/bench_share_$S.$(date +%s).txt 2>&1
  echo "share $S:"; grep -E "copy|^\| 1|^\| 2" $(ls -t $OUT/bench_share_*.txt | head -1) | head -24
done
[ -n "$NO_SUITE" ] || (cd build && ctest -L gpu -j8 --timeout 300 > $OUT/ctest_gpu.txt 2>&1;
  echo "ctest -L gpu -j8 rc $?"; tail -8 $OUT/ctest_gpu.txt; grep -E "Failed|\*\*\*" $OUT/ctest_gpu.txt | head)
