# freq_extended_mlp.gp — Theorem 2 for GeLU MLPs of (cos w, sin w) in
# __float128 (skit decay extended, one seed, channel 0): left, |k[n]|/|k[0]|
# on a log axis (extended precision over its valid range, where N and 2N
# samples agree; double precision for the RPE MLP); right, the local decay
# rate over windows of 4 lags of the envelope max_{j>=n}|k[j]| (a(n) =
# ln(|k[n]|/|k[n+1]|) smoothed over single dips) over the valid range.
# Variables: datafile (GeLU, one hidden layer), rpe (GeLU, the RPE MLP's 3
# hidden layers), silu (SiLU, one hidden layer), width.
load plotdir."/style.gp"
set datafile columnheaders
set multiplot layout 1, 2
set logscale y
set format y "10^{%L}"
set xlabel "n (lag)"
set ylabel "|k[n]| / |k[0]|"
set grid
set key top right
stats datafile using (column("valid") > 0 ? column("n") : NaN) nooutput
set xrange [0:STATS_max + 10]
set title sprintf("impulse response, width %s", width)
stats datafile using "abs_k" every ::0::0 nooutput
g0 = STATS_max
stats rpe using "abs_k" every ::0::0 nooutput
r0 = STATS_max
stats silu using "abs_k" every ::0::0 nooutput
s0 = STATS_max
inrange(v) = column("valid") > 0 ? v : NaN
plot datafile using "n":(inrange(column("abs_k") / g0)) with linespoints lw 2 pt 7 ps 0.5 lc rgb mcolor("gelu") title "GeLU, 1 hidden layer", \
     rpe using "n":(inrange(column("abs_k") / r0)) with linespoints lw 2 dt 2 pt 5 ps 0.5 lc rgb mcolor("gelu") title "GeLU, RPE (3 hidden layers)", \
     silu using "n":(inrange(column("abs_k") / s0)) with linespoints lw 2 pt 9 ps 0.5 lc rgb mcolor("silu") title "SiLU, 1 hidden layer (control)", \
     rpe using "n":(column("abs_k_double") > 0 ? column("abs_k_double") / r0 : NaN) with points pt 6 ps 0.6 lc rgb "#7f7f7f" title "GeLU RPE, double precision"
unset logscale y
set format y "%g"
set ylabel "a(n), windows of 4 lags"
set title "local decay rate (quad): rising = super-exponential"
set key bottom right
plot datafile using "n":(inrange(column("rate_window"))) with linespoints lw 2 pt 7 ps 0.5 lc rgb mcolor("gelu") title "GeLU, 1 hidden layer", \
     rpe using "n":(inrange(column("rate_window"))) with linespoints lw 2 dt 2 pt 5 ps 0.5 lc rgb mcolor("gelu") title "GeLU, RPE (3 hidden layers)", \
     silu using "n":(inrange(column("rate_window"))) with linespoints lw 2 pt 9 ps 0.5 lc rgb mcolor("silu") title "SiLU, 1 hidden layer (control)"
unset multiplot
