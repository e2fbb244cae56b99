# freq_decay.gp — |k[n]| against n on log-log axes, one curve per file.
# Variables: datafile (used when `files` is not set); files, titles
# (space-separated; titles use '_' for spaces); column (default "abs0").
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("files")) files = datafile
if (!exists("titles")) titles = files
if (!exists("column_name")) column_name = "abs0"
# group > 1: curves come in groups of `group`; colour and point type by
# group, dash by member (a point every few lags names the group where the
# curves of two groups coincide)
if (!exists("group")) group = 1
if (!exists("title_text")) title_text = "Decay of the impulse response |k[n]|"
set title title_text
@logx
set format x "%g"
@logy
set xlabel "n (lag)"
set ylabel "|k[n]| (channel 0)"
set grid
set key noenhanced
g(i) = (i - 1) / group + 1
@probe
plot for [i=1:words(files)] word(files, i) using ($1 > 0 ? $1 : NaN):column_name \
     with linespoints pi 48 ps 0.9 pt sshape(g(i)) lw 1.5 lc g(i) dt sdt(1 + (i - 1) % group) title word(titles, i)
@fit
