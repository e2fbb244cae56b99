# plots/tno_memory.gp — SKI-to-go-faster Figs. 10b and 11 at operator level:
# forward time relative to the TNO forward (left) and operator memory (right)
# of the 6-layer-RPE TNO, SKI-TNO (sparse + low rank) and SKI-TNO with the
# low-rank part only, grouped by n. One key below both panels; each method
# its colour and its fill (solid, half, hatched), not colour alone.
# Data: experiment 40's memory.tsv (columns n, method, forward_over_tno,
# memory_mib).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set boxwidth 0.25
set grid ytics
set xlabel "n (tokens)"
set xrange [-0.5:1.5]
set yrange [0:*]
# groups: the first n at 0, the second at 1; methods side by side
grp(n) = n <= 512 ? 0 : 1
off(m) = m eq "tno" ? -0.27 : m eq "ski" ? 0 : 0.27
xpos(m) = (strcol("method") eq m) ? grp(column("n")) + off(m) : NaN
lab(m) = m eq "tno" ? "TNO (6-layer RPE)" : m eq "ski" ? "SKI-TNO (sparse + low rank)" : "SKI-TNO (low rank only)"
set xtics ("512" 0, "2048" 1)
set multiplot layout 1,2 margins 0.08, 0.98, 0.2, 0.9 spacing 0.1, 0.1
set title "forward time / TNO forward"
set key at screen 0.5, screen 0.02 center bottom horizontal maxcols 3 width -6
bars(col) = sprintf('datafile using (xpos("tno")):"%s" with boxes fs solid 0.85 border lc rgb mcolor("tno") lc rgb mcolor("tno") title lab("tno"), ', col) . \
    sprintf('datafile using (xpos("ski")):"%s" with boxes fs solid 0.45 border lc rgb mcolor("ski") lc rgb mcolor("ski") title lab("ski"), ', col) . \
    sprintf('datafile using (xpos("ski-lowrank")):"%s" with boxes fs pattern 2 border lc rgb mcolor("ski-lowrank") lc rgb mcolor("ski-lowrank") title lab("ski-lowrank")', col)
eval 'plot '.bars("forward_over_tno")
set title "memory (plan + input + output)"
set ylabel "MiB"
unset key
eval 'plot '.bars("memory_mib")
unset multiplot
