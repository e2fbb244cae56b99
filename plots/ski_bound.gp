# ski_bound.gp — Theorem 1 of "SKI to go Faster": measured ||E_SKI||_2, the
# theorem's right-hand side, sigma_{r+1}(T) (best rank-r error) and
# ||T - W A W^T||_2 against r or n, one colour per series.
# Variables: datafile (skit ski-bound TSV), xcol ('r' or 'n'), nseries,
# titles (space-separated series names; may be empty).
if (!exists("xcol")) xcol = 'r'
if (!exists("nseries")) nseries = 1
if (!exists("titles")) titles = ''
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("series %d", s)
set logscale xy
set autoscale xfix
set format y "10^{%L}"
set xlabel (xcol eq 'r' ? "inducing points r" : "n")
set ylabel "spectral norm"
set title "Theorem 1: solid ||E_{SKI}||, dashed bound, dotted {/Symbol s}_{r+1}(T), dash-dot ||T - WAW^T||"
set key outside right top font ",8" spacing 0.9
set grid
set style data linespoints
plot for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("e_ski") : NaN) \
        lc s + 1 pt 7 ps 0.6 dt 1 title label(s), \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rhs") : NaN) \
        with lines lc s + 1 dt 2 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("sigma_next") : NaN) \
        with lines lc s + 1 dt 3 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("ski_error") : NaN) \
        lc s + 1 pt 6 ps 0.6 dt 4 notitle
