# train_extrapolation.gp — validation loss of models trained
# at length ntrain, evaluated at 1..16 x ntrain, one line per model (each its
# own colour, point type and dash: the models that stay flat may coincide).
# Variables: datafile (TSV: model, n, val_loss, ratio_to_floor), models
# (space-separated names as in the model column), ntrain.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("models")) models = ''
if (!exists("ntrain")) ntrain = 64
@log2x
set format x "%g"
set grid
set key font ",9" noenhanced
set xlabel "evaluation length n"
set ylabel "validation loss (nats per byte)"
set title sprintf("trained at n = %d on byte-level text, evaluated at longer n", ntrain)
@probe
plot for [i=1:words(models)] datafile using "n":(strcol("model") eq word(models, i) ? column("val_loss") : NaN) \
     with linespoints lw 2 lc i pt spt(i) ps sps(i) dt sdt(i) title word(models, i)
@fit
