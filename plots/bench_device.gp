# plots/bench_device.gp — CPU vs GPU: time per call against n (log-log) for
# each operator of `skit bench device`; the GPU device-resident, with
# host<->device transfers, and its memory-bandwidth floor, per precision.
# The caller sets terminal, output and `datafile` (tab-separated skit TSV).
set datafile columnheaders
set datafile missing "nan"
set logscale x 2
set logscale y 10
set format x "2^{%L}"
set xlabel "n"
set ylabel "seconds per call"
set grid
set key top left font ",9"
is(op, prec) = (strcol("operator") eq op && strcol("precision") eq prec)
at(op, prec, col) = is(op, prec) ? column(col) : NaN
set multiplot layout 1,3
do for [op in "toeplitz attention mra"] {
    set title op
    plot datafile using (at(op, "float64", "n")):(at(op, "float64", "cpu_s")) with linespoints lw 2 pt 7 lc rgb "black" title "CPU (float64)", \
         datafile using (at(op, "float64", "n")):(at(op, "float64", "gpu_s")) with linespoints pt 5 lc rgb "#1f77b4" title "GPU float64, on device", \
         datafile using (at(op, "float64", "n")):(at(op, "float64", "gpu_transfer_s")) with linespoints dt 2 pt 4 lc rgb "#1f77b4" title "GPU float64, with transfers", \
         datafile using (at(op, "float32", "n")):(at(op, "float32", "gpu_s")) with linespoints pt 9 lc rgb "#d62728" title "GPU float32, on device", \
         datafile using (at(op, "float32", "n")):(at(op, "float32", "gpu_transfer_s")) with linespoints dt 2 pt 8 lc rgb "#d62728" title "GPU float32, with transfers", \
         datafile using (at(op, "float32", "n")):(at(op, "float32", "floor_s")) with lines dt 3 lc rgb "#d62728" title "float32 bandwidth floor"
}
unset multiplot
