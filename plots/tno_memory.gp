# plots/tno_memory.gp — SKI-to-go-faster Figs. 10b and 11 at operator level:
# forward time relative to the TNO forward (left) and operator memory (right)
# of the 6-layer-RPE TNO, SKI-TNO (sparse + low rank) and SKI-TNO with the
# low-rank part only, grouped by n. Data: experiment 40's memory.tsv
# (columns n, method, forward_over_tno, memory_mib).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set style fill solid 0.85 border -1
set boxwidth 0.25
set grid ytics
set key top right font ",9"
set xlabel "n (tokens)"
set xrange [-0.5:1.5]
set yrange [0:*]
# room above the bars for the key
set offsets 0, 0, graph 0.4, 0
# groups: the first n at 0, the second at 1; methods side by side
grp(n) = n <= 512 ? 0 : 1
off(m) = m eq "tno" ? -0.27 : m eq "ski" ? 0 : 0.27
xpos(m) = (strcol("method") eq m) ? grp(column("n")) + off(m) : NaN
lab(m) = m eq "tno" ? "TNO (6-layer RPE)" : m eq "ski" ? "SKI-TNO (sparse + low rank)" : "SKI-TNO (low rank only)"
set xtics ("512" 0, "2048" 1)
methods = "tno ski ski-lowrank"
set multiplot layout 1,2
set title "forward time / TNO forward"
plot for [m in methods] datafile using (xpos(m)):"forward_over_tno" with boxes lc rgb mcolor(m) title lab(m)
set title "memory (plan + input + output)"
set ylabel "MiB"
unset key
plot for [m in methods] datafile using (xpos(m)):"memory_mib" with boxes lc rgb mcolor(m) title lab(m)
unset multiplot
