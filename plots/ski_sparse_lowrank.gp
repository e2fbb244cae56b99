# ski_sparse_lowrank.gp — Algorithm 1 on a kernel with a spike at the
# diagonal: relative spectral error of band only (dotted), low rank only
# (dashed) and band + SKI (solid: split known; dash-dot: band fitted) against
# r or m, one colour per series.
# Variables: datafile (skit ski-bound --study sparse-lowrank TSV), xcol ('r'
# or 'm'), nseries, titles (space-separated; may be empty).
if (!exists("xcol")) xcol = 'r'
if (!exists("nseries")) nseries = 1
if (!exists("titles")) titles = ''
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("series %d", s)
set logscale y
if (xcol eq 'r') set logscale x 2
set autoscale xfix
set format y "10^{%L}"
set xlabel (xcol eq 'r' ? "inducing points r" : "band width m (diagonals)")
set ylabel "||T - approximation||_2 / ||T||_2"
set title "sparse + low rank (Algorithm 1)"
set key outside right top font ",8" spacing 0.9
set grid
set style data linespoints
# colour = series (named in the key), line style = approximation (a black
# key entry each); the dash-dot curve is drawn last and thicker, with open
# points, so that it shows where it meets the solid one
plot for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_sparse_lowrank") : NaN) \
        lc s + 1 pt 7 ps 0.6 dt 1 lw 1.5 title label(s), \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_lowrank") : NaN) \
        with lines lc s + 1 dt 2 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_band") : NaN) \
        with lines lc s + 1 dt 3 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_sparse_lowrank_fit") : NaN) \
        lc s + 1 pt 4 ps 0.9 dt 4 lw 2.5 notitle, \
     NaN with linespoints lc "black" pt 7 ps 0.6 dt 1 lw 1.5 title "band + SKI (split known)", \
     NaN with linespoints lc "black" pt 4 ps 0.9 dt 4 lw 2.5 title "band fitted + SKI", \
     NaN with lines lc "black" dt 2 title "SKI only", \
     NaN with lines lc "black" dt 3 title "band only"
