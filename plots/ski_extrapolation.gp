# ski_extrapolation.gp — target kernels and the two fitted RPEs (inverse time
# warp piecewise linear, MLP times lambda^|t|) against the lag t; |k| on a
# log scale so the decay beyond the fitted range |t| < ntrain shows. One
# panel per target; one key for all, below the panels (off the data). The
# fits are drawn over the target in their own dash each (dashed, dash-dot),
# so that where the three coincide all stay visible.
# Variables: datafile (the --curves TSV), ntargets, titles, ntrain.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("ntargets")) ntargets = 1
if (!exists("titles")) titles = ''
if (!exists("ntrain")) ntrain = 0
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("target %d", s)
@logy
set grid
tstep = (ntrain > 0 ? 2 * ntrain : 1024)
set xtics tstep
set mxtics 2
set xlabel "lag t"
# lines only, ending where the lags end: the x axis spans the data exactly
set autoscale xfix
fit_axes = "y"
set multiplot layout 1, ntargets title "fitted on |t| < ".ntrain." (between the vertical lines), evaluated beyond" \
    margins 0.1, 0.98, 0.2, 0.86 spacing 0.06, 0.1
do for [s=0:ntargets-1] {
    set title label(s)
    unset arrow
    set arrow from -ntrain, graph 0 to -ntrain, graph 1 nohead dt 3 lc rgb "gray40"
    set arrow from ntrain, graph 0 to ntrain, graph 1 nohead dt 3 lc rgb "gray40"
    if (s == 0) { set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 } else { unset key }
    if (s == 0) { set ylabel "|k(t)|" } else { unset ylabel }
    @probe
    plot datafile using "t":(column("target_index") == s ? abs(column("target")) : NaN) with lines lw 3 lc rgb "gray30" title "target", \
         datafile using "t":(column("target_index") == s ? abs(column("warped_linear")) : NaN) with lines lw 1.5 dt 2 lc rgb "#d62728" title "warped piecewise linear", \
         datafile using "t":(column("target_index") == s ? abs(column("mlp_rpe")) : NaN) with lines lw 1.5 dt 4 lc rgb "#1f77b4" title "MLP RPE x {/Symbol l}^{|t|}"
    @fit
}
unset multiplot
