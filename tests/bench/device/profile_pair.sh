# profile_pair.sh — Nsight Compute on the block step (issue 44, part 5): the pair kernel
# (two Chebyshev steps a launch) and the march (one step) at 128^3, B = 8 and 64, factorized
# Anderson rows: where their warps stall, how much of DRAM and L1/L2 they use.
#   CMAKE_EXTRA="-DMCF_MPI=OFF" TARGETS="kpm_gpu mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/profile_pair.sh
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "no ncu"; exit 0; }
for B in ${BLOCKS:-8 64}; do
  for P in 1 -1; do
    KPM_GPU_BENCH_PAIRS=$P KPM_GPU_BENCH_DOS_L=128 KPM_GPU_BENCH_BLOCKS=$B \
      KPM_GPU_BENCH_GFMC_L="" KPM_GPU_BENCH_CPU=0 timeout 120 $NCU \
      --kernel-name regex:"kcu_pair_kernel|kcu_march" --launch-skip 6 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section SchedulerStats --section Occupancy --section LaunchStats \
      build/tests/bench/kpm_gpu > $OUT/ncu_B${B}_P${P}.txt 2>&1
    echo "B=$B pairs=$P rc $?"
    grep -E "kcu_|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occ|Issued Warp|No Eligible|Stall|Registers|Shared Memory Config|Block Limit" \
      $OUT/ncu_B${B}_P${P}.txt | head -30
  done
done
