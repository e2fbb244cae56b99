# freq_response.gp — `skit decay response`: frequency response of every
# channel. Variables: datafile; channels; title_text (optional).
if (!exists("channels")) channels = 4
if (!exists("title_text")) title_text = "Frequency response of a randomly initialised MLP"
set title title_text
set xlabel "omega (rad)"
set ylabel "k(omega)"
set grid
set autoscale xfix
set key outside right top
set datafile columnheaders
plot for [i=0:channels-1] datafile using "omega":sprintf("ch%d", i) with lines lw 2 title sprintf("channel %d", i)
