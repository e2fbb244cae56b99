# freq_impulse.gp — `skit decay impulse`: the paper's Figs. 4-6 layout. Left:
# the frequency response of every channel (from `skit decay response`, when
# responsefile is set) or else the real part of k[n] on a linear axis; right:
# |k[n]| on a log axis, where the decay is visible. One key for both panels
# (right of them) names the channels: each its own colour, dash and point.
# Variables: datafile (impulse); channels; title_text; responsefile (optional).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("channels")) channels = 4
if (!exists("title_text")) title_text = "Impulse response k[n]"
set datafile columnheaders
set grid
set multiplot layout 1,2 title title_text font ",11" margins 0.1, 0.8, 0.12, 0.86 spacing 0.1, 0.1
unset key
if (exists("responsefile")) {
    set title "frequency response"
    set xlabel "omega (rad)"
    set ylabel "k(omega)"
    @probe
    plot for [i=0:channels-1] responsefile using "omega":sprintf("ch%d", i) with lines lw 2 lc i + 1 dt sdt(i + 1) title sprintf("channel %d", i)
    @fit
} else {
    set title "k[n], real part"
    set xlabel "n (lag)"
    set ylabel "k[n]"
    @probe
    plot for [i=0:channels-1] datafile using "n":sprintf("re%d", i) with linespoints lw 1 lc i + 1 dt sdt(i + 1) pt spt(i + 1) ps 0.5 title sprintf("channel %d", i)
    @fit
}
set title "|k[n]| (log scale)"
set xlabel "n (lag)"
set ylabel "|k[n]|"
@logy
set key at screen 0.82, graph 1 left top font ",9"
# exact zeros have no logarithm: left out (the line joins their neighbours)
@probe
plot for [i=0:channels-1] datafile using "n":(column(sprintf("abs%d", i)) > 0 ? column(sprintf("abs%d", i)) : NaN) \
     with linespoints lw 1 lc i + 1 dt sdt(i + 1) pt spt(i + 1) ps 0.5 title sprintf("channel %d", i)
@fit
unset multiplot
