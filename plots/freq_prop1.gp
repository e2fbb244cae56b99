# freq_prop1.gp — `skit decay prop1`: error of linear interpolation through
# the located breakpoints vs through as many uniform knots. Variables: datafile.
# The uniform knots' open ring is larger than the breakpoints' filled dot,
# so that both show where they coincide; the key below the axis.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set title "Proposition 1: is the ReLU MLP piecewise linear between its breakpoints?"
set ylabel "max |MLP - interpolant| / max |MLP|"
@logy
set grid ytics
set xtics rotate by 45 right noenhanced
set key below horizontal
@probe
plot datafile using 0:"error_through_breakpoints":xticlabels(sprintf("%s/%s/%s", strcol(1), strcol(2), strcol(3))) \
     with points pt 7 ps 1.0 lc 1 title "through breakpoints", \
     '' using 0:"error_uniform_knots" with points pt 6 ps 1.6 lc 2 title "uniform knots (same count)"
@fit
