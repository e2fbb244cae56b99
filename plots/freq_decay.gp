# freq_decay.gp — |k[n]| against n on log-log axes, one curve per file.
# Variables: datafile (used when `files` is not set); files, titles
# (space-separated; titles use '_' for spaces); column (default "abs0").
if (!exists("files")) files = datafile
if (!exists("titles")) titles = files
if (!exists("column_name")) column_name = "abs0"
# group > 1: curves come in groups of `group`; colour by group, dash by member
if (!exists("group")) group = 1
if (!exists("title_text")) title_text = "Decay of the impulse response |k[n]|"
set title title_text
set logscale xy
set format y "10^{%L}"
set xlabel "n (lag)"
set ylabel "|k[n]| (channel 0)"
set grid
set key outside right top noenhanced
plot for [i=1:words(files)] word(files, i) using ($1 > 0 ? $1 : NaN):column_name \
     with lines lw 2 lc ((i - 1) / group + 1) dt 1 + (i - 1) % group title word(titles, i)
