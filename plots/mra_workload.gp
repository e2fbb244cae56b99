# plots/mra_workload.gp — `skit mra workload`: the attention-matrix entries
# needed to reach a relative error target against n (the paper's Figure 7,
# left; solid 0.05, dashed 0.1), with the linear and quadratic references.
# Variables: datafile; methods (space-separated).
set datafile columnheaders
set datafile missing "nan"
if (!exists("methods")) methods = "lowrank topk mra2"
set logscale xy
set format y "10^{%L}"
set xlabel "n"
set ylabel "workload (entries)"
set grid
set key outside right top
pick(m, t) = (strcol("method") eq m && abs(column("target") - t) < 1e-9 && column("budget") > 0)
plot for [m in methods] datafile using (pick(m, 0.05) ? column("n") : NaN):(pick(m, 0.05) ? column("workload") : NaN) \
         with linespoints lw 2 pt 7 title m." (error <= 0.05)", \
     for [m in methods] datafile using (pick(m, 0.1) ? column("n") : NaN):(pick(m, 0.1) ? column("workload") : NaN) \
         with linespoints lw 2 dt 2 pt 6 title m." (error <= 0.1)", \
     datafile using (column("n")):(column("n")**2) with lines lc rgb "gray" dt 3 title "n^2"
