# ski_extrapolation.gp — target kernels and the two fitted RPEs (inverse time
# warp piecewise linear, MLP times lambda^|t|) against the lag t; |k| on a
# log scale so the decay beyond the fitted range |t| < ntrain shows. One
# panel per target.
# Variables: datafile (the --curves TSV), ntargets, titles, ntrain.
if (!exists("ntargets")) ntargets = 1
if (!exists("titles")) titles = ''
if (!exists("ntrain")) ntrain = 0
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("target %d", s)
set logscale y
set format y "10^{%L}"
set grid
set key bottom center font ",8"
tstep = (ntrain > 0 ? 2 * ntrain : 1024)
set xtics tstep
set mxtics 2
set xlabel "lag t"
set ylabel "|k(t)|"
set multiplot layout 1, ntargets title "fitted on |t| < ".ntrain." (between the vertical lines), evaluated beyond"
do for [s=0:ntargets-1] {
    set title label(s)
    unset arrow
    set arrow from -ntrain, graph 0 to -ntrain, graph 1 nohead dt 2 lc rgb "gray40"
    set arrow from ntrain, graph 0 to ntrain, graph 1 nohead dt 2 lc rgb "gray40"
    plot datafile using "t":(column("target_index") == s ? abs(column("target")) : NaN) with lines lw 2 lc rgb "black" title "target", \
         datafile using "t":(column("target_index") == s ? abs(column("warped_linear")) : NaN) with lines lc 1 title "warped piecewise linear", \
         datafile using "t":(column("target_index") == s ? abs(column("mlp_rpe")) : NaN) with lines lc 2 title "MLP RPE x {/Symbol l}^{|t|}"
}
unset multiplot
