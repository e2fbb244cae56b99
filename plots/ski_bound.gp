# ski_bound.gp — Theorem 1 of "SKI to go Faster": measured ||E_SKI||_2, the
# theorem's right-hand side, sigma_{r+1}(T) (best rank-r error) and
# ||T - W A W^T||_2 against r or n, one colour per series.
# Variables: datafile (skit ski-bound TSV), xcol ('r' or 'n'), nseries,
# titles (space-separated series names; may be empty).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("xcol")) xcol = 'r'
if (!exists("nseries")) nseries = 1
if (!exists("titles")) titles = ''
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("series %d", s)
# r and n: sizes, a label at each power of two; @fit pads both axes (no
# point on the frame) and keeps two labelled ticks on each
@log2x
set format x "%g"
@logy
set xlabel (xcol eq 'r' ? "inducing points r" : "n")
set ylabel "spectral norm"
set title "Theorem 1: SKI error against its bound"
set key font ",8" spacing 0.9
set grid
set style data linespoints
# colour and point shape = series (named in the key), line style = quantity
# (a black key entry each): measured filled, ||T - WAW^T|| open; the
# dash-dot curve is drawn last and thicker, with open points, so that it
# shows where it meets the solid one
@probe
plot for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("e_ski") : NaN) \
        lc s + 1 pt sshape(s + 1) ps 0.7 dt 1 lw 1.5 title label(s), \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("rhs") : NaN) \
        with lines lc s + 1 dt 2 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("sigma_next") : NaN) \
        with lines lc s + 1 dt 3 notitle, \
     for [s=0:nseries-1] datafile using xcol:(column("series") == s ? column("ski_error") : NaN) \
        lc s + 1 pt popen(sshape(s + 1)) ps 1.1 dt 4 lw 2.5 notitle, \
     NaN with linespoints lc "black" pt 7 ps 0.7 dt 1 lw 1.5 title "||E_{SKI}||_2 (measured)", \
     NaN with lines lc "black" dt 2 title "Theorem 1 bound", \
     NaN with lines lc "black" dt 3 title "{/Symbol s}_{r+1}(T) (best rank r)", \
     NaN with linespoints lc "black" pt 6 ps 1.1 dt 4 lw 2.5 title "||T - WAW^T||_2"
@fit
