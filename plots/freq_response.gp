# freq_response.gp — `skit decay response`: frequency response of every
# channel, each its own colour and dash. Variables: datafile; channels;
# title_text (optional).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("channels")) channels = 4
if (!exists("title_text")) title_text = "Frequency response of a randomly initialised MLP"
set title title_text
set xlabel "omega (rad)"
set ylabel "k(omega)"
set grid
set datafile columnheaders
# lines only, ending with the data: the x axis spans it exactly
set autoscale xfix
fit_axes = "y"
@probe
plot for [i=0:channels-1] datafile using "omega":sprintf("ch%d", i) with lines lw 2 lc i + 1 dt sdt(i + 1) title sprintf("channel %d", i)
@fit
