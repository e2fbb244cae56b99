# ski_sparse_lowrank.gp — Algorithm 1 on a kernel with a spike at the
# diagonal: relative spectral error of band only (dotted), low rank only
# (dashed) and band + SKI (solid: split known; dash-dot: band fitted) against
# r or m, one colour per series.
# Variables: datafile (skit ski-bound --study sparse-lowrank TSV), xcol ('r'
# or 'm'), nseries, titles (space-separated; may be empty).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("xcol")) xcol = 'r'
if (!exists("nseries")) nseries = 1
if (!exists("titles")) titles = ''
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("series %d", s)
@logy
if (xcol eq 'r') { @log2x; set format x "%g" }
set xlabel (xcol eq 'r' ? "inducing points r" : "band width m (diagonals)")
set ylabel "||T - approximation||_2 / ||T||_2"
set title "sparse + low rank (Algorithm 1)"
set key font ",8" spacing 0.9
set grid
set style data linespoints
# colour and point shape = series (named in the key), line style =
# approximation (a black key entry each): split known filled, band fitted
# open; the dash-dot curve is drawn last and thicker, with open points, so
# that it shows where it meets the solid one
@probe
plot for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_sparse_lowrank") : NaN) \
        lc s + 1 pt sshape(s + 1) ps 0.7 dt 1 lw 1.5 title label(s), \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_lowrank") : NaN) \
        with lines lc s + 1 dt 2 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_band") : NaN) \
        with lines lc s + 1 dt 3 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rel_sparse_lowrank_fit") : NaN) \
        lc s + 1 pt popen(sshape(s + 1)) ps 1.1 dt 4 lw 2.5 notitle, \
     NaN with linespoints lc "black" pt 7 ps 0.7 dt 1 lw 1.5 title "band + SKI (split known)", \
     NaN with linespoints lc "black" pt 6 ps 1.1 dt 4 lw 2.5 title "band fitted + SKI", \
     NaN with lines lc "black" dt 2 title "SKI only", \
     NaN with lines lc "black" dt 3 title "band only"
@fit
