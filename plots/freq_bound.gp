# freq_bound.gp — `skit decay bound`: measured |k[n]| against Theorem 3's
# bound ||k^(N)||_1 / (2 pi n^N) for each order N.
# Variables: datafile; norders; floor (rounding floor of |k|); title_text.
# Each order its own colour and dash; the measured points black, drawn last.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("norders")) norders = 6
if (!exists("title_text")) title_text = "Theorem 3: |k[n]| against ||k^{(N)}||_1 / (2 pi n^N)"
set title title_text
@logx
set format x "%g"
@logy
set xlabel "n (lag)"
set ylabel "magnitude"
set grid
# below 1e-18 the bounds of high orders fall off the axis (|k| of a double
# can not be told from 0 there)
set yrange [1e-18:*]
fit_axes = "x"
@probe
plot for [i=1:norders] datafile using 1:(column(2+i) > 0 ? column(2+i) : NaN) with lines lw 2 lc i + 1 dt sdt(i + 1) title sprintf("bound, N = %d", i), \
     (exists("floor") ? floor : NaN) with lines dt 3 lw 1.5 lc rgb "gray40" title "rounding floor", \
     datafile using 1:2 with points pt 7 ps 0.5 lc rgb "black" title "|k[n]| measured"
@fit
