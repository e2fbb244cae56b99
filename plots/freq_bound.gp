# freq_bound.gp — `skit decay bound`: measured |k[n]| against Theorem 3's
# bound ||k^(N)||_1 / (2 pi n^N) for each order N.
# Variables: datafile; norders; floor (rounding floor of |k|); title_text.
if (!exists("norders")) norders = 6
if (!exists("title_text")) title_text = "Theorem 3: |k[n]| against ||k^{(N)}||_1 / (2 pi n^N)"
set title title_text
set logscale xy
set format y "10^{%L}"
set xlabel "n (lag)"
set ylabel "magnitude"
set grid
set key outside right top
set yrange [1e-18:*]
plot datafile using 1:2 with points pt 7 ps 0.5 lc rgb "black" title "|k[n]| measured", \
     for [i=1:norders] '' using 1:(column(2+i) > 0 ? column(2+i) : NaN) with lines lw 2 title columnhead(2+i), \
     (exists("floor") ? floor : NaN) with lines dt 2 lc rgb "gray" title "rounding floor"
