# train_parity.gp — learning curves of the parity study: validation loss
# against the step, one line per mixer and seed (each its own colour,
# point type and dash), every line ending where its run stopped (on the
# plateau, or at --steps). Variables: datafile (TSV: series, step,
# val_loss), series (space-separated names as in the series column),
# chance (the loss of guessing, drawn as a reference line; NaN: none),
# ttl and ylab (the title and the y label; recall's by default), linear
# (set: a linear y axis, for losses within a narrow band).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("series")) series = ''
if (!exists("chance")) chance = NaN
if (!exists("ttl")) ttl = "associative recall: validation loss until each run stops"
if (!exists("ylab")) ylab = "validation loss (nats per query)"
@logy
if (exists("linear")) { @liny }
set grid
set key font ",9" noenhanced
set xlabel "step"
set ylabel ylab
set title ttl
@probe
plot for [i=1:words(series)] datafile using "step":(strcol("series") eq word(series, i) ? column("val_loss") : NaN) \
     with linespoints lw 2 lc i pt spt(i) ps sps(i) dt sdt(i) title word(series, i), \
     chance with lines lw 1 lc rgb "black" dt 3 title (chance == chance ? "chance" : "")
@fit
