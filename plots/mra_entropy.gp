# plots/mra_entropy.gp — error against the mean row entropy of the softmax
# (the paper's Figure 5 / Figure 7 right): one line per method at a fixed
# budget. Variables: datafile; methods; bsel (budget to show, as written).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("methods")) methods = "mra2 mra2s"
if (!exists("bsel")) bsel = "0.1"
if (!exists("title_text")) title_text = sprintf("error vs attention entropy, budget %s", bsel)
set title title_text
set xlabel "mean row entropy of softmax(QK^T/√d) (nats)"
set ylabel "relative error"
set grid
pick(m) = (strcol("method") eq m && strcol("budget") eq bsel)
# one datablock per method (rows filtered, not NaN-ed: NaN would break the
# lines, leaving points under a legend that shows lines)
nm = words(methods)
do for [i = 1:nm] {
    eval sprintf('set table $S%d', i)
    plot datafile using (column("entropy")):(column("rel_error")) with table if (pick(word(methods, i)))
    unset table
}
# log axes only now: an empty selection under a log axis is an error
@logy
set datafile nocolumnheaders
set datafile separator whitespace
# style.gp's colour, point type, size and dash per method: window and
# BigBird coincide on most temperatures, BigBird's open square around
# window's small pentagon, its dots over window's long dashes
@probe
plot for [i = 1:nm] sprintf('$S%d', i) using 1:2 smooth unique with linespoints lw 2 \
     pt mpt(word(methods, i)) ps mps(word(methods, i)) dt mdt(word(methods, i)) \
     lc rgb mcolor(word(methods, i)) title mlabel(word(methods, i))
@fit
