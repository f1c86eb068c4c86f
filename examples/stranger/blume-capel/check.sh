#!/bin/sh
# check.sh — exact check of blume-capel: a periodic chain of 8 sites against the 3x3
# transfer matrix (exact.py), E/N and <s^2> within 4 error bars at 3 temperatures; then a
# run with D 5 % off (0.525 instead of 0.5) that the same comparison must reject.
# Needs: the plugin in ./build, mcf on PATH.  Exit 0: both outcomes as expected.
set -e
cd "$(dirname "$0")"
export MCF_PLUGIN_PATH=$PWD/build
L=8 J=1 D=0.5 h=0.2
compare() { # $1: run folder; prints a table; exit 0 if every quantity is within 4 sigma
    ./exact.py $L $J $D $h 0.8 1.5 3 > "$1/exact.txt"
    awk 'NR == FNR { e[$1] = $2; q[$1] = $3; next }
         /^#/ { next }
         !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
         { T = $col["T"]
           for (k = 0; k < 2; k++) {
               name = k ? "q" : "energy"; x = k ? q[T] : e[T]
               v = $col[name]; s = $col[name "_err"]; z = (v - x) / s
               printf "  T=%-4s %-6s mc %.5f +- %.5f  exact %.5f  %+.2f sigma\n", T, name, v, s, x, z
               if (z > 4 || z < -4) bad++ } }
         END { exit bad > 0 }' "$1/exact.txt" "$1/results.tsv"
}
mcf run check.ini --force --no-plots > /dev/null 2>&1 || { echo "mcf run failed"; exit 1; }
echo "D = $D (the exact D):"
if compare check.out; then echo "  PASS: all within 4 sigma"; else echo "  FAIL"; exit 1; fi
mcf run check.ini --force --no-plots --set model.D=0.525 --set run.output=check-wrong.out \
    > /dev/null 2>&1 || { echo "mcf run failed"; exit 1; }
echo "D = 0.525 (5 % off), compared with the exact D = $D:"
if compare check-wrong.out; then echo "  NOT CAUGHT: the check is too weak"; exit 1; fi
echo "  caught, as it must be"
