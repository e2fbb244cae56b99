# plots/mra_real_errors.gp — `skit mra` on the heads of a real model: the
# relative output error of each method at one budget against the head's
# attention entropy, one point per head (experiment 35, Figures 5 and 7).
# Variables: datafile (a sweep TSV with layer, head columns); methods; bsel.
set datafile columnheaders
set datafile missing "nan"
if (!exists("methods")) methods = "mra2 mra2s lowrank topk nystrom linformer performer window bigbird"
if (!exists("bsel")) bsel = "0.1"
set title sprintf("relative error per head at budget %s, heads by entropy", bsel)
set logscale y
set format y "10^{%L}"
set xlabel "mean row entropy of the head's softmax (nats)"
set ylabel "||Y_{approx} - Y||_F / ||Y||_F"
set grid
set key outside right top
pick(m) = (strcol("method") eq m && strcol("budget") eq bsel)
# a point type per method as well as a colour: the colours repeat after 8
plot for [i = 1:words(methods)] datafile \
     using (pick(word(methods, i)) ? column("entropy") : NaN):(pick(word(methods, i)) ? column("rel_error") : NaN) \
     with points pt (i > 8 ? 5 : 7) ps 1.0 lc i title word(methods, i)
