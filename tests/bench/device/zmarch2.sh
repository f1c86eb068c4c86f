# zmarch2.sh — the march with the columns in registers and, for a field, the row's entries
# formed once and shuffled to its lanes (kpm_cuda_zmarch.cuh): the test, then the block step of
# the double-exchange form (rank 2) with share 0, 1, 2 and of constant hoppings (rank 0) with
# share 2, one step a launch (docs/benchmarks.md):
#   CMAKE_EXTRA="-DMCF_MPI=OFF" TARGETS="test_kpm_cuda_march kpm_gpu mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/zmarch2.sh
build/tests/test_kpm_cuda_march > $OUT/test_march.txt 2>&1; echo "test_kpm_cuda_march rc $?"
grep -E "FAIL|passed" $OUT/test_march.txt | head -12
for RS in "2 0" "2 1" "2 2" "0 2" "2 2" "2 1"; do set -- $RS
  KPM_GPU_BENCH_RANK=$1 KPM_GPU_BENCH_SHARE=$2 KPM_GPU_BENCH_PAIRS=-1 \
    KPM_GPU_BENCH_DOS_L="${DOS_L:-128 256}" KPM_GPU_BENCH_BLOCKS="${BLOCKS:-8 16 32 64}" \
    KPM_GPU_BENCH_GFMC_L="" KPM_GPU_BENCH_CPU=0 \
    build/tests/bench/kpm_gpu > $OUT/bench_rank$1_share$2.$(date +%s).txt 2>&1
  echo "rank $1, share $2:"; grep -A8 "on-site energies only" \
    $(ls -t $OUT/bench_rank$1_share$2.*.txt | head -1) | grep -E "^\| [12]"
done
