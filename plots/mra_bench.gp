# plots/mra_bench.gp — `skit bench mra`: time per call against n (log-log)
# for exact attention, MRA-2 and MRA-2-s, with n and n^2 guides.
set datafile columnheaders
set logscale xy
set format x "2^{%L}"
set format y "10^{%L}"
set xlabel "n"
set ylabel "seconds per call"
set grid
set key top left
pick(m) = strcol("method") eq m
plot datafile using (pick("exact") ? column("n") : NaN):(pick("exact") ? column("time_s") : NaN) with linespoints lw 2 pt 7 title "exact (blocked)", \
     datafile using (pick("mra2") ? column("n") : NaN):(pick("mra2") ? column("time_s") : NaN) with linespoints lw 2 pt 5 title "MRA-2", \
     datafile using (pick("mra2s") ? column("n") : NaN):(pick("mra2s") ? column("time_s") : NaN) with linespoints lw 2 pt 9 title "MRA-2-s"
