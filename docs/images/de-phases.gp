# Draws docs/images/de-phases.png from `mcf band examples/de-phases.ini`:
#   build/bin/mcf band examples/de-phases.ini
#   gnuplot -c docs/images/de-phases.gp de-phases.out docs/images/de-phases.png
set terminal pngcairo size 1100,440 font ",11"
set output ARG2
set datafile separator "\t"
set datafile commentschars "#"
states = "ferro canted:60 canted:120 neel-a neel-c neel-g spiral:0.25,0.25,0.25"
files = "ferro canted_60 canted_120 neel-a neel-c neel-g spiral_0.25_0.25_0.25"
set multiplot layout 1,2 title "Double exchange, cubic, infinite Hund coupling: ideal states by the tetrahedron method (32^3 k points)"
set grid; set key top left
set title "band energy per site against electrons per site"
set xlabel "n"; set ylabel "e / t"
plot for [i=1:words(states)] ARG1."/bands.tsv" skip 2 \
     u (strcol(1) eq word(states, i) ? column(3) : 1/0):(column(4)) w l lw 2 t word(states, i)
set title "density of states per site"
set xlabel "E / t"; set ylabel "rho(E) t"; set key top right
plot for [i=1:words(files)] ARG1."/dos-".word(files, i).".tsv" skip 2 u 1:2 w l lw 1.5 t word(states, i)
unset multiplot
