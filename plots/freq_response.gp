# freq_response.gp — `skit decay response`: frequency response of every
# channel. Variables: datafile; channels; title_text (optional).
if (!exists("channels")) channels = 4
if (!exists("title_text")) title_text = "Frequency response of a randomly initialised MLP"
set title title_text
set xlabel "omega (rad)"
set ylabel "k(omega)"
set grid
set key outside right top
plot for [i=2:channels+1] datafile using 1:i with lines lw 2 title columnhead(i)
