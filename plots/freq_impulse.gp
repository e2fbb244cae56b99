# freq_impulse.gp — `skit decay impulse`: the paper's Figs. 4-6 layout. Left:
# the frequency response of every channel (from `skit decay response`, when
# responsefile is set) or else the real part of k[n] on a linear axis; right:
# |k[n]| on a log axis, where the decay is visible. Legends name channels.
# Variables: datafile (impulse); channels; title_text; responsefile (optional).
if (!exists("channels")) channels = 4
if (!exists("title_text")) title_text = "Impulse response k[n]"
set datafile columnheaders
set grid
set autoscale xfix
set key top right font ",9"
set multiplot layout 1,2 title title_text font ",11"
if (exists("responsefile")) {
    set title "frequency response"
    set xlabel "omega (rad)"
    set ylabel "k(omega)"
    plot for [i=0:channels-1] responsefile using "omega":sprintf("ch%d", i) with lines lw 2 title sprintf("channel %d", i)
} else {
    set title "k[n], real part"
    set xlabel "n (lag)"
    set ylabel "k[n]"
    plot for [i=0:channels-1] datafile using "n":sprintf("re%d", i) with linespoints pt 7 ps 0.4 title sprintf("channel %d", i)
}
set title "|k[n]| (log scale)"
set xlabel "n (lag)"
set ylabel "|k[n]|"
set logscale y
set format y "10^{%L}"
# exact zeros have no logarithm: drawn at the bottom of the axis as missing
plot for [i=0:channels-1] datafile using "n":(column(sprintf("abs%d", i)) > 0 ? column(sprintf("abs%d", i)) : NaN) \
     with linespoints pt 7 ps 0.4 title sprintf("channel %d", i)
unset multiplot
