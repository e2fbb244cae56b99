# freq_impulse.gp — `skit decay impulse`: impulse responses (real part) of
# every channel, linear scale. Variables: datafile; channels; title_text.
if (!exists("channels")) channels = 4
if (!exists("title_text")) title_text = "Impulse response k[n] (real part)"
set title title_text
set xlabel "n (lag)"
set ylabel "k[n]"
set grid
set key outside right top
plot for [i=2:channels+1] datafile using 1:i with linespoints pt 7 ps 0.4 title columnhead(i)
