# plots/mra_haar_hist.gp — histogram of log10 |Haar coefficient| of a softmax
# matrix (the paper's Figure 1, left); `skit mra haar --histogram-out`.
set datafile columnheaders
set style fill solid 0.6
set logscale y
set xlabel "log_{10} |Haar coefficient|"
set ylabel "number of coefficients"
set grid
set key off
set arrow 1 from log10(0.005), graph 0 to log10(0.005), graph 1 nohead dt 2 lc rgb "red"
set label 1 "0.005" at log10(0.005), graph 0.95 offset 0.5,0 tc rgb "red"
plot datafile using (0.5 * (column("log10_lo") + column("log10_hi"))):(column("count") > 0 ? column("count") : NaN) \
     with boxes lc rgb "#1f77b4"
