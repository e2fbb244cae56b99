# train_extrapolation.gp — validation loss / entropy floor of models trained
# at length ntrain, evaluated at 1..16 x ntrain, one line per model.
# Variables: datafile (TSV: model, n, val_loss, ratio_to_floor), models
# (space-separated names as in the model column), ntrain.
if (!exists("models")) models = ''
if (!exists("ntrain")) ntrain = 64
set logscale x 2
set grid
set key top left font ",9"
set xlabel "evaluation length n"
set ylabel "validation loss / entropy rate H"
set title sprintf("trained at n = %d on the order-2 Markov task, evaluated at longer n", ntrain)
plot for [i=1:words(models)] datafile using "n":(strcol("model") eq word(models, i) ? column("ratio_to_floor") : NaN) \
     with linespoints lw 2 title word(models, i)
