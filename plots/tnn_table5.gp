# plots/tnn_table5.gp — TNN Table 5 at operator level: forward calls per
# second against n for the TNO, exact attention and the linear-attention
# baselines, log scale, style.gp's colour, point type and dash per method (the
# TNO dashed: it shares black with exact attention).
# Data: experiment 41's throughput.tsv (columns n, method, seconds, calls_per_s).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
@logy
set format y "%g"
set xlabel "n (tokens)"
set ylabel "forward calls per second (batch 1, 64 channels)"
set grid
set key font ",9"
at(m, col) = strcol("method") eq m ? column(col) : NaN
lab(m) = m eq "tno" ? "TNO (RPE + decay + FFT)" : mlabel(m)
methods = "exact performer linformer nystrom"
@probe
plot datafile using (at("tno", "n")):(at("tno", "calls_per_s")) with linespoints lw 2 dt 2 pt 12 ps 1.3 lc rgb mcolor("tno") title lab("tno"), \
     for [m in methods] datafile using (at(m, "n")):(at(m, "calls_per_s")) with linespoints lw 2 pt mpt(m) ps mps(m) dt mdt(m) lc rgb mcolor(m) title lab(m)
@fit
