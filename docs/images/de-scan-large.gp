# Draws docs/images/de-scan-large.png from a run of examples/de-scan-large.ini:
#   build/bin/mcf run examples/de-scan-large.ini
#   gnuplot -c docs/images/de-scan-large.gp de-scan-large.out/results.tsv docs/images/de-scan-large.png
# (the run's results.tsv is kept in docs/data/de-scan-large-results.tsv)
set terminal pngcairo size 1000,420 font ",11"
set output ARG2
set datafile separator "\t"
set datafile commentschars "#"
set key autotitle columnhead
set multiplot layout 1,3 title "Double exchange, cubic L^3 periodic, mu = 0, infinite Hund coupling (GFMC, M = 128 two-point)"
set xlabel "T / t"; set grid; set key top right
stats ARG1 skip 1 nooutput
col(n) = column(n)
set title "|m|"
plot ARG1 skip 1 u (column("L")==6?column("T"):1/0):"abs_m":"abs_m_err" w yerrorlines t "L = 6", \
     ARG1 skip 1 u (column("L")==8?column("T"):1/0):"abs_m":"abs_m_err" w yerrorlines t "L = 8"
set title "Binder cumulant 1 - <m^4>/(3<m^2>^2)"
plot ARG1 skip 1 u (column("L")==6?column("T"):1/0):"binder":"binder_err" w yerrorlines t "L = 6", \
     ARG1 skip 1 u (column("L")==8?column("T"):1/0):"binder":"binder_err" w yerrorlines t "L = 8"
set title "susceptibility N(<m^2> - <|m|>^2)/T"
plot ARG1 skip 1 u (column("L")==6?column("T"):1/0):"susceptibility":"susceptibility_err" w yerrorlines t "L = 6", \
     ARG1 skip 1 u (column("L")==8?column("T"):1/0):"susceptibility":"susceptibility_err" w yerrorlines t "L = 8"
unset multiplot
