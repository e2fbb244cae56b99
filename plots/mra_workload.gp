# plots/mra_workload.gp — `skit mra workload`: the attention-matrix entries
# needed to reach a relative error target against n (the paper's Figure 7,
# left; solid 0.05, dashed 0.1), with the linear and quadratic references.
# Variables: datafile; methods (space-separated).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("methods")) methods = "lowrank topk mra2"
set xlabel "n"
set ylabel "workload (entries)"
set grid
pick(m, t) = (strcol("method") eq m && abs(column("target") - t) < 1e-9 && column("budget") > 0)
# one datablock per method and target (rows filtered, not NaN-ed: NaN would
# break the lines, leaving points under a legend that shows lines)
nm = words(methods)
do for [i = 1:nm] {
    do for [t = 1:2] {
        eval sprintf('set table $S%d_%d', i, t)
        plot datafile using (column("n")):(column("workload")) with table if (pick(word(methods, i), t == 1 ? 0.05 : 0.1))
        unset table
    }
}
set table $N2
plot datafile using (column("n")):(column("n")**2) with table
unset table
# log axes only now: an empty selection under a log axis is an error; n is
# a power of two, labelled at each
@log2x
set format x "%g"
@logy
set datafile nocolumnheaders
set datafile separator whitespace
# a method keeps its colour, point type and size (named in the key by a
# colour entry each); the target its line (a black key entry each): solid
# and filled for 0.05, dashed and open (the larger ring) for 0.1
@probe
plot for [i = 1:nm] sprintf('$S%d_1', i) using 1:2 smooth unique with linespoints lw 2 dt 1 \
         pt pfilled(mpt(word(methods, i))) lc rgb mcolor(word(methods, i)) title mlabel(word(methods, i)), \
     for [i = 1:nm] sprintf('$S%d_2', i) using 1:2 smooth unique with linespoints lw 2 dt 2 \
         pt popen(mpt(word(methods, i))) ps 1.4 lc rgb mcolor(word(methods, i)) notitle, \
     $N2 using 1:2 smooth unique with lines lc rgb "gray40" dt 3 lw 1.5 title "n^2", \
     NaN with linespoints lw 2 dt 1 pt 7 lc rgb "black" title "error ≤ 0.05", \
     NaN with linespoints lw 2 dt 2 pt 6 ps 1.4 lc rgb "black" title "error ≤ 0.1"
@fit
