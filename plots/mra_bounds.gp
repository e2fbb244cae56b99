# plots/mra_bounds.gp — `skit mra bounds`: Proposition 4.5's measured error
# and bound against the budget, and Lemma 4.1's largest ratio
# (mu* - mu) / (C_r mu) (<= 1 where the lemma holds).
# The ratio with r = 2 beta1 beta2 lies up to some hundred decades below the
# measured one (the lemma holds by far); the right panel's axis spans the
# measured ratios and the bound 1, and a ratio below it is drawn at the
# axis's foot as an open down-triangle, the key giving the lowest.
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set grid
set key below
# the same bottom margin in both panels (keys of different length below)
set bmargin 8
pos(v) = v > 0 ? v : NaN
stats datafile using (pos(column("lemma_max_ratio_holder"))) nooutput
hmin = STATS_records > 0 ? STATS_min : NaN
set multiplot layout 1,2
set title "Proposition 4.5"
@logy
set xlabel "fraction of squares computed exactly (m_1 / (n/b)^2)"
set ylabel "relative error"
# a fraction: the whole of 0..1
set xrange [0:1]
fit_axes = "y"
@probe
plot datafile using "budget":"prop_measured" with points pt 7 ps 0.9 lc rgb "#1f77b4" title "measured", \
     datafile using "budget":"prop_bound" with points pt 4 ps 1.4 lc rgb "#d62728" title "bound"
@fit
set title "Lemma 4.1"
set ylabel "max (mu* - mu) / (C_r mu)"
set xlabel "square side"
@log2x
set format x "%g"
fit_axes = "xy"
@probe
plot datafile using "block":(pos(column("lemma_max_ratio"))) with points, \
     datafile using "block":(1.0) with points
unset table
ok = fit_range(GPVAL_DATA_X_MIN, GPVAL_DATA_X_MAX, fit_xlog)
set xrange [fit_lo:fit_hi]
ok = fit_range(GPVAL_DATA_Y_MIN, GPVAL_DATA_Y_MAX, fit_ylog)
# a row below the data for the ratios below it, then the axis's foot
lo = log10(fit_lo) - 0.08 * (log10(fit_hi) - log10(fit_lo))
set yrange [10 ** lo:fit_hi]
foot = 10 ** (lo + 0.04 * (log10(fit_hi) - lo))
# how many holder ratios fall on the axis and below it
hin = 0; hout = 0
set table $count
plot datafile using (h = pos(column("lemma_max_ratio_holder")), hin = hin + (h >= 10 ** lo), \
     hout = hout + (h < 10 ** lo), 0):(0) with table
unset table
below = sprintf("r = 2 {/Symbol b}_1{/Symbol b}_2 below, down to 10^{%d}", floor(log10(hmin)))
# an empty series would be a warning: each holder series only when it has
# points
holder_in = 'datafile using "block":(pos(column("lemma_max_ratio_holder")) >= 10 ** lo ? column("lemma_max_ratio_holder") : NaN) with points pt 6 ps 1.4 lc rgb "#009e73" title "r = 2 {/Symbol b}_1{/Symbol b}_2", '
holder_out = 'datafile using "block":(pos(column("lemma_max_ratio_holder")) < 10 ** lo ? foot : NaN) with points pt 10 ps 1.4 lc rgb "#009e73" title below, '
eval 'plot datafile using "block":(pos(column("lemma_max_ratio"))) with points pt 7 ps 0.9 lc rgb "#1f77b4" title "r measured", ' . \
     (hin > 0 ? holder_in : '') . (hout > 0 ? holder_out : '') . \
     '1 with lines dt 2 lw 1.5 lc rgb "red" title "bound (ratio 1)"'
unset multiplot
