# Draws docs/images/anderson-dos.png from a run of examples/anderson-dos.ini:
#   build/bin/mcf run examples/anderson-dos.ini
#   gnuplot -c docs/images/anderson-dos.gp anderson-dos.out docs/images/anderson-dos.png
set terminal pngcairo size 900,560 font ",11"
set output ARG2
set multiplot layout 1,2 title "3D Anderson model, 16^3 cubic, KPM M = 1024, 32 realizations per W"
set xlabel "E / t"; set key top right; set grid
set title "DOS {/Symbol r}(E)"
plot for [i=1:4] ARG1."/dos.tsv" u ($1==word("4 10 16.5 24",i)+0?$2:1/0):3 w l lw 1.5 lc i t "W = ".word("4 10 16.5 24",i)
set title "typical DOS exp<log {/Symbol r}_i(E)> (log scale)"
set logscale y; set yrange [1e-5:0.3]
plot for [i=1:4] ARG1."/typical_dos.tsv" u ($1==word("4 10 16.5 24",i)+0?$2:1/0):3 w l lw 1.5 lc i t "W = ".word("4 10 16.5 24",i)
unset multiplot
