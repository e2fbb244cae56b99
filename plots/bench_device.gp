# plots/bench_device.gp — CPU vs GPU: time per call against n (log-log) for
# each operator of `skit bench device`; the GPU device-resident, with
# host<->device transfers, and its memory-bandwidth floor, per precision.
# One key for the three panels, right of them; each series its own colour,
# point type and dash (on device: filled, with transfers: open and dashed).
# The caller sets terminal, output and `datafile` (tab-separated skit TSV).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
@log2x
@logy
set xlabel "n"
fit_x2max = 4
set grid
is(op, prec) = (strcol("operator") eq op && strcol("precision") eq prec)
at(op, prec, col) = is(op, prec) ? column(col) : NaN
# the GPU series only where the run measured them (without a device they
# are all nan: empty series would be warnings and empty key entries)
ngpu = 0
set table $count
plot datafile using (ngpu = ngpu + (strcol("gpu_s") ne "nan"), 1):(1) with table
unset table
cpu(op) = sprintf('datafile using (at("%s", "float64", "n")):(at("%s", "float64", "cpu_s")) with linespoints lw 2 pt 7 dt 1 lc rgb "black" title "CPU (float64)"', op, op)
gpu(op) = sprintf(', datafile using (at("%s", "float64", "n")):(at("%s", "float64", "gpu_s")) with linespoints lw 1.5 pt 5 dt 4 lc rgb "#1f77b4" title "GPU float64, on device"', op, op) . \
    sprintf(', datafile using (at("%s", "float64", "n")):(at("%s", "float64", "gpu_transfer_s")) with linespoints lw 1.5 pt 4 ps 1.3 dt 2 lc rgb "#1f77b4" title "GPU float64, with transfers"', op, op) . \
    sprintf(', datafile using (at("%s", "float32", "n")):(at("%s", "float32", "gpu_s")) with linespoints lw 1.5 pt 9 dt 5 lc rgb "#d62728" title "GPU float32, on device"', op, op) . \
    sprintf(', datafile using (at("%s", "float32", "n")):(at("%s", "float32", "gpu_transfer_s")) with linespoints lw 1.5 pt 8 ps 1.3 dt "_ " lc rgb "#d62728" title "GPU float32, with transfers"', op, op) . \
    sprintf(', datafile using (at("%s", "float32", "n")):(at("%s", "float32", "floor_s")) with lines lw 1.5 dt 3 lc rgb "#d62728" title "float32 bandwidth floor"', op, op)
set multiplot layout 1,3 margins 0.09, 0.72, 0.12, 0.9 spacing 0.07, 0.1
ops = "toeplitz attention mra"
do for [i = 1:words(ops)] {
    op = word(ops, i)
    set title op
    if (i == 1) { set ylabel "seconds per call" } else { unset ylabel }
    if (i == words(ops)) { set key at screen 0.73, graph 1 left top font ",9" } else { unset key }
    @probe
    eval 'plot ' . cpu(op) . (ngpu > 0 ? gpu(op) : '')
    @fit
}
unset multiplot
