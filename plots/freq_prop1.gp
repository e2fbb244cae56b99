# freq_prop1.gp — `skit decay prop1`: error of linear interpolation through
# the located breakpoints vs through as many uniform knots. Variables: datafile.
set title "Proposition 1: is the ReLU MLP piecewise linear between its breakpoints?"
set ylabel "max |MLP - interpolant| / max |MLP|"
set logscale y
set format y "10^{%L}"
set yrange [1e-17:1]
set grid ytics
set xtics rotate by 45 right noenhanced
set key top left
plot datafile using 0:"error_through_breakpoints":xticlabels(sprintf("%s/%s/%s", strcol(1), strcol(2), strcol(3))) \
     with points pt 7 ps 1.2 title "through breakpoints", \
     '' using 0:"error_uniform_knots" with points pt 6 ps 1.2 title "uniform knots (same count)"
