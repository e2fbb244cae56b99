# plots/mra_entropy.gp — error against the mean row entropy of the softmax
# (the paper's Figure 5 / Figure 7 right): one line per method at a fixed
# budget. Variables: datafile; methods; bsel (budget to show, as written).
set datafile columnheaders
set datafile missing "nan"
if (!exists("methods")) methods = "mra2 mra2s"
if (!exists("bsel")) bsel = "0.1"
if (!exists("title_text")) title_text = sprintf("error vs attention entropy, budget %s", bsel)
set title title_text
set logscale y
set format y "10^{%L}"
set xlabel "mean row entropy of softmax(QK^T/√d) (nats)"
set ylabel "relative error"
set grid
set key outside right top
pick(m) = (strcol("method") eq m && strcol("budget") eq bsel)
plot for [m in methods] datafile using (pick(m) ? column("entropy") : NaN):(pick(m) ? column("rel_error") : NaN) \
     with linespoints lw 2 pt 7 title m
