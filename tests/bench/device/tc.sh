#!/bin/bash
# tc.sh — on the lent GPU machine, after dev.sh's build: continue the mcf tc run NAME.out
# from its packed state SRC (default docs/data/NAME.tgz), or start it from CONFIG when there
# is none, for SECS seconds (default: until dev.sh's DEADLINE) on NP ranks (default 1; two
# ranks may share one GPU), stopped by a signal (its checkpoint is written), then pack its
# folder into $OUT/NAME.tgz, in parts of 15 MiB when larger (docs/data/ keeps it for the next
# call and for `mcf tc`: the whole file or its parts, not both).  CMD=run starts a plain
# `mcf run CONFIG` instead of `mcf tc` (a long DMC run: dmc-54-long.ini).
#   NAME=de-tc-fine5 CONFIG=tests/bench/device/de-tc-fine5.ini bash tests/bench/device/tc.sh
set -u
NP=${NP:-1}; SECS=${SECS:-$(( DEADLINE - $(date +%s) - 15 ))}; SRC=${SRC:-docs/data/$NAME.tgz}
mkdir -p /tmp/run && cd /tmp/run
if [ -f "$OLDPWD/$SRC" ]; then tar xzf "$OLDPWD/$SRC"
elif [ -f "$OLDPWD/$SRC.part-00" ]; then cat "$OLDPWD/$SRC".part-* | tar xz; fi
REPO=$OLDPWD
export OMP_NUM_THREADS=$(( 16 / NP > 8 ? 8 : 16 / NP ))
# a folder of `mcf tc` without tc.ini (one begun before mcf kept it there, as de-tc-e2e's
# first scan) is continued by `mcf tc CONFIG`, which resumes its scan, then refines
if [ -d $NAME.out ] && { [ -f $NAME.out/tc.ini ] || [ "${CMD:-tc}" != tc ]; }; then
  ARGS="resume $NAME.out"
else
  ARGS="${CMD:-tc} $REPO/$CONFIG"
fi
t0=$(date +%s)
if [ "$NP" -gt 1 ]; then
  # mpirun answers SIGINT with SIGTERM to the ranks and SIGKILL a few seconds later, which
  # killed a 40-chain run between checkpoints (4 s a round): the ranks get SIGINT themselves
  mpirun --oversubscribe -np $NP -x MCF_PLUGIN_PATH -x OMP_NUM_THREADS \
    -x LD_LIBRARY_PATH $REPO/build/bin/mcf $ARGS >$OUT/$NAME.stdout 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null && [ $(date +%s) -lt $(( t0 + SECS )) ]; do sleep 1; done
  pkill -INT -x mcf
  for i in $(seq 60); do kill -0 $pid 2>/dev/null || break; sleep 1; done
  kill $pid 2>/dev/null
  wait $pid
else
  timeout -s INT $SECS $REPO/build/bin/mcf $ARGS >$OUT/$NAME.stdout 2>&1
fi
echo "$NAME: rc $? after $(( $(date +%s) - t0 )) s"
grep -E "sweep [0-9]+/|stopped|Creutz|exp\(-dH\)|wall time|crossing|T_c|effective population" \
  $NAME.out/log | tail -6
tail -5 $OUT/$NAME.stdout
rm -f $NAME.out/.lock
tar czf $OUT/$NAME.tgz $NAME.out
# $OUT gives back files of 16 MiB at most (de-tc-e2e's refinement lost a call to that on
# 2026-12-02): a larger state comes back in parts NAME.tgz.part-00, -01, ... (`cat` joins them;
# the next call reads them from docs/data/ as they are)
if [ $(stat -c %s $OUT/$NAME.tgz) -gt $(( 15 * 1024 * 1024 )) ]; then
  split -b 15m -d $OUT/$NAME.tgz $OUT/$NAME.tgz.part- && rm $OUT/$NAME.tgz
  ls -l $OUT/$NAME.tgz.part-*
fi
cd $REPO
