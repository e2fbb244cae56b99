# freq_extended.gp — Theorem 2 decided in extended precision: left, |k[n]|
# of exp(cos w) (80-digit DFT, exact I_n(1), double-precision DFT) on a log
# axis; right, the local decay rate a(n) = ln(k[n]/k[n+1]) of each.
# One key for both panels, right of them.
# Variables: datafile (experiment 26's coefficients.tsv).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set multiplot layout 1, 2 margins 0.09, 0.76, 0.12, 0.9 spacing 0.1, 0.1
@logy
set xlabel "n (lag)"
set ylabel "|k[n]|"
set grid
unset key
set title "coefficients of exp(cos ω)"
@probe
plot datafile using "n":(abs(column("k_exact"))) with lines lw 2 lc rgb "black" title "I_n(1), exact series", \
     datafile using "n":(abs(column("k_extended"))) with points pt 7 ps 0.6 lc rgb "#1f77b4" title "DFT, 80 digits", \
     datafile using "n":(abs(column("k_double")) > 0 ? abs(column("k_double")) : NaN) with points pt 6 ps 1.1 lc rgb "#d62728" title "DFT, double"
@fit
@liny
set ylabel "a(n) = ln(k[n] / k[n+1])"
set title "local decay rate: rising = faster than exponential"
set key at screen 0.78, graph 1 left top
@probe
plot datafile using "n":"rate_extended" with linespoints lw 2 pt 7 ps 0.6 dt 1 lc rgb "#1f77b4" title "DFT, 80 digits", \
     datafile using "n":"rate_double" with points pt 6 ps 1.1 lc rgb "#d62728" title "DFT, double", \
     NaN with lines lw 2 lc rgb "black" title "I_n(1), exact series"
@fit
unset multiplot
