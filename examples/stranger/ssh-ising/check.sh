#!/bin/sh
# check.sh — exact check of ssh-ising: a periodic ring of 4 sites (4 bonds, 16 bond
# configurations) with [run] evaluator = ed against exact enumeration (exact.py): energy,
# density, |m|, m^2, mean bond and specific heat within 4 error bars at 3 temperatures;
# then a run with delta 5 % off (0.315 instead of 0.3) that the comparison must reject.
# Needs: the plugin in ./build, mcf on PATH.  Exit 0: both outcomes as expected.
cd "$(dirname "$0")" || exit 1
export MCF_PLUGIN_PATH=$PWD/build
t=1 delta=0.3 K=-0.2 mu=0.3
compare() { # $1: run folder; prints a table; exit 0 if every quantity is within 4 sigma
    ./exact.py $t $delta $K $mu 0.2 0.5 1.5 > "$1/exact.txt"
    awk 'BEGIN { n = split("energy density abs_m m2 bond specific_heat", name, " ") }
         NR == FNR { for (q = 1; q <= n; q++) x[$1, name[q]] = $(q + 1); next }
         /^#/ { next }
         !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
         { T = $col["T"]
           for (q = 1; q <= n; q++) {
               v = $col[name[q]]; s = $col[name[q] "_err"]; z = (v - x[T, name[q]]) / s
               printf "  T=%-4s %-13s mc %9.6f +- %.6f  exact %9.6f  %+6.2f sigma\n",
                      T, name[q], v, s, x[T, name[q]], z
               if (z > 4 || z < -4) bad++ } }
         END { exit bad > 0 }' "$1/exact.txt" "$1/results.tsv"
}
mcf run check.ini --force --no-plots > /dev/null 2>&1 || { echo "mcf run failed"; exit 1; }
echo "delta = $delta (the exact delta):"
if compare check.out; then echo "  PASS: all within 4 sigma"; else echo "  FAIL"; exit 1; fi
mcf run check.ini --force --no-plots --set model.delta=0.315 --set run.output=check-wrong.out \
    > /dev/null 2>&1 || { echo "mcf run failed"; exit 1; }
echo "delta = 0.315 (5 % off), compared with the exact delta = $delta:"
if compare check-wrong.out; then echo "  NOT CAUGHT: the check is too weak"; exit 1; fi
echo "  caught, as it must be"
