#!/bin/bash
# resistivity.sh — on the lent GPU machine (after dev.sh's build): examples/de-resistivity.ini
# (16^3 double exchange, 8 temperatures across T_c, response moments every 4th trajectory),
# stopped by SIGINT at ${LIMIT:-420} s if not done (resumable while the machine is warm),
# `mcf response --mu 0`; its table, plot, results.tsv and log come back in $OUT, then the
# GPU tests named in TESTS run.  HDF5 (results.h5) needs libhdf5-103-1 libhdf5-dev libsz2
# libaec0 among the carried packages.
#   TARGETS="mcf-program mcf-double-exchange mcf-kpm mcf-kpm-cuda" \
#     bash tests/bench/device/dev.sh tests/bench/device/resistivity.sh
t0=$(date +%s); rm -rf de-resistivity.out
if [ -f "${STATE:-none}" ]; then tar xzf "$STATE"; timeout -s INT ${LIMIT:-420} build/bin/mcf resume de-resistivity.out
else timeout -s INT ${LIMIT:-420} build/bin/mcf run examples/de-resistivity.ini; fi 2>&1 | grep -v '^sweep ' | tail -30
echo "run: $(( $(date +%s) - t0 )) s"
build/bin/mcf response de-resistivity.out --mu 0 2>&1 | tail -5
grep -v '^#' de-resistivity.out/response-jackson.tsv | grep -E 'quantity|inv_sigma|sigma_xy'
cp de-resistivity.out/response-jackson.tsv de-resistivity.out/plot-resistivity.* \
   de-resistivity.out/results.tsv de-resistivity.out/log $OUT/ 2>/dev/null
for t in ${TESTS:-}; do build/tests/$t 2>&1 | tail -3; done
