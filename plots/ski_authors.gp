# ski_authors.gp — the public ski-tnn code's interpolation matrix reproduced:
# left, the SKI error ||T - W A W^T||_2 / ||T||_2 and the kept low-rank term
# ||W A W^T||_2 / ||T||_2 against n for correct linear weights, the code's
# upper-bracket weights and those with its gamma^(i n) row falloff; right,
# rows of W with a weight above 1e-6 against n with the prediction
# 1 + floor(ln(2e6) / (n |ln gamma|)).
# Keys below the panels: colour and point shape per scheme; the quantity by
# line (solid, filled: the error; dashed, open: the kept term).
# Variables: datafile (skit ski-bound TSV with interp linear,
# authors-bracket, authors sorted by series), gamma.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("gamma")) gamma = 0.99
set multiplot layout 1, 2 title "The ski-tnn code's W (reproduction of that code's behaviour)"
@log2x
set format x "%g"
@logy
set xlabel "n"
set grid
set key below maxrows 3 font ",9"
set bmargin 8
set ylabel "relative to ||T||_2"
set title "SKI error and kept low-rank term ||WAW^T||" font ",10"
sel(name) = (strcol("interp") eq name)
@probe
plot datafile using "n":(sel("linear") ? column("ski_error") / column("t_norm") : NaN) with linespoints lw 1.5 dt 1 lc 1 pt 7 title "linear (correct)", \
     datafile using "n":(sel("authors-bracket") ? column("ski_error") / column("t_norm") : NaN) with linespoints lw 1.5 dt 1 lc 2 pt 5 title "upper bracket", \
     datafile using "n":(sel("authors") ? column("ski_error") / column("t_norm") : NaN) with linespoints lw 1.5 dt 1 lc 3 pt 9 title "bracket + falloff", \
     datafile using "n":(sel("linear") ? column("ski_norm") / column("t_norm") : NaN) with linespoints lw 1.5 dt 2 lc 1 pt 6 ps 1.5 notitle, \
     datafile using "n":(sel("authors-bracket") ? column("ski_norm") / column("t_norm") : NaN) with linespoints lw 1.5 dt 4 lc 2 pt 4 ps 1.2 notitle, \
     datafile using "n":(sel("authors") ? column("ski_norm") / column("t_norm") : NaN) with linespoints lw 1.5 dt 5 lc 3 pt 8 ps 1.0 notitle, \
     NaN with linespoints lw 1.5 dt 1 lc rgb "black" pt 7 title "SKI error", \
     NaN with linespoints lw 1.5 dt 2 lc rgb "black" pt 6 title "kept term ||WAW^T||"
@fit
@liny
set ylabel "rows of W with |w| > 1e-6"
set title "rows that survive the falloff" font ",10"
set key maxrows 2
pred(n) = 1 + floor(log(2e6) / (n * abs(log(gamma))))
@probe
plot datafile using "n":(sel("authors") ? column("w_rows_alive") : NaN) with points pt 9 ps 1.5 lc 3 title "measured (bracket + falloff)", \
     datafile using "n":(sel("authors") ? pred(column("n")) : NaN) with lines dt 2 lc rgb "gray30" title "1 + floor(ln(2e6)/(n |ln {/Symbol g}|))"
@fit
unset multiplot
