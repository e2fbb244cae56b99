# plots/mra_real_errors.gp — `skit mra` on the heads of a real model: the
# relative output error of each method at one budget against the head's
# attention entropy, one point per head (experiment 35, Figures 5 and 7).
# Variables: datafile (a sweep TSV with layer, head columns); methods; bsel.
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("methods")) methods = "mra2 mra2s lowrank topk nystrom linformer linformer-fit performer window bigbird"
if (!exists("bsel")) bsel = "0.1"
set title sprintf("relative error per head at budget %s, heads by entropy", bsel)
@logy
set xlabel "mean row entropy of the head's softmax (nats)"
set ylabel "||Y_{approx} - Y||_F / ||Y||_F"
set grid
pick(m) = (strcol("method") eq m && strcol("budget") eq bsel)
# style.gp's colour, point type, size and label per method (as in every
# figure): open markers larger, so a method under another shows around it
@probe
plot for [m in methods] datafile \
     using (pick(m) ? column("entropy") : NaN):(pick(m) ? column("rel_error") : NaN) \
     with points pt mpt(m) ps mps(m) lc rgb mcolor(m) title mlabel(m)
@fit
