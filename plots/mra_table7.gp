# plots/mra_table7.gp — error against time for every method and budget
# (the paper's Figure 4 / Table 7), one panel per n in `nlist`; the dotted
# vertical line is exact attention's time at that n.
# Variables: datafile; methods; nlist (space-separated n values); tcol (the
# time column, "time_s" wall or "cpu_s" CPU seconds).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("methods")) methods = "mra2 mra2s"
if (!exists("nlist")) nlist = "1024"
if (!exists("tcol")) tcol = "time_s"
@logx
@logy
set xlabel (tcol eq "cpu_s" ? "CPU time (s)" : "time (s)")
set ylabel "relative error"
set grid
# memory as bubble size (the paper's Fig. 4): point size from the bytes the
# plan owns, on a log scale (1 MiB -> 1)
bubble(b) = b > 0 ? (v = 1 + 0.6 * log10(b / 1048576.0), v < 0.4 ? 0.4 : v) : 0.4
pick(m, n) = (strcol("method") eq m && column("n") == n)
npanels = words(nlist)
# panels of one size side by side, one key for all right of the last one
rmargin = 0.74
set multiplot layout 1, npanels margins 0.08, rmargin, 0.12, 0.9 spacing 0.1, 0.1
do for [i = 1:npanels] {
    nv = word(nlist, i) + 0
    set title sprintf("n = %d", nv)
    stats datafile using (strcol("method") eq "exact" && column("n") == nv ? column(tcol) : NaN) nooutput
    texact = STATS_records > 0 ? STATS_max : NaN
    # the x range takes in exact attention's time: an invisible point there,
    # at a height the methods' points already span
    stats datafile using (strcol("method") ne "exact" && column("n") == nv ? column("rel_error") : NaN) nooutput
    ylow = STATS_records > 0 ? STATS_min : NaN
    set arrow 1 from texact, graph 0 to texact, graph 1 nohead dt 3 lw 1.5 lc rgb mcolor("exact")
    if (i == npanels) { set key at screen rmargin + 0.02, graph 1 left top } else { unset key }
    @probe
    plot for [m in methods] datafile using (pick(m, nv) ? column(tcol) : NaN):(pick(m, nv) ? column("rel_error") : NaN) \
         smooth unique with lines lw 1.5 dt mdt(m) lc rgb mcolor(m) notitle, \
         for [m in methods] datafile using (pick(m, nv) ? column(tcol) : NaN):(pick(m, nv) ? column("rel_error") : NaN):(bubble(column("plan_bytes"))) \
         with points pt mpt(m) ps variable lc rgb mcolor(m) title mlabel(m), \
         NaN with lines dt 3 lw 1.5 lc rgb mcolor("exact") title mlabel("exact")." (time)", \
         NaN with points pt 6 ps 2 lc rgb "gray40" title "size: plan memory", \
         datafile using (texact):(pick("exact", nv) ? ylow : NaN) with points pt 7 lc rgb "#ff000000" notitle
    @fit
    unset arrow 1
}
unset multiplot
