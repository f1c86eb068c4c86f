#!/bin/bash
# spectral_run.sh — on the lent GPU machine (after dev.sh's build): the benchmark of
# vector_moments (build/tests/bench/spectral_gpu), then examples/de-spectral.ini (16^3 double
# exchange, 8 temperatures across T_c, A(k, E)'s moments every 4th trajectory), stopped by
# SIGINT at ${LIMIT:-400} s if not done, and `mcf response`; its tables, plot, results.tsv
# and log come back in $OUT.
#   TARGETS="mcf-program mcf-double-exchange mcf-kpm mcf-kpm-cuda spectral_gpu" \
#     bash tests/bench/device/dev.sh tests/bench/device/spectral_run.sh
build/tests/bench/spectral_gpu ${BENCH:-16:256 32:256 64:256} 2>&1 | tee $OUT/spectral_gpu.txt
t0=$(date +%s); rm -rf de-spectral.out
timeout -s INT ${LIMIT:-400} build/bin/mcf run examples/de-spectral.ini 2>&1 | grep -v '^sweep ' | tail -20
echo "run: $(( $(date +%s) - t0 )) s"
build/bin/mcf response de-spectral.out 2>&1 | tail -5
cp de-spectral.out/spectral-jackson.tsv de-spectral.out/momentum-jackson.tsv \
   de-spectral.out/plot-momentum.* de-spectral.out/results.tsv de-spectral.out/log $OUT/ 2>/dev/null
