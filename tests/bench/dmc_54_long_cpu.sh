#!/bin/bash
# dmc_54_long_cpu.sh — issue 46's stability goal on the CPU: fixed-node DMC of the 54-electron
# gas at r_s = 5 (tests/bench/device/dmc-54-long.ini's system: rpa Jastrow, tau = 0.125,
# 10^5 steps) with 100 walkers (as N = 14's 10^5 steps in docs/methods.md) and the planewave
# evaluator, in pieces of SECS seconds (default 1800): each piece continues the run from
# docs/data/dmc-54-long-cpu.tar.xz (or starts it), is stopped by SIGINT (the checkpoint is
# written) and packs the folder back there.  The log's effective population and results.h5's
# /dmc log weights say whether the population ever exploded or collapsed.
#   bash tests/bench/dmc_54_long_cpu.sh [MCF]   (from the repository root)
MCF=$(cd "$(dirname "${1:-build/bin/mcf}")" && pwd)/$(basename "${1:-build/bin/mcf}")
REPO=$PWD; STATE=$REPO/docs/data/dmc-54-long-cpu.tar.xz; SECS=${SECS:-1800}
export MCF_PLUGIN_PATH=${MCF_PLUGIN_PATH:-$REPO/build/lib/mcf} OMP_WAIT_POLICY=passive
work=/tmp/dmc54; rm -rf "$work"; mkdir -p "$work" && cd "$work" || exit 1
[ -f "$STATE" ] && tar xJf "$STATE"
if [ -d dmc-54-long-cpu.out ]; then
  args="resume dmc-54-long-cpu.out"
else
  args="run $REPO/tests/bench/device/dmc-54-long.ini --set run.evaluator=planewave
    --set model.determinants=model --set run.walkers=100 --set run.output=dmc-54-long-cpu.out
    --set schedule.checkpoint_every=500"
fi
t0=$(date +%s)
timeout -s INT "$SECS" "$MCF" $args --no-plots > piece.txt 2>&1
echo "dmc-54-long-cpu: rc $? after $(( $(date +%s) - t0 )) s"
grep -E "sweep [0-9]+/|stopped|effective population|finished" dmc-54-long-cpu.out/log | tail -4
rm -f dmc-54-long-cpu.out/.lock
XZ_OPT=-9 tar cJf "$STATE" dmc-54-long-cpu.out && ls -la "$STATE"
cd "$REPO" && rm -rf "$work"
