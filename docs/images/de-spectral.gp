# Draws docs/images/de-spectral-L.png: A(k, E) of the double exchange (J_H = inf, n = 0.5)
# along G X M G R X at the lowest and the highest temperature of a run of
# examples/de-spectral.ini (L = 16 on one H200; L = 8 with evaluator = kpm on a CPU), as
# heat maps over (path length, E), with n(k) at mu = 0 beneath:
#   build/bin/mcf run examples/de-spectral.ini
#   build/bin/mcf response de-spectral.out
#   gnuplot -c docs/images/de-spectral.gp de-spectral.out/spectral-jackson.tsv \
#       de-spectral.out/momentum-jackson.tsv docs/images/de-spectral-16.png "16^3" 0.06 0.24
# (ARG5, ARG6: the two temperatures as results.tsv writes them)
set terminal pngcairo size 1400,900 font ",11"
set output ARG3
set datafile separator "\t"
set datafile commentschars "#"
set multiplot layout 2,2 title sprintf("%s double exchange, n = 0.5, J_H = ∞: A(k, E) (Jackson, M = 256) and n(k), jackknife errors (mcf response)", ARG4)
set palette defined (0 "white", 0.15 "#9ecae1", 0.4 "#3182bd", 0.7 "#08306b", 1 "black")
set view map
set autoscale xfix
set xlabel "wave vector along G X M G R X (index)"
set ylabel "E / t"
set yrange [-6:6]
set cbrange [0:2]
set cblabel "A(k, E)"
do for [T in ARG5." ".ARG6] {
  set title sprintf("T = %s t", T)
  plot sprintf("< awk -F'\t' '$1 + 0 == %s' '%s'", T, ARG1) using 3:8:9 with image notitle
}
unset view
set yrange [0:1]
set ylabel "n(k)"
set grid
do for [T in ARG5." ".ARG6] {
  set title sprintf("T = %s t, μ = 0", T)
  plot sprintf("< awk -F'\t' '$1 + 0 == %s && $8 == \"occupation\"' '%s'", T, ARG2) \
       using 3:11:12 with yerrorlines lw 2 notitle
}
unset multiplot
