# Draws docs/images/de-resistivity-16.png from a run of examples/de-resistivity.ini (one H200):
#   build/bin/mcf run examples/de-resistivity.ini
#   build/bin/mcf response de-resistivity.out --mu 0
#   gnuplot -c docs/images/de-resistivity.gp de-resistivity.out/response-jackson.tsv \
#       de-resistivity.out/results.tsv docs/images/de-resistivity-16.png
# (both tables of the run are kept in docs/data/de-resistivity-16-response.tsv and -results.tsv)
set terminal pngcairo size 1000,480 font ",11"
set output ARG3
set datafile separator "\t"
set datafile commentschars "#"
set grid
set key center right
set xlabel "T / t"
set ylabel "1/σ_{xx}  (ħa/e^2)"
set y2label "|m|"
set y2tics
set ytics nomirror
set title "16^3 double exchange, n = 0.5, J_H = ∞: Kubo-Bastin (M = 256), jackknife errors"
set arrow from 0.1334, graph 0 to 0.1334, graph 1 nohead dt 2 lc rgb "#888888"
set label "T_c = 0.1334(10) t" at 0.136, graph 0.92
plot sprintf("< grep -P '\tinv_sigma_xx\t' '%s'", ARG1) using 1:7:8 with yerrorlines lw 2 \
       title "1/σ_{xx} (μ = 0)", \
     ARG2 using 1:5:6 skip 1 axes x1y2 with yerrorlines dt 3 title "|m| (right axis)"
