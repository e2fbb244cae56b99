# plots/mra_table7.gp — error against time for every method and budget
# (the paper's Figure 4 / Table 7), one panel per n in `nlist`; the dotted
# vertical line is exact attention's time at that n.
# Variables: datafile; methods; nlist (space-separated n values); tcol (the
# time column, "time_s" wall or "cpu_s" CPU seconds).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile missing "nan"
if (!exists("methods")) methods = "mra2 mra2s"
if (!exists("nlist")) nlist = "1024"
if (!exists("tcol")) tcol = "time_s"
set logscale xy
set format y "10^{%L}"
set xlabel (tcol eq "cpu_s" ? "CPU time (s)" : "time (s)")
set ylabel "relative error"
set grid
set key bottom left font ",8"
# memory as bubble size (the paper's Fig. 4): point size from the bytes the
# plan owns, on a log scale (1 MiB -> 1)
bubble(b) = b > 0 ? (v = 1 + 0.6 * log10(b / 1048576.0), v < 0.4 ? 0.4 : v) : 0.4
pick(m, n) = (strcol("method") eq m && column("n") == n)
npanels = words(nlist)
set multiplot layout 1, npanels
do for [i = 1:npanels] {
    nv = word(nlist, i) + 0
    set title sprintf("n = %d", nv)
    stats datafile using (strcol("method") eq "exact" && column("n") == nv ? column(tcol) : NaN) nooutput
    texact = STATS_records > 0 ? STATS_max : NaN
    set arrow 1 from texact, graph 0 to texact, graph 1 nohead dt 3 lw 1.5 lc rgb mcolor("exact")
    plot for [m in methods] datafile using (pick(m, nv) ? column(tcol) : NaN):(pick(m, nv) ? column("rel_error") : NaN) \
         smooth unique with lines lw 1.5 lc rgb mcolor(m) notitle, \
         for [m in methods] datafile using (pick(m, nv) ? column(tcol) : NaN):(pick(m, nv) ? column("rel_error") : NaN):(bubble(column("plan_bytes"))) \
         with points pt mpt(m) ps variable lc rgb mcolor(m) title mlabel(m), \
         NaN with lines dt 3 lw 1.5 lc rgb mcolor("exact") title mlabel("exact")." (time)"
    unset arrow 1
}
unset multiplot
