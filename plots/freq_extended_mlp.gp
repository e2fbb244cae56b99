# freq_extended_mlp.gp — Theorem 2 for GeLU MLPs of (cos w, sin w) in
# __float128 (skit decay extended, one seed, channel 0): left, |k[n]|/|k[0]|
# on a log axis (extended precision over its valid range, where N and 2N
# samples agree; double precision for the RPE MLP); right, the local decay
# rate over windows of 4 lags of the envelope max_{j>=n}|k[j]| (a(n) =
# ln(|k[n]|/|k[n+1]|) smoothed over single dips) over the valid range.
# One key for both panels, right of them.
# Variables: datafile (GeLU, one hidden layer), rpe (GeLU, the RPE MLP's 3
# hidden layers), silu (SiLU, one hidden layer), width.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set title font ",10"
@logy
set xlabel "n (lag)"
set ylabel "|k[n]| / |k[0]|"
set grid
stats datafile using "abs_k" every ::0::0 nooutput
g0 = STATS_max
stats rpe using "abs_k" every ::0::0 nooutput
r0 = STATS_max
stats silu using "abs_k" every ::0::0 nooutput
s0 = STATS_max
inrange(v) = column("valid") > 0 ? v : NaN
# both panels: the valid lags and 10 more (the double-precision floor), a
# margin each side so that no point sits on the frame
stats datafile using (column("valid") > 0 ? column("n") : NaN) nooutput
xhi = STATS_max + 10
set xrange [-0.04 * xhi:1.04 * xhi]
fit_axes = "y"
set multiplot layout 1, 2 margins 0.09, 0.7, 0.12, 0.9 spacing 0.1, 0.1
unset key
set title sprintf("impulse response, width %s", width)
@probe
plot datafile using "n":(inrange(column("abs_k") / g0)) with linespoints lw 2 pt 7 ps 0.5 dt 1 lc rgb mcolor("gelu") title "GeLU, 1 hidden layer", \
     rpe using "n":(inrange(column("abs_k") / r0)) with linespoints lw 2 dt 2 pt 4 ps 0.8 lc rgb mcolor("gelu") title "GeLU, RPE (3 hidden layers)", \
     silu using "n":(inrange(column("abs_k") / s0)) with linespoints lw 2 dt 4 pt 9 ps 0.6 lc rgb mcolor("silu") title "SiLU, 1 hidden layer (control)", \
     rpe using "n":(column("abs_k_double") > 0 ? column("abs_k_double") / r0 : NaN) with points pt 6 ps 0.6 lc rgb "#7f7f7f" title "GeLU RPE, double precision"
@fit
@liny
set ylabel "a(n), windows of 4 lags"
set title "local decay rate (quad): rising = super-exponential"
set key at screen 0.72, graph 1 left top font ",10"
@probe
plot datafile using "n":(inrange(column("rate_window"))) with linespoints lw 2 pt 7 ps 0.5 dt 1 lc rgb mcolor("gelu") title "GeLU, 1 hidden layer", \
     rpe using "n":(inrange(column("rate_window"))) with linespoints lw 2 dt 2 pt 4 ps 0.8 lc rgb mcolor("gelu") title "GeLU, RPE (3 hidden layers)", \
     silu using "n":(inrange(column("rate_window"))) with linespoints lw 2 dt 4 pt 9 ps 0.6 lc rgb mcolor("silu") title "SiLU, 1 hidden layer (control)", \
     NaN with points pt 6 ps 0.6 lc rgb "#7f7f7f" title "GeLU RPE, double precision"
@fit
unset multiplot
