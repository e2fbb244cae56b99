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
set title "sparse + low rank: solid band+SKI, dash-dot band fitted+SKI, dashed SKI only, dotted band only"
set key outside right top font ",8" spacing 0.9
set grid
set style data linespoints
plot for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_sparse_lowrank") : NaN) \
        lc s + 1 pt 7 ps 0.6 dt 1 title label(s), \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_sparse_lowrank_fit") : NaN) \
        lc s + 1 pt 4 ps 0.6 dt 4 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_lowrank") : NaN) \
        with lines lc s + 1 dt 2 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_band") : NaN) \
        with lines lc s + 1 dt 3 notitle
