#!/bin/sh
# resume.sh — resume check of ssh-ising: a run stopped by SIGTERM (early, while
# thermalizing, and mid-way) and finished by `mcf resume` must give the same results.tsv,
# byte for byte, as the run that never stopped; with ed on a 4x4 torus and with kpm
# (stochastic traces from the measurement stream, which the checkpoint carries) on a ring.
cd "$(dirname "$0")" || exit 1
export MCF_PLUGIN_PATH=$PWD/build
status=0
for ev in ed kpm; do
    set -- --force
    [ $ev = kpm ] && set -- --force --set run.evaluator=kpm --set model.lattice=chain \
        --set model.L=32 --set evaluator.moments=64 --set schedule.sweeps=8000
    mcf run resume.ini "$@" --set run.output=full-$ev.out > /dev/null 2>&1 ||
        { echo "full run ($ev) failed"; exit 1; }
    for stop in 0.3 1.5; do
        out=stopped-$ev-$stop.out
        mcf run resume.ini "$@" --set run.output=$out > $out.log 2>&1 &
        pid=$!
        sleep $stop
        kill -TERM $pid
        wait $pid
        rc=$?
        at=$(grep -o 'at sweep [0-9]* of [0-9]*' $out.log | tail -1)
        echo "$ev: stopped after ${stop}s: exit $rc; ${at:-after the last sweep}"
        mcf resume $out > $out.resume.log 2>&1 || { echo "  resume failed"; status=1; continue; }
        if cmp full-$ev.out/results.tsv $out/results.tsv; then echo "  resumed: results.tsv identical"
        else status=1; fi
    done
done
exit $status
