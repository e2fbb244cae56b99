# plots/mra_real_fraction.gp — one point per attention head of a real model:
# the fraction of its 2-D Haar coefficients below the threshold against the
# head's mean row entropy, coloured by layer (experiment 35, Figure 1).
# Columns: layer, head, entropy, fraction_small.
# The fraction axis spans the heads (a margin so that no point is cut by the
# frame; no label beyond 1); the key above the axes, off the data.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set xlabel "mean row entropy of the head's softmax (nats)"
set ylabel "fraction of |Haar coefficients| < 0.005"
set cblabel "layer"
set cbrange [-0.5:5.5]
set cbtics 1
set palette maxcolors 6
set palette defined (0 "#1b9e77", 1 "#d95f02", 2 "#7570b3", 3 "#e7298a", 4 "#66a61e", 5 "#e6ab02")
set grid
set key above horizontal
@probe
plot datafile using "entropy":"fraction_small":"layer" with points pt 7 ps 1.3 lc palette title "one head", \
     datafile using "entropy":(0.95) with lines lw 2 dt 2 lc rgb "gray40" title "95% (paper, Fig. 1)"
unset table
ok = fit_range(GPVAL_DATA_X_MIN, GPVAL_DATA_X_MAX, fit_xlog)
set xrange [fit_lo:fit_hi]
ok = fit_range(GPVAL_DATA_Y_MIN, GPVAL_DATA_Y_MAX, fit_ylog)
set yrange [fit_lo > 0 ? fit_lo : 0:fit_hi]
plot datafile using "entropy":"fraction_small":"layer" with points pt 7 ps 1.3 lc palette notitle, \
     NaN with points pt 7 ps 1.3 lc rgb "gray30" title "one head (colour: its layer)", \
     0.95 with lines lw 2 dt 2 lc rgb "gray40" title "95% (paper, Fig. 1)"
