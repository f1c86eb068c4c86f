#!/bin/sh
# resume.sh — resume check of blume-capel: a run stopped by SIGTERM (once while
# thermalizing, once while measuring) and finished by `mcf resume` must give the same
# results.tsv, byte for byte, as the run that never stopped.  Needs the plugin in ./build.
cd "$(dirname "$0")" || exit 1
export MCF_PLUGIN_PATH=$PWD/build
mcf run resume.ini --force --set run.output=full.out > /dev/null 2>&1 || { echo "full run failed"; exit 1; }
status=0
for stop in 0.1 2; do
    out=stopped-$stop.out
    mcf run resume.ini --force --set run.output=$out > $out.log 2>&1 &
    pid=$!
    sleep $stop
    kill -TERM $pid
    wait $pid
    rc=$?
    at=$(grep -o 'at sweep [0-9]* of [0-9]*' $out.log | tail -1)
    echo "stopped after ${stop}s: exit $rc; ${at:-after the last sweep}"
    mcf resume $out > $out.resume.log 2>&1 || { echo "  resume failed"; status=1; continue; }
    if cmp full.out/results.tsv $out/results.tsv; then echo "  resumed: results.tsv identical"
    else status=1; fi
done
exit $status
