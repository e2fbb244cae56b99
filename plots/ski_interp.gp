# ski_interp.gp — SKI error ||T - W A W^T||_2 / ||T||_2 against r for each
# interpolation scheme and kernel (one colour per series), log-log.
# Variables: datafile (skit ski-bound TSV), nseries, titles.
if (!exists("nseries")) nseries = 1
if (!exists("titles")) titles = ''
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("series %d", s)
set logscale xy
set autoscale xfix
set format y "10^{%L}"
set xlabel "inducing points r"
set ylabel "||T - W A W^T||_2 / ||T||_2"
set title "SKI error by interpolation scheme (dotted: {/Symbol s}_{r+1}(T)/||T||, the best rank-r error)"
set key outside right top font ",9"
set grid
set style data linespoints
plot for [s=0:nseries-1] datafile using "r":(column("series") == s ? column("ski_error") / column("t_norm") : NaN) \
        lc s + 1 pt s + 1 title label(s), \
     for [s=0:nseries-1] datafile using "r":(column("series") == s ? column("sigma_next") / column("t_norm") : NaN) \
        with lines lc s + 1 dt 3 notitle
