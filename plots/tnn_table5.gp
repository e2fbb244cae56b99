# plots/tnn_table5.gp — TNN Table 5 at operator level: forward calls per
# second against n for the TNO, exact attention and the linear-attention
# baselines, log scale, style.gp's colour and point type per method (the
# TNO dashed: it shares black with exact attention).
# Data: experiment 41's throughput.tsv (columns n, method, seconds, calls_per_s).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set logscale y
set xlabel "n (tokens)"
set ylabel "forward calls per second (batch 1, 64 channels)"
set grid
set key top right font ",9"
set offsets graph 0.05, graph 0.05, 0, 0
at(m, col) = strcol("method") eq m ? column(col) : NaN
lab(m) = m eq "tno" ? "TNO (RPE + decay + FFT)" : mlabel(m)
methods = "exact performer linformer nystrom"
plot datafile using (at("tno", "n")):(at("tno", "calls_per_s")) with linespoints lw 2 dt 2 pt 12 ps 1.3 lc rgb mcolor("tno") title lab("tno"), \
     for [m in methods] datafile using (at(m, "n")):(at(m, "calls_per_s")) with linespoints lw 2 pt mpt(m) lc rgb mcolor(m) title lab(m)
