# plots/mra_workload.gp — `skit mra workload`: the attention-matrix entries
# needed to reach a relative error target against n (the paper's Figure 7,
# left; solid 0.05, dashed 0.1), with the linear and quadratic references.
# Variables: datafile; methods (space-separated).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile missing "nan"
if (!exists("methods")) methods = "lowrank topk mra2"
set format y "10^{%L}"
set xlabel "n"
set ylabel "workload (entries)"
set grid
set key outside right top
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
# log axes only now: an empty selection under a log axis is an error
set logscale xy
set xrange [*:*] noextend
set datafile nocolumnheaders
set datafile separator whitespace
plot for [i = 1:nm] sprintf('$S%d_1', i) using 1:2 smooth unique with linespoints lw 2 \
         pt mpt(word(methods, i)) lc rgb mcolor(word(methods, i)) title mlabel(word(methods, i))." (error ≤ 0.05)", \
     for [i = 1:nm] sprintf('$S%d_2', i) using 1:2 smooth unique with linespoints lw 2 dt 2 \
         pt mpt(word(methods, i)) lc rgb mcolor(word(methods, i)) title mlabel(word(methods, i))." (error ≤ 0.1)", \
     $N2 using 1:2 smooth unique with lines lc rgb "gray" dt 3 title "n^2"
