# plots/mra_haar_hist.gp — histogram of log10 |Haar coefficient| of a softmax
# matrix (the paper's Figure 1, left); `skit mra haar --histogram-out`.
# The count axis starts below 1, so that a bin of one coefficient shows; the
# log10 axis spans the non-empty bins.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set style fill solid 0.6
@logy
set xlabel "log_{10} |Haar coefficient|"
set ylabel "number of coefficients"
set grid
set key off
set yrange [0.5:*]
fit_axes = "x"
set arrow 1 from log10(0.005), graph 0 to log10(0.005), graph 1 nohead dt 2 lc rgb "red"
set label 1 "0.005" at log10(0.005), graph 0.95 offset 0.5,0 tc rgb "red"
@probe
# each box as wide as its bin (empty bins: none)
plot datafile using (0.5 * (column("log10_lo") + column("log10_hi"))):(column("count") > 0 ? column("count") : NaN): \
     (column("log10_hi") - column("log10_lo")) with boxes lc rgb "#1f77b4"
@fit
