# train_extrapolation.gp — validation loss / entropy floor of models trained
# at length ntrain, evaluated at 1..16 x ntrain, one line per model (each its
# own colour, point type and dash: the models that stay near 1 coincide).
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
set ylabel "validation loss / entropy rate H"
set title sprintf("trained at n = %d on the order-2 Markov task, evaluated at longer n", ntrain)
@probe
plot for [i=1:words(models)] datafile using "n":(strcol("model") eq word(models, i) ? column("ratio_to_floor") : NaN) \
     with linespoints lw 2 lc i pt spt(i) ps sps(i) dt sdt(i) title word(models, i)
@fit
